/* SPDX-License-Identifier: MIT */
/* A caller-owned error message: filled below the command layer, printed once above it. */
#ifndef LIB_DIAG_H
#define LIB_DIAG_H

#include <stddef.h>

struct diag {
	int err; /* the -errno the message goes with, 0 if none */
	char msg[1024];
};

/* Sets d's message (if d and no message yet) and returns err, so callers can
 * `return diag_set(d, -EINVAL, "...")`. The first message wins: it is the cause. */
int diag_set(struct diag *d, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prepends context ("building leaf l0: ") to an existing message; returns err. */
int diag_wrap(struct diag *d, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Empties d. */
void diag_clear(struct diag *d);

#endif
