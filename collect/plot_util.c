// SPDX-License-Identifier: MIT
/* Link utilization plots: a heatmap of every direction over time (links x time), and the
 * mean utilization of each group of links over time: per dimension when the topology has
 * dimensions (Themis), else per tier. Time is binned at the sampling interval, or wider so
 * a long run has at most COL_PLOT_BINS_MAX bins; a bin's value is time-weighted. A single
 * bin, or no line to draw, leaves a plot out with the reason. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/plot_int.h"

#define GROUPS_MAX 64

/* Per (row, bin) sums of utilization x time and of time. */
struct grid {
	size_t rows, bins;
	double binw; /* ns */
	int64_t tmax; /* the last sample's time */
	double *ut, *t;
};

struct rowkey {
	uint32_t link, dir;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The sampling interval: the median interval of (up to 4096 of) the points. */
static double interval(const struct col_series *s)
{
	size_t n = s->v.n < 4096 ? s->v.n : 4096, i, step = s->v.n / n;
	int64_t *dt = malloc(n * sizeof(*dt));
	double w;

	if (!dt)
		return NAN;
	for (i = 0; i < n; i++)
		dt[i] = s->v.v[i * step].dt;
	qsort(dt, n, sizeof(*dt), cmp_i64);
	w = (double)dt[n / 2];
	free(dt);
	return w;
}

static int grid_init(struct grid *g, const struct col_series *s, size_t rows)
{
	int64_t tmax = 0;
	size_t i;

	for (i = 0; i < s->v.n; i++)
		tmax = s->v.v[i].t > tmax ? s->v.v[i].t : tmax;
	g->tmax = tmax;
	g->binw = interval(s);
	if (!(g->binw > 0))
		return -ENOMEM;
	g->bins = (size_t)ceil((double)tmax / g->binw);
	if (g->bins > COL_PLOT_BINS_MAX) {
		g->binw *= ceil((double)g->bins / COL_PLOT_BINS_MAX);
		g->bins = (size_t)ceil((double)tmax / g->binw);
	}
	g->bins = g->bins ? g->bins : 1;
	g->rows = rows;
	g->ut = calloc(rows * g->bins, sizeof(double));
	g->t = calloc(rows * g->bins, sizeof(double));
	return g->ut && g->t ? 0 : -ENOMEM;
}

static void grid_add(struct grid *g, size_t row, const struct col_util *u)
{
	double mid = (double)u->t - (double)u->dt / 2;
	size_t b = mid > 0 ? (size_t)(mid / g->binw) : 0;

	b = b < g->bins ? b : g->bins - 1;
	g->ut[row * g->bins + b] += u->util * (double)u->dt;
	g->t[row * g->bins + b] += (double)u->dt;
}

static double grid_val(const struct grid *g, size_t row, size_t b)
{
	double t = g->t[row * g->bins + b];

	return t > 0 ? g->ut[row * g->bins + b] / t : NAN;
}

static void grid_done(struct grid *g)
{
	free(g->ut);
	free(g->t);
}

/* Rows of the heatmap: the directions of s, in (link, dir) order; row[i] for point i. */
static int rows_of(const struct col_series *s, struct rowkey **keys, size_t **row, size_t *n)
{
	size_t i;

	*n = 0;
	*keys = calloc(s->v.n + 1, sizeof(**keys));
	*row = calloc(s->v.n + 1, sizeof(**row));
	if (!*keys || !*row)
		return -ENOMEM;
	for (i = 0; i < s->v.n; i++) {
		const struct col_util *u = &s->v.v[i];

		if (!*n || (*keys)[*n - 1].link != u->link || (*keys)[*n - 1].dir != u->dir)
			(*keys)[(*n)++] = (struct rowkey){u->link, u->dir};
		(*row)[i] = *n - 1;
	}
	return 0;
}

static void heat_ytics(struct col_text *g, const struct col_topo_info *ti, const struct rowkey *k,
		       size_t rows)
{
	size_t every = (rows + COL_PLOT_ROW_LABELS_MAX - 1) / COL_PLOT_ROW_LABELS_MAX, i;
	char label[2 * TOPO_NAME_MAX + 2];

	if (every > 1)
		col_text_printf(g, "set ylabel 'link direction (from>to; every %zuth labelled)'\n",
				every);
	col_text_printf(g, "set ytics font ',8' (");
	for (i = 0; i < rows; i += every) {
		col_topo_dir_label(ti, k[i].link, k[i].dir, label, sizeof(label));
		col_text_printf(g, "%s'%s' %zu", i ? ", " : "", label, i);
	}
	col_text_printf(g, ")\n");
}

static int heatmap(struct col_plots *p, const struct grid *gr, const struct col_topo_info *ti,
		   const struct rowkey *k, const char *title, enum col_clock clock)
{
	struct col_text d = {0}, g = {0};
	int h = gr->rows <= COL_PLOT_ROW_LABELS_MAX ? 200 + 12 * (int)gr->rows : 1000;
	char q[256], b[32], w[32];
	size_t r, i;
	int err;

	h = h < 400 ? 400 : h;
	for (r = 0; r < gr->rows; r++)
		for (i = 0; i < gr->bins; i++)
			col_text_printf(&d, "%s%s", col_plot_num(b, grid_val(gr, r, i)),
					i + 1 < gr->bins ? " " : "\n");
	col_plot_head(&g, "util_heatmap", PLOT_W, h);
	col_text_printf(&g,
			"set title 'link utilization per direction (egress of a port), %s'\n"
			"set xlabel 'time (%s; %zu bins of %s)'\n"
			"set ylabel 'link direction (from>to)'\n"
			"set cblabel 'utilization (share of the configured rate)'\n"
			"set cbrange [0:1]\nset palette defined (0 '#ffffff', 0.3 '#fee08b', "
			"0.6 '#f46d43', 0.85 '#a50026', 1 '#40004b')\n"
			"set yrange [%zu.5:-0.5]\nset xrange [0:%.6g]\nunset key\nset grid front\n"
			"set object 1 rectangle from graph 0,0 to graph 1,1 behind "
			"fillcolor rgb '#d9d9d9' fillstyle solid noborder\n",
			col_plot_str(q, sizeof(q), title), col_clock_unit(clock, false), gr->bins,
			col_plot_span(w, gr->binw), gr->rows - 1,
			(double)gr->bins * gr->binw / 1e9);
	heat_ytics(&g, ti, k, gr->rows);
	/* columns placed by index on x2, which spans the time axis: gnuplot reads a matrix with a
	 * `using` expression several times slower (a paper-scale run has a million cells) */
	col_text_printf(&g,
			"set x2range [-0.5:%zu.5]\nunset x2tics\n"
			"plot 'util_heatmap.dat' matrix with image axes x2y1\n",
			gr->bins - 1);
	col_plot_tail(&g, "util_heatmap", PLOT_W, h);
	err = col_plot_add(p, "util_heatmap.dat", &d);
	err = err ? err : col_plot_add(p, "util_heatmap.gp", &g);
	col_text_done(&d);
	col_text_done(&g);
	return err;
}

/* Group of a direction: its dimension, or its tier's index among names[]. */
static size_t group_of(const struct col_topo_info *ti, uint32_t link, char names[][16], size_t *n)
{
	const struct col_topo_link *l = &ti->links.v[link];
	size_t i;

	if (ti->dims > 1)
		return l->dim < GROUPS_MAX ? l->dim : GROUPS_MAX - 1;
	for (i = 0; i < *n && strcmp(names[i], l->tier); i++)
		;
	if (i == *n && *n < GROUPS_MAX)
		snprintf(names[(*n)++], 16, "%s", l->tier);
	return i < GROUPS_MAX ? i : GROUPS_MAX - 1;
}

static void groups_script(struct col_text *g, const char *base, const char *what, char names[][16],
			  size_t n, bool dims, const char *title, enum col_clock clock)
{
	char q[256];
	size_t i;

	col_plot_head(g, base, PLOT_W, PLOT_H);
	col_text_printf(g,
			"set title 'mean link utilization per %s, %s'\n"
			"set xlabel 'time (%s)'\n"
			"set ylabel 'mean utilization (share of the configured rate)'\n"
			"set yrange [0:*]\nplot",
			what, col_plot_str(q, sizeof(q), title), col_clock_unit(clock, false));
	for (i = 0; i < n; i++) {
		if (dims)
			snprintf(names[i], 16, "dim %u", (unsigned)(i & 0xffff));
		col_text_printf(g, "%s '%s' using 1:%zu with lines lw 2 title '%s'",
				i ? ",\\\n    " : " ", i ? "" : "util_groups.dat", i + 2, names[i]);
	}
	col_text_printf(g, "\n");
	col_plot_tail(g, base, PLOT_W, PLOT_H);
}

/* Mean per group and bin of the heatmap's rows (each row weighted by its time) into
 * v[group * bins + bin], NAN where no row of the group has a value. */
static int group_means(const struct grid *gr, const size_t *grp, size_t n, double *v)
{
	double *t = calloc(n * gr->bins + 1, sizeof(*t));
	size_t r, i;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < n * gr->bins; i++)
		v[i] = 0;
	for (r = 0; r < gr->rows; r++)
		for (i = 0; grp[r] < n && i < gr->bins; i++) {
			v[grp[r] * gr->bins + i] += gr->ut[r * gr->bins + i];
			t[grp[r] * gr->bins + i] += gr->t[r * gr->bins + i];
		}
	for (i = 0; i < n * gr->bins; i++)
		v[i] = t[i] > 0 ? v[i] / t[i] : NAN;
	free(t);
	return 0;
}

/* Whether some group has values in two neighbouring bins: a line gnuplot draws. */
static bool any_line(const double *v, size_t n, size_t bins)
{
	size_t gi, i;

	for (gi = 0; gi < n; gi++)
		for (i = 1; i < bins; i++)
			if (isfinite(v[gi * bins + i - 1]) && isfinite(v[gi * bins + i]))
				return true;
	return false;
}

static void groups_data(struct col_text *d, const struct grid *gr, const double *v, size_t n)
{
	size_t gi, i;
	char b[32];

	for (i = 0; i < gr->bins; i++) {
		col_text_printf(d, "%.6g", ((double)i + 0.5) * gr->binw / 1e9);
		for (gi = 0; gi < n; gi++)
			col_text_printf(d, " %s", col_plot_num(b, v[gi * gr->bins + i]));
		col_text_printf(d, "\n");
	}
}

/* The mean utilization per group over time, or why it is left out. */
static int groups(struct col_plots *p, const struct grid *gr, const struct col_topo_info *ti,
		  const struct rowkey *k, const char *title, enum col_clock clock)
{
	char names[GROUPS_MAX][16], file[COL_PLOT_NAME_MAX];
	struct col_text d = {0}, g = {0};
	size_t n = ti->dims > 1 ? ti->dims : 0, r, *grp = calloc(gr->rows + 1, sizeof(*grp));
	const char *base = ti->dims > 1 ? "util_dim" : "util_tier";
	const char *what = ti->dims > 1 ? "dimension" : "tier";
	double *v = NULL;
	int err = grp ? 0 : -ENOMEM;

	n = n < GROUPS_MAX ? n : GROUPS_MAX;
	for (r = 0; grp && r < gr->rows; r++)
		grp[r] = group_of(ti, k[r].link, names, &n);
	v = err ? NULL : calloc(n * gr->bins + 1, sizeof(*v));
	err = err || !v ? -ENOMEM : group_means(gr, grp, n, v);
	if (!err && !any_line(v, n, gr->bins)) {
		err = col_plot_skip(p, base,
				    "no %s has a utilization in two neighbouring time bins, so "
				    "there is no line to draw",
				    what);
		goto out;
	}
	if (!err)
		groups_data(&d, gr, v, n);
	groups_script(&g, base, what, names, n, ti->dims > 1, title, clock);
	err = err ? err : col_plot_add(p, "util_groups.dat", &d);
	snprintf(file, sizeof(file), "%s.gp", base);
	err = err ? err : col_plot_add(p, file, &g);
out:
	col_text_done(&d);
	col_text_done(&g);
	free(grp);
	free(v);
	return err;
}

static const char *group_base(const struct col_topo_info *ti)
{
	return ti->dims > 1 ? "util_dim" : "util_tier";
}

/* Both link plots left out, for the same reason. */
static int skip_both(struct col_plots *p, const struct col_topo_info *ti, const char *why)
{
	int err = col_plot_skip(p, "util_heatmap", "%s", why);

	return err ? err : col_plot_skip(p, group_base(ti), "%s", why);
}

/* Why the samples of r (a topology's) give no utilization over time (err: the series'). */
static int no_series(struct col_plots *p, const struct rec_run *r, const struct col_topo_info *ti,
		     int err)
{
	size_t i;

	if (err == -ENOMEM)
		return err;
	if (err)
		return skip_both(p, ti, "links.csv names links the topology does not have");
	if (!r->samples.n)
		return skip_both(p, ti,
				 "the link counters were not sampled (run.sample_interval is 0)");
	for (i = 1; i < r->samples.n && r->samples.v[i].t == r->samples.v[0].t; i++)
		;
	if (i == r->samples.n)
		return skip_both(p, ti,
				 "the link counters were read at one instant only, so no interval "
				 "has a utilization");
	return skip_both(p, ti,
			 "no link direction has a configured rate, so none has a utilization");
}

/* A single time bin (or a single row) shows nothing over time: why, for the summary. */
static int too_few(struct col_plots *p, const struct grid *gr, const struct col_topo_info *ti)
{
	char a[32], why[256];

	if (gr->bins >= 2)
		return col_plot_skip(p, "util_heatmap",
				     "only one link direction has a utilization: a heatmap needs "
				     "two rows");
	snprintf(why, sizeof(why),
		 "a single time bin: the link counters were read only at the start and the end "
		 "of the run (%s), so there is nothing over time to show; a run.sample_interval "
		 "shorter than the run gives more bins",
		 col_plot_span(a, (double)gr->tmax));
	return skip_both(p, ti, why);
}

int col_plot_util(struct col_plots *p, const struct rec_run *r, const struct col_topo_info *ti,
		  const char *title, enum col_clock clock)
{
	struct col_links_cfg lc = col_topo_links_cfg(ti);
	struct col_series s = {0};
	struct grid gr = {0};
	struct rowkey *keys = NULL;
	size_t *row = NULL, nrows = 0, i;
	int err;

	if (!ti->links.n)
		return skip_both(p, ti,
				 "the results folder has no topology.json, so the links have "
				 "neither names nor rates");
	err = col_util_series(r, &lc, &s, NULL);
	if (err || !s.v.n) {
		col_series_done(&s);
		return no_series(p, r, ti, err);
	}
	err = rows_of(&s, &keys, &row, &nrows);
	err = err ? err : grid_init(&gr, &s, nrows);
	for (i = 0; !err && i < s.v.n; i++)
		grid_add(&gr, row[i], &s.v.v[i]);
	if (!err && (gr.bins < 2 || gr.rows < 2))
		err = too_few(p, &gr, ti);
	if (!err && gr.bins >= 2 && gr.rows >= 2)
		err = heatmap(p, &gr, ti, keys, title, clock);
	if (!err && gr.bins >= 2)
		err = groups(p, &gr, ti, keys, title, clock);
	grid_done(&gr);
	free(keys);
	free(row);
	col_series_done(&s);
	return err;
}
