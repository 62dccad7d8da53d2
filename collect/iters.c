// SPDX-License-Identifier: MIT
/* Iteration rows from iterations.csv and each job's means over its complete iterations:
 * collective time, then algbw = bytes / time and busbw = algbw x the nccl-tests factor
 * (nccl-tests' doc/PERFORMANCE.md; S = the per-rank buffer M for every kind coll.h builds). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/internal.h"
#include "collect/metrics.h"

struct acc {
	double iter, compute, comm, coll;
	uint32_t n;
};

static int iter_cmp(const void *a, const void *b, void *ctx)
{
	const struct rec_iter *v = ctx;
	const struct rec_iter *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];

	if (x->job != y->job)
		return COL_CMP(x->job, y->job);
	if (x->iter != y->iter)
		return COL_CMP(x->iter, y->iter);
	return COL_CMP(x->rank, y->rank);
}

static bool iter_full(const struct rec_iter *x)
{
	return x->t_start != REC_NEVER && x->t_compute_end != REC_NEVER && x->t_end != REC_NEVER;
}

/* Folds the records idx[0..n) of one (job, iter), sorted by rank, into row; a rank listed
 * twice counts once. */
static void iter_row(const struct rec_iter *v, const uint32_t *idx, size_t n, struct col_iter *row)
{
	double coll = 0;
	size_t i;

	row->job = v[idx[0]].job;
	row->iter = v[idx[0]].iter;
	row->iter_ns = row->compute_ns = row->comm_ns = COL_NONE;
	for (i = 0; i < n; i++) {
		const struct rec_iter *x = &v[idx[i]];

		if (!iter_full(x) || (row->ranks && x->rank == v[idx[i - 1]].rank))
			continue;
		row->ranks++;
		if (x->t_end - x->t_start > row->iter_ns)
			row->iter_ns = x->t_end - x->t_start;
		if (x->t_compute_end - x->t_start > row->compute_ns)
			row->compute_ns = x->t_compute_end - x->t_start;
		coll += (double)(x->t_end - x->t_compute_end);
	}
	row->coll_ns = row->ranks ? coll / row->ranks : NAN;
	if (row->ranks)
		row->comm_ns = row->iter_ns - row->compute_ns;
}

static void acc_add(const struct rec_run *r, struct col_metrics *m, const uint32_t *ids,
		    struct acc *acc, const struct col_iter *row)
{
	long pos = m->jobs.n ? col_job_find(m, ids, row->job) : -1;

	if (pos < 0 || !row->ranks || row->ranks != r->jobs.v[pos].gpus)
		return;
	acc[pos].iter += (double)row->iter_ns;
	acc[pos].compute += (double)row->compute_ns;
	acc[pos].comm += (double)row->comm_ns;
	acc[pos].coll += row->coll_ns;
	acc[pos].n++;
}

static void job_means(const struct rec_job *j, const struct acc *a, struct col_job *o)
{
	o->iters = a->n;
	if (!a->n)
		return;
	o->iter_ns = a->iter / a->n;
	o->compute_ns = a->compute / a->n;
	o->comm_ns = a->comm / a->n;
	o->coll_ns = a->coll / a->n;
	/* a Chakra trace's job runs many operations in its one iteration: no one bandwidth */
	if (o->coll_ns > 0 && j->algo != COLL_CHAKRA) {
		o->algbw = (double)j->bytes / (o->coll_ns / 1e9);
		/* the n of nccl-tests' factor: the ranks each buffer is reduced among (a shard's
		 * ring of replicas under shard-rings, whose busbw the job's n overstated) */
		o->busbw = o->algbw *
			   coll_busbw_factor(j->kind, coll_busbw_ranks(j->algo, j->gpus, j->group));
	}
}

static int rows_build(const struct rec_run *r, struct col_metrics *m, const uint32_t *ids,
		      struct acc *acc)
{
	uint32_t *idx = col_index_sort(r->iters.n, iter_cmp, r->iters.v);
	const struct rec_iter *v = r->iters.v;
	size_t lo, hi;
	struct col_iter *row;

	if (!idx)
		return -ENOMEM;
	for (lo = 0; lo < r->iters.n; lo = hi) {
		for (hi = lo + 1; hi < r->iters.n; hi++) {
			if (v[idx[hi]].job != v[idx[lo]].job || v[idx[hi]].iter != v[idx[lo]].iter)
				break;
		}
		row = vec_grow(&m->iters);
		if (!row)
			break;
		iter_row(v, idx + lo, hi - lo, row);
		acc_add(r, m, ids, acc, row);
	}
	free(idx);
	return lo < r->iters.n ? -ENOMEM : 0;
}

int col_iters_build(const struct rec_run *r, struct col_metrics *m)
{
	struct acc *acc = calloc(m->jobs.n + 1, sizeof(*acc));
	uint32_t *ids = NULL;
	size_t i;
	int err = acc ? col_job_ids(m, &ids) : -ENOMEM;

	m->iters.n = 0;
	if (!err && r->iters.n)
		err = rows_build(r, m, ids, acc);
	for (i = 0; !err && i < m->jobs.n; i++)
		job_means(&r->jobs.v[i], &acc[i], &m->jobs.v[i]);
	free(ids);
	free(acc);
	return err;
}
