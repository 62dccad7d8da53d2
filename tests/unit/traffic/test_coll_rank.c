// SPDX-License-Identifier: MIT
/* coll_sched_build_rank and coll_sched_build_range_ext: for every algorithm, kind, rank count
 * 1..17 and odd sizes, each rank's build, and each range of up to three ranks, holds exactly
 * those ranks' slices of the full build (steps and dependencies), every other rank empty; and
 * they refuse what the full build refuses, and ranges out of bounds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "traffic/coll.h"

struct t_case {
	enum coll_kind kind;
	enum coll_algo algo;
	uint32_t group;
};

static const struct t_case t_cases[] = {
	{COLL_ALLREDUCE, COLL_RING, 0},	       {COLL_ALLGATHER, COLL_RING, 0},
	{COLL_REDUCESCATTER, COLL_RING, 0},    {COLL_ALLREDUCE, COLL_HD, 0},
	{COLL_ALLTOALL, COLL_PAIRWISE, 0},     {COLL_ALLREDUCE, COLL_HIER_RING, 1},
	{COLL_ALLREDUCE, COLL_HIER_RING, 2},   {COLL_ALLREDUCE, COLL_HIER_RING, 3},
	{COLL_ALLREDUCE, COLL_SHARD_RINGS, 2}, {COLL_ALLREDUCE, COLL_SHARD_RINGS, 4},
};

/* One rank's steps in both builds, compared field by field with their dependency lists. */
static void t_same_rank(const struct coll_sched *full, const struct coll_sched *one, uint32_t r)
{
	const struct coll_rank *fr = &full->ranks.v[r], * or = &one->ranks.v[r];
	const struct coll_step *a, *b;
	uint32_t i;

	assert_int_equal(fr->step_n, or->step_n);
	for (i = 0; i < fr->step_n; i++) {
		a = &full->steps.v[fr->step_off + i];
		b = &one->steps.v[or->step_off + i];
		assert_int_equal(a->op, b->op);
		assert_int_equal(a->flags, b->flags);
		assert_int_equal(a->phase, b->phase);
		assert_int_equal(a->peer, b->peer);
		assert_int_equal(a->off, b->off);
		assert_int_equal(a->len, b->len);
		assert_int_equal(a->dep_n, b->dep_n);
		assert_memory_equal(&full->deps.v[a->dep_off], &one->deps.v[b->dep_off],
				    a->dep_n * sizeof(uint32_t));
	}
}

/* Ranks [lo, hi) built alone: each as in the full build, every other rank empty. */
static void t_range(const struct coll_params *p, const struct coll_sched *full, uint32_t lo,
		    uint32_t hi)
{
	struct coll_sched part;
	struct diag d = {0};
	uint32_t q, steps = 0;

	assert_int_equal(coll_sched_build_range_ext(p, NULL, lo, hi, &part, &d), 0);
	assert_int_equal(part.ranks.n, p->nranks);
	for (q = 0; q < p->nranks; q++) {
		if (q < lo || q >= hi) {
			assert_int_equal(part.ranks.v[q].step_n, 0);
			continue;
		}
		t_same_rank(full, &part, q);
		steps += full->ranks.v[q].step_n;
	}
	assert_int_equal(part.steps.n, steps);
	coll_sched_done(&part);
}

static void t_check(const struct coll_params *p)
{
	struct coll_sched full, one;
	struct diag d = {0};
	uint32_t r, q;

	assert_int_equal(coll_sched_build(p, &full, &d), 0);
	for (r = 0; r < p->nranks; r++) {
		assert_int_equal(coll_sched_build_rank(p, r, &one, &d), 0);
		assert_int_equal(one.ranks.n, p->nranks);
		for (q = 0; q < p->nranks; q++)
			if (q != r)
				assert_int_equal(one.ranks.v[q].step_n, 0);
		assert_int_equal(one.steps.n, full.ranks.v[r].step_n);
		t_same_rank(&full, &one, r);
		assert_int_equal(coll_sched_bytes_sent(&one, r), coll_sched_bytes_sent(&full, r));
		coll_sched_done(&one);
	}
	for (r = 0; r < p->nranks; r++) /* ranges of up to three ranks, as the simulator builds */
		t_range(p, &full, r, r + 3 < p->nranks ? r + 3 : p->nranks);
	coll_sched_done(&full);
}

static void test_slices(void **state)
{
	static const uint64_t elems[] = {1003, 1, 3, 0, 4096};
	struct coll_params p = {.elem = 4};
	uint32_t c, n, k;

	(void)state;
	for (c = 0; c < sizeof(t_cases) / sizeof(t_cases[0]); c++) {
		p.kind = t_cases[c].kind;
		p.algo = t_cases[c].algo;
		p.group = t_cases[c].group;
		for (n = 1; n <= 17; n++) {
			if (p.group && n % p.group)
				continue;
			for (k = 0; k < sizeof(elems) / sizeof(elems[0]); k++) {
				p.nranks = n;
				/* all-to-all needs whole equal blocks */
				p.bytes = 4 * elems[k] * (p.kind == COLL_ALLTOALL ? n : 1);
				t_check(&p);
			}
		}
	}
}

static void test_refusals(void **state)
{
	struct coll_params p = {
		.kind = COLL_ALLREDUCE,
		.algo = COLL_HIER_RING,
		.nranks = 6,
		.bytes = 64,
		.elem = 4,
		.group = 4,
	};
	struct coll_sched s;
	struct diag d = {0};

	(void)state;
	assert_int_equal(coll_sched_build_rank(&p, 0, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "not a multiple of group"));
	assert_int_equal(s.steps.n, 0);
	p.group = 3;
	diag_clear(&d);
	assert_int_equal(coll_sched_build_rank(&p, 6, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "rank 6 of 6"));
	diag_clear(&d); /* an empty range, and one past the ranks */
	assert_int_equal(coll_sched_build_range_ext(&p, NULL, 3, 3, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "ranks 3 to 3 of 6"));
	diag_clear(&d);
	assert_int_equal(coll_sched_build_range_ext(&p, NULL, 4, 7, &s, &d), -EINVAL);
	assert_int_equal(s.steps.n, 0);
	assert_int_equal(coll_sched_build_range_ext(&p, NULL, 3, 6, &s, &d), 0);
	coll_sched_done(&s);
	p.kind = COLL_ALLTOALL;
	diag_clear(&d);
	assert_int_equal(coll_sched_build_rank(&p, 0, &s, &d), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
