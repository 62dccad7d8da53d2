/* SPDX-License-Identifier: MIT */
/* Plots as text: gnuplot scripts and their data files, for a run (link utilization heatmap,
 * utilization per dimension or tier over time, FCT CDF, JCT per job) and for a sweep (FCT
 * CDF per variant, JCT per job per variant). Each script NAME.gp writes NAME.png and
 * NAME.svg next to itself; the caller writes the files and runs gnuplot. Pure. */
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

struct col_plots {
	VEC(struct col_plot_file) files; /* scripts end in ".gp" */
};

void col_plots_done(struct col_plots *p);

/* Adds the plots of one run to p; title names the run ("quickstart 20250101-120000"). A plot
 * without data (no samples, no flows) is left out. 0 or -ENOMEM. */
int col_plot_run(struct col_plots *p, const struct rec_run *r, const struct col_metrics *m,
		 const struct col_topo_info *ti, const char *title);

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
 * variant's runs). 0 or -ENOMEM. */
int col_plot_sweep(struct col_plots *p, struct col_plot_variant *v, size_t nv, const char *title);

#endif
