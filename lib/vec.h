/* SPDX-License-Identifier: MIT */
/* Typed growable arrays: VEC(struct x) v = {0}; vec_push(&v, item); vec_free(&v). */
#ifndef LIB_VEC_H
#define LIB_VEC_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define VEC(T)                 \
	struct {               \
		T *v;          \
		size_t n, cap; \
	}

/* Makes room for `need` elements of size esz in *data; returns 0 or -ENOMEM. */
int vec_reserve_raw(void **data, size_t *cap, size_t need, size_t esz);

/* The same, inline while the room is there (pushes do this millions of times). */
static inline int vec_reserve_fast(void **data, size_t *cap, size_t need, size_t esz)
{
	return need <= *cap ? 0 : vec_reserve_raw(data, cap, need, esz);
}

#define vec_reserve(vec, need) \
	vec_reserve_fast((void **)&(vec)->v, &(vec)->cap, (need), sizeof(*(vec)->v))

/* Appends a copy of x; evaluates to 0 or -ENOMEM. */
#define vec_push(vec, x) \
	(vec_reserve((vec), (vec)->n + 1) ? -ENOMEM : ((vec)->v[(vec)->n++] = (x), 0))

/* Appends a zeroed element and evaluates to a pointer to it, or NULL on ENOMEM. */
#define vec_grow(vec)                            \
	(vec_reserve((vec), (vec)->n + 1) ? NULL \
					  : memset(&(vec)->v[(vec)->n++], 0, sizeof(*(vec)->v)))

#define vec_free(vec)                      \
	do {                               \
		free((vec)->v);            \
		(vec)->v = NULL;           \
		(vec)->n = (vec)->cap = 0; \
	} while (0)

#define vec_last(vec) (&(vec)->v[(vec)->n - 1])

#define vec_for_each(vec, it) for ((it) = (vec)->v; (it) && (it) < (vec)->v + (vec)->n; (it)++)

#endif
