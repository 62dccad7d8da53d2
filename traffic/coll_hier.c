// SPDX-License-Identifier: MIT
/* Hierarchical two-level ring all-reduce (vClos §5.3, "hierarchical rings or rings with
 * multiple channels"): a ring reduce-scatter inside each server, a ring all-reduce across
 * servers among the ranks with the same local index (one ring per rail, each on its 1/group
 * shard), and a ring all-gather inside each server. Ranks are server-major:
 * rank = server * group + local. */
#include "traffic/coll_build.h"

void coll_hier_build(struct coll_bld *b)
{
	const struct coll_params *p = b->p;
	uint32_t g = p->group, servers = p->nranks / g;
	uint32_t server = b->rank / g, local = b->rank % g;
	struct coll_range all = {0, p->bytes};
	struct coll_ring intra = {.base = server * g, .stride = 1, .n = g, .r = all};
	struct coll_ring inter = {
		.base = local,
		.stride = g,
		.n = servers,
		.r = coll_part(all, p->elem, g, local),
		.phase = (uint16_t)(g - 1),
	};
	struct coll_ring_pos rp;
	struct coll_deps done;

	/* 1: after it, local rank l holds shard l summed over its server */
	coll_ring_pos_init(&rp, &intra, local, NULL);
	coll_ring_rs(b, &rp);
	coll_ring_exit(b, &rp, &done);
	/* 2: shard l summed over all servers */
	coll_ring_pos_init(&rp, &inter, server, &done);
	coll_ring_rs(b, &rp);
	coll_ring_ag(b, &rp);
	coll_ring_exit(b, &rp, &done);
	/* 3: every shard everywhere */
	intra.phase = (uint16_t)(g - 1 + 2 * (servers - 1));
	coll_ring_pos_init(&rp, &intra, local, &done);
	coll_ring_ag(b, &rp);
}
