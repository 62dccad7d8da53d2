/* SPDX-License-Identifier: MIT */
/* The run part of `testbed up` (cmd_run.c). */
#ifndef ORCH_CMD_RUN_H
#define ORCH_CMD_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "collect/metrics.h"
#include "cli/cmd.h"
#include "kernel/wdir.h"

#define CMD_RUN_FOLDERS 3

/* What a command's runs came to, for its exit code (README, "Exit codes"): jobs that failed,
 * were stopped or never started give 1; with --strict (run.strict), a run whose fidelity
 * verdict is degraded gives 3. */
struct cmd_run_tally {
	uint32_t runs, jobs, bad_jobs, degraded;
	bool strict; /* --strict, or run.strict in a run's file */
	uint32_t listed; /* bad jobs whose lines are in bad */
	char bad[3072]; /* "job 3 (resnet50, 8 GPUs) failed: why\n" per bad job, as many as fit */
};

struct cmd_run_opts {
	const struct wdir *dir; /* the run's results folder, made before it (cmd_run_folder_open) */
	const char *label; /* prefixed to progress lines ("variant 2/6"), or NULL */
	const char *note; /* written above its scenario.yaml (a sweep's run), or NULL */
	bool brief; /* one line of results instead of the whole summary (sweeps) */
	/* the folders made for this run, outermost first (NULL: none): `up` journals them, so
	 * that `down` removes those a killed run left empty */
	const struct wdir *folders[CMD_RUN_FOLDERS];
	struct cmd_run_tally *tally; /* counts this run's jobs and verdict in (NULL: none) */
};

/* A run's results folder and the folders it is made in. */
struct cmd_run_folder {
	struct wdir root; /* run.results (--results) */
	struct wdir scen; /* <root>/<scenario name> */
	struct wdir run; /* <scen>/<YYYYmmdd-HHMMSS>[-k]<suffix>: made new */
};

#define CMD_RUN_FOLDER_INIT                     \
	{                                       \
		WDIR_INIT, WDIR_INIT, WDIR_INIT \
	}

/* Makes e's new results folder, <run.results>/<scenario>/<date-time>[-k]<suffix>, never
 * reusing one that exists (wdir.h), and proves it takes files: a folder that cannot be written
 * is refused here, before anything is built or run. Under sudo what it makes goes to the user
 * who asked. 0, or -EINVAL with d naming the folder and the reason (bad input: exit 2). */
int cmd_run_folder_open(struct cmd_run_folder *f, const struct experiment *e, const char *suffix,
			struct diag *d);
/* The same with a fixed name for the run's folder (a shard's, which the other shards share):
 * made if missing, or with WDIR_EXCL in flags, refused (-EEXIST) if it is there. */
int cmd_run_folder_fixed(struct cmd_run_folder *f, const struct experiment *e, const char *name,
			 unsigned flags, struct diag *d);
/* A scenario without a sweep under --shard s: 1 (said) when its one run falls to another
 * shard, else 0 with f open on a new <results>/<scenario>/run/ (SWEEP_SHARD_RUN_DIR), or
 * -errno with d set. */
int cmd_run_folder_shard(struct cmd_run_folder *f, const struct experiment *e,
			 const struct cmd_shard *s, const char *who, struct diag *d);
/* Closes them; those made here and left empty (the run wrote nothing) are removed.
 * NULL-safe. */
void cmd_run_folder_close(struct cmd_run_folder *f);

/* What a run left, for a sweep's table. */
struct cmd_run_out {
	char dir[WDIR_PATH_MAX];
	bool degraded;
};

/* Runs w's workload on the built testbed (nsfd: its namespaces, per node) with counter
 * sampling, writes the results folder o->dir with its summary and plots, prints the summary
 * and the fidelity verdict. out may be NULL. 0 or -errno with d set. */
int cmd_run(struct world *w, const int *nsfd, volatile sig_atomic_t *stop,
	    const struct cmd_run_opts *o, struct cmd_run_out *out, struct diag *d);

struct run;
/* The same for a run r set up with its inputs and backend (run.h): runs it with progress
 * lines, writes and prints the results, and releases it (run_done). */
int cmd_run_on(struct run *r, const struct cmd_run_opts *o, struct cmd_run_out *out,
	       struct diag *d);

/* from's counts added to to's (a sweep run's, from its own process), its bad jobs' lines after
 * to's as far as they fit. */
void cmd_run_tally_add(struct cmd_run_tally *to, const struct cmd_run_tally *from);
/* The exit code for what t counts (CMD_OK, CMD_FAIL, CMD_DEGRADED), after saying on stderr,
 * as the last lines, each job that did not end well and why, or which runs were degraded. */
int cmd_run_tally_exit(const char *who, const struct cmd_run_tally *t);

/* Prints a run's fidelity verdict to stderr: one line when ok, loudly
 * when degraded. */
void cmd_run_verdict(const char *who, const struct col_metrics *m);

#endif
