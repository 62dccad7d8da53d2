// SPDX-License-Identifier: MIT
/* Radix sort on 64-bit keys, 11 bits a pass (see sort.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"

#define BITS 11
#define BUCKETS (1u << BITS)
#define MSD_MIN 65536 /* keys sorted least significant digit first, at most */
#define INSERTION_MAX 32 /* keys sorted by insertion, at most */

/* The bits in which some of the n keys at a differ. */
static uint64_t varying(const uint64_t *a, size_t n)
{
	uint64_t all = ~UINT64_C(0), any = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		all &= a[i];
		any |= a[i];
	}
	return all ^ any;
}

/* Sorts the n keys at a by their low `bits` bits (the others are the same in every key), in
 * stable passes of BITS bits ping-ponging with b; the result is in a. A pass over a digit
 * every key shares would leave them in place: it is skipped. */
static void lsd(uint64_t *a, uint64_t *b, size_t n, unsigned bits, uint64_t diff)
{
	size_t cnt[BUCKETS], i, sum, c, k;
	uint64_t *from = a, *to = b, *t;
	unsigned shift;

	for (shift = 0; shift < bits; shift += BITS) {
		if (!(diff >> shift & (BUCKETS - 1)))
			continue;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[from[i] >> shift & (BUCKETS - 1)]++;
		for (c = 0, sum = 0; c < BUCKETS; c++) {
			k = cnt[c];
			cnt[c] = sum;
			sum += k;
		}
		for (i = 0; i < n; i++)
			to[cnt[from[i] >> shift & (BUCKETS - 1)]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
	if (from != a)
		memcpy(a, from, n * sizeof(*a));
}

static void insertion(uint64_t *a, size_t n)
{
	size_t i, j;
	uint64_t k;

	for (i = 1; i < n; i++) {
		k = a[i];
		for (j = i; j && a[j - 1] > k; j--)
			a[j] = a[j - 1];
		a[j] = k;
	}
}

/* Sorts the n keys at a (b: scratch of n). Many keys are first spread by their highest
 * varying digit, once, into buckets small enough to be sorted in cache by the rest of their
 * bits: a pass over millions of keys scatters them across memory, and least significant
 * digit first needs one a digit. */
static void radix(uint64_t *a, uint64_t *b, size_t n)
{
	size_t cnt[BUCKETS + 1], i, sum, c, k;
	uint64_t diff;
	unsigned top, shift;

	if (n <= INSERTION_MAX) {
		insertion(a, n);
		return;
	}
	diff = varying(a, n);
	if (!diff)
		return;
	top = 64 - (unsigned)__builtin_clzll(diff); /* bits below the highest varying one, + 1 */
	if (n <= MSD_MIN || top <= BITS) {
		lsd(a, b, n, top, diff);
		return;
	}
	shift = top - BITS;
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++)
		cnt[(a[i] >> shift & (BUCKETS - 1)) + 1]++;
	for (c = 0, sum = 0; c <= BUCKETS; c++) {
		k = cnt[c];
		cnt[c] = sum += k;
	}
	for (i = 0; i < n; i++)
		b[cnt[a[i] >> shift & (BUCKETS - 1)]++] = a[i];
	/* bucket c is now b[cnt[c - 1] .. cnt[c]) (cnt[-1] = 0) */
	for (c = 0, sum = 0; c < BUCKETS; sum = cnt[c++]) {
		radix(b + sum, a + sum, cnt[c] - sum);
		memcpy(a + sum, b + sum, (cnt[c] - sum) * sizeof(*a));
	}
}

/* Keys and scratch for sorting n values: 0, or -ENOMEM with neither. */
static int keys_alloc(uint64_t **a, uint64_t **b, size_t n)
{
	*a = malloc((n + 1) * sizeof(**a));
	*b = malloc((n + 1) * sizeof(**b));
	if (*a && *b)
		return 0;
	free(*a);
	free(*b);
	return -ENOMEM;
}

/* Sorts n 8-byte values at v by key: flip is XORed into each bit pattern first and after, so
 * that the patterns order as the values do (the sign bit for signed integers). */
static int sort_bits(void *v, size_t n, uint64_t flip)
{
	uint64_t *a, *b;
	size_t i;

	if (keys_alloc(&a, &b, n))
		return -ENOMEM;
	memcpy(a, v, n * sizeof(*a));
	for (i = 0; i < n; i++)
		a[i] ^= flip;
	radix(a, b, n);
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
	uint64_t *a, *b;
	size_t i;

	if (keys_alloc(&a, &b, n))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		a[i] = v[i];
	radix(a, b, n);
	for (i = 0; i < n; i++)
		v[i] = (uint32_t)a[i];
	free(a);
	free(b);
	return 0;
}
