/* SPDX-License-Identifier: MIT */
/* Direct networks for TACOS (TACOS §II-C, §IV-D): mesh, torus, ring, hypercube, and switch
 * groups unwound into point-to-point links. Pure: no syscalls. */
#ifndef MODEL_GEN_DIRECT_H
#define MODEL_GEN_DIRECT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/topo.h"

#define GEN_DIRECT_AXES 16 /* a hypercube of 2^16 nodes */
#define GEN_DIRECT_UNWIND_MAX 4 /* switch dimensions of an unwound topology */
#define GEN_DIRECT_FAILED_MAX 64 /* NPUs left out (TACOS Table III's failed NPUs) */

enum gen_direct_kind {
	GEN_DIRECT_MESH2D, /* size[0] x size[1], no wrap-around */
	GEN_DIRECT_TORUS2D, /* size[0] x size[1] */
	GEN_DIRECT_TORUS3D, /* size[0] x size[1] x size[2] */
	GEN_DIRECT_RING, /* size[0] nodes, bidirectional */
	GEN_DIRECT_HYPERCUBE, /* 2^size[0] nodes */
	GEN_DIRECT_UNWOUND, /* dim[0..ndims-1]: switch groups unwound (TACOS §IV-D) */
};

/* One switch dimension: groups of `size` NPUs, each NPU n granted the directed links
 * n->n+1, ..., n->n+degree (mod size), plus n->n-1, ..., n->n-degree if bidir; the NPU's
 * switch port rate is shared by its granted links (TACOS §IV-D: "each link bandwidth reduces
 * by d x"). degree 1 gives a ring at full rate, degree size-1 a full mesh at rate/(size-1). */
struct gen_unwind_dim {
	uint32_t size; /* NPUs per switch, at least 2 */
	uint32_t degree; /* 1..size-1; 0 = size-1 ("degree-max", TACOS's scale-up choice) */
	bool bidir; /* the bidirectional variant; each NPU then has min(2d, size-1) links */
	uint64_t rate; /* bit/s of the NPU's switch port, paper units */
};

struct gen_direct_params {
	enum gen_direct_kind kind;
	uint32_t size[3]; /* mesh/torus extents; ring: node count; hypercube: dimension */
	uint64_t rate; /* bit/s per link and direction (all kinds but unwound), paper units */
	uint32_t ndims; /* unwound: switch dimensions, dimension 0 varying fastest */
	struct gen_unwind_dim dim[GEN_DIRECT_UNWIND_MAX];
	/* NPU ids not built, nor their links (failed NPUs, TACOS Table III); the others keep
	 * their ids and names, endpoints numbered in id order without them */
	uint32_t nfailed;
	uint32_t failed[GEN_DIRECT_FAILED_MAX];
};

struct gen_direct_counts {
	uint64_t nodes;
	uint64_t links; /* physical links (a granted pair of NPUs is one link) */
	uint32_t axes; /* coordinates: 2, 3, 1, hypercube dimension, ndims */
	uint64_t axis_links[GEN_DIRECT_AXES]; /* links with link.dim = k */
	uint32_t degree_min, degree_max; /* links per node */
	uint32_t diameter; /* hops over links in either direction */
};

/* Fills *out without building, for the whole shape (failed NPUs included); 0 or -EINVAL /
 * -E2BIG for invalid parameters. */
int gen_direct_counts(const struct gen_direct_params *p, struct gen_direct_counts *out);

/* Whether NPU `from` may send to NPU `to` over one link: for unwound switches only the granted
 * directions (what TACOS synthesizes over), otherwise any neighbour. */
bool gen_direct_granted(const struct gen_direct_params *p, uint32_t from, uint32_t to);

/* Whether gen_direct would build p: 0, or its -EINVAL / -E2BIG with the same message. */
int gen_direct_validate(const struct gen_direct_params *p, struct diag *d);

/* Builds into the empty t: NPUs "n<id>", id = c_0 + P_0 (c_1 + P_1 c_2 ...) (axis 0 fastest;
 * hypercube: the id's bits), coord[k] = c_k (hypercube: coord[0] = id), group = id / P_0.
 * All NPUs forward. Links tier direct, link.dim = axis (hypercube: bit), from port[0] at
 * coordinate c to c+s (mod size): for unwound, a granted direction. A size-2 torus or ring axis
 * is one link. Unwound links carry rate / (granted links per NPU) in both directions: the
 * kernel needs the reverse one for return traffic (TCP acks), and TACOS schedules only use
 * what gen_direct_granted allows. Rates times rate_scale. 0 or -errno with a message. */
int gen_direct(struct topo *t, const struct gen_direct_params *p, double rate_scale,
	       struct diag *d);

#endif
