// SPDX-License-Identifier: MIT
/* A scenario's sweep for `testbed up` and `testbed sim` (cmd_sweep.h): the plan, each run in
 * its folder with the values it set noted in its scenario.yaml, and the comparison. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_sweep.h"
#include "run/run.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"
#include "report/sweep_report.h"

/* Run k of the sweep in its new folder inside sdir: load its variant, run it. Its
 * scenario.yaml says which values it set (the file is copied as written). */
static int sweep_one(const struct cmd_sweep *sw, const char *path, const struct wdir *sdir,
		     struct sweep_plan *p, uint32_t k, const uint32_t *choice, const char *results,
		     struct diag *d)
{
	struct sweep_run *sr = &p->runs.v[k];
	struct cmd_run_opts ro = {.brief = true, .tally = sw->tally};
	struct cmd_run_out out = {0};
	char label[400], note[700];
	struct world w;
	struct wdir rd;
	int r;

	snprintf(label, sizeof(label), "run %u/%zu (%s, %s)", k + 1, p->runs.n,
		 p->variants.v[sr->variant], p->seeds.v[sr->seed]);
	snprintf(note, sizeof(note), "# sweep run %s: %s, %s (these values replace the file's)\n",
		 sr->dir, p->variants.v[sr->variant], p->seeds.v[sr->seed]);
	ro.label = label;
	ro.note = note;
	ro.dir = &rd;
	ro.folders[0] = &rd;
	cmd_note("\n%s: %s\n", sw->who, label);
	r = wdir_sub(&rd, sdir, sr->dir, WDIR_CREATE | WDIR_EXCL, d);
	if (!r) {
		r = world_load(path, (struct world_ask){.choice = choice, .sim = sw->sim}, &w, d);
		if (!r) /* the sweep's own, which --results may have set */
			snprintf(w.e.run.results, sizeof(w.e.run.results), "%s", results);
		r = r ? r : sw->run(sw->arg, &w, &ro, &out, d);
		world_done(&w); /* also after a failed load */
	}
	wdir_prune(&rd);
	sr->status = r ? SWEEP_FAILED : SWEEP_OK;
	if (r)
		snprintf(sr->error, sizeof(sr->error), "%.255s", d->msg[0] ? d->msg : strerror(-r));
	return r;
}

int cmd_sweep_run(const struct cmd_sweep *sw, const char *path, struct world *w, struct diag *d)
{
	uint32_t *choice, k, failed = 0;
	struct cmd_run_folder f;
	struct sweep_plan p;
	char sdir[WDIR_PATH_MAX] = "";
	int r;

	if (!exp_has_workload(&w->e))
		return diag_set(d, -EINVAL, "%s: a sweep needs a workload", path);
	r = exp_sweep_check(path, &w->e.sweep, d);
	if (r)
		return r;
	choice = calloc(w->e.sweep.axes.n + 1, sizeof(*choice));
	if (!choice || sweep_plan_make(&w->e, &p)) {
		free(choice);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	r = cmd_run_folder_open(&f, &w->e, "-sweep", d);
	r = r ? r : sweep_plan_write(&f.run, &p, d);
	if (!r)
		cmd_note("%s: sweep of %zu variants x %zu seeds into %s\n", sw->who, p.variants.n,
			 p.seeds.n, f.run.path);
	for (k = 0; !r && k < p.runs.n && !*sw->stop; k++) {
		struct diag dd = {0};

		exp_sweep_choice(&w->e.sweep, k, choice);
		if (sweep_one(sw, path, &f.run, &p, k, choice, w->e.run.results, &dd)) {
			fprintf(stderr, "%s: %s: %s\n", sw->who, p.runs.v[k].dir, dd.msg);
			failed++;
		}
		r = sweep_plan_write(&f.run, &p, d);
	}
	if (!r) {
		char *txt = NULL;
		struct diag warn = {0};

		r = sweep_report(&f.run, false, &txt, &warn, d);
		sweep_report_print(&f.run, txt, &warn);
		free(txt);
	}
	if (!r && failed)
		snprintf(sdir, sizeof(sdir), "%s", f.run.path);
	cmd_run_folder_close(&f);
	sweep_plan_done(&p);
	free(choice);
	if (!r && *sw->stop == RUN_STOP_DOWN)
		r = diag_set(d, -ECANCELED,
			     "taken down by 'testbed down'; the runs so far are "
			     "compared");
	if (!r && *sw->stop)
		r = diag_set(d, -EINTR, "stopped by the user; the runs so far are compared");
	if (!r && failed)
		r = diag_set(d, -EIO, "%u of %u runs failed (see %s/%s)", failed, k, sdir,
			     SWEEP_FILE);
	return r;
}
