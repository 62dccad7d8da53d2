// SPDX-License-Identifier: MIT
/* Collective schedules: every algorithm over 1..17 ranks (and more shapes) runs through the
 * prover (traffic/coll_prove.c); volumes, dependency shapes, rejections, names, factors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/coll_sim.h"
#include "traffic/coll.h"
#include "traffic/coll_build.h"

#define T_MAX_N 17

struct t_size {
	uint64_t bytes;
	uint32_t elem;
};

/* Not multiples of N, one element, fewer elements than ranks, nothing, other element sizes. */
static const struct t_size t_sizes[] = {
	{1003 * 4, 4}, {4, 4}, {3 * 4, 4}, {0, 4}, {517 * 8, 8}, {1001, 1},
};
#define T_N_SIZES (sizeof(t_sizes) / sizeof(t_sizes[0]))

static struct coll_params t_params(enum coll_kind k, enum coll_algo a, uint32_t n, struct t_size sz,
				   uint32_t group)
{
	return (struct coll_params){
		.kind = k,
		.algo = a,
		.nranks = n,
		.bytes = sz.bytes,
		.elem = sz.elem,
		.group = group,
	};
}

/* Builds p and runs it through the simulator; fails the test with the first problem. */
static void t_build_sim(const struct coll_params *p, struct coll_sched *s)
{
	struct diag d = {0};
	char msg[512];
	int err = coll_sched_build(p, s, &d);

	if (err)
		fail_msg("%s %s n=%u bytes=%llu elem=%u group=%u: build %d: %s",
			 coll_algo_name(p->algo), coll_kind_name(p->kind), p->nranks,
			 (unsigned long long)p->bytes, p->elem, p->group, err, d.msg);
	if (t_sim_run(s, msg, sizeof(msg)))
		fail_msg("%s %s n=%u bytes=%llu elem=%u group=%u: %s", coll_algo_name(p->algo),
			 coll_kind_name(p->kind), p->nranks, (unsigned long long)p->bytes, p->elem,
			 p->group, msg);
}

static uint64_t t_chunk(uint64_t bytes, uint32_t elem, uint32_t n, uint32_t c)
{
	return coll_chunk_off(bytes, elem, n, c + 1) - coll_chunk_off(bytes, elem, n, c);
}

static const struct coll_step *t_steps(const struct coll_sched *s, uint32_t r)
{
	return &s->steps.v[s->ranks.v[r].step_off];
}

static const uint32_t *t_deps(const struct coll_sched *s, const struct coll_step *st)
{
	return &s->deps.v[st->dep_off];
}

/* Ring all-reduce: rank i sends every chunk but i, then every chunk but i+1. */
static uint64_t t_ring_ar_bytes(uint64_t m, uint32_t elem, uint32_t n, uint32_t i)
{
	if (n < 2)
		return 0;
	return 2 * m - t_chunk(m, elem, n, i) - t_chunk(m, elem, n, (i + 1) % n);
}

static void t_check_near(uint64_t got, double want, uint32_t elem, double slack)
{
	double diff = (double)got - want;

	if (diff < -slack * elem || diff > slack * elem)
		fail_msg("sent %llu bytes, expected %.1f within %.0f elements",
			 (unsigned long long)got, want, slack);
}

static void t_ring_ar_one(uint32_t n, struct t_size sz)
{
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_RING, n, sz, 0);
	struct coll_sched s;
	uint32_t r;

	t_build_sim(&p, &s);
	for (r = 0; r < n; r++) {
		uint64_t got = coll_sched_bytes_sent(&s, r);

		assert_int_equal(got, t_ring_ar_bytes(sz.bytes, sz.elem, n, r));
		t_check_near(got, 2.0 * (n - 1) / n * (double)sz.bytes, sz.elem, 2);
	}
	coll_sched_done(&s);
}

static void test_ring_allreduce(void **state)
{
	uint32_t n, z;

	(void)state;
	for (n = 1; n <= T_MAX_N; n++)
		for (z = 0; z < T_N_SIZES; z++)
			t_ring_ar_one(n, t_sizes[z]);
	t_ring_ar_one(32, t_sizes[0]);
}

/* With every chunk non-empty: 2(N-1) rounds to rank+1 from rank-1, receives never wait,
 * a send waits only for the receive of the chunk it forwards. */
static void test_ring_shape(void **state)
{
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_RING, 7, t_sizes[0], 0);
	const struct coll_step *st;
	struct coll_sched s;
	uint32_t r, i;

	(void)state;
	t_build_sim(&p, &s);
	for (r = 0; r < 7; r++) {
		assert_int_equal(s.ranks.v[r].step_n, 2 * 2 * 6);
		st = t_steps(&s, r);
		for (i = 0; i < s.ranks.v[r].step_n; i++) {
			assert_int_equal(st[i].phase, i / 2);
			if (st[i].op == COLL_RECV) {
				assert_int_equal(st[i].peer, (r + 6) % 7);
				assert_int_equal(st[i].dep_n, 0);
				continue;
			}
			assert_int_equal(st[i].peer, (r + 1) % 7);
			assert_int_equal(st[i].dep_n, i ? 1 : 0);
			if (i)
				assert_int_equal(t_deps(&s, &st[i])[0], i - 1);
		}
	}
	coll_sched_done(&s);
}

static void t_ring_half_one(enum coll_kind k, uint32_t n, struct t_size sz)
{
	struct coll_params p = t_params(k, COLL_RING, n, sz, 0);
	struct coll_sched s;
	uint32_t r, skip;

	t_build_sim(&p, &s);
	for (r = 0; r < n; r++) {
		/* all-gather never sends chunk r+1, reduce-scatter never chunk r */
		skip = k == COLL_ALLGATHER ? (r + 1) % n : r;
		assert_int_equal(coll_sched_bytes_sent(&s, r),
				 n < 2 ? 0 : sz.bytes - t_chunk(sz.bytes, sz.elem, n, skip));
		t_check_near(coll_sched_bytes_sent(&s, r), (double)(n - 1) / n * (double)sz.bytes,
			     sz.elem, 1);
	}
	coll_sched_done(&s);
}

static void test_ring_allgather_reducescatter(void **state)
{
	uint32_t n, z;

	(void)state;
	for (n = 1; n <= T_MAX_N; n++) {
		for (z = 0; z < T_N_SIZES; z++) {
			t_ring_half_one(COLL_ALLGATHER, n, t_sizes[z]);
			t_ring_half_one(COLL_REDUCESCATTER, n, t_sizes[z]);
		}
	}
}

/* Core rank r of p = 2^k: the reduce-scatter sends all but its final chunk, the all-gather
 * what it holds after each halving; a pair with an extra adds M. */
static uint64_t t_hd_bytes(uint32_t n, struct t_size sz, uint32_t r)
{
	uint32_t p = 1, k = 0, lo = 0, hi, t, mid;
	uint64_t sum = 0;

	while (p * 2 <= n) {
		p *= 2;
		k++;
	}
	if (r >= p)
		return sz.bytes;
	hi = p;
	for (t = 0; t < k; t++) {
		mid = (lo + hi) / 2;
		if (r & (1u << t))
			lo = mid;
		else
			hi = mid;
		sum += coll_chunk_off(sz.bytes, sz.elem, p, hi) -
		       coll_chunk_off(sz.bytes, sz.elem, p, lo);
	}
	sum += sz.bytes - t_chunk(sz.bytes, sz.elem, p, lo);
	return sum + (r < n - p ? sz.bytes : 0);
}

static void t_hd_one(uint32_t n, struct t_size sz)
{
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_HD, n, sz, 0);
	struct coll_sched s;
	uint32_t r;

	t_build_sim(&p, &s);
	for (r = 0; r < n; r++) {
		assert_int_equal(coll_sched_bytes_sent(&s, r), t_hd_bytes(n, sz, r));
		/* power of two: 2(N-1)/N M, exact when N elements divide M; else the all-gather
		 * sends ranges of whole chunks, each off by less than one element per chunk
		 * (sum over halvings < N elements) */
		if (!(n & (n - 1)))
			t_check_near(coll_sched_bytes_sent(&s, r),
				     2.0 * (n - 1) / n * (double)sz.bytes, sz.elem,
				     sz.bytes % (n * sz.elem) ? n : 0);
	}
	coll_sched_done(&s);
}

static void test_hd(void **state)
{
	static const uint32_t more[] = {24, 31, 32, 33};
	uint32_t n, z;

	(void)state;
	for (n = 1; n <= T_MAX_N; n++)
		for (z = 0; z < T_N_SIZES; z++)
			t_hd_one(n, t_sizes[z]);
	for (n = 0; n < sizeof(more) / sizeof(more[0]); n++)
		t_hd_one(more[n], t_sizes[0]);
	t_hd_one(16, (struct t_size){16 * 250 * 4, 4});
}

/* N = 6: core 0..3, rank 4 pairs with 0 and rank 5 with 1; XOR partners 1 then 2. */
static void test_hd_shape(void **state)
{
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_HD, 6, t_sizes[0], 0);
	const struct coll_step *st;
	struct coll_sched s;

	(void)state;
	t_build_sim(&p, &s);
	st = t_steps(&s, 4);
	assert_int_equal(s.ranks.v[4].step_n, 2);
	assert_true(st[0].op == COLL_SEND && st[0].peer == 0 && st[0].len == p.bytes);
	assert_true(st[1].op == COLL_RECV && st[1].flags == COLL_F_COPY && st[1].peer == 0);
	assert_int_equal(st[1].phase, 5);
	st = t_steps(&s, 1);
	assert_int_equal(s.ranks.v[1].step_n, 1 + 4 + 4 + 1);
	assert_true(st[0].op == COLL_RECV && st[0].peer == 5 && st[0].flags == COLL_F_REDUCE);
	assert_int_equal(st[1].peer, 0); /* reduce-scatter: distance 1 ... */
	assert_int_equal(st[1].len, coll_chunk_off(p.bytes, 4, 4, 2)); /* 251 + 251 of 1003 */
	assert_int_equal(st[3].peer, 3); /* ... then 2 */
	assert_int_equal(st[5].peer, 3); /* all-gather: distance 2 first */
	assert_int_equal(st[7].peer, 0);
	assert_int_equal(st[3].dep_n, 2); /* pre-step and the first halving */
	assert_int_equal(st[4].dep_n, 0);
	assert_true(st[9].op == COLL_SEND && st[9].peer == 5 && st[9].dep_n == 5);
	coll_sched_done(&s);
}

static void t_a2a_one(uint32_t n, uint64_t per_block, uint32_t elem)
{
	struct t_size sz = {(uint64_t)n * per_block * elem, elem};
	struct coll_params p = t_params(COLL_ALLTOALL, COLL_PAIRWISE, n, sz, 0);
	const struct coll_step *st;
	struct coll_sched s;
	uint32_t r, i;

	t_build_sim(&p, &s);
	for (r = 0; r < n; r++) {
		assert_int_equal(coll_sched_bytes_sent(&s, r), (n - 1) * per_block * elem);
		st = t_steps(&s, r);
		for (i = 0; per_block && i < s.ranks.v[r].step_n; i++) {
			/* round t: to r+t+1, from r-t-1, after both steps of round t-1 */
			assert_int_equal(st[i].phase, i / 2);
			assert_int_equal(st[i].peer, st[i].op == COLL_SEND
							     ? (r + i / 2 + 1) % n
							     : (r + n - i / 2 - 1) % n);
			assert_int_equal(st[i].dep_n, i < 2 ? 0 : 2);
		}
	}
	/* one send in flight: round t's waits for round t-1's */
	if (n > 1)
		assert_true(fabs(coll_a2a_concurrent(COLL_PAIRWISE, n, 0) * (n - 1) - 1) < 1e-9);
	coll_sched_done(&s);
}

/* Direct: pairwise's steps, the shifts in the order (t+1) g mod n; send t waits for send
 * t-k only (k = group, 0: all at once), receives for nothing. Every rank sends to and
 * receives from each other rank exactly once. */
static void t_a2a_direct(uint32_t n, uint64_t per_block, uint32_t k)
{
	struct t_size sz = {(uint64_t)n * per_block * 4, 4};
	struct coll_params p = t_params(COLL_ALLTOALL, COLL_DIRECT, n, sz, k);
	uint32_t g = coll_a2a_stride(n), r, i, sh, to[T_MAX_N], from[T_MAX_N];
	const struct coll_step *st;
	struct coll_sched s;
	bool waits;

	t_build_sim(&p, &s);
	for (r = 0; r < n; r++) {
		assert_int_equal(coll_sched_bytes_sent(&s, r), (n - 1) * per_block * 4);
		assert_int_equal(s.ranks.v[r].step_n, 2 * (n - 1));
		memset(to, 0, sizeof(to));
		memset(from, 0, sizeof(from));
		st = t_steps(&s, r);
		for (i = 0; i < s.ranks.v[r].step_n; i++) {
			sh = (uint32_t)((uint64_t)(i / 2 + 1) * g % n);
			assert_int_equal(st[i].phase, i / 2);
			assert_int_equal(st[i].peer,
					 st[i].op == COLL_SEND ? (r + sh) % n : (r + n - sh) % n);
			(st[i].op == COLL_SEND ? to : from)[st[i].peer]++;
			waits = st[i].op == COLL_SEND && k && i / 2 >= k;
			assert_int_equal(st[i].dep_n, waits);
			if (waits)
				assert_int_equal(s.deps.v[st[i].dep_off], i - 2 * k);
		}
		for (i = 0; i < n; i++) {
			assert_int_equal(to[i], i != r);
			assert_int_equal(from[i], i != r);
		}
		/* the sends that wait for none are those in flight at once */
		for (i = 0, sh = 0; i < s.ranks.v[r].step_n; i++)
			sh += st[i].op == COLL_SEND && !st[i].dep_n;
		assert_true(fabs(coll_a2a_concurrent(COLL_DIRECT, n, k) * (n - 1) - sh) < 1e-9);
	}
	coll_sched_done(&s);
}

static uint32_t t_gcd(uint32_t a, uint32_t b)
{
	return b ? t_gcd(b, a % b) : a;
}

/* The stride is prime to n, so that every shift comes once. */
static void test_a2a_stride(void **state)
{
	uint32_t n, g;

	(void)state;
	assert_int_equal(coll_a2a_stride(64), 41); /* 39.6: 40 shares 8 with 64 */
	assert_int_equal(coll_a2a_stride(16), 11); /* 9.9: 10 shares 2 with 16 */
	assert_int_equal(coll_a2a_stride(2), 1);
	for (n = 2; n <= 4096; n++) {
		g = coll_a2a_stride(n);
		assert_true(g >= 1 && g < n);
		assert_int_equal(t_gcd(g, n), 1);
	}
}

static void test_direct_a2a(void **state)
{
	uint32_t n;

	(void)state;
	for (n = 2; n <= T_MAX_N; n++) {
		t_a2a_direct(n, 37, 0);
		t_a2a_direct(n, 37, 1);
		t_a2a_direct(n, 5, 4);
	}
}

/* Direct reduce-scatter, all-gather and all-reduce: every rank sends each other rank its part
 * (reduce-scatter) and its own part (all-gather) once, straight, in the all-to-all's strided
 * order; the executor checks the results, races and completion. */
static void t_direct_red(enum coll_kind kind, uint32_t n, struct t_size sz, uint32_t k)
{
	struct coll_params p = t_params(kind, COLL_DIRECT, n, sz, k);
	uint32_t r, i, to[T_MAX_N];
	uint64_t want;
	const struct coll_step *st;
	struct coll_sched s;

	t_build_sim(&p, &s);
	for (r = 0; r < n; r++) {
		want = 0;
		if (kind != COLL_ALLGATHER)
			want += sz.bytes - t_chunk(sz.bytes, sz.elem, n, r);
		if (kind != COLL_REDUCESCATTER)
			want += (n - 1) * t_chunk(sz.bytes, sz.elem, n, r);
		assert_int_equal(coll_sched_bytes_sent(&s, r), want);
		memset(to, 0, sizeof(to));
		st = t_steps(&s, r);
		for (i = 0; i < s.ranks.v[r].step_n; i++)
			if (st[i].op == COLL_SEND)
				to[st[i].peer]++;
		for (i = 0; i < n; i++) /* part i to rank i, the own part to all; empty: none */
			assert_int_equal(to[i],
					 i == r ? 0
						: (kind != COLL_ALLGATHER &&
						   t_chunk(sz.bytes, sz.elem, n, i)) +
							  (kind != COLL_REDUCESCATTER &&
							   t_chunk(sz.bytes, sz.elem, n, r)));
	}
	coll_sched_done(&s);
}

static void test_direct_reductions(void **state)
{
	static const enum coll_kind kinds[] = {COLL_ALLREDUCE, COLL_REDUCESCATTER, COLL_ALLGATHER};
	uint32_t n, i;

	(void)state;
	for (i = 0; i < 3; i++)
		for (n = 1; n <= T_MAX_N; n++) {
			t_direct_red(kinds[i], n, (struct t_size){4 * (3 * n + 1), 4}, 0);
			t_direct_red(kinds[i], n, (struct t_size){8 * 5, 8}, 0); /* empty parts */
			t_direct_red(kinds[i], n, (struct t_size){4 * 7 * n, 4}, 2);
		}
}

/* The alpha-beta time of the textbook formulas: a ring all-reduce 2 (N-1) (alpha + M/(N B)),
 * direct (N-1 rounds at once per phase) 2 (alpha + M/(N B)) on dedicated pair links. */
static void test_alpha_beta(void **state)
{
	struct coll_params p =
		t_params(COLL_ALLREDUCE, COLL_RING, 8, (struct t_size){8 * 1000, 4}, 0);
	double a = 1e-6, b = 8e9, per = a + 1000.0 * 8 / b; /* a part: 1000 bytes */
	struct coll_sched s;

	(void)state;
	t_build_sim(&p, &s);
	assert_float_equal(coll_sched_alpha_beta(&s, a, b), 14 * per, 1e-12);
	assert_true(isnan(coll_sched_alpha_beta(&s, a, 0)));
	coll_sched_done(&s);
	p.algo = COLL_DIRECT;
	t_build_sim(&p, &s);
	assert_float_equal(coll_sched_alpha_beta(&s, a, b), 2 * per, 1e-12);
	coll_sched_done(&s);
}

static void test_pairwise(void **state)
{
	uint32_t n;

	(void)state;
	for (n = 1; n <= T_MAX_N; n++) {
		t_a2a_one(n, 1, 4);
		t_a2a_one(n, 37, 4);
		t_a2a_one(n, 3, 8);
		t_a2a_one(n, 0, 4);
	}
}

/* Intra reduce-scatter, inter all-reduce of the rank's shard, intra all-gather. */
static uint64_t t_hier_bytes(uint32_t g, uint32_t servers, struct t_size sz, uint32_t r)
{
	uint32_t l = r % g, srv = r / g;
	uint64_t m = sz.bytes, shard = t_chunk(m, sz.elem, g, l);
	uint64_t intra =
		g < 2 ? 0 : 2 * m - t_chunk(m, sz.elem, g, l) - t_chunk(m, sz.elem, g, (l + 1) % g);

	return intra + t_ring_ar_bytes(shard, sz.elem, servers, srv);
}

static void t_hier_one(uint32_t n, uint32_t g, struct t_size sz)
{
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_HIER_RING, n, sz, g);
	uint32_t r, srv = n / g;
	struct coll_sched s;
	double want;

	t_build_sim(&p, &s);
	want = 2.0 * (g - 1) / g * (double)sz.bytes + 2.0 * (srv - 1) / srv * (double)sz.bytes / g;
	for (r = 0; r < n; r++) {
		assert_int_equal(coll_sched_bytes_sent(&s, r), t_hier_bytes(g, srv, sz, r));
		t_check_near(coll_sched_bytes_sent(&s, r), want, sz.elem, 4);
	}
	coll_sched_done(&s);
}

static void test_hier(void **state)
{
	uint32_t n, g, z;

	(void)state;
	for (n = 1; n <= T_MAX_N; n++)
		for (g = 1; g <= n; g++)
			for (z = 0; n % g == 0 && z < T_N_SIZES; z++)
				t_hier_one(n, g, t_sizes[z]);
	t_hier_one(32, 8, t_sizes[0]);
}

/* N = 6 as 2 servers x 3: rank 4 is server 1, local 1. The inter-server round starts on the
 * intra reduce-scatter's last receive; the intra all-gather on that and the inter ring's last. */
static void test_hier_shape(void **state)
{
	static const uint32_t peer[12] = {5, 3, 5, 3, 1, 1, 1, 1, 5, 3, 5, 3};
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_HIER_RING, 6, t_sizes[0], 3);
	const struct coll_step *st;
	struct coll_sched s;
	uint32_t i;

	(void)state;
	t_build_sim(&p, &s);
	assert_int_equal(s.ranks.v[4].step_n, 12);
	st = t_steps(&s, 4);
	for (i = 0; i < 12; i++) {
		assert_int_equal(st[i].peer, peer[i]);
		assert_int_equal(st[i].phase, i / 2);
	}
	assert_int_equal(st[4].len, t_chunk(p.bytes, 4, 3, 1) / 2); /* half of shard 1 */
	assert_int_equal(st[4].dep_n, 1);
	assert_int_equal(t_deps(&s, &st[4])[0], 3);
	assert_int_equal(st[8].dep_n, 2);
	assert_int_equal(t_deps(&s, &st[8])[0], 3);
	assert_int_equal(t_deps(&s, &st[8])[1], 7);
	coll_sched_done(&s);
}

/* One element over five ranks: only chunk 0 exists, so 2(N-1) transfers in all. */
static void test_tiny(void **state)
{
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_RING, 5, t_sizes[1], 0);
	struct coll_sched s;

	(void)state;
	t_build_sim(&p, &s);
	assert_int_equal(s.steps.n, 2 * 2 * 4);
	coll_sched_done(&s);
	p.bytes = 0;
	t_build_sim(&p, &s);
	assert_int_equal(s.steps.n, 0);
	assert_int_equal(s.ranks.n, 5);
	coll_sched_done(&s);
}

static void t_shard_one(uint32_t dp, uint32_t shards, struct t_size sz)
{
	struct coll_params p = t_params(COLL_ALLREDUCE, COLL_SHARD_RINGS, dp * shards, sz, shards);
	const struct coll_step *st;
	struct coll_sched s;
	uint32_t r, i, rep;

	t_build_sim(&p, &s);
	for (r = 0; r < dp * shards; r++) {
		rep = r / shards;
		assert_int_equal(coll_sched_bytes_sent(&s, r),
				 t_ring_ar_bytes(sz.bytes, sz.elem, dp, rep));
		st = t_steps(&s, r);
		for (i = 0; sz.bytes >= dp * sz.elem && i < s.ranks.v[r].step_n; i++) {
			/* ring r % shards only; each round waits for both steps of the last */
			assert_int_equal(st[i].peer % shards, r % shards);
			assert_int_equal(st[i].phase, i / 2);
			assert_int_equal(st[i].dep_n, i < 2 ? 0 : 2);
		}
		if (sz.bytes >= dp * sz.elem)
			assert_int_equal(s.ranks.v[r].step_n, 4 * (dp - 1));
	}
	coll_sched_done(&s);
}

static void test_shard_rings(void **state)
{
	static const uint32_t shapes[][2] = {
		{1, 4}, {2, 1},	 {2, 3}, {3, 4}, {4, 4}, {8, 2},
		{5, 3}, {17, 1}, {2, 8}, {4, 8}, {8, 4}, {6, 5},
	};
	uint32_t i, z;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (z = 0; z < T_N_SIZES; z++)
			t_shard_one(shapes[i][0], shapes[i][1], t_sizes[z]);
}

static void t_reject(struct coll_params p, const char *needle)
{
	struct diag d = {0};
	struct coll_sched s;

	assert_int_equal(coll_sched_build(&p, &s, &d), -EINVAL);
	assert_int_equal(d.err, -EINVAL);
	if (!strstr(d.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", d.msg, needle);
	assert_int_equal(s.steps.n, 0);
	assert_null(s.steps.v);
	coll_sched_done(&s);
}

static void test_reject(void **state)
{
	struct t_size ok = {1024, 4};

	(void)state;
	t_reject(t_params(COLL_ALLREDUCE, COLL_HIER_RING, 12, ok, 5), "not a multiple of group 5");
	t_reject(t_params(COLL_ALLREDUCE, COLL_HIER_RING, 12, ok, 0), "at least 1");
	t_reject(t_params(COLL_ALLREDUCE, COLL_SHARD_RINGS, 10, ok, 4), "shards per replica");
	t_reject(t_params(COLL_ALLTOALL, COLL_PAIRWISE, 3, ok, 0), "3 equal blocks");
	t_reject(t_params(COLL_ALLTOALL, COLL_RING, 4, ok, 0), "ring does not build alltoall");
	t_reject(t_params(COLL_ALLGATHER, COLL_HD, 4, ok, 0), "hd does not build allgather");
	t_reject(t_params(COLL_ALLREDUCE, COLL_PAIRWISE, 4, ok, 0), "pairwise does not build");
	t_reject(t_params(COLL_ALLREDUCE, COLL_DIRECT, 129, ok, 0), "129 ranks, at most 128");
	t_reject(t_params(COLL_REDUCESCATTER, COLL_SHARD_RINGS, 4, ok, 2), "does not build");
	t_reject(t_params(COLL_ALLREDUCE, COLL_RING, 0, ok, 0), "0 ranks");
	t_reject(t_params(COLL_ALLREDUCE, COLL_RING, COLL_MAX_RANKS + 1, ok, 0), "ranks");
	t_reject(t_params(COLL_ALLREDUCE, COLL_RING, 4, (struct t_size){1022, 4}, 0),
		 "whole number of 4-byte elements");
	t_reject(t_params(COLL_ALLREDUCE, COLL_RING, 4, (struct t_size){1024, 0}, 0),
		 "element size");
	t_reject(t_params((enum coll_kind)9, COLL_RING, 4, ok, 0), "unknown collective kind");
	t_reject(t_params(COLL_ALLREDUCE, (enum coll_algo)99, 4, ok, 0), "unknown collective");
}

static void t_same(const struct coll_params *p)
{
	struct coll_sched a, b;
	struct diag d = {0};

	assert_int_equal(coll_sched_build(p, &a, &d), 0);
	assert_int_equal(coll_sched_build(p, &b, &d), 0);
	assert_int_equal(a.ranks.n, b.ranks.n);
	assert_int_equal(a.steps.n, b.steps.n);
	assert_int_equal(a.deps.n, b.deps.n);
	assert_memory_equal(a.ranks.v, b.ranks.v, a.ranks.n * sizeof(*a.ranks.v));
	assert_memory_equal(a.steps.v, b.steps.v, a.steps.n * sizeof(*a.steps.v));
	if (a.deps.n)
		assert_memory_equal(a.deps.v, b.deps.v, a.deps.n * sizeof(*a.deps.v));
	coll_sched_done(&a);
	coll_sched_done(&b);
}

static void test_determinism(void **state)
{
	struct t_size sz = {4099 * 4, 4}, a2a = {12 * 100 * 4, 4};

	(void)state;
	t_same(&(struct coll_params){COLL_ALLREDUCE, COLL_RING, 13, sz.bytes, 4, 0, {0}, 0});
	t_same(&(struct coll_params){COLL_ALLGATHER, COLL_RING, 13, sz.bytes, 4, 0, {0}, 0});
	t_same(&(struct coll_params){COLL_ALLREDUCE, COLL_HD, 13, sz.bytes, 4, 0, {0}, 0});
	t_same(&(struct coll_params){COLL_ALLTOALL, COLL_PAIRWISE, 12, a2a.bytes, 4, 0, {0}, 0});
	t_same(&(struct coll_params){COLL_ALLREDUCE, COLL_HIER_RING, 12, sz.bytes, 4, 4, {0}, 0});
	t_same(&(struct coll_params){COLL_ALLREDUCE, COLL_SHARD_RINGS, 12, sz.bytes, 4, 3, {0}, 0});
}

/* Paper-scale shapes build quickly and have the expected sizes (not simulated). */
static void test_scale(void **state)
{
	struct coll_params p = {COLL_ALLREDUCE, COLL_HD, 1000, 1000 * 4096, 4, 0, {0}, 0};
	struct diag d = {0};
	struct coll_sched s;

	(void)state;
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	assert_int_equal(s.ranks.v[0].step_n, 1 + 2 * 2 * 9 + 1); /* core 512, 488 extras */
	assert_int_equal(s.ranks.v[999].step_n, 2);
	coll_sched_done(&s);
	p = (struct coll_params){COLL_ALLREDUCE, COLL_RING, 256, 1 << 20, 4, 0, {0}, 0};
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	assert_int_equal(s.steps.n, 256 * 4 * 255);
	assert_int_equal(coll_sched_bytes_sent(&s, 7), 2 * 255 * (1 << 20) / 256);
	coll_sched_done(&s);
	p = (struct coll_params){COLL_ALLREDUCE, COLL_HIER_RING, 512, 1 << 20, 4, 8, {0}, 0};
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	assert_int_equal(s.ranks.v[9].step_n, 4 * 7 + 4 * 63);
	coll_sched_done(&s);
}

static void test_names(void **state)
{
	enum coll_kind k;
	enum coll_algo a;
	int i;

	(void)state;
	for (i = COLL_ALLREDUCE; i <= COLL_ALLTOALL; i++) {
		assert_int_equal(coll_kind_parse(coll_kind_name((enum coll_kind)i), &k), 0);
		assert_int_equal(k, i);
	}
	for (i = COLL_RING; i <= COLL_SHARD_RINGS; i++) {
		assert_int_equal(coll_algo_parse(coll_algo_name((enum coll_algo)i), &a), 0);
		assert_int_equal(a, i);
	}
	assert_string_equal(coll_kind_name(COLL_REDUCESCATTER), "reducescatter");
	assert_string_equal(coll_algo_name(COLL_HIER_RING), "hier-ring");
	assert_string_equal(coll_algo_name(COLL_SHARD_RINGS), "shard-rings");
	assert_string_equal(coll_algo_name((enum coll_algo)42), "?");
	assert_int_equal(coll_kind_parse("AllReduce", &k), -EINVAL);
	assert_int_equal(coll_algo_parse("rings", &a), -EINVAL);
	assert_int_equal(coll_algo_parse(NULL, &a), -EINVAL);
}

static void test_busbw(void **state)
{
	(void)state;
	assert_float_equal(coll_busbw_factor(COLL_ALLREDUCE, 8), 1.75, 1e-12);
	assert_float_equal(coll_busbw_factor(COLL_ALLGATHER, 8), 0.875, 1e-12);
	assert_float_equal(coll_busbw_factor(COLL_REDUCESCATTER, 4), 0.75, 1e-12);
	assert_float_equal(coll_busbw_factor(COLL_ALLTOALL, 2), 0.5, 1e-12);
	assert_float_equal(coll_busbw_factor(COLL_ALLREDUCE, 1), 0.0, 1e-12);
	assert_float_equal(coll_busbw_factor(COLL_ALLREDUCE, 0), 0.0, 1e-12);
}

static void test_chunk_off(void **state)
{
	uint32_t n, c;
	uint64_t prev, off;

	(void)state;
	for (n = 1; n <= T_MAX_N; n++) {
		prev = 0;
		for (c = 1; c <= n; c++) {
			off = coll_chunk_off(1003 * 4, 4, n, c);
			assert_int_equal(off % 4, 0);
			assert_true(off - prev == (1003 / n + (c - 1 < 1003 % n)) * 4);
			prev = off;
		}
		assert_int_equal(prev, 1003 * 4);
	}
	assert_int_equal(coll_chunk_off(8, 4, 5, 2), 8); /* parts 0 and 1 hold the elements */
	assert_int_equal(coll_chunk_off(8, 4, 5, 1), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_allreduce),
		cmocka_unit_test(test_ring_shape),
		cmocka_unit_test(test_ring_allgather_reducescatter),
		cmocka_unit_test(test_hd),
		cmocka_unit_test(test_hd_shape),
		cmocka_unit_test(test_pairwise),
		cmocka_unit_test(test_direct_a2a),
		cmocka_unit_test(test_direct_reductions),
		cmocka_unit_test(test_alpha_beta),
		cmocka_unit_test(test_a2a_stride),
		cmocka_unit_test(test_hier),
		cmocka_unit_test(test_hier_shape),
		cmocka_unit_test(test_tiny),
		cmocka_unit_test(test_shard_rings),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_busbw),
		cmocka_unit_test(test_chunk_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
