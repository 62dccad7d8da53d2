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
#include "report/results.h"

#define PLOT_DIR "plots"

/* Writes p's files into dir/plots/ with what gnuplot makes of every script, replacing those of
 * an earlier report. 0 or -errno; a script gnuplot failed on (or a missing gnuplot) is an error
 * with d saying which. */
int plot_write(const struct wdir *dir, const struct col_plots *p, struct diag *d);

/* The plots of one run into p (col_plot_run, titled by info, its times on the clock of info's
 * backend), for plot_write; the ones left out are in p->skipped. 0 or -ENOMEM with d set. */
int plot_run_make(struct col_plots *p, const struct rec_run *r, const struct col_metrics *m,
		  const struct col_topo_info *ti, const struct res_info *info, struct diag *d);

#endif
