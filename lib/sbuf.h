/* SPDX-License-Identifier: MIT */
/* Text into a caller's fixed buffer, snprintf-style: len counts what the whole text needs,
 * so a caller learns the size it should have passed when len >= size. */
#ifndef LIB_SBUF_H
#define LIB_SBUF_H

#include <stddef.h>

struct sbuf {
	char *buf; /* may be NULL with size 0: only measure */
	size_t size, len;
};

/* Appends printf(fmt, ...) if it fits (always NUL-terminated within size) and adds its
 * length to len either way. */
void sbuf_put(struct sbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
