/* SPDX-License-Identifier: MIT */
/* Path assignment for the running jobs' commodities (the greedy routing paper: Cohen, Yallouz,
 * Schapira, Belkar, Mizrahi, "Routing for Large ML Models"):
 * each commodity (one connection a collective sends over, from a source to a destination
 * endpoint) has candidate paths, each a set of directed links it loads; an assignment picks
 * one candidate per commodity. Greedy §3.4.1 Algorithm 1 picks, commodity by commodity, the
 * candidate whose busiest link carries the fewest commodities assigned so far, ties to the
 * lowest candidate (the lowest spine); `optimal` finds the assignment with the smallest
 * maximum link load exactly (the reference the paper compares against). The caller builds the
 * candidates from the routing plan (policy/greedy_paths.c) and applies the choice as DSCP path
 * tags. Pure: no topology, no clock, no I/O; the same inputs give the same assignment. */
#ifndef POLICY_GREEDY_H
#define POLICY_GREEDY_H

#include <stdint.h>

/* The order Algorithm 1 visits the commodities in (the paper: "some arbitrary order"). */
enum greedy_order {
	GREEDY_ORDER_INPUT, /* as given */
	/* the authors' code (sortTorConnections): commodities grouped by source ToR and by
	 * destination ToR, the groups by size, largest first (ties: source groups before
	 * destination groups, then by ToR id), each commodity visited in its first group, in
	 * input order within it */
	GREEDY_ORDER_BUSIEST_TOR,
};

struct greedy_cand {
	uint32_t link_off, link_n; /* the directed links it loads: greedy_in.links[off..off+n) */
};

struct greedy_comm {
	uint32_t src_grp, dst_grp; /* source and destination ToRs, for GREEDY_ORDER_BUSIEST_TOR */
	uint32_t cand_off, cand_n; /* its candidates, lowest spine first: greedy_in.cands[...];
				    * none: it crosses no link with a choice (same ToR) */
};

struct greedy_in {
	const struct greedy_comm *comms;
	uint32_t ncomm;
	const struct greedy_cand *cands;
	const uint32_t *links; /* directed link ids, each < nlinks */
	uint32_t nlinks;
};

/* Whether in is well formed: every link id below nlinks, no candidate or link range that
 * wraps, loads that fit an int. 0 or -EINVAL (the other functions here check it too). */
int greedy_check(const struct greedy_in *in);

/* Greedy §3.4.1 Algorithm 1 over every commodity, loads counted from zero: choice[c] is the
 * index of commodity c's candidate (0 for one without). Returns the maximum link load of the
 * result (>= 0), or -ENOMEM, -EINVAL (a link id out of range). */
int greedy_assign(const struct greedy_in *in, enum greedy_order order, uint32_t *choice);

/* The assignment with the smallest maximum link load, by branch and bound over the
 * commodities' candidates (ties: the first found in lexicographic order of choices, so the
 * result is deterministic), which stops at the first that reaches greedy_lower_bound. Refuses, with
 * -E2BIG, an instance whose search space (the product of the candidate counts) exceeds `limit`.
 * Returns the maximum link load (>= 0), or -ENOMEM, -EINVAL, -E2BIG. */
int greedy_optimal(const struct greedy_in *in, uint64_t limit, uint32_t *choice);

/* How many assignments there are: the product of the commodities' candidate counts (none
 * counts as one), saturating at UINT64_MAX. */
uint64_t greedy_assignments(const struct greedy_in *in);

/* The maximum link load of an assignment: over every directed link, the number of
 * commodities whose chosen candidate loads it. -ENOMEM or -EINVAL, else >= 0. */
int greedy_max_load(const struct greedy_in *in, const uint32_t *choice);

/* A lower bound on any assignment's maximum link load: over every source group, its
 * commodities with candidates over the number of distinct first links of their candidates
 * (the ToR's uplinks they may take), rounded up; the same over the last links into every
 * destination group. Without failures, the paper's ceil(max ToR degree / spines), exact by
 * Koenig's theorem. 0 without commodities; -ENOMEM. Assumes the links each candidate gives
 * are in path order (greedy_paths.h builds them so). */
int greedy_lower_bound(const struct greedy_in *in);

#endif
