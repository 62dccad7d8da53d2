// SPDX-License-Identifier: MIT
/* What a Chakra job may start next (traffic/chakra/chakra_run.c), and its critical path
 * (chakra_time.c): a collective waits for its node on every member, a send for its receive, a
 * node for its parents; the MLP chain of scenarios/chakra/ runs to its end with 8 x 18
 * compute nodes and 11 collectives of 8 members; a property test on random jobs (every node
 * starts once, after every parent ended, and the job always finishes); a job that cannot
 * finish refused at the node that waits; the critical path of a hand-built job, and the MLP
 * chain's unbroken. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/chakra_t.h"

/* ---- writing traces (tests/unit/chakra_t.h) ---- */

/* A node: type t, deps (nd of them), and for a collective its kind and size, for a send or
 * receive its peer, size and tag; a compute of 10 us. */
static void put_node(struct tchk_buf *o, uint64_t id, ChakraProtoMsg__NodeType t,
		     const uint64_t *deps, size_t nd, int64_t kind_or_peer, int64_t size,
		     int64_t tag)
{
	const char *names[4] = {"comm_type", "comm_size", "comm_tag", NULL};
	const int64_t vals[3] = {kind_or_peer, size, tag};

	if (t == TCHK_SEND)
		names[0] = "comm_dst";
	if (t == TCHK_RECV)
		names[0] = "comm_src";
	if (t == TCHK_COLL)
		names[2] = NULL;
	tchk_put_node(o, id, t, deps, nd, t == TCHK_COMP ? 10 : 0, t == TCHK_COMP ? NULL : names,
		      vals);
}

#define COMP TCHK_COMP
#define COLL TCHK_COLL
#define SEND TCHK_SEND
#define RECV TCHK_RECV

/* The n buffers read as ranks and linked. */
static void t_load(struct tchk_buf *o, size_t n, struct chakra_rank *r, struct chakra_links *l)
{
	struct chakra_stats st;
	struct diag d = {0};
	size_t i;

	for (i = 0; i < n; i++)
		if (chakra_read(o[i].b, o[i].n, "t.et", &r[i], &d))
			fail_msg("%s", d.msg);
	if (chakra_check(r, n, NULL, &st, l, &d))
		fail_msg("%s", d.msg);
}

static void t_free(struct tchk_buf *o, struct chakra_rank *r, size_t n, struct chakra_links *l)
{
	while (n--) {
		chakra_rank_done(&r[n]);
		free(o[n].b);
	}
	chakra_links_done(l);
}

/* Takes every ready op into out (up to max): how many. */
static size_t t_take(struct chakra_run *x, struct chakra_op *out, size_t max)
{
	size_t n = 0;

	while (n < max && chakra_run_next(x, &out[n]))
		n++;
	return n;
}

/* Rank 0: an all-reduce at once; rank 1: a compute, then the all-reduce. */
static void test_collective_waits_for_every_member(void **state)
{
	struct tchk_buf o[2] = {{0}};
	struct chakra_rank r[2];
	struct chakra_links l;
	struct chakra_run x;
	struct chakra_op op[4];
	const uint32_t *m;
	size_t n;

	(void)state;
	tchk_put_meta(&o[0]);
	put_node(&o[0], 1, COLL, NULL, 0, CHAKRA_ALL_REDUCE, 1024, 0);
	tchk_put_meta(&o[1]);
	put_node(&o[1], 1, COMP, NULL, 0, 0, 0, 0);
	put_node(&o[1], 2, COLL, (const uint64_t[]){1}, 1, CHAKRA_ALL_REDUCE, 1024, 0);
	t_load(o, 2, r, &l);
	assert_int_equal(l.ninst, 1);
	assert_int_equal(l.need[0], 2);
	assert_int_equal(chakra_run_init(&x, r, 2, &l), 0);
	assert_int_equal(t_take(&x, op, 4), 1); /* only rank 1's compute */
	assert_int_equal(op[0].kind, CHAKRA_COMP);
	assert_int_equal(op[0].node, l.base[1] + 0);
	assert_int_equal(chakra_run_ended(&x, &op[0]), 0);
	assert_int_equal(t_take(&x, op, 4), 1);
	assert_int_equal(op[0].kind, CHAKRA_COLL);
	m = chakra_run_members(&x, &op[0], &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0], l.base[0] + 0);
	assert_int_equal(m[1], l.base[1] + 1);
	assert_false(chakra_run_finished(&x));
	assert_int_equal(chakra_run_ended(&x, &op[0]), 0);
	assert_true(chakra_run_finished(&x));
	assert_int_equal(t_take(&x, op, 4), 0);
	chakra_run_done(&x);
	t_free(o, r, 2, &l);
}

/* Rank 0 sends at once; rank 1 receives after a compute: the pair starts then, send first. */
static void test_send_waits_for_receive(void **state)
{
	struct tchk_buf o[2] = {{0}};
	struct chakra_rank r[2];
	struct chakra_links l;
	struct chakra_run x;
	struct chakra_op op[4];
	const uint32_t *m;
	size_t n;

	(void)state;
	tchk_put_meta(&o[0]);
	put_node(&o[0], 7, SEND, NULL, 0, 1, 4096, 5);
	tchk_put_meta(&o[1]);
	put_node(&o[1], 1, COMP, NULL, 0, 0, 0, 0);
	put_node(&o[1], 2, RECV, (const uint64_t[]){1}, 1, 0, 4096, 5);
	t_load(o, 2, r, &l);
	assert_int_equal(l.npairs, 1);
	assert_int_equal(chakra_run_init(&x, r, 2, &l), 0);
	assert_int_equal(t_take(&x, op, 4), 1);
	assert_int_equal(op[0].kind, CHAKRA_COMP);
	assert_int_equal(chakra_run_ended(&x, &op[0]), 0);
	assert_int_equal(t_take(&x, op, 4), 1);
	assert_int_equal(op[0].kind, CHAKRA_SEND);
	assert_int_equal(op[0].node, l.base[0]);
	m = chakra_run_members(&x, &op[0], &n);
	assert_int_equal(n, 2);
	assert_int_equal(m[0], l.base[0]); /* the send */
	assert_int_equal(m[1], l.base[1] + 1); /* the receive */
	assert_int_equal(chakra_run_ended(&x, &op[0]), 0);
	assert_true(chakra_run_finished(&x));
	chakra_run_done(&x);
	t_free(o, r, 2, &l);
}

/* Runs x to its end, ops ended in the order they became ready; checks every op's nodes had
 * their parents done and start once. The ops taken, by kind. */
static void t_run_all(struct chakra_run *x, const struct chakra_rank *r,
		      const struct chakra_links *l, size_t *by_kind)
{
	size_t total = l->base[x->n], i, k, n, steps = 0;
	uint8_t *done = calloc(total + 1, 1), *started = calloc(total + 1, 1);
	struct chakra_op op;

	while (chakra_run_next(x, &op)) {
		const uint32_t *m = chakra_run_members(x, &op, &n);

		by_kind[op.kind]++;
		for (i = 0; i < n; i++) {
			size_t rk = 0;
			const struct chakra_node *nd;

			while (rk + 1 < x->n && l->base[rk + 1] <= m[i])
				rk++;
			nd = &r[rk].nodes.v[m[i] - l->base[rk]];
			assert_false(started[m[i]]);
			started[m[i]] = 1;
			for (k = nd->dep; k < nd->dep + nd->ndeps; k++)
				assert_true(done[l->base[rk] + r[rk].deps.v[k]]);
		}
		assert_int_equal(chakra_run_ended(x, &op), 0);
		for (i = 0; i < n; i++)
			done[m[i]] = 1;
		assert_true(++steps <= total);
	}
	assert_true(chakra_run_finished(x));
	for (i = 0; i < total; i++)
		assert_true(done[i]);
	free(done);
	free(started);
}

/* The MLP chain's 8 ranks read and linked. */
static void t_mlp(struct chakra_rank *r, struct chakra_links *l)
{
	struct chakra_stats st;
	struct diag d = {0};
	char path[256];
	size_t i, len = 0;

	for (i = 0; i < 8; i++) {
		uint8_t *b;

		snprintf(path, sizeof(path),
			 "scenarios/chakra/mlp_model_parallel/8npus/MLP_ModelParallel.%zu.et", i);
		b = tchk_slurp(path, &len);
		assert_non_null(b);
		if (chakra_read(b, len, path, &r[i], &d))
			fail_msg("%s", d.msg);
		free(b);
	}
	if (chakra_check(r, 8, NULL, &st, l, &d))
		fail_msg("%s", d.msg);
}

static void test_mlp_chain_runs(void **state)
{
	struct chakra_rank r[8];
	struct chakra_links l;
	struct chakra_run x;
	size_t i, by_kind[CHAKRA_KINDS] = {0};

	(void)state;
	t_mlp(r, &l);
	assert_int_equal(l.ninst, 11);
	assert_int_equal(chakra_run_init(&x, r, 8, &l), 0);
	t_run_all(&x, r, &l, by_kind);
	assert_int_equal(by_kind[CHAKRA_COMP], 8 * 18);
	assert_int_equal(by_kind[CHAKRA_COLL], 11);
	chakra_run_done(&x);
	for (i = 0; i < 8; i++)
		chakra_rank_done(&r[i]);
	chakra_links_done(&l);
}

/* Random jobs: 2 to 5 ranks of compute nodes with random earlier parents, the same number of
 * all-reduces on every rank (each after a random earlier node), and a ring of sends. */
static void test_random_jobs(void **state)
{
	unsigned seed = 12345, t;

	(void)state;
	for (t = 0; t < 200; t++) {
		size_t nr = 2 + rand_r(&seed) % 4, ncoll = rand_r(&seed) % 4, i, k, id;
		size_t by_kind[CHAKRA_KINDS] = {0};
		struct tchk_buf o[5] = {{0}};
		struct chakra_rank r[5];
		struct chakra_links l;
		struct chakra_run x;

		for (i = 0; i < nr; i++) {
			size_t ncomp = 1 + rand_r(&seed) % 12;
			uint64_t dep[2];

			tchk_put_meta(&o[i]);
			for (id = 1; id <= ncomp; id++) {
				size_t nd = id > 1 ? rand_r(&seed) % 3 : 0;

				for (k = 0; k < nd && k < 2; k++)
					dep[k] = 1 + rand_r(&seed) % (id - 1);
				put_node(&o[i], id, COMP, dep, nd > 2 ? 2 : nd, 0, 0, 0);
			}
			for (k = 0; k < ncoll; k++, id++) {
				dep[0] = 1 + rand_r(&seed) % (id - 1);
				put_node(&o[i], id, COLL, dep, 1, CHAKRA_ALL_REDUCE, 64, 0);
			}
			dep[0] = 1 + rand_r(&seed) % (id - 1);
			put_node(&o[i], id++, SEND, dep, 1, (int64_t)((i + 1) % nr), 8, 1);
			/* not after its own send: a ring of sends each waiting for the next
			 * receive, every receive after its rank's send, never starts */
			dep[0] = 1 + rand_r(&seed) % (id - 2);
			put_node(&o[i], id++, RECV, dep, 1, (int64_t)((i + nr - 1) % nr), 8, 1);
		}
		t_load(o, nr, r, &l);
		assert_int_equal(chakra_run_init(&x, r, nr, &l), 0);
		t_run_all(&x, r, &l, by_kind);
		assert_int_equal(by_kind[CHAKRA_COLL], ncoll);
		assert_int_equal(by_kind[CHAKRA_SEND], nr);
		chakra_run_done(&x);
		t_free(o, r, nr, &l);
	}
}

/* Rank 0 all-reduces after receiving from rank 1; rank 1 sends after the all-reduce: neither
 * starts, and the check says so at the node that waits. */
static void test_cross_rank_deadlock(void **state)
{
	struct tchk_buf o[2] = {{0}};
	struct chakra_rank r[2];
	struct chakra_stats st;
	struct diag d = {0};
	const char *files[] = {"dl.0.et", "dl.1.et"};
	size_t i;

	(void)state;
	tchk_put_meta(&o[0]);
	put_node(&o[0], 1, RECV, NULL, 0, 1, 8, 2);
	put_node(&o[0], 2, COLL, (const uint64_t[]){1}, 1, CHAKRA_ALL_REDUCE, 64, 0);
	tchk_put_meta(&o[1]);
	put_node(&o[1], 1, COLL, NULL, 0, CHAKRA_ALL_REDUCE, 64, 0);
	put_node(&o[1], 2, SEND, (const uint64_t[]){1}, 1, 0, 8, 2);
	for (i = 0; i < 2; i++)
		assert_int_equal(chakra_read(o[i].b, o[i].n, files[i], &r[i], &d), 0);
	assert_int_equal(chakra_check(r, 2, files, &st, NULL, &d), -EINVAL);
	assert_string_equal(d.msg, "dl.0.et: node 1 (n) never starts: a send and its receive "
				   "start together, and 1 of its 2 sides is never ready (a cycle "
				   "through other ranks: the job cannot finish)");
	for (i = 0; i < 2; i++) {
		chakra_rank_done(&r[i]);
		free(o[i].b);
	}
}

/* Compute nodes their duration, collectives 100 us, pairs 50 us. */
static uint64_t t_cost(void *arg, const struct chakra_run *x, const struct chakra_op *op)
{
	size_t r = 0;

	(void)arg;
	if (op->kind == CHAKRA_COLL)
		return 100000;
	if (op->kind == CHAKRA_SEND)
		return 50000;
	while (r + 1 < x->n && x->l->base[r + 1] <= op->node)
		r++;
	return x->ranks[r].nodes.v[op->node - x->l->base[r]].duration_us * 1000;
}

/* Rank 0: a compute, the all-reduce, a compute; rank 1 two computes before it: the path goes
 * through rank 1's two, the all-reduce, and a compute after it: 10 + 10 + 100 + 10 us. */
static void test_critical_path(void **state)
{
	struct tchk_buf o[2] = {{0}};
	struct chakra_rank r[2];
	struct chakra_links l;
	struct chakra_path p;
	static const uint64_t start[] = {0, 10000, 20000, 120000};
	static const uint8_t kind[] = {CHAKRA_COMP, CHAKRA_COMP, CHAKRA_COLL, CHAKRA_COMP};
	size_t i;

	(void)state;
	tchk_put_meta(&o[0]);
	put_node(&o[0], 1, COMP, NULL, 0, 0, 0, 0);
	put_node(&o[0], 2, COLL, (const uint64_t[]){1}, 1, CHAKRA_ALL_REDUCE, 1 << 20, 0);
	put_node(&o[0], 3, COMP, (const uint64_t[]){2}, 1, 0, 0, 0);
	tchk_put_meta(&o[1]);
	put_node(&o[1], 1, COMP, NULL, 0, 0, 0, 0);
	put_node(&o[1], 2, COMP, (const uint64_t[]){1}, 1, 0, 0, 0);
	put_node(&o[1], 3, COLL, (const uint64_t[]){2}, 1, CHAKRA_ALL_REDUCE, 1 << 20, 0);
	put_node(&o[1], 4, COMP, (const uint64_t[]){3}, 1, 0, 0, 0);
	t_load(o, 2, r, &l);
	assert_int_equal(chakra_time(r, 2, &l, t_cost, NULL, &p), 0);
	assert_int_equal(p.end_ns, 130000);
	assert_int_equal(p.steps.n, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(p.steps.v[i].op.kind, kind[i]);
		assert_int_equal(p.steps.v[i].start_ns, start[i]);
	}
	assert_int_equal(p.steps.v[0].op.node, l.base[1]); /* rank 1's first compute */
	assert_int_equal(p.steps.v[1].op.node, l.base[1] + 1);
	chakra_path_done(&p);
	t_free(o, r, 2, &l);
}

/* On the MLP chain: the path is unbroken (each step starts as the one before ends), ends at
 * the job's end, and holds the forward pass's all-gathers. */
static void test_critical_path_mlp(void **state)
{
	struct chakra_rank r[8];
	struct chakra_links l;
	struct chakra_path p;
	size_t i, len;

	(void)state;
	t_mlp(r, &l);
	assert_int_equal(chakra_time(r, 8, &l, t_cost, NULL, &p), 0);
	assert_true(p.steps.n >= 2);
	assert_int_equal(p.steps.v[0].start_ns, 0);
	for (i = 1; i < p.steps.n; i++)
		assert_int_equal(p.steps.v[i].start_ns, p.steps.v[i - 1].end_ns);
	assert_int_equal(p.steps.v[p.steps.n - 1].end_ns, p.end_ns);
	/* the forward pass is a chain through its 6 all-gathers: all of them on the path */
	for (i = 0, len = 0; i < p.steps.n; i++)
		len += p.steps.v[i].op.kind == CHAKRA_COLL;
	assert_true(len >= 6);
	chakra_path_done(&p);
	chakra_links_done(&l);
	for (i = 0; i < 8; i++)
		chakra_rank_done(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collective_waits_for_every_member),
		cmocka_unit_test(test_send_waits_for_receive),
		cmocka_unit_test(test_mlp_chain_runs),
		cmocka_unit_test(test_random_jobs),
		cmocka_unit_test(test_cross_rank_deadlock),
		cmocka_unit_test(test_critical_path),
		cmocka_unit_test(test_critical_path_mlp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
