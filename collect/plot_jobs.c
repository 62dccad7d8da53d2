// SPDX-License-Identifier: MIT
/* Plots about flows and jobs: FCT CDFs and bars per job, for a run or a sweep's variants. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/plot_int.h"
#include "lib/sort.h"

#define CDF_POINTS 1000 /* points per curve; more flows are sampled at even quantiles */
#define XTIC_MAX 40 /* job labels on the x axis; more rows label every k-th */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One curve's points as a data block; nonzero if it has any (two at least: one point draws
 * no step). */
static int cdf_block(struct col_text *t, struct col_plot_cdf *s)
{
	size_t n = s->v.n, k, i, pts = n < CDF_POINTS ? n : CDF_POINTS;
	char b[32];

	if (n < 2)
		return 0;
	if (sort_pos_dbl(s->v.v, n)) /* short of memory: the slow way */
		qsort(s->v.v, n, sizeof(double), cmp_dbl);
	col_text_printf(t, "# %s\n", s->label);
	for (k = 1; k <= pts; k++) {
		i = (size_t)ceil((double)k * (double)n / (double)pts) - 1;
		col_text_printf(t, "%s %.6g\n", col_plot_num(b, s->v.v[i]), (double)(i + 1) / n);
	}
	col_text_printf(t, "\n\n");
	return 1;
}

/* Why an FCT CDF of curves s[0..n) (FCTs above 0 only) has no line. */
static int cdf_none(struct col_plots *p, const struct col_plot_cdf *s, size_t n)
{
	size_t k, most = 0;

	for (k = 0; k < n; k++)
		most = s[k].v.n > most ? s[k].v.n : most;
	return col_plot_skip(p, "fct_cdf", "%s",
			     most ? "only one flow completed (in any one curve): a CDF of one "
				    "value draws no line"
				  : "no flow completed, so there is no flow completion time");
}

int col_plot_fct_cdf(struct col_plots *p, struct col_plot_cdf *s, size_t n, const char *title,
		     enum col_clock clock)
{
	struct col_text d = {0}, g = {0};
	char q[2][256];
	size_t k, idx = 0;
	int err;

	col_plot_head(&g, "fct_cdf", PLOT_W, PLOT_H);
	col_text_printf(&g,
			"set title 'flow completion time CDF, %s'\n"
			"set xlabel 'flow completion time (%s, log scale)'\n"
			"set ylabel 'fraction of flows'\n"
			"set logscale x\nset yrange [0:1.02]\nset format x '%%g'\nplot",
			col_plot_str(q[0], sizeof(q[0]), title), col_clock_unit(clock, true));
	for (k = 0; k < n; k++) {
		size_t i, w = 0;

		for (i = 0; i < s[k].v.n; i++) /* a log axis has no 0 */
			if (s[k].v.v[i] > 0)
				s[k].v.v[w++] = s[k].v.v[i];
		s[k].v.n = w;
		if (!cdf_block(&d, &s[k]))
			continue;
		col_text_printf(&g, "%s '%s' index %zu using 1:2 with steps lw 2 title '%s'",
				idx ? ",\\\n    " : " ", idx ? "" : "fct_cdf.dat", idx,
				col_plot_str(q[1], sizeof(q[1]), s[k].label));
		idx++;
	}
	col_text_printf(&g, "\n");
	col_plot_tail(&g, "fct_cdf", PLOT_W, PLOT_H);
	if (!idx) {
		col_text_done(&d);
		col_text_done(&g);
		return cdf_none(p, s, n);
	}
	err = col_plot_add(p, "fct_cdf.dat", &d);
	err = err ? err : col_plot_add(p, "fct_cdf.gp", &g);
	col_text_done(&d);
	col_text_done(&g);
	return err;
}

static void bars_data(struct col_text *t, const struct col_plot_bars *b)
{
	size_t r, c;
	char n[32];

	for (r = 0; r < b->nrows; r++) {
		col_text_printf(t, "%u%s", b->jobs[r], b->marks && b->marks[r] ? b->marks[r] : "");
		for (c = 0; c < b->ncols; c++)
			col_text_printf(t, " %s", col_plot_num(n, b->v[r * b->ncols + c]));
		col_text_printf(t, "\n");
	}
}

static void bars_style(struct col_text *g, const struct col_plot_bars *b)
{
	size_t every = (b->nrows + XTIC_MAX - 1) / XTIC_MAX;

	col_text_printf(g,
			"set style data histograms\n"
			"set style histogram %s\n"
			"set style fill solid 0.85 border -1\n"
			"set boxwidth 0.8\n"
			"set yrange [0:*]\n"
			"set xlabel 'job'\n"
			"set grid noxtics ytics\n",
			b->stacked ? "rowstacked" : "clustered gap 1");
	if (every > 1)
		col_text_printf(g, "set xtics rotate by -90\n");
	col_text_printf(g, "lbl(i) = (int(i) %% %zu == 0) ? strcol(1) : ''\n", every);
}

/* Whether b has a bar to draw. */
static bool bars_any(const struct col_plot_bars *b)
{
	size_t i;

	for (i = 0; i < b->nrows * b->ncols; i++)
		if (isfinite(b->v[i]))
			return true;
	return false;
}

int col_plot_bars(struct col_plots *p, const struct col_plot_bars *b)
{
	struct col_text d = {0}, g = {0};
	char q[2][256], file[COL_PLOT_NAME_MAX];
	size_t c;
	int err;

	if (!b->nrows)
		return col_plot_skip(p, b->name, "there are no jobs");
	if (!bars_any(b))
		return col_plot_skip(p, b->name, "%s", b->none ? b->none : "no value to show");
	bars_data(&d, b);
	col_plot_head(&g, b->name, PLOT_W, PLOT_H);
	bars_style(&g, b);
	col_text_printf(&g, "set title '%s'\nset ylabel '%s'\nplot",
			col_plot_str(q[0], sizeof(q[0]), b->title),
			col_plot_str(q[1], sizeof(q[1]), b->ylabel));
	for (c = 0; c < b->ncols; c++)
		col_text_printf(&g, "%s '%s%s' using %zu%s title '%s'", c ? ",\\\n    " : " ",
				c ? "" : b->name, c ? "" : ".dat", c + 2, c ? "" : ":xtic(lbl($0))",
				col_plot_str(q[0], sizeof(q[0]), b->cols[c]));
	col_text_printf(&g, "\n");
	col_plot_tail(&g, b->name, PLOT_W, PLOT_H);
	snprintf(file, sizeof(file), "%s.dat", b->name);
	err = col_plot_add(p, file, &d);
	snprintf(file, sizeof(file), "%s.gp", b->name);
	err = err ? err : col_plot_add(p, file, &g);
	col_text_done(&d);
	col_text_done(&g);
	return err;
}

/* ---- a sweep ---- */

int col_fcts_add(col_fcts *out, const struct rec_run *r, const struct col_metrics *m)
{
	size_t f;

	for (f = 0; f < r->flows.n; f++) {
		int64_t fct = col_flow_fct(&r->flows.v[f]);

		if (fct != COL_NONE && vec_push(out, col_paper_s(m, (double)fct)))
			return -ENOMEM;
	}
	return 0;
}

/* The variants' FCTs lent to the curves, which sort them in place. */
static int sweep_fct(struct col_plots *p, struct col_plot_variant *v, size_t nv, const char *title,
		     enum col_clock clock)
{
	struct col_plot_cdf *s = calloc(nv + 1, sizeof(*s));
	size_t k;
	int err;

	if (!s)
		return -ENOMEM;
	for (k = 0; k < nv; k++) {
		snprintf(s[k].label, sizeof(s[k].label), "%s", v[k].name);
		s[k].v = v[k].fct;
	}
	err = col_plot_fct_cdf(p, s, nv, title, clock);
	free(s);
	return err;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The job ids of every run of every variant, sorted and unique. */
static int job_ids(const struct col_plot_variant *v, size_t nv, uint32_t **out, size_t *n)
{
	VEC(uint32_t) ids = {0};
	size_t k, i, j, w = 0;

	for (k = 0; k < nv; k++)
		for (i = 0; i < v[k].n; i++)
			for (j = 0; j < v[k].metrics[i]->jobs.n; j++)
				if (vec_push(&ids, v[k].metrics[i]->jobs.v[j].id))
					goto oom;
	if (ids.n)
		qsort(ids.v, ids.n, sizeof(*ids.v), cmp_u32);
	for (i = 0; i < ids.n; i++)
		if (!w || ids.v[w - 1] != ids.v[i])
			ids.v[w++] = ids.v[i];
	*out = ids.v;
	*n = w;
	return 0;
oom:
	vec_free(&ids);
	return -ENOMEM;
}

/* Mean JCT (paper s) of job `id` over the runs of one variant; *flag set if any is a bound. */
static double mean_jct(const struct col_plot_variant *v, uint32_t id, bool *flag)
{
	double sum = 0;
	size_t i, j, n = 0;

	for (i = 0; i < v->n; i++) {
		const struct col_metrics *m = v->metrics[i];

		for (j = 0; j < m->jobs.n; j++) {
			const struct col_job *c = &m->jobs.v[j];

			if (c->id != id)
				continue;
			*flag |= c->flags != 0;
			if (c->jct != COL_NONE) {
				sum += col_paper_s(m, (double)c->jct);
				n++;
			}
		}
	}
	return n ? sum / (double)n : NAN;
}

static int sweep_jct(struct col_plots *p, const struct col_plot_variant *v, size_t nv,
		     const char *title, enum col_clock clock)
{
	uint32_t *ids = NULL;
	size_t n = 0, r, k;
	const char **cols = calloc(nv + 1, sizeof(*cols)), **marks = NULL;
	double *val = NULL;
	char t[200], y[64];
	int err = cols && !job_ids(v, nv, &ids, &n) ? 0 : -ENOMEM;
	struct col_plot_bars b = {.name = "jct",
				  .title = t,
				  .ylabel = y,
				  .nrows = n,
				  .cols = cols,
				  .ncols = nv,
				  .none = "no job completed in any variant"};

	snprintf(t, sizeof(t), "JCT per job per variant (mean over seeds; * lower bound), %s",
		 title);
	snprintf(y, sizeof(y), "JCT (%s)", col_clock_unit(clock, true));
	val = err ? NULL : calloc(n * nv + 1, sizeof(*val));
	marks = err ? NULL : calloc(n + 1, sizeof(*marks));
	err = err || !val || !marks ? -ENOMEM : 0;
	for (k = 0; !err && k < nv; k++)
		cols[k] = v[k].name;
	for (r = 0; !err && r < n; r++) {
		bool flag = false;

		for (k = 0; k < nv; k++)
			val[r * nv + k] = mean_jct(&v[k], ids[r], &flag);
		marks[r] = flag ? "*" : "";
	}
	b.jobs = ids;
	b.marks = marks;
	b.v = val;
	err = err ? err : col_plot_bars(p, &b);
	free(ids);
	free(cols);
	free(marks);
	free(val);
	return err;
}

int col_plot_sweep(struct col_plots *p, struct col_plot_variant *v, size_t nv, const char *title,
		   enum col_clock clock)
{
	int err = sweep_fct(p, v, nv, title, clock);

	return err ? err : sweep_jct(p, v, nv, title, clock);
}
