// SPDX-License-Identifier: MIT
/* One rank's schedule as channels and reverse dependencies, and the dependency counting
 * that decides which steps may start (see plan.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/plan.h"

/* Channels: two per peer (2 i + op: receives, sends), then one for the local steps. */
static uint32_t plan_nch(const struct coll_plan *p)
{
	return 2 * p->npeers + 1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct peers of the steps, ascending: marked in a bitmap over the ranks they span,
 * then read off in order (a sort of every step's peer took longer than the rest of the plan). */
static int plan_find_peers(struct coll_plan *p)
{
	uint32_t i, k = 0, lo = UINT32_MAX, hi = 0, at;
	uint64_t *seen, w;

	for (i = 0; i < p->n; i++) {
		if (coll_op_local(p->steps[i].op)) /* its own rank: no peer */
			continue;
		lo = p->steps[i].peer < lo ? p->steps[i].peer : lo;
		hi = p->steps[i].peer > hi ? p->steps[i].peer : hi;
	}
	lo = lo <= hi ? lo : 0;
	seen = calloc((hi - lo) / 64 + 1, sizeof(*seen));
	p->peers = malloc((p->n ? p->n : 1) * sizeof(*p->peers));
	if (!seen || !p->peers) {
		free(seen);
		free(p->peers);
		p->peers = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < p->n; i++) {
		if (coll_op_local(p->steps[i].op))
			continue;
		at = p->steps[i].peer - lo;
		seen[at / 64] |= UINT64_C(1) << (at % 64);
	}
	for (i = 0; lo <= hi && i <= (hi - lo) / 64; i++)
		for (w = seen[i]; w; w &= w - 1)
			p->peers[k++] = lo + i * 64 + (uint32_t)__builtin_ctzll(w);
	free(seen);
	p->npeers = k;
	return 0;
}

int coll_plan_peer(const struct coll_plan *p, uint32_t rank)
{
	const uint32_t *hit = bsearch(&rank, p->peers, p->npeers, sizeof(rank), cmp_u32);

	return hit ? (int)(hit - p->peers) : -ENOENT;
}

/* Channels in list order: each step's channel and position in it, each channel's steps
 * chained through node.next, and in prev the step before it in its channel (COLL_PLAN_NONE
 * for a channel's first). last is scratch of one entry per channel. */
static void plan_fill_channels(struct coll_plan *p, uint32_t *last, uint32_t *prev)
{
	uint32_t nch = plan_nch(p), i, c;

	for (c = 0; c < nch; c++)
		p->chan_first[c] = last[c] = COLL_PLAN_NONE;
	for (i = 0; i < p->n; i++) {
		c = coll_op_local(p->steps[i].op)
			    ? nch - 1
			    : 2 * (uint32_t)coll_plan_peer(p, p->steps[i].peer) + p->steps[i].op;
		p->node[i].len = p->steps[i].len;
		p->node[i].phase = p->steps[i].phase;
		p->node[i].op = p->steps[i].op;
		p->node[i].chan = c;
		p->node[i].next = COLL_PLAN_NONE;
		prev[i] = last[c];
		if (last[c] == COLL_PLAN_NONE) {
			p->node[i].seq = 0;
			p->chan_first[c] = i;
		} else {
			p->node[i].seq = p->node[last[c]].seq + 1;
			p->node[last[c]].next = i;
		}
		last[c] = i;
	}
}

/* Scratch of the dependency filter below. */
struct plan_scratch {
	uint32_t *last; /* per channel: 1 + the latest position among step `at`'s dependencies */
	uint32_t *at; /* per channel: i + 1 once step i's dependencies have set last */
	uint32_t *prev; /* per step: the step before it in its channel (plan_fill_channels) */
	uint32_t *mark; /* per step: i + 1 while step i's are filtered, if the step is a
			 * dependency of i's channel predecessor */
	uint32_t *kept; /* the dependencies each step needs, in step order */
};

/* A step need not wait for a dependency that another step's completion implies:
 *  - one that another of its dependencies follows in the same channel: a channel's steps
 *    complete in order;
 *  - one that the step before it in its own channel depends on: a channel runs one step at a
 *    time, so that step, and with it the dependency, completed before this one may start
 *    (a ring's sends of own data all list the data's writers; only the first waits for them).
 * plan_latest notes, per channel, the latest position among step i's dependencies, and marks
 * its predecessor's dependencies. */
static void plan_latest(const struct coll_plan *p, uint32_t i, struct plan_scratch *sc)
{
	const struct coll_plan_node *nd = p->node;
	uint32_t m, j, c;
	const uint32_t *d = coll_plan_deps(p, i, &m);

	for (j = 0; j < m; j++) {
		c = nd[d[j]].chan;
		if (sc->at[c] != i + 1) {
			sc->at[c] = i + 1;
			sc->last[c] = 0;
		}
		if (sc->last[c] < nd[d[j]].seq + 1)
			sc->last[c] = nd[d[j]].seq + 1;
	}
	if (sc->prev[i] == COLL_PLAN_NONE)
		return;
	d = coll_plan_deps(p, sc->prev[i], &m);
	for (j = 0; j < m; j++)
		sc->mark[d[j]] = i + 1;
}

static bool plan_needed(const struct coll_plan *p, uint32_t i, uint32_t dep,
			const struct plan_scratch *sc)
{
	return sc->last[p->node[dep].chan] == p->node[dep].seq + 1 && sc->mark[dep] != i + 1;
}

/* Reverse dependencies, another counting sort: succ lists every i with d in deps(i) that i
 * needs (above), and need[i] counts them. This pass keeps each step's needed dependencies in
 * sc->kept and counts: node[d + 1].succ_off ends as where d's successors start, node[n].succ_off
 * as their total. */
static void plan_count_succ(struct coll_plan *p, struct plan_scratch *sc)
{
	struct coll_plan_node *nd = p->node;
	const uint32_t *d;
	uint32_t i, j, m, k = 0;

	for (i = 0; i < p->n; i++) {
		d = coll_plan_deps(p, i, &m);
		plan_latest(p, i, sc);
		for (j = 0; j < m; j++) {
			if (!plan_needed(p, i, d[j], sc))
				continue;
			sc->kept[k++] = d[j];
			nd[d[j] + 1].succ_off++;
			p->need[i]++;
		}
	}
	for (i = 0; i < p->n; i++)
		nd[i + 1].succ_off += nd[i].succ_off;
}

/* Lists the successors counted by plan_count_succ into succ. */
static void plan_fill_succ(struct coll_plan *p, const struct plan_scratch *sc)
{
	struct coll_plan_node *nd = p->node;
	const uint32_t *d = sc->kept;
	uint32_t i, j;

	for (i = 0; i < p->n; i++)
		for (j = 0; j < p->need[i]; j++)
			p->succ[nd[*d++].succ_off++] = i;
	for (i = p->n; i > 0; i--)
		nd[i].succ_off = nd[i - 1].succ_off;
	nd[0].succ_off = 0;
}

static uint32_t plan_ndeps(const struct coll_plan *p)
{
	uint32_t i, sum = 0;

	for (i = 0; i < p->n; i++)
		sum += p->steps[i].dep_n;
	return sum;
}

static void plan_scratch_free(struct plan_scratch *sc)
{
	free(sc->last);
	free(sc->at);
	free(sc->prev);
	free(sc->mark);
	free(sc->kept);
}

int coll_plan_init(struct coll_plan *p, const struct coll_sched *s, uint32_t rank)
{
	const struct coll_rank *cr = &s->ranks.v[rank];
	struct plan_scratch sc;

	memset(p, 0, sizeof(*p));
	p->steps = s->steps.v + cr->step_off;
	p->deps = s->deps.v;
	p->n = cr->step_n;
	if (plan_find_peers(p))
		return -ENOMEM;
	p->node = calloc(p->n + 1, sizeof(*p->node));
	p->need = calloc(p->n + 1, sizeof(*p->need));
	p->chan_first = calloc(plan_nch(p), sizeof(*p->chan_first));
	sc.last = calloc(plan_nch(p), sizeof(*sc.last));
	sc.at = calloc(plan_nch(p), sizeof(*sc.at));
	sc.prev = malloc((p->n + 1) * sizeof(*sc.prev));
	sc.mark = calloc(p->n + 1, sizeof(*sc.mark));
	sc.kept = malloc(((size_t)plan_ndeps(p) + 1) * sizeof(*sc.kept));
	if (!p->node || !p->need || !p->chan_first || !sc.last || !sc.at || !sc.prev || !sc.mark ||
	    !sc.kept)
		goto oom;
	plan_fill_channels(p, sc.last, sc.prev);
	plan_count_succ(p, &sc);
	p->succ = malloc((p->node[p->n].succ_off + 1) * sizeof(*p->succ));
	if (!p->succ)
		goto oom;
	plan_fill_succ(p, &sc);
	plan_scratch_free(&sc);
	return 0;
oom:
	plan_scratch_free(&sc);
	coll_plan_done(p);
	return -ENOMEM;
}

void coll_plan_done(struct coll_plan *p)
{
	if (!p)
		return;
	free(p->peers);
	free(p->node);
	free(p->need);
	free(p->chan_first);
	free(p->succ);
	memset(p, 0, sizeof(*p));
}

void coll_plan_drop_sched(struct coll_plan *p)
{
	p->steps = NULL;
	p->deps = NULL;
}

int coll_plan_run_init(struct coll_plan_run *r, struct coll_plan *p)
{
	uint32_t nch = plan_nch(p);

	memset(r, 0, sizeof(*r));
	r->p = p;
	r->ch = calloc(nch, sizeof(*r->ch));
	r->ready = calloc(nch, sizeof(*r->ready));
	if (!r->ch || !r->ready) {
		coll_plan_run_done(r);
		return -ENOMEM;
	}
	return 0;
}

void coll_plan_run_done(struct coll_plan_run *r)
{
	if (!r)
		return;
	free(r->ch);
	free(r->ready);
	memset(r, 0, sizeof(*r));
}

/* Queues channel c's head step if it may start: the channel is free, has steps left, and
 * the head's dependencies are done. */
static void plan_run_consider(struct coll_plan_run *r, uint32_t c)
{
	struct coll_plan_chan *ch = &r->ch[c];
	uint32_t step = ch->head, slot;

	if (ch->taken || step == COLL_PLAN_NONE || r->p->node[step].wait)
		return;
	ch->taken = 1;
	slot = r->rd + r->nq++;
	r->ready[slot < plan_nch(r->p) ? slot : slot - plan_nch(r->p)] = step;
}

void coll_plan_run_reset(struct coll_plan_run *r)
{
	struct coll_plan_node *nd = r->p->node;
	const struct coll_plan *p = r->p;
	uint32_t i, nch = plan_nch(p);

	for (i = 0; i < p->n; i++)
		nd[i].wait = p->need[i];
	for (i = 0; i < nch; i++)
		r->ch[i] = (struct coll_plan_chan){p->chan_first[i], 0};
	r->rd = r->nq = 0;
	r->done = 0;
	for (i = 0; i < nch; i++)
		plan_run_consider(r, i);
}

uint32_t coll_plan_run_take(struct coll_plan_run *r)
{
	uint32_t step;

	if (!r->nq)
		return COLL_PLAN_NONE;
	step = r->ready[r->rd];
	if (++r->rd == plan_nch(r->p))
		r->rd = 0;
	r->nq--;
	return step;
}

void coll_plan_run_complete(struct coll_plan_run *r, uint32_t step)
{
	struct coll_plan_node *nd = r->p->node;
	const uint32_t *s = r->p->succ + nd[step].succ_off;
	const uint32_t *end = r->p->succ + nd[step + 1].succ_off;
	uint32_t c = nd[step].chan;

	r->ch[c].taken = 0;
	r->ch[c].head = nd[step].next;
	r->done++;
	for (; s < end; s++)
		if (!--nd[*s].wait)
			plan_run_consider(r, nd[*s].chan);
	plan_run_consider(r, c);
}

uint64_t coll_plan_piece(uint64_t len, uint64_t done, uint64_t max, uint32_t elem)
{
	if (elem > 1)
		max -= max % elem;
	if (!max)
		max = elem ? elem : 1;
	return len - done < max ? len - done : max;
}

uint32_t coll_plan_parts(uint64_t len, uint32_t elem, uint32_t channels)
{
	uint64_t n = len / (elem ? elem : 1);

	channels = channels ? channels : 1;
	return n < channels ? (n ? (uint32_t)n : 1) : channels;
}

uint64_t coll_plan_part(uint64_t len, uint32_t elem, uint32_t m, uint32_t c, uint64_t *off)
{
	uint64_t n;

	elem = elem ? elem : 1;
	m = m ? m : 1;
	n = len / elem;
	*off = c * n / m * elem;
	if (c + 1 >= m) /* the last part takes a tail that is not a whole element */
		return len - *off;
	return (c + 1) * n / m * elem - *off;
}
