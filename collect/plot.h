/* SPDX-License-Identifier: MIT */
/* Plots as text: gnuplot scripts and their data files, for a run (link utilization heatmap,
 * utilization per dimension or tier over time, FCT CDF, JCT per job) and for a sweep (FCT
 * CDF per variant, JCT per job per variant). Each script NAME.gp writes NAME.png and
 * NAME.svg next to itself; the caller writes the files and runs gnuplot. A plot that would
 * show nothing is not made; the reason is kept for the summary. Times are labelled with the
 * run's clock (virtual seconds under testbed sim). Pure. */
#ifndef COLLECT_PLOT_H
#define COLLECT_PLOT_H

#include <stddef.h>

#include "collect/metrics.h"
#include "collect/records.h"
#include "collect/topo_json.h"
#include "lib/vec.h"

#define COL_PLOT_NAME_MAX 48
#define COL_PLOT_BINS_MAX 400 /* time bins of a heatmap; longer runs get wider bins */
#define COL_PLOT_ROW_LABELS_MAX 80 /* directions labelled one by one on a heatmap's y axis */

struct col_plot_file {
	char name[COL_PLOT_NAME_MAX]; /* "util_heatmap.gp", "util_heatmap.dat" */
	char *text; /* malloc'd */
	size_t len;
};

/* A plot left out because it would show nothing, and why, in a sentence for the summary. */
struct col_plot_skip {
	char name[COL_PLOT_NAME_MAX]; /* the script's name without ".gp": "util_heatmap" */
	char why[256];
};

struct col_plots {
	VEC(struct col_plot_file) files; /* scripts end in ".gp" */
	VEC(struct col_plot_skip) skipped;
};

void col_plots_done(struct col_plots *p);

/* Adds the plots of one run to p; title names the run ("quickstart 20250101-120000"), clock
 * the time on the axes. A plot that would be empty (no data, a single time bin, no line to
 * draw) is left out and listed in p->skipped with the reason. 0 or -ENOMEM. */
int col_plot_run(struct col_plots *p, const struct rec_run *r, const struct col_metrics *m,
		 const struct col_topo_info *ti, const char *title, enum col_clock clock);

/* Flow completion times in paper seconds, of the flows that completed. */
typedef VEC(double) col_fcts;

/* Appends r's FCTs to *out, in paper seconds by m's dilation. 0 or -ENOMEM. */
int col_fcts_add(col_fcts *out, const struct rec_run *r, const struct col_metrics *m);

/* One variant of a sweep: its runs' metrics (one per seed) and their FCTs together, gathered
 * run by run (col_fcts_add) so that a sweep never holds every run's records at once. */
struct col_plot_variant {
	const char *name;
	const struct col_metrics *const *metrics;
	size_t n;
	col_fcts fct; /* used up by col_plot_sweep (sorted and filtered in place); the
		       * caller frees it */
};

/* Adds a sweep's plots to p: FCT CDF per variant and JCT per job per variant (means over the
 * variant's runs), empty ones left out as col_plot_run does. 0 or -ENOMEM. */
int col_plot_sweep(struct col_plots *p, struct col_plot_variant *v, size_t nv, const char *title,
		   enum col_clock clock);

#endif
