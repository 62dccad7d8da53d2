// SPDX-License-Identifier: MIT
/* MSCCL's channels onto one FIFO per ordered pair (msccl_order.h): the messages of every
 * channel matched in their own order, then one rendezvous run listing each rank's steps in
 * the order they went. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/msccl/msccl_order.h"

#define NONE UINT32_MAX

/* One end of a message: a step of `from` sending to `to`, or of `to` receiving from `from`. */
struct oend {
	uint32_t from, to, chan, g;
	uint8_t send;
};

struct orun {
	struct coll_sched *s;
	uint32_t n;
	uint32_t *rank; /* of each step */
	uint32_t *partner, *prev; /* the other end; the channel's step before, NONE */
	uint32_t *miss; /* what each step still waits for */
	uint32_t *so, *succ; /* succ[so[g] .. so[g + 1]) wait for g */
	uint32_t *queue, qh, qt;
	uint32_t *newloc, *nk; /* each step's new index in its rank; per rank, taken so far */
	uint8_t *armed;
	uint32_t done;
};

static int oend_cmp(const void *a, const void *b)
{
	const struct oend *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->chan != y->chan)
		return x->chan < y->chan ? -1 : 1;
	if (x->send != y->send)
		return x->send ? -1 : 1;
	return x->g < y->g ? -1 : x->g > y->g;
}

static void orun_free(struct orun *o)
{
	free(o->rank);
	free(o->partner);
	free(o->prev);
	free(o->miss);
	free(o->so);
	free(o->succ);
	free(o->queue);
	free(o->newloc);
	free(o->nk);
	free(o->armed);
}

static int orun_alloc(struct orun *o, struct coll_sched *s)
{
	size_t n = s->steps.n + 1;

	o->s = s;
	o->n = (uint32_t)s->steps.n;
	o->rank = malloc(n * sizeof(uint32_t));
	o->partner = malloc(n * sizeof(uint32_t));
	o->prev = malloc(n * sizeof(uint32_t));
	o->miss = calloc(n, sizeof(uint32_t));
	o->so = calloc(n + 1, sizeof(uint32_t));
	o->queue = malloc(n * sizeof(uint32_t));
	o->newloc = malloc(n * sizeof(uint32_t));
	o->nk = calloc(s->ranks.n + 1, sizeof(uint32_t));
	o->armed = calloc(n, 1);
	if (!o->rank || !o->partner || !o->prev || !o->miss || !o->so || !o->queue || !o->newloc ||
	    !o->nk || !o->armed)
		return -ENOMEM;
	return 0;
}

static void rank_of_steps(struct orun *o)
{
	const struct coll_sched *s = o->s;
	uint32_t r, i;

	for (r = 0; r < s->ranks.n; r++)
		for (i = 0; i < s->ranks.v[r].step_n; i++)
			o->rank[s->ranks.v[r].step_off + i] = r;
}

/* One ordered pair's channel: sends e[0 .. ns), receives e[ns .. ns + nr), each in list
 * order; the k-th of each meet. */
static int pair_channel(struct orun *o, const struct oend *e, uint32_t ns, uint32_t nr,
			struct msccl_order_err *err)
{
	const struct coll_step *st = o->s->steps.v;
	uint32_t k;

	for (k = 0; k < ns || k < nr; k++) {
		if (k >= nr || k >= ns) {
			*err = (struct msccl_order_err){k >= nr ? MSCCL_ORDER_NO_RECV
								: MSCCL_ORDER_NO_SEND,
							k >= nr ? e[k].g : e[ns + k].g, NONE, k};
			return -EINVAL;
		}
		o->partner[e[k].g] = e[ns + k].g, o->partner[e[ns + k].g] = e[k].g;
		o->prev[e[k].g] = k ? e[k - 1].g : NONE;
		o->prev[e[ns + k].g] = k ? e[ns + k - 1].g : NONE;
		if (st[e[k].g].len != st[e[ns + k].g].len) {
			*err = (struct msccl_order_err){MSCCL_ORDER_LEN, e[ns + k].g, e[k].g, k};
			return -EINVAL;
		}
	}
	return 0;
}

/* Each step's other end and the channel's step before it. */
static int match_ends(struct orun *o, const uint32_t *chan, struct msccl_order_err *err)
{
	const struct coll_step *st = o->s->steps.v;
	struct oend *e = malloc((o->n + 1) * sizeof(*e));
	uint32_t g, i, j, k, ns;
	int rc = 0;

	if (!e)
		return -ENOMEM;
	for (g = k = 0; g < o->n; g++) {
		bool send = st[g].op == COLL_SEND;

		o->partner[g] = o->prev[g] = NONE;
		if (st[g].op == COLL_LOCAL) /* no message: goes when its dependencies are done */
			continue;
		e[k++] = (struct oend){send ? o->rank[g] : st[g].peer,
				       send ? st[g].peer : o->rank[g], chan[g], g, send};
	}
	qsort(e, k, sizeof(*e), oend_cmp);
	for (i = 0; i < k && !rc; i = j) {
		for (j = i, ns = 0; j < k && e[j].from == e[i].from && e[j].to == e[i].to &&
				    e[j].chan == e[i].chan;
		     j++)
			ns += e[j].send;
		rc = pair_channel(o, e + i, ns, j - i - ns, err);
	}
	free(e);
	return rc;
}

/* Who waits for whom: a step for its dependencies and its channel's step before it. */
static int build_succ(struct orun *o)
{
	const struct coll_sched *s = o->s;
	uint32_t g, k, d;

	for (g = 0; g < o->n; g++) {
		const struct coll_step *st = &s->steps.v[g];
		uint32_t base = s->ranks.v[o->rank[g]].step_off;

		o->miss[g] = st->dep_n + (o->prev[g] != NONE);
		for (k = 0; k < st->dep_n; k++)
			o->so[base + s->deps.v[st->dep_off + k]]++;
		if (o->prev[g] != NONE)
			o->so[o->prev[g]]++;
	}
	for (g = 1; g <= o->n; g++) /* running ends, then filled down to the starts */
		o->so[g] += o->so[g - 1];
	o->succ = malloc((o->so[o->n] + 1) * sizeof(uint32_t));
	if (!o->succ)
		return -ENOMEM;
	for (g = 0; g < o->n; g++) {
		const struct coll_step *st = &s->steps.v[g];
		uint32_t base = s->ranks.v[o->rank[g]].step_off;

		for (k = 0; k < st->dep_n; k++) {
			d = base + s->deps.v[st->dep_off + k];
			o->succ[--o->so[d]] = g;
		}
		if (o->prev[g] != NONE)
			o->succ[--o->so[o->prev[g]]] = g;
	}
	return 0;
}

static void go(struct orun *o, uint32_t g)
{
	uint32_t k;

	o->newloc[g] = o->nk[o->rank[g]]++;
	o->done++;
	for (k = o->so[g]; k < o->so[g + 1]; k++)
		if (!--o->miss[o->succ[k]])
			o->queue[o->qt++] = o->succ[k];
}

/* The rendezvous run: a step whose dependencies are done is armed; a message goes once both
 * its ends are. */
static void rendezvous(struct orun *o)
{
	uint32_t g, p;

	for (g = 0; g < o->n; g++)
		if (!o->miss[g])
			o->queue[o->qt++] = g;
	while (o->qh < o->qt) {
		g = o->queue[o->qh++];
		o->armed[g] = 1;
		p = o->partner[g];
		if (p == NONE) { /* a local step */
			go(o, g);
			continue;
		}
		if (!o->armed[p])
			continue;
		go(o, o->s->steps.v[g].op == COLL_SEND ? g : p);
		go(o, o->s->steps.v[g].op == COLL_SEND ? p : g);
	}
}

/* The first step left waiting, preferring one armed (its other end is what waits). */
static void first_stuck(const struct orun *o, struct msccl_order_err *err)
{
	uint32_t g, first = NONE;

	for (g = 0; g < o->n; g++) {
		if (o->armed[g] && o->partner[g] != NONE && !o->armed[o->partner[g]]) {
			*err = (struct msccl_order_err){MSCCL_ORDER_STUCK, g, o->partner[g], 0};
			return;
		}
		if (first == NONE && !o->armed[g])
			first = g;
	}
	*err = (struct msccl_order_err){MSCCL_ORDER_STUCK, first, NONE, 0};
}

/* s's steps, their dependencies and pos in the new order. */
static int reorder(struct orun *o, size_t *pos)
{
	struct coll_sched *s = o->s;
	struct coll_step *st = malloc((o->n + 1) * sizeof(*st));
	uint32_t *dep = malloc((s->deps.n + 1) * sizeof(*dep)), *at = o->queue;
	size_t *np = malloc((o->n + 1) * sizeof(*np)), nd = 0;
	uint32_t g, i, k;

	if (!st || !dep || !np) {
		free(st), free(dep), free(np);
		return -ENOMEM;
	}
	for (g = 0; g < o->n; g++)
		at[s->ranks.v[o->rank[g]].step_off + o->newloc[g]] = g;
	for (i = 0; i < o->n; i++) {
		uint32_t base = s->ranks.v[o->rank[at[i]]].step_off;

		g = at[i];
		st[i] = s->steps.v[g];
		st[i].dep_off = (uint32_t)nd;
		for (k = 0; k < s->steps.v[g].dep_n; k++)
			dep[nd++] = o->newloc[base + s->deps.v[s->steps.v[g].dep_off + k]];
		np[i] = pos[g];
	}
	memcpy(s->steps.v, st, o->n * sizeof(*st));
	memcpy(s->deps.v, dep, nd * sizeof(*dep));
	s->deps.n = nd;
	memcpy(pos, np, o->n * sizeof(*np));
	free(st), free(dep), free(np);
	return 0;
}

int msccl_order_channels(struct coll_sched *s, const uint32_t *chan, size_t *pos,
			 struct msccl_order_err *e)
{
	struct orun o = {0};
	int err = orun_alloc(&o, s);

	if (!err) {
		rank_of_steps(&o);
		err = match_ends(&o, chan, e);
	}
	if (!err)
		err = build_succ(&o);
	if (!err) {
		rendezvous(&o);
		if (o.done < o.n) {
			first_stuck(&o, e);
			err = -EINVAL;
		}
	}
	if (!err)
		err = reorder(&o, pos);
	orun_free(&o);
	return err;
}
