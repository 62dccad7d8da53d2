/* SPDX-License-Identifier: MIT */
/* scenario/: what a scenario file means, before anything runs: the YAML read against its
 * schema, sweeps, failures, the workload's jobs, and the "world" loaded once for every command.
 * May include the pure layers only (lib, model, policy, traffic, collect). */
#ifndef SCENARIO_WORLD_H
#define SCENARIO_WORLD_H

#include <stdbool.h>

#include "lib/diag.h"
#include "model/paths.h"
#include "model/topo.h"
#include "policy/route.h"
#include "scenario/experiment.h"

/* A loaded scenario with everything derived from it: what check, up, sim, doctor, schedule,
 * path, export and sample start from. */
struct world {
	struct experiment e;
	struct topo *t;
	struct topo_paths paths;
	struct route_plan plan;
	job_list jobs; /* the workload's, resolved and checked against t (a trace read once) */
	/* the trace's rows left out, by reason (too large for t under trace.oversize: skip, too) */
	struct job_trace_left trace_left;
	char ignored[128]; /* virtual time: the emulation-only fields the file sets ("" if none) */
};

/* What a world is loaded for. */
struct world_ask {
	/* one run of the file's sweep (scenario_yaml.h, exp_parse_file_variant); NULL: its first */
	const uint32_t *choice;
	/* virtual time (`testbed sim`): paper units, emulation's scales at 1; the emulation-only
	 * fields the file sets are named in w->ignored */
	bool sim;
	/* every other variant of the sweep is loaded too, and the first that `up` would refuse
	 * before it runs is the error */
	bool every_variant;
	/* called with each world loaded, every variant's with every_variant (the first one's
	 * included): a nonzero return, with d set, refuses the file (`up`'s checks of what the
	 * machine cannot emulate, cli/cmd_up.c) */
	int (*check)(const struct world *w, const char *path, struct diag *d);
};

/* Parses path and derives topology, the workload's jobs (reading a trace), paths and routing
 * plan, refusing everything `up` would refuse before it builds. 0, or -errno with d set
 * (-EINVAL means bad input). Release with world_done, also after failure. */
int world_load(const char *path, struct world_ask ask, struct world *w, struct diag *d);
void world_done(struct world *w);

/* Every variant of sweep s of path but the first (loaded already) builds, its jobs fit and,
 * if check is not NULL, check accepts it, with the variant's first seed combination. 0, or the
 * first variant's error with d naming it: "... (in sweep variant vN, AXIS=VALUE)". */
int world_check_variants(const char *path, const struct exp_sweep *s,
			 int (*check)(const struct world *w, const char *path, struct diag *d),
			 struct diag *d);

/* routing.policy optimal: refuses (-EINVAL, at the policy's file:line:col) a world whose jobs
 * that start at time 0 already give the exact search more assignments than
 * routing.optimal_limit. 0 otherwise, or -ENOMEM (route_check.c). */
int route_check_optimal(const struct world *w, struct diag *d);

#endif
