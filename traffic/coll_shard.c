// SPDX-License-Identifier: MIT
/* Per-shard data-parallel rings (greedy routing §5.1, as its authors' code builds them): rank =
 * replica * group + shard, ring i is [copy_0[i], copy_1[i], ..., copy_{dp-1}[i]], and each ring
 * all-reduces its members' buffers (every rank's buffer is its shard) in 2(dp-1) rounds. */
#include "traffic/coll_build.h"

/* The greedy routing authors' code: the next round starts only after all N flows of the round
 * have finished, a barrier per ring. Dependencies are rank-local, so each rank starts round k+1
 * (its send and its receive) only when its own send and receive of round k are done. A send
 * finishes once its successor has taken (all but a socket buffer of) its bytes and a receive
 * once its predecessor has sent them, so a ring's rounds drift apart by at most a hop at a time
 * instead of being cut by a global barrier, which would need control messages a schedule has no
 * step for. */
void coll_shard_build(struct coll_bld *b)
{
	const struct coll_params *p = b->p;
	uint32_t shards = p->group;
	struct coll_ring g = {
		.base = b->rank % shards,
		.stride = shards,
		.n = p->nranks / shards,
		.r = {0, p->bytes},
		.barrier = true,
	};
	struct coll_ring_pos rp;

	coll_ring_pos_init(&rp, &g, b->rank / shards, NULL);
	coll_ring_rs(b, &rp);
	coll_ring_ag(b, &rp);
}
