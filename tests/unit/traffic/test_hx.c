// SPDX-License-Identifier: MIT
/* HammingMesh on a 2D torus: the two edge-disjoint Hamiltonian cycles (traffic/hx_cycles.c)
 * checked independently on many shapes, the shape condition and its refusals, and the
 * hx-rings and torus2d all-reduces (traffic/coll_hx.c) through the schedule prover
 * (traffic/coll_prove.c), with every rank's bytes per peer and every peer a torus neighbour. The
 * builders are driven here as coll.c's build loop drives an algorithm, so no algorithm
 * table entry is needed; t_sim_run reads only the kind, ranks, bytes and element size. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/coll_sim.h"
#include "traffic/coll.h"
#include "traffic/coll_hx.h"
#include "traffic/hx_cycles.h"

struct t_shape {
	uint32_t r, c;
};

/* Shapes with the cycle pair (r = c*k, gcd(r, c-1) = 1). */
static const struct t_shape t_good[] = {
	{4, 4}, {8, 4}, {9, 3}, {16, 8}, {8, 8}, {6, 6}, {3, 3}, {15, 5}, {32, 16}, {7, 7},
};
#define T_N_GOOD (sizeof(t_good) / sizeof(t_good[0]))

static uint32_t t_gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Torus neighbours, from coordinates (independent of hx_cycles.c). */
static bool t_nb(uint32_t r, uint32_t c, uint32_t u, uint32_t v)
{
	uint32_t du = (v / c + r - u / c) % r, dv = (v % c + c - u % c) % c;

	if (u == v)
		return false;
	if (!dv)
		return du == 1 || du == r - 1;
	return !du && (dv == 1 || dv == c - 1);
}

/* Each of the n entries of cyc a distinct rank below n, consecutive ones neighbours; every
 * undirected edge it takes is counted in use[min * n + max]. */
static void t_check_cycle(uint32_t r, uint32_t c, const uint32_t *cyc, uint8_t *use)
{
	uint32_t n = r * c, p, u, v;
	uint8_t *seen = calloc(n, 1);

	assert_non_null(seen);
	for (p = 0; p < n; p++) {
		u = cyc[p];
		v = cyc[(p + 1) % n];
		assert_true(u < n);
		assert_int_equal(seen[u]++, 0);
		if (!t_nb(r, c, u, v))
			fail_msg("%ux%u: %u -> %u at position %u is not a torus step", r, c, u, v,
				 p);
		use[(u < v ? u : v) * n + (u < v ? v : u)]++;
	}
	free(seen);
}

/* No edge on both cycles, and for r, c >= 3 the two together take all 2rc torus edges. */
static void t_check_disjoint(uint32_t r, uint32_t c, const uint8_t *use)
{
	uint32_t n = r * c, e, used = 0;

	for (e = 0; e < n * n; e++) {
		if (use[e] > 1)
			fail_msg("%ux%u: edge %u-%u used %u times", r, c, e / n, e % n, use[e]);
		used += use[e];
	}
	assert_int_equal(used, 2 * n);
}

/* The O(1) next, previous and position agree with the walk. */
static void t_check_closed(uint32_t r, uint32_t c, enum hx_cycle w, const uint32_t *cyc)
{
	uint32_t n = r * c, p;

	for (p = 0; p < n; p++) {
		assert_int_equal(hx_cycle_pos(r, c, w, cyc[p]), p);
		assert_int_equal(hx_cycle_next(r, c, w, cyc[p]), cyc[(p + 1) % n]);
		assert_int_equal(hx_cycle_prev(r, c, w, cyc[(p + 1) % n]), cyc[p]);
	}
}

/* Builds both cycles of a good shape and checks them from scratch. */
static void t_cycles_ok(uint32_t r, uint32_t c)
{
	uint32_t n = r * c, *a = calloc(2 * n, sizeof(*a)), *b = a + n;
	uint8_t *use = calloc((size_t)n * n, 1);
	struct diag d = {0};

	assert_non_null(a);
	assert_non_null(use);
	if (hx_cycles(r, c, a, b, &d))
		fail_msg("%ux%u: %s", r, c, d.msg);
	assert_int_equal(a[0], 0);
	assert_int_equal(b[0], 0);
	assert_int_equal(a[1], c); /* rank 0 turns: South on A, East on B */
	assert_int_equal(b[1], 1);
	t_check_cycle(r, c, a, use);
	t_check_cycle(r, c, b, use);
	t_check_disjoint(r, c, use);
	t_check_closed(r, c, HX_CYCLE_A, a);
	t_check_closed(r, c, HX_CYCLE_B, b);
	free(use);
	free(a);
}

static void test_cycles(void **state)
{
	uint32_t i;

	(void)state;
	for (i = 0; i < T_N_GOOD; i++)
		t_cycles_ok(t_good[i].r, t_good[i].c);
}

/* The construction succeeds exactly where the paper's condition holds. */
static void test_cycles_condition(void **state)
{
	uint32_t r, c, a[40 * 40], b[40 * 40];
	struct diag d;
	bool cond;
	int err;

	(void)state;
	for (r = 3; r <= 40; r++) {
		for (c = 3; c <= 40; c++) {
			cond = r % c == 0 && t_gcd(r, c - 1) == 1;
			diag_clear(&d);
			err = hx_cycles(r, c, a, b, &d);
			if (err != (cond ? 0 : -EINVAL))
				fail_msg("%ux%u: %d (%s), condition %d", r, c, err, d.msg, cond);
			assert_int_equal(hx_cycles_shape(r, c, NULL), err);
			if (cond && r * c <= 400)
				t_cycles_ok(r, c);
		}
	}
}

static void t_refused(uint32_t r, uint32_t c, const char *want, const char *want2)
{
	uint32_t a[64], b[64];
	struct diag d = {0};

	assert_int_equal(hx_cycles(r, c, a, b, &d), -EINVAL);
	if (!strstr(d.msg, want) || (want2 && !strstr(d.msg, want2)))
		fail_msg("%ux%u: \"%s\" lacks \"%s\" / \"%s\"", r, c, d.msg, want,
			 want2 ? want2 : "");
}

static void test_cycles_refused(void **state)
{
	(void)state;
	t_refused(12, 4, "a 12x4 torus has no pair of edge-disjoint Hamiltonian cycles",
		  "r = c*k and gcd(r, c-1) = 1 needed (gcd(12, 3) = 3)");
	t_refused(6, 3, "6x3", "(gcd(6, 2) = 2)");
	t_refused(3, 6, "3 rows are not a multiple of 6 columns", NULL);
	t_refused(4, 8, "not a multiple", "the transposed shape has them");
	t_refused(2, 2, "2x2 torus is too narrow", "r >= 3 rows and c >= 3 columns");
	t_refused(4, 2, "4x2 torus is too narrow", "with 2 columns");
	t_refused(2, 4, "2x4 torus is too narrow", "with 2 rows");
	t_refused(0, 3, "0x3 torus has no nodes", NULL);
}

/* --- schedules --- */

typedef void (*t_build_fn)(struct coll_bld *b);

/* coll.c's build loop for one algorithm: every rank in order, each rank's steps recorded. */
static void t_build(t_build_fn fn, const struct coll_params *p, struct coll_sched *s)
{
	struct coll_bld b = {.s = s, .p = &s->params};
	uint32_t r;

	memset(s, 0, sizeof(*s));
	s->params = *p;
	assert_int_equal(vec_reserve(&s->ranks, p->nranks), 0);
	memset(s->ranks.v, 0, p->nranks * sizeof(*s->ranks.v));
	s->ranks.n = p->nranks;
	for (r = 0; r < p->nranks; r++) {
		b.rank = r;
		b.first = s->steps.n;
		fn(&b);
		s->ranks.v[r].step_off = (uint32_t)b.first;
		s->ranks.v[r].step_n = (uint32_t)(s->steps.n - b.first);
	}
	assert_int_equal(b.err, 0);
}

static struct coll_params t_params(uint32_t r, uint32_t c, uint64_t elems, uint32_t elem)
{
	return (struct coll_params){
		.kind = COLL_ALLREDUCE,
		.algo = COLL_RING, /* no table entry yet; the simulator does not read it */
		.nranks = r * c,
		.bytes = elems * elem,
		.elem = elem,
		.group = c,
	};
}

static void t_sim(const struct coll_sched *s, const char *algo)
{
	const struct coll_params *p = &s->params;
	char msg[512];

	if (t_sim_run(s, msg, sizeof(msg)))
		fail_msg("%s %ux%u bytes=%llu elem=%u: %s", algo, p->nranks / p->group, p->group,
			 (unsigned long long)p->bytes, p->elem, msg);
}

static uint64_t t_len(struct coll_range r, uint32_t elem, uint32_t n, uint32_t c)
{
	return coll_part(r, elem, n, c).len;
}

/* A ring all-reduce member at pos sends every chunk but pos, then every chunk but pos+1. */
static uint64_t t_ring_ar(struct coll_range r, uint32_t elem, uint32_t n, uint32_t pos)
{
	return 2 * r.len - t_len(r, elem, n, pos) - t_len(r, elem, n, (pos + 1) % n);
}

/* Bytes rank sends to peer; fails if it sends to a non-neighbour. */
static uint64_t t_sent_to(const struct coll_sched *s, uint32_t rank, uint32_t peer)
{
	const struct coll_step *st = &s->steps.v[s->ranks.v[rank].step_off];
	uint32_t r = s->params.nranks / s->params.group, c = s->params.group, i;
	uint64_t sum = 0;

	for (i = 0; i < s->ranks.v[rank].step_n; i++) {
		if (!t_nb(r, c, rank, st[i].peer))
			fail_msg("%ux%u: rank %u step %u talks to rank %u, not a neighbour", r, c,
				 rank, i, st[i].peer);
		if (st[i].op == COLL_SEND && st[i].peer == peer)
			sum += st[i].len;
	}
	return sum;
}

static uint16_t t_max_phase(const struct coll_sched *s)
{
	uint16_t m = 0;
	size_t i;

	for (i = 0; i < s->steps.n; i++)
		if (s->steps.v[i].phase > m)
			m = s->steps.v[i].phase;
	return m;
}

static void t_check_hx_rings(uint32_t r, uint32_t c, uint64_t elems, uint32_t elem)
{
	struct coll_params p = t_params(r, c, elems, elem);
	struct diag d = {0};

	if (coll_hx_rings_check(&p, &d))
		fail_msg("hx-rings %ux%u refused: %s", r, c, d.msg);
}

/* Ring q (cycle A, A backwards, B, B backwards) moves quarter q to the rank's next member on
 * it, and nothing else goes there: the four rings share no link. */
static void t_hx_rings_bytes(const struct coll_sched *s, const uint32_t *cyc)
{
	const struct coll_params *p = &s->params;
	struct coll_range all = {0, p->bytes}, quarter;
	uint32_t n = p->nranks, x, q, pos, bpos, next;
	uint64_t want, total;

	for (x = 0; x < n; x++) {
		total = 0;
		for (q = 0; q < 4; q++) {
			const uint32_t *cy = cyc + (q / 2) * n;

			for (pos = 0; cy[pos] != x; pos++)
				;
			bpos = q % 2 ? (n - pos) % n : pos;
			next = cy[q % 2 ? (pos + n - 1) % n : (pos + 1) % n];
			quarter = coll_part(all, p->elem, 4, q);
			want = t_ring_ar(quarter, p->elem, n, bpos);
			assert_int_equal(t_sent_to(s, x, next), want);
			total += want;
		}
		assert_int_equal(coll_sched_bytes_sent(s, x), total);
	}
}

/* Builds hx-rings on r x c, checks bytes and neighbours, and simulates it if sim. */
static void t_hx_rings_one(uint32_t r, uint32_t c, uint64_t elems, uint32_t elem, bool sim)
{
	struct coll_params p = t_params(r, c, elems, elem);
	uint32_t n = r * c, *cyc = calloc(2 * n, sizeof(*cyc));
	struct diag d = {0};
	struct coll_sched s;

	assert_non_null(cyc);
	t_check_hx_rings(r, c, elems, elem);
	if (hx_cycles(r, c, cyc, cyc + n, &d))
		fail_msg("%s", d.msg);
	t_build(coll_hx_rings_build, &p, &s);
	t_hx_rings_bytes(&s, cyc);
	if (elems >= 4 * n) /* every chunk holds an element: every round is there */
		assert_int_equal(t_max_phase(&s), 2 * (n - 1) - 1);
	if (sim)
		t_sim(&s, "hx-rings");
	coll_sched_done(&s);
	free(cyc);
}

/* The symbolic executor takes up to 4000 steps: a ring has 4 per round and rank where its
 * chunk is not empty, so large tori get few elements (most chunks empty). */
static uint64_t t_hx_elems(uint32_t n)
{
	return n <= 16 ? 4 * n + 3 : n / 2 + 3;
}

static void test_hx_rings_sim(void **state)
{
	static const struct t_shape shapes[] = {{3, 3}, {4, 4}, {8, 4}, {9, 3}, {6, 6}};
	uint32_t i, n;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		n = shapes[i].r * shapes[i].c;
		t_hx_rings_one(shapes[i].r, shapes[i].c, t_hx_elems(n), 4, true);
		t_hx_rings_one(shapes[i].r, shapes[i].c, t_hx_elems(n), 8, true);
		t_hx_rings_one(shapes[i].r, shapes[i].c, 5, 4, true); /* quarters of 2, 1, 1, 1 */
		t_hx_rings_one(shapes[i].r, shapes[i].c, 3, 8, true); /* quarter 3 empty */
		t_hx_rings_one(shapes[i].r, shapes[i].c, 0, 4, true);
	}
}

/* Larger tori, built only: exact bytes per link, and the paper's (S/2) beta: each of the four
 * links carries about S/4 * 2(n-1)/n. */
static void test_hx_rings_large(void **state)
{
	static const struct t_shape shapes[] = {{16, 8}, {8, 8}, {15, 5}, {7, 7}};
	uint32_t i, n;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		n = shapes[i].r * shapes[i].c;
		t_hx_rings_one(shapes[i].r, shapes[i].c, 4ull * n * 3 + 7, 4, false);
		t_hx_rings_one(shapes[i].r, shapes[i].c, 3 * n + 1, 8, false);
	}
}

/* Every send of hx-rings between neighbours a and b carries one ring: per rank, each of the
 * four neighbours gets a quarter's ring traffic, close to S/2 * (n-1)/n. */
static void test_hx_rings_per_link(void **state)
{
	struct coll_params p = t_params(8, 4, 1000003, 4);
	uint32_t n = 32, x, k, nb[4];
	struct coll_sched s;
	double want = (double)p.bytes / 2 * (n - 1) / n;

	(void)state;
	t_build(coll_hx_rings_build, &p, &s);
	for (x = 0; x < n; x++) {
		nb[0] = hx_cycle_next(8, 4, HX_CYCLE_A, x);
		nb[1] = hx_cycle_prev(8, 4, HX_CYCLE_A, x);
		nb[2] = hx_cycle_next(8, 4, HX_CYCLE_B, x);
		nb[3] = hx_cycle_prev(8, 4, HX_CYCLE_B, x);
		for (k = 0; k < 4; k++) {
			double got = (double)t_sent_to(&s, x, nb[k]);

			if (got < want - 16 || got > want + 16)
				fail_msg("rank %u to %u: %.0f bytes, expected %.1f", x, nb[k], got,
					 want);
		}
	}
	coll_sched_done(&s);
}

static uint32_t t_rank(uint32_t c, uint32_t i, uint32_t j)
{
	return i * c + j;
}

/* Half 0: the row ring's reduce-scatter and all-gather go to the row's next rank, the column
 * all-reduce of the piece to the column's next; half 1 transposed. */
static void t_torus2d_bytes(const struct coll_sched *s)
{
	const struct coll_params *p = &s->params;
	uint32_t c = p->group, r = p->nranks / c, e = p->elem, x, i, j;
	struct coll_range all = {0, p->bytes};
	struct coll_range h0 = coll_part(all, e, 2, 0), h1 = coll_part(all, e, 2, 1);
	uint64_t row, col;

	for (x = 0; x < p->nranks; x++) {
		i = x / c;
		j = x % c;
		row = t_ring_ar(h0, e, c, j) +
		      t_ring_ar(coll_part(h1, e, r, i), e, c, j); /* RS + AG = a ring all-reduce */
		col = t_ring_ar(coll_part(h0, e, c, j), e, r, i) + t_ring_ar(h1, e, r, i);
		if (c > 1)
			assert_int_equal(t_sent_to(s, x, t_rank(c, i, (j + 1) % c)), row);
		if (r > 1)
			assert_int_equal(t_sent_to(s, x, t_rank(c, (i + 1) % r, j)), col);
		assert_int_equal(coll_sched_bytes_sent(s, x),
				 (c > 1 ? row : 0) + (r > 1 ? col : 0));
	}
}

static void t_torus2d_one(uint32_t r, uint32_t c, uint64_t elems, uint32_t elem, bool sim)
{
	struct coll_params p = t_params(r, c, elems, elem);
	struct diag d = {0};
	struct coll_sched s;

	if (coll_torus2d_check(&p, &d))
		fail_msg("torus2d %ux%u refused: %s", r, c, d.msg);
	t_build(coll_torus2d_build, &p, &s);
	t_torus2d_bytes(&s);
	if (elems >= 2 * (uint64_t)r * c && r * c > 1)
		assert_int_equal(t_max_phase(&s), 2 * (r - 1) + 2 * (c - 1) - 1);
	if (sim)
		t_sim(&s, "torus2d");
	coll_sched_done(&s);
}

static void test_torus2d_sim(void **state)
{
	static const struct t_shape shapes[] = {
		{3, 3}, {4, 4}, {8, 4}, {4, 8}, {9, 3}, {3, 5}, {4, 2},
		{2, 4}, {2, 2}, {1, 4}, {4, 1}, {1, 1}, {2, 1}, {6, 6},
	};
	uint32_t i, r, c, n;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		r = shapes[i].r;
		c = shapes[i].c;
		n = r * c;
		t_torus2d_one(r, c, 4 * n + 3, 4, true);
		t_torus2d_one(r, c, 2 * n + 1, 8, true);
		t_torus2d_one(r, c, 5, 4, true); /* most pieces empty */
		t_torus2d_one(r, c, 1, 8, true); /* half 1 empty */
		t_torus2d_one(r, c, 0, 4, true);
	}
}

static void test_torus2d_large(void **state)
{
	(void)state;
	t_torus2d_one(16, 8, 100003, 4, false);
	t_torus2d_one(8, 16, 4099, 8, false);
	t_torus2d_one(32, 32, 1000001, 4, false);
}

static void t_coll_refused(int (*check)(const struct coll_params *, struct diag *), uint32_t n,
			   uint32_t group, const char *want, const char *want2)
{
	struct coll_params p = t_params(1, 1, 64, 4);
	struct diag d = {0};

	p.nranks = n;
	p.group = group;
	assert_int_equal(check(&p, &d), -EINVAL);
	if (!strstr(d.msg, want) || (want2 && !strstr(d.msg, want2)))
		fail_msg("%u ranks, group %u: \"%s\" lacks \"%s\" / \"%s\"", n, group, d.msg, want,
			 want2 ? want2 : "");
}

static void test_coll_refused(void **state)
{
	(void)state;
	t_coll_refused(coll_hx_rings_check, 16, 0, "hx-rings: group (columns of the torus)",
		       "at least 1");
	t_coll_refused(coll_hx_rings_check, 18, 4, "hx-rings: 18 ranks do not fill an r x 4 torus",
		       "divides 18");
	t_coll_refused(coll_hx_rings_check, 48, 4, "hx-rings (48 ranks, group 4): a 12x4 torus",
		       "gcd(12, 3) = 3");
	t_coll_refused(coll_hx_rings_check, 18, 3, "6x3", "gcd(6, 2) = 2");
	t_coll_refused(coll_hx_rings_check, 8, 2, "4x2 torus is too narrow", NULL);
	t_coll_refused(coll_hx_rings_check, 4, 2, "2x2 torus is too narrow", NULL);
	t_coll_refused(coll_torus2d_check, 16, 0, "torus2d: group (columns of the torus)", NULL);
	t_coll_refused(coll_torus2d_check, 10, 4, "torus2d: 10 ranks do not fill an r x 4 torus",
		       NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles),	       cmocka_unit_test(test_cycles_condition),
		cmocka_unit_test(test_cycles_refused), cmocka_unit_test(test_hx_rings_sim),
		cmocka_unit_test(test_hx_rings_large), cmocka_unit_test(test_hx_rings_per_link),
		cmocka_unit_test(test_torus2d_sim),    cmocka_unit_test(test_torus2d_large),
		cmocka_unit_test(test_coll_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
