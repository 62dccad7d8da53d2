/* SPDX-License-Identifier: MIT */
/* vClos's routing baselines (routing.policy source and balanced), decided over the commodities
 * and candidate paths of the greedy controller (greedy_paths.h): choice[i] is commodity i's
 * candidate. Each returns the assignment's maximum link load, or -ENOMEM. Pure. */
#ifndef POLICY_BASELINE_H
#define POLICY_BASELINE_H

#include <stdint.h>

#include "model/topo.h"
#include "policy/greedy.h"
#include "policy/greedy_paths.h"
#include "policy/sched.h"

/* vClos §5.2 Source Routing: a connection leaves its leaf on the uplink its source's port maps
 * to: under scheduler.placement vclos the spine its virtual Clos gives the rank
 * (vclos_uplink), under ocs-vclos the circuits its placement gave it (sched_ocs_route), else
 * f(i) = i, the source's port under its leaf, modulo the live spines of t (the topology in
 * force). s: the scheduler that placed c's jobs. */
int baseline_source(const struct topo *t, const struct sched *s, const struct greedy_conn *c,
		    const struct greedy_in *in, uint32_t *choice);

/* vClos's Balanced baseline (§9): a connection keeps the candidate it held (held[i]: its
 * candidate + 1, 0 if none or new); a new one takes the uplink with the fewest connections on
 * it, ties at random from seed (the caller makes it repeat from run to run). */
int baseline_balanced(const struct greedy_in *in, const uint32_t *held, uint64_t seed,
		      uint32_t *choice);

#endif
