/* SPDX-License-Identifier: MIT */
/* The network's control plane at run time: the runner's own copy of the topology, its paths
 * and routing plan, changed by failures, repairs and OCS reconfigurations. A change edits the
 * physical state (cables up or down, circuits); netctl_commit rebuilds the view routing sees,
 * its paths and plan, and applies only their difference from what is installed
 * (policy/reroute.h) to the affected namespaces: routes, rules, nftables hash groups, stale
 * neighbour entries. */
#ifndef ORCH_NETCTL_H
#define ORCH_NETCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/paths.h"
#include "model/scenario.h"
#include "model/topo.h"
#include "policy/reroute.h"
#include "policy/route.h"

struct netctl {
	const int *nsfd; /* namespace fd per node (borrowed) */
	int root_fd; /* the namespace the thread returns to (owned) */
	struct topo *phys; /* the cables and their state (owned) */
	uint32_t *xc; /* OCS circuits over phys's ports (model/ocs.h), NULL without OCS */
	struct topo *t; /* what routing sees: the logical view of phys and xc (owned) */
	struct topo_paths paths;
	struct route_plan plan;
	const struct scn_shaping *sh; /* with rto: the endpoints' rto_min (borrowed), or NULL */
	struct scn_rto rto;
};

/* What one commit did. */
struct netctl_stats {
	int64_t plan_ns; /* rebuilding view, paths, plan and the difference */
	int64_t apply_ns; /* the kernel requests */
	struct route_diff_totals ops; /* namespaces changed, requests */
};

/* Starts from topology t as `up` built it (its view, cables and circuits), with the kernel
 * objects of nodes in namespaces nsfd. 0 or -errno with d set; netctl_done either way. */
int netctl_init(struct netctl *c, const struct topo *t, const int *nsfd, struct diag *d);
void netctl_done(struct netctl *c);

/* Gives every plan from now on, the current one included, the endpoints' rto_min of cfg under
 * shaping sh (borrowed), as `up` installed them (policy/route_rto.h). 0 or -errno with d set. */
int netctl_set_rto(struct netctl *c, const struct scn_shaping *sh, const struct scn_rto *cfg,
		   struct diag *d);

/* Takes cable k (a link of phys) down or up: both of its veth ends, administratively, and
 * the model. Routes follow at the next commit. 0 or -errno with d set. */
int netctl_cable_state(struct netctl *c, uint32_t k, bool up, struct diag *d);

/* Rebuilds the view, paths and plan from phys and xc and applies the difference. The new
 * state is kept even when a kernel request fails (the model says what was asked for).
 * 0 or -errno with d set. */
int netctl_commit(struct netctl *c, struct netctl_stats *st, struct diag *d);

/* Applies difference df between (ot, op) and (nt, np) to the kernel. 0 or the first error. */
int netctl_apply(const struct netctl *c, const struct topo *ot, const struct route_plan *op,
		 const struct topo *nt, const struct route_plan *np, const struct route_diff *df,
		 struct diag *d);

/* Probes connectivity between endpoints ep_a and ep_b: count (at most 64) ICMP echoes from
 * a to b, each with its own identifier so the ECMP hashes spread them over the paths,
 * unanswered ones resent every 5 ms, until all were answered or timeout_ns passed. Returns
 * the CLOCK_MONOTONIC ns of the last answer, or -ETIMEDOUT (or another -errno); *answered
 * says how many came back. */
int64_t netctl_probe(const struct netctl *c, uint32_t ep_a, uint32_t ep_b, int count,
		     int64_t timeout_ns, int *answered);

/* The same probe in a thread of its own, so the runner's loop goes on meanwhile (a probe
 * toward an endpoint a failure cut off waits out its timeout). NULL if it cannot start. */
struct netctl_probe;
struct netctl_probe *netctl_probe_start(const struct netctl *c, uint32_t ep_a, uint32_t ep_b,
					int count, int64_t timeout_ns);
/* Whether it has finished; then *at and *answered are what netctl_probe would return. */
bool netctl_probe_done(struct netctl_probe *np, int64_t *at, int *answered);
/* Waits for it to finish. */
void netctl_probe_wait(struct netctl_probe *np);
/* Waits for it to finish and frees it; NULL is fine. */
void netctl_probe_free(struct netctl_probe *np);

/* The cables (phys links) of a logical link of c->t: itself, or the two of a circuit.
 * Writes up to 2 ids, returns how many. */
int netctl_cables_of(const struct netctl *c, uint32_t link, uint32_t out[2]);

#endif
