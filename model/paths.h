/* SPDX-License-Identifier: MIT */
/* Shortest paths toward every endpoint over up links, through forwarding nodes only,
 * and the next-hop port sets they give. Pure. */
#ifndef MODEL_PATHS_H
#define MODEL_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "model/topo.h"

#define PATHS_INF UINT16_MAX

struct topo_paths {
	uint32_t n_ep, n_node;
	uint16_t *dist; /* dist[ep * n_node + node]: hops from node to endpoint ep */
};

/* Computes hop distances from every node to every endpoint; 0 or -ENOMEM.
 * t must be finalized. Release with paths_done. */
int paths_compute(const struct topo *t, struct topo_paths *p);
void paths_done(struct topo_paths *p);

static inline uint16_t paths_dist(const struct topo_paths *p, uint32_t node, uint32_t ep)
{
	return p->dist[(size_t)ep * p->n_node + node];
}

/* Next-hop ports of node n toward endpoint ep on shortest paths, in the node's port order.
 * Writes at most max port ids; returns how many there are (may exceed max), 0 when n is
 * the endpoint itself or ep is unreachable. */
int paths_nexthops(const struct topo *t, const struct topo_paths *p, uint32_t n, uint32_t ep,
		   uint32_t *ports, size_t max);

#endif
