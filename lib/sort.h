/* SPDX-License-Identifier: MIT */
/* Sorting the millions of numbers a large run records (flow completion times), without
 * qsort's compare call per comparison: an LSD radix sort on 64-bit keys, linear in n. */
#ifndef LIB_SORT_H
#define LIB_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts v ascending. 0, or -ENOMEM (v untouched) if its scratch copy cannot be had. */
int sort_i64(int64_t *v, size_t n);
/* The same for doubles that are all > 0 (not NaN): their bit patterns order as they do. */
int sort_pos_dbl(double *v, size_t n);
/* The same for unsigned 32-bit integers (ids). */
int sort_u32(uint32_t *v, size_t n);

#endif
