/* SPDX-License-Identifier: MIT */
/* A scenario's sweep (docs/scenario.md, 'sweep'), for `testbed up` and `testbed sim` alike:
 * every variant and seed run in its own folder under one sweep folder, then compared. */
#ifndef ORCH_CMD_SWEEP_H
#define ORCH_CMD_SWEEP_H

#include <signal.h>
#include <stdbool.h>

#include "cli/cmd.h"
#include "cli/cmd_run.h"

struct cmd_sweep {
	const char *who; /* "testbed up": messages start with it */
	bool sim; /* load each variant for virtual time (world_ask.sim) */
	/* Runs one loaded variant with its options (its folder, its label). 0 or -errno. */
	int (*run)(void *arg, struct world *w, const struct cmd_run_opts *ro,
		   struct cmd_run_out *out, struct diag *d);
	void *arg;
	volatile sig_atomic_t *stop; /* RUN_STOP_* (run.h): ends the sweep after the current run */
	struct cmd_run_tally *tally; /* every run's jobs and verdict, counted (NULL: not) */
	uint32_t par; /* runs at once, each in a process of its own (virtual time); 0, 1: one */
	struct cmd_shard shard; /* --shard I/N: only the runs that fall to it (n 0: every run) */
};

/* Runs the sweep of the scenario at path (w: its file as loaded, for the sweep's axes and
 * results folder), sw->par runs at once. A run that fails is recorded and the sweep goes
 * on. The records are the same whatever sw->par. With sw->shard, only the shard's runs, into
 * <results>/<scenario>/sweep/ (SWEEP_SHARD_DIR) with its own plan file, and no comparison
 * (`testbed report` makes it once every shard has run). 0 or -errno with d set (-EIO: some
 * runs failed; -EINTR / -ECANCELED: stopped). */
int cmd_sweep_run(const struct cmd_sweep *sw, const char *path, struct world *w, struct diag *d);

#endif
