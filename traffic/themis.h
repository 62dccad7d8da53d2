/* SPDX-License-Identifier: MIT */
/* Themis (Rashidi et al., ISCA 2022): the chunk scheduler of a hierarchical all-reduce,
 * reduce-scatter or all-gather (md->kind) on a multi-dimensional platform, and the offline
 * simulation that fixes each dimension's order of chunk operations. Pure and deterministic:
 * every rank, the collector and the virtual-time backend get the same answer from the same
 * struct coll_md and size. Sizes are bytes per node: the buffer M, which a reduce-scatter
 * reduces to M/N and an all-gather gathers from M/N; rates bit/s (as in coll_md), times
 * seconds; bandwidth only (no step latency). */
#ifndef TRAFFIC_THEMIS_H
#define TRAFFIC_THEMIS_H

#include <stdint.h>

#include "lib/diag.h"
#include "traffic/coll.h"

#define THEMIS_MAX_CHUNKS 65536

/* One chunk operation: a reduce-scatter or all-gather stage of one chunk on one dimension. */
struct themis_op {
	uint32_t chunk;
	uint32_t seq; /* its position in its dimension's start order */
	uint8_t phase; /* index in the chunk's stages: for an all-reduce 0..D-1 reduce-scatter,
			* D..2D-1 all-gather; 0..D-1 for the others */
	uint8_t dim;
	uint8_t ag; /* 0: reduce-scatter, 1: all-gather */
	uint8_t pad[5];
	double in, out; /* the chunk's size on a node before and after the stage */
	double bytes; /* what a node sends on the dimension in the stage */
	double ready, start, end; /* predicted: input available, started, finished */
};

struct themis_plan {
	uint32_t chunks; /* C */
	uint8_t ndims; /* D */
	uint8_t nphases; /* stages per chunk: 2D for an all-reduce, D otherwise */
	uint8_t kind; /* md->kind */
	uint8_t pad;
	uint32_t per_dim; /* ops per dimension: C * nphases / D */
	struct themis_op *ops; /* C * nphases: chunk c's stage j at c * nphases + j */
	uint32_t *seq; /* dimension k's per_dim ops (indices into ops) in start order, at
			* k * per_dim */
	uint32_t *started; /* all ops in the order the simulation started them: each after its
			    * chunk's previous stage, each dimension's in seq order */
	double makespan; /* predicted end of the last op */
	double t_ideal; /* themis_t_ideal */
};

/* Checks md's platform and scheduler fields alone: 0, or -EINVAL with a message naming the
 * problem (ndims 0 or above COLL_MD_DIMS, a size below 2, active 0, rate 0, chunks 0 or above
 * THEMIS_MAX_CHUNKS, an unknown sched, intra or algo, a kind other than all-reduce,
 * reduce-scatter and all-gather, thr_div 0 with the Themis scheduler). */
int themis_check(const struct coll_md *md, struct diag *d);

/* The stages per chunk of md's collective: 2 ndims for an all-reduce, ndims otherwise. */
uint32_t themis_phases(const struct coll_md *md);
/* The platform's nodes, the product of its sizes; COLL_MAX_RANKS + 1 once it is larger. */
uint64_t themis_nodes(const struct coll_md *md);

/* Themis Alg. 1 for md's collective of `bytes` per node: order[c * S + j] is the dimension of
 * chunk c's stage j, S = themis_phases(md) (caller's buffer of md->chunks * S bytes). 0 or
 * -EINVAL. */
int themis_orders(const struct coll_md *md, double bytes, uint8_t *order, struct diag *d);

/* Themis §4.6: simulates the chunk operations of themis_orders on per-dimension servers that
 * run at most `active` operations at once, sharing B_k equally, queued FIFO or SCF; fills pl
 * (overwritten, not freed). 0, -EINVAL or -ENOMEM (pl left empty). */
int themis_plan_build(const struct coll_md *md, double bytes, struct themis_plan *pl,
		      struct diag *d);
/* Frees pl's arrays (NULL-safe) and empties it. */
void themis_plan_done(struct themis_plan *pl);

/* The collective's time at 100% utilization of every dimension (Themis Table 3's Ideal):
 * 2 S (N-1)/N / sum_k B_k seconds for an all-reduce of S bytes per node, half that for a
 * reduce-scatter or all-gather; avg. utilization = this / time. */
double themis_t_ideal(const struct coll_md *md, double bytes);

#endif
