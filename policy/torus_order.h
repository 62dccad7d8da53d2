/* SPDX-License-Identifier: MIT */
/* Rank order for the HammingMesh all-reduces (traffic/coll_hx.h): rank = row * columns +
 * column on the logical torus the topology's accelerators form. Pure. */
#ifndef POLICY_TORUS_ORDER_H
#define POLICY_TORUS_ORDER_H

#include <stdint.h>

#include "model/gen_hxmesh.h"
#include "model/topo.h"

/* The torus's columns: a HammingMesh's a * x accelerators per row (HammingMesh §V-A2: a
 * board row and its row network are one ring), or 0 if hx is NULL. */
uint32_t torus_columns(const struct gen_hxmesh_params *hx);

/* Sorts eps[0..n) (endpoints of t) into torus order: by global row, then global column, where
 * an accelerator of board (bx, by) at (i, j) on it is at column bx * a + i, row by * b + j
 * (gen_hxmesh's coordinates); with hx NULL (a direct topology, NPU ids row by row) by
 * endpoint index. */
void torus_order(const struct topo *t, const struct gen_hxmesh_params *hx, uint32_t *eps,
		 uint32_t n);

#endif
