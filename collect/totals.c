// SPDX-License-Identifier: MIT
/* Run totals: job counts, Avg.JWT/JRT/JCT, vClos's stability (§9.3; in its §9.4 a larger
 * variance gives "lower Stability", so a higher one means a smaller std: we report the std,
 * lower is better), mean busbw, and link utilization. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/internal.h"
#include "collect/metrics.h"

/* A job that ran to completion: its JRT and JCT are exact. */
static bool job_done(const struct col_job *j)
{
	return j->status == REC_OK && !j->flags && j->jct != COL_NONE;
}

static void count(struct col_totals *t, const struct col_job *j)
{
	t->jobs++;
	t->ok += j->status == REC_OK;
	t->failed += j->status == REC_FAILED;
	t->not_started += j->status == REC_NOT_STARTED;
	t->cancelled += j->status == REC_CANCELLED;
	t->censored += !!(j->flags & COL_J_CENSORED);
}

static void job_averages(const struct col_metrics *m, struct col_totals *t)
{
	double jwt = 0, jrt = 0, jct = 0, busbw = 0;
	uint32_t n_bw = 0;
	size_t i;

	for (i = 0; i < m->jobs.n; i++) {
		const struct col_job *j = &m->jobs.v[i];

		count(t, j);
		if (j->jrt != COL_NONE) {
			jwt += (double)j->jwt; /* it started, so its waiting is exact */
			t->n_jwt++;
		}
		if (!job_done(j))
			continue;
		jrt += (double)j->jrt;
		jct += (double)j->jct;
		t->n_jrt++;
		if (!isnan(j->busbw)) {
			busbw += j->busbw;
			n_bw++;
		}
	}
	t->avg_jwt = t->n_jwt ? jwt / t->n_jwt : NAN;
	t->avg_jrt = t->n_jrt ? jrt / t->n_jrt : NAN;
	t->avg_jct = t->n_jrt ? jct / t->n_jrt : NAN;
	t->busbw_mean = n_bw ? busbw / n_bw : NAN;
}

struct class_ctx {
	const struct rec_run *r;
	const struct col_metrics *m;
};

/* Completed jobs first, by (model, gpus); the rest after. */
static int class_cmp(const void *a, const void *b, void *arg)
{
	const struct class_ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	bool dx = job_done(&c->m->jobs.v[x]), dy = job_done(&c->m->jobs.v[y]);
	int s;

	if (dx != dy)
		return dx ? -1 : 1;
	s = strncmp(c->r->jobs.v[x].model, c->r->jobs.v[y].model, REC_NAME_MAX);
	return s ? s : COL_CMP(c->r->jobs.v[x].gpus, c->r->jobs.v[y].gpus);
}

/* Population std (numpy's default, as the authors' scripts) of the JCTs idx[0..n). */
static double jct_std(const struct col_metrics *m, const uint32_t *idx, size_t n)
{
	double mean = 0, var = 0;
	size_t i;

	for (i = 0; i < n; i++)
		mean += (double)m->jobs.v[idx[i]].jct / (double)n;
	for (i = 0; i < n; i++) {
		double dev = (double)m->jobs.v[idx[i]].jct - mean;

		var += dev * dev / (double)n;
	}
	return sqrt(var);
}

static int stability(const struct rec_run *r, const struct col_metrics *m, struct col_totals *t)
{
	struct class_ctx c = {r, m};
	uint32_t *idx = col_index_sort(m->jobs.n, class_cmp, &c);
	size_t lo, hi, n = m->jobs.n;
	double sum = 0;

	t->stability = NAN;
	if (n && !idx)
		return -ENOMEM;
	for (lo = 0; idx && lo < n && job_done(&m->jobs.v[idx[lo]]); lo = hi) {
		for (hi = lo + 1; hi < n && job_done(&m->jobs.v[idx[hi]]); hi++) {
			if (class_cmp(&idx[lo], &idx[hi], &c))
				break;
		}
		if (hi - lo < 2)
			continue; /* the std of one job says nothing */
		sum += jct_std(m, idx + lo, hi - lo);
		t->stability_classes++;
	}
	if (t->stability_classes)
		t->stability = sum / t->stability_classes;
	free(idx);
	return 0;
}

static void link_totals(const struct col_metrics *m, struct col_totals *t)
{
	double sum = 0;
	uint32_t n = 0;
	size_t i;

	t->util_mean = t->util_peak = NAN;
	for (i = 0; i < m->links.n; i++) {
		const struct col_link *l = &m->links.v[i];

		t->drops += l->drops;
		if (isnan(l->util_mean))
			continue;
		sum += l->util_mean;
		n++;
		if (isnan(t->util_peak) || l->util_peak > t->util_peak)
			t->util_peak = l->util_peak;
	}
	if (n)
		t->util_mean = sum / n;
}

int col_totals_build(const struct rec_run *r, struct col_metrics *m)
{
	struct col_totals *t = &m->totals;

	memset(t, 0, sizeof(*t));
	job_averages(m, t);
	link_totals(m, t);
	return stability(r, m, t);
}
