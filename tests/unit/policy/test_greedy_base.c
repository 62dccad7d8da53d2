// SPDX-License-Identifier: MIT
/* The greedy routing paper's baselines (policy/greedy_base.h) on two-tier Clos instances: the
 * toy example, Edge-Coloring's proper Delta-coloring and Koenig optimum on random instances with
 * and without failures, Simulated Annealing's invariants against the exact optimum, bad input. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy/greedy_base.h"
#include "tests/unit/greedy_inst.h"

#define T_LIMIT (1ULL << 20) /* 4 candidates ^ 10 commodities: every small instance fits */
#define T_RUNS 1000
#define T_MAXC 32 /* commodities in a random instance, at most */
#define T_HOSTS 3 /* hosts per ToR, at most, in the annealing instances */

/* The largest number of commodities with candidates at one source or one destination ToR. */
static uint32_t t_degree(const struct t_inst *x)
{
	uint32_t deg[2][64] = {{0}}, c, top = 0, *d;

	assert_true(x->ntor <= 64);
	for (c = 0; c < x->in.ncomm; c++) {
		if (!x->comms[c].cand_n)
			continue;
		d = &deg[0][x->comms[c].src_grp];
		top = ++*d > top ? *d : top;
		d = &deg[1][x->comms[c].dst_grp];
		top = ++*d > top ? *d : top;
	}
	return top;
}

/* The coloring is proper, uses colors 0..Delta-1 only and all of them, and says Delta. */
static void t_check_colors(const struct t_inst *x, uint32_t delta)
{
	uint32_t color[T_MAXC], c, d, used = 0;
	bool seen[T_MAXC] = {false};
	const struct greedy_comm *p, *q;

	assert_true(x->in.ncomm <= T_MAXC);
	assert_int_equal(greedy_edge_colors(&x->in, color), delta);
	for (c = 0; c < x->in.ncomm; c++) {
		p = &x->comms[c];
		if (!p->cand_n) {
			assert_int_equal(color[c], UINT32_MAX);
			continue;
		}
		assert_true(color[c] < delta);
		used += !seen[color[c]];
		seen[color[c]] = true;
		for (d = 0; d < c; d++) {
			q = &x->comms[d];
			if (q->cand_n && (p->src_grp == q->src_grp || p->dst_grp == q->dst_grp))
				assert_int_not_equal(color[c], color[d]);
		}
	}
	assert_int_equal(used, delta);
}

/* ---- the paper's toy example (greedy routing §2.3, Fig. 2) ---- */

/* D = [0 1 0 0; 1 0 1 0; 1 0 0 0; 0 0 0 0], ToRs t1..t4 as 0..3 */
static const struct t_pair t_toy[] = {{0, 1}, {1, 0}, {1, 2}, {2, 0}};

static void test_toy_edge_color(void **state)
{
	uint32_t choice[4];
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4);
	t_check_colors(&x, t_degree(&x));
	memset(choice, 0xff, sizeof(choice));
	/* load 1: with unit capacities every flow runs at full rate */
	assert_int_equal(greedy_edge_color(&x.in, choice), 1);
	assert_int_equal(t_max_load(&x, choice), 1);
	assert_int_not_equal(choice[1], choice[2]); /* the two flows leaving t2 */
	assert_int_not_equal(choice[1], choice[3]); /* the two flows entering t1 */
	t_free(&x);
}

/* Each flow to its own host: t1's two receivers start on spines 0 and 1, which puts both of
 * t2's flows on spine 0 (load 2); swapping t1's two receivers fixes it. */
static void test_toy_anneal(void **state)
{
	uint32_t choice[4], first[4], seed;
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4);
	assert_int_equal(x.slot[1], 0);
	assert_int_equal(x.slot[3], 1);
	for (seed = 0; seed < 100; seed++) {
		assert_int_equal(greedy_anneal(&x.in, x.key, x.slot, seed, choice), 1);
		assert_int_equal(t_max_load(&x, choice), 1);
		if (!seed)
			memcpy(first, choice, sizeof(first));
		/* swaps keep the start's spines: three destinations on 0, one on 1, and the only
		 * load-1 assignment with that is t2 -> t1 alone on spine 1 */
		assert_memory_equal(choice, first, sizeof(first));
	}
	assert_int_equal(choice[1], 1);
	assert_int_equal(choice[0] + choice[2] + choice[3], 0);
	t_free(&x);
}

/* Swaps only permute the start's spines: every destination on slot 0 stays on spine 0. */
static void test_anneal_swaps_only(void **state)
{
	static const uint32_t zero[4];
	uint32_t choice[4];
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4);
	memset(x.slot, 0, 4 * sizeof(*x.slot));
	assert_int_equal(greedy_anneal(&x.in, x.key, x.slot, 1, choice), 2);
	assert_memory_equal(choice, zero, sizeof(zero));
	t_free(&x);
}

/* ---- Edge-Coloring on random instances ---- */

/* Random pairs (same-ToR ones too: they have no candidates); with cap, only those keeping
 * every ToR's degree at most cap. Returns how many. */
static uint32_t t_pairs(uint64_t *rng, uint32_t ntor, uint32_t tries, uint32_t cap,
			struct t_pair *p)
{
	uint32_t out[8] = {0}, in[8] = {0}, i, n = 0, a, b;

	for (i = 0; i < tries && n < T_MAXC; i++) {
		a = t_below(rng, ntor);
		b = t_below(rng, ntor);
		if (cap && a != b && (out[a] >= cap || in[b] >= cap))
			continue;
		out[a] += a != b;
		in[b] += a != b;
		p[n++] = (struct t_pair){a, b};
	}
	return n;
}

static void t_random_clos(struct t_inst *x, uint64_t *rng, bool capped, uint64_t failed)
{
	uint32_t ntor = 2 + t_below(rng, 7), nspine = 2 + t_below(rng, 3), n;
	struct t_pair p[T_MAXC];

	if (failed) /* some spines, never all */
		failed = t_rand(rng) & ((1ULL << nspine) - 1) & ~(1ULL << t_below(rng, nspine));
	n = t_pairs(rng, ntor, 1 + t_below(rng, T_MAXC), capped ? nspine : 0, p);
	t_clos(x, ntor, nspine, failed, p, n);
}

/* Without failures: a proper Delta-coloring, and the optimum ceil(Delta / S), which is the lower
 * bound (Koenig), whether Delta is at most S or above it. */
static void test_edge_color_random(void **state)
{
	uint32_t choice[T_MAXC], i, delta, above = 0, within = 0;
	uint64_t rng = 42;
	struct t_inst x;

	(void)state;
	for (i = 0; i < T_RUNS; i++) {
		t_random_clos(&x, &rng, i % 2, 0);
		t_check_colors(&x, t_degree(&x));
		delta = t_degree(&x);
		assert_int_equal(greedy_edge_color(&x.in, choice),
				 (delta + x.nspine - 1) / x.nspine);
		t_check_choice(&x, choice);
		assert_int_equal(t_max_load(&x, choice), (delta + x.nspine - 1) / x.nspine);
		assert_int_equal(greedy_lower_bound(&x.in), (delta + x.nspine - 1) / x.nspine);
		above += delta > x.nspine;
		within += delta && delta <= x.nspine;
		t_free(&x);
	}
	print_message("edge coloring, %u instances without failures: optimal in all (degree <= "
		      "spines in %u, above in %u)\n",
		      T_RUNS, within, above);
	assert_true(above > 200 && within > 200);
}

/* A failed link rather than a spine: some commodities lose their last candidates. */
static void t_cut(struct t_inst *x, uint64_t *rng)
{
	uint32_t c;

	for (c = 0; c < x->in.ncomm; c++) {
		if (x->comms[c].cand_n > 1 && !t_below(rng, 4))
			x->comms[c].cand_n -= 1 + t_below(rng, x->comms[c].cand_n - 1);
	}
}

/* Any commodity with candidates has fewer than S: some spine or link failed. */
static bool t_failed(const struct t_inst *x)
{
	uint32_t c;

	for (c = 0; c < x->in.ncomm; c++) {
		if (x->comms[c].cand_n && x->comms[c].cand_n < x->nspine)
			return true;
	}
	return false;
}

/* Edge coloring's choice: valid, counted the same here, at least the lower bound; returns
 * how far above the bound it is. */
static int t_edge_color_check(const struct t_inst *x)
{
	uint32_t choice[T_MAXC];
	int l, lb;

	t_check_colors(x, t_degree(x));
	l = greedy_edge_color(&x->in, choice);
	lb = greedy_lower_bound(&x->in);
	t_check_choice(x, choice);
	assert_int_equal(t_max_load(x, choice), l);
	assert_true(l >= lb);
	return l - lb;
}

/* Failed spines: every commodity has the same A alive spines as candidates, so the colors
 * wrap modulo A alike everywhere and the load is still ceil(Delta / A), the bound. Failed links:
 * commodities have different candidate counts, the wrap differs between them, and the result
 * can exceed the optimum. */
static void test_edge_color_failures(void **state)
{
	uint32_t i, above = 0, spine = 0, link = 0;
	uint64_t rng = 4242;
	struct t_inst x;

	(void)state;
	for (i = 0; i < T_RUNS; i++) {
		t_random_clos(&x, &rng, i % 2, 1);
		spine += t_failed(&x);
		assert_int_equal(t_edge_color_check(&x), 0);
		t_cut(&x, &rng);
		link += t_failed(&x);
		above += t_edge_color_check(&x) > 0;
		t_free(&x);
	}
	print_message("edge coloring, %u instances: with failed spines (%u) optimal in all; with "
		      "failed links (%u) above the lower bound in %u\n",
		      T_RUNS, spine, link, above);
	assert_true(spine > 200);
	assert_true(above > 0);
}

/* Group ids are any uint32: relabelled in the same order, the same colors; in reverse order,
 * still a proper Delta-coloring. */
static void test_edge_color_ids(void **state)
{
	uint32_t a[T_MAXC], b[T_MAXC], i, c, delta;
	uint64_t rng = 5;
	struct t_inst x;

	(void)state;
	for (i = 0; i < 100; i++) {
		t_random_clos(&x, &rng, false, 0);
		delta = t_degree(&x);
		assert_int_equal(greedy_edge_colors(&x.in, a), delta);
		for (c = 0; c < x.in.ncomm; c++) {
			x.comms[c].src_grp = x.comms[c].src_grp * 500000000u + 7;
			x.comms[c].dst_grp = UINT32_MAX - 8 + x.comms[c].dst_grp;
		}
		assert_int_equal(greedy_edge_colors(&x.in, b), delta);
		assert_memory_equal(a, b, x.in.ncomm * sizeof(*a));
		for (c = 0; c < x.in.ncomm; c++) {
			x.comms[c].src_grp = UINT32_MAX - x.comms[c].src_grp;
			x.comms[c].dst_grp = UINT32_MAX - x.comms[c].dst_grp;
		}
		t_check_colors(&x, delta);
		t_free(&x);
	}
}

/* ---- Simulated Annealing on random small instances, against the exact optimum ---- */

/* Destination hosts: up to T_HOSTS per ToR, so commodities may share one. */
static void t_hosts(struct t_inst *x, uint64_t *rng)
{
	uint32_t c, h, nh = 1 + t_below(rng, T_HOSTS);

	for (c = 0; c < x->in.ncomm; c++) {
		h = t_below(rng, nh);
		x->key[c] = x->comms[c].dst_grp * T_HOSTS + h;
		x->slot[c] = h;
	}
}

static void t_small(struct t_inst *x, uint64_t *rng)
{
	uint32_t ntor = 2 + t_below(rng, 5), nspine = 2 + t_below(rng, 3), n = 1 + t_below(rng, 10);
	uint64_t failed = t_below(rng, 3) ? 0 : 1ULL << t_below(rng, nspine);
	struct t_pair p[10];
	uint32_t c;

	for (c = 0; c < n; c++)
		p[c] = (struct t_pair){t_below(rng, ntor), t_below(rng, ntor)};
	t_clos(x, ntor, nspine, failed, p, n);
	t_hosts(x, rng);
	if (!t_below(rng, 4))
		t_cut(x, rng);
}

/* The annealing's start: destination on its slot mod S, candidate spine mod cand_n. */
static uint32_t t_start_load(const struct t_inst *x)
{
	uint32_t *choice = calloc(x->in.ncomm + 1, sizeof(*choice)), c, s = 0, l;

	assert_non_null(choice);
	for (c = 0; c < x->in.ncomm; c++)
		s = x->comms[c].cand_n > s ? x->comms[c].cand_n : s;
	for (c = 0; c < x->in.ncomm; c++) {
		if (x->comms[c].cand_n)
			choice[c] = x->slot[c] % s % x->comms[c].cand_n;
	}
	l = t_max_load(x, choice);
	free(choice);
	return l;
}

/* Commodities to one destination with as many candidates take the same one. */
static void t_check_shared(const struct t_inst *x, const uint32_t *choice)
{
	uint32_t c, d;

	for (c = 0; c < x->in.ncomm; c++)
		for (d = 0; d < c; d++) {
			if (x->key[c] == x->key[d] && x->comms[c].cand_n &&
			    x->comms[c].cand_n == x->comms[d].cand_n)
				assert_int_equal(choice[c], choice[d]);
		}
}

struct t_ratio {
	double sa, ec;
	uint32_t n, sa_opt, ec_opt;
};

static void t_anneal_one(const struct t_inst *x, uint64_t seed, struct t_ratio *r)
{
	uint32_t a[T_MAXC], b[T_MAXC], o[T_MAXC], e[T_MAXC];
	int sa, opt, ec;

	memset(a, 0xaa, sizeof(a));
	memset(b, 0x55, sizeof(b));
	sa = greedy_anneal(&x->in, x->key, x->slot, seed, a);
	assert_int_equal(greedy_anneal(&x->in, x->key, x->slot, seed, b), sa);
	assert_memory_equal(a, b, x->in.ncomm * sizeof(*a));
	t_check_choice(x, a);
	t_check_shared(x, a);
	assert_int_equal(t_max_load(x, a), sa);
	assert_true(sa <= (int)t_start_load(x));
	opt = greedy_optimal(&x->in, T_LIMIT, o);
	ec = greedy_edge_color(&x->in, e);
	assert_true(opt >= 0 && ec >= 0);
	t_check_choice(x, e);
	assert_true(sa >= opt && ec >= opt);
	r->sa += opt ? (double)sa / opt : 1.0;
	r->ec += opt ? (double)ec / opt : 1.0;
	r->sa_opt += sa == opt;
	r->ec_opt += ec == opt;
	r->n++;
}

static void test_anneal_random(void **state)
{
	struct t_ratio r = {0};
	uint64_t rng = 2024;
	struct t_inst x;
	uint32_t i;

	(void)state;
	for (i = 0; i < T_RUNS; i++) {
		t_small(&x, &rng);
		t_anneal_one(&x, t_rand(&rng), &r);
		t_free(&x);
	}
	print_message("max load / optimal over %u small instances: annealing mean %.3f (optimal "
		      "in %u), edge coloring mean %.3f (optimal in %u)\n",
		      r.n, r.sa / r.n, r.sa_opt, r.ec / r.n, r.ec_opt);
	assert_int_equal(r.n, T_RUNS);
	assert_true(r.ec_opt < r.n); /* failed links: edge coloring misses the optimum at times */
}

/* ---- empty input, commodities without candidates, bad input ---- */

static void test_empty(void **state)
{
	static const struct t_pair intra[] = {{1, 1}, {2, 2}};
	uint32_t choice[2] = {9, 9}, color[2];
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, intra, 0);
	assert_int_equal(greedy_edge_colors(&x.in, NULL), 0);
	assert_int_equal(greedy_edge_color(&x.in, NULL), 0);
	assert_int_equal(greedy_anneal(&x.in, NULL, NULL, 1, NULL), 0);
	t_free(&x);
	t_clos(&x, 4, 2, 0, intra, 2);
	assert_int_equal(greedy_edge_colors(&x.in, color), 0);
	assert_int_equal(color[0], UINT32_MAX);
	assert_int_equal(color[1], UINT32_MAX);
	assert_int_equal(greedy_edge_color(&x.in, choice), 0);
	assert_int_equal(choice[0] + choice[1], 0);
	choice[0] = choice[1] = 9;
	assert_int_equal(greedy_anneal(&x.in, x.key, x.slot, 1, choice), 0);
	assert_int_equal(choice[0] + choice[1], 0);
	t_free(&x);
}

static void test_bad_input(void **state)
{
	uint32_t choice[4];
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4);
	assert_int_equal(greedy_anneal(&x.in, NULL, x.slot, 1, choice), -EINVAL);
	assert_int_equal(greedy_anneal(&x.in, x.key, NULL, 1, choice), -EINVAL);
	x.links[7] = x.in.nlinks; /* the last link of the last candidate */
	assert_int_equal(greedy_edge_colors(&x.in, choice), -EINVAL);
	assert_int_equal(greedy_edge_color(&x.in, choice), -EINVAL);
	assert_int_equal(greedy_anneal(&x.in, x.key, x.slot, 1, choice), -EINVAL);
	x.links[7] = x.in.nlinks - 1;
	x.cands[1].link_off = UINT32_MAX; /* a range that wraps */
	assert_int_equal(greedy_edge_color(&x.in, choice), -EINVAL);
	assert_int_equal(greedy_anneal(&x.in, x.key, x.slot, 1, choice), -EINVAL);
	t_free(&x);
}

/* ---- paper scale: 64 ToRs, 32 spines, 1,728 commodities in rings of 4 ToRs ---- */

static void test_paper_scale(void **state)
{
	static struct t_pair p[1728];
	static uint32_t a[1728], b[1728];
	uint64_t rng = 1234;
	struct t_inst x;
	uint32_t i;
	int lb, ec, sa;

	(void)state;
	for (i = 0; i < 432; i++)
		t_ring(&rng, p + 4 * i);
	t_clos(&x, 64, 32, 0, p, 1728);
	lb = greedy_lower_bound(&x.in);
	ec = greedy_edge_color(&x.in, a);
	assert_int_equal(ec, lb); /* Koenig: the optimum without failures */
	sa = greedy_anneal(&x.in, x.key, x.slot, 7, a);
	assert_int_equal(greedy_anneal(&x.in, x.key, x.slot, 7, b), sa);
	assert_memory_equal(a, b, sizeof(a));
	assert_true(sa >= lb && sa <= (int)t_start_load(&x));
	print_message("paper scale: edge coloring %d, annealing %d (start %u), lower bound %d\n",
		      ec, sa, t_start_load(&x), lb);
	t_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toy_edge_color),
		cmocka_unit_test(test_toy_anneal),
		cmocka_unit_test(test_anneal_swaps_only),
		cmocka_unit_test(test_edge_color_random),
		cmocka_unit_test(test_edge_color_failures),
		cmocka_unit_test(test_edge_color_ids),
		cmocka_unit_test(test_anneal_random),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_paper_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
