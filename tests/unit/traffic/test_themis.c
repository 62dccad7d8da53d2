// SPDX-License-Identifier: MIT
/* Themis (traffic/themis.c) and the multidim all-reduce (traffic/coll_md.c): the paper's
 * worked example and toy timing, the predicted utilizations, determinism, refusals, and many
 * shapes through the prover (traffic/coll_prove.c). */
#include <errno.h>
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
#include "traffic/themis.h"

#define MIB (1024.0 * 1024.0)
#define GBIT 1000000000ull

/* A platform: sizes and rates (in units of 1 Gbit/s, or of 400 Mbit/s for the tables). */
struct t_plat {
	uint8_t ndims;
	uint32_t size[COLL_MD_DIMS];
	double rate[COLL_MD_DIMS];
};

static struct coll_md t_md(const struct t_plat *pl, uint64_t unit, uint32_t chunks, uint8_t active,
			   uint8_t sched, uint8_t intra)
{
	struct coll_md md = {.ndims = pl->ndims, .sched = sched, .intra = intra};
	uint32_t k;

	md.chunks = chunks;
	md.thr_div = 16;
	for (k = 0; k < pl->ndims; k++) {
		md.dim[k].size = pl->size[k];
		md.dim[k].active = active;
		md.dim[k].rate = (uint64_t)(pl->rate[k] * (double)unit);
	}
	return md;
}

static void t_plan(const struct coll_md *md, double bytes, struct themis_plan *pl)
{
	struct diag d = {0};

	if (themis_plan_build(md, bytes, pl, &d))
		fail_msg("plan: %s", d.msg);
}

/* Fig. 5/7: 4x4, dim 1 at half dim 0's bandwidth, a 256 MB all-reduce in 4 chunks. */
static const struct t_plat t_toy = {2, {4, 4}, {2, 1}};

/* Themis §4.2's worked example: chunk 1 starts on dim 1 ("Themis schedules the second chunk to
 * start from dim2"), the others on dim 0; the all-gather stages reverse each order. */
static void test_orders_example(void **state)
{
	static const uint8_t themis[4][4] = {
		{0, 1, 1, 0}, {1, 0, 0, 1}, {0, 1, 1, 0}, {0, 1, 1, 0}};
	struct coll_md md = t_md(&t_toy, GBIT, 4, 1, COLL_MD_THEMIS, COLL_MD_FIFO);
	uint8_t order[16];
	struct diag d = {0};
	uint32_t c;

	(void)state;
	assert_int_equal(themis_orders(&md, 256 * MIB, order, &d), 0);
	assert_memory_equal(order, themis, sizeof(order));
	md.sched = COLL_MD_BASELINE;
	assert_int_equal(themis_orders(&md, 256 * MIB, order, &d), 0);
	for (c = 0; c < 4; c++)
		assert_memory_equal(order + 4 * c, themis[0], 4);
}

/* The plan's time in units of a 64 MB reduce-scatter on dim 0 (48 MB at B_0). */
static double t_toy_time(uint8_t sched, uint8_t intra, struct themis_plan *pl)
{
	struct coll_md md = t_md(&t_toy, GBIT, 4, 1, sched, intra);
	double unit = 64 * MIB * 3 / 4 / (2.0 * GBIT / 8);

	t_plan(&md, 256 * MIB, pl);
	assert_float_equal(pl->t_ideal / unit, 20.0 / 3, 1e-9);
	return pl->makespan / unit;
}

/* Dimension k's ops in start order, as (chunk, phase) pairs. */
static void t_seq_is(const struct themis_plan *pl, uint32_t k, const uint8_t (*want)[2])
{
	const struct themis_op *op;
	uint32_t j;

	for (j = 0; j < 2 * pl->chunks; j++) {
		op = &pl->ops[pl->seq[k * 2 * pl->chunks + j]];
		if (op->chunk != want[j][0] || op->phase != want[j][1] || op->seq != j)
			fail_msg("dim %u op %u: chunk %u phase %u, expected chunk %u phase %u", k,
				 j, op->chunk, op->phase, want[j][0], want[j][1]);
	}
}

/* Fig. 5/7 toy with one op at a time per dimension: baseline 8, Themis+FIFO 8 (dim 1 works on
 * chunk 1's 2-unit all-gather while dim 0 starves), Themis+SCF 7, ideal 20/3. */
static void test_toy_timing(void **state)
{
	static const uint8_t scf0[8][2] = {{0, 0}, {2, 0}, {1, 1}, {1, 2},
					   {3, 0}, {0, 3}, {2, 3}, {3, 3}};
	static const uint8_t scf1[8][2] = {{1, 0}, {0, 1}, {2, 1}, {0, 2},
					   {2, 2}, {3, 1}, {3, 2}, {1, 3}};
	struct themis_plan pl;

	(void)state;
	assert_float_equal(t_toy_time(COLL_MD_BASELINE, COLL_MD_FIFO, &pl), 8.0, 1e-9);
	themis_plan_done(&pl);
	assert_float_equal(t_toy_time(COLL_MD_BASELINE, COLL_MD_SCF, &pl), 8.0, 1e-9);
	themis_plan_done(&pl);
	assert_float_equal(t_toy_time(COLL_MD_THEMIS, COLL_MD_FIFO, &pl), 8.0, 1e-9);
	themis_plan_done(&pl);
	assert_float_equal(t_toy_time(COLL_MD_THEMIS, COLL_MD_SCF, &pl), 7.0, 1e-9);
	t_seq_is(&pl, 0, scf0);
	t_seq_is(&pl, 1, scf1);
	themis_plan_done(&pl);
	themis_plan_done(&pl); /* idempotent */
	themis_plan_done(NULL);
}

/* One row of the predicted utilizations (our own bandwidth-only model of Themis's scheduling,
 * not the paper's numbers): util % for baseline, Themis+FIFO, Themis+SCF. */
struct t_row {
	const char *id;
	struct t_plat pl;
	double util[3];
};

/* C = 64, 64 MiB, bandwidth only, one op at a time per dimension; printed to 0.1%. */
static const struct t_row t_rows[] = {
	{"T0", {2, {4, 4}, {2, 1}}, {83.3, 99.7, 99.7}},
	{"S1", {2, {4, 4}, {1, 1}}, {62.5, 100, 100}},
	{"S2", {3, {4, 2, 2}, {1, 1, 1}}, {41.7, 96.4, 99.7}},
	{"S3", {3, {4, 2, 2}, {2, 1, 0.5}}, {71.4, 96.2, 98.0}},
	{"S4", {4, {2, 2, 2, 2}, {1, 1, 1, 1}}, {46.9, 99.2, 99.2}},
	{"C1", {3, {2, 2, 2}, {2, 1, 0.5}}, {97.0, 97.0, 97.0}},
	{"C2", {2, {4, 4}, {4, 0.5}}, {55.1, 55.1, 55.1}},
};

static double t_util(const struct t_plat *p, uint32_t chunks, uint8_t sched, uint8_t intra)
{
	struct coll_md md = t_md(p, 400000000ull, chunks, 1, sched, intra);
	struct themis_plan pl;
	double u;

	t_plan(&md, 64 * MIB, &pl);
	u = 100 * pl.t_ideal / pl.makespan;
	themis_plan_done(&pl);
	return u;
}

/* The baseline analytically: each dimension does 2C stages of fixed size in a row; dimension
 * 0 is the bottleneck in all but C2, where dimension 1 is and dimension 0's stages of the
 * first and last chunk stick out. */
static double t_base_util(const struct t_plat *p)
{
	double s = 64 * MIB / 64, t_ideal = 0, n = 1, bw = 0, work[COLL_MD_DIMS], tmax = 0;
	uint32_t k;

	for (k = 0; k < p->ndims; k++) {
		work[k] = 2 * 64 * s / n * (p->size[k] - 1) / p->size[k] / (p->rate[k] * 50e6);
		n *= p->size[k];
		bw += p->rate[k] * 50e6;
		tmax = work[k] > tmax ? work[k] : tmax;
	}
	t_ideal = 2 * 64 * MIB * (n - 1) / n / bw;
	if (work[0] < tmax) /* C2 */
		tmax += work[0] / 64;
	return 100 * t_ideal / tmax;
}

static void test_util_table(void **state)
{
	static const uint8_t sc[3][2] = {{COLL_MD_BASELINE, COLL_MD_FIFO},
					 {COLL_MD_THEMIS, COLL_MD_FIFO},
					 {COLL_MD_THEMIS, COLL_MD_SCF}};
	const struct t_row *r;
	uint32_t i, v;
	double u;

	(void)state;
	for (i = 0; i < sizeof(t_rows) / sizeof(t_rows[0]); i++) {
		r = &t_rows[i];
		for (v = 0; v < 3; v++) {
			u = t_util(&r->pl, 64, sc[v][0], sc[v][1]);
			if (u < r->util[v] - 0.05 || u > r->util[v] + 0.05)
				fail_msg("%s variant %u: %.3f%%, predicted %.1f%%", r->id, v, u,
					 r->util[v]);
		}
		if (strcmp(r->id, "C1")) /* C1's pipeline fill is not in the bound */
			assert_float_equal(t_util(&r->pl, 64, COLL_MD_BASELINE, COLL_MD_FIFO),
					   t_base_util(&r->pl), 1e-6);
	}
	/* S3 with 16 chunks: 82.6% / 90.2% */
	assert_float_equal(t_util(&t_rows[3].pl, 16, COLL_MD_THEMIS, COLL_MD_FIFO), 82.6, 0.05);
	assert_float_equal(t_util(&t_rows[3].pl, 16, COLL_MD_THEMIS, COLL_MD_SCF), 90.2, 0.05);
}

/* A schedule's parameters; rank = c_0 + P_0 (c_1 + ...). */
static struct coll_params t_params(const struct coll_md *md, uint64_t elems, uint32_t elem)
{
	struct coll_params p = {.kind = md->kind, .algo = COLL_MULTIDIM, .elem = elem};
	uint32_t k;

	p.nranks = 1;
	for (k = 0; k < md->ndims; k++)
		p.nranks *= md->dim[k].size;
	p.bytes = elems * elem;
	p.md = *md;
	return p;
}

static void t_same_plan(const struct coll_md *md, double bytes)
{
	struct themis_plan a, b;
	size_t n = (size_t)md->chunks * themis_phases(md);

	t_plan(md, bytes, &a);
	t_plan(md, bytes, &b);
	assert_memory_equal(a.ops, b.ops, n * sizeof(*a.ops));
	assert_memory_equal(a.seq, b.seq, n * sizeof(*a.seq));
	assert_memory_equal(a.started, b.started, n * sizeof(*a.started));
	assert_memory_equal(&a.makespan, &b.makespan, sizeof(a.makespan));
	themis_plan_done(&a);
	themis_plan_done(&b);
}

static void t_same_sched(const struct coll_params *p)
{
	struct coll_sched a, b;
	struct diag d = {0};

	assert_int_equal(coll_sched_build(p, &a, &d), 0);
	assert_int_equal(coll_sched_build(p, &b, &d), 0);
	assert_int_equal(a.steps.n, b.steps.n);
	assert_int_equal(a.deps.n, b.deps.n);
	assert_memory_equal(a.ranks.v, b.ranks.v, a.ranks.n * sizeof(*a.ranks.v));
	assert_memory_equal(a.steps.v, b.steps.v, a.steps.n * sizeof(*a.steps.v));
	assert_memory_equal(a.deps.v, b.deps.v, a.deps.n * sizeof(*a.deps.v));
	coll_sched_done(&a);
	coll_sched_done(&b);
}

static void test_determinism(void **state)
{
	static const struct t_plat mixed = {3, {4, 2, 2}, {2, 1, 0.5}};
	struct coll_md md = t_md(&mixed, GBIT, 64, 3, COLL_MD_THEMIS, COLL_MD_SCF);
	struct coll_params p;

	(void)state;
	t_same_plan(&md, 1e9 / 3);
	md.intra = COLL_MD_FIFO;
	t_same_plan(&md, 64 * MIB);
	md.chunks = 5;
	md.dim[1].algo = COLL_MD_DIRECT;
	p = t_params(&md, 5 * 16 * 7 + 3, 4);
	t_same_sched(&p);
	md.kind = COLL_ALLGATHER;
	t_same_plan(&md, 64 * MIB);
	p = t_params(&md, 5 * 16 * 7 + 3, 4);
	t_same_sched(&p);
}

/* Refusals: each bad parameter names itself. */
static void t_reject(const struct coll_params *p, const char *needle)
{
	struct coll_sched s;
	struct diag d = {0};

	assert_int_equal(coll_sched_build(p, &s, &d), -EINVAL);
	if (!strstr(d.msg, needle))
		fail_msg("message \"%s\" lacks \"%s\"", d.msg, needle);
	assert_int_equal(s.steps.n, 0);
	coll_sched_done(&s);
}

/* p is ok but for what `change` does. */
#define T_BAD(change, needle)         \
	do {                          \
		p = ok;               \
		change;               \
		t_reject(&p, needle); \
	} while (0)

static void test_refusals(void **state)
{
	struct coll_md md = t_md(&t_toy, GBIT, 4, 1, COLL_MD_THEMIS, COLL_MD_SCF);
	struct coll_params ok = t_params(&md, 1000, 4), p;
	struct themis_plan pl;
	struct diag d = {0};

	(void)state;
	T_BAD(p.md.ndims = 0, "0 dimensions");
	T_BAD(p.md.ndims = 5, "5 dimensions");
	T_BAD(p.md.dim[1].size = 1, "dimension 1 has size 1");
	T_BAD(p.md.dim[0].active = 0, "dimension 0: active 0");
	T_BAD(p.md.dim[1].rate = 0, "dimension 1 has rate 0");
	T_BAD(p.md.dim[0].algo = 3, "unknown algorithm 3");
	T_BAD(p.md.dim[0].algo = COLL_MD_HD; p.md.dim[0].size = 3;
	      p.nranks = 12, "dimension 0 has 3 nodes: halving-doubling needs a power of two");
	T_BAD(p.md.chunks = 0, "0 chunks");
	T_BAD(p.md.sched = 2, "unknown scheduler");
	T_BAD(p.md.intra = 2, "unknown intra-dimension policy");
	T_BAD(p.md.thr_div = 0, "thr_div");
	T_BAD(p.nranks = 12, "12 ranks, but 4x4 makes 16");
	T_BAD(p.bytes = 63 * 4, "252 bytes / 4 chunks / 16 ranks leave 3.938 bytes");
	T_BAD(p.bytes = 63 * 4, "less than one 4-byte element");
	T_BAD(p.md.chunks = 16384; p.bytes = 4ull << 20, "16384 chunks x 4 stages exceed");
	T_BAD(p.kind = p.md.kind = COLL_ALLTOALL, "multidim does not build alltoall");
	T_BAD(p.kind = COLL_ALLGATHER, "the plan is for allreduce, the collective allgather");
	T_BAD(p.md.kind = COLL_ALLTOALL, "not collective kind 3");
	p = t_params(&(struct coll_md){.ndims = 2, .chunks = 1, .thr_div = 16}, 1 << 20, 4);
	p.md.dim[0] = (struct coll_md_dim){.size = 32, .algo = COLL_MD_DIRECT, .active = 1};
	p.md.dim[0].rate = GBIT;
	p.md.dim[1] = p.md.dim[0];
	p.nranks = 1024;
	t_reject(&p, "dependencies per step");
	T_BAD(p.md.ndims = 1, "16 ranks, but 4 makes 4");
	/* the planner alone */
	p = ok;
	p.md.dim[1].rate = 0;
	assert_int_equal(themis_plan_build(&p.md, 1e6, &pl, &d), -EINVAL);
	assert_null(pl.ops);
	diag_clear(&d);
	assert_int_equal(themis_plan_build(&ok.md, 0, &pl, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "positive size"));
}

/* Coordinate k of rank r. */
static uint32_t t_coord(const struct coll_md *md, uint32_t r, uint32_t k)
{
	uint32_t j;

	for (j = 0; j < k; j++)
		r /= md->dim[j].size;
	return r % md->dim[k].size;
}

/* The one dimension in which ranks a and b differ. */
static uint32_t t_dim_of(const struct coll_md *md, uint32_t a, uint32_t b)
{
	uint32_t k, dim = COLL_MD_DIMS, n = 0;

	for (k = 0; k < md->ndims; k++)
		if (t_coord(md, a, k) != t_coord(md, b, k))
			dim = k, n++;
	if (n != 1)
		fail_msg("ranks %u and %u differ in %u coordinates", a, b, n);
	return dim;
}

/* Themis §4.6 at run time: on every rank, the ops of each dimension appear in the plan's
 * order, and each step's phase names an op of the step's dimension. */
static void t_check_order(const struct coll_sched *s, const struct themis_plan *pl)
{
	const struct coll_md *md = &s->params.md;
	uint32_t r, i, k, op, next[COLL_MD_DIMS], last[COLL_MD_DIMS];
	const struct coll_step *st;

	for (r = 0; r < s->params.nranks; r++) {
		memset(next, 0, sizeof(next));
		memset(last, 0xff, sizeof(last));
		for (i = 0; i < s->ranks.v[r].step_n; i++) {
			st = &s->steps.v[s->ranks.v[r].step_off + i];
			k = t_dim_of(md, r, st->peer);
			op = st->phase; /* chunk * stages + stage: the op's index */
			assert_int_equal(pl->ops[op].dim, k);
			if (op == last[k])
				continue;
			if (op != pl->seq[k * pl->per_dim + next[k]])
				fail_msg("rank %u step %u: op %u out of dimension %u's order", r, i,
					 op, k);
			next[k]++;
			last[k] = op;
		}
		for (k = 0; k < md->ndims; k++)
			assert_int_equal(next[k], pl->per_dim);
	}
}

static uint64_t t_part(uint64_t len, uint32_t elem, uint32_t n, uint32_t q)
{
	return coll_chunk_off(len, elem, n, q + 1) - coll_chunk_off(len, elem, n, q);
}

/* Halving-doubling's all-gather: member q sends what it holds before each doubling, its own
 * part, then the 2, 4, ..., n/2 aligned parts around it (the block of 2^i parts q is in). */
static uint64_t t_hd_ag(uint64_t len, uint32_t elem, uint32_t n, uint32_t q)
{
	uint64_t sum = 0;
	uint32_t w, first, j;

	for (w = 1; w < n; w *= 2) {
		first = q / w * w;
		for (j = first; j < first + w; j++)
			sum += t_part(len, elem, n, j);
	}
	return sum;
}

/* What rank r sends in a chunk's stages over a range of len bytes on dimension k: the
 * reduce-scatter every part but its own (halving-doubling too, half by half); the all-gather
 * its own part to each member (direct), the blocks it holds before each doubling (HD),
 * or every part but the next member's (one ring), or with a ring each way round (three members
 * or more) the first half of every part but the next member's and the second half of every
 * part but the previous member's. */
static uint64_t t_stage_sent(const struct coll_md *md, const struct coll_md_dim *dm, uint64_t len,
			     uint32_t elem, uint32_t q)
{
	uint32_t n = dm->size;
	uint64_t own = t_part(len, elem, n, q), rs = len - own, ag;

	if (dm->algo == COLL_MD_DIRECT)
		ag = (n - 1) * own;
	else if (dm->algo == COLL_MD_HD)
		ag = t_hd_ag(len, elem, n, q);
	else if (n == 2)
		ag = len - t_part(len, elem, n, (q + 1) % n);
	else
		ag = len - t_part(t_part(len, elem, n, (q + 1) % n), elem, 2, 0) -
		     t_part(t_part(len, elem, n, (q + n - 1) % n), elem, 2, 1);
	return (md->kind != COLL_ALLGATHER ? rs : 0) + (md->kind != COLL_REDUCESCATTER ? ag : 0);
}

/* The dimension of chunk c's i-th cut (coll_md.c): its i-th reduce-scatter stage, or for an
 * all-gather its stages reversed. */
static uint32_t t_cut(const struct themis_plan *pl, uint32_t c, uint32_t i)
{
	uint32_t j = pl->kind == COLL_ALLGATHER ? pl->ndims - 1 - i : i;

	return pl->ops[c * pl->nphases + j].dim;
}

static uint64_t t_expect_sent(const struct coll_params *p, const struct themis_plan *pl, uint32_t r)
{
	uint64_t sum = 0, len;
	uint32_t c, j, k, q;

	for (c = 0; c < pl->chunks; c++) {
		len = t_part(p->bytes, p->elem, pl->chunks, c);
		for (j = 0; j < pl->ndims; j++) {
			k = t_cut(pl, c, j);
			q = t_coord(&p->md, r, k);
			sum += t_stage_sent(&p->md, &p->md.dim[k], len, p->elem, q);
			len = t_part(len, p->elem, p->md.dim[k].size, q);
		}
	}
	return sum;
}

/* Builds p, runs it through the executor, checks the order and the volume. */
static void t_check(const struct coll_params *p)
{
	struct coll_sched s;
	struct themis_plan pl;
	struct diag d = {0};
	char msg[512];
	uint32_t r;

	if (coll_sched_build(p, &s, &d))
		fail_msg("build: %s", d.msg);
	if (t_sim_run(&s, msg, sizeof(msg)))
		fail_msg("%ux%ux%ux%u chunks %u active %u bytes %llu: %s", p->md.dim[0].size,
			 p->md.dim[1].size, p->md.dim[2].size, p->md.dim[3].size, p->md.chunks,
			 p->md.dim[0].active, (unsigned long long)p->bytes, msg);
	t_plan(&p->md, (double)p->bytes, &pl);
	t_check_order(&s, &pl);
	for (r = 0; r < p->nranks; r++)
		assert_int_equal(coll_sched_bytes_sent(&s, r), t_expect_sent(p, &pl, r));
	themis_plan_done(&pl);
	coll_sched_done(&s);
}

static uint32_t t_rand(uint32_t *seed, uint32_t n)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) % n;
}

/* The most chunks the executor takes for the shape (it checks up to 4000 steps). */
static uint32_t t_max_chunks(const struct t_plat *p)
{
	uint32_t k, n = 1, per = 0, c;

	for (k = 0; k < p->ndims; k++) {
		n *= p->size[k];
		per += (p->size[k] > 2 ? 8 : 4) * (p->size[k] - 1); /* rings both ways */
	}
	c = 3999 / (n * per);
	return c < 64 ? c : 64;
}

/* One random case of a kind on a shape: rates, ring, direct or halving-doubling per dimension,
 * active per dimension, chunks, size and element size. */
static void t_random(const struct t_plat *shape, uint32_t *seed, uint8_t kind, uint8_t sched,
		     uint8_t intra)
{
	static const double rates[4][COLL_MD_DIMS] = {
		{1, 1, 1, 1}, {2, 1, 0.5, 0.25}, {1, 2, 4, 8}, {3, 1, 2, 1}};
	static const uint32_t elem_sizes[] = {4, 8, 1};
	struct t_plat pl = *shape;
	uint32_t k, ri = t_rand(seed, 4), chunks = 1 + t_rand(seed, t_max_chunks(shape));
	struct coll_md md;
	struct coll_params p;
	uint64_t elems;

	for (k = 0; k < pl.ndims; k++)
		pl.rate[k] = rates[ri][k];
	md = t_md(&pl, GBIT, chunks, 1, sched, intra);
	md.kind = kind;
	for (k = 0; k < pl.ndims; k++) {
		md.dim[k].algo = (uint8_t)t_rand(seed, 3);
		if (md.dim[k].algo == COLL_MD_HD && (pl.size[k] & (pl.size[k] - 1)))
			md.dim[k].algo = COLL_MD_DIRECT;
		md.dim[k].active = (uint8_t)(1 + t_rand(seed, 4));
	}
	p = t_params(&md, 1, elem_sizes[t_rand(seed, 3)]);
	elems = (uint64_t)chunks * p.nranks * (1 + t_rand(seed, 3)) + t_rand(seed, 7);
	p.bytes = elems * p.elem;
	t_check(&p);
}

static const struct t_plat t_shapes[] = {
	{1, {4}, {1}},
	{2, {2, 2}, {1, 1}},
	{2, {3, 2}, {1, 1}},
	{2, {2, 3}, {1, 1}},
	{2, {4, 4}, {1, 1}},
	{3, {2, 2, 2}, {1, 1, 1}},
	{3, {4, 2, 2}, {1, 1, 1}},
	{3, {2, 3, 2}, {1, 1, 1}},
	{3, {3, 3, 3}, {1, 1, 1}},
	{4, {2, 2, 2, 2}, {1, 1, 1, 1}},
	{4, {2, 3, 2, 2}, {1, 1, 1, 1}},
	{4, {2, 2, 2, 4}, {1, 1, 1, 1}},
};

/* Themis Alg. 1 lines 9-11 on the same toy: a reduce-scatter alone takes the all-reduce's
 * reduce-scatter orders; an all-gather alone starts each chunk at 4 MB, puts the biggest stage
 * on the least-loaded dimension (descending loads) and mirrors them: loads (in MB / B_1)
 * 24|12 after [1,0], 30|60 after [0,1], then [1,0] twice. Ideal time is half the
 * all-reduce's. */
static void test_orders_halves(void **state)
{
	static const uint8_t rs[8] = {0, 1, 1, 0, 0, 1, 0, 1}, ag[8] = {1, 0, 0, 1, 1, 0, 1, 0};
	struct coll_md md = t_md(&t_toy, GBIT, 4, 1, COLL_MD_THEMIS, COLL_MD_FIFO);
	uint8_t order[8];
	struct diag d = {0};
	double ar;

	(void)state;
	ar = themis_t_ideal(&md, 256 * MIB);
	md.kind = COLL_REDUCESCATTER;
	assert_int_equal(themis_phases(&md), 2);
	assert_int_equal(themis_orders(&md, 256 * MIB, order, &d), 0);
	assert_memory_equal(order, rs, sizeof(order));
	assert_float_equal(themis_t_ideal(&md, 256 * MIB), ar / 2, ar * 1e-12);
	md.kind = COLL_ALLGATHER;
	assert_int_equal(themis_orders(&md, 256 * MIB, order, &d), 0);
	assert_memory_equal(order, ag, sizeof(order));
	md.sched = COLL_MD_BASELINE;
	assert_int_equal(themis_orders(&md, 256 * MIB, order, &d), 0);
	assert_memory_equal(order, ag, 2); /* the baseline all-gather: dimension 1 first */
	assert_memory_equal(order + 6, ag, 2);
}

/* Shares: on 2x2 in one chunk, an all-gather over [1, 0] cuts by dimension 0 and then 1, so
 * elements 0..3 are ranks 0, 2, 1, 3's. On random platforms, in every chunk each rank owns one
 * run of elements, of its nested part's length. */
static void t_shares(const struct coll_params *p)
{
	uint64_t e = p->bytes / p->elem, i, lo, hi, len[64] = {0};
	uint32_t *own = calloc(e, sizeof(*own)), c, r, prev;
	struct diag d = {0};

	assert_int_equal(coll_md_owners(p, own, &d), 0);
	for (c = 0; c < p->md.chunks; c++) {
		lo = coll_chunk_off(e, 1, p->md.chunks, c);
		hi = coll_chunk_off(e, 1, p->md.chunks, c + 1);
		memset(len, 0, sizeof(len));
		for (i = lo, prev = UINT32_MAX; i < hi; prev = own[i], i++) {
			assert_true(own[i] < p->nranks);
			if (own[i] != prev && len[own[i]])
				fail_msg("chunk %u: rank %u owns two runs", c, own[i]);
			len[own[i]]++;
		}
		for (r = 0; r < p->nranks; r++) /* parts of parts: within one element of even */
			assert_true(len[r] * p->nranks + p->nranks >= hi - lo &&
				    len[r] * p->nranks <= hi - lo + p->nranks * p->md.ndims);
	}
	free(own);
}

static void test_shares(void **state)
{
	static const uint32_t want[4] = {0, 2, 1, 3};
	struct coll_md md = t_md(&t_shapes[1], GBIT, 1, 1, COLL_MD_BASELINE, COLL_MD_FIFO);
	struct coll_params p;
	uint32_t own[4], seed = 7, i, k;
	struct diag d = {0};

	(void)state;
	md.kind = COLL_ALLGATHER;
	p = t_params(&md, 4, 4);
	assert_int_equal(coll_md_owners(&p, own, &d), 0);
	assert_memory_equal(own, want, sizeof(want));
	for (i = 0; i < 40; i++) {
		const struct t_plat *sh = &t_shapes[t_rand(&seed, 10)];

		md = t_md(sh, GBIT, 1 + t_rand(&seed, 9), 1, (uint8_t)t_rand(&seed, 2),
			  COLL_MD_SCF);
		for (k = 0; k < sh->ndims; k++)
			md.dim[k].rate = GBIT << t_rand(&seed, 3);
		md.kind = i % 2 ? COLL_ALLGATHER : COLL_REDUCESCATTER;
		p = t_params(&md,
			     (uint64_t)md.chunks * 64 * (1 + t_rand(&seed, 4)) + t_rand(&seed, 50),
			     4);
		t_shares(&p);
	}
}

/* Six all-reduces, three reduce-scatters and three all-gathers per shape and scheduler. */
static void test_executor(void **state)
{
	static const uint8_t kinds[12] = {
		COLL_ALLREDUCE, COLL_REDUCESCATTER, COLL_ALLREDUCE, COLL_ALLGATHER,
		COLL_ALLREDUCE, COLL_REDUCESCATTER, COLL_ALLREDUCE, COLL_ALLGATHER,
		COLL_ALLREDUCE, COLL_REDUCESCATTER, COLL_ALLREDUCE, COLL_ALLGATHER};
	uint32_t seed = 1, i, v, sc;

	(void)state;
	for (i = 0; i < sizeof(t_shapes) / sizeof(t_shapes[0]); i++)
		for (sc = 0; sc < 4; sc++)
			for (v = 0; v < 12; v++)
				t_random(&t_shapes[i], &seed, kinds[v], (uint8_t)(sc / 2),
					 (uint8_t)(sc % 2));
}

/* The corners: 64 chunks on 2x2 (ring, direct), one chunk on 4x4x4, the fewest elements. */
static void test_executor_edges(void **state)
{
	static const struct t_plat big = {3, {4, 4, 4}, {1, 2, 4}};
	struct coll_md md = t_md(&t_shapes[1], GBIT, 64, 4, COLL_MD_THEMIS, COLL_MD_SCF);
	struct coll_params p = t_params(&md, 64 * 4 * 3 + 1, 4);

	(void)state;
	p.md.dim[0].rate = 3 * GBIT;
	t_check(&p);
	p.md.dim[0].algo = p.md.dim[1].algo = COLL_MD_DIRECT;
	p.md.intra = COLL_MD_FIFO;
	t_check(&p);
	p.bytes = 64 * 4 * 4;
	t_check(&p);
	md = t_md(&big, GBIT, 1, 1, COLL_MD_THEMIS, COLL_MD_SCF);
	p = t_params(&md, 64, 8);
	t_check(&p);
}

/* coll_sched_build_rank holds each rank's slice of the full build. */
static void t_slices(const struct coll_params *p)
{
	struct coll_sched full, one;
	const struct coll_rank *fr;
	struct diag d = {0};
	uint32_t r, i;

	assert_int_equal(coll_sched_build(p, &full, &d), 0);
	for (r = 0; r < p->nranks; r++) {
		assert_int_equal(coll_sched_build_rank(p, r, &one, &d), 0);
		fr = &full.ranks.v[r];
		assert_int_equal(one.ranks.v[r].step_n, fr->step_n);
		assert_int_equal(one.steps.n, fr->step_n);
		for (i = 0; i < fr->step_n; i++) {
			const struct coll_step *a = &full.steps.v[fr->step_off + i];
			const struct coll_step *b = &one.steps.v[i];

			assert_memory_equal(&a->op, &b->op, offsetof(struct coll_step, dep_off));
			assert_int_equal(a->dep_n, b->dep_n);
			assert_memory_equal(&full.deps.v[a->dep_off], &one.deps.v[b->dep_off],
					    a->dep_n * sizeof(uint32_t));
		}
		coll_sched_done(&one);
	}
	coll_sched_done(&full);
}

static void test_rank_slices(void **state)
{
	struct coll_md md = t_md(&t_shapes[6], GBIT, 7, 2, COLL_MD_THEMIS, COLL_MD_SCF);
	struct coll_params p = t_params(&md, 7 * 16 * 3 + 5, 4);

	(void)state;
	t_slices(&p);
	p.md.dim[1].algo = COLL_MD_DIRECT;
	p.md.sched = COLL_MD_BASELINE;
	t_slices(&p);
}

/* The first (fst) or last step of op on rank r: its phase names it. */
static uint32_t t_op_step(const struct coll_sched *s, uint32_t r, uint32_t op, bool fst)
{
	const struct coll_rank *cr = &s->ranks.v[r];
	uint32_t i, found = UINT32_MAX;

	for (i = 0; i < cr->step_n; i++) {
		if (s->steps.v[cr->step_off + i].phase != op)
			continue;
		found = i;
		if (fst)
			break;
	}
	assert_int_not_equal(found, UINT32_MAX);
	return found;
}

static bool t_waits(const struct coll_sched *s, uint32_t r, uint32_t i, uint32_t on)
{
	const struct coll_step *st = &s->steps.v[s->ranks.v[r].step_off + i];
	uint32_t j;

	for (j = 0; j < st->dep_n; j++)
		if (s->deps.v[st->dep_off + j] == on)
			return true;
	return false;
}

/* Themis §4.3's `active`: on every rank the j-th op of a dimension starts (its first send)
 * after the last step of the (j - active)-th. */
static void t_gate(uint8_t algo, uint8_t active)
{
	struct coll_md md = t_md(&t_shapes[6], GBIT, 6, active, COLL_MD_THEMIS, COLL_MD_SCF);
	struct coll_params p;
	struct coll_sched s;
	struct themis_plan pl;
	struct diag d = {0};
	uint32_t r, k, j, op, prev, nseq = 2 * 6;

	md.dim[1].algo = md.dim[2].algo = algo;
	p = t_params(&md, 6 * 16, 4);
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	t_plan(&md, (double)p.bytes, &pl);
	for (r = 0; r < p.nranks; r++)
		for (k = 0; k < md.ndims; k++)
			for (j = active; j < nseq; j++) {
				op = pl.seq[k * nseq + j];
				prev = pl.seq[k * nseq + j - active];
				assert_true(t_waits(&s, r, t_op_step(&s, r, op, true),
						    t_op_step(&s, r, prev, false)));
			}
	themis_plan_done(&pl);
	coll_sched_done(&s);
}

static void test_gate(void **state)
{
	(void)state;
	t_gate(COLL_MD_RING, 1);
	t_gate(COLL_MD_DIRECT, 1);
	t_gate(COLL_MD_RING, 2);
	t_gate(COLL_MD_DIRECT, 3);
}

/* A ring dimension of three or more runs a ring each way round: every rank sends exactly
 * half of its bytes to each neighbour (parts of an even element count) and nothing to any other
 * member, so it uses both of its links; a ring of two runs one. */
static void t_ring_ways(const struct t_plat *shape, uint32_t chunks)
{
	struct coll_md md = t_md(shape, GBIT, chunks, 1, COLL_MD_THEMIS, COLL_MD_SCF);
	struct coll_params p = t_params(&md, (uint64_t)chunks * shape->size[0] * 2 * 3, 4);
	struct coll_sched s;
	struct diag d = {0};
	uint32_t r, i, n = shape->size[0];
	uint64_t to[16];

	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	for (r = 0; r < p.nranks; r++) {
		const struct coll_rank *cr = &s.ranks.v[r];

		memset(to, 0, sizeof(to));
		for (i = 0; i < cr->step_n; i++) {
			const struct coll_step *st = &s.steps.v[cr->step_off + i];

			if (st->op == COLL_SEND)
				to[st->peer] += st->len;
		}
		for (i = 0; i < n; i++) {
			if (i == (r + 1) % n || i == (r + n - 1) % n)
				assert_int_equal(to[i],
						 coll_sched_bytes_sent(&s, r) / (n > 2 ? 2 : 1));
			else
				assert_int_equal(to[i], 0);
		}
	}
	coll_sched_done(&s);
	t_check(&p);
}

static void test_ring_ways(void **state)
{
	static const struct t_plat r5 = {1, {5}, {1}}, r3 = {1, {3}, {1}}, r2 = {1, {2}, {1}};

	(void)state;
	t_ring_ways(&r5, 1);
	t_ring_ways(&r5, 4);
	t_ring_ways(&r3, 2);
	t_ring_ways(&r2, 3);
}

static void test_names(void **state)
{
	enum coll_algo a;

	(void)state;
	assert_string_equal(coll_algo_name(COLL_MULTIDIM), "multidim");
	assert_int_equal(coll_algo_parse("multidim", &a), 0);
	assert_int_equal(a, COLL_MULTIDIM);
	assert_true(coll_algo_builds(COLL_MULTIDIM, COLL_ALLREDUCE));
	assert_true(coll_algo_builds(COLL_MULTIDIM, COLL_REDUCESCATTER));
	assert_true(coll_algo_builds(COLL_MULTIDIM, COLL_ALLGATHER));
	assert_false(coll_algo_builds(COLL_MULTIDIM, COLL_ALLTOALL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders_example), cmocka_unit_test(test_toy_timing),
		cmocka_unit_test(test_util_table),     cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_refusals),       cmocka_unit_test(test_names),
		cmocka_unit_test(test_executor),       cmocka_unit_test(test_executor_edges),
		cmocka_unit_test(test_rank_slices),    cmocka_unit_test(test_gate),
		cmocka_unit_test(test_orders_halves),  cmocka_unit_test(test_shares),
		cmocka_unit_test(test_ring_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
