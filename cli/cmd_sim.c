// SPDX-License-Identifier: MIT
/* testbed sim: the scenario's workload in virtual time on a flow-level model of the same
 * topology, routes, placements and schedules (run_sim.h), for runs no machine can emulate in
 * real time. Needs no root; writes the same results folder as `testbed up`. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/units.h"
#include "cli/cmd.h"
#include "cli/cmd_run.h"
#include "cli/cmd_sweep.h"
#include "report/sweep_report.h"
#include "run/sim/run_sim.h"
#include "scenario/scenario_yaml.h"
#include "scenario/scenario_yaml_types.h"

static volatile sig_atomic_t stop_requested; /* RUN_STOP_USER */

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = RUN_STOP_USER;
}

static void sim_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed sim [--name NAME] [--strict] [--results DIR] [-j N] [--shard I/N] "
		"FILE\n\n"
		"Runs the scenario's workload in virtual time: flows share links by max-min\n"
		"fairness over the paths the emulation's kernel would give them (the same ECMP\n"
		"hash, seeds and source ports), with the same placements, collective schedules\n"
		"and compute phases, in paper units. Needs no root and builds nothing, so it\n"
		"runs the papers' full scale. Emulation-only fields (rate_scale, size_scale,\n"
		"shaping) are ignored. Writes <results>/<NAME>/<run>/ as 'testbed up' does, with\n"
		"\"backend\": \"sim\" in summary.json; NAME defaults to the scenario's name.\n"
		"A sweep runs every variant and compares them, N runs at once (-j N, --jobs N;\n"
		"default: this machine's cores), each in a process of its own, with the same\n"
		"records as one at a time. --shard I/N runs only the I-th of N fixed parts of\n"
		"the sweep, into <results>/<NAME>/sweep/, which the other parts share (run\n"
		"them anywhere, then 'testbed report' on that folder compares them all).\n\n"
		"Exit status: 0 when every job ended well; 1 when a job failed or did not start,\n"
		"or the command failed; 2 for bad input (--strict is accepted for symmetry with\n"
		"'testbed up': virtual time has no fidelity verdict to fail on).\n");
}

/* What virtual time does not model yet is refused by name, never run without it. */
static int refuse(const struct world *w, struct diag *d)
{
	const struct experiment *e = &w->e;

	if (e->w.verify)
		return diag_set(
			d, -EINVAL,
			"%s:%u:%u: workload.verify: virtual time moves no payload to check; "
			"only 'testbed up' verifies results",
			e->s.path, e->w.verify_line, e->w.verify_col);
	if (!exp_has_workload(e))
		return diag_set(d, -EINVAL, "%s: no workload: nothing to run in virtual time",
				e->s.path);
	return 0;
}

static int sim_one(void *arg, struct world *w, const struct cmd_run_opts *ro,
		   struct cmd_run_out *out, struct diag *d)
{
	struct run r = {.e = &w->e,
			.t = w->t,
			.plan = &w->plan,
			.stop = &stop_requested,
			.specs = &w->jobs,
			.trace_left = w->e.w.trace ? &w->trace_left : NULL};
	struct run_sim s = {0};
	struct timespec t0, t1;
	double wall;
	int err;

	(void)arg;
	err = refuse(w, d);
	if (err)
		return err;
	run_sim_use(&r, &s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = cmd_run_on(&r, ro, out, d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	cmd_note("testbed sim: %llu events (%llu rate recomputations over %llu flows) in %.2f s "
		 "wall: %.0f events/s\n",
		 (unsigned long long)s.st.events, (unsigned long long)s.st.recomputes,
		 (unsigned long long)s.st.flows_touched, wall,
		 wall > 0 ? (double)s.st.events / wall : 0);
	return err;
}

static int set_opts(struct world *w, const char *name, const char *results, struct diag *d)
{
	if (results && (!results[0] || strlen(results) >= sizeof(w->e.run.results)))
		return diag_set(d, -EINVAL, "--results: expected a path of 1 to %zu characters",
				sizeof(w->e.run.results) - 1);
	if (results)
		snprintf(w->e.run.results, sizeof(w->e.run.results), "%s", results);
	if (name)
		snprintf(w->e.s.name, sizeof(w->e.s.name), "%s", name);
	return 0;
}

/* One run, into its results folder made (and proven writable) before it starts; under --shard
 * only in the shard it falls to. */
static int sim_single(struct world *w, const struct cmd_shard *sh, struct cmd_run_tally *t,
		      struct diag *d)
{
	struct cmd_run_folder f;
	struct cmd_run_opts ro = {.dir = &f.run, .tally = t};
	int r = sh->n ? cmd_run_folder_shard(&f, &w->e, sh, "testbed sim", d)
		      : cmd_run_folder_open(&f, &w->e, "", d);

	if (r == 1)
		return 0;
	r = r ? r : sim_one(NULL, w, &ro, NULL, d);
	cmd_run_folder_close(&f);
	return r;
}

static int sim_file(const char *path, const char *name, const char *results, uint32_t par,
		    const struct cmd_shard *sh, struct cmd_run_tally *t, struct diag *d)
{
	const struct cmd_sweep sw = {"testbed sim",   true, sim_one, NULL,
				     &stop_requested, t,    par,     *sh};
	struct world w;
	int r;

	r = world_load(path, (struct world_ask){.sim = true}, &w, d);
	r = r ? r : set_opts(&w, name, results, d);
	r = r ? r : refuse(&w, d);
	if (!r && w.ignored[0])
		cmd_note("testbed sim: note: %s %s to emulation only: ignored\n", w.ignored,
			 strchr(w.ignored, ',') ? "apply" : "applies");
	if (!r && w.e.run.sim_quantum_ns) {
		char q[32];

		cmd_note("testbed sim: note: rates refilled at most once per %s of virtual time "
			 "(run.sim_quantum)\n",
			 units_fmt_time(q, sizeof(q), w.e.run.sim_quantum_ns));
	}
	if (!r && w.e.run.sim_share != EXP_SHARE_MAXMIN)
		cmd_note("testbed sim: note: flows share a link by %s (run.sim_share), not "
			 "max-min\n",
			 w.e.run.sim_share == EXP_SHARE_EQUAL ? "equal split"
							      : "equal split since each started");
	if (!r)
		cmd_trace_left(stderr, "testbed sim: ", &w.trace_left, false);
	if (!r)
		r = w.e.sweep.axes.n ? cmd_sweep_run(&sw, path, &w, d) : sim_single(&w, sh, t, d);
	world_done(&w);
	return r;
}

int cmd_sim(int argc, char **argv)
{
	const char *name = NULL, *results = NULL, *jobs = NULL, *shard = NULL, *why;
	struct diag d = {0};
	struct cmd_run_tally tally = {0};
	const struct cmd_opt opts[] = {{"name", &name, NULL},		{"results", &results, NULL},
				       {"strict", NULL, &tally.strict}, {"jobs", &jobs, NULL},
				       {"shard", &shard, NULL},		{NULL, NULL, NULL}};
	struct cmd_shard sh;
	uint32_t par;
	char buf[32];
	bool help;
	int r = cmd_opts_parse("sim", argc, argv, opts, false, &help), code;

	if (help) {
		sim_usage(stdout);
		return CMD_OK;
	}
	if (r != 1) {
		sim_usage(stderr);
		return CMD_USAGE;
	}
	if (name && (why = scn_yaml_name_why(name, SCN_YAML_NAME_LEN, buf, sizeof(buf)))) {
		fprintf(stderr,
			"testbed sim: --name: expected 1 to %d characters [a-z0-9-], found "
			"'%s'%s\n",
			SCN_YAML_NAME_LEN, name, why);
		return CMD_USAGE;
	}
	if (cmd_jobs(jobs, &par)) {
		fprintf(stderr, "testbed sim: --jobs: expected 1 to %u runs at once, found '%s'\n",
			CMD_JOBS_MAX, jobs);
		return CMD_USAGE;
	}
	if (cmd_shard_parse("sim", shard, &sh))
		return CMD_USAGE;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	r = sim_file(argv[1], name, results, par, &sh, &tally, &d);
	if (stop_requested && !d.msg[0])
		diag_set(&d, -EINTR, "stopped by the user; what ran so far was written");
	code = cmd_run_tally_exit("testbed sim", &tally);
	return r ? cmd_fail("sim", r, &d) : code;
}
