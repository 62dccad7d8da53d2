// SPDX-License-Identifier: MIT
/* A scenario's sweep for `testbed up` and `testbed sim` (cmd_sweep.h): the plan, each run in
 * its folder with the values it set noted in its scenario.yaml, and the comparison. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/cmd_sweep.h"
#include "orchestrator/results.h"
#include "orchestrator/run.h"
#include "orchestrator/scenario_sweep.h"
#include "orchestrator/scenario_yaml.h"
#include "orchestrator/sweep_report.h"

/* Each run's scenario.yaml says which values its run set (the file is copied as written). */
static void note_values(const char *dir, const struct sweep_plan *p, const struct sweep_run *sr)
{
	char *text = NULL, head[700];
	size_t len;
	int n;

	if (res_read_file(dir, "scenario.yaml", &text, &len))
		return;
	n = snprintf(head, sizeof(head),
		     "# sweep run %s: %s, %s (these values replace the file's)\n", sr->dir,
		     p->variants.v[sr->variant], p->seeds.v[sr->seed]);
	if (n > 0 && (size_t)n < sizeof(head) &&
	    !res_write_file(dir, "scenario.yaml", head, (size_t)n)) {
		FILE *f;
		char path[1100];

		snprintf(path, sizeof(path), "%s/scenario.yaml", dir);
		f = fopen(path, "ae");
		if (f) {
			fwrite(text, 1, len, f);
			fclose(f);
		}
	}
	free(text);
}

/* Run k of the sweep: load its variant, run it. */
static int sweep_one(const struct cmd_sweep *sw, const char *path, const char *sdir,
		     struct sweep_plan *p, uint32_t k, const uint32_t *choice, const char *results,
		     struct diag *d)
{
	struct sweep_run *sr = &p->runs.v[k];
	struct cmd_run_opts ro = {.brief = true};
	struct cmd_run_out out = {0};
	struct cmd_world w;
	char dir[700], label[400];
	int r;

	snprintf(dir, sizeof(dir), "%s/%s", sdir, sr->dir);
	snprintf(label, sizeof(label), "run %u/%zu (%s, %s)", k + 1, p->runs.n,
		 p->variants.v[sr->variant], p->seeds.v[sr->seed]);
	ro.dir = dir;
	ro.label = label;
	fprintf(stderr, "\n%s: %s\n", sw->who, label);
	r = sw->sim ? cmd_world_load_sim(path, choice, &w, d)
		    : cmd_world_load_variant(path, choice, &w, d);
	if (!r) /* the sweep's own, which --results may have set */
		snprintf(w.e.run.results, sizeof(w.e.run.results), "%s", results);
	r = r ? r : sw->run(sw->arg, &w, &ro, &out, d);
	cmd_world_done(&w);
	if (!access(dir, F_OK))
		note_values(dir, p, sr);
	sr->status = r ? SWEEP_FAILED : SWEEP_OK;
	if (r)
		snprintf(sr->error, sizeof(sr->error), "%.255s", d->msg[0] ? d->msg : strerror(-r));
	return r;
}

int cmd_sweep_run(const struct cmd_sweep *sw, const char *path, struct cmd_world *w, struct diag *d)
{
	uint32_t *choice, k, failed = 0;
	struct sweep_plan p;
	char sdir[600];
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
	cmd_run_results_dir(&w->e, "-sweep", sdir, sizeof(sdir));
	r = res_mkdirs(sdir);
	r = r ? diag_set(d, r, "%s: %s", sdir, strerror(-r)) : sweep_plan_write(sdir, &p, d);
	fprintf(stderr, "%s: sweep of %zu variants x %zu seeds into %s\n", sw->who, p.variants.n,
		p.seeds.n, sdir);
	for (k = 0; !r && k < p.runs.n && !*sw->stop; k++) {
		struct diag dd = {0};

		exp_sweep_choice(&w->e.sweep, k, choice);
		if (sweep_one(sw, path, sdir, &p, k, choice, w->e.run.results, &dd)) {
			fprintf(stderr, "%s: %s: %s\n", sw->who, p.runs.v[k].dir, dd.msg);
			failed++;
		}
		r = sweep_plan_write(sdir, &p, d);
	}
	r = r ? r : sweep_report(sdir, false, d);
	cmd_run_give_back(&w->e, sdir);
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
