// SPDX-License-Identifier: MIT
/* Terminal output: errors and progress to stderr, filtered by level. */
#include <stdarg.h>
#include <stdio.h>

#include "lib/log.h"

enum log_level log_level = LOG_INFO;

void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > log_level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
