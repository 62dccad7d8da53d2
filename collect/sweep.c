// SPDX-License-Identifier: MIT
/* Sweep comparisons: each metric of each variant as a ratio to its baseline (the first variant,
 * or the one each run names), paired by seed, averaged over seeds with min and max. Times
 * compare in paper-equivalent seconds, so variants with different dilations compare fairly. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/metrics.h"

static const char *const names[] = {
	[COL_M_AVG_JWT] = "avg_jwt",   [COL_M_AVG_JRT] = "avg_jrt",	[COL_M_AVG_JCT] = "avg_jct",
	[COL_M_AVG_COMM] = "avg_comm", [COL_M_STABILITY] = "stability", [COL_M_FCT_P50] = "fct_p50",
	[COL_M_FCT_P99] = "fct_p99",   [COL_M_BUSBW] = "busbw",		[COL_M_UTIL] = "util_mean",
};

const char *col_metric_name(enum col_metric k)
{
	return (unsigned)k < COL_M_N ? names[k] : "?";
}

/* Mean over the jobs with complete iterations of their mean communication time; NAN if none. */
static double avg_comm(const struct col_metrics *m)
{
	double sum = 0;
	size_t i, n = 0;

	for (i = 0; i < m->jobs.n; i++) {
		if (isnan(m->jobs.v[i].comm_ns))
			continue;
		sum += m->jobs.v[i].comm_ns;
		n++;
	}
	return n ? sum / (double)n : NAN;
}

void col_metric_values(const struct col_metrics *m, double v[COL_M_N])
{
	const struct col_totals *t = &m->totals;

	v[COL_M_AVG_JWT] = col_paper_s(m, t->avg_jwt);
	v[COL_M_AVG_JRT] = col_paper_s(m, t->avg_jrt);
	v[COL_M_AVG_JCT] = col_paper_s(m, t->avg_jct);
	v[COL_M_AVG_COMM] = col_paper_s(m, avg_comm(m));
	v[COL_M_STABILITY] = col_paper_s(m, t->stability);
	v[COL_M_FCT_P50] = col_paper_s(m, m->flows.fct_p50);
	v[COL_M_FCT_P99] = col_paper_s(m, m->flows.fct_p99);
	v[COL_M_BUSBW] = t->busbw_mean;
	v[COL_M_UTIL] = t->util_mean;
}

/* Variant b's value of metric k for this seed, else its mean over seeds (NAN if none). */
static double baseline(const struct col_sweep_run *runs, size_t n, uint32_t b, uint64_t seed,
		       enum col_metric k)
{
	double sum = 0;
	uint32_t cnt = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (runs[i].variant != b || isnan(runs[i].v[k]))
			continue;
		if (runs[i].seed == seed)
			return runs[i].v[k];
		sum += runs[i].v[k];
		cnt++;
	}
	return cnt ? sum / cnt : NAN;
}

static void cell_add(struct col_sweep_cell *c, double value, double base)
{
	double ratio = value / base;

	if (isnan(value))
		return;
	c->value += value;
	c->nv++;
	if (isnan(base) || base == 0)
		return;
	c->mean += ratio;
	c->min = c->n && c->min < ratio ? c->min : ratio;
	c->max = c->n && c->max > ratio ? c->max : ratio;
	c->n++;
}

static void cell_end(struct col_sweep_cell *c)
{
	c->value = c->nv ? c->value / c->nv : NAN;
	c->mean = c->n ? c->mean / c->n : NAN;
	if (!c->n)
		c->min = c->max = NAN;
}

/* Whether variant v has a run. */
static bool has_run(const struct col_sweep_run *runs, size_t n, uint32_t v)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (runs[i].variant == v)
			return true;
	return false;
}

/* The number of variants; refused if no run's baseline ran (runs come variant-major, so the
 * runs naming one baseline come together and it is looked for once). */
static int variants(const struct col_sweep_run *runs, size_t n, uint32_t *out, struct diag *d)
{
	bool base = false, paired = false;
	size_t i;

	*out = 0;
	for (i = 0; i < n; i++) {
		paired |= runs[i].baseline != 0;
		if (!base && (!i || runs[i].baseline != runs[i - 1].baseline))
			base = has_run(runs, n, runs[i].baseline);
		if (runs[i].variant >= *out)
			*out = runs[i].variant + 1;
	}
	if (!base)
		return diag_set(d, -EINVAL, "sweep: no run of %s",
				paired ? "any variant's baseline"
				       : "the baseline (the first variant)");
	if (*out > UINT32_MAX / COL_M_N)
		return diag_set(d, -EINVAL, "sweep: variant %u is out of range", *out - 1);
	return 0;
}

int col_sweep_build(const struct col_sweep_run *runs, size_t n, struct col_sweep *out,
		    struct diag *d)
{
	size_t i, cells;
	unsigned k;
	int err;

	memset(out, 0, sizeof(*out));
	err = variants(runs, n, &out->variants, d);
	if (err)
		return err;
	cells = (size_t)out->variants * COL_M_N;
	if (vec_reserve(&out->cells, cells))
		return diag_set(d, -ENOMEM, "sweep: out of memory");
	memset(out->cells.v, 0, cells * sizeof(*out->cells.v));
	out->cells.n = cells;
	if (vec_reserve(&out->runs, out->variants))
		return diag_set(d, -ENOMEM, "sweep: out of memory");
	memset(out->runs.v, 0, out->variants * sizeof(*out->runs.v));
	out->runs.n = out->variants;
	for (i = 0; i < n; i++) {
		out->runs.v[runs[i].variant]++;
		for (k = 0; k < COL_M_N; k++)
			cell_add(&out->cells.v[(size_t)runs[i].variant * COL_M_N + k], runs[i].v[k],
				 baseline(runs, n, runs[i].baseline, runs[i].seed,
					  (enum col_metric)k));
	}
	for (i = 0; i < cells; i++)
		cell_end(&out->cells.v[i]);
	return 0;
}

const struct col_sweep_cell *col_sweep_cell(const struct col_sweep *s, uint32_t variant,
					    enum col_metric k)
{
	if (variant >= s->variants || (unsigned)k >= COL_M_N)
		return NULL;
	return &s->cells.v[(size_t)variant * COL_M_N + k];
}

void col_sweep_done(struct col_sweep *s)
{
	if (!s)
		return;
	vec_free(&s->cells);
	vec_free(&s->runs);
}

int col_sweep_pad(struct col_sweep *s, uint32_t variants)
{
	size_t i;

	if (variants <= s->variants)
		return 0;
	if (variants > UINT32_MAX / COL_M_N || vec_reserve(&s->cells, (size_t)variants * COL_M_N) ||
	    vec_reserve(&s->runs, variants))
		return -ENOMEM;
	for (i = s->cells.n; i < (size_t)variants * COL_M_N; i++)
		s->cells.v[i] =
			(struct col_sweep_cell){.mean = NAN, .min = NAN, .max = NAN, .value = NAN};
	for (i = s->runs.n; i < variants; i++)
		s->runs.v[i] = 0;
	s->cells.n = (size_t)variants * COL_M_N;
	s->runs.n = variants;
	s->variants = variants;
	return 0;
}

int col_sweep_groups_make(const uint32_t *base, uint32_t variants, struct col_sweep_groups *g)
{
	uint32_t *gid = malloc((variants + 1) * sizeof(*gid)), *at = NULL, v;

	memset(g, 0, sizeof(*g));
	g->order = malloc((variants + 1) * sizeof(*g->order));
	g->start = calloc(variants + 2, sizeof(*g->start));
	g->baseline = malloc((variants + 1) * sizeof(*g->baseline));
	if (!gid || !g->order || !g->start || !g->baseline)
		goto oom;
	for (v = 0; v < variants; v++)
		gid[v] = UINT32_MAX;
	for (v = 0; v < variants; v++)
		if (base[v] >= variants) {
			free(gid);
			col_sweep_groups_done(g);
			return -EINVAL;
		}
	for (v = 0; v < variants; v++) { /* groups numbered as their first variant comes */
		if (gid[base[v]] == UINT32_MAX) {
			g->baseline[g->n] = base[v];
			gid[base[v]] = g->n++;
		}
		g->start[gid[base[v]] + 1]++;
	}
	for (v = 0; v < g->n; v++)
		g->start[v + 1] += g->start[v];
	at = malloc((g->n + 1) * sizeof(*at));
	if (!at)
		goto oom;
	memcpy(at, g->start, g->n * sizeof(*at));
	for (v = 0; v < variants; v++)
		g->order[at[gid[base[v]]]++] = v;
	free(at);
	free(gid);
	return 0;
oom:
	free(gid);
	col_sweep_groups_done(g);
	return -ENOMEM;
}

void col_sweep_groups_done(struct col_sweep_groups *g)
{
	if (!g)
		return;
	free(g->order);
	free(g->start);
	free(g->baseline);
	memset(g, 0, sizeof(*g));
}
