/* SPDX-License-Identifier: MIT */
/* Rerouting (on a failure the control plane removes dead next hops from the hash groups and
 * re-runs the routing policy, as greedy routing §5.4 re-runs its controller on failures). When
 * the topology changes (a link or node fails or comes back, an OCS circuit is rewired) the plan
 * is rebuilt for the new graph, and only its difference from the installed plan is applied: per
 * node, the routes to add or replace, rules, the nftables ruleset when its groups changed, then
 * what is gone, and the neighbour entries of ports whose peer changed. Also which links a job's
 * traffic may cross, for "busy" circuits. Pure: both plans come from route_plan_build over
 * topologies with the same node and port ids (model/ocs.h keeps them so). */
#ifndef POLICY_REROUTE_H
#define POLICY_REROUTE_H

#include <stdint.h>

#include "lib/vec.h"
#include "model/paths.h"
#include "lib/diag.h"
#include "model/scenario.h"
#include "model/topo.h"
#include "policy/route.h"

enum route_op_kind {
	ROUTE_OP_SET, /* add or replace the new plan's routes.v[idx] */
	ROUTE_OP_RULE_ADD, /* the new plan's rules.v[idx] */
	ROUTE_OP_NFT, /* reinstall the node's ruleset from the new plan (clear it if no group) */
	ROUTE_OP_DEL, /* delete the old plan's routes.v[idx] */
	ROUTE_OP_RULE_DEL, /* the old plan's rules.v[idx] */
	ROUTE_OP_NEIGH_DEL, /* flush the neighbour entry addr on port idx (the old peer) */
};

struct route_op {
	uint32_t node;
	enum route_op_kind kind;
	uint32_t idx;
	uint32_t addr; /* ROUTE_OP_NEIGH_DEL */
};

/* Ops grouped by node in node order; within a node in the order of enum route_op_kind, so new
 * routes exist before the ruleset marks packets toward them and old ones go last. */
struct route_diff {
	VEC(struct route_op) ops;
	uint32_t nodes; /* nodes with at least one op */
};

/* The difference that turns plan op (of topology ot) into plan np (of nt). 0 or -ENOMEM.
 * Release with route_diff_done (also after failure). */
int route_diff_build(const struct topo *ot, const struct route_plan *op, const struct topo *nt,
		     const struct route_plan *np, struct route_diff *out);
void route_diff_done(struct route_diff *d);

/* Ops of each kind in d (counts[kind]), for reports. */
void route_diff_count(const struct route_diff *d, uint32_t counts[ROUTE_OP_NEIGH_DEL + 1]);

/* What d asks of the kernel, as a network event's record counts it: namespaces changed, route,
 * rule and neighbour requests, nftables batches. */
struct route_diff_totals {
	uint32_t nodes, route_ops, nft_ops;
};
struct route_diff_totals route_diff_totals(const struct route_diff *d);

/* The routing of a topology that changed (a failure, a repair, an OCS rewire), the one
 * decision both backends take: nt's paths and plan into *np and *nplan (with the endpoints'
 * least retransmission timeouts when sh is not NULL, route_rto.h) and, when df is not NULL,
 * what changes from the view (ot, op) in force. 0 or -errno with d set; np, nplan and df are
 * the caller's to release either way. */
int route_view_next(const struct topo *ot, const struct route_plan *op, const struct topo *nt,
		    const struct scn_shaping *sh, const struct scn_rto *rto, struct topo_paths *np,
		    struct route_plan *nplan, struct route_diff *df, struct diag *d);

/* Marks with `mark` every link of t on a shortest path between two of the n endpoints eps
 * (endpoint indexes): every link an ECMP hash or a path tag may send their traffic over.
 * link_mark has t->links.n entries; marked ones are overwritten. 0 or -ENOMEM. */
int route_links_used(const struct topo *t, const struct topo_paths *p, const uint32_t *eps,
		     uint32_t n, uint32_t mark, uint32_t *link_mark);

#endif
