/* SPDX-License-Identifier: MIT */
/* Internal to traffic/coll*.c: the all-reduce algorithms of HammingMesh §V-A2 over a logical
 * r x c 2D torus of ranks, rank = row * c + col, where c is params.group ("columns of the
 * torus") and r = nranks / c. Every send goes to a torus neighbour. Both build ALLREDUCE
 * only.
 *
 *  - hx-rings: two bidirectional rings on the two edge-disjoint Hamiltonian cycles of
 *    traffic/hx_cycles.h; ring q (cycle A forward, A backward, B forward, B backward) reduces
 *    quarter q of the buffer (coll_part(buffer, elem, 4, q)) by a ring reduce-scatter and
 *    all-gather in cycle order, 2(N-1) rounds. Needs r = c*k, gcd(r, c-1) = 1, r, c >= 3.
 *  - torus2d: half 0 of the buffer is reduce-scattered along the rank's row ring (c
 *    members, column order), the rank's piece all-reduced along its column ring (r members,
 *    row order), and all-gathered along the row; half 1 is the transposed instance (column,
 *    row, column). Any r, c >= 1: a dimension of size 1 has no steps on it (a 1 x c torus is
 *    one ring), one of size 2 exchanges both ways with its one neighbour.
 *
 * For coll.c's algorithm table: build, group_is "columns of the torus", and the check,
 * which also refuses group 0 and nranks not a multiple of it (the table's own group check
 * runs after it). */
#ifndef TRAFFIC_COLL_HX_H
#define TRAFFIC_COLL_HX_H

#include "traffic/coll_build.h"

void coll_hx_rings_build(struct coll_bld *b);
void coll_torus2d_build(struct coll_bld *b);

/* 0, or -EINVAL with a message naming the shape (and, for hx-rings, the condition missed);
 * -ENOMEM if verifying the cycles ran out of memory. */
int coll_hx_rings_check(const struct coll_params *p, struct diag *d);
int coll_torus2d_check(const struct coll_params *p, struct diag *d);

#endif
