// SPDX-License-Identifier: MIT
/* TACOS-Greedy (traffic/tacos.c) and its steps (traffic/coll_tacos.c): the unit-link bounds
 * (ours, not the paper's) on rings and meshes, properties of every schedule over many graphs,
 * the failed-NPU mesh of TACOS Table III, a Switch_Switch against the ring on the same links,
 * the all-reduce steps through the prover (traffic/coll_prove.c), and pinned schedules. */
#include <errno.h>
#include <math.h>
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
#include "model/gen_direct.h"
#include "tests/unit/coll_sim.h"
#include "traffic/coll.h"
#include "traffic/tacos.h"

#define T_MAX_LINKS 1024
#define UNIT_RATE 8000000000ull /* bit/s: a 1e9-byte chunk takes 1 s */
#define UNIT_BYTES 1000000000ull
#define GBYTE 8000000000ull /* 1 GB/s in bit/s */

struct t_g {
	uint32_t n, m;
	struct tacos_link l[T_MAX_LINKS];
};

static void t_add(struct t_g *g, uint32_t u, uint32_t v, double alpha, uint64_t rate)
{
	assert_true(g->m < T_MAX_LINKS);
	g->l[g->m++] = (struct tacos_link){u, v, alpha, rate};
}

static void t_bi(struct t_g *g, uint32_t u, uint32_t v, double alpha, uint64_t rate)
{
	t_add(g, u, v, alpha, rate);
	t_add(g, v, u, alpha, rate);
}

static struct tacos_graph t_graph(const struct t_g *g)
{
	return (struct tacos_graph){g->n, g->m, g->l};
}

static void t_ring(struct t_g *g, uint32_t n, bool bidir)
{
	uint32_t i;

	g->n = n, g->m = 0;
	for (i = 0; i < n; i++) {
		if (bidir)
			t_bi(g, i, (i + 1) % n, 0, UNIT_RATE);
		else
			t_add(g, i, (i + 1) % n, 0, UNIT_RATE);
	}
}

/* rows x cols, bi-directional unit links; torus adds the wrap-around links. */
static void t_mesh(struct t_g *g, uint32_t rows, uint32_t cols, bool torus)
{
	uint32_t r, c, id;

	g->n = rows * cols, g->m = 0;
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++) {
			id = r * cols + c;
			if (c + 1 < cols || (torus && cols > 2))
				t_bi(g, id, r * cols + (c + 1) % cols, 0, UNIT_RATE);
			if (r + 1 < rows || (torus && rows > 2))
				t_bi(g, id, ((r + 1) % rows) * cols + c, 0, UNIT_RATE);
		}
}

static uint32_t t_rand(uint32_t *seed, uint32_t n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

static bool t_has(const struct t_g *g, uint32_t u, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < g->m; i++)
		if (g->l[i].src == u && g->l[i].dst == v)
			return true;
	return false;
}

/* A random directed Hamiltonian cycle plus random extra links; rates 10..80 GB/s, alphas
 * 0..2 us: strongly connected, usually asymmetric. */
static void t_random(struct t_g *g, uint32_t n, uint32_t *seed)
{
	uint32_t perm[64], i, j, tmp, extra;

	g->n = n, g->m = 0;
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; i > 1; i--) {
		j = t_rand(seed, i);
		tmp = perm[i - 1], perm[i - 1] = perm[j], perm[j] = tmp;
	}
	for (i = 0; i < n; i++)
		t_add(g, perm[i], perm[(i + 1) % n], 1e-6 * t_rand(seed, 3),
		      GBYTE * 10 * (1 + t_rand(seed, 8)));
	for (extra = t_rand(seed, 2 * n); extra; extra--) {
		i = t_rand(seed, n), j = t_rand(seed, n);
		if (i != j && !t_has(g, i, j))
			t_add(g, i, j, 1e-6 * t_rand(seed, 3), GBYTE * 10 * (1 + t_rand(seed, 8)));
	}
}

static struct tacos_cfg t_cfg(uint64_t bytes, uint32_t k, uint32_t runs, uint64_t seed)
{
	return (struct tacos_cfg){.chunk_bytes = bytes, .k = k, .runs = runs, .seed = seed};
}

static void t_ag(const struct t_g *g, const struct tacos_cfg *c, struct tacos_result *r)
{
	struct tacos_graph tg = t_graph(g);
	struct diag d = {0};

	if (tacos_allgather(&tg, c, r, &d))
		fail_msg("allgather: %s", d.msg);
}

static void t_ar(const struct t_g *g, const struct tacos_cfg *c, struct tacos_result *r)
{
	struct tacos_graph tg = t_graph(g);
	struct diag d = {0};

	if (tacos_allreduce(&tg, c, r, &d))
		fail_msg("allreduce: %s", d.msg);
}

static double t_cost(const struct tacos_link *l, uint64_t bytes)
{
	return l->alpha + 8.0 * (double)bytes / (double)l->rate;
}

static int t_cmp_link(const void *a, const void *b)
{
	const struct tacos_send *x = a, *y = b;

	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Every send uses its link of g for exactly its cost; no two overlap on one link. */
static void t_links_ok(const struct t_g *g, const struct tacos_sched *s, uint64_t bytes)
{
	struct tacos_send *v = malloc((s->nsends + 1) * sizeof(*v));
	size_t i;

	assert_non_null(v);
	memcpy(v, s->sends, s->nsends * sizeof(*v));
	for (i = 0; i < s->nsends; i++) {
		assert_true(v[i].link < g->m);
		assert_int_equal(v[i].src, g->l[v[i].link].src);
		assert_int_equal(v[i].dst, g->l[v[i].link].dst);
		assert_true(v[i].t1 - v[i].t0 >= t_cost(&g->l[v[i].link], bytes) * (1 - 1e-9));
		assert_true(v[i].t0 >= 0 && v[i].t1 <= s->time);
	}
	qsort(v, s->nsends, sizeof(*v), t_cmp_link);
	for (i = 1; i < s->nsends; i++)
		if (v[i].link == v[i - 1].link)
			assert_true(v[i].t0 >= v[i - 1].t1);
	free(v);
}

/* All-gather: each send's source holds the chunk at its start; every NPU gets every chunk
 * exactly once (the pruned tree: n - 1 receives per chunk); the time is the last arrival. */
static void t_ag_ok(const struct t_g *g, const struct tacos_result *r)
{
	size_t cells = (size_t)r->n * r->n * r->k, i;
	double *at = malloc(cells * sizeof(*at)), last = 0;
	const struct tacos_send *x;
	uint32_t c, v;

	assert_non_null(at);
	t_links_ok(g, &r->ag, r->chunk_bytes);
	for (i = 0; i < cells; i++)
		at[i] = i / r->n / r->k == i % r->n ? 0 : INFINITY;
	for (i = 0; i < r->ag.nsends; i++) {
		x = &r->ag.sends[i];
		assert_true(at[(size_t)x->chunk * r->n + x->dst] == INFINITY);
		at[(size_t)x->chunk * r->n + x->dst] = x->t1;
		last = x->t1 > last ? x->t1 : last;
	}
	assert_int_equal(r->ag.nsends, (size_t)r->n * r->k * (r->n - 1));
	for (i = 0; i < r->ag.nsends; i++) {
		x = &r->ag.sends[i];
		assert_true(at[(size_t)x->chunk * r->n + x->src] <= x->t0);
	}
	for (c = 0; c < r->n * r->k; c++)
		for (v = 0; v < r->n; v++)
			assert_true(at[(size_t)c * r->n + v] != INFINITY);
	assert_true(last == r->ag.time && r->t_ag == r->ag.time);
	free(at);
}

/* Reduce-scatter: every NPU but the owner sends each chunk once, after all its receives of
 * that chunk have ended (its tree children), on links of g. */
static void t_rs_ok(const struct t_g *g, const struct tacos_result *r)
{
	size_t cells = (size_t)r->n * r->n * r->k, i;
	double *in_end = calloc(cells, sizeof(*in_end));
	uint8_t *sent = calloc(cells, 1);
	const struct tacos_send *x;

	assert_true(in_end && sent);
	t_links_ok(g, &r->rs, r->chunk_bytes);
	assert_int_equal(r->rs.nsends, (size_t)r->n * r->k * (r->n - 1));
	for (i = 0; i < r->rs.nsends; i++) {
		x = &r->rs.sends[i];
		if (x->t1 > in_end[(size_t)x->chunk * r->n + x->dst])
			in_end[(size_t)x->chunk * r->n + x->dst] = x->t1;
	}
	for (i = 0; i < r->rs.nsends; i++) {
		x = &r->rs.sends[i];
		assert_int_not_equal(x->chunk / r->k, x->src);
		assert_false(sent[(size_t)x->chunk * r->n + x->src]);
		sent[(size_t)x->chunk * r->n + x->src] = 1;
		assert_true(in_end[(size_t)x->chunk * r->n + x->src] <= x->t0);
	}
	assert_true(r->t_rs == r->rs.time);
	free(in_end);
	free(sent);
}

/* The all-gather time in unit steps, checked by the properties. */
static double t_ag_steps(const struct t_g *g, uint32_t k, uint32_t runs, uint64_t seed)
{
	struct tacos_cfg c = t_cfg(UNIT_BYTES, k, runs, seed);
	struct tacos_result r;
	double t;

	t_ag(g, &c, &r);
	t_ag_ok(g, &r);
	t = r.t_ag;
	tacos_result_done(&r);
	return t;
}

static void test_rings(void **state)
{
	struct t_g g;
	uint32_t n;
	double t;

	(void)state;
	for (n = 2; n <= 12; n++) {
		t_ring(&g, n, false);
		assert_true(t_ag_steps(&g, 1, 4, n) == n - 1);
		if (n < 3)
			continue; /* two NPUs: the uni-directional ring is the bi-directional one */
		t_ring(&g, n, true);
		assert_true(t_ag_steps(&g, 1, 4, n) == n / 2); /* ceil((n-1)/2) */
	}
	/* k chunks per NPU: bound k(N-1); random request order can leave a link idle */
	t_ring(&g, 6, false);
	t = t_ag_steps(&g, 3, 16, 1);
	print_message("tacos uni-ring 6, k 3: %g steps, bound 15\n", t);
	assert_true(t == 15);
}

static void test_meshes(void **state)
{
	struct t_g g;
	double t;

	(void)state;
	/* our bound: max(diameter, ceil((N k - k) / min in-degree)) */
	t_mesh(&g, 3, 3, false);
	assert_true(t_ag_steps(&g, 1, 16, 1) == 4);
	t_mesh(&g, 5, 5, false);
	t = t_ag_steps(&g, 1, 16, 1);
	print_message("tacos 5x5 mesh all-gather: %g steps, bound 12, gap %g\n", t, t - 12);
	assert_true(t == 12);
}

static bool t_same(const struct tacos_sched *a, const struct tacos_sched *b)
{
	return a->nsends == b->nsends && a->time == b->time &&
	       !memcmp(a->sends, b->sends, a->nsends * sizeof(*a->sends));
}

/* All-reduce on g: both phases' properties, the same result again for the seed; returns
 * whether seed + 1 gave a different one. */
static bool t_ar_props(const struct t_g *g, uint32_t k, uint64_t seed)
{
	struct tacos_cfg c = t_cfg(1 << 20, k, 3, seed);
	struct tacos_result r, again, other;
	bool differs;

	t_ar(g, &c, &r);
	t_ag_ok(g, &r);
	t_rs_ok(g, &r);
	assert_int_equal(tacos_prune(&r.ag, r.n, r.k), 0);
	t_ar(g, &c, &again);
	assert_true(t_same(&r.ag, &again.ag) && t_same(&r.rs, &again.rs));
	c.seed++;
	t_ar(g, &c, &other);
	differs = !t_same(&r.ag, &other.ag) || !t_same(&r.rs, &other.rs);
	tacos_result_done(&r);
	tacos_result_done(&again);
	tacos_result_done(&other);
	return differs;
}

static void test_properties(void **state)
{
	uint32_t seed = 7, i, differ = 0, cases = 0;
	struct t_g g;

	(void)state;
	for (i = 0; i < 60; i++, cases++) {
		t_random(&g, 3 + t_rand(&seed, 14), &seed);
		differ += t_ar_props(&g, 1 + i % 3, i);
	}
	for (i = 2; i <= 5; i++, cases += 4) {
		t_mesh(&g, i, i + 1, false);
		differ += t_ar_props(&g, 1 + i % 3, i);
		t_mesh(&g, i, i, true);
		differ += t_ar_props(&g, 1 + (i + 1) % 3, i);
		t_ring(&g, 2 * i, false);
		differ += t_ar_props(&g, 2, i);
		t_ring(&g, 2 * i + 1, true);
		differ += t_ar_props(&g, 3, i);
	}
	print_message("tacos: %u of %u graphs gave another schedule for the next seed\n", differ,
		      cases);
	assert_true(differ > 0);
}

/* TACOS Table III: a 4x4 mesh without NPUs 7 and 9 (read as 1-indexed row-major, as the
 * paper's figures number NPUs: 0-based 6 and 8), renumbered into 14 NPUs. */
static void t_failed_mesh(struct t_g *g)
{
	uint32_t id[16], r, c, n = 0;

	for (r = 0; r < 16; r++)
		id[r] = r == 6 || r == 8 ? UINT32_MAX : n++;
	g->n = n, g->m = 0;
	for (r = 0; r < 4; r++)
		for (c = 0; c < 4; c++) {
			if (id[r * 4 + c] == UINT32_MAX)
				continue;
			if (c + 1 < 4 && id[r * 4 + c + 1] != UINT32_MAX)
				t_bi(g, id[r * 4 + c], id[r * 4 + c + 1], 0, UNIT_RATE);
			if (r + 1 < 4 && id[r * 4 + c + 4] != UINT32_MAX)
				t_bi(g, id[r * 4 + c], id[r * 4 + c + 4], 0, UNIT_RATE);
		}
}

static void test_failed_npus(void **state)
{
	struct tacos_cfg c = t_cfg(UNIT_BYTES, 1, 16, 3);
	struct tacos_result r;
	struct t_g g;

	(void)state;
	t_failed_mesh(&g);
	assert_int_equal(g.n, 14);
	t_ar(&g, &c, &r);
	t_ag_ok(&g, &r);
	t_rs_ok(&g, &r);
	print_message("tacos 4x4 mesh without 7 and 9: all-reduce %g + %g steps\n", r.t_rs, r.t_ag);
	/* the bound: NPU 12 (0-based, below the failed 8) keeps one in-link for 13 chunks */
	assert_true(r.t_ag == 13 && r.t_rs == 13);
	tacos_result_done(&r);
}

/* TACOS §IV-D unwinding of Switch_Switch nodes x per (300 and 25 GB/s, alpha 0.5 us): a full
 * mesh at 300/(per-1) GB/s per link inside a node (degree-max), and local NPU i of node j to
 * NPU i of node j+1 at 25 GB/s (degree-1, uni-directional). NPU = node * per + local. */
static void t_switch_switch(struct t_g *g, uint32_t nodes, uint32_t per)
{
	uint32_t j, a, b;

	g->n = nodes * per, g->m = 0;
	for (j = 0; j < nodes; j++)
		for (a = 0; a < per; a++) {
			for (b = 0; b < per; b++)
				if (a != b)
					t_add(g, j * per + a, j * per + b, 0.5e-6,
					      300 * GBYTE / (per - 1));
			t_add(g, j * per + a, (j + 1) % nodes * per + a, 0.5e-6, 25 * GBYTE);
		}
}

/* The link u -> v of g. */
static uint32_t t_link(const struct t_g *g, uint32_t u, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < g->m; i++)
		if (g->l[i].src == u && g->l[i].dst == v)
			return i;
	fail_msg("no link %u -> %u", u, v);
	return 0;
}

/* Times a ring all-gather over ring[0..n) on g with the synthesizer's cost model: round r,
 * member i forwards the k chunks of member i - r; a send starts once its link is free and its
 * source has the chunk. Returns the last arrival. */
static double t_ring_time(const struct t_g *g, const uint32_t *ring, uint32_t k, uint64_t bytes)
{
	double *at = calloc((size_t)g->n * g->n * k, sizeof(*at)), *free_at, end = 0, t0;
	uint32_t n = g->n, r, i, j, c, u, e;

	free_at = calloc(g->m, sizeof(*free_at));
	assert_true(at && free_at);
	for (r = 0; r + 1 < n; r++)
		for (i = 0; i < n; i++)
			for (j = 0; j < k; j++) {
				u = ring[i];
				c = ring[(i + n - r) % n] * k + j;
				e = t_link(g, u, ring[(i + 1) % n]);
				t0 = at[(size_t)c * n + u] > free_at[e] ? at[(size_t)c * n + u]
									: free_at[e];
				free_at[e] = t0 + t_cost(&g->l[e], bytes);
				at[(size_t)c * n + ring[(i + 1) % n]] = free_at[e];
				end = free_at[e] > end ? free_at[e] : end;
			}
	free(at);
	free(free_at);
	return end;
}

static void test_switch_switch(void **state)
{
	struct tacos_cfg c = t_cfg(4 << 20, 2, 8, 11);
	uint32_t ring[32], j, a;
	struct tacos_result r;
	struct t_g g;
	double ring_t;

	(void)state;
	t_switch_switch(&g, 4, 8);
	/* a snake over the links that exist: node j's NPUs up (j even) or down, then across */
	for (j = 0; j < 4; j++)
		for (a = 0; a < 8; a++)
			ring[j * 8 + a] = j * 8 + (j % 2 ? 7 - a : a);
	ring_t = t_ring_time(&g, ring, c.k, c.chunk_bytes);
	t_ar(&g, &c, &r);
	t_ag_ok(&g, &r);
	t_rs_ok(&g, &r);
	print_message(
		"tacos Switch_Switch 8x4, k 2, 4 MiB chunks: all-gather %.1f us, ring %.1f us "
		"(%.2fx); reduce-scatter %.1f us\n",
		r.t_ag * 1e6, ring_t * 1e6, ring_t / r.t_ag, r.t_rs * 1e6);
	assert_true(r.t_ag <= ring_t && r.t_rs <= ring_t);
	tacos_result_done(&r);
}

/* 64-bit FNV-1a of r as text (every send, in order, times exact). */
static uint64_t t_digest(const struct tacos_result *r)
{
	size_t len = tacos_result_format(r, NULL, 0), i;
	char *text = malloc(len + 1);
	uint64_t h = 0xcbf29ce484222325ull;

	assert_non_null(text);
	tacos_result_format(r, text, len + 1);
	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
	free(text);
	return h;
}

static uint64_t t_pin(const struct t_g *g, uint32_t k, uint32_t runs, uint64_t seed, bool ar)
{
	struct tacos_cfg c = t_cfg(1 << 20, k, runs, seed);
	struct tacos_result r;
	uint64_t h;

	if (ar)
		t_ar(g, &c, &r);
	else
		t_ag(g, &c, &r);
	h = t_digest(&r);
	tacos_result_done(&r);
	return h;
}

/* Schedules are what users reproduce: for a graph, cfg and seed every send stays the same.
 * These digests are of the synthesis as first written, which shuffled every open request at
 * every event (the candidates are now followed through the same shuffle). Also: the stream
 * skip that relies on. */
static void test_pinned(void **state)
{
	uint64_t a = 42, b = 42, i;
	uint32_t seed = 11;
	struct t_g g;

	(void)state;
	for (i = 0; i < 1000; i++)
		rng_next(&a);
	rng_skip(&b, 1000);
	assert_true(a == b && rng_next(&a) == rng_next(&b));
	t_random(&g, 24, &seed);
	assert_true(t_pin(&g, 2, 3, 5, true) == 0xa3d35c42712e100full);
	t_mesh(&g, 4, 4, true);
	assert_true(t_pin(&g, 3, 4, 9, false) == 0xbe543a8a1e4193b1ull);
	t_mesh(&g, 6, 6, false);
	assert_true(t_pin(&g, 1, 2, 3, true) == 0x72775dea5a7db6c3ull);
	t_switch_switch(&g, 4, 4);
	assert_true(t_pin(&g, 2, 4, 1, true) == 0x756ada9d027aa3b0ull);
}

/* The all-reduce's steps through the executor: completes, race-free, every element reduced
 * exactly once on every rank. */
/* A reduce-scatter synthesized alone is the all-reduce's first half, send for send. */
static void t_rs_alone(const struct t_g *g, const struct tacos_cfg *c,
		       const struct tacos_result *ar)
{
	struct tacos_graph tg = t_graph(g);
	struct tacos_result r;
	struct diag d = {0};

	if (tacos_reducescatter(&tg, c, &r, &d))
		fail_msg("reducescatter: %s", d.msg);
	assert_int_equal(r.ag.nsends, 0);
	assert_int_equal(r.rs.nsends, ar->rs.nsends);
	assert_memory_equal(r.rs.sends, ar->rs.sends, r.rs.nsends * sizeof(*r.rs.sends));
	assert_true(r.t_rs == ar->t_rs);
	tacos_result_done(&r);
}

/* Every link has the first one's alpha and rate. */
static bool t_uniform(const struct t_g *g)
{
	uint32_t i;

	for (i = 1; i < g->m; i++)
		if (g->l[i].alpha != g->l[0].alpha || g->l[i].rate != g->l[0].rate)
			return false;
	return true;
}

static void t_steps_ok(const struct t_g *g, uint32_t k, uint64_t seed)
{
	struct tacos_cfg c = t_cfg(1 << 20, k, 4, seed);
	struct coll_params p = {.kind = COLL_ALLREDUCE, .nranks = g->n, .elem = 4};
	struct tacos_result r;
	struct coll_sched s;
	struct diag d = {0};
	char msg[512];

	p.bytes = 4ull * (3 * g->n * k + 5); /* uneven parts, all non-empty */
	t_ar(g, &c, &r);
	if (tacos_coll_sched(&r, &p, &s, &d))
		fail_msg("steps: %s", d.msg);
	if (t_sim_run(&s, msg, sizeof(msg)))
		fail_msg("%u NPUs, k %u: %s", g->n, k, msg);
	coll_sched_done(&s);
	p.bytes = (uint64_t)g->n * k * c.chunk_bytes; /* the synthesis's own chunks */
	if (t_uniform(g) && !tacos_coll_sched(&r, &p, &s, &d)) {
		/* the steps take as long as the synthesis said: one link per pair, as alpha-beta */
		assert_float_equal(coll_sched_alpha_beta(&s, g->l[0].alpha, (double)g->l[0].rate),
				   r.t_rs + r.t_ag, 1e-9 * (r.t_rs + r.t_ag));
		coll_sched_done(&s);
	}
	p.kind = COLL_ALLGATHER;
	p.bytes = 4ull * 2 * g->n * k;
	if (tacos_coll_sched(&r, &p, &s, &d))
		fail_msg("steps: %s", d.msg);
	if (t_sim_run(&s, msg, sizeof(msg)))
		fail_msg("allgather, %u NPUs, k %u: %s", g->n, k, msg);
	coll_sched_done(&s);
	t_rs_alone(g, &c, &r);
	p.kind = COLL_REDUCESCATTER; /* the all-reduce's first half, rank j's block summed */
	if (tacos_coll_sched(&r, &p, &s, &d))
		fail_msg("steps: %s", d.msg);
	if (t_sim_run(&s, msg, sizeof(msg)))
		fail_msg("reducescatter, %u NPUs, k %u: %s", g->n, k, msg);
	coll_sched_done(&s);
	tacos_result_done(&r);
}

static void test_steps(void **state)
{
	uint32_t seed = 5, i;
	struct t_g g;

	(void)state;
	t_mesh(&g, 3, 3, false);
	t_steps_ok(&g, 1, 1);
	t_mesh(&g, 2, 3, false);
	t_steps_ok(&g, 3, 2);
	t_ring(&g, 5, false);
	t_steps_ok(&g, 2, 3);
	t_ring(&g, 6, true);
	t_steps_ok(&g, 2, 3);
	t_failed_mesh(&g);
	t_steps_ok(&g, 1, 4);
	t_switch_switch(&g, 2, 4);
	t_steps_ok(&g, 2, 5);
	for (i = 0; i < 8; i++) {
		t_random(&g, 4 + t_rand(&seed, 6), &seed);
		t_steps_ok(&g, 1 + i % 3, i);
	}
}

static void t_refuse(const struct t_g *g, struct tacos_cfg c, const char *needle)
{
	struct tacos_graph tg = t_graph(g);
	struct tacos_result r;
	struct diag d = {0};

	assert_int_equal(tacos_allreduce(&tg, &c, &r, &d), -EINVAL);
	if (!strstr(d.msg, needle))
		fail_msg("'%s' lacks '%s'", d.msg, needle);
	assert_null(r.ag.sends);
	assert_null(r.rs.sends);
}

/* Rank k's steps in a and b: the same fields and the same dependencies (their offsets into
 * each schedule's dependency list differ). */
static void t_same_steps(const struct coll_sched *a, const struct coll_sched *b, uint32_t k)
{
	const struct coll_step *x = a->steps.v + a->ranks.v[k].step_off;
	const struct coll_step *y = b->steps.v + b->ranks.v[k].step_off;
	uint32_t i;

	assert_int_equal(a->ranks.v[k].step_n, b->ranks.v[k].step_n);
	for (i = 0; i < a->ranks.v[k].step_n; i++) {
		assert_true(x[i].op == y[i].op && x[i].flags == y[i].flags &&
			    x[i].phase == y[i].phase && x[i].peer == y[i].peer);
		assert_true(x[i].off == y[i].off && x[i].len == y[i].len);
		assert_int_equal(x[i].dep_n, y[i].dep_n);
		assert_memory_equal(a->deps.v + x[i].dep_off, b->deps.v + y[i].dep_off,
				    x[i].dep_n * sizeof(*a->deps.v));
	}
}

/* Each rank's slice of the whole schedule (what the runner ships it) read back on the rank
 * (coll_sched_from_rank, as emu-node does) gives its steps; a slice with a bad peer, range or
 * dependency is refused. TACOS schedules are only built with the synthesis. */
static void t_rank_slices(const struct tacos_result *r, const struct coll_params *p)
{
	struct coll_step *st = calloc(r->rs.nsends * 2 + r->ag.nsends * 2 + 1, sizeof(*st));
	uint32_t *dp = calloc(64 * (r->rs.nsends + r->ag.nsends) + 1, sizeof(*dp)), k, nd;
	struct coll_ext full = {.tacos = r};
	struct coll_sched a, b;
	struct diag d = {0};

	assert_true(st && dp);
	assert_int_equal(coll_sched_build_ext(p, &full, &a, &d), 0);
	for (k = 0; k < r->n; k++) {
		coll_sched_rank_slice(&a, k, st, dp);
		nd = coll_sched_rank_deps(&a, k);
		assert_int_equal(
			coll_sched_from_rank(p, k, st, a.ranks.v[k].step_n, dp, nd, &b, &d), 0);
		t_same_steps(&a, &b, k);
		coll_sched_done(&b);
	}
	coll_sched_rank_slice(&a, 0, st, dp);
	nd = coll_sched_rank_deps(&a, 0);
	st[0].peer = p->nranks;
	assert_int_equal(coll_sched_from_rank(p, 0, st, a.ranks.v[0].step_n, dp, nd, &b, &d),
			 -EINVAL);
	assert_non_null(strstr(d.msg, "step 0: a peer"));
	coll_sched_rank_slice(&a, 0, st, dp);
	diag_clear(&d);
	st[1].len = p->bytes + 4;
	assert_int_equal(coll_sched_from_rank(p, 0, st, a.ranks.v[0].step_n, dp, nd, &b, &d),
			 -EINVAL);
	assert_non_null(strstr(d.msg, "step 1: a byte range"));
	coll_sched_rank_slice(&a, 0, st, dp);
	diag_clear(&d);
	st[0].dep_n = 1, st[0].dep_off = 0, dp[0] = 0;
	assert_int_equal(coll_sched_from_rank(p, 0, st, a.ranks.v[0].step_n, dp, nd, &b, &d),
			 -EINVAL);
	assert_non_null(strstr(d.msg, "not earlier"));
	diag_clear(&d);
	assert_int_equal(coll_sched_build_ext(p, NULL, &b, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "synthesized"));
	coll_sched_done(&a);
	free(st);
	free(dp);
}

/* The text the results folder keeps reads back to the same synthesis; broken texts are refused
 * at their line. */
static void t_text_round_trip(const struct tacos_result *r)
{
	size_t len = tacos_result_format(r, NULL, 0);
	char *text = malloc(len + 1);
	struct tacos_result b;
	struct diag d = {0};

	assert_non_null(text);
	assert_int_equal(tacos_result_format(r, text, len + 1), len);
	assert_int_equal(strlen(text), len);
	if (tacos_result_parse(text, len, &b, &d))
		fail_msg("parse: %s", d.msg);
	assert_true(b.n == r->n && b.k == r->k && b.chunk_bytes == r->chunk_bytes);
	assert_true(b.t_rs == r->t_rs && b.t_ag == r->t_ag);
	assert_int_equal(b.rs.nsends, r->rs.nsends);
	assert_int_equal(b.ag.nsends, r->ag.nsends);
	assert_memory_equal(b.rs.sends, r->rs.sends, r->rs.nsends * sizeof(*r->rs.sends));
	assert_memory_equal(b.ag.sends, r->ag.sends, r->ag.nsends * sizeof(*r->ag.sends));
	assert_int_equal(tacos_result_check(&b, &d), 0);
	tacos_result_done(&b);
	free(text);
}

static void t_text_bad(const char *text, const char *needle)
{
	struct tacos_result r;
	struct diag d = {0};

	assert_int_equal(tacos_result_parse(text, strlen(text), &r, &d), -EINVAL);
	if (!strstr(d.msg, needle))
		fail_msg("'%s' lacks '%s'", d.msg, needle);
	assert_null(r.rs.sends);
	assert_null(r.ag.sends);
}

static void test_shipping(void **state)
{
	uint32_t seed = 11, i;
	struct tacos_result r;
	struct coll_params p = {.kind = COLL_ALLREDUCE, .algo = COLL_TACOS, .elem = 4};
	struct diag d = {0};
	struct t_g g;

	(void)state;
	for (i = 0; i < 6; i++) {
		struct tacos_cfg c = t_cfg(1 << 20, 1 + i % 2, 2, i);

		t_random(&g, 4 + t_rand(&seed, 6), &seed);
		t_ar(&g, &c, &r);
		t_text_round_trip(&r);
		p.nranks = g.n;
		p.bytes = 4ull * (3 * g.n * c.k + 1);
		t_rank_slices(&r, &p);
		r.ag.sends[0].dst = g.n; /* what emu-node checks before it builds */
		assert_int_equal(tacos_result_check(&r, &d), -EINVAL);
		assert_non_null(strstr(d.msg, "all-gather send 0"));
		tacos_result_done(&r);
	}
	t_text_bad("", "empty");
	t_text_bad("# only\n", "empty");
	t_text_bad("tacos 2 2 1 8 0 1 0 0\n", "line 1: format version");
	t_text_bad("tacos 1 2 1 8 0 1 0 1\n", "line 1: the text ends");
	t_text_bad("tacos 1 2 1 8 0 1 0 1\nrs 0 0 1 0 0 1\n", "line 2: expected an 'ag' send");
	t_text_bad("tacos 1 2 1 8 0 1 0 1\nag 0 0 2 0 0 1\n", "line 2: a chunk or NPU");
	t_text_bad("tacos 1 2 1 8 0 1 0 1\n# c\nag 1 1 0 0 2 1\n", "line 3: times");
	t_text_bad("tacos 1 2 1 8 0 1 0 1\nag 1 1 0 0 0 1\nag 0 0 1 0 0 1\n",
		   "more sends than the header");
	t_text_bad("tacos 1 2 1 8 0 1 0 1 x\n", "line 1: expected 'tacos");
}

/* The graph of a job on a generated direct topology: a 4x4 mesh's 48 directed links at the
 * paper rate, NPUs in the job's rank order; an unwound switch only in the granted direction. */
static void test_topo_graph(void **state)
{
	struct gen_direct_params mp = {.kind = GEN_DIRECT_MESH2D, .size = {4, 4}, .rate = GBYTE};
	struct gen_direct_params up = {.kind = GEN_DIRECT_UNWOUND, .ndims = 1};
	struct topo *t = topo_new();
	uint32_t eps[16], i, nl;
	struct tacos_link *l;
	struct tacos_topo_in in = {t, &mp, eps, 16, 5e-7, 0.001};
	struct diag d = {0};

	(void)state;
	assert_int_equal(gen_direct(t, &mp, 0.001, &d), 0);
	assert_int_equal(topo_finalize(t, &d), 0);
	for (i = 0; i < 16; i++)
		eps[i] = 15 - i; /* rank i on NPU 15 - i */
	assert_int_equal(tacos_topo_graph(&in, &l, &nl, &d), 0);
	assert_int_equal(nl, 48);
	for (i = 0; i < nl; i++) {
		uint32_t a = 15 - l[i].src, b = 15 - l[i].dst; /* back to NPU ids */

		assert_int_equal(l[i].rate, GBYTE);
		assert_true(l[i].alpha == 5e-7);
		assert_true(a / 4 == b / 4 ? (a > b ? a - b : b - a) == 1
					   : a % 4 == b % 4 && (a > b ? a - b : b - a) == 4);
	}
	assert_int_equal(tacos_graph_check(&(struct tacos_graph){16, nl, l}, &d), 0);
	free(l);
	topo_free(t);
	up.dim[0] = (struct gen_unwind_dim){.size = 5, .degree = 1, .rate = 4 * GBYTE};
	t = topo_new();
	in = (struct tacos_topo_in){t, &up, eps, 5, 0, 1.0};
	for (i = 0; i < 5; i++)
		eps[i] = i;
	assert_int_equal(gen_direct(t, &up, 1.0, &d), 0);
	assert_int_equal(topo_finalize(t, &d), 0);
	assert_int_equal(tacos_topo_graph(&in, &l, &nl, &d), 0);
	assert_int_equal(nl, 5); /* the ring n -> n+1 only; the kernel's reverse links unused */
	for (i = 0; i < nl; i++)
		assert_int_equal(l[i].dst, (l[i].src + 1) % 5);
	free(l);
	topo_free(t);
}

static void test_refusals(void **state)
{
	struct tacos_cfg c = t_cfg(1000, 1, 1, 0);
	struct coll_params p = {.kind = COLL_ALLTOALL, .nranks = 4, .elem = 4, .bytes = 64};
	struct tacos_result r;
	struct coll_sched s;
	struct diag d = {0};
	struct t_g g;

	(void)state;
	t_ring(&g, 4, false);
	g.n = 0;
	t_refuse(&g, c, "0 NPUs");
	g.n = 3;
	t_refuse(&g, c, "link 2 (2 -> 3) names an NPU out of 0..2");
	t_ring(&g, 4, false);
	g.l[1].dst = 1;
	t_refuse(&g, c, "self link on NPU 1");
	t_ring(&g, 4, false);
	g.l[2].rate = 0;
	t_refuse(&g, c, "link 2 (2 -> 3) has rate 0");
	t_ring(&g, 4, false);
	g.l[3].alpha = -1e-6;
	t_refuse(&g, c, "alpha -1e-06");
	t_ring(&g, 4, false);
	t_add(&g, 1, 2, 0, UNIT_RATE);
	t_refuse(&g, c, "duplicate link 1 -> 2");
	t_ring(&g, 4, false);
	g.m = 3; /* a path 0 -> 1 -> 2 -> 3 */
	t_refuse(&g, c, "NPU 1 cannot reach NPU 0");
	t_ring(&g, 4, false);
	g.l[0].src = 1, g.l[0].dst = 0; /* 1 -> 0, 1 -> 2 -> 3 -> 0: nothing reaches 1 */
	t_refuse(&g, c, "NPU 0 cannot reach NPU 1");
	t_ring(&g, 4, false);
	c.k = 0;
	t_refuse(&g, c, "k 0");
	c.k = 1;
	t_ag(&g, &c, &r);
	assert_int_equal(tacos_coll_sched(&r, &p, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "not alltoall"));
	p.kind = COLL_ALLREDUCE;
	diag_clear(&d);
	assert_int_equal(tacos_coll_sched(&r, &p, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "without reduce-scatter"));
	p.kind = COLL_ALLGATHER, p.nranks = 5;
	diag_clear(&d);
	assert_int_equal(tacos_coll_sched(&r, &p, &s, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "5 ranks"));
	tacos_result_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rings),	      cmocka_unit_test(test_meshes),
		cmocka_unit_test(test_properties),    cmocka_unit_test(test_failed_npus),
		cmocka_unit_test(test_switch_switch), cmocka_unit_test(test_steps),
		cmocka_unit_test(test_refusals),      cmocka_unit_test(test_shipping),
		cmocka_unit_test(test_topo_graph),    cmocka_unit_test(test_pinned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
