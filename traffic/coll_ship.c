// SPDX-License-Identifier: MIT
/* Schedules the orchestrator makes and ships to the ranks (coll.h, coll_algo_shipped): a
 * rank's slice out of the whole schedule, and back into a schedule on the rank, checked as
 * the builder's guarantees need before the executor trusts it. */
#include <errno.h>
#include <string.h>

#include "traffic/coll.h"

bool coll_algo_shipped(enum coll_algo a)
{
	return a == COLL_TACOS || a == COLL_MSCCL || a == COLL_CHAKRA;
}

uint32_t coll_sched_rank_deps(const struct coll_sched *s, uint32_t rank)
{
	const struct coll_step *st = s->steps.v + s->ranks.v[rank].step_off;
	uint32_t i, n = 0;

	for (i = 0; i < s->ranks.v[rank].step_n; i++)
		n += st[i].dep_n;
	return n;
}

void coll_sched_rank_slice(const struct coll_sched *s, uint32_t rank, struct coll_step *steps,
			   uint32_t *deps)
{
	const struct coll_step *st = s->steps.v + s->ranks.v[rank].step_off;
	uint32_t i, n = 0;

	for (i = 0; i < s->ranks.v[rank].step_n; i++) {
		steps[i] = st[i];
		steps[i].dep_off = n;
		if (st[i].dep_n) /* s->deps.v is NULL when no step has any */
			memcpy(deps + n, s->deps.v + st[i].dep_off, st[i].dep_n * sizeof(*deps));
		n += st[i].dep_n;
	}
}

/* Whether [off, off + len) is whole elements inside the buffer, or with scratch its scratch. */
static bool in_range(const struct coll_params *p, uint64_t off, uint64_t len, bool scratch)
{
	uint64_t lim = scratch ? p->scratch : p->bytes;

	return off % p->elem == 0 && off <= lim && len <= lim - off;
}

/* What is wrong with step i's dependencies in a shipped slice, or NULL. */
static const char *deps_fault(const struct coll_step *st, uint32_t i, const uint32_t *deps,
			      uint32_t ndeps)
{
	uint32_t k;

	if (st->dep_off > ndeps || st->dep_n > ndeps - st->dep_off)
		return "dependencies beyond the list";
	for (k = 0; k < st->dep_n; k++)
		if (deps[st->dep_off + k] >= i)
			return "a dependency on a step that is not earlier";
	return NULL;
}

/* What is wrong with step i of a shipped slice of rank, or NULL. */
static const char *step_fault(const struct coll_params *p, uint32_t rank,
			      const struct coll_step *st, uint32_t i, const uint32_t *deps,
			      uint32_t ndeps)
{
	uint8_t f = st->flags & (uint8_t)~COLL_F_SCRATCH;
	bool local = st->op == COLL_LOCAL;

	if (st->op != COLL_SEND && st->op != COLL_RECV && !coll_op_local(st->op))
		return "an operation other than send, receive, local and wait";
	if (st->op == COLL_WAIT && (st->peer != rank || st->flags || st->off || st->src))
		return "a wait with a peer, flags or bytes";
	if (st->op == COLL_WAIT)
		return deps_fault(st, i, deps, ndeps);
	if (st->op == COLL_SEND ? f != 0 || (st->flags & COLL_F_DST_SCRATCH)
				: (f != COLL_F_COPY && f != COLL_F_REDUCE) ||
					  (st->op == COLL_RECV && (st->flags & COLL_F_SRC_SCRATCH)))
		return "flags that do not fit the operation";
	if (local ? st->peer != rank : st->peer >= p->nranks || st->peer == rank)
		return "a peer that is not another rank of the job";
	if (!st->len || st->len % p->elem || st->src % p->elem ||
	    !in_range(p, st->off, st->len,
		      st->flags &
			      (st->op == COLL_SEND ? COLL_F_SRC_SCRATCH : COLL_F_DST_SCRATCH)) ||
	    (local ? !in_range(p, st->src, st->len, st->flags & COLL_F_SRC_SCRATCH) : st->src))
		return "a byte range outside the buffer (or scratch) or not of whole elements";
	return deps_fault(st, i, deps, ndeps);
}

int coll_sched_from_rank(const struct coll_params *p, uint32_t rank, const struct coll_step *steps,
			 uint32_t nsteps, const uint32_t *deps, uint32_t ndeps,
			 struct coll_sched *out, struct diag *d)
{
	const char *why;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	if (!p->nranks || p->nranks > COLL_MAX_RANKS || rank >= p->nranks || !p->elem)
		return diag_set(d, -EINVAL, "a shipped schedule for rank %u of %u ranks", rank,
				p->nranks);
	for (i = 0; i < nsteps; i++)
		if ((why = step_fault(p, rank, &steps[i], i, deps, ndeps)))
			return diag_set(d, -EINVAL, "shipped schedule, step %u: %s", i, why);
	out->params = *p;
	if (vec_reserve(&out->ranks, p->nranks) || vec_reserve(&out->steps, nsteps + 1) ||
	    vec_reserve(&out->deps, ndeps + 1)) {
		coll_sched_done(out);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	memset(out->ranks.v, 0, p->nranks * sizeof(*out->ranks.v));
	out->ranks.n = p->nranks;
	out->ranks.v[rank] = (struct coll_rank){0, nsteps};
	memcpy(out->steps.v, steps, nsteps * sizeof(*steps));
	out->steps.n = nsteps;
	memcpy(out->deps.v, deps, ndeps * sizeof(*deps));
	out->deps.n = ndeps;
	return 0;
}
