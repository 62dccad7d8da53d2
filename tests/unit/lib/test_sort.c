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

/* An id of shape k: full range, small, few distinct, top bits only, one middle digit
 * differing, or all equal. */
static uint32_t t_u32(uint64_t *s, unsigned k)
{
	uint64_t r = rng_next(s);

	switch (k) {
	case 0:
		return (uint32_t)r;
	case 1:
		return (uint32_t)(r % 2048);
	case 2:
		return (uint32_t)(r % 3);
	case 3:
		return (uint32_t)r & 0xfff00000u;
	case 4:
		return 0x5a5u | (uint32_t)(r % 4) << 13;
	default:
		return 77u;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* One element type: its size, its shapes (and one more, every shape mixed), a random value
 * of a shape, the sort under test and qsort's comparison. */
struct t_kind {
	size_t esz;
	unsigned shapes;
	void (*gen)(uint64_t *seed, unsigned shape, void *out);
	int (*sort)(void *v, size_t n);
	int (*cmp)(const void *a, const void *b);
};

static void gen_i64(uint64_t *s, unsigned k, void *out)
{
	int64_t v = t_i64(s, k);

	memcpy(out, &v, sizeof(v));
}

static void gen_dbl(uint64_t *s, unsigned k, void *out)
{
	double v = t_dbl(s, k);

	memcpy(out, &v, sizeof(v));
}

static void gen_u32(uint64_t *s, unsigned k, void *out)
{
	uint32_t v = t_u32(s, k);

	memcpy(out, &v, sizeof(v));
}

static int sort_i64_v(void *v, size_t n)
{
	return sort_i64(v, n);
}

static int sort_dbl_v(void *v, size_t n)
{
	return sort_pos_dbl(v, n);
}

static int sort_u32_v(void *v, size_t n)
{
	return sort_u32(v, n);
}

/* Every size and shape sorted as qsort sorts it. */
static void t_sort_all(const struct t_kind *kd, const size_t *sizes, size_t nsizes, uint64_t seed)
{
	char *a, *b;
	size_t i, z, n;
	unsigned k;

	for (z = 0; z < nsizes; z++) {
		for (k = 0; k <= kd->shapes; k++) {
			n = sizes[z];
			a = malloc((n + 1) * kd->esz);
			b = malloc((n + 1) * kd->esz);
			assert_non_null(a);
			assert_non_null(b);
			for (i = 0; i < n; i++) /* shape `shapes`: shapes mixed */
				kd->gen(&seed, k < kd->shapes ? k : (unsigned)(i % kd->shapes),
					a + i * kd->esz);
			memcpy(b, a, n * kd->esz);
			assert_int_equal(kd->sort(a, n), 0);
			qsort(b, n, kd->esz, kd->cmp);
			assert_memory_equal(a, b, n * kd->esz);
			free(a);
			free(b);
		}
	}
}

static void test_i64(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 100, 2049, 100000, 300000};
	static const struct t_kind kd = {sizeof(int64_t), 6, gen_i64, sort_i64_v, cmp_i64};

	(void)state;
	t_sort_all(&kd, sizes, sizeof(sizes) / sizeof(sizes[0]), 7);
}

static void test_pos_dbl(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 100, 2049, 100000, 300000};
	static const struct t_kind kd = {sizeof(double), 4, gen_dbl, sort_dbl_v, cmp_dbl};

	(void)state;
	t_sort_all(&kd, sizes, sizeof(sizes) / sizeof(sizes[0]), 11);
}

static void test_u32(void **state)
{
	static const size_t sizes[] = {0, 1, 2, 3, 33, 255, 256, 2049, 100000, 300000};
	static const struct t_kind kd = {sizeof(uint32_t), 6, gen_u32, sort_u32_v, cmp_u32};

	(void)state;
	t_sort_all(&kd, sizes, sizeof(sizes) / sizeof(sizes[0]), 13);
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
