/* SPDX-License-Identifier: MIT */
/* HammingMesh (its paper's §III): one plane of an x x y grid of a x b accelerator boards, and the
 * paper's counting formulas for whole systems. Pure: no syscalls. */
#ifndef MODEL_GEN_HXMESH_H
#define MODEL_GEN_HXMESH_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/topo.h"

/* HammingMesh §III-B and §IV-A: a and x run West-East, b and y North-South. */
struct gen_hxmesh_params {
	uint32_t a, b; /* board: a accelerators West-East, b North-South */
	uint32_t x, y; /* grid: x boards per board row, y board rows */
	uint32_t radix; /* ports per switch (64 in the paper) */
	uint32_t taper; /* fat-tree leaves split their ports down:up as taper:1; 1 = nonblocking */
	uint32_t planes; /* planes of the modelled system (4 in the paper); the graph is one */
	bool merged; /* one switch per board row/column where all its networks fit (App. A-C1) */
	uint64_t board_rate; /* bit/s, on-board (PCB) links, paper units */
	uint64_t net_rate; /* bit/s, accelerator-switch and switch-switch links, paper units */
	uint32_t ocs; /* OCSes the edge cables pass through, 0 for none (model/ocs.h): row
			 cables through the first ceil(ocs / 2), column cables the rest */
};

/* The networks of one dimension (all rows, or all columns), in one plane. */
struct gen_hxmesh_net {
	uint64_t count; /* networks: b*y row / a*x column networks, y / x when merged */
	uint64_t ports; /* endpoint ports of each: 2x (row), 2y (column), times b (a) if merged */
	bool merged; /* the flag applied: one network per board row/column */
	uint32_t levels; /* 1: a single switch; 2: a two-level fat tree */
	uint32_t leaves; /* per network (fat tree only) */
	uint32_t spines; /* per network (fat tree only) */
	uint32_t down; /* endpoint ports per leaf (fat tree only) */
	uint32_t uplinks; /* spine links per leaf (fat tree only) */
	uint64_t switches; /* in all networks of the dimension */
	uint64_t fabric; /* switch-switch cables in all networks of the dimension */
};

/* Counts per plane unless named total_; HammingMesh §III (wiring), §III-B, §III-C, App. A-C. */
struct gen_hxmesh_counts {
	uint64_t boards;
	uint64_t accels; /* a*b*x*y, shared by all planes */
	uint64_t board_links; /* PCB links: x*y*(b(a-1) + a(b-1)) */
	struct gen_hxmesh_net row, col;
	uint64_t switches; /* row + column */
	uint64_t edge_cables; /* accelerator-switch: 2xy(a+b) */
	uint64_t fabric_cables; /* switch-switch, inside fat trees */
	uint64_t cables; /* edge + fabric (PCB links are traces, not cables) */
	uint64_t dac, aoc; /* §III-D cost rule: row edge cables DAC; column edge and fabric AoC */
	uint64_t switch_ports; /* switch ports in use */
	uint32_t accel_ports; /* network ports per accelerator: 4 (E, W, N, S) */
	uint32_t diameter; /* cables, §III-B (separate networks; merged ones can be shorter) */
	uint64_t total_switches, total_cables, total_dac, total_aoc, total_switch_ports;
	uint32_t total_accel_ports; /* per accelerator, all planes: 4 * planes */
	uint64_t total_cost_usd; /* §III-C prices: switches, DAC and AoC of all planes */
};

/* Fills *out for p without building anything. Returns 0, -EINVAL for invalid parameters or
 * -E2BIG when a dimension network would need a third fat-tree level. */
int gen_hxmesh_counts(const struct gen_hxmesh_params *p, struct gen_hxmesh_counts *out);

/* Whether gen_hxmesh would build p: 0, or its -EINVAL / -E2BIG with the same message. */
int gen_hxmesh_validate(const struct gen_hxmesh_params *p, struct diag *d);

/* Builds one plane into the empty t:
 * - accelerators first, "a<gx>-<gy>" (global column, row), endpoint ((by*x + bx)*b + j)*a + i
 *   for board (bx, by) and on-board position (i, j); group = board; coord = {bx, by, i, j};
 *   they forward (§III). j = 0 is the North edge, i = 0 the West edge.
 * - PCB links between on-board neighbours (tier direct, board_rate, no wrap-around);
 * - row networks "r<gy>" (merged "rb<by>"), column networks "c<gx>" ("cb<bx>"); a fat tree's
 *   leaves and spines append "l<k>" / "s<k>". The W and E ports of accelerator row gy of every
 *   board in the board row go to row network gy, N and S of column gx to column network gx,
 *   ordered W0 E0 W1 E1 ..., filling leaf after leaf (tier edge, net_rate);
 * - leaf-spine links (tier fabric, net_rate), uplink u of a leaf to spine u mod spines.
 * Switches have role row/col and coord = {network, level (0 switch or leaf, 1 spine), position}.
 * link.dim is 0 for West-East links (on board and row networks), 1 for North-South.
 * Rates are multiplied by rate_scale. Returns 0 or -errno with a message. */
int gen_hxmesh(struct topo *t, const struct gen_hxmesh_params *p, double rate_scale,
	       struct diag *d);

#endif
