// SPDX-License-Identifier: MIT
/* Greedy path assignment (policy/greedy.h) on two-tier Clos instances: the paper's toy example,
 * both visiting orders worked by hand, Theorem 2 and the exact optimum against brute force on
 * random instances, Koenig without failures, bad input, the search limit, determinism. */
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

#include "policy/greedy.h"
#include "tests/unit/greedy_inst.h"

#define T_LIMIT (1ULL << 20) /* 4 candidates ^ 10 commodities: every random instance fits */
#define T_KOENIG 200 /* Koenig instances; greedy misses the optimum in about a third */
#define T_BRUTE 4096 /* search spaces small enough to enumerate in the test */

static const struct t_pair t_toy[] = {{0, 1}, {1, 0}, {1, 2}, {2, 0}};

static void test_toy_greedy(void **state)
{
	static const uint32_t want[] = {0, 0, 1, 1};
	struct t_inst x;
	uint32_t choice[4];
	int o;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4);
	for (o = GREEDY_ORDER_INPUT; o <= GREEDY_ORDER_BUSIEST_TOR; o++) {
		memset(choice, 0xff, sizeof(choice));
		/* load 1: with unit capacities every flow runs at 1 / 1, full rate */
		assert_int_equal(greedy_assign(&x.in, (enum greedy_order)o, choice), 1);
		assert_int_equal(greedy_max_load(&x.in, choice), 1);
		assert_int_not_equal(choice[1], choice[2]); /* the two flows leaving t2 */
		assert_int_not_equal(choice[1], choice[3]); /* the two flows entering t1 */
		assert_memory_equal(choice, want, sizeof(want));
	}
	assert_int_equal(greedy_lower_bound(&x.in), 1);
	t_free(&x);
}

/* Every fixed (ECMP-like) choice: some collide; the optimum does not. */
static void test_toy_enumerate(void **state)
{
	uint32_t choice[4], m, c, hist[3] = {0};
	struct t_inst x;
	int l;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4);
	for (m = 0; m < 16; m++) {
		for (c = 0; c < 4; c++)
			choice[c] = m >> c & 1;
		l = greedy_max_load(&x.in, choice);
		assert_true(l >= 1 && l <= 2);
		assert_int_equal(l, t_max_load(&x, choice));
		hist[l]++;
	}
	/* load 1 only when t2->t1 takes the other spine from both t2->t3 (t2's uplink) and
	 * t3->t1 (t1's downlink); t1->t2 shares no link: 2 x 2 of the 16 */
	assert_int_equal(hist[1], 4);
	assert_int_equal(hist[2], 12);
	assert_int_equal(greedy_optimal(&x.in, T_LIMIT, choice), 1);
	assert_int_equal(t_max_load(&x, choice), 1);
	/* the lexicographically first optimum: t1->t2 on 0, t2->t1 on 0, then forced */
	assert_int_equal(choice[0], 0);
	assert_int_equal(choice[1], 0);
	assert_int_equal(choice[2], 1);
	assert_int_equal(choice[3], 1);
	t_free(&x);
}

/* ---- visiting orders, worked by hand on 2 spines ---- */

static void t_expect(const struct t_pair *p, uint32_t n, uint32_t ntor, enum greedy_order o,
		     const uint32_t *want)
{
	uint32_t choice[8];
	struct t_inst x;

	t_clos(&x, ntor, 2, 0, p, n);
	memset(choice, 0xff, sizeof(choice));
	assert_true(greedy_assign(&x.in, o, choice) >= 0);
	assert_memory_equal(choice, want, n * sizeof(*want));
	t_free(&x);
}

static void test_order_busiest(void **state)
{
	/* groups: a_2 {1,2} and b_1 {0,1} of size 2, source first: visits 1, 2, 0 */
	static const struct t_pair p1[] = {{0, 1}, {2, 1}, {2, 3}};
	static const uint32_t in1[] = {0, 1, 0}, busy1[] = {1, 0, 1};
	/* a_1 {2,3} and a_3 {0,1} tie: ToR 1 first, 2 before 3 inside: visits 2, 3, 0, 1 */
	static const struct t_pair p2[] = {{3, 0}, {3, 2}, {1, 0}, {1, 4}};
	static const uint32_t in2[] = {0, 1, 1, 0}, busy2[] = {1, 0, 0, 1};
	/* commodities without candidates count in no group: a_1 {2,4} first, then b_2's 3 */
	static const struct t_pair p3[] = {{0, 0}, {0, 0}, {1, 2}, {0, 2}, {1, 3}};
	static const uint32_t in3[] = {0, 0, 0, 1, 1}, busy3[] = {0, 0, 0, 1, 1};
	static const struct t_pair p4[] = {{0, 0}, {0, 0}, {0, 2}, {1, 2}, {1, 3}};
	static const uint32_t in4[] = {0, 0, 0, 1, 0}, busy4[] = {0, 0, 1, 0, 1};

	(void)state;
	t_expect(p1, 3, 4, GREEDY_ORDER_INPUT, in1);
	t_expect(p1, 3, 4, GREEDY_ORDER_BUSIEST_TOR, busy1);
	t_expect(p2, 4, 5, GREEDY_ORDER_INPUT, in2);
	t_expect(p2, 4, 5, GREEDY_ORDER_BUSIEST_TOR, busy2);
	t_expect(p3, 5, 4, GREEDY_ORDER_INPUT, in3);
	t_expect(p3, 5, 4, GREEDY_ORDER_BUSIEST_TOR, busy3);
	t_expect(p4, 5, 4, GREEDY_ORDER_INPUT, in4);
	t_expect(p4, 5, 4, GREEDY_ORDER_BUSIEST_TOR, busy4);
}

/* ---- Theorem 2 and the exact optimum on random instances ---- */

struct t_stats {
	double sum, max;
	uint32_t n, optimal, brute;
};

static uint64_t t_space(const struct t_inst *x)
{
	uint64_t p = 1;
	uint32_t c;

	for (c = 0; c < x->in.ncomm; c++)
		p *= x->comms[c].cand_n ? x->comms[c].cand_n : 1;
	return p;
}

/* Advances choice to the next assignment in lexicographic order; false after the last. */
static bool t_next(const struct t_inst *x, uint32_t *choice)
{
	uint32_t c = x->in.ncomm;

	while (c-- > 0) {
		if (choice[c] + 1 < x->comms[c].cand_n) {
			choice[c]++;
			return true;
		}
		choice[c] = 0;
	}
	return false;
}

/* The smallest maximum load over all assignments, and the first assignment reaching it. */
static uint32_t t_brute(const struct t_inst *x, uint32_t *first)
{
	uint32_t choice[16] = {0}, best = UINT32_MAX, l;

	do {
		l = t_max_load(x, choice);
		if (l < best) {
			best = l;
			memcpy(first, choice, x->in.ncomm * sizeof(*choice));
		}
	} while (t_next(x, choice));
	return best;
}

static void t_random_inst(struct t_inst *x, uint64_t *rng)
{
	uint32_t ntor = 2 + t_below(rng, 5), nspine = 2 + t_below(rng, 3), n = 1 + t_below(rng, 10);
	uint64_t failed = t_below(rng, 3) ? 0 : 1ULL << t_below(rng, nspine);
	struct t_pair p[10];
	uint32_t c;

	for (c = 0; c < n; c++)
		p[c] = (struct t_pair){t_below(rng, ntor), t_below(rng, ntor)};
	t_clos(x, ntor, nspine, failed, p, n);
}

static void t_property(const struct t_inst *x, enum greedy_order o, struct t_stats *st)
{
	uint32_t gc[16], oc[16], bc[16];
	int g, opt;
	double r;

	g = greedy_assign(&x->in, o, gc);
	opt = greedy_optimal(&x->in, T_LIMIT, oc);
	assert_true(g >= 0 && opt >= 0);
	t_check_choice(x, gc);
	t_check_choice(x, oc);
	assert_int_equal(greedy_max_load(&x->in, gc), g);
	assert_int_equal(greedy_max_load(&x->in, oc), opt);
	assert_int_equal(t_max_load(x, gc), g);
	assert_int_equal(t_max_load(x, oc), opt);
	assert_true(opt <= g);
	assert_true(g <= 2 * opt); /* Theorem 2 (greedy routing §4) */
	assert_true(opt >= greedy_lower_bound(&x->in));
	if (t_space(x) <= T_BRUTE) {
		assert_int_equal(t_brute(x, bc), opt);
		assert_memory_equal(oc, bc, x->in.ncomm * sizeof(*bc));
		st->brute++;
	}
	r = opt ? (double)g / opt : 1.0;
	st->sum += r;
	st->max = r > st->max ? r : st->max;
	st->optimal += g == opt;
	st->n++;
}

static void test_random_theorem2(void **state)
{
	struct t_stats st = {0};
	uint64_t rng = 2024;
	struct t_inst x;
	uint32_t i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		t_random_inst(&x, &rng);
		t_property(&x, i % 2 ? GREEDY_ORDER_BUSIEST_TOR : GREEDY_ORDER_INPUT, &st);
		t_free(&x);
	}
	printf("greedy/optimal max load over %u instances: mean %.3f, max %.2f, optimal in %u "
	       "(%u checked by enumeration)\n",
	       st.n, st.sum / st.n, st.max, st.optimal, st.brute);
	assert_true(st.brute > 500);
	/* the seed gives instances where greedy is not optimal: the optimum search is exercised */
	assert_true(st.optimal < st.n);
}

/* ---- Koenig: no failures, ToR degrees at most the spine count, every commodity crossing ---- */

static void t_shuffle(uint64_t *rng, struct t_pair *p, uint32_t n)
{
	struct t_pair tmp;
	uint32_t i, j;

	for (i = n; i > 1; i--) {
		j = t_below(rng, i);
		tmp = p[i - 1];
		p[i - 1] = p[j];
		p[j] = tmp;
	}
}

/* The union of k random permutations of the ToRs, fixed points dropped, in random order. */
static uint32_t t_perms(uint64_t *rng, uint32_t ntor, uint32_t k, struct t_pair *p)
{
	uint32_t perm[8], i, j, r, tmp, n = 0;

	for (r = 0; r < k; r++) {
		for (i = 0; i < ntor; i++)
			perm[i] = i;
		for (i = ntor - 1; i > 0; i--) {
			j = t_below(rng, i + 1);
			tmp = perm[i];
			perm[i] = perm[j];
			perm[j] = tmp;
		}
		for (i = 0; i < ntor; i++) {
			if (perm[i] != i)
				p[n++] = (struct t_pair){i, perm[i]};
		}
	}
	t_shuffle(rng, p, n); /* matching by matching, greedy would rarely miss */
	return n;
}

static void test_koenig(void **state)
{
	uint32_t choice[32], i, n, ntor, nspine, worse = 0;
	struct t_pair p[32];
	uint64_t rng = 7;
	struct t_inst x;
	int g;

	(void)state;
	for (i = 0; i < T_KOENIG; i++) {
		ntor = 3 + t_below(&rng, 6);
		nspine = 2 + t_below(&rng, 3);
		n = t_perms(&rng, ntor, nspine, p);
		if (!n)
			continue;
		t_clos(&x, ntor, nspine, 0, p, n);
		g = greedy_assign(&x.in, (enum greedy_order)(i % 2), choice);
		worse += g > 1;
		assert_int_equal(greedy_optimal(&x.in, UINT64_MAX, choice), 1);
		assert_int_equal(t_max_load(&x, choice), 1);
		assert_int_equal(greedy_lower_bound(&x.in), 1);
		t_free(&x);
	}
	printf("koenig: greedy above 1 in %u\n", worse);
	assert_true(worse > 0); /* greedy alone would not have passed */
}

/* ---- the search limit, bad input, determinism ---- */

static void test_limit(void **state)
{
	struct t_pair p[32];
	uint32_t choice[32], i;
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4); /* 2^4 = 16 assignments */
	assert_int_equal(greedy_optimal(&x.in, 16, choice), 1);
	assert_int_equal(greedy_optimal(&x.in, 15, choice), -E2BIG);
	t_free(&x);
	for (i = 0; i < 32; i++)
		p[i] = (struct t_pair){i % 8, (i + 1 + i / 8) % 8};
	t_clos(&x, 8, 4, 0, p, 20); /* 4^20 */
	assert_int_equal(greedy_optimal(&x.in, 1000000, choice), -E2BIG);
	t_free(&x);
	t_clos(&x, 8, 4, 0, p, 32); /* 4^32 = 2^64: saturates rather than wrapping to 0 */
	assert_int_equal(greedy_optimal(&x.in, UINT64_MAX - 1, choice), -E2BIG);
	assert_int_equal(greedy_optimal(&x.in, UINT64_MAX, choice), 1);
	t_free(&x);
}

static void test_bad_input(void **state)
{
	uint32_t choice[4] = {0};
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, t_toy, 4);
	x.links[7] = x.in.nlinks; /* the last link of the last candidate */
	assert_int_equal(greedy_assign(&x.in, GREEDY_ORDER_INPUT, choice), -EINVAL);
	assert_int_equal(greedy_assign(&x.in, GREEDY_ORDER_BUSIEST_TOR, choice), -EINVAL);
	assert_int_equal(greedy_optimal(&x.in, T_LIMIT, choice), -EINVAL);
	assert_int_equal(greedy_max_load(&x.in, choice), -EINVAL);
	x.links[7] = x.in.nlinks - 1;
	assert_int_equal(greedy_max_load(&x.in, choice), 2); /* all on spine 0: t2's flows meet */
	choice[2] = 2; /* no third spine */
	assert_int_equal(greedy_max_load(&x.in, choice), -EINVAL);
	choice[2] = 0;
	/* ranges that wrap around: refused before anything is read */
	x.cands[1].link_off = UINT32_MAX;
	assert_int_equal(greedy_assign(&x.in, GREEDY_ORDER_INPUT, choice), -EINVAL);
	assert_int_equal(greedy_max_load(&x.in, choice), -EINVAL);
	x.cands[1].link_off = 2;
	x.comms[3].cand_off = UINT32_MAX;
	assert_int_equal(greedy_optimal(&x.in, T_LIMIT, choice), -EINVAL);
	t_free(&x);
}

static void test_empty_and_bounds(void **state)
{
	static const struct t_pair intra[] = {{1, 1}, {2, 2}};
	static const struct t_pair fan[] = {{0, 1}, {0, 2}, {0, 3}, {1, 0}, {2, 0}};
	uint32_t choice[5] = {9, 9};
	struct t_inst x;

	(void)state;
	t_clos(&x, 4, 2, 0, intra, 0);
	assert_int_equal(greedy_assign(&x.in, GREEDY_ORDER_BUSIEST_TOR, NULL), 0);
	assert_int_equal(greedy_optimal(&x.in, 1, NULL), 0);
	assert_int_equal(greedy_lower_bound(&x.in), 0);
	t_free(&x);
	t_clos(&x, 4, 2, 0, intra, 2);
	assert_int_equal(greedy_assign(&x.in, GREEDY_ORDER_BUSIEST_TOR, choice), 0);
	assert_int_equal(choice[0], 0);
	assert_int_equal(choice[1], 0);
	assert_int_equal(greedy_optimal(&x.in, 1, choice), 0);
	assert_int_equal(greedy_lower_bound(&x.in), 0);
	t_free(&x);
	/* ToR 0 sends 3 over 2 spines, receives 2: ceil(3/2); one spine failed: 3 */
	t_clos(&x, 4, 2, 0, fan, 5);
	assert_int_equal(greedy_lower_bound(&x.in), 2);
	assert_int_equal(greedy_optimal(&x.in, T_LIMIT, choice), 2);
	t_free(&x);
	t_clos(&x, 4, 2, 2, fan, 5);
	assert_int_equal(greedy_lower_bound(&x.in), 3);
	assert_int_equal(greedy_assign(&x.in, GREEDY_ORDER_INPUT, choice), 3);
	t_free(&x);
}

/* One cable failed, not a spine: the link from spine 1 down into ToR 1 is gone, so the
 * commodity 0 -> 1 has spine 0 only while 0 -> 2 keeps both. The bound counts the uplinks the
 * source group may use (two), not its smallest candidate count (one): ceil(2 / 2) = 1, which
 * the optimum reaches (0 -> 1 on spine 0, 0 -> 2 on spine 1). */
static void test_bound_link_failure(void **state)
{
	static const struct t_pair p[] = {{0, 1}, {0, 2}};
	uint32_t choice[2];
	struct t_inst x;

	(void)state;
	t_clos(&x, 3, 2, 0, p, 2);
	x.comms[0].cand_n = 1; /* its spine-1 candidate (the second) is gone */
	assert_int_equal(greedy_lower_bound(&x.in), 1);
	assert_int_equal(greedy_optimal(&x.in, T_LIMIT, choice), 1);
	assert_int_equal(choice[0], 0);
	assert_int_equal(choice[1], 1);
	assert_int_equal(greedy_assign(&x.in, GREEDY_ORDER_INPUT, choice), 1);
	t_free(&x);
}

/* Outside a Clos: a candidate listing a link twice loads it once (loads count commodities),
 * and one loading no link costs nothing. */
static void test_odd_candidates(void **state)
{
	static const uint32_t links[] = {0, 0, 0, 1, 1};
	static const struct greedy_cand cands[] = {{0, 2}, {2, 0}, {2, 2}, {4, 1}};
	static const struct greedy_comm comms[] = {{0, 1, 0, 2}, {0, 1, 2, 2}};
	const struct greedy_in in = {comms, 2, cands, links, 2};
	struct greedy_comm comms2[2] = {comms[0]};
	const struct greedy_in in2 = {comms2, 2, cands, links, 2};
	uint32_t choice[2];

	(void)state;
	assert_int_equal(greedy_assign(&in, GREEDY_ORDER_INPUT, choice), 1);
	assert_int_equal(choice[0], 0); /* a tie at 0: the lowest index */
	assert_int_equal(choice[1], 1);
	assert_int_equal(greedy_max_load(&in, choice), 1);
	choice[1] = 0;
	assert_int_equal(greedy_max_load(&in, choice), 2);
	choice[0] = 1;
	assert_int_equal(greedy_max_load(&in, choice), 1);
	assert_int_equal(greedy_optimal(&in, 4, choice), 1);
	assert_int_equal(choice[0], 0); /* first of (0,1), (1,0), (1,1) */
	assert_int_equal(choice[1], 1);
	/* twice the first commodity: greedy ties onto the link, the optimum loads nothing */
	comms2[1] = comms[0];
	assert_int_equal(greedy_assign(&in2, GREEDY_ORDER_BUSIEST_TOR, choice), 1);
	assert_int_equal(greedy_lower_bound(&in2), 0); /* a candidate loads nothing */
	assert_int_equal(greedy_optimal(&in2, 4, choice), 0);
	assert_int_equal(choice[0], 1);
	assert_int_equal(choice[1], 1);
}

static void t_same(const struct t_inst *x, enum greedy_order o, bool opt)
{
	uint32_t a[16], b[16];

	memset(a, 0xaa, sizeof(a));
	memset(b, 0x55, sizeof(b));
	if (opt) {
		assert_true(greedy_optimal(&x->in, T_LIMIT, a) >= 0);
		assert_true(greedy_optimal(&x->in, T_LIMIT, b) >= 0);
	} else {
		assert_true(greedy_assign(&x->in, o, a) >= 0);
		assert_true(greedy_assign(&x->in, o, b) >= 0);
	}
	assert_memory_equal(a, b, x->in.ncomm * sizeof(*a));
}

static void test_deterministic(void **state)
{
	uint64_t rng = 99;
	struct t_inst x;
	uint32_t i;

	(void)state;
	for (i = 0; i < 100; i++) {
		t_random_inst(&x, &rng);
		t_same(&x, GREEDY_ORDER_INPUT, false);
		t_same(&x, GREEDY_ORDER_BUSIEST_TOR, false);
		t_same(&x, GREEDY_ORDER_INPUT, true);
		t_free(&x);
	}
}

/* ---- paper scale: 64 ToRs, 32 spines, 1,728 commodities in rings of 4 ToRs ---- */

static void test_paper_scale(void **state)
{
	static struct t_pair p[1728];
	static uint32_t choice[1728];
	uint64_t rng = 1234;
	struct t_inst x;
	uint32_t i;
	int o, g, lb;

	(void)state;
	for (i = 0; i < 432; i++)
		t_ring(&rng, p + 4 * i);
	t_clos(&x, 64, 32, 0, p, 1728);
	lb = greedy_lower_bound(&x.in);
	assert_true(lb >= 1);
	for (o = GREEDY_ORDER_INPUT; o <= GREEDY_ORDER_BUSIEST_TOR; o++) {
		g = greedy_assign(&x.in, (enum greedy_order)o, choice);
		t_check_choice(&x, choice);
		assert_int_equal(greedy_max_load(&x.in, choice), g);
		/* without failures the bound is the optimum (Koenig), so Theorem 2 caps greedy */
		assert_true(g >= lb && g <= 2 * lb);
		printf("paper scale, %s order: max load %d, lower bound %d\n",
		       o == GREEDY_ORDER_INPUT ? "input" : "busiest-ToR", g, lb);
	}
	assert_int_equal(greedy_optimal(&x.in, 1000000, choice), -E2BIG);
	t_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toy_greedy),     cmocka_unit_test(test_toy_enumerate),
		cmocka_unit_test(test_order_busiest),  cmocka_unit_test(test_random_theorem2),
		cmocka_unit_test(test_koenig),	       cmocka_unit_test(test_limit),
		cmocka_unit_test(test_bad_input),      cmocka_unit_test(test_empty_and_bounds),
		cmocka_unit_test(test_odd_candidates), cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_paper_scale),    cmocka_unit_test(test_bound_link_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
