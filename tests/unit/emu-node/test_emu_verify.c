// SPDX-License-Identifier: MIT
/* Verify mode's expectations (emu-node/verify.c) against the kinds' definitions in
 * traffic/coll.h, computed here the slow way: sums over ranks, chunk owners through
 * coll_chunk_off, the all-to-all block permutation; and the check's verdicts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu-node/ctl.h"
#include "emu-node/verify.h"

/* The part of n that holds element i of a buffer of e elements, by coll_chunk_off. */
static uint32_t t_owner(uint64_t e, uint32_t n, uint64_t i)
{
	uint32_t c;

	for (c = 0; c + 1 < n && coll_chunk_off(e * 4, 4, n, c + 1) <= i * 4; c++)
		;
	return c;
}

/* What element i of rank's result must be, or false if unspecified, from the definitions. */
static bool t_want(const struct coll_params *p, uint32_t rank, uint64_t i, double *v)
{
	uint64_t e = p->bytes / 4, blk = e / p->nranks;
	uint32_t r, step = p->algo == COLL_SHARD_RINGS ? p->group : 1;

	*v = 0;
	switch (p->kind) {
	case COLL_ALLREDUCE:
	case COLL_REDUCESCATTER:
		for (r = step > 1 ? rank % step : 0; r < p->nranks; r += step)
			*v += ctl_verify_value(r, i);
		return p->kind == COLL_ALLREDUCE || t_owner(e, p->nranks, i) == rank;
	case COLL_ALLGATHER:
		*v = ctl_verify_value(t_owner(e, p->nranks, i), i);
		return true;
	case COLL_ALLTOALL:
		*v = ctl_verify_value((uint32_t)(i / blk), rank * blk + i % blk);
		return true;
	}
	return false;
}

static void t_compare(const struct coll_params *p)
{
	struct verify_sums vs;
	uint64_t e = p->bytes / 4, i;
	double want, got;
	uint32_t r;
	bool a, b;

	for (r = 0; r < p->nranks; r++) {
		verify_sums_init(&vs, p, r);
		for (i = 0; i < e; i++) {
			a = t_want(p, r, i, &want);
			b = verify_expect(p, &vs, r, i, &got);
			assert_int_equal(a, b);
			if (a)
				assert_true(want == got);
		}
	}
}

static void test_expect(void **state)
{
	struct coll_params p = {.elem = 4};
	uint32_t n;

	(void)state;
	for (n = 1; n <= 9; n++) {
		p.nranks = n;
		p.algo = COLL_RING;
		p.bytes = 4 * 2053; /* more than the 1021-element period, not a multiple of n */
		for (p.kind = COLL_ALLREDUCE; p.kind <= COLL_REDUCESCATTER; p.kind++)
			t_compare(&p);
		p.bytes = 4 * 5; /* fewer elements than ranks: empty chunks */
		for (p.kind = COLL_ALLREDUCE; p.kind <= COLL_REDUCESCATTER; p.kind++)
			t_compare(&p);
		p.kind = COLL_ALLTOALL;
		p.algo = COLL_PAIRWISE;
		p.bytes = 4 * 300 * n;
		t_compare(&p);
	}
	p = (struct coll_params){COLL_ALLREDUCE, COLL_SHARD_RINGS, 12, 4 * 1500, 4, 3, {0}, 0};
	t_compare(&p);
	p.algo = COLL_HIER_RING;
	t_compare(&p);
}

/* A right result passes; one wrong element fails and is named; a wrong element outside
 * the rank's chunk of a reduce-scatter is nobody's business. */
static void test_check(void **state)
{
	struct coll_params p = {COLL_REDUCESCATTER, COLL_RING, 4, 4 * 1001, 4, 0, {0}, 0};
	struct verify_sums vs;
	float *res = malloc(p.bytes);
	char why[160];
	double v;
	uint64_t i;

	(void)state;
	verify_sums_init(&vs, &p, 1);
	for (i = 0; i < p.bytes / 4; i++)
		res[i] = verify_expect(&p, &vs, 1, i, &v) ? (float)v : -1.0f;
	assert_int_equal(verify_check(&p, &vs, 1, res, why, sizeof(why)), 0);
	res[0] = 12345; /* chunk 0 belongs to rank 0 */
	assert_int_equal(verify_check(&p, &vs, 1, res, why, sizeof(why)), 0);
	res[300] += 1; /* chunk 1 is [251, 501) */
	assert_int_equal(verify_check(&p, &vs, 1, res, why, sizeof(why)), -EBADMSG);
	assert_non_null(strstr(why, "rank 1, chunk 1 of 4, element 300: found "));
	p.kind = COLL_ALLGATHER;
	verify_fill(res, p.bytes / 4, 2);
	assert_int_equal(verify_check(&p, &vs, 2, res, why, sizeof(why)), -EBADMSG);
	/* chunk 0 must hold rank 0's values */
	assert_non_null(strstr(why, "rank 2, chunk 0 of 4, element 0: found "));
	assert_non_null(strstr(why, ", expected "));
	free(res);
}

/* Past 2^24 float sums round, differently per algorithm; the check allows n roundings of
 * the sum and no more. */
static void test_rounding(void **state)
{
	struct coll_params p = {COLL_ALLREDUCE, COLL_RING, COLL_MAX_RANKS, 4 * 4, 4, 0, {0}, 0};
	struct verify_sums vs;
	float res[4];
	char why[160];
	double v;
	uint64_t i;

	(void)state;
	verify_sums_init(&vs, &p, 0);
	for (i = 0; i < 4; i++) {
		assert_true(verify_expect(&p, &vs, 0, i, &v));
		assert_true(v > 0x1p24);
		res[i] = (float)v + 4.0f; /* a few float steps off */
	}
	assert_int_equal(verify_check(&p, &vs, 0, res, why, sizeof(why)), 0);
	res[2] *= 1.01f;
	assert_int_equal(verify_check(&p, &vs, 0, res, why, sizeof(why)), -EBADMSG);
}

static void test_fill(void **state)
{
	float b[2100];
	uint64_t i;

	(void)state;
	verify_fill(b, 2100, 7);
	for (i = 0; i < 2100; i++)
		assert_true(b[i] == ctl_verify_value(7, i));
	assert_true(b[0] != b[1]);
	assert_true(ctl_verify_value(3, 5) != ctl_verify_value(4, 5));
}

/* A multi-dimensional reduce-scatter or all-gather is checked against its shares
 * (coll_md_owners): on 2x2 in one chunk, the baseline all-gather's elements 0..3 are ranks 0,
 * 2, 1 and 3's, and rank 2's reduce-scatter result is element 1. */
static void test_md_shares(void **state)
{
	static const uint32_t owner[4] = {0, 2, 1, 3};
	struct coll_params p = {COLL_ALLGATHER, COLL_MULTIDIM, 4, 4 * 4, 4, 0, {0}, 0};
	struct verify_sums vs;
	uint32_t i, k;
	double v;

	(void)state;
	p.md = (struct coll_md){.ndims = 2, .kind = COLL_ALLGATHER, .chunks = 1, .thr_div = 16};
	for (k = 0; k < 2; k++)
		p.md.dim[k] = (struct coll_md_dim){.size = 2, .active = 1, .rate = 1000000000};
	assert_int_equal(verify_sums_init(&vs, &p, 1), 0);
	for (i = 0; i < 4; i++) {
		assert_true(verify_expect(&p, &vs, 1, i, &v));
		assert_true(v == ctl_verify_value(owner[i], i));
	}
	verify_sums_done(&vs);
	p.kind = p.md.kind = COLL_REDUCESCATTER;
	assert_int_equal(verify_sums_init(&vs, &p, 2), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(verify_expect(&p, &vs, 2, i, &v), i == 1);
	verify_sums_done(&vs);
	p.md.chunks = 0;
	assert_int_equal(verify_sums_init(&vs, &p, 2), -EINVAL);
	assert_null(vs.owner);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expect),	  cmocka_unit_test(test_check),
		cmocka_unit_test(test_rounding),  cmocka_unit_test(test_fill),
		cmocka_unit_test(test_md_shares),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
