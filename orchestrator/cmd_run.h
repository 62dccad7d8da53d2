/* SPDX-License-Identifier: MIT */
/* The run part of `testbed up` (cmd_run.c). */
#ifndef ORCH_CMD_RUN_H
#define ORCH_CMD_RUN_H

#include <signal.h>

#include "orchestrator/cmd.h"

/* Runs w's workload on the built testbed `name` (nsfd: its namespaces, per node), writes the
 * results folder and prints the job table. 0 or -errno with d set. */
int cmd_run(struct cmd_world *w, const char *name, const int *nsfd, volatile sig_atomic_t *stop,
	    struct diag *d);

#endif
