// SPDX-License-Identifier: MIT
/* Ring collectives (vClos §5.3, greedy routing §2.1): reduce-scatter and all-gather rounds over
 * one ring of ranks, reused by the hierarchical and per-shard algorithms, and the flat ring
 * all-reduce, all-gather and reduce-scatter over all ranks in rank order. */
#include "traffic/coll_build.h"

static uint32_t member(const struct coll_ring *g, uint32_t j)
{
	return g->base + (j % g->n) * g->stride;
}

/* The member `hops` steps downstream of pos (upstream for hops = n - 1). */
static uint32_t member_at(const struct coll_ring_pos *rp, uint32_t hops)
{
	const struct coll_ring *g = rp->g;

	return member(g, g->rev ? rp->pos + g->n - hops : rp->pos + hops);
}

/* Chunk pos - k (mod n) in the ring's direction, for 0 <= k <= 2n. */
static uint32_t chunk_back(const struct coll_ring_pos *rp, uint32_t k)
{
	uint32_t n = rp->g->n;

	return rp->g->rev ? (rp->pos + k) % n : (rp->pos + 2 * n - k) % n;
}

/* What the ring moves of chunk c: all of it, or its half. */
static struct coll_range ring_part(const struct coll_bld *b, const struct coll_ring *g, uint32_t c)
{
	struct coll_range r = coll_part(g->r, b->p->elem, g->n, c);

	return g->halves > 1 ? coll_part(r, b->p->elem, g->halves, g->half) : r;
}

void coll_ring_pos_init(struct coll_ring_pos *rp, const struct coll_ring *g, uint32_t pos,
			const struct coll_deps *entry)
{
	*rp = (struct coll_ring_pos){
		.g = g,
		.pos = pos,
		.prev_recv = COLL_NONE,
		.last_recv = COLL_NONE,
		.phase = g->phase,
	};
	if (entry)
		rp->entry = *entry;
}

/* One round: send chunk `out` to the next member, receive chunk `in` from the previous one.
 * The send reads the chunk the previous round received (and, if `own`, data the rank held
 * before the ring: the first such send waits for entry, the later ones follow it on the
 * connection); the receive waits only for the barrier, if any. */
static void ring_round(struct coll_bld *b, struct coll_ring_pos *rp, uint32_t out, uint32_t in,
		       uint8_t flags, bool own)
{
	const struct coll_ring *g = rp->g;
	struct coll_deps sd, rd; /* only n set: a round runs millions of times at scale */
	uint32_t snd, rcv;

	sd.n = rd.n = 0;
	if (g->barrier) {
		coll_deps_merge(b, &sd, &rp->round); /* as greedy routing's code: ring barrier */
		coll_deps_merge(b, &rd, &rp->round);
	}
	coll_deps_add(b, &sd, rp->prev_recv);
	if (own && !rp->entry_sent)
		coll_deps_merge(b, &sd, &rp->entry);
	snd = coll_bld_send(b, rp->phase, member_at(rp, 1), ring_part(b, g, out), &sd);
	rp->entry_sent |= own && snd != COLL_NONE;
	rcv = coll_bld_recv(b, rp->phase, member_at(rp, g->n - 1), flags, ring_part(b, g, in), &rd);
	if (snd != COLL_NONE || rcv != COLL_NONE) {
		rp->round.n = 0;
		coll_deps_add(b, &rp->round, snd);
		coll_deps_add(b, &rp->round, rcv);
	}
	rp->prev_recv = rcv;
	if (rcv != COLL_NONE)
		rp->last_recv = rcv;
	rp->phase++;
}

/* vClos §5.3 numbers the chunk sent in round t (i - t); we send (i - t - 1), the same
 * pattern relabelled so that member i ends with chunk i, as REDUCESCATTER defines it. */
void coll_rings_rs(struct coll_bld *b, struct coll_ring_pos *rp, uint32_t nr)
{
	uint32_t t, i;

	for (t = 0; t + 1 < rp[0].g->n; t++)
		for (i = 0; i < nr; i++)
			ring_round(b, &rp[i], chunk_back(&rp[i], t + 1), chunk_back(&rp[i], t + 2),
				   COLL_F_REDUCE, true);
}

void coll_rings_ag(struct coll_bld *b, struct coll_ring_pos *rp, uint32_t nr)
{
	uint32_t t, i;

	for (t = 0; t + 1 < rp[0].g->n; t++)
		for (i = 0; i < nr; i++)
			ring_round(b, &rp[i], chunk_back(&rp[i], t), chunk_back(&rp[i], t + 1),
				   COLL_F_COPY, t == 0);
}

void coll_ring_rs(struct coll_bld *b, struct coll_ring_pos *rp)
{
	coll_rings_rs(b, rp, 1);
}

void coll_ring_ag(struct coll_bld *b, struct coll_ring_pos *rp)
{
	coll_rings_ag(b, rp, 1);
}

/* Every receive of the ring comes from one peer, so the last one covers the others by FIFO;
 * the rank's own chunk also holds what the entry steps wrote. */
void coll_ring_exit(struct coll_bld *b, const struct coll_ring_pos *rp, struct coll_deps *out)
{
	out->n = 0;
	coll_deps_merge(b, out, &rp->entry);
	coll_deps_add(b, out, rp->last_recv);
}

void coll_ring_build(struct coll_bld *b)
{
	const struct coll_params *p = b->p;
	struct coll_ring g = {
		.base = 0,
		.stride = 1,
		.n = p->nranks,
		.r = {0, p->bytes},
	};
	struct coll_ring_pos rp;

	coll_ring_pos_init(&rp, &g, b->rank, NULL);
	if (p->kind == COLL_ALLREDUCE || p->kind == COLL_REDUCESCATTER)
		coll_ring_rs(b, &rp);
	if (p->kind == COLL_ALLREDUCE || p->kind == COLL_ALLGATHER)
		coll_ring_ag(b, &rp);
}
