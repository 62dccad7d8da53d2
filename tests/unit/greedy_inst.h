/* SPDX-License-Identifier: MIT */
/* Two-tier Clos instances of policy/greedy.h's problem for the unit tests of greedy and its
 * baselines: ToR pairs as commodities, one candidate per alive spine loading the uplink and
 * the downlink, each commodity's destination its own host (for the annealing's state). */
#ifndef TESTS_UNIT_GREEDY_INST_H
#define TESTS_UNIT_GREEDY_INST_H

#include <stdint.h>

#include "policy/greedy.h"

struct t_pair {
	uint32_t a, b; /* source and destination ToR */
};

/* A greedy_in over arrays the test owns (so it can corrupt them), with each commodity's
 * destination host for the annealing: key and index among its ToR's hosts. */
struct t_inst {
	struct greedy_comm *comms;
	struct greedy_cand *cands;
	uint32_t *links;
	uint32_t *key, *slot;
	uint32_t ntor, nspine;
	struct greedy_in in;
};

/* splitmix64: the next of stream *x; below n. */
uint64_t t_rand(uint64_t *x);
uint32_t t_below(uint64_t *x, uint32_t n);

/* The link ids: ToR tor's uplink to spine s, and spine s's downlink to tor. */
uint32_t t_up(const struct t_inst *x, uint32_t tor, uint32_t s);
uint32_t t_down(const struct t_inst *x, uint32_t s, uint32_t tor);

/* Commodities p[0..n) over ntor ToRs and nspine spines, spines in `failed` (a bit each)
 * left out of the candidates; none for a == b. Each destination is its own host, the next
 * free one under its ToR. Release with t_free. */
void t_clos(struct t_inst *x, uint32_t ntor, uint32_t nspine, uint64_t failed,
	    const struct t_pair *p, uint32_t n);
void t_free(struct t_inst *x);

/* The maximum link load of an assignment, counted independently of greedy_max_load. */
uint32_t t_max_load(const struct t_inst *x, const uint32_t *choice);

/* Every choice names a candidate; 0 for a commodity without. */
void t_check_choice(const struct t_inst *x, const uint32_t *choice);

/* One ring of the paper-scale instances: 4 distinct ToRs of 64, each sending to the next,
 * into p[0..4). */
void t_ring(uint64_t *rng, struct t_pair *p);

#endif
