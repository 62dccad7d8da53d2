// SPDX-License-Identifier: MIT
/* Growing text buffer (text.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/text.h"
#include "lib/vec.h"

void col_text_printf(struct col_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->err = -EINVAL;
		return;
	}
	if (!t->s || t->n + (size_t)n >= t->cap) {
		if (vec_reserve_raw((void **)&t->s, &t->cap, t->n + (size_t)n + 1, 1)) {
			t->err = -ENOMEM;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
		va_end(ap);
	}
	t->n += (size_t)n;
}

char *col_text_take(struct col_text *t, size_t *len)
{
	char *s = t->err ? NULL : t->s;

	if (!s && !t->err)
		s = calloc(1, 1);
	if (len)
		*len = s ? t->n : 0;
	if (!s)
		free(t->s);
	*t = (struct col_text){0};
	return s;
}

void col_text_done(struct col_text *t)
{
	free(t->s);
	*t = (struct col_text){0};
}
