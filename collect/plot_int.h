/* SPDX-License-Identifier: MIT */
/* Internal to the plot files of collect/: adding files, the script frame, strings. */
#ifndef COLLECT_PLOT_INT_H
#define COLLECT_PLOT_INT_H

#include "collect/plot.h"
#include "collect/text.h"

#define PLOT_W 1000
#define PLOT_H 600

/* Moves t's text into p as file `name` (t is emptied). 0 or -ENOMEM. */
int col_plot_add(struct col_plots *p, const char *name, struct col_text *t);

/* Notes that plot `name` is left out, why as printf makes it. 0 or -ENOMEM. */
int col_plot_skip(struct col_plots *p, const char *name, const char *why, ...)
	__attribute__((format(printf, 3, 4)));

/* A span of ns as "6.49 ms", "2.1 s", "3.5 h", into b. */
const char *col_plot_span(char b[32], double ns);

/* The start of script `base` (PNG terminal and output) and its end (the same plot as SVG). */
void col_plot_head(struct col_text *t, const char *base, int w, int h);
void col_plot_tail(struct col_text *t, const char *base, int w, int h);

/* s made safe inside a gnuplot single-quoted string, into out. */
const char *col_plot_str(char *out, size_t len, const char *s);

/* A value for a data file: "%.6g", or "-" (gnuplot's missing value here) if not finite. */
const char *col_plot_num(char b[32], double v);

/* FCT CDF: one curve per series of FCTs (paper seconds, any order; sorted in place). */
struct col_plot_cdf {
	char label[96];
	col_fcts v;
};
int col_plot_fct_cdf(struct col_plots *p, struct col_plot_cdf *s, size_t n, const char *title,
		     enum col_clock clock);

/* Bars per job: rows[j * ncols + c] (paper seconds, NAN: missing), columns stacked (JWT +
 * JRT) or side by side (variants). Left out (with why) when there is no job, or no value. */
struct col_plot_bars {
	const char *name, *title, *ylabel;
	const uint32_t *jobs; /* job ids, one per row */
	const char *const *marks; /* per row, appended to the job's label ("*"), or NULL */
	size_t nrows;
	const char *const *cols; /* column titles */
	size_t ncols;
	const double *v;
	int stacked;
	const char *none; /* why there is no value, for the summary: "no job started" */
};
int col_plot_bars(struct col_plots *p, const struct col_plot_bars *b);

/* Link utilization heatmap and mean utilization per group (dimension or tier) over time. */
int col_plot_util(struct col_plots *p, const struct rec_run *r, const struct col_topo_info *ti,
		  const char *title, enum col_clock clock);

#endif
