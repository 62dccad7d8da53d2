// SPDX-License-Identifier: MIT
/* HammingMesh's all-reduces on a logical 2D torus (see coll_hx.h).
 *
 * hx-rings. HammingMesh §V-A2: "two bidirectional rings ... each reducing a quarter of the
 * data", mapped to two edge-disjoint Hamiltonian cycles (HammingMesh Appendix A-D), so each
 * of a rank's four torus links carries one ring's sends in one direction and the four rings
 * never queue behind each other: T ~ 2p alpha + (S/2) beta. A ring's members are in cycle
 * order, not base + j * stride, so struct coll_ring does not describe it; hx_ring runs the
 * same rounds (coll_ring_rs, then coll_ring_ag) over a rank's cycle neighbours and position,
 * and is race-free for the same reasons: a send waits for the receive that brought its chunk,
 * and a receive lands only in bytes whose earlier sends have finished, by FIFO order or
 * because the data it brings was produced after them.
 *
 * torus2d. HammingMesh §V-A2: "RS on row; allreduce on column of chunk S/sqrt(p); AG on row;
 * two transposed instances on halves of the data run concurrently". A half is the
 * hierarchical ring of coll_hier.c with the row as the server. The two halves touch disjoint
 * bytes; a rank lists their stages interleaved (row RS, column RS, column all-reduce, row
 * all-reduce, row AG, column AG) so that on each link the stages queue in the order they can
 * run: a link's sends leave in list order (coll.h), and listing the whole of half 0 first
 * would hold half 1's column reduce-scatter behind half 0's column all-reduce. */
#include <errno.h>
#include <stdlib.h>

#include "traffic/coll_hx.h"
#include "traffic/hx_cycles.h"

#define HX_RINGS 4 /* (cycle A, B) x (forward, backward) */
#define HX_GROUP_IS "columns of the torus"

/* One rank's place in a ring over a cycle. */
struct hx_ring {
	uint32_t n, pos, next, prev;
	struct coll_range r; /* the ring's quarter of the buffer */
	uint32_t prev_recv; /* the last round's receive: the chunk the next round sends */
};

/* Ring q: quarter q, cycle A for q < 2, B after; odd q walks its cycle backwards, so the
 * rank's position is mirrored and its neighbours swap. */
static void hx_ring_init(struct hx_ring *g, const struct coll_params *p, uint32_t rank, uint32_t q)
{
	uint32_t c = p->group, r = p->nranks / c, n = p->nranks;
	enum hx_cycle w = q < 2 ? HX_CYCLE_A : HX_CYCLE_B;
	uint32_t pos = hx_cycle_pos(r, c, w, rank);
	uint32_t fwd = hx_cycle_next(r, c, w, rank), bwd = hx_cycle_prev(r, c, w, rank);

	g->n = n;
	g->r = coll_part((struct coll_range){0, p->bytes}, p->elem, HX_RINGS, q);
	g->prev_recv = COLL_NONE;
	g->pos = q % 2 ? (n - pos) % n : pos;
	g->next = q % 2 ? bwd : fwd;
	g->prev = q % 2 ? fwd : bwd;
}

/* Chunk pos - k (mod n), for 0 <= k <= 2n. */
static uint32_t hx_chunk_back(const struct hx_ring *g, uint32_t k)
{
	return (g->pos + 2 * g->n - k) % g->n;
}

/* Round t of 2(n-1), numbered as coll_ring_rs and coll_ring_ag number theirs: member pos
 * ends the reduce-scatter with chunk pos summed, and starts the all-gather by sending it. */
static void hx_ring_round(struct coll_bld *b, struct hx_ring *g, uint32_t t)
{
	bool rs = t + 1 < g->n;
	uint32_t k = rs ? t + 1 : t - (g->n - 1);
	uint32_t out = hx_chunk_back(g, k), in = hx_chunk_back(g, k + 1);
	uint32_t elem = b->p->elem;
	struct coll_deps sd; /* only n set, as in coll_ring.c */

	sd.n = 0;
	coll_deps_add(b, &sd, g->prev_recv);
	coll_bld_send(b, (uint16_t)t, g->next, coll_part(g->r, elem, g->n, out), &sd);
	g->prev_recv = coll_bld_recv(b, (uint16_t)t, g->prev, rs ? COLL_F_REDUCE : COLL_F_COPY,
				     coll_part(g->r, elem, g->n, in), NULL);
}

/* The four rings' rounds interleaved, so the list reads in time order; they share no link,
 * so the order between rings does not constrain the run. */
void coll_hx_rings_build(struct coll_bld *b)
{
	struct hx_ring g[HX_RINGS];
	uint32_t q, t;

	for (q = 0; q < HX_RINGS; q++)
		hx_ring_init(&g[q], b->p, b->rank, q);
	for (t = 0; t + 2 < 2 * g[0].n; t++)
		for (q = 0; q < HX_RINGS; q++)
			hx_ring_round(b, &g[q], t);
}

/* One half of torus2d: `outer` reduce-scatters and all-gathers the half, `inner` all-reduces
 * the rank's piece of it. */
struct t2_half {
	struct coll_ring outer, inner;
	uint32_t opos, ipos; /* the rank's member index in each */
	struct coll_ring_pos rp;
	struct coll_deps done; /* the steps that last wrote the rank's part of the half */
};

static struct coll_ring t2_row(uint32_t c, uint32_t row, struct coll_range r)
{
	return (struct coll_ring){.base = row * c, .stride = 1, .n = c, .r = r};
}

static struct coll_ring t2_col(uint32_t c, uint32_t rows, uint32_t col, struct coll_range r)
{
	return (struct coll_ring){.base = col, .stride = c, .n = rows, .r = r};
}

/* Half 0 goes row, column, row; half 1 column, row, column. */
static void t2_init(struct coll_bld *b, struct t2_half h[2])
{
	const struct coll_params *p = b->p;
	uint32_t c = p->group, rows = p->nranks / c, row = b->rank / c, col = b->rank % c;
	struct coll_range all = {0, p->bytes};
	struct coll_range h0 = coll_part(all, p->elem, 2, 0), h1 = coll_part(all, p->elem, 2, 1);

	h[0] = (struct t2_half){.opos = col, .ipos = row};
	h[0].outer = t2_row(c, row, h0);
	h[0].inner = t2_col(c, rows, col, coll_part(h0, p->elem, c, col));
	h[1] = (struct t2_half){.opos = row, .ipos = col};
	h[1].outer = t2_col(c, rows, col, h1);
	h[1].inner = t2_row(c, row, coll_part(h1, p->elem, rows, row));
}

/* After it the rank's piece of the half holds its outer ring's sum. */
static void t2_rs(struct coll_bld *b, struct t2_half *h)
{
	coll_ring_pos_init(&h->rp, &h->outer, h->opos, NULL);
	coll_ring_rs(b, &h->rp);
	coll_ring_exit(b, &h->rp, &h->done);
}

/* After it the piece holds the sum over all ranks. */
static void t2_ar(struct coll_bld *b, struct t2_half *h)
{
	h->inner.phase = (uint16_t)(h->outer.n - 1);
	coll_ring_pos_init(&h->rp, &h->inner, h->ipos, &h->done);
	coll_ring_rs(b, &h->rp);
	coll_ring_ag(b, &h->rp);
	coll_ring_exit(b, &h->rp, &h->done);
}

static void t2_ag(struct coll_bld *b, struct t2_half *h)
{
	h->outer.phase = (uint16_t)(h->outer.n - 1 + 2 * (h->inner.n - 1));
	coll_ring_pos_init(&h->rp, &h->outer, h->opos, &h->done);
	coll_ring_ag(b, &h->rp);
}

void coll_torus2d_build(struct coll_bld *b)
{
	struct t2_half h[2];

	t2_init(b, h);
	t2_rs(b, &h[0]);
	t2_rs(b, &h[1]);
	t2_ar(b, &h[0]);
	t2_ar(b, &h[1]);
	t2_ag(b, &h[0]);
	t2_ag(b, &h[1]);
}

/* coll.c checks the group after the algorithm's own check, which needs r already. */
static int torus_shape(const char *algo, const struct coll_params *p, struct diag *d)
{
	if (!p->group)
		return diag_set(d, -EINVAL,
				"%s: group (%s) must be at least 1: the %u ranks form an r x group "
				"torus, r = ranks / group",
				algo, HX_GROUP_IS, p->nranks);
	if (p->nranks % p->group)
		return diag_set(
			d, -EINVAL,
			"%s: %u ranks do not fill an r x %u torus (group %u, %s): use a group "
			"that divides %u",
			algo, p->nranks, p->group, p->group, HX_GROUP_IS, p->nranks);
	return 0;
}

/* Builds and verifies the cycles once per schedule, so no rank's ring can leave the torus. */
int coll_hx_rings_check(const struct coll_params *p, struct diag *d)
{
	uint32_t *cyc, n = p->nranks;
	int err = torus_shape("hx-rings", p, d);

	if (err)
		return err;
	cyc = calloc(2 * (size_t)n, sizeof(*cyc));
	if (!cyc)
		return diag_set(d, -ENOMEM, "hx-rings over %u ranks: out of memory", n);
	err = hx_cycles(n / p->group, p->group, cyc, cyc + n, d);
	free(cyc);
	if (err)
		return diag_wrap(d, err, "hx-rings (%u ranks, group %u): ", n, p->group);
	return 0;
}

int coll_torus2d_check(const struct coll_params *p, struct diag *d)
{
	return torus_shape("torus2d", p, d);
}
