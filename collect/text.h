/* SPDX-License-Identifier: MIT */
/* A growing text buffer for reports of any size (plot data, comparison tables). Errors are
 * sticky: after an ENOMEM every append is a no-op and col_text_take returns NULL. Pure. */
#ifndef COLLECT_TEXT_H
#define COLLECT_TEXT_H

#include <stddef.h>

struct col_text {
	char *s;
	size_t n, cap;
	int err;
};

void col_text_printf(struct col_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The text (malloc'd, NUL-terminated, *len without the NUL if len) and t emptied; NULL after
 * an error (t freed either way). */
char *col_text_take(struct col_text *t, size_t *len);
void col_text_done(struct col_text *t);

#endif
