// SPDX-License-Identifier: MIT
/* The schedule prover (traffic/coll_prove.c) finds what it claims to find: each test breaks a good
 * schedule (or writes a bad one by hand) and expects the matching complaint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/coll_sim.h"
#include "traffic/coll.h"

#define T_E 4

/* One hand-written step: dep is a rank-local index or -1. */
struct t_hstep {
	uint32_t rank;
	uint8_t op, flags;
	uint32_t peer;
	uint64_t off, len;
	int dep;
};

static void t_build(struct coll_sched *s, enum coll_kind k, enum coll_algo a, uint32_t n,
		    uint64_t bytes)
{
	struct coll_params p = {k, a, n, bytes, T_E, 0, {0}, 0};
	struct diag d = {0};

	assert_int_equal(coll_sched_build(&p, s, &d), 0);
}

/* Steps must be given rank by rank. */
static void t_hand(struct coll_sched *s, enum coll_kind k, uint32_t n, uint64_t bytes,
		   const struct t_hstep *h, size_t nh)
{
	struct coll_rank *cr;
	struct coll_step *st;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->params = (struct coll_params){k, COLL_RING, n, bytes, T_E, 0, {0}, 0};
	for (i = 0; i < n; i++) {
		cr = vec_grow(&s->ranks);
		assert_non_null(cr);
		cr->step_off = (uint32_t)s->steps.n;
		for (; nh && h->rank == i; h++, nh--) {
			st = vec_grow(&s->steps);
			assert_non_null(st);
			*st = (struct coll_step){.op = h->op,
						 .flags = h->flags,
						 .peer = h->peer,
						 .off = h->off,
						 .len = h->len,
						 .dep_off = (uint32_t)s->deps.n};
			if (h->dep >= 0) {
				assert_int_equal(vec_push(&s->deps, (uint32_t)h->dep), 0);
				st->dep_n = 1;
			}
		}
		cr->step_n = (uint32_t)s->steps.n - cr->step_off;
	}
}

static void t_expect(const struct coll_sched *s, const char *needle)
{
	char msg[512];

	assert_int_equal(t_sim_run(s, msg, sizeof(msg)), -1);
	if (!strstr(msg, needle))
		fail_msg("\"%s\" lacks \"%s\"", msg, needle);
}

/* coll_prove names global step g as the one the problem is about (UINT32_MAX: none). */
static void t_where(const struct coll_sched *s, uint32_t g)
{
	struct diag d = {0};
	uint32_t where = 0;

	assert_int_equal(coll_prove(s, &where, &d), -EINVAL);
	assert_int_equal(where, g);
}

static struct coll_step *t_at(struct coll_sched *s, uint32_t r, uint32_t i)
{
	return &s->steps.v[s->ranks.v[r].step_off + i];
}

static void test_good(void **state)
{
	struct coll_sched s;
	char msg[512];

	(void)state;
	t_build(&s, COLL_ALLREDUCE, COLL_RING, 5, 1003 * T_E);
	assert_int_equal(t_sim_run(&s, msg, sizeof(msg)), 0);
	coll_sched_done(&s);
}

/* A ring send that no longer waits for the receive of the chunk it forwards: it races with
 * that receive, and it breaks the chain that ordered rank 1's send of the chunk before the
 * final copy of it arrives back, which is found first. */
static void test_race(void **state)
{
	struct coll_sched s;

	(void)state;
	t_build(&s, COLL_ALLREDUCE, COLL_RING, 5, 1003 * T_E);
	assert_int_equal(t_at(&s, 2, 2)->op, COLL_SEND);
	assert_int_equal(t_at(&s, 2, 2)->dep_n, 1);
	t_at(&s, 2, 2)->dep_n = 0;
	t_expect(&s, "race: rank 1 step 0 (send to 2, [0+804), phase 0) and rank 1 step 9");
	t_where(&s, s.ranks.v[1].step_off + 9); /* the later of the two, for a file's line */
	coll_sched_done(&s);
}

/* An all-gather receive that adds instead of copying counts contributions twice. */
static void test_double_count(void **state)
{
	struct coll_sched s;
	uint32_t last;

	(void)state;
	t_build(&s, COLL_ALLREDUCE, COLL_RING, 4, 1000 * T_E);
	last = s.ranks.v[1].step_n - 1;
	assert_int_equal(t_at(&s, 1, last)->flags, COLL_F_COPY);
	t_at(&s, 1, last)->flags = COLL_F_REDUCE;
	t_expect(&s, "twice");
	coll_sched_done(&s);
}

/* A reduce-scatter receive that copies forwards a partial sum. */
static void test_copy_partial(void **state)
{
	struct coll_sched s;

	(void)state;
	t_build(&s, COLL_ALLREDUCE, COLL_RING, 4, 1000 * T_E);
	assert_int_equal(t_at(&s, 3, 1)->flags, COLL_F_REDUCE);
	t_at(&s, 3, 1)->flags = COLL_F_COPY;
	t_expect(&s, "not the final");
	coll_sched_done(&s);
}

static void test_mismatch(void **state)
{
	struct coll_sched s;

	(void)state;
	t_build(&s, COLL_ALLREDUCE, COLL_HD, 8, 1000 * T_E);
	t_at(&s, 6, 1)->off += T_E;
	t_at(&s, 6, 1)->len -= T_E;
	t_expect(&s, "is matched by");
	coll_sched_done(&s);
}

static void test_unmatched(void **state)
{
	struct coll_sched s;

	(void)state;
	t_build(&s, COLL_ALLTOALL, COLL_PAIRWISE, 4, 4 * 10 * T_E);
	s.ranks.v[3].step_n--;
	s.steps.n--;
	t_expect(&s, "which receives");
	coll_sched_done(&s);
}

/* Shortening a matched pair leaves the last element of a chunk undelivered. */
static void test_missing(void **state)
{
	struct coll_sched s;

	(void)state;
	t_build(&s, COLL_ALLGATHER, COLL_RING, 2, 10 * T_E);
	t_at(&s, 0, 0)->len -= T_E;
	t_at(&s, 1, 1)->len -= T_E;
	t_expect(&s, "rank 1 element 4 (chunk 0) ends with nothing, not its result");
	t_where(&s, UINT32_MAX); /* no step: a result that never came */
	coll_sched_done(&s);
}

/* Each rank waits to receive before it sends: with rendezvous sends, nothing moves. */
static void test_deadlock(void **state)
{
	static const struct t_hstep h[] = {
		{0, COLL_RECV, COLL_F_COPY, 1, 0, 8, -1},
		{0, COLL_SEND, 0, 1, 0, 8, 0},
		{1, COLL_RECV, COLL_F_COPY, 0, 0, 8, -1},
		{1, COLL_SEND, 0, 0, 0, 8, 0},
	};
	struct coll_sched s;

	(void)state;
	t_hand(&s, COLL_ALLGATHER, 2, 8, h, 4);
	t_expect(&s, "deadlock");
	coll_sched_done(&s);
}

/* FIFO: rank 1 takes the second message first, so the ranges do not line up. */
static void test_fifo(void **state)
{
	static const struct t_hstep h[] = {
		{0, COLL_SEND, 0, 1, 0, 4, -1},
		{0, COLL_SEND, 0, 1, 4, 4, -1},
		{1, COLL_RECV, COLL_F_COPY, 0, 4, 4, -1},
		{1, COLL_RECV, COLL_F_COPY, 0, 0, 4, -1},
	};
	struct coll_sched s;

	(void)state;
	t_hand(&s, COLL_ALLGATHER, 2, 16, h, 4);
	t_expect(&s, "is matched by");
	coll_sched_done(&s);
}

/* All-gather of 2 x 1 element, chunk 0 delivered twice. */
static void test_twice(void **state)
{
	static const struct t_hstep h[] = {
		{0, COLL_SEND, 0, 1, 0, 4, -1},		  {0, COLL_SEND, 0, 1, 0, 4, -1},
		{0, COLL_RECV, COLL_F_COPY, 1, 4, 4, -1}, {1, COLL_RECV, COLL_F_COPY, 0, 0, 4, -1},
		{1, COLL_RECV, COLL_F_COPY, 0, 0, 4, 0},  {1, COLL_SEND, 0, 0, 4, 4, -1},
	};
	struct coll_sched s;

	(void)state;
	t_hand(&s, COLL_ALLGATHER, 2, 8, h, 6);
	t_expect(&s, "already final");
	t_where(&s, s.ranks.v[1].step_off + 1); /* rank 1's second receive of chunk 0 */
	coll_sched_done(&s);
}

static void test_malformed(void **state)
{
	static const struct t_hstep h[] = {
		{0, COLL_SEND, 0, 1, 0, 4, -1},
		{1, COLL_RECV, COLL_F_COPY, 0, 0, 4, -1},
	};
	struct coll_sched s;

	(void)state;
	t_hand(&s, COLL_ALLGATHER, 2, 8, h, 2);
	t_at(&s, 0, 0)->len = 0;
	t_expect(&s, "bad range");
	t_at(&s, 0, 0)->len = 6;
	t_expect(&s, "bad range");
	t_at(&s, 0, 0)->len = 4;
	t_at(&s, 0, 0)->peer = 0;
	t_expect(&s, "bad peer");
	t_at(&s, 0, 0)->peer = 1;
	t_at(&s, 1, 0)->flags = COLL_F_REDUCE;
	t_expect(&s, "reduces");
	t_at(&s, 1, 0)->flags = COLL_F_COPY;
	assert_int_equal(vec_push(&s.deps, 0), 0);
	t_at(&s, 1, 0)->dep_off = 0;
	t_at(&s, 1, 0)->dep_n = 1;
	t_expect(&s, "later step");
	coll_sched_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),	     cmocka_unit_test(test_race),
		cmocka_unit_test(test_double_count), cmocka_unit_test(test_copy_partial),
		cmocka_unit_test(test_mismatch),     cmocka_unit_test(test_unmatched),
		cmocka_unit_test(test_missing),	     cmocka_unit_test(test_deadlock),
		cmocka_unit_test(test_fifo),	     cmocka_unit_test(test_twice),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
