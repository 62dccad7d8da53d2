// SPDX-License-Identifier: MIT
/* Plots of a run and of a sweep (plot.h): the common script frame, and what goes into each
 * plot from the records and metrics. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/plot_int.h"

void col_plots_done(struct col_plots *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->files.n; i++)
		free(p->files.v[i].text);
	vec_free(&p->files);
	vec_free(&p->skipped);
}

int col_plot_skip(struct col_plots *p, const char *name, const char *why, ...)
{
	struct col_plot_skip *k = vec_grow(&p->skipped);
	va_list ap;

	if (!k)
		return -ENOMEM;
	snprintf(k->name, sizeof(k->name), "%s", name);
	va_start(ap, why);
	vsnprintf(k->why, sizeof(k->why), why, ap);
	va_end(ap);
	return 0;
}

const char *col_plot_span(char b[32], double ns)
{
	static const struct {
		double ns;
		const char *unit;
	} u[] = {{3600e9, "h"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
	size_t i;

	for (i = 0; i + 1 < sizeof(u) / sizeof(u[0]) && ns < u[i].ns; i++)
		;
	snprintf(b, 32, "%.3g %s", ns / u[i].ns, u[i].unit);
	return b;
}

int col_plot_add(struct col_plots *p, const char *name, struct col_text *t)
{
	struct col_plot_file *f;
	size_t len;
	char *s = col_text_take(t, &len);

	f = s ? vec_grow(&p->files) : NULL;
	if (!f) {
		free(s);
		return -ENOMEM;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->text = s;
	f->len = len;
	return 0;
}

void col_plot_head(struct col_text *t, const char *base, int w, int h)
{
	col_text_printf(t,
			"# gnuplot script written by testbed: %s.png and %s.svg\n"
			"set terminal pngcairo noenhanced size %d,%d font 'DejaVu Sans,10'\n"
			"set output '%s.png'\n"
			"set datafile missing '-'\n"
			"set key outside right top\n"
			"set grid\n",
			base, base, w, h, base);
}

void col_plot_tail(struct col_text *t, const char *base, int w, int h)
{
	col_text_printf(t,
			"set terminal svg noenhanced size %d,%d font 'DejaVu Sans,10'\n"
			"set output '%s.svg'\n"
			"replot\n"
			"unset output\n",
			w, h, base);
}

const char *col_plot_str(char *out, size_t len, const char *s)
{
	size_t i;

	snprintf(out, len, "%s", s);
	for (i = 0; out[i]; i++) {
		if (out[i] == '\'')
			out[i] = '"';
		else if (out[i] == '\n' || out[i] == '\\')
			out[i] = ' ';
	}
	return out;
}

const char *col_plot_num(char b[32], double v)
{
	if (!isfinite(v))
		return "-";
	snprintf(b, 32, "%.6g", v);
	return b;
}

/* ---- one run ---- */

static double paper_s(const struct col_metrics *m, int64_t ns)
{
	return ns == COL_NONE ? NAN : col_paper_s(m, (double)ns);
}

/* FCTs of the run: one series per job when there are few, and all flows. */
static int run_fct(struct col_plots *p, const struct rec_run *r, const struct col_metrics *m,
		   const char *title, enum col_clock clock)
{
	size_t njobs = r->jobs.n <= 8 ? r->jobs.n : 0, i, k, n = njobs + 1;
	struct col_plot_cdf *s = calloc(n, sizeof(*s));
	int err = s ? 0 : -ENOMEM;

	for (k = 0; s && k < njobs; k++)
		snprintf(s[k].label, sizeof(s[k].label), "job %u (%s)", r->jobs.v[k].id,
			 r->jobs.v[k].model);
	if (s)
		snprintf(s[njobs].label, sizeof(s[njobs].label), "all flows");
	for (i = 0; !err && i < r->flows.n; i++) {
		double v = paper_s(m, col_flow_fct(&r->flows.v[i]));

		if (isnan(v))
			continue;
		for (k = 0; k < njobs && r->jobs.v[k].id != r->flows.v[i].job; k++)
			;
		if ((k < njobs && vec_push(&s[k].v, v)) || vec_push(&s[njobs].v, v))
			err = -ENOMEM;
	}
	if (!err)
		err = col_plot_fct_cdf(p, s, n, title, clock);
	for (k = 0; s && k < n; k++)
		vec_free(&s[k].v);
	free(s);
	return err;
}

/* JWT and JRT of every job, stacked to its JCT. */
static int run_jct(struct col_plots *p, const struct col_metrics *m, const char *title,
		   enum col_clock clock)
{
	static const char *const cols[] = {"JWT (waiting)", "JRT (running)"};
	size_t n = m->jobs.n, j;
	uint32_t *ids = calloc(n + 1, sizeof(*ids));
	const char **marks = calloc(n + 1, sizeof(*marks));
	double *v = calloc(n * 2 + 1, sizeof(*v));
	char t[160];
	struct col_plot_bars b = {.name = "jct",
				  .title = t,
				  .ylabel = col_clock_unit(clock, true),
				  .jobs = ids,
				  .marks = marks,
				  .nrows = n,
				  .cols = cols,
				  .ncols = 2,
				  .v = v,
				  .stacked = 1,
				  .none = "no job has a waiting or running time"};
	int err = ids && marks && v ? 0 : -ENOMEM;

	snprintf(t, sizeof(t), "job times (JCT = JWT + JRT; * lower bound or failed), %s", title);
	for (j = 0; !err && j < n; j++) {
		const struct col_job *c = &m->jobs.v[j];

		ids[j] = c->id;
		marks[j] = c->flags ? "*" : "";
		v[j * 2] = paper_s(m, c->jwt);
		v[j * 2 + 1] = paper_s(m, c->jrt);
	}
	if (!err)
		err = col_plot_bars(p, &b);
	free(ids);
	free(marks);
	free(v);
	return err;
}

int col_plot_run(struct col_plots *p, const struct rec_run *r, const struct col_metrics *m,
		 const struct col_topo_info *ti, const char *title, enum col_clock clock)
{
	int err = col_plot_util(p, r, ti, title, clock);

	err = err ? err : run_fct(p, r, m, title, clock);
	return err ? err : run_jct(p, m, title, clock);
}
