/* SPDX-License-Identifier: MIT */
/* Themis-style multi-dimensional platforms (Themis §2.3, Table 2): D dimensions, each a switch,
 * ring or fully-connected group per P_k nodes with its own per-node bandwidth. Pure. */
#ifndef MODEL_GEN_MULTIDIM_H
#define MODEL_GEN_MULTIDIM_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/topo.h"

#define GEN_MULTIDIM_MAX 4

enum gen_dim_type {
	GEN_DIM_SWITCH, /* a switch per group; each node has its own link to it */
	GEN_DIM_RING, /* a bidirectional ring through the group's nodes (direct links) */
	GEN_DIM_FC, /* a direct link between every two nodes of the group */
};

struct gen_dim {
	enum gen_dim_type type;
	uint32_t size; /* P_k: nodes per group, at least 2 */
	uint64_t rate; /* B_k: bit/s a node sends on this dimension in all, paper units */
};

/* P_0 x P_1 x ... ; node id = c_0 + P_0 (c_1 + P_1 (c_2 + ...)): dimension 0 varies fastest. */
struct gen_multidim_params {
	uint32_t ndims; /* D, 1..GEN_MULTIDIM_MAX */
	struct gen_dim dim[GEN_MULTIDIM_MAX];
};

struct gen_multidim_dim_counts {
	uint64_t groups; /* N / P_k */
	uint64_t links; /* switch: N; ring: N (P_k = 2: N/2); fc: N (P_k - 1) / 2 */
	uint64_t switches; /* switch: N / P_k; else 0 */
	uint32_t degree; /* links per node: switch 1, ring 2 (1 if P_k = 2), fc P_k - 1 */
};

struct gen_multidim_counts {
	uint64_t nodes; /* endpoints: N = P_0 * ... * P_{D-1} */
	uint64_t switches; /* all dimensions */
	uint64_t links; /* all dimensions */
	uint32_t degree; /* ports per node, all dimensions */
	bool forwards; /* whether the nodes forward (see gen_multidim) */
	struct gen_multidim_dim_counts dim[GEN_MULTIDIM_MAX];
};

/* Fills *out without building; 0 or -EINVAL / -E2BIG for invalid parameters. */
int gen_multidim_counts(const struct gen_multidim_params *p, struct gen_multidim_counts *out);

/* Per-link rate of dimension k before scaling: B_k / degree_k, so a node's links of dimension
 * k together carry B_k each way (Themis Table 2: B_k = BW/link x links/NPU, uni-directional; a
 * switch link carries B_k). */
uint64_t gen_multidim_link_rate(const struct gen_multidim_params *p, uint32_t k);

/* Whether gen_multidim would build p: 0, or its -EINVAL / -E2BIG with the same message. */
int gen_multidim_validate(const struct gen_multidim_params *p, struct diag *d);

/* Builds into the empty t: endpoints "n<id>" first (coord[k] = c_k, group = id / P_0, the
 * dimension-0 group), then dimension switches "d<k>s<g>" (g numbers the dimension-k groups,
 * coord = {k, g}), then links dimension by dimension, each with link.dim = k: tier edge to a
 * switch, tier direct for ring and fc. Every node has its own ports per dimension.
 * Nodes forward when some dimension is a ring of 4 or more (to reach the ring's
 * non-neighbours) or D >= 2 (to reach nodes differing in two coordinates, relayed by a node
 * sharing a group with each); same-group peers never relay through other nodes, since any
 * detour through another dimension is longer. Table 2's parallel links per ring or fc peer are
 * one link here carrying their aggregate. Rates times rate_scale.
 * Returns 0 or -errno with a message. */
int gen_multidim(struct topo *t, const struct gen_multidim_params *p, double rate_scale,
		 struct diag *d);

#endif
