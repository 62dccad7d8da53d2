// SPDX-License-Identifier: MIT
/* The alpha-beta time of a schedule (coll.h): every rank pair joined by its own link of one
 * rate, a message taking alpha + bytes / rate on it, the messages of one ordered pair one
 * after another. A step starts once its dependencies ended; a receive ends when it started and
 * its message arrived. The model every collective paper quotes its formulas in (a ring
 * all-reduce: 2 (N-1) (alpha + M / (N B))); it knows no topology and no contention. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "traffic/coll.h"

/* One message end: a rank's step, the ordered pair it belongs to and its place there. */
struct ct_end {
	uint32_t step, src, dst, seq;
};

static int cmp_end(const void *a, const void *b)
{
	const struct ct_end *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The ends of every send (recv false) or receive of s, sorted by pair and place: the k-th
 * send of a pair and its k-th receive then sit at the same index. seq[] is scratch, one per
 * rank. */
static size_t ct_ends(const struct coll_sched *s, bool recv, uint32_t *seq, struct ct_end *out)
{
	const struct coll_step *st;
	uint32_t r, i, n = s->params.nranks;
	size_t m = 0;

	for (r = 0; r < s->ranks.n; r++) {
		for (i = 0; i < n; i++)
			seq[i] = 0;
		for (i = 0; i < s->ranks.v[r].step_n; i++) {
			st = &s->steps.v[s->ranks.v[r].step_off + i];
			if (coll_op_local(st->op) || (st->op == COLL_RECV) != recv)
				continue;
			out[m++] = (struct ct_end){s->ranks.v[r].step_off + i, recv ? st->peer : r,
						   recv ? r : st->peer, seq[st->peer]++};
		}
	}
	qsort(out, m, sizeof(*out), cmp_end);
	return m;
}

/* match[step of a receive] = step of its send; -EINVAL if the pairs' counts differ. */
static int ct_match(const struct coll_sched *s, uint32_t *match)
{
	size_t n = s->steps.n + 1, ns, nr, i;
	struct ct_end *snd = malloc(n * sizeof(*snd)), *rcv = malloc(n * sizeof(*rcv));
	uint32_t *seq = calloc(s->params.nranks + 1, sizeof(*seq));
	int err = snd && rcv && seq ? 0 : -ENOMEM;

	if (!err) {
		ns = ct_ends(s, false, seq, snd);
		nr = ct_ends(s, true, seq, rcv);
		err = ns == nr ? 0 : -EINVAL;
		for (i = 0; !err && i < nr; i++) {
			if (cmp_end(&snd[i], &rcv[i]))
				err = -EINVAL;
			match[rcv[i].step] = snd[i].step;
		}
	}
	free(snd);
	free(rcv);
	free(seq);
	return err;
}

/* When step g (global index) of rank r may start: its dependencies' ends; NAN if one is not
 * known yet. */
static double ct_ready(const struct coll_sched *s, uint32_t r, const struct coll_step *st,
		       const double *end)
{
	double t = 0;
	uint32_t i, dep;

	for (i = 0; i < st->dep_n; i++) {
		dep = s->ranks.v[r].step_off + s->deps.v[st->dep_off + i];
		if (isnan(end[dep]))
			return NAN;
		t = fmax(t, end[dep]);
	}
	return t;
}

/* prev[g] = the previous send of step g's rank to the same peer (a send g), or UINT32_MAX:
 * the pair's link is busy until that one ended. last[] is scratch, one per rank. */
static void ct_prev(const struct coll_sched *s, uint32_t *last, uint32_t *prev)
{
	const struct coll_step *st;
	uint32_t r, i, g;

	for (r = 0; r < s->ranks.n; r++) {
		for (i = 0; i < s->ranks.v[r].step_n; i++)
			last[s->steps.v[s->ranks.v[r].step_off + i].peer] = UINT32_MAX;
		for (i = 0; i < s->ranks.v[r].step_n; i++) {
			g = s->ranks.v[r].step_off + i;
			st = &s->steps.v[g];
			if (st->op != COLL_SEND)
				continue;
			prev[g] = last[st->peer];
			last[st->peer] = g;
		}
	}
}

/* Advances rank r through the steps it can time now; whether it moved. */
static bool ct_rank(const struct coll_sched *s, uint32_t r, uint32_t *next, const uint32_t *link,
		    double alpha, double bps, double *end)
{
	const struct coll_step *st;
	bool moved = false;
	uint32_t g;
	double t;

	for (; next[r] < s->ranks.v[r].step_n; next[r]++, moved = true) {
		g = s->ranks.v[r].step_off + next[r];
		st = &s->steps.v[g];
		t = ct_ready(s, r, st, end);
		if (isnan(t) || (st->op == COLL_RECV && isnan(end[link[g]])))
			break;
		if (st->op == COLL_LOCAL) { /* no message: done once it may start */
			end[g] = t;
		} else if (st->op == COLL_WAIT) { /* a compute: len ns */
			end[g] = t + (double)st->len * 1e-9;
		} else if (st->op == COLL_SEND) {
			t = link[g] == UINT32_MAX ? t : fmax(t, end[link[g]]);
			end[g] = t + alpha + 8.0 * (double)st->len / bps;
		} else {
			end[g] = fmax(t, end[link[g]]);
		}
	}
	return moved;
}

/* link[g]: a receive's send (ct_match), a send's previous send on the pair (ct_prev). */
static int ct_links(const struct coll_sched *s, uint32_t *link)
{
	uint32_t *last = malloc((s->params.nranks + 1) * sizeof(*last));
	int err = last ? ct_match(s, link) : -ENOMEM;

	if (!err)
		ct_prev(s, last, link);
	free(last);
	return err;
}

double coll_sched_alpha_beta(const struct coll_sched *s, double alpha, double bps)
{
	size_t n = s->steps.n, i;
	uint32_t r, *link = calloc(n + 1, sizeof(*link));
	uint32_t *next = calloc(s->ranks.n + 1, sizeof(*next));
	double *end = malloc((n + 1) * sizeof(*end)), t = 0;
	bool moved = true;

	if (!link || !next || !end || !(bps > 0) || ct_links(s, link)) {
		t = NAN;
		goto out;
	}
	for (i = 0; i < n; i++)
		end[i] = NAN;
	while (moved)
		for (moved = false, r = 0; r < s->ranks.n; r++)
			moved |= ct_rank(s, r, next, link, alpha, bps, end);
	for (i = 0; i < n; i++)
		t = isnan(end[i]) ? INFINITY : fmax(t, end[i]); /* INFINITY: it never completes */
out:
	free(link);
	free(next);
	free(end);
	return t;
}
