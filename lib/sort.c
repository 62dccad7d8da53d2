// SPDX-License-Identifier: MIT
/* LSD radix sort on 64-bit keys, 11 bits a pass (see sort.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"

#define BITS 11
#define BUCKETS (1u << BITS)

/* Sorts the n keys of *a in at most six stable passes, ping-ponging with *b; the result is in
 * *a. A pass over a digit every key shares would leave them in place: it is skipped (times
 * in nanoseconds take three passes, not six). */
static void radix(uint64_t **a, uint64_t **b, size_t n)
{
	size_t cnt[BUCKETS], i, sum, c, k;
	uint64_t *t, all = ~UINT64_C(0), any = 0;
	unsigned shift;

	for (i = 0; i < n; i++) {
		all &= (*a)[i];
		any |= (*a)[i];
	}
	for (shift = 0; shift < 64; shift += BITS) {
		if (!((all ^ any) >> shift & (BUCKETS - 1)))
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[(*a)[i] >> shift & (BUCKETS - 1)]++;
		for (c = 0, sum = 0; c < BUCKETS; c++) {
			k = cnt[c];
			cnt[c] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			(*b)[cnt[(*a)[i] >> shift & (BUCKETS - 1)]++] = (*a)[i];
		t = *a;
		*a = *b;
		*b = t;
	}
}

/* Sorts n 8-byte values at v by key: flip is XORed into each bit pattern first and after, so
 * that the patterns order as the values do (the sign bit for signed integers). */
static int sort_bits(void *v, size_t n, uint64_t flip)
{
	uint64_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
	size_t i;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	memcpy(a, v, n * sizeof(*a));
	for (i = 0; i < n; i++)
		a[i] ^= flip;
	radix(&a, &b, n);
	for (i = 0; i < n; i++)
		a[i] ^= flip;
	memcpy(v, a, n * sizeof(*a));
	free(a);
	free(b);
	return 0;
}

int sort_i64(int64_t *v, size_t n)
{
	return sort_bits(v, n, UINT64_C(1) << 63);
}

int sort_pos_dbl(double *v, size_t n)
{
	return sort_bits(v, n, 0);
}

int sort_u32(uint32_t *v, size_t n)
{
	uint64_t *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
	size_t i;

	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		a[i] = v[i];
	radix(&a, &b, n);
	for (i = 0; i < n; i++)
		v[i] = (uint32_t)a[i];
	free(a);
	free(b);
	return 0;
}
