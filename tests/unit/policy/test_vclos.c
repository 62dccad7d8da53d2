// SPDX-License-Identifier: MIT
/* vClos placement: hand-worked stages 0, 1 and 2 (best fit, fewest idle servers, Algorithm
 * 3's shape order, the ILP objective), the stage-2 search against brute force, errors,
 * determinism, and random job mixes checked after every event: ownership, Algorithm 1's
 * choices, and contention-free isolated traffic (ring, HD, pairwise all-to-all routed by
 * vclos_uplink, vClos Lemma 5.1) across all running jobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/rng.h"
#include "policy/vclos.h"
#include "traffic/coll.h"
#include "tests/unit/coll_pat.h"

#define T_FAKE 0x7fff0000u /* owner of GPUs and links taken by hand */
#define T_MAXL 8 /* brute force: leaves and spines at most this */
#define T_MAX_JOBS 64
#define T_NONE UINT32_MAX

static void t_init(struct vclos *c, uint32_t l, uint32_t s, uint32_t r, uint32_t t)
{
	assert_int_equal(vclos_init(c, l, s, r, t), 0);
}

static void t_place(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *a)
{
	assert_int_equal(vclos_place(c, job, n, a), 0);
	assert_int_equal(a->job, job);
	assert_int_equal(a->n, n);
}

static void t_eps(const struct vclos_alloc *a, const uint32_t *want, uint32_t n)
{
	assert_int_equal(a->n, n);
	assert_memory_equal(a->eps, want, n * sizeof(*want));
}

/* Marks endpoint ep taken by hand, as a placement would. */
static void t_take_gpu(struct vclos *c, uint32_t ep)
{
	assert_int_equal(c->gpu_owner[ep], VCLOS_FREE);
	c->gpu_owner[ep] = T_FAKE;
	c->srv_free[ep / c->gpus]--;
}

static void t_take_link(struct vclos *c, uint32_t leaf, uint32_t spine)
{
	c->link_owner[leaf * c->spines + spine] = T_FAKE;
}

static void test_stage0_best_fit(void **state)
{
	struct vclos_alloc a[9];
	struct vclos c;
	uint32_t i;

	(void)state;
	t_init(&c, 2, 2, 2, 4);
	t_place(&c, 1, 3, &a[0]); /* all servers have 4: the lowest */
	t_eps(&a[0], (uint32_t[]){0, 1, 2}, 3);
	assert_int_equal(a[0].stage, 0);
	assert_int_equal(a[0].l, 1);
	assert_int_equal(a[0].s, 0);
	t_place(&c, 2, 2, &a[1]); /* server 0 has 1 left: too few */
	t_eps(&a[1], (uint32_t[]){4, 5}, 2);
	t_place(&c, 3, 1, &a[2]); /* server 0: the fewest free (1) */
	t_eps(&a[2], (uint32_t[]){3}, 1);
	t_place(&c, 4, 2, &a[3]); /* server 1 (2 free) before 2 and 3 (4 free) */
	t_eps(&a[3], (uint32_t[]){6, 7}, 2);
	assert_int_equal(a[3].leaf[0], 0);
	t_place(&c, 5, 4, &a[4]);
	t_eps(&a[4], (uint32_t[]){8, 9, 10, 11}, 4);
	assert_int_equal(a[4].leaf[0], 1);
	vclos_release(&c, 2);
	t_place(&c, 6, 1, &a[5]); /* server 1 (2 free) before server 3 (4 free) */
	t_eps(&a[5], (uint32_t[]){4}, 1);
	t_place(&c, 7, 4, &a[6]);
	t_eps(&a[6], (uint32_t[]){12, 13, 14, 15}, 4);
	assert_int_equal(vclos_place(&c, 8, 4, &a[7]), -EAGAIN); /* no server has 4 free */
	assert_int_equal(vclos_place(&c, 8, 2, &a[7]), -EAGAIN); /* never across servers */
	assert_null(a[7].eps);
	t_place(&c, 8, 1, &a[7]);
	t_eps(&a[7], (uint32_t[]){5}, 1);
	for (i = 0; i < 8; i++)
		vclos_alloc_done(&a[i]);
	vclos_done(&c);
}

static void test_stage1_fewest_idle(void **state)
{
	struct vclos_alloc a[5];
	struct vclos c;
	uint32_t i;

	(void)state;
	t_init(&c, 3, 4, 4, 2);
	t_place(&c, 1, 4, &a[0]); /* 2 servers; every leaf has 4 idle: leaf 0 */
	t_eps(&a[0], (uint32_t[]){0, 1, 2, 3}, 4);
	assert_int_equal(a[0].stage, 1);
	t_place(&c, 2, 6, &a[1]); /* 3 servers: leaf 0 has 2 idle; leaves 1 and 2 tie */
	t_eps(&a[1], (uint32_t[]){8, 9, 10, 11, 12, 13}, 6);
	assert_int_equal(a[1].leaf[0], 1);
	/* idle servers: leaf 0: 2, leaf 1: 1, leaf 2: 4. 3 GPUs take 2 whole servers */
	t_place(&c, 3, 3, &a[2]);
	t_eps(&a[2], (uint32_t[]){4, 5, 6}, 3);
	assert_int_equal(c.gpu_owner[7], 3); /* held, not a rank */
	assert_int_equal(a[2].leaf[0], 0);
	t_place(&c, 4, 4, &a[3]); /* leaf 1 has 1 idle, too few: leaf 2 */
	t_eps(&a[3], (uint32_t[]){16, 17, 18, 19}, 4);
	t_place(&c, 5, 1, &a[4]); /* best fit skips the held GPU 7: servers 7, 10, 11 tie */
	t_eps(&a[4], (uint32_t[]){14}, 1);
	vclos_release(&c, 3);
	assert_int_equal(c.gpu_owner[7], VCLOS_FREE);
	assert_int_equal(c.srv_free[3], 2);
	for (i = 0; i < 5; i++)
		vclos_alloc_done(&a[i]);
	vclos_done(&c);
}

/* Fills every server with a one-server job (ids 1..), then releases the jobs listed. */
static void t_fill(struct vclos *c, const uint32_t *release, uint32_t n_release)
{
	struct vclos_alloc a;
	uint32_t i;

	for (i = 0; i < c->leaves * c->servers; i++) {
		t_place(c, i + 1, c->gpus, &a);
		assert_int_equal(a.eps[0], i * c->gpus);
		vclos_alloc_done(&a);
	}
	for (i = 0; i < n_release; i++)
		vclos_release(c, release[i]);
}

static void t_spines(const struct vclos_alloc *a, const uint32_t *want, uint32_t s)
{
	assert_int_equal(a->s, s);
	assert_memory_equal(a->spine, want, s * sizeof(*want));
}

static void test_stage2_shapes(void **state)
{
	struct vclos_alloc x, y, z;
	struct vclos c;
	uint32_t sp, i;

	(void)state;
	t_init(&c, 4, 4, 2, 2);
	t_fill(&c, (uint32_t[]){2, 4, 6, 8}, 4); /* one idle server per leaf */
	t_place(&c, 10, 8, &x); /* l = 2, s = 4 needs 2 idle servers a leaf: l = 4, s = 2 */
	assert_int_equal(x.stage, 2);
	assert_int_equal(x.l, 4);
	assert_true(x.exact);
	t_spines(&x, (uint32_t[]){0, 1}, 2);
	t_eps(&x, (uint32_t[]){2, 3, 6, 7, 10, 11, 14, 15}, 8);
	assert_memory_equal(x.leaf, ((uint32_t[]){0, 1, 2, 3}), 4 * sizeof(uint32_t));
	assert_memory_equal(x.uplink, ((uint32_t[]){0, 1, 0, 1, 0, 1, 0, 1}), 8 * sizeof(uint32_t));
	for (i = 0; i < 16; i++)
		assert_int_equal(c.link_owner[i], i % 4 < 2 ? 10 : VCLOS_FREE);
	assert_int_equal(vclos_uplink(&x, 0, 1, &sp), 0);
	assert_int_equal(vclos_uplink(&x, 1, 2, &sp), 1);
	assert_int_equal(sp, 1);
	assert_int_equal(vclos_uplink(&x, 6, 0, &sp), 1);
	assert_int_equal(sp, 0);
	assert_int_equal(vclos_uplink(&x, 8, 0, &sp), -EINVAL);
	assert_int_equal(vclos_place(&c, 11, 4, &y), -EAGAIN);
	vclos_release(&c, 1); /* servers 0 and 2: one idle on leaves 0 and 1 */
	vclos_release(&c, 3);
	t_place(&c, 11, 4, &y); /* l = 2, s = 2 on the only spines with 2 free links */
	assert_int_equal(y.l, 2);
	t_spines(&y, (uint32_t[]){2, 3}, 2);
	t_eps(&y, (uint32_t[]){0, 1, 4, 5}, 4);
	for (i = 0; i < 20; i++)
		vclos_release(&c, i);
	t_place(&c, 12, 8, &z); /* empty: the fewest, fullest leaves, l = 2, s = 4 */
	assert_int_equal(z.l, 2);
	t_spines(&z, (uint32_t[]){0, 1, 2, 3}, 4);
	t_eps(&z, (uint32_t[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
	vclos_alloc_done(&x);
	vclos_alloc_done(&y);
	vclos_alloc_done(&z);
	vclos_done(&c);
}

/* The ILP's objective: leaves with the fewest idle servers, spines with the fewest free
 * links, not the lowest indexes. */
static void test_stage2_objective(void **state)
{
	struct vclos_alloc a;
	struct vclos c;

	(void)state;
	t_init(&c, 4, 2, 4, 1);
	/* idle servers: leaf 0: 3, leaf 1: 2, leaf 2: 3, leaf 3: 2 */
	t_fill(&c, (uint32_t[]){1, 2, 3, 5, 6, 9, 10, 11, 13, 14}, 10);
	t_place(&c, 20, 4, &a); /* no leaf has 4 idle; l = 2, s = 2 */
	assert_int_equal(a.l, 2);
	assert_memory_equal(a.leaf, ((uint32_t[]){1, 3}), 2 * sizeof(uint32_t));
	t_eps(&a, (uint32_t[]){4, 5, 12, 13}, 4);
	vclos_alloc_done(&a);
	vclos_done(&c);

	t_init(&c, 4, 4, 1, 2);
	t_take_link(&c, 2, 3); /* spine 3 has 2 free links, the others 4 */
	t_take_link(&c, 3, 3);
	t_place(&c, 20, 4, &a);
	assert_memory_equal(a.leaf, ((uint32_t[]){0, 1}), 2 * sizeof(uint32_t));
	t_spines(&a, (uint32_t[]){0, 3}, 2);
	assert_memory_equal(a.uplink, ((uint32_t[]){0, 3, 0, 3}), 4 * sizeof(uint32_t));
	vclos_alloc_done(&a);
	vclos_done(&c);

	/* only leaf 3 has all 4 spines free: l = 2 fails on links; spines 2 and 3 reach all */
	t_init(&c, 4, 4, 2, 2);
	t_take_link(&c, 0, 0);
	t_take_link(&c, 1, 1);
	t_take_link(&c, 2, 0);
	t_place(&c, 20, 8, &a);
	assert_int_equal(a.l, 4);
	t_spines(&a, (uint32_t[]){2, 3}, 2);
	t_eps(&a, (uint32_t[]){0, 1, 4, 5, 8, 9, 12, 13}, 8);
	vclos_alloc_done(&a);
	vclos_done(&c);
}

/* The paper's testbed layouts (vClos §8.1, Table 4's cluster): (A) L=4 leaves of 2 servers x 4
 * GPUs, S=8; (B) L=8 leaves of 1 server x 4 GPUs, S=4; job sizes 2, 4, 8, 16. */
static void test_testbed_layouts(void **state)
{
	struct vclos_alloc a[4];
	struct vclos c;
	uint32_t i;

	(void)state;
	t_init(&c, 4, 8, 2, 4);
	t_place(&c, 1, 16, &a[0]); /* 4 servers: 2 leaves x 8 GPUs, 8 spines */
	assert_int_equal(a[0].l, 2);
	assert_int_equal(a[0].s, 8);
	t_place(&c, 2, 8, &a[1]); /* one leaf (stage 1) */
	assert_int_equal(a[1].stage, 1);
	assert_int_equal(a[1].leaf[0], 2);
	t_place(&c, 3, 2, &a[2]);
	t_place(&c, 4, 4, &a[3]); /* best fit: server 7, not server 6 with 2 left */
	assert_int_equal(a[3].eps[0], 28);
	for (i = 0; i < 4; i++)
		vclos_alloc_done(&a[i]);
	vclos_done(&c);

	t_init(&c, 8, 4, 1, 4);
	t_place(&c, 1, 16, &a[0]);
	assert_int_equal(a[0].l, 4);
	assert_int_equal(a[0].s, 4);
	t_place(&c, 2, 8, &a[1]);
	assert_int_equal(a[1].l, 2);
	assert_memory_equal(a[1].leaf, ((uint32_t[]){4, 5}), 2 * sizeof(uint32_t));
	t_spines(&a[1], (uint32_t[]){0, 1, 2, 3}, 4);
	vclos_alloc_done(&a[0]);
	vclos_alloc_done(&a[1]);
	vclos_done(&c);
}

static void test_errors(void **state)
{
	struct vclos_alloc a, b;
	struct diag d = {0};
	struct vclos c;

	(void)state;
	assert_int_equal(vclos_init(&c, 0, 4, 2, 2), -EINVAL);
	vclos_done(&c);
	t_init(&c, 4, 4, 2, 2);
	assert_int_equal(vclos_place(&c, 1, 17, &a), -EINVAL);
	assert_int_equal(vclos_place(&c, 1, 0, &a), -EINVAL);
	assert_int_equal(vclos_place(&c, VCLOS_FREE, 1, &a), -EINVAL);
	assert_int_equal(vclos_size_check(&c, 17, &d), -EINVAL);
	assert_string_equal(d.msg, "17 GPUs: the cluster has 16");
	diag_clear(&d);
	/* 5 = 5 x 1 only; s must be a multiple of T = 2 */
	assert_int_equal(vclos_place(&c, 1, 5, &a), -EINVAL);
	assert_int_equal(vclos_size_check(&c, 5, &d), -EINVAL);
	assert_string_equal(d.msg, "5 GPUs: more than one leaf's 2 servers of 2, and not l x s "
				   "with 2 <= l <= 4 leaves of s GPUs, s a multiple of 2 and at "
				   "most 4 (vClos §6); the next size that fits is 6");
	assert_int_equal(vclos_size_check(&c, 3, NULL), 0); /* 2 servers of one leaf */
	assert_int_equal(vclos_size_round(&c, 5), 6);
	assert_int_equal(vclos_size_round(&c, 7), 8);
	assert_int_equal(vclos_size_round(&c, 9), 12); /* 10 = 5 x 2 needs 5 leaves */
	assert_int_equal(vclos_size_round(&c, 16), 16);
	assert_int_equal(vclos_size_round(&c, 17), 0);
	assert_int_equal(vclos_size_round(&c, 0), 0);
	t_place(&c, 1, 16, &a);
	assert_int_equal(vclos_place(&c, 1, 1, &b), -EEXIST);
	assert_int_equal(vclos_place(&c, 2, 1, &b), -EAGAIN);
	vclos_release(&c, 1);
	vclos_release(&c, 1); /* nothing left: no-op */
	t_place(&c, 2, 6, &b); /* 6 = 3 leaves x 2 */
	assert_int_equal(b.l, 3);
	vclos_alloc_done(&a);
	vclos_alloc_done(&b);
	vclos_alloc_done(NULL);
	vclos_done(&c);

	t_init(&c, 4, 2, 4, 1); /* s <= S = 2: at most 8 GPUs over leaves */
	assert_int_equal(vclos_size_round(&c, 9), 0);
	diag_clear(&d);
	assert_int_equal(vclos_size_check(&c, 16, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "no larger size fits, up to 16"));
	vclos_done(&c);
}

static void test_link_load(void **state)
{
	struct vclos c;
	struct vclos_flow f[3] = {{0, 4, 0}, {1, 5, 0}, {2, 3, 7}};

	(void)state;
	t_init(&c, 3, 2, 1, 4); /* leaf 0: endpoints 0-3, leaf 1: 4-7, leaf 2: 8-11 */
	assert_int_equal(vclos_link_load_max(&c, f, 0), 0);
	assert_int_equal(vclos_link_load_max(&c, f + 2, 1), 0); /* same leaf: spine unread */
	assert_int_equal(vclos_link_load_max(&c, f, 3), 2); /* both up leaf 0 -> spine 0 */
	f[1].spine = 1;
	assert_int_equal(vclos_link_load_max(&c, f, 3), 1);
	f[1] = (struct vclos_flow){5, 0, 0}; /* the other direction: other links */
	assert_int_equal(vclos_link_load_max(&c, f, 2), 1);
	f[1] = (struct vclos_flow){8, 5, 0}; /* up from another leaf, down spine 0 -> leaf 1 */
	assert_int_equal(vclos_link_load_max(&c, f, 2), 2);
	f[2] = (struct vclos_flow){0, 8, 2};
	assert_int_equal(vclos_link_load_max(&c, f, 3), -EINVAL);
	f[2] = (struct vclos_flow){12, 0, 0};
	assert_int_equal(vclos_link_load_max(&c, f, 3), -EINVAL);
	vclos_done(&c);
}

/* Brute force over the state before a placement: idle servers per leaf, free links per
 * spine and per leaf (bit m: spine m). */
struct t_pre {
	uint32_t rsn[T_MAXL], rpn[T_MAXL], freemask[T_MAXL];
};

static void t_pre_read(const struct vclos *c, struct t_pre *p)
{
	uint32_t n, m, r;

	memset(p, 0, sizeof(*p));
	for (n = 0; n < c->leaves; n++) {
		for (r = 0; r < c->servers; r++)
			p->rsn[n] += c->srv_free[n * c->servers + r] == c->gpus;
		for (m = 0; m < c->spines; m++) {
			if (c->link_owner[n * c->spines + m] == VCLOS_FREE) {
				p->freemask[n] |= 1u << m;
				p->rpn[m]++;
			}
		}
	}
}

/* The sum of the k smallest RPN among the spines in mask (k <= popcount). */
static uint64_t t_cheapest(const struct t_pre *p, uint32_t mask, uint32_t k)
{
	uint32_t v[T_MAXL], n = 0, i, j, x;
	uint64_t sum = 0;

	for (i = 0; i < T_MAXL; i++) {
		if (mask >> i & 1)
			v[n++] = p->rpn[i];
	}
	for (i = 1; i < n; i++) {
		for (x = v[i], j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	for (i = 0; i < k; i++)
		sum += v[i];
	return sum;
}

/* The ILP's optimum for shape (l, s): every l-set of leaves with s/T idle servers each, the
 * s cheapest spines they all reach; or, with all_spines, every s-set of spines too. */
static uint64_t t_brute_shape(const struct vclos *c, const struct t_pre *p, uint32_t l, uint32_t s,
			      bool all_spines)
{
	uint32_t set, sp, n, inter, leafcost;
	uint64_t best = UINT64_MAX, cost;

	for (set = 0; set < 1u << c->leaves; set++) {
		if ((uint32_t)__builtin_popcount(set) != l)
			continue;
		inter = (1u << c->spines) - 1;
		leafcost = 0;
		for (n = 0; n < c->leaves; n++) {
			if (!(set >> n & 1))
				continue;
			inter &= p->rsn[n] * c->gpus >= s ? p->freemask[n] : 0;
			leafcost += p->rsn[n];
		}
		if ((uint32_t)__builtin_popcount(inter) < s)
			continue;
		for (sp = 0; sp < 1u << c->spines; sp++) {
			if (!all_spines && sp)
				break;
			if (all_spines &&
			    ((sp & inter) != sp || (uint32_t)__builtin_popcount(sp) != s))
				continue;
			cost = (uint64_t)leafcost * c->gpus +
			       t_cheapest(p, all_spines ? sp : inter, s);
			best = cost < best ? cost : best;
		}
	}
	return best;
}

static bool t_shape_ok(const struct vclos *c, uint32_t n, uint32_t l)
{
	uint32_t s = n / l;

	return n % l == 0 && s % c->gpus == 0 && s <= c->spines && s <= c->servers * c->gpus;
}

/* Whether n GPUs fit the empty cluster: one server, one leaf, or some shape. */
static bool t_size_ok(const struct vclos *c, uint32_t n)
{
	uint32_t l;

	if (n > c->leaves * c->servers * c->gpus)
		return false;
	if (n <= c->gpus || (n + c->gpus - 1) / c->gpus <= c->servers)
		return true;
	for (l = 2; l <= c->leaves; l++) {
		if (t_shape_ok(c, n, l))
			return true;
	}
	return false;
}

/* Algorithm 3 by brute force: the first l with a solution, and its optimum; l = 0 if none. */
static uint64_t t_brute_stage2(const struct vclos *c, const struct t_pre *p, uint32_t n,
			       bool all_spines, uint32_t *l_out)
{
	uint64_t cost;
	uint32_t l;

	for (l = 2; l <= c->leaves; l++) {
		if (!t_shape_ok(c, n, l))
			continue;
		cost = t_brute_shape(c, p, l, n / l, all_spines);
		if (cost != UINT64_MAX) {
			*l_out = l;
			return cost;
		}
	}
	*l_out = 0;
	return UINT64_MAX;
}

static uint64_t t_alloc_cost(const struct vclos *c, const struct t_pre *p,
			     const struct vclos_alloc *a)
{
	uint64_t cost = 0;
	uint32_t i;

	for (i = 0; i < a->l; i++)
		cost += (uint64_t)p->rsn[a->leaf[i]] * c->gpus;
	for (i = 0; i < a->s; i++)
		cost += p->rpn[a->spine[i]];
	return cost;
}

/* Random states (servers and links taken by hand) on L = S = 6, R = 3, T = 2: the search,
 * exhaustive and with the default budget, finds Algorithm 3's shape and the ILP's optimum
 * over all leaf and spine sets; a budget of one node says it was cut. */
static void test_search_brute(void **state)
{
	static const uint32_t sizes[] = {8, 12, 16, 18, 24, 36};
	uint64_t rng = 7, want, got;
	uint32_t iter, i, n, l, cut = 0;
	struct vclos_alloc a;
	struct t_pre p;
	struct vclos c;
	int err;

	(void)state;
	for (iter = 0; iter < 3000; iter++) {
		t_init(&c, 6, 6, 3, 2);
		c.search_nodes = iter % 3 == 0 ? 0 : iter % 3 == 1 ? VCLOS_SEARCH_NODES : 1;
		for (i = 0; i < 36; i++) {
			if (rng_next(&rng) % 4 == 0)
				t_take_gpu(&c, i);
			if (rng_next(&rng) % 4 == 0)
				t_take_link(&c, i / 6, i % 6);
		}
		n = sizes[rng_next(&rng) % 6];
		t_pre_read(&c, &p);
		want = t_brute_stage2(&c, &p, n, true, &l);
		err = vclos_place(&c, 1, n, &a);
		if (c.search_nodes == 1) {
			/* at least the greedy choice, never a shape that cannot be */
			cut += !err && !a.exact;
			assert_true(err == -EAGAIN || (l && a.l >= l));
			if (!err && a.l == l)
				assert_true(t_alloc_cost(&c, &p, &a) >= want);
		} else if (l) {
			assert_int_equal(err, 0);
			assert_true(a.exact);
			assert_int_equal(a.l, l);
			got = t_alloc_cost(&c, &p, &a);
			assert_int_equal(got, want);
			assert_int_equal(t_brute_stage2(&c, &p, n, false, &l), want);
		} else {
			assert_int_equal(err, -EAGAIN);
		}
		vclos_alloc_done(&a);
		vclos_done(&c);
	}
	assert_true(cut > 0);
}

static const enum coll_algo t_algos[] = {COLL_RING, COLL_HD, COLL_PAIRWISE};
#define T_N_ALGOS 3
#define T_MAX_LOG 7 /* ranks up to 64 */

struct t_job {
	bool running;
	struct vclos_alloc a;
};

struct t_mix {
	struct vclos c;
	struct t_job jobs[T_MAX_JOBS];
	struct t_pat pats[T_N_ALGOS][T_MAX_LOG + 1];
	struct vclos_flow *flows;
	uint64_t hash;
	uint32_t placed[3];
};

static const struct t_pat *t_pat_get(struct t_mix *m, uint32_t algo, uint32_t n)
{
	uint32_t k = (uint32_t)__builtin_ctz(n);

	assert_true(k <= T_MAX_LOG && n == 1u << k);
	if (!m->pats[algo][k].dst)
		t_pat_build(&m->pats[algo][k], t_algos[algo], n);
	return &m->pats[algo][k];
}

/* One job's flows of distinct phase p, routed by vclos_uplink; every cross-leaf flow runs
 * on the job's own links. */
static uint32_t t_job_flows(struct t_mix *m, const struct t_job *j, const struct t_pat *pt,
			    uint32_t p, struct vclos_flow *f)
{
	uint32_t per = m->c.servers * m->c.gpus, S = m->c.spines, r, d, sp, k = 0;
	const struct vclos_alloc *a = &j->a;
	int rc;

	for (r = 0; r < pt->n; r++) {
		d = pt->dst[p * pt->n + r];
		if (d == T_PAT_NONE)
			continue;
		rc = vclos_uplink(a, r, d, &sp);
		assert_true(rc == 0 || rc == 1);
		if (rc) {
			assert_int_equal(m->c.link_owner[a->eps[r] / per * S + sp], a->job);
			assert_int_equal(m->c.link_owner[a->eps[d] / per * S + sp], a->job);
		} else {
			assert_int_equal(a->eps[r] / per, a->eps[d] / per);
		}
		f[k++] = (struct vclos_flow){a->eps[r], a->eps[d], rc ? sp : VCLOS_NONE};
	}
	return k;
}

/* Lemma 5.1 and isolation: for each collective, phase p of every running job at once loads
 * no directed leaf-spine link twice. */
static void t_check_traffic(struct t_mix *m)
{
	const struct t_pat *pt;
	uint32_t algo, p, np, k, j;
	bool more;

	for (algo = 0; algo < T_N_ALGOS; algo++) {
		for (p = 0, more = true; more; p++) {
			more = false;
			for (j = 0, k = 0; j < T_MAX_JOBS; j++) {
				if (!m->jobs[j].running || m->jobs[j].a.n < 2)
					continue;
				pt = t_pat_get(m, algo, m->jobs[j].a.n);
				np = pt->np;
				if (p < np)
					k += t_job_flows(m, &m->jobs[j], pt, p, m->flows + k);
				more = more || p + 1 < np;
			}
			assert_in_range(vclos_link_load_max(&m->c, m->flows, k), 0, 1);
		}
	}
}

/* Ownership from the running jobs' allocations alone: whole servers for stages 1 and 2,
 * l x s links for stage 2; no two jobs share anything, and the cluster agrees. */
static void t_check_owners(const struct t_mix *m, uint32_t *gpu, uint32_t *link)
{
	const struct vclos *c = &m->c;
	const struct vclos_alloc *a;
	uint32_t n_ep = c->leaves * c->servers * c->gpus, j, i, g, ep, x, y;

	memset(gpu, 0xff, n_ep * sizeof(*gpu));
	memset(link, 0xff, c->leaves * c->spines * sizeof(*link));
	for (j = 0; j < T_MAX_JOBS; j++) {
		if (!m->jobs[j].running)
			continue;
		a = &m->jobs[j].a;
		for (i = 0; i < a->n; i++) {
			for (g = 0; g < (a->stage ? c->gpus : 1); g++) {
				ep = a->stage ? a->eps[i] / c->gpus * c->gpus + g : a->eps[i];
				assert_true(gpu[ep] == VCLOS_FREE || gpu[ep] == a->job);
				gpu[ep] = a->job;
			}
		}
		for (x = 0; x < (a->stage == 2 ? a->l : 0); x++) {
			for (y = 0; y < a->s; y++) {
				i = a->leaf[x] * c->spines + a->spine[y];
				assert_int_equal(link[i], VCLOS_FREE);
				link[i] = a->job;
			}
		}
	}
	assert_memory_equal(gpu, c->gpu_owner, n_ep * sizeof(*gpu));
	assert_memory_equal(link, c->link_owner, c->leaves * c->spines * sizeof(*link));
	for (i = 0; i < c->leaves * c->servers; i++) {
		for (g = 0, x = 0; g < c->gpus; g++)
			x += gpu[i * c->gpus + g] == VCLOS_FREE;
		assert_int_equal(c->srv_free[i], x);
	}
}

/* What Algorithm 1 should have chosen, from the state before: stage 0's best-fit server,
 * stage 1's leaf, stage 2's shape and optimum; or that nothing fits when it returned
 * -EAGAIN. */
static void t_check_choice(const struct vclos *c, const uint32_t *srv_free, const struct t_pre *p,
			   uint32_t n, int err, const struct vclos_alloc *a)
{
	uint32_t i, best = T_NONE, need = (n + c->gpus - 1) / c->gpus, l;
	uint64_t want;

	if (n <= c->gpus) {
		for (i = 0; i < c->leaves * c->servers; i++) {
			if (srv_free[i] >= n && (best == T_NONE || srv_free[i] < srv_free[best]))
				best = i;
		}
		assert_int_equal(err, best == T_NONE ? -EAGAIN : 0);
		if (!err)
			assert_int_equal(a->eps[0] / c->gpus, best);
		return;
	}
	for (i = 0; i < c->leaves && need <= c->servers; i++) {
		if (p->rsn[i] >= need && (best == T_NONE || p->rsn[i] < p->rsn[best]))
			best = i;
	}
	if (best != T_NONE) {
		assert_int_equal(err, 0);
		assert_int_equal(a->stage, 1);
		assert_int_equal(a->leaf[0], best);
		return;
	}
	want = t_brute_stage2(c, p, n, false, &l);
	assert_int_equal(err, l ? 0 : -EAGAIN);
	if (l) {
		assert_int_equal(a->stage, 2);
		assert_int_equal(a->l, l);
		assert_true(a->exact);
		assert_int_equal(t_alloc_cost(c, p, a), want);
	}
}

/* The placement's own shape: ascending endpoints, in one server, one leaf or s per virtual
 * leaf with rank j of each going up to spine j; and none of it held before. */
static void t_check_alloc(const struct vclos *c, const uint32_t *gpu_before,
			  const struct vclos_alloc *a)
{
	uint32_t per = c->servers * c->gpus, i;

	for (i = 0; i < a->n; i++) {
		assert_int_equal(gpu_before[a->eps[i]], VCLOS_FREE);
		if (i)
			assert_true(a->eps[i - 1] < a->eps[i]);
		if (a->stage == 0)
			assert_int_equal(a->eps[i] / c->gpus, a->eps[0] / c->gpus);
		if (a->stage == 1)
			assert_int_equal(a->eps[i] / per, a->leaf[0]);
		if (a->stage == 2) {
			assert_int_equal(a->eps[i] / per, a->leaf[i / a->s]);
			assert_int_equal(a->uplink[i], a->spine[i % a->s]);
		} else {
			assert_int_equal(a->uplink[i], VCLOS_NONE);
		}
	}
	assert_int_equal(a->stage == 0, a->n <= c->gpus);
	if (a->stage == 2)
		assert_int_equal(a->l * a->s, a->n);
}

static uint64_t t_hash(uint64_t h, const uint32_t *v, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ v[i]) * 0x100000001b3ULL;
	return h;
}

static void t_arrive(struct t_mix *m, uint32_t job, uint32_t n, uint32_t *gpu)
{
	struct vclos_alloc *a = &m->jobs[job].a;
	uint32_t n_ep = m->c.leaves * m->c.servers * m->c.gpus, srv[T_MAXL * 64];
	struct t_pre p;
	int err;

	t_pre_read(&m->c, &p);
	memcpy(srv, m->c.srv_free, m->c.leaves * m->c.servers * sizeof(*srv));
	memcpy(gpu, m->c.gpu_owner, n_ep * sizeof(*gpu));
	err = vclos_place(&m->c, job, n, a);
	m->hash = t_hash(m->hash, (uint32_t[]){(uint32_t)err, n}, 2);
	if (!t_size_ok(&m->c, n)) {
		assert_int_equal(err, -EINVAL);
		return;
	}
	t_check_choice(&m->c, srv, &p, n, err, a);
	if (err)
		return;
	t_check_alloc(&m->c, gpu, a);
	m->jobs[job].running = true;
	m->placed[a->stage]++;
	m->hash = t_hash(m->hash, a->eps, a->n);
	m->hash = t_hash(m->hash, a->spine, a->s);
}

static void t_depart(struct t_mix *m, uint32_t job)
{
	vclos_release(&m->c, job);
	vclos_alloc_done(&m->jobs[job].a);
	m->jobs[job].running = false;
}

/* One random mix of arrivals (sizes 1, 2, 4, ... up to twice the cluster) and departures. */
static void t_mix_run(struct t_mix *m, uint64_t seed, uint32_t events, uint32_t *gpu,
		      uint32_t *link)
{
	uint32_t n_ep = m->c.leaves * m->c.servers * m->c.gpus, lg = 0, e, j;
	uint64_t rng = seed;

	while (2u << lg <= n_ep)
		lg++;
	for (e = 0; e < events; e++) {
		j = (uint32_t)(rng_next(&rng) % T_MAX_JOBS);
		if (m->jobs[j].running)
			t_depart(m, j);
		else
			t_arrive(m, j, 1u << rng_next(&rng) % (lg + 2), gpu);
		t_check_owners(m, gpu, link);
		t_check_traffic(m);
	}
	for (j = 0; j < T_MAX_JOBS; j++) {
		if (m->jobs[j].running)
			t_depart(m, j);
	}
}

static void t_mix_free(struct t_mix *m)
{
	uint32_t a, k;

	for (a = 0; a < T_N_ALGOS; a++) {
		for (k = 0; k <= T_MAX_LOG; k++)
			free(m->pats[a][k].dst);
	}
	free(m->flows);
	vclos_done(&m->c);
}

struct t_shape {
	uint32_t l, s, r, t;
};

static const struct t_shape t_shapes[] = {
	{4, 4, 2, 2},
	{8, 8, 4, 2},
	{4, 4, 1, 4},
	{8, 4, 2, 4},
};
#define T_N_SHAPES (sizeof(t_shapes) / sizeof(t_shapes[0]))
#define T_MIXES 1000
#define T_EVENTS 40

static uint64_t t_mixes(const struct t_shape *sh, uint64_t seed, uint32_t mixes, uint32_t placed[3])
{
	static uint32_t gpu[4096], link[4096];
	struct t_mix *m = calloc(1, sizeof(*m));
	uint32_t i, n_ep;
	uint64_t h;

	assert_non_null(m);
	t_init(&m->c, sh->l, sh->s, sh->r, sh->t);
	n_ep = sh->l * sh->r * sh->t;
	m->flows = calloc((size_t)T_MAX_JOBS * n_ep, sizeof(*m->flows));
	assert_non_null(m->flows);
	m->hash = 0xcbf29ce484222325ULL;
	for (i = 0; i < mixes; i++)
		t_mix_run(m, seed + i, T_EVENTS, gpu, link);
	memcpy(placed, m->placed, sizeof(m->placed));
	h = m->hash;
	t_mix_free(m);
	free(m);
	return h;
}

static void test_random_mixes(void **state)
{
	uint32_t s, placed[3];

	(void)state;
	for (s = 0; s < T_N_SHAPES; s++) {
		t_mixes(&t_shapes[s], 1000 * s, T_MIXES, placed);
		/* every stage ran (shape 3 has R = 1: no stage 1) */
		assert_true(placed[0] > 0 && placed[2] > 0);
		assert_true(placed[1] > 0 || t_shapes[s].r == 1);
		printf("vclos mixes %ux%u R=%u T=%u: placed %u/%u/%u (stages 0/1/2)\n",
		       t_shapes[s].l, t_shapes[s].s, t_shapes[s].r, t_shapes[s].t, placed[0],
		       placed[1], placed[2]);
	}
}

static void test_deterministic(void **state)
{
	uint32_t placed[3];
	uint64_t a, b, c;

	(void)state;
	a = t_mixes(&t_shapes[1], 42, 20, placed);
	b = t_mixes(&t_shapes[1], 42, 20, placed);
	c = t_mixes(&t_shapes[1], 43, 20, placed);
	assert_true(a == b);
	assert_true(a != c);
}

/* The baselines' placement: stages 0 and 1 as vClos; a job larger than any leaf's idle
 * servers takes the fullest leaves' idle servers (ties: lowest), ranks leaf-major, no links;
 * -EAGAIN only when the idle servers are too few. */
static void test_spread(void **state)
{
	struct vclos c;
	struct vclos_alloc a;
	uint32_t i, links = 0;

	(void)state;
	t_init(&c, 4, 8, 2, 4); /* 4 leaves of 2 servers x 4 GPUs */
	assert_int_equal(vclos_place_spread(&c, 0, 4, &a), 0); /* one server: leaf 0's */
	assert_int_equal(a.stage, 0);
	vclos_alloc_done(&a);
	assert_int_equal(vclos_place_spread(&c, 1, 8, &a), 0); /* one leaf: the fullest fit */
	assert_int_equal(a.stage, 1);
	assert_int_equal(a.eps[0] / 8, 1);
	vclos_alloc_done(&a);
	/* idle: leaf 0 one server, leaves 2 and 3 two: 12 GPUs take leaf 2's two, leaf 3's one */
	assert_int_equal(vclos_place_spread(&c, 2, 12, &a), 0);
	assert_int_equal(a.stage, 3);
	assert_int_equal(a.l, 2);
	assert_true(a.leaf[0] == 2 && a.leaf[1] == 3);
	for (i = 0; i < 12; i++)
		assert_int_equal(a.eps[i], 16 + i);
	vclos_alloc_done(&a);
	for (i = 0; i < 4 * 8; i++)
		links += c.link_owner[i] != VCLOS_FREE;
	assert_int_equal(links, 0);
	assert_int_equal(vclos_place_spread(&c, 3, 12, &a), -EAGAIN); /* 2 idle servers left */
	assert_int_equal(vclos_place_spread(&c, 3, 8, &a), 0); /* leaf 0's and leaf 3's */
	assert_true(a.eps[0] == 4 && a.eps[4] == 28);
	vclos_alloc_done(&a);
	vclos_done(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stage0_best_fit), cmocka_unit_test(test_stage1_fewest_idle),
		cmocka_unit_test(test_stage2_shapes),	cmocka_unit_test(test_stage2_objective),
		cmocka_unit_test(test_testbed_layouts), cmocka_unit_test(test_errors),
		cmocka_unit_test(test_link_load),	cmocka_unit_test(test_search_brute),
		cmocka_unit_test(test_random_mixes),	cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_spread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
