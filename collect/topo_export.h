/* SPDX-License-Identifier: MIT */
/* A topology for other tools (`testbed export`): a Graphviz graph to draw it, a containerlab
 * topology file to rebuild its wiring and addresses elsewhere. Both show the cables: with OCS
 * layers the physical view (t->phys) and its circuits at `up` in comments. The texts call the
 * rates the scenario's: pass t built at emulation.rate_scale 1. Same topology, same bytes.
 * Pure (text in memory). */
#ifndef COLLECT_TOPO_EXPORT_H
#define COLLECT_TOPO_EXPORT_H

#include "collect/text.h"
#include "model/topo.h"

/* The image every containerlab node gets: nothing in it routes, the file wires and addresses */
#define COL_CLAB_IMAGE "alpine:3"

/* Appends t as an undirected Graphviz graph named name: one node per topology node, shaped and
 * coloured by role, endpoints labelled with their address and, when there are several
 * groups, in one `subgraph cluster_g<group>` each; one edge per link (parallel links apart),
 * labelled with its rate and delay. 0, or -ENOMEM (o's sticky error). */
int col_topo_dot(struct col_text *o, const struct topo *t, const char *name);

/* Appends t as a containerlab topology file for lab name: every node `kind: linux` with image
 * COL_CLAB_IMAGE, its ports eth1, eth2, ... in port order (eth0 is containerlab's), its
 * addresses as `exec:` commands; one `endpoints:` pair per link with its rate in a comment.
 * 0, or -ENOMEM. */
int col_topo_clab(struct col_text *o, const struct topo *t, const char *name);

/* The interface containerlab's file gives port p of t: 1 for a node's first port (eth1). */
static inline uint32_t col_clab_eth(const struct topo *t, uint32_t p)
{
	return t->ports.v[p].ifindex - 1; /* ifindex: 2 + position, after lo */
}

#endif
