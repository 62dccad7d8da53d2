// SPDX-License-Identifier: MIT
/* Multi-dimensional all-reduce, reduce-scatter and all-gather (COLL_MULTIDIM): Themis's chunk
 * schedules as steps.
 *
 * Chunk c of md.chunks goes through a reduce-scatter stage on every dimension and then an
 * all-gather stage on every dimension in reverse, in the order traffic/themis.c gives it
 * (Themis §4.2, the baseline's ascending order included); a reduce-scatter or all-gather runs
 * one of the halves, in its own order (Themis §2.3). A stage on dimension k runs over the
 * rank's dimension-k group, the P_k ranks that differ from it only in coordinate k, as rings
 * both ways round (coll_rings_rs/ag), a direct exchange or halving-doubling; a reduce-scatter
 * leaves the rank with part c_k of what it held, an all-gather undoes that. So the chunk's ranges
 * on a rank are nested: r[0] is the chunk, r[i+1] the rank's part of r[i] on the i-th dimension of
 * the chunk's reduce-scatter order (an all-gather's order reversed), and r[D] the rank's share.
 *
 * Consistency (Themis §4.6). Every rank runs the same planner on the same parameters, so all
 * agree on each chunk's order and on the order in which each dimension starts its chunk
 * operations. Every rank lists its operations in the order the plan started them, so each
 * dimension's operations appear in the plan's order on every rank. Two ranks share at most
 * one group, and the sends and receives between two ranks match in list order (coll.h), so
 * the messages of the j-th operation on dimension k only ever meet those of the j-th operation
 * on the peer: a rank whose input for a later operation is ready early cannot run it out of
 * turn with its peers. That is the per-dimension order Themis enforces at run time so that
 * ranks of a group never wait on different operations (deadlock). The plan is a feasible
 * execution, so the order is one in which every operation follows the one its input comes
 * from. At most `active` operations run at once on a dimension: the sends of the j-th wait
 * for the (j - active)-th to finish on the rank (Themis §4.3); its receives need not, as
 * their data comes from peers' gated sends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "traffic/coll_build.h"
#include "traffic/themis.h"

#define MD_PHASES_MAX 65535 /* phases are 16 bits: chunk * stages + stage */

/* What the rank holds of one chunk, and who wrote it. */
struct md_chunk {
	struct coll_range r[COLL_MD_DIMS + 1]; /* the nested ranges (above) */
	struct coll_deps done; /* steps that wrote the chunk so far: the next stage's input */
};

/* One op's steps on the rank (rank-local indices). */
struct md_span {
	uint32_t first, n;
};

struct md_rank {
	struct coll_bld *b;
	const struct coll_md *md;
	const struct themis_plan *pl;
	uint32_t coord[COLL_MD_DIMS], stride[COLL_MD_DIMS];
	struct md_chunk *ch; /* per chunk */
	struct md_span *span; /* per op */
};

/* Rings a ring dimension runs: one each way round once it has three members, each moving half
 * of every chunk, so a rank sends B_k / 2 to each neighbour over the link it has to it and
 * uses its whole B_k (Themis Table 2 counts both of a ring NPU's neighbour links in its
 * dimension bandwidth); a ring of two has one link and one ring. */
static uint32_t ring_dirs(const struct coll_md_dim *dm)
{
	return dm->size > 2 ? 2 : 1;
}

/* Rounds of halving-doubling over a dimension: log2 of its (power-of-two) size. */
static uint32_t hd_rounds(const struct coll_md_dim *dm)
{
	uint32_t k = 0;

	while ((2u << k) <= dm->size)
		k++;
	return k;
}

/* Receives of a stage the chunk's next stages wait for: each ring's last (FIFO from one peer
 * covers the others), one per peer for direct, every round's for halving-doubling (each
 * wrote part of what the rank holds after it). */
static uint64_t stage_recvs(const struct coll_md_dim *dm)
{
	switch (dm->algo) {
	case COLL_MD_RING:
		return ring_dirs(dm);
	case COLL_MD_HD:
		return hd_rounds(dm);
	default:
		return dm->size - 1;
	}
}

/* The steps that end an op on a rank: the rings' last rounds, all of a direct or
 * halving-doubling op. */
static uint64_t op_tail(const struct coll_md_dim *dm)
{
	return dm->algo == COLL_MD_RING ? 2 * ring_dirs(dm) : 2 * stage_recvs(dm);
}

/* The most dependencies a step can get: every stage's receives, the gate, the ring's own. */
static uint64_t md_deps_bound(const struct coll_md *md)
{
	uint64_t all = 0, gate = 0;
	uint32_t k;

	for (k = 0; k < md->ndims; k++) {
		all += 2 * stage_recvs(&md->dim[k]);
		if (op_tail(&md->dim[k]) > gate)
			gate = op_tail(&md->dim[k]);
	}
	return all + gate + 1;
}

static const char *md_shape(const struct coll_md *md, char *buf, size_t len)
{
	size_t o = 0;
	uint32_t k;

	buf[0] = '\0';
	for (k = 0; k < md->ndims && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u", k ? "x" : "", md->dim[k].size);
	return buf;
}

static int md_check_split(const struct coll_params *p, uint64_t n, struct diag *d)
{
	const struct coll_md *md = &p->md;

	if (p->bytes / p->elem >= (uint64_t)md->chunks * n)
		return 0;
	return diag_set(d, -EINVAL,
			"multidim: %llu bytes / %u chunks / %llu ranks leave %.4g bytes after the "
			"last reduce-scatter stage, less than one %u-byte element (at most %llu "
			"chunks for this size)",
			(unsigned long long)p->bytes, md->chunks, (unsigned long long)n,
			(double)p->bytes / md->chunks / (double)n, p->elem,
			(unsigned long long)(p->bytes / p->elem / n));
}

int coll_md_check(const struct coll_params *p, struct diag *d)
{
	const struct coll_md *md = &p->md;
	char shape[64];
	uint64_t n;
	int err = themis_check(md, d);

	if (err)
		return err;
	if (md->kind != p->kind)
		return diag_set(d, -EINVAL, "multidim: the plan is for %s, the collective %s",
				coll_kind_name(md->kind), coll_kind_name(p->kind));
	n = themis_nodes(md);
	if (n != p->nranks)
		return diag_set(d, -EINVAL, "multidim: %u ranks, but %s makes %s%llu", p->nranks,
				md_shape(md, shape, sizeof(shape)),
				n > COLL_MAX_RANKS ? "more than " : "",
				(unsigned long long)(n > COLL_MAX_RANKS ? COLL_MAX_RANKS : n));
	if ((uint64_t)md->chunks * themis_phases(md) > MD_PHASES_MAX)
		return diag_set(
			d, -EINVAL,
			"multidim: %u chunks x %u stages exceed the %d phases a step can name",
			md->chunks, themis_phases(md), MD_PHASES_MAX);
	if (md_deps_bound(md) > COLL_DEPS_MAX)
		return diag_set(d, -EINVAL,
				"multidim: %s with these direct dimensions needs up to %llu "
				"dependencies per step, at most %d",
				md_shape(md, shape, sizeof(shape)),
				(unsigned long long)md_deps_bound(md), COLL_DEPS_MAX);
	return md_check_split(p, n, d);
}

int coll_md_prep(struct coll_bld *b, struct diag *d)
{
	struct themis_plan *pl = calloc(1, sizeof(*pl));
	int err;

	if (!pl)
		return diag_set(d, -ENOMEM, "multidim: out of memory");
	err = themis_plan_build(&b->p->md, (double)b->p->bytes, pl, d);
	if (err) {
		free(pl);
		return err;
	}
	b->priv = pl;
	return 0;
}

void coll_md_release(struct coll_bld *b)
{
	themis_plan_done(b->priv);
	free(b->priv);
	b->priv = NULL;
}

/* Member j of the rank's dimension-k group. */
static uint32_t md_member(const struct md_rank *mr, uint32_t k, uint32_t j)
{
	return mr->b->rank - mr->coord[k] * mr->stride[k] + j * mr->stride[k];
}

/* Themis §4.3, `active` chunk operations per dimension: the sends of the op j-th on its
 * dimension wait for the steps that end the (j - active)-th one on this rank. */
static void md_gate(const struct md_rank *mr, const struct themis_op *o, struct coll_deps *out)
{
	const struct coll_md_dim *dm = &mr->md->dim[o->dim];
	const struct md_span *sp;
	uint32_t prev, i;

	if (o->seq < dm->active)
		return;
	prev = mr->pl->seq[(size_t)o->dim * mr->pl->per_dim + o->seq - dm->active];
	sp = &mr->span[prev];
	for (i = sp->n - (uint32_t)op_tail(dm); i < sp->n; i++)
		coll_deps_add(mr->b, out, sp->first + i);
}

/* A ring over the group, or two (ring_dirs): the one running down the members moves the first
 * half of every part, the other the second, and each member ends with its whole part. Their
 * sends of own data wait for entry. */
static void md_ring(struct md_rank *mr, const struct themis_op *o, struct coll_range r,
		    const struct coll_deps *entry, struct coll_deps *done)
{
	const struct coll_md_dim *dm = &mr->md->dim[o->dim];
	uint32_t nr = ring_dirs(dm), i;
	struct coll_ring g[2];
	struct coll_ring_pos rp[2];

	for (i = 0; i < nr; i++) {
		g[i] = (struct coll_ring){
			.base = md_member(mr, o->dim, 0),
			.stride = mr->stride[o->dim],
			.n = dm->size,
			.r = r,
			.rev = i == 1,
			.halves = (uint8_t)nr,
			.half = (uint8_t)i,
		};
		coll_ring_pos_init(&rp[i], &g[i], mr->coord[o->dim], entry);
	}
	if (o->ag)
		coll_rings_ag(mr->b, rp, nr);
	else
		coll_rings_rs(mr->b, rp, nr);
	for (i = 0; i < nr; i++)
		coll_deps_add(mr->b, done, rp[i].last_recv);
}

/* Direct: reduce-scatter sends part j of r to member j and adds every member's copy of the
 * own part; all-gather sends the own part to every member and copies each member's part. The
 * sends read what entry wrote; a receive needs no dependency: the reductions commute, and the
 * parts an all-gather copies into were last read by this dimension's reduce-scatter sends,
 * which the copied data causally follows. */
static void md_direct(struct md_rank *mr, const struct themis_op *o, struct coll_range r,
		      const struct coll_deps *entry, struct coll_deps *done)
{
	struct coll_bld *b = mr->b;
	uint32_t k = o->dim, n = mr->md->dim[k].size, me = mr->coord[k], e = b->p->elem;
	uint32_t i, to, from, rcv;

	for (i = 1; i < n; i++) {
		to = (me + i) % n;
		from = (me + n - i) % n;
		coll_bld_send(b, 0, md_member(mr, k, to), coll_part(r, e, n, o->ag ? me : to),
			      entry);
		rcv = coll_bld_recv(b, 0, md_member(mr, k, from),
				    o->ag ? COLL_F_COPY : COLL_F_REDUCE,
				    coll_part(r, e, n, o->ag ? from : me), NULL);
		coll_deps_add(b, done, rcv);
	}
}

/* Halving-doubling over the group (Themis Table 1: a switch dimension's halving-doubling),
 * on the P parts of r. A reduce-scatter halves the parts the rank holds in each round, with
 * the member P/2, then P/4, ..., 1 away, keeping the half its coordinate's bit names, so it
 * ends with part `coordinate` as a ring does; an all-gather doubles them back in the reverse
 * order. Each send reads what entry and the op's earlier receives wrote; a receive needs no
 * dependency, for the reason direct's need none (above). */
static void md_hd(struct md_rank *mr, const struct themis_op *o, struct coll_range r,
		  const struct coll_deps *entry, struct coll_deps *done)
{
	struct coll_bld *b = mr->b;
	uint32_t k = o->dim, n = mr->md->dim[k].size, me = mr->coord[k], e = b->p->elem;
	uint32_t rounds = hd_rounds(&mr->md->dim[k]), lo[33], hi[33], away[32], t, u, bit, mid;
	struct coll_range held, gone;
	struct coll_deps sd = *entry;
	uint32_t peer, rcv;

	lo[0] = 0;
	hi[0] = n;
	for (t = 0; t < rounds; t++) { /* parts kept [lo, hi) and given away in round t */
		bit = n >> (t + 1);
		mid = (lo[t] + hi[t]) / 2;
		lo[t + 1] = me & bit ? mid : lo[t];
		hi[t + 1] = me & bit ? hi[t] : mid;
		away[t] = me & bit ? lo[t] : mid;
	}
	for (u = 0; u < rounds; u++) {
		t = o->ag ? rounds - 1 - u : u;
		peer = md_member(mr, k, me ^ (n >> (t + 1)));
		held = coll_parts(r, e, n, lo[t + 1], hi[t + 1]);
		gone = coll_parts(r, e, n, away[t], away[t] + hi[t + 1] - lo[t + 1]);
		coll_bld_send(b, 0, peer, o->ag ? held : gone, &sd);
		rcv = coll_bld_recv(b, 0, peer, o->ag ? COLL_F_COPY : COLL_F_REDUCE,
				    o->ag ? gone : held, NULL);
		coll_deps_add(b, &sd, rcv);
		coll_deps_add(b, done, rcv);
	}
}

/* Every step of an op carries its phase, chunk * stages + stage (a ring numbers its rounds),
 * so records map a step back to its chunk operation. */
static void md_set_phase(struct coll_bld *b, size_t mark, uint32_t phase)
{
	size_t i;

	for (i = mark; i < b->s->steps.n; i++)
		b->s->steps.v[i].phase = (uint16_t)phase;
}

/* The level of the nested ranges a stage works on: a reduce-scatter stage cuts r[lvl] into
 * r[lvl + 1], an all-gather stage fills r[lvl] from r[lvl + 1]. */
static uint32_t md_level(const struct themis_plan *pl, const struct themis_op *o)
{
	uint32_t nd = pl->ndims;

	if (pl->kind == COLL_ALLGATHER)
		return nd - 1 - o->phase;
	return o->ag ? 2 * nd - 1 - o->phase : o->phase;
}

/* One chunk operation. Its sends wait for the steps that wrote the chunk (the range it reads
 * holds their results) and for the gate; the chunk's next stage waits for those steps and this
 * op's receives. */
static void md_op(struct md_rank *mr, uint32_t op)
{
	const struct themis_op *o = &mr->pl->ops[op];
	struct md_chunk *ch = &mr->ch[o->chunk];
	struct coll_bld *b = mr->b;
	uint32_t lvl = md_level(mr->pl, o);
	struct coll_deps entry = ch->done;
	size_t mark = b->s->steps.n;

	md_gate(mr, o, &entry);
	if (mr->md->dim[o->dim].algo == COLL_MD_RING)
		md_ring(mr, o, ch->r[lvl], &entry, &ch->done);
	else if (mr->md->dim[o->dim].algo == COLL_MD_HD)
		md_hd(mr, o, ch->r[lvl], &entry, &ch->done);
	else
		md_direct(mr, o, ch->r[lvl], &entry, &ch->done);
	md_set_phase(b, mark, o->chunk * mr->pl->nphases + o->phase);
	mr->span[op].first = (uint32_t)(mark - b->first);
	mr->span[op].n = (uint32_t)(b->s->steps.n - mark);
}

/* The dimension of the i-th cut of chunk c's nested ranges: its i-th reduce-scatter stage, or
 * its (D-1-i)-th all-gather stage. */
static uint32_t md_cut_dim(const struct themis_plan *pl, uint32_t c, uint32_t i)
{
	uint32_t j = pl->kind == COLL_ALLGATHER ? pl->ndims - 1 - i : i;

	return pl->ops[(size_t)c * pl->nphases + j].dim;
}

static void md_nest(const struct md_rank *mr, uint32_t c, struct md_chunk *ch)
{
	const struct coll_params *p = mr->b->p;
	uint32_t i, k;

	ch->r[0] = coll_part((struct coll_range){0, p->bytes}, p->elem, mr->pl->chunks, c);
	for (i = 0; i < mr->pl->ndims; i++) {
		k = md_cut_dim(mr->pl, c, i);
		ch->r[i + 1] = coll_part(ch->r[i], p->elem, mr->md->dim[k].size, mr->coord[k]);
	}
}

static int md_rank_init(struct md_rank *mr)
{
	uint32_t k, rest = mr->b->rank, stride = 1, c;

	for (k = 0; k < mr->md->ndims; k++) {
		mr->coord[k] = rest % mr->md->dim[k].size;
		rest /= mr->md->dim[k].size;
		mr->stride[k] = stride;
		stride *= mr->md->dim[k].size;
	}
	mr->ch = calloc(mr->pl->chunks, sizeof(*mr->ch));
	mr->span = calloc((size_t)mr->pl->chunks * mr->pl->nphases, sizeof(*mr->span));
	if (!mr->ch || !mr->span)
		return -ENOMEM;
	for (c = 0; c < mr->pl->chunks; c++)
		md_nest(mr, c, &mr->ch[c]);
	return 0;
}

/* The ops in the order the plan started them: each after its chunk's previous stage. */
void coll_md_build(struct coll_bld *b)
{
	struct md_rank mr = {.b = b, .md = &b->p->md, .pl = b->priv};
	size_t i, nops = (size_t)mr.pl->chunks * mr.pl->nphases;

	if (md_rank_init(&mr))
		b->err = -ENOMEM;
	for (i = 0; i < nops && !b->err; i++)
		md_op(&mr, mr.pl->started[i]);
	free(mr.ch);
	free(mr.span);
}

/* Which of n parts (coll_chunk_off's cut of e elements) holds element i. */
static uint32_t part_of(uint64_t e, uint32_t n, uint64_t i)
{
	uint64_t base = e / n, rem = e % n;

	if (i < rem * (base + 1))
		return (uint32_t)(i / (base + 1));
	return (uint32_t)(rem + (i - rem * (base + 1)) / base);
}

/* Fills owner[] for chunk c's elements [first, first + e): at each cut, the part an element
 * falls in is the owner's coordinate on the cut's dimension. */
static void md_owners_chunk(const struct coll_params *p, const struct themis_plan *pl, uint32_t c,
			    uint64_t first, uint64_t e, uint32_t *owner)
{
	uint64_t i, lo, len, q;
	uint32_t cut, k, n, stride[COLL_MD_DIMS], s = 1;

	for (k = 0; k < pl->ndims; k++) {
		stride[k] = s;
		s *= p->md.dim[k].size;
	}
	for (i = 0; i < e; i++) {
		owner[first + i] = 0;
		lo = 0;
		len = e;
		for (cut = 0; cut < pl->ndims; cut++) {
			k = md_cut_dim(pl, c, cut);
			n = p->md.dim[k].size;
			q = part_of(len, n, i - lo);
			owner[first + i] += (uint32_t)q * stride[k];
			lo += coll_chunk_off(len, 1, n, (uint32_t)q);
			len = coll_chunk_off(len, 1, n, (uint32_t)q + 1) -
			      coll_chunk_off(len, 1, n, (uint32_t)q);
		}
	}
}

int coll_md_owners(const struct coll_params *p, uint32_t *owner, struct diag *d)
{
	struct themis_plan pl;
	uint64_t e = p->bytes / p->elem, lo, hi;
	uint32_t c;
	int err = coll_md_check(p, d);

	if (!err)
		err = themis_plan_build(&p->md, (double)p->bytes, &pl, d);
	if (err)
		return err;
	for (c = 0; c < pl.chunks; c++) {
		lo = coll_chunk_off(e, 1, pl.chunks, c);
		hi = coll_chunk_off(e, 1, pl.chunks, c + 1);
		md_owners_chunk(p, &pl, c, lo, hi - lo, owner);
	}
	themis_plan_done(&pl);
	return 0;
}
