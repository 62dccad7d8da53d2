// SPDX-License-Identifier: MIT
/* testbed up FILE: build the scenario's topology in namespaces; roll back on failure or on
 * Ctrl-C, so nothing half-built is left in the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/cmd_run.h"
#include "cli/cmd_sweep.h"
#include "report/sweep_report.h"
#include "doctor/doctor_probe.h"
#include "fabric/fabric.h"
#include "scenario/input.h"
#include "scenario/scenario_yaml.h"
#include "report/results.h"
#include "run/run.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml_types.h"
#include "report/sweep_report.h"

static volatile sig_atomic_t stop_requested; /* RUN_STOP_USER or RUN_STOP_DOWN (run.h) */
static volatile sig_atomic_t taken_down_by; /* pid of the `down` that asked */

/* Ctrl-C, SIGTERM, SIGHUP or SIGPIPE (whoever read the output is gone, as `up ... | head`
 * leaves it) stop the run cleanly; `testbed down NAME` queues SIGTERM with
 * STATE_DOWN_SIGVAL (fabric_down.c), and then the run is abandoned at once. */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si && si->si_code == SI_QUEUE && si->si_value.sival_int == STATE_DOWN_SIGVAL) {
		taken_down_by = si->si_pid;
		stop_requested = RUN_STOP_DOWN;
	} else if (!stop_requested) {
		stop_requested = RUN_STOP_USER;
	}
}

struct progress {
	struct timespec t0;
	int tty;
	enum fabric_phase last;
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_progress(void *arg, enum fabric_phase ph, size_t done, size_t total)
{
	struct progress *p = arg;

	p->last = ph;
	if (cmd_quiet())
		return;
	if (p->tty) {
		fprintf(stderr, "\r  %-24s %6zu/%-6zu %6.2fs", fabric_phase_name(ph), done, total,
			since(&p->t0));
		if (done == total)
			fputc('\n', stderr);
	} else if (done == total) {
		fprintf(stderr, "  %-24s %6zu done at %6.2fs\n", fabric_phase_name(ph), total,
			since(&p->t0));
	}
}

static void up_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed up [--name NAME] [--keep] [--strict] [--results DIR] [--shard I/N] "
		"FILE\n\n"
		"Builds the scenario's topology: one network namespace per node, shaped veth\n"
		"links, routes, ECMP hashing. NAME (default: the scenario's name) tells testbeds\n"
		"apart; 'testbed down NAME' removes everything. Needs root.\n\n"
		"With a workload it runs the jobs, writes <results>/<scenario>/<run>/ (records,\n"
		"summary, plots, fidelity verdict), prints the summary and tears the testbed\n"
		"down (--keep: leaves it up). With a sweep it does so for every run on a fresh\n"
		"testbed and compares the variants (docs/scenario.md, 'sweep'). The results go\n"
		"under run.results, relative to the working directory (default 'results'), or\n"
		"under DIR. 'testbed down NAME' during a run stops it and removes the testbed.\n"
		"--shard I/N runs only the I-th of N fixed parts of a sweep, into\n"
		"<results>/<scenario>/sweep/, which the other parts share; 'testbed report' on\n"
		"that folder then compares them all. Runs go one at a time (-j is refused: an\n"
		"emulated run owns the machine).\n\n"
		"Exit status: 0 when every job ended well; 1 when a job failed (a wrong result\n"
		"under verify too), was stopped or did not start, or the command failed; 2 for\n"
		"bad input; 3 with --strict (or run.strict) when a run's fidelity verdict is\n"
		"degraded.\n");
}

static void catch_signals(void)
{
	struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL); /* else it kills, and the testbed is left orphaned */
}

/* The scenario as built, kept beside the journal for `status` and `down`. */
static int copy_scenario(const struct state *st, const char *path, struct diag *d)
{
	char *text;
	size_t len;
	int r = input_read(path, SCN_YAML_FILE_MAX, "not a scenario", &text, &len, d);

	r = r ? r : wdir_write(&st->dir, "scenario.yaml", text, len, 0, d);
	free(text);
	return r;
}

static bool left_up(const struct world *w, bool keep)
{
	return keep || !exp_has_workload(&w->e);
}

/* After a run the testbed goes, unless kept; without a workload it stays up. */
static int finish(struct world *w, const char *name, bool keep, struct diag *d)
{
	struct fabric_down_info info;
	struct diag dd = {0};

	if (left_up(w, keep)) {
		cmd_note("testbed up: 'testbed down %s' removes it\n", name);
		return 0;
	}
	if (fabric_down(name, &info, &dd))
		return diag_set(d, dd.err, "tearing down: %s", dd.msg);
	cmd_note("testbed up: '%s' torn down\n", name);
	cmd_said_foreign("up", &info);
	if (stop_requested)
		return diag_set(d, -EINTR, "stopped by the user; the results so far are written");
	return 0;
}

/* After a failure, or when `down` took the testbed: removes what this run made. */
static int roll_back(const char *name, int r, struct diag *d)
{
	struct fabric_down_info info;
	struct diag dd = {0};

	if (stop_requested == RUN_STOP_DOWN)
		fprintf(stderr, "testbed up: 'testbed down' (pid %d) takes '%s' down\n",
			(int)taken_down_by, name);
	else
		fprintf(stderr, "testbed up: %s\ntestbed up: rolling back\n", d->msg);
	if (fabric_down(name, &info, &dd))
		fprintf(stderr, "testbed up: rollback: %s\n", dd.msg);
	cmd_said_foreign("up", &info);
	d->msg[0] = '\0';
	if (stop_requested == RUN_STOP_DOWN)
		return diag_set(d, -ECANCELED,
				"'%s' was taken down by 'testbed down' during the run; no results "
				"were written",
				name);
	return diag_set(d, r == -EINVAL ? -EIO : r, "'%s' failed; nothing is left", name);
}

#define SLOW_PROBE_S 1.0 /* a kernel probe this slow is worth a line */

/* What this kernel lacks for w, refused before anything is made: the feature and the field
 * that needs it (doctor.h). A slow probe is said: the user saw nothing meanwhile. */
static int up_check(const struct world *w, struct diag *d)
{
	struct doctor_needs n;
	char emu[PATH_MAX];
	struct timespec t0, t1;
	double took;
	int r;

	doctor_needs_of(&w->e, w->t, &w->plan, &w->jobs, &n);
	cmd_emu_path(emu, sizeof(emu));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = doctor_check(&n, emu, d);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (took >= SLOW_PROBE_S) /* its namespace waits for the kernel's cleanup of others */
		cmd_note(
			"testbed up: probing the kernel took %.1fs (it was probably still removing "
			"the namespaces of a testbed taken down just before)\n",
			took);
	return r;
}

/* Claims the name, builds, runs the workload if there is one, and tears down when the run
 * is over (unless keep) or on failure. */
static int build(struct world *w, const char *name, bool keep, const struct cmd_run_opts *ro,
		 struct cmd_run_out *out, struct diag *d)
{
	struct progress pg = {.tty = isatty(STDERR_FILENO)};
	struct state st;
	struct fabric f = {.name = name,
			   .s = &w->e.s,
			   .t = w->t,
			   .plan = &w->plan,
			   .st = &st,
			   .stop = &stop_requested,
			   .progress = on_progress,
			   .progress_arg = &pg};
	size_t i;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &pg.t0);
	r = up_check(w, d);
	r = r ? r : state_create(name, &st, d);
	if (r)
		return r;
	(void)state_record(&st, "scenario %s", w->e.s.path);
	for (i = 0; ro && i < CMD_RUN_FOLDERS; i++)
		(void)state_record_folder(&st, ro->folders[i]);
	(void)copy_scenario(&st, w->e.s.path, NULL);
	f.root_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	f.nsfd = malloc(w->t->nodes.n * sizeof(int) + 1);
	if (f.root_fd < 0 || !f.nsfd) {
		r = diag_set(d, -ENOMEM, "opening the root namespace: %s", strerror(errno));
	} else {
		for (i = 0; i < w->t->nodes.n; i++)
			f.nsfd[i] = -1;
		cmd_note("testbed up: building '%s' (%zu namespaces, %zu links)\n", name,
			 w->t->nodes.n, w->t->links.n);
		r = fabric_up(&f, d);
		if (!r)
			cmd_note("testbed up: '%s' is up after %.2fs\n", name, since(&pg.t0));
		if (!r && exp_has_workload(&w->e))
			r = cmd_run(w, f.nsfd, &stop_requested, ro, out, d);
		fabric_close(&f);
	}
	if (!r && left_up(w, keep)) /* `status` then knows no runner is missing */
		(void)state_record(&st, "detached");
	state_close(&st);
	free(f.nsfd);
	if (f.root_fd >= 0)
		close(f.root_fd);
	if (r)
		return roll_back(name, r, d);
	return finish(w, name, keep, d);
}

/* ---- sweeps ---- */

struct up_one {
	const char *path, *name;
};

/* Warns when the lone all-to-all's windows overfill its queues (cmd_emu_window_full): for a
 * single run before it, for a sweep's runs each before its own. */
static void warn_window(const char *path, const struct world *w)
{
	char buf[1024];

	if (cmd_emu_window_full(w, buf, sizeof(buf)))
		fprintf(stderr, "testbed up: warning: %s%s%s\n", path, cmd_at_sep(buf), buf);
}

/* A sweep's run on a fresh testbed: build, run, tear down. */
static int up_one(void *arg, struct world *w, const struct cmd_run_opts *ro,
		  struct cmd_run_out *out, struct diag *d)
{
	const struct up_one *u = arg;

	warn_window(u->path, w);
	return build(w, u->name, false, ro, out, d);
}

static int up_sweep(const char *path, struct world *w, const char *name, bool keep,
		    const struct cmd_shard *sh, struct cmd_run_tally *t, struct diag *d)
{
	struct up_one u = {path, name};
	/* one run at a time: an emulated run must own the machine */
	const struct cmd_sweep sw = {"testbed up", false, up_one, &u, &stop_requested, t, 1, *sh};

	if (keep)
		fprintf(stderr,
			"testbed up: --keep does not apply to sweeps: every run is torn down\n");
	return cmd_sweep_run(&sw, path, w, d);
}

/* One run: its results folder made (and proven writable) before anything is built. */
static int up_single(struct world *w, const char *name, bool keep, const struct cmd_shard *sh,
		     struct cmd_run_tally *t, struct diag *d)
{
	struct cmd_run_folder f = CMD_RUN_FOLDER_INIT;
	struct cmd_run_opts ro = {.dir = &f.run, .folders = {&f.root, &f.scen, &f.run}, .tally = t};
	int r = 0;

	if (sh->n && (r = cmd_run_folder_shard(&f, &w->e, sh, "testbed up", d)) == 1)
		return 0; /* another shard's */
	if (!sh->n && exp_has_workload(&w->e))
		r = cmd_run_folder_open(&f, &w->e, "", d);
	r = r ? r : build(w, name, keep, exp_has_workload(&w->e) ? &ro : NULL, NULL, d);
	cmd_run_folder_close(&f);
	return r;
}

/* --results DIR: where this run writes, whatever the scenario's run.results says. */
static int set_results(struct world *w, const char *dir, struct diag *d)
{
	if (!dir)
		return 0;
	if (!dir[0] || strlen(dir) >= sizeof(w->e.run.results))
		return diag_set(d, -EINVAL, "--results: expected a path of 1 to %zu characters",
				sizeof(w->e.run.results) - 1);
	snprintf(w->e.run.results, sizeof(w->e.run.results), "%s", dir);
	return 0;
}

int cmd_up(int argc, char **argv)
{
	struct world w;
	struct diag d = {0};
	const char *name = NULL, *results = NULL, *why;
	bool keep = false, help, strict = false;
	const char *jobs = NULL, *shard = NULL;
	const struct cmd_opt opts[] = {{"name", &name, NULL}, {"results", &results, NULL},
				       {"keep", NULL, &keep}, {"strict", NULL, &strict},
				       {"jobs", &jobs, NULL}, {"shard", &shard, NULL},
				       {NULL, NULL, NULL}};
	struct cmd_shard sh;
	char buf[768];
	int r = cmd_opts_parse("up", argc, argv, opts, false, &help), code;
	struct cmd_run_tally tally = {0};

	if (help) {
		up_usage(stdout);
		return CMD_OK;
	}
	if (jobs && strcmp(jobs, "1")) {
		fprintf(stderr,
			"testbed up: --jobs %s: emulated runs go one at a time, each owning "
			"the machine (its cores, its timing); 'testbed sim -j N' runs a "
			"sweep's runs at once in virtual time\n",
			jobs);
		return CMD_USAGE;
	}
	if (r != 1) {
		up_usage(stderr);
		return CMD_USAGE;
	}
	if (cmd_shard_parse("up", shard, &sh))
		return CMD_USAGE;
	if (sh.n && keep) {
		fprintf(stderr, "testbed up: --keep and --shard: a shard's testbeds are torn down "
				"after each run\n");
		return CMD_USAGE;
	}
	if (name && (why = scn_yaml_name_why(name, SCN_YAML_NAME_LEN, buf, sizeof(buf)))) {
		fprintf(stderr,
			"testbed up: --name: expected 1 to %d characters [a-z0-9-], found '%s'%s\n",
			SCN_YAML_NAME_LEN, name, why);
		return CMD_USAGE;
	}
	r = world_load(argv[1], (struct world_ask){.every_variant = true, .check = cmd_up_refuses},
		       &w, &d);
	r = r ? r : set_results(&w, results, &d);
	if (!r)
		cmd_trace_left(stderr, "testbed up: ", &w.trace_left, false);
	if (!r && !w.e.sweep.axes.n)
		warn_window(argv[1], &w);
	if (!r && cmd_need_root("up"))
		r = -EPERM;
	if (!r) {
		catch_signals();
		name = name ? name : w.e.s.name;
		tally.strict = strict;
		r = w.e.sweep.axes.n ? up_sweep(argv[1], &w, name, keep, &sh, &tally, &d)
				     : up_single(&w, name, keep, &sh, &tally, &d);
	}
	world_done(&w);
	if (stop_requested == RUN_STOP_DOWN && !d.msg[0])
		diag_set(&d, -ECANCELED, "'%s' was taken down by 'testbed down'", name);
	if (r == -EPERM && !d.msg[0])
		return CMD_FAIL;
	code = cmd_run_tally_exit("testbed up", &tally);
	return r ? cmd_fail("up", r, &d) : code;
}
