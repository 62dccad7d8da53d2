/* SPDX-License-Identifier: MIT */
/* The commodities of one job for the greedy routing paper's policies: every connection its
 * collective sends over, from the schedule every backend runs (traffic/coll.h). Pure. */
#ifndef POLICY_GREEDY_CONNS_H
#define POLICY_GREEDY_CONNS_H

#include <stdint.h>

#include "lib/diag.h"
#include "model/topo.h"
#include "policy/greedy_paths.h"
#include "traffic/coll.h"

/* Each (rank, peer) pair the schedule of p (with x: coll_sched_build_ext) makes rank send
 * to, once, rank by rank and in the order of the rank's steps, as greedy_conn of job `job`
 * on eps: *out (malloc'd, *n entries; free it). 0, or -errno with d set (a schedule that
 * cannot be built, -ENOMEM). */
int greedy_job_conns(const struct coll_params *p, const struct coll_ext *x, uint32_t job,
		     const uint32_t *eps, struct greedy_conn **out, uint32_t *n, struct diag *d);

/* Each endpoint's index among the endpoints of its attachment group (its leaf), in endpoint
 * order, into slot[] (t->endpoints.n entries): where Hedera's annealing starts a destination
 * (greedy_anneal). 0 or -ENOMEM. */
int greedy_ep_slots(const struct topo *t, uint32_t *slot);

#endif
