// SPDX-License-Identifier: MIT
/* lib/sort: the radix sorts give qsort's order on random arrays of every shape (signed
 * extremes, duplicates, keys differing only in their top or bottom bits, subnormal and huge
 * doubles), and leave empty and one-element arrays alone. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/rng.h"
#include "lib/sort.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A random int64 of shape k: full range, small with both signs, few distinct values, only
 * the top bits set, only bits of one middle digit differing (the passes over the others are
 * skipped), or an extreme. */
static int64_t t_i64(uint64_t *s, unsigned k)
{
	uint64_t r = rng_next(s);

	switch (k) {
	case 0:
		return (int64_t)r;
	case 1:
		return (int64_t)(r % 2001) - 1000;
	case 2:
		return (int64_t)(r % 3);
	case 3:
		return (int64_t)(r & UINT64_C(0xfff0000000000000));
	case 4:
		return (int64_t)(UINT64_C(0x123456789) | (r % 8) << 25);
	default:
		return r & 1 ? INT64_MIN : INT64_MAX;
	}
}

/* A random positive double of shape k: nanoseconds as a flow time, spanning every exponent,
 * subnormal, or one of a few values. */
static double t_dbl(uint64_t *s, unsigned k)
{
	uint64_t r = rng_next(s);
	double v;

	switch (k) {
	case 0:
		return (double)(r % 1000000000 + 1) * 1e-9;
	case 1:
		r %= UINT64_C(0x7ff0000000000000); /* positive (or 0, below) and finite */
		break;
	case 2:
		r = r % 1000 + 1; /* subnormal */
		break;
	default:
		return (double)(r % 4 + 1);
	}
	memcpy(&v, &r, sizeof(v));
	return v > 0 ? v : 1;
}

static void test_i64(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 100, 2049, 100000, 300000};
	uint64_t seed = 7;
	int64_t *a, *b;
	size_t i, z;
	unsigned k;

	(void)state;
	for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		for (k = 0; k <= 6; k++) {
			a = malloc((sizes[z] + 1) * sizeof(*a));
			b = malloc((sizes[z] + 1) * sizeof(*b));
			assert_non_null(a);
			assert_non_null(b);
			for (i = 0; i < sizes[z]; i++) /* shape 6: shapes mixed */
				a[i] = b[i] = t_i64(&seed, k < 6 ? k : (unsigned)(i % 6));
			assert_int_equal(sort_i64(a, sizes[z]), 0);
			qsort(b, sizes[z], sizeof(*b), cmp_i64);
			assert_memory_equal(a, b, sizes[z] * sizeof(*a));
			free(a);
			free(b);
		}
	}
}

static void test_pos_dbl(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 100, 2049, 100000, 300000};
	uint64_t seed = 11;
	double *a, *b;
	size_t i, z;
	unsigned k;

	(void)state;
	for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		for (k = 0; k <= 4; k++) {
			a = malloc((sizes[z] + 1) * sizeof(*a));
			b = malloc((sizes[z] + 1) * sizeof(*b));
			assert_non_null(a);
			assert_non_null(b);
			for (i = 0; i < sizes[z]; i++)
				a[i] = b[i] = t_dbl(&seed, k < 4 ? k : (unsigned)(i % 4));
			assert_int_equal(sort_pos_dbl(a, sizes[z]), 0);
			qsort(b, sizes[z], sizeof(*b), cmp_dbl);
			assert_memory_equal(a, b, sizes[z] * sizeof(*a));
			free(a);
			free(b);
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Ids: full range, small, few distinct, top bits only, one middle digit differing, all
 * equal, or mixed. */
static void test_u32(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 33, 255, 256, 2049, 100000, 300000};
	uint64_t seed = 13, r;
	uint32_t *a, *b;
	size_t i, z;
	unsigned k, sh;

	(void)state;
	for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		for (k = 0; k <= 6; k++) {
			a = malloc((sizes[z] + 1) * sizeof(*a));
			b = malloc((sizes[z] + 1) * sizeof(*b));
			assert_non_null(a);
			assert_non_null(b);
			for (i = 0; i < sizes[z]; i++) {
				r = rng_next(&seed);
				sh = k < 6 ? k : (unsigned)(i % 6);
				a[i] = sh == 0	 ? (uint32_t)r
				       : sh == 1 ? (uint32_t)(r % 2048)
				       : sh == 2 ? (uint32_t)(r % 3)
				       : sh == 3 ? (uint32_t)r & 0xfff00000u
				       : sh == 4 ? 0x5a5u | (uint32_t)(r % 4) << 13
						 : 77u;
				b[i] = a[i];
			}
			assert_int_equal(sort_u32(a, sizes[z]), 0);
			qsort(b, sizes[z], sizeof(*b), cmp_u32);
			assert_memory_equal(a, b, sizes[z] * sizeof(*a));
			free(a);
			free(b);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_pos_dbl),
		cmocka_unit_test(test_u32),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
