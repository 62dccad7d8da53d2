/* SPDX-License-Identifier: MIT */
/* Renders plots (collect/plot.h) into a results folder: the scripts and data under
 * DIR/plots/, with the PNG and SVG gnuplot makes of each script beside it. */
#ifndef ORCH_PLOT_RUN_H
#define ORCH_PLOT_RUN_H

#include "collect/metrics.h"
#include "collect/plot.h"
#include "collect/records.h"
#include "collect/topo_json.h"
#include "lib/diag.h"
#include "orchestrator/results.h"

#define PLOT_DIR "plots"

/* Writes p's files into dir/plots/ with what gnuplot makes of every script, replacing those of
 * an earlier report. 0 or -errno; a script gnuplot failed on (or a missing gnuplot) is an error
 * with d saying which. */
int plot_write(const struct wdir *dir, const struct col_plots *p, struct diag *d);

/* The plots of one run (col_plot_run) into dir/plots/. */
int plot_run_render(const struct wdir *dir, const struct rec_run *r, const struct col_metrics *m,
		    const struct col_topo_info *ti, const struct res_info *info, struct diag *d);

#endif
