/* SPDX-License-Identifier: MIT */
/* Rank-level traffic of one collective, for the placement tests (vClos, OCS-vClos): per
 * distinct phase, each rank's peer. Every phase of ring, halving-doubling and pairwise
 * all-to-all is a permutation step: a rank sends at most once. */
#ifndef TESTS_UNIT_COLL_PAT_H
#define TESTS_UNIT_COLL_PAT_H

#include <stdint.h>

#include "traffic/coll.h"

#define T_PAT_NONE UINT32_MAX /* a rank that sends nothing in a phase */

struct t_pat {
	uint32_t n, np;
	uint32_t *dst; /* [np * n]: rank r's peer in phase p at dst[p * n + r] (malloc'd) */
};

/* The distinct phases of algo's collective on n ranks (pairwise: an all-to-all, the others an
 * all-reduce); fails the test if a rank sends twice in a phase. */
void t_pat_build(struct t_pat *pt, enum coll_algo algo, uint32_t n);

#endif
