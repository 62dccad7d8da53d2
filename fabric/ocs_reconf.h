/* SPDX-License-Identifier: MIT */
/* Reconfiguring OCS circuits at run time (vClos §7: "OCS switching requires a delay of 50ms, so
 * occupied links can not be rewired"). A reconfiguration is checked (model/ocs.h: legal, only
 * idle circuits torn down), then the ports it changes go dark at once; once the delay has
 * passed the new circuits are put in and the routes and neighbour entries at both ends follow
 * (netctl_commit). The two halves are separate calls so the runner keeps serving its emu-nodes
 * while ports are dark. */
#ifndef ORCH_OCS_RECONF_H
#define ORCH_OCS_RECONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/ocs.h"
#include "fabric/netctl.h"

struct ocs_reconf {
	uint32_t *next; /* the circuits being made (owned), NULL when none is under way */
	uint64_t delay_ns; /* how long the changed ports stay dark */
	uint32_t ports; /* OCS ports whose circuit changes */
	int64_t t_begin; /* CLOCK_MONOTONIC ns: asked */
	int64_t t_dark; /* the changed ports were dark */
	int64_t t_lit; /* the new circuits were in */
	int64_t t_routes; /* routes and neighbours were fixed */
	struct netctl_stats st; /* of the commit */
};

/* Takes the ports dark that going from c's circuits to next (a circuit set over c->phys's
 * ports, decided by the runner: run_ocs_next; r owns it from now, also on error) changes. r
 * must not be under way. 0, or -errno with d set. */
int ocs_reconf_begin(struct netctl *c, uint32_t *next, uint64_t delay_ns, struct ocs_reconf *r,
		     struct diag *d);

/* When r's new circuits may go in: t_dark + delay (CLOCK_MONOTONIC ns). */
int64_t ocs_reconf_deadline(const struct ocs_reconf *r);

/* Puts the new circuits in and fixes the routes (netctl_commit). r is no longer under way
 * afterwards, whatever happened. 0 or -errno with d set. */
int ocs_reconf_finish(struct netctl *c, struct ocs_reconf *r, struct diag *d);

/* Changes ch[0..n) checked against c's circuits (busy: circuits that carry a job's traffic,
 * may be NULL; model/ocs.h's rules), then begin, a sleep until the deadline, finish: for tools
 * without an event loop. */
int ocs_reconf_run(struct netctl *c, const struct ocs_change *ch, size_t n,
		   const struct ocs_busy *busy, uint64_t delay_ns, struct ocs_reconf *r,
		   struct diag *d);

/* Frees what r holds (a reconfiguration left under way is abandoned). */
void ocs_reconf_done(struct ocs_reconf *r);

#endif
