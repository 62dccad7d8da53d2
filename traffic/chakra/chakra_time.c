// SPDX-License-Identifier: MIT
/* A Chakra job's time with nothing shared (chakra.h, chakra_time): every operation starts the
 * moment chakra_run says it may and takes the time the caller's cost gives it (the alpha-beta
 * time of a collective, a compute node's duration), so the job ends at its critical path's
 * length; and that path, the operations that made the job as long as it is, walked back from
 * the last to end through the one whose end let each start. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/chakra/chakra.h"

/* An operation under way: when it ends, it, and the one whose end let it start. */
struct going {
	uint64_t end_ns;
	uint32_t seq; /* in the order they started: ties end in that order */
	uint32_t rec; /* its record in the path's records */
	struct chakra_op op;
};

/* A min-heap of operations by end, then start order. */
struct heap {
	struct going *v;
	size_t n, cap;
};

static bool before(const struct going *a, const struct going *b)
{
	return a->end_ns < b->end_ns || (a->end_ns == b->end_ns && a->seq < b->seq);
}

static int heap_push(struct heap *h, struct going g)
{
	size_t i;

	if (vec_reserve(h, h->n + 1))
		return -ENOMEM;
	for (i = h->n++; i && before(&g, &h->v[(i - 1) / 2]); i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = g;
	return 0;
}

static struct going heap_pop(struct heap *h)
{
	struct going top = h->v[0], last = h->v[--h->n];
	size_t i = 0, c;

	for (; (c = 2 * i + 1) < h->n; i = c) {
		if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!before(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

/* What started when: an op, its start and end, and the record of the op whose end let it
 * start (UINT32_MAX: it was ready from the beginning). */
struct rec {
	struct chakra_op op;
	uint64_t start_ns, end_ns;
	uint32_t cause;
};

typedef VEC(struct rec) rec_vec;

/* Every op ready now starts at t, its cause the record `cause`. */
static int start_ready(struct chakra_run *x, struct heap *h, rec_vec *recs, uint64_t t,
		       uint32_t cause, chakra_cost_fn cost, void *arg, uint32_t *seq)
{
	struct chakra_op op;
	struct rec *r;

	while (chakra_run_next(x, &op)) {
		uint64_t d = cost(arg, x, &op);

		r = vec_grow(recs);
		if (!r || recs->n > UINT32_MAX ||
		    heap_push(h, (struct going){t + d, (*seq)++, (uint32_t)(recs->n - 1), op}))
			return -ENOMEM;
		*r = (struct rec){op, t, t + d, cause};
	}
	return 0;
}

int chakra_time(const struct chakra_rank *ranks, size_t n, const struct chakra_links *l,
		chakra_cost_fn cost, void *arg, struct chakra_path *out)
{
	struct chakra_run x;
	struct heap h = {0};
	rec_vec recs = {0};
	uint32_t seq = 0, last = UINT32_MAX, i;
	int err = chakra_run_init(&x, ranks, n, l);

	memset(out, 0, sizeof(*out));
	err = err ? err : start_ready(&x, &h, &recs, 0, UINT32_MAX, cost, arg, &seq);
	while (!err && h.n) {
		struct going g = heap_pop(&h);

		out->end_ns = g.end_ns;
		last = g.rec;
		err = chakra_run_ended(&x, &g.op);
		err = err ? err : start_ready(&x, &h, &recs, g.end_ns, g.rec, cost, arg, &seq);
	}
	if (!err && !chakra_run_finished(&x))
		err = -EDEADLK; /* chakra_check refuses such a job first */
	/* the path, from the last op back through the causes, then put in order */
	for (i = last; !err && i != UINT32_MAX; i = recs.v[i].cause) {
		struct chakra_step *s = vec_grow(&out->steps);

		if (!s) {
			err = -ENOMEM;
			break;
		}
		*s = (struct chakra_step){recs.v[i].op, recs.v[i].start_ns, recs.v[i].end_ns};
	}
	for (i = 0; !err && i < out->steps.n / 2; i++) {
		struct chakra_step t = out->steps.v[i];

		out->steps.v[i] = out->steps.v[out->steps.n - 1 - i];
		out->steps.v[out->steps.n - 1 - i] = t;
	}
	if (err)
		chakra_path_done(out);
	chakra_run_done(&x);
	vec_free(&h);
	vec_free(&recs);
	return err;
}

void chakra_path_done(struct chakra_path *p)
{
	vec_free(&p->steps);
	p->end_ns = 0;
}

#define AB_CACHE 8 /* collective schedules kept, as a trace repeats its collectives */

/* ---- at the costs of the lowered schedule in the alpha-beta model (chakra_ideal) ---- */

struct ab {
	const struct chakra_job *j;
	double alpha, bps;
	struct coll_sched cache[AB_CACHE];
	uint32_t slot;
	int err;
};

/* The alpha-beta time of collective p (ns), its schedule one of the last built. */
static uint64_t ab_coll(struct ab *a, const struct coll_params *p, bool bcast_or_reduce)
{
	struct coll_sched *s = NULL;
	double t;
	uint32_t i;

	if (bcast_or_reduce) /* one message each way from or to the root, one after another */
		return (uint64_t)llround((a->alpha + 8.0 * (double)p->bytes / a->bps) * 1e9 *
					 (double)(p->nranks > 1 ? p->nranks - 1 : 0));
	for (i = 0; i < AB_CACHE && !s; i++)
		if (a->cache[i].ranks.n && a->cache[i].params.kind == p->kind &&
		    a->cache[i].params.algo == p->algo && a->cache[i].params.nranks == p->nranks &&
		    a->cache[i].params.bytes == p->bytes)
			s = &a->cache[i];
	if (!s) {
		s = &a->cache[a->slot++ % AB_CACHE];
		coll_sched_done(s);
		if (coll_sched_build(p, s, NULL)) {
			a->err = -EINVAL;
			return 0;
		}
	}
	t = coll_sched_alpha_beta(s, a->alpha, a->bps);
	return isfinite(t) ? (uint64_t)llround(t * 1e9) : 0;
}

static uint64_t ab_cost(void *arg, const struct chakra_run *x, const struct chakra_op *op)
{
	struct ab *a = arg;
	uint32_t r = chakra_links_rank(x->l, x->n, op->node);
	const struct chakra_node *n = &x->ranks[r].nodes.v[op->node - x->l->base[r]];
	struct coll_params p;
	size_t m;
	int kind;
	double t;

	if (op->kind == CHAKRA_SEND)
		return (uint64_t)llround(
			(a->alpha +
			 8.0 * (double)chakra_op_bytes(a->j, n->bytes, CHAKRA_ALL_REDUCE, 1) /
				 a->bps) *
			1e9);
	if (op->kind == CHAKRA_COLL) {
		chakra_run_members(x, op, &m);
		p = chakra_coll_params(a->j, n, (uint32_t)m, &kind);
		return ab_coll(a, &p, kind < 0);
	}
	t = chakra_node_ns(a->j, n);
	return t > 0 ? (uint64_t)t : 0;
}

int chakra_ideal(const struct chakra_job *j, double alpha, double bps, struct chakra_path *out)
{
	struct ab a = {.j = j, .alpha = alpha, .bps = bps};
	uint32_t i;
	int err = chakra_time(j->ranks, j->n, j->l, ab_cost, &a, out);

	for (i = 0; i < AB_CACHE; i++)
		coll_sched_done(&a.cache[i]);
	if (!err && a.err) {
		chakra_path_done(out);
		err = a.err;
	}
	return err;
}
