// SPDX-License-Identifier: MIT
/* A synthesized TACOS collective (tacos.h) as coll.h steps for all ranks.
 *
 * Every send becomes a SEND on its source and a RECV on its destination (REDUCE in the
 * reduce-scatter, COPY in the all-gather) of the chunk's part of the buffer. A rank lists its
 * steps by phase (reduce-scatter first), then by the synthesized start time of the send: the
 * sends on one link never overlap in time, so both ends list a link's messages in the same
 * order (FIFO per rank pair), and a rank's receive of a chunk comes before its forwarding.
 * Dependencies: a reduce-scatter send of chunk c waits for the rank's receives of c (its tree
 * children, TACOS §VII-A); an all-gather send of c waits for the rank's receive of c, or at
 * the owner for the reduce-scatter receives of c. A COPY receive needs none: the data it brings
 * causally follows every reduce-scatter send of c, the rank's included. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/coll_build.h"
#include "traffic/tacos.h"

/* One step to emit: a send seen from its source (SEND) or its destination (RECV). */
struct ct_item {
	uint32_t rank, peer, chunk, link;
	uint8_t phase, op; /* phase 0: reduce-scatter, 1: all-gather */
	double t0, t1;
};

/* What a rank holds of one chunk: the steps that wrote it. */
struct ct_chunk {
	struct coll_deps rs; /* REDUCE receives */
	uint32_t ag; /* the COPY receive */
};

static int cmp_item(const void *a, const void *b)
{
	const struct ct_item *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	if (x->t1 != y->t1)
		return x->t1 < y->t1 ? -1 : 1;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

static size_t ct_items(const struct tacos_sched *s, uint8_t phase, struct ct_item *out)
{
	const struct tacos_send *x;
	size_t i;

	for (i = 0; i < s->nsends; i++) {
		x = &s->sends[i];
		out[2 * i] = (struct ct_item){x->src, x->dst,	 x->chunk, x->link,
					      phase,  COLL_SEND, x->t0,	   x->t1};
		out[2 * i + 1] = (struct ct_item){x->dst, x->src,    x->chunk, x->link,
						  phase,  COLL_RECV, x->t0,    x->t1};
	}
	return 2 * s->nsends;
}

static void ct_step(struct coll_bld *b, const struct tacos_result *r, const struct ct_item *it,
		    struct ct_chunk *ch)
{
	struct coll_range all = {0, b->p->bytes};
	struct coll_range part = coll_part(all, b->p->elem, r->n * r->k, it->chunk);
	struct ct_chunk *c = &ch[it->chunk];
	struct coll_deps deps = {0};
	uint32_t idx;

	if (it->op == COLL_RECV && !it->phase) {
		idx = coll_bld_recv(b, 0, it->peer, COLL_F_REDUCE, part, NULL);
		coll_deps_add(b, &c->rs, idx);
	} else if (it->op == COLL_RECV) {
		c->ag = coll_bld_recv(b, 1, it->peer, COLL_F_COPY, part, NULL);
	} else if (!it->phase || it->chunk / r->k == b->rank) {
		coll_bld_send(b, it->phase, it->peer, part, &c->rs);
	} else {
		coll_deps_add(b, &deps, c->ag);
		coll_bld_send(b, 1, it->peer, part, &deps);
	}
}

/* Rank by rank, from the sorted items; ch is scratch for n * k chunks. */
static int ct_build(struct coll_sched *s, const struct tacos_result *r, const struct ct_item *v,
		    size_t nitems, struct ct_chunk *ch)
{
	struct coll_bld b = {.s = s, .p = &s->params};
	size_t i = 0, c;

	for (b.rank = 0; b.rank < r->n && !b.err; b.rank++) {
		for (c = 0; c < (size_t)r->n * r->k; c++)
			ch[c].rs.n = 0, ch[c].ag = COLL_NONE;
		b.first = s->steps.n;
		for (; i < nitems && v[i].rank == b.rank; i++)
			ct_step(&b, r, &v[i], ch);
		s->ranks.v[b.rank].step_off = (uint32_t)b.first;
		s->ranks.v[b.rank].step_n = (uint32_t)(s->steps.n - b.first);
	}
	return b.err;
}

static int ct_check(const struct tacos_result *r, const struct coll_params *p, struct diag *d)
{
	uint64_t elems = p->elem ? p->bytes / p->elem : 0;

	if (p->kind == COLL_ALLTOALL)
		return diag_set(d, -EINVAL,
				"tacos: builds allreduce, allgather and reducescatter, "
				"not alltoall");
	if (p->nranks != r->n || !p->elem || p->bytes % p->elem)
		return diag_set(d, -EINVAL,
				"tacos: %u ranks, %llu bytes of %u-byte elements for a result on "
				"%u NPUs",
				p->nranks, (unsigned long long)p->bytes, p->elem, r->n);
	if (p->kind != COLL_ALLGATHER && r->n > 1 && !r->rs.nsends)
		return diag_set(d, -EINVAL, "tacos: %s from a result without reduce-scatter",
				coll_kind_name(p->kind));
	if (p->kind != COLL_ALLREDUCE && r->k > 1 && elems % ((uint64_t)r->n * r->k))
		return diag_set(d, -EINVAL,
				"tacos: %s with %u chunks per rank needs a multiple of %llu "
				"elements, not %llu",
				coll_kind_name(p->kind), r->k, (unsigned long long)r->n * r->k,
				(unsigned long long)elems);
	return 0;
}

int tacos_coll_sched(const struct tacos_result *r, const struct coll_params *p,
		     struct coll_sched *out, struct diag *d)
{
	bool rs = p->kind != COLL_ALLGATHER, ag = p->kind != COLL_REDUCESCATTER;
	size_t n = 2 * ((ag ? r->ag.nsends : 0) + (rs ? r->rs.nsends : 0)), m = 0;
	struct ct_item *v = NULL;
	struct ct_chunk *ch = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = ct_check(r, p, d)))
		return err;
	out->params = *p;
	v = malloc((n + 1) * sizeof(*v));
	ch = malloc(((size_t)r->n * r->k + 1) * sizeof(*ch));
	err = !v || !ch || vec_reserve(&out->ranks, r->n) ? -ENOMEM : 0;
	if (!err) {
		memset(out->ranks.v, 0, r->n * sizeof(*out->ranks.v));
		out->ranks.n = r->n;
		if (rs)
			m = ct_items(&r->rs, 0, v);
		if (ag)
			m += ct_items(&r->ag, 1, v + m);
		qsort(v, m, sizeof(*v), cmp_item);
		err = ct_build(out, r, v, m, ch);
	}
	free(v);
	free(ch);
	if (!err)
		return 0;
	coll_sched_done(out);
	return diag_set(d, err, "tacos: %s",
			err == -ENOMEM ? "out of memory" : "a rank has too many tree children");
}
