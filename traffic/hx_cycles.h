/* SPDX-License-Identifier: MIT */
/* Two edge-disjoint Hamiltonian cycles on an r x c 2D torus (HammingMesh Appendix A-D), for
 * the all-reduce that runs two bidirectional rings on them (HammingMesh §V-A2). Nodes are
 * ranks in row-major order: rank = row * c + col, with neighbours (row, col +- 1 mod c) and
 * (row +- 1 mod r, col). Pure: no syscalls.
 *
 * Construction (the paper's Listing 1 is missing from its text; this one meets its condition
 * exactly). Call (i, j) a turning node when j == (c - 1) * i mod c. Cycle A leaves a turning
 * node to the South, any other node to the East; cycle B takes the other two torus edges of
 * every node, so it leaves a turning node to the East and any other to the South. A is one
 * cycle when c divides r, B when besides gcd(r, c - 1) = 1: the condition of Bae, AlBdaiwi and
 * Bose that the paper cites, r = c * k (k >= 1) and gcd(r, c - 1) = 1. With 2 rows or columns
 * two neighbours share both torus links, so A and B could not be told apart: r, c >= 3. */
#ifndef TRAFFIC_HX_CYCLES_H
#define TRAFFIC_HX_CYCLES_H

#include <stdint.h>

#include "lib/diag.h"

enum hx_cycle {
	HX_CYCLE_A,
	HX_CYCLE_B,
};

/* Whether an r x c torus has the pair: 0, or -EINVAL with a message naming the shape and the
 * condition it misses. Arithmetic only; hx_cycles also verifies the cycles it builds. */
int hx_cycles_shape(uint32_t r, uint32_t c, struct diag *d);

/* Fills a[0 .. r*c) and b[0 .. r*c) with the ranks of cycles A and B in the order they are
 * walked (a turning node's next is South on A, East on B), both from rank 0. Checks the
 * result: each cycle visits every node once, consecutive nodes (the last and the first
 * included) are torus neighbours, and no torus edge is on both. 0, -EINVAL (the shape has no
 * pair, or the check failed: the message says which), or -ENOMEM. */
int hx_cycles(uint32_t r, uint32_t c, uint32_t *a, uint32_t *b, struct diag *d);

/* For a shape hx_cycles_shape accepts, in O(1) without the arrays: the rank after and before
 * rank on cycle w, and its position (its index in hx_cycles's array for w). */
uint32_t hx_cycle_next(uint32_t r, uint32_t c, enum hx_cycle w, uint32_t rank);
uint32_t hx_cycle_prev(uint32_t r, uint32_t c, enum hx_cycle w, uint32_t rank);
uint32_t hx_cycle_pos(uint32_t r, uint32_t c, enum hx_cycle w, uint32_t rank);

#endif
