/* SPDX-License-Identifier: MIT */
/* The run part of `testbed up` (cmd_run.c). */
#ifndef ORCH_CMD_RUN_H
#define ORCH_CMD_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "collect/metrics.h"
#include "orchestrator/cmd.h"

struct cmd_run_opts {
	const char *dir; /* results folder; NULL: <run.results>/<scenario>/<date-time> */
	const char *label; /* prefixed to progress lines ("variant 2/6"), or NULL */
	bool brief; /* one line of results instead of the whole summary (sweeps) */
};

/* What a run left, for a sweep's table. */
struct cmd_run_out {
	char dir[512];
	bool degraded;
};

/* Runs w's workload on the built testbed (nsfd: its namespaces, per node) with counter
 * sampling, writes the results folder with its summary and plots, prints the summary and the
 * fidelity verdict. o and out may be NULL. 0 or -errno with d set. */
int cmd_run(struct cmd_world *w, const int *nsfd, volatile sig_atomic_t *stop,
	    const struct cmd_run_opts *o, struct cmd_run_out *out, struct diag *d);

struct run;
/* The same for a run r set up with its inputs and backend (run.h): runs it with progress
 * lines, writes and prints the results, and releases it (run_done). */
int cmd_run_on(struct run *r, const struct cmd_run_opts *o, struct cmd_run_out *out,
	       struct diag *d);

/* Prints a run's fidelity verdict to stderr: one line when ok, loudly
 * when degraded. */
void cmd_run_verdict(const char *who, const struct col_metrics *m);

/* A new results folder's path: <run.results>/<scenario>/<YYYYmmdd-HHMMSS>[-k]<suffix>. */
void cmd_run_results_dir(const struct experiment *e, const char *suffix, char *buf, size_t len);

/* Under sudo, gives a results folder to the user who asked (results.h, res_give_back). */
void cmd_run_give_back(const struct experiment *e, const char *dir);

#endif
