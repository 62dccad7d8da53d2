/* SPDX-License-Identifier: MIT */
/* The greedy routing paper's commodities on a real topology: each connection a running job
 * sends over, with the paths DSCP tags can give it as candidates (policy/greedy.h), and the
 * tag that carries out an assignment. A connection's candidates are the paths its 5-tuple
 * (route_job_flow) takes under tags 1..K at the first hash group that honours a tag (a leaf's
 * uplinks: one path per spine, in next-hop order, which is spine order; a connection with
 * one path over the fabric has it as its only candidate, so that it counts); the links a
 * candidate loads are its switch-to-switch ones (greedy routing §3.4.1 counts the ToR-spine
 * links; an endpoint's own link is the same for every candidate). Pure. */
#ifndef POLICY_GREEDY_PATHS_H
#define POLICY_GREEDY_PATHS_H

#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "model/topo.h"
#include "policy/greedy.h"
#include "policy/route.h"

/* A connection of a placed job: rank src sends to rank dst. */
struct greedy_conn {
	uint32_t job;
	const uint32_t *eps; /* the job's endpoints in rank order (borrowed) */
	uint32_t src, dst;
};

struct greedy_paths {
	VEC(struct greedy_comm) comms;
	VEC(struct greedy_cand) cands;
	VEC(uint32_t) links; /* port ids: the link direction leaving the port */
	struct greedy_in in; /* over the above, once built */
};

/* Candidates of connections c[0..n) over topology t and plan. 0, -ENOMEM, or -EINVAL when a
 * connection has no route (d names it). Release with greedy_paths_done (also after failure). */
int greedy_paths_build(struct greedy_paths *g, const struct topo *t, const struct route_plan *plan,
		       const struct greedy_conn *c, uint32_t n, struct diag *d);
void greedy_paths_done(struct greedy_paths *g);

/* The DSCP tag that puts commodity i on its candidate choice: choice + 1, or 0 (the hash)
 * for a commodity without a choice (one path, or none over the fabric). */
static inline uint8_t greedy_paths_tag(const struct greedy_paths *g, uint32_t i, uint32_t choice)
{
	return g->comms.v[i].cand_n > 1 ? (uint8_t)(choice + 1) : 0;
}

#endif
