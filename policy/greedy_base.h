/* SPDX-License-Identifier: MIT */
/* The baselines the greedy routing paper compares against (greedy routing §5.1), over the same
 * commodities and candidates as greedy (policy/greedy.h): Edge-Coloring and Hedera-style
 * Simulated Annealing, as the authors' code implements them (EdgeColoringRoutingStrategy,
 * SimulatedAnnealingRoutingStrategy). Candidate i of a commodity is taken to be the path over
 * its i-th alive spine (greedy_paths.h builds them so). Pure: no clock, no I/O, no globals; the
 * same input (and seed) gives the same assignment. */
#ifndef POLICY_GREEDY_BASE_H
#define POLICY_GREEDY_BASE_H

#include <stdint.h>

#include "policy/greedy.h"

/* A proper edge coloring of the bipartite multigraph with a vertex per source group on the
 * left, one per destination group on the right (group ids are any uint32) and an edge per
 * commodity with candidates: color[c] in [0, K) where K, the returned count, is the maximum
 * degree (Koenig); UINT32_MAX for a commodity without candidates. -ENOMEM, -EINVAL. */
int greedy_edge_colors(const struct greedy_in *in, uint32_t *color);

/* Greedy routing §5.2, Edge-Coloring: choice[c] = color(c) mod cand_n (the authors' code:
 * spine = alive_spines[color mod |alive|]), 0 for a commodity without candidates. When every
 * commodity has the same S candidates (no failures, or whole spines failed) its maximum load
 * is ceil(Delta/S), the optimum. Otherwise not optimal: the colors wrap modulo each commodity's
 * own candidate count (failed links), so commodities of one ToR can collide. Returns the
 * maximum link load (>= 0), or -ENOMEM, -EINVAL. */
int greedy_edge_color(const struct greedy_in *in, uint32_t *choice);

/* Greedy routing §5.1, Simulated Annealing as suggested in Hedera: a spine index in [0, S)
 * (S: the most candidates of any commodity) per destination dst_key[c], shared by every
 * commodity with that key, which takes candidate (spine mod cand_n); the destination starts
 * on dst_slot[c] mod S, its index among its ToR's (dst_grp's) hosts. 917 steps from T = 1000
 * cooling by 1%, on the energy max load x the number of links at it, each step swapping two
 * destinations' spines (any two, or two under one ToR). Swaps only permute the start's
 * spines: destinations all on slot 0 stay on spine 0. Keeps the least maximum load seen
 * (ties: the least energy), so never worse than the start. A destination takes dst_grp and
 * dst_slot from its first commodity. Returns the maximum link load (>= 0), or -ENOMEM,
 * -EINVAL. */
int greedy_anneal(const struct greedy_in *in, const uint32_t *dst_key, const uint32_t *dst_slot,
		  uint64_t seed, uint32_t *choice);

#endif
