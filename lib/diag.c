// SPDX-License-Identifier: MIT
/* Caller-owned error messages (see diag.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/diag.h"

int diag_set(struct diag *d, int err, const char *fmt, ...)
{
	va_list ap;

	if (!d || d->msg[0])
		return err;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	d->err = err;
	return err;
}

int diag_wrap(struct diag *d, int err, const char *fmt, ...)
{
	size_t hl, ol, cap;
	char head[256];
	va_list ap;

	if (!d)
		return err;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	hl = strlen(head);
	ol = strlen(d->msg);
	cap = sizeof(d->msg) - 1;
	if (hl > cap)
		hl = cap;
	if (ol > cap - hl)
		ol = cap - hl; /* the message's tail goes, the context stays */
	memmove(d->msg + hl, d->msg, ol);
	memcpy(d->msg, head, hl);
	d->msg[hl + ol] = '\0';
	if (!d->err)
		d->err = err;
	return err;
}

void diag_clear(struct diag *d)
{
	if (!d)
		return;
	d->err = 0;
	d->msg[0] = '\0';
}
