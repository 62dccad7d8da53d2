// SPDX-License-Identifier: MIT
/* Job metrics (vClos §9.3, computed as its authors' cal_jrt_jwt.py does: JRT = finish - start,
 * JWT = start - arrival, JCT = finish - arrival), iteration and collective times with
 * nccl-tests' algbw and busbw, and the whole run's metrics assembled in one call. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/internal.h"
#include "collect/metrics.h"

struct sort_ctx {
	int (*cmp)(const void *, const void *, void *);
	void *ctx;
};

static int index_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	int c = s->cmp(a, b, s->ctx);

	return c ? c : COL_CMP(*(const uint32_t *)a, *(const uint32_t *)b);
}

uint32_t *col_index_sort(size_t n, int (*cmp)(const void *, const void *, void *), void *ctx)
{
	struct sort_ctx s = {cmp, ctx};
	uint32_t *idx = n && n <= UINT32_MAX ? malloc(n * sizeof(*idx)) : NULL;
	size_t i;

	if (!idx)
		return NULL;
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, n, sizeof(*idx), index_cmp, &s);
	return idx;
}

static int job_id_cmp(const void *a, const void *b, void *ctx)
{
	const struct col_job *j = ctx;

	return COL_CMP(j[*(const uint32_t *)a].id, j[*(const uint32_t *)b].id);
}

int col_job_ids(const struct col_metrics *m, uint32_t **ids)
{
	size_t i;

	*ids = NULL;
	if (!m->jobs.n)
		return 0;
	*ids = col_index_sort(m->jobs.n, job_id_cmp, m->jobs.v);
	if (!*ids)
		return -ENOMEM;
	for (i = 1; i < m->jobs.n; i++) {
		if (m->jobs.v[(*ids)[i]].id == m->jobs.v[(*ids)[i - 1]].id) {
			free(*ids);
			*ids = NULL;
			return -EINVAL;
		}
	}
	return 0;
}

long col_job_find(const struct col_metrics *m, const uint32_t *ids, uint32_t id)
{
	size_t lo = 0, hi = m->jobs.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->jobs.v[ids[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->jobs.n && m->jobs.v[ids[lo]].id == id ? (long)ids[lo] : -1;
}

/* JWT always ends at the start; without a start (or a finish) the run's end stands in, as a
 * lower bound, unless the job failed, when its failure time is the end of everything. */
void col_job_times(const struct rec_job *j, int64_t t_end, struct col_job *o)
{
	int64_t end = j->finish != REC_NEVER ? j->finish : t_end;

	o->id = j->id;
	o->status = j->status;
	o->jwt = o->jrt = o->jct = COL_NONE;
	o->flags = j->status == REC_FAILED ? COL_J_FAILED : 0;
	if (j->finish == REC_NEVER || j->status == REC_CANCELLED ||
	    (j->start == REC_NEVER && j->status != REC_FAILED))
		o->flags |= COL_J_CENSORED;
	if (j->arrival == REC_NEVER)
		return;
	if (j->start == REC_NEVER) {
		if (end != REC_NEVER)
			o->jwt = end - j->arrival;
		return;
	}
	o->jwt = j->start - j->arrival;
	if (end == REC_NEVER)
		return;
	o->jrt = end - j->start;
	o->jct = end - j->arrival;
}

static void job_init(const struct rec_job *j, int64_t t_end, struct col_job *o)
{
	memset(o, 0, sizeof(*o));
	col_job_times(j, t_end, o);
	o->iter_ns = o->compute_ns = o->comm_ns = o->coll_ns = NAN;
	o->algbw = o->busbw = NAN;
}

static int jobs_build(const struct rec_run *r, struct col_metrics *m, struct diag *d)
{
	const struct rec_job *j;
	struct col_job *o;
	int err;

	if (vec_reserve(&m->jobs, r->jobs.n))
		return -ENOMEM;
	vec_for_each (&r->jobs, j) {
		o = vec_grow(&m->jobs);
		job_init(j, r->t_end, o);
	}
	err = col_iters_build(r, m);
	err = err ? err : col_ops_build(r, m);
	return err == -EINVAL ? diag_set(d, err, "jobs.csv: a job id is listed twice") : err;
}

double col_paper_s(const struct col_metrics *m, double ns)
{
	return ns / 1e9 / m->dilation;
}

enum col_clock col_clock_of(const char *backend)
{
	return backend && !strcmp(backend, "sim") ? COL_CLOCK_VIRTUAL : COL_CLOCK_EMULATED;
}

const char *col_clock_unit(enum col_clock c, bool paper)
{
	if (c == COL_CLOCK_VIRTUAL)
		return "virtual seconds";
	return paper ? "paper seconds" : "emulated seconds";
}

static int check_run(const struct rec_run *r, struct diag *d)
{
	if (!(r->dilation > 0) || !isfinite(r->dilation))
		return diag_set(d, -EINVAL, "run: dilation %g is not a positive number",
				r->dilation);
	return 0;
}

int col_metrics_build(const struct rec_run *r, const struct col_links_cfg *lc,
		      const struct col_fid_cfg *fc, struct col_metrics *m, struct diag *d)
{
	int err;

	memset(m, 0, sizeof(*m));
	err = check_run(r, d);
	if (err)
		return err;
	m->dilation = r->dilation;
	m->t_end = r->t_end;
	if (fc)
		m->fid_cfg = *fc;
	else
		col_fid_cfg_default(&m->fid_cfg);
	err = jobs_build(r, m, d);
	if (!err)
		err = col_flows_build(r, &m->flows);
	if (!err)
		err = col_links_build(r, lc, m, d);
	if (!err)
		err = col_fid_judge(r, m->links.v, m->links.n, &m->fid_cfg, &m->fid);
	if (!err)
		err = col_totals_build(r, m);
	if (err) {
		col_metrics_done(m);
		return err == -ENOMEM ? diag_set(d, err, "collect: out of memory") : err;
	}
	return 0;
}

void col_metrics_done(struct col_metrics *m)
{
	if (!m)
		return;
	vec_free(&m->jobs);
	vec_free(&m->iters);
	vec_free(&m->links);
	col_fid_done(&m->fid);
}
