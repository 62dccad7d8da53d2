/* SPDX-License-Identifier: MIT */
/* The greedy routing paper's own way to pin a path (greedy routing §3.5.3): the controller
 * hands the sender a source port whose ECMP hash, at the switch where the paths part, picks
 * the path it chose; the switches stay plain ECMP. Here a job's pair of ranks shares one TCP
 * connection (traffic/sport.h), bound by the lower rank, so one port serves both directions:
 * it must land each direction that has a wanted path on it. Pure: the hash is the switches'
 * own (route_hash_pick with each group's seed), the ports are flow_sport's, in its order. */
#ifndef POLICY_GREEDY_SPORT_H
#define POLICY_GREEDY_SPORT_H

#include <stdint.h>

#include "model/topo.h"
#include "policy/route.h"

#define GREEDY_ANY UINT32_MAX /* a direction whose path does not matter (it carries no data) */

/* Where a pair must go: the member of the first hash group a tag would choose (tag - 1, the
 * candidate index of policy/greedy_paths.h) for lo -> hi (up) and hi -> lo (down). */
struct greedy_pair {
	uint32_t job;
	const uint32_t *eps; /* the job's endpoints in rank order (borrowed) */
	uint32_t lo, hi; /* ranks, lo < hi: lo binds the port */
	uint32_t want_up, want_down; /* member index, or GREEDY_ANY */
	/* how many times this pair was moved before: each move starts the search further along
	 * the ports, so a port the last connection may have left in TIME_WAIT is not asked for
	 * again at once */
	uint32_t gen;
};

/* The first port of flow_sport(job, lo, hi, ...) from position gen * GREEDY_SPORT_STRIDE
 * that lands both directions where p wants them: 0 and *port, -EINVAL (a direction has no
 * route, or a wanted member beyond its group), -EADDRNOTAVAIL (no port in the range does). */
int greedy_sport(const struct topo *t, const struct route_plan *plan, const struct greedy_pair *p,
		 uint16_t *port);

/* Whether port (0: flow_sport's first) lands both directions where p wants them: 1, 0, or
 * -EINVAL as above. */
int greedy_sport_fits(const struct topo *t, const struct route_plan *plan,
		      const struct greedy_pair *p, uint16_t port);

/* A pair whose two directions must cross given link directions (ports as route_trace_ports
 * gives them; TOPO_NONE: any), each carrying its DSCP tag: OCS-vClos pins a flow's uplink by
 * its tag and, where a spine has several circuits to the destination's leaf, the downlink by
 * the port (vClos §7; the paper's testbed routes by in-port there). */
struct greedy_pair_via {
	struct greedy_pair p; /* job, eps, lo, hi, gen (want_up, want_down unused) */
	uint8_t tag[2]; /* lo -> hi, hi -> lo */
	uint32_t via[2][2]; /* per direction, two ports its path must leave through */
};

/* Whether port (0: flow_sport's first) puts both directions of p through their ports: 1, 0,
 * or -EINVAL (a direction has no route). */
int greedy_sport_via_fits(const struct topo *t, const struct route_plan *plan,
			  const struct greedy_pair_via *p, uint16_t port);

/* The first port of flow_sport(job, lo, hi, ...) from position gen * GREEDY_SPORT_STRIDE
 * that does: 0 and *port, -EINVAL, or -EADDRNOTAVAIL (none in the range does). */
int greedy_sport_via(const struct topo *t, const struct route_plan *plan,
		     const struct greedy_pair_via *p, uint16_t *port);

#define GREEDY_SPORT_STRIDE 1009u

#endif
