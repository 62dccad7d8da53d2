// SPDX-License-Identifier: MIT
/* One rank's schedule as channels and reverse dependencies, and the dependency counting
 * that decides which steps may start (see plan.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/plan.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct peers of the steps, sorted. */
static int plan_find_peers(struct coll_plan *p)
{
	uint32_t i, k = 0;

	p->peers = malloc((p->n ? p->n : 1) * sizeof(*p->peers));
	if (!p->peers)
		return -ENOMEM;
	for (i = 0; i < p->n; i++)
		p->peers[i] = p->steps[i].peer;
	qsort(p->peers, p->n, sizeof(*p->peers), cmp_u32);
	for (i = 0; i < p->n; i++)
		if (!k || p->peers[k - 1] != p->peers[i])
			p->peers[k++] = p->peers[i];
	p->npeers = k;
	return 0;
}

int coll_plan_peer(const struct coll_plan *p, uint32_t rank)
{
	const uint32_t *hit = bsearch(&rank, p->peers, p->npeers, sizeof(rank), cmp_u32);

	return hit ? (int)(hit - p->peers) : -ENOENT;
}

/* Channels in list order: a counting sort of the steps by channel, stable. */
static void plan_fill_channels(struct coll_plan *p)
{
	uint32_t nch = 2 * p->npeers, i, c;

	for (i = 0; i < p->n; i++) {
		p->chan[i] = 2 * (uint32_t)coll_plan_peer(p, p->steps[i].peer) + p->steps[i].op;
		p->chan_off[p->chan[i] + 1]++;
	}
	for (c = 0; c < nch; c++)
		p->chan_off[c + 1] += p->chan_off[c];
	/* chan_off[c] doubles as channel c's fill cursor, then is shifted back below */
	for (i = 0; i < p->n; i++) {
		c = p->chan[i];
		p->seq[i] = p->chan_off[c];
		p->chan_steps[p->chan_off[c]++] = i;
	}
	for (c = nch; c > 0; c--)
		p->chan_off[c] = p->chan_off[c - 1];
	p->chan_off[0] = 0;
	for (i = 0; i < p->n; i++)
		p->seq[i] -= p->chan_off[p->chan[i]];
}

/* Reverse dependencies, another counting sort: succ lists every i with d in deps(i). */
static void plan_fill_succ(struct coll_plan *p)
{
	const uint32_t *d;
	uint32_t i, j, nd;

	for (i = 0; i < p->n; i++) {
		d = coll_plan_deps(p, i, &nd);
		for (j = 0; j < nd; j++)
			p->succ_off[d[j] + 1]++;
	}
	for (i = 0; i < p->n; i++)
		p->succ_off[i + 1] += p->succ_off[i];
	for (i = 0; i < p->n; i++) {
		d = coll_plan_deps(p, i, &nd);
		for (j = 0; j < nd; j++)
			p->succ[p->succ_off[d[j]]++] = i;
	}
	for (i = p->n; i > 0; i--)
		p->succ_off[i] = p->succ_off[i - 1];
	p->succ_off[0] = 0;
}

static uint32_t plan_ndeps(const struct coll_plan *p)
{
	uint32_t i, sum = 0;

	for (i = 0; i < p->n; i++)
		sum += p->steps[i].dep_n;
	return sum;
}

int coll_plan_init(struct coll_plan *p, const struct coll_sched *s, uint32_t rank)
{
	const struct coll_rank *cr = &s->ranks.v[rank];
	size_t n;

	memset(p, 0, sizeof(*p));
	p->steps = s->steps.v + cr->step_off;
	p->deps = s->deps.v;
	p->n = cr->step_n;
	if (plan_find_peers(p))
		return -ENOMEM;
	n = p->n + 1;
	p->chan = calloc(n, sizeof(*p->chan));
	p->seq = calloc(n, sizeof(*p->seq));
	p->chan_off = calloc(2 * p->npeers + 1, sizeof(*p->chan_off));
	p->chan_steps = calloc(n, sizeof(*p->chan_steps));
	p->succ_off = calloc(n, sizeof(*p->succ_off));
	p->succ = calloc(plan_ndeps(p) + 1, sizeof(*p->succ));
	if (!p->chan || !p->seq || !p->chan_off || !p->chan_steps || !p->succ_off || !p->succ) {
		coll_plan_done(p);
		return -ENOMEM;
	}
	plan_fill_channels(p);
	plan_fill_succ(p);
	return 0;
}

void coll_plan_done(struct coll_plan *p)
{
	if (!p)
		return;
	free(p->peers);
	free(p->chan);
	free(p->seq);
	free(p->chan_off);
	free(p->chan_steps);
	free(p->succ_off);
	free(p->succ);
	memset(p, 0, sizeof(*p));
}

int coll_plan_run_init(struct coll_plan_run *r, const struct coll_plan *p)
{
	uint32_t nch = 2 * p->npeers + 1;

	memset(r, 0, sizeof(*r));
	r->p = p;
	r->wait = calloc(p->n + 1, sizeof(*r->wait));
	r->head = calloc(nch, sizeof(*r->head));
	r->taken = calloc(nch, sizeof(*r->taken));
	r->ready = calloc(nch, sizeof(*r->ready));
	if (!r->wait || !r->head || !r->taken || !r->ready) {
		coll_plan_run_done(r);
		return -ENOMEM;
	}
	return 0;
}

void coll_plan_run_done(struct coll_plan_run *r)
{
	if (!r)
		return;
	free(r->wait);
	free(r->head);
	free(r->taken);
	free(r->ready);
	memset(r, 0, sizeof(*r));
}

/* Queues channel c's head step if it may start: the channel is free, has steps left, and
 * the head's dependencies are done. */
static void plan_run_consider(struct coll_plan_run *r, uint32_t c)
{
	const struct coll_plan *p = r->p;
	uint32_t at = p->chan_off[c] + r->head[c], step;

	if (r->taken[c] || at >= p->chan_off[c + 1])
		return;
	step = p->chan_steps[at];
	if (r->wait[step])
		return;
	r->taken[c] = 1;
	r->ready[(r->rd + r->nq) % (2 * p->npeers)] = step;
	r->nq++;
}

void coll_plan_run_reset(struct coll_plan_run *r)
{
	const struct coll_plan *p = r->p;
	uint32_t i, nch = 2 * p->npeers;

	for (i = 0; i < p->n; i++)
		r->wait[i] = p->steps[i].dep_n;
	memset(r->head, 0, (nch + 1) * sizeof(*r->head));
	memset(r->taken, 0, (nch + 1) * sizeof(*r->taken));
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
	r->rd = (r->rd + 1) % (2 * r->p->npeers);
	r->nq--;
	return step;
}

void coll_plan_run_complete(struct coll_plan_run *r, uint32_t step)
{
	const struct coll_plan *p = r->p;
	uint32_t c = p->chan[step], i, s;

	r->taken[c] = 0;
	r->head[c]++;
	r->done++;
	for (i = p->succ_off[step]; i < p->succ_off[step + 1]; i++) {
		s = p->succ[i];
		if (!--r->wait[s])
			plan_run_consider(r, p->chan[s]);
	}
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
