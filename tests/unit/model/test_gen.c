// SPDX-License-Identifier: MIT
/* HammingMesh generator: the paper's counts (Table II, Appendix A-C) and our per-plane wiring
 * table from the counting functions and from built graphs, the §III-B diameter against BFS, and
 * structural checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/gen_hxmesh.h"
#include "tests/unit/topo_check.h"

#define T_GBIT 1000000000ULL

/* An a x b board in an x x y grid, 400 Gb/s links, four planes (HammingMesh §III). */
static struct gen_hxmesh_params t_hx4(uint32_t a, uint32_t b, uint32_t x, uint32_t y)
{
	struct gen_hxmesh_params p = {.a = a, .b = b, .x = x, .y = y, .radix = 64, .taper = 1};

	p.planes = 4;
	p.board_rate = p.net_rate = 400 * T_GBIT;
	return p;
}

static struct gen_hxmesh_params t_hx(uint32_t ab, uint32_t xy, uint32_t radix, bool merged)
{
	struct gen_hxmesh_params p = t_hx4(ab, ab, xy, xy);

	p.radix = radix;
	p.merged = merged;
	return p;
}

/* HammingMesh Appendix A-C and Table II; large Hx1Mesh at 3,072 switches a plane, the count that
 * reproduces Table II's cost (the appendix's total of 24,576 does not). */
static void test_hxmesh_paper_counts(void **state)
{
	static const struct {
		uint32_t ab, xy;
		uint64_t sw, dac, aoc, total_sw, cost;
		uint32_t diam, table, unit; /* Table II cost: table * unit US$, as printed */
	} rows[] = {
		{2, 16, 32, 1024, 1024, 128, 5411840, 4, 54, 100000}, /* small Hx2Mesh */
		{4, 8, 16, 512, 512, 64, 2705920, 8, 27, 100000}, /* small Hx4Mesh */
		{1, 32, 64, 2048, 2048, 256, 10823680, 4, 108, 100000}, /* small HyperX */
		{2, 64, 1536, 16384, 49152, 6144, 224116736, 8, 224, 1000000}, /* large Hx2 */
		{4, 32, 256, 8192, 8192, 1024, 43294720, 8, 433, 100000}, /* large Hx4 */
		{1, 128, 3072, 32768, 98304, 12288, 448233472, 8, 448, 1000000}, /* large Hx1 */
	};
	struct gen_hxmesh_counts c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct gen_hxmesh_params p = t_hx(rows[i].ab, rows[i].xy, 64, true);

		assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
		assert_int_equal(c.switches, rows[i].sw);
		assert_int_equal(c.dac, rows[i].dac);
		assert_int_equal(c.aoc, rows[i].aoc);
		assert_int_equal(c.total_switches, rows[i].total_sw);
		assert_int_equal(c.total_cost_usd, rows[i].cost);
		assert_int_equal((c.total_cost_usd + rows[i].unit / 2) / rows[i].unit,
				 rows[i].table);
		assert_int_equal(c.diameter, rows[i].diam);
		/* "16 400 Gb/s off-chip network links" */
		assert_int_equal(c.total_accel_ports, 16);
	}
}

/* The appendix's words on the large designs' trees and per-dimension cables. */
static void test_hxmesh_paper_trees(void **state)
{
	struct gen_hxmesh_params p = t_hx(2, 64, 64, true);
	struct gen_hxmesh_counts c;

	(void)state;
	assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
	/* "fat trees of size 128 ... four switches in the first layer and two in the second" */
	assert_int_equal(c.row.ports, 128);
	assert_int_equal(c.row.leaves, 4);
	assert_int_equal(c.row.spines, 2);
	assert_int_equal(c.row.switches, 768); /* "2*64*6=768 switches" */
	assert_int_equal(c.accels, 16384);
	assert_int_equal(c.row.count * c.row.ports, 16384); /* "2*64*128=16,384" DAC */
	p = t_hx(1, 128, 64, true);
	assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
	/* "fat trees of size 256 ... eight switches in the first layer and four in the second" */
	assert_int_equal(c.row.leaves, 8);
	assert_int_equal(c.row.spines, 4);
	p = t_hx(4, 32, 64, true);
	assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
	assert_false(c.row.merged); /* "4 switches per board per direction" */
	assert_int_equal(c.row.switches, 32 * 4);
}

/* Our per-plane wiring table at the paper's small designs and at emulated sizes: networks, ports
 * per switch, PCB and edge links. */
static void test_hxmesh_wiring_table(void **state)
{
	static const struct {
		uint32_t ab, xy;
		bool merged;
		uint64_t accels, sw, sw_ports, pcb, edge;
	} rows[] = {
		{2, 16, false, 1024, 64, 32, 1024, 2048}, {2, 16, true, 1024, 32, 64, 1024, 2048},
		{4, 8, false, 1024, 64, 16, 1536, 1024},  {4, 8, true, 1024, 16, 64, 1536, 1024},
		{2, 2, false, 16, 8, 4, 16, 32},	  {2, 2, true, 16, 4, 8, 16, 32},
		{2, 4, false, 64, 16, 8, 64, 128},	  {2, 4, true, 64, 8, 16, 64, 128},
		{4, 2, false, 64, 16, 4, 96, 64},	  {4, 2, true, 64, 4, 16, 96, 64},
		{1, 8, false, 64, 16, 16, 0, 256},
	};
	struct gen_hxmesh_counts c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct gen_hxmesh_params p = t_hx(rows[i].ab, rows[i].xy, 64, rows[i].merged);

		assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
		assert_int_equal(c.accels, rows[i].accels);
		assert_int_equal(c.switches, rows[i].sw);
		assert_int_equal(c.row.ports, rows[i].sw_ports);
		assert_int_equal(c.col.ports, rows[i].sw_ports);
		assert_int_equal(c.board_links, rows[i].pcb);
		assert_int_equal(c.edge_cables, rows[i].edge);
		assert_int_equal(c.fabric_cables, 0);
	}
}

/* Builds p and checks the graph against the counting functions; finalizes t. */
static struct topo *t_hx_build(const struct gen_hxmesh_params *p, struct gen_hxmesh_counts *c)
{
	struct topo *t = topo_new();
	struct diag d = {0};
	struct t_topo_tally g;

	assert_non_null(t);
	assert_int_equal(gen_hxmesh_counts(p, c), 0);
	assert_int_equal(gen_hxmesh(t, p, 1.0, &d), 0);
	assert_int_equal(topo_finalize(t, &d), 0);
	t_topo_tally(t, &g);
	assert_int_equal(g.endpoints, c->accels);
	assert_int_equal(g.switches, c->switches);
	assert_int_equal(g.tier[TOPO_TIER_DIRECT], c->board_links);
	assert_int_equal(g.tier[TOPO_TIER_EDGE], c->edge_cables);
	assert_int_equal(g.tier[TOPO_TIER_FABRIC], c->fabric_cables);
	assert_int_equal(g.sw_ports, c->switch_ports);
	assert_true(g.max_sw_ports <= p->radix);
	return t;
}

/* Each accelerator: exactly E, W, N, S (two links per dimension) and it forwards. */
static void t_hx_accels(const struct topo *t)
{
	uint32_t e;

	for (e = 0; e < t->endpoints.n; e++) {
		uint32_t n = t->endpoints.v[e];

		assert_true(t->nodes.v[n].forwards);
		assert_int_equal(t->nodes.v[n].nports, 4);
		assert_int_equal(t_topo_dim_degree(t, n, 0), 2);
		assert_int_equal(t_topo_dim_degree(t, n, 1), 2);
	}
}

/* The paper's configurations as graphs: small ones in full, large ones' shape and names. */
static void test_hxmesh_paper_graphs(void **state)
{
	static const struct {
		uint32_t ab, xy;
	} cfg[] = {{2, 16}, {4, 8}, {1, 32}, {2, 64}, {4, 32}, {1, 128}};
	struct gen_hxmesh_counts c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct gen_hxmesh_params p = t_hx(cfg[i].ab, cfg[i].xy, 64, true);
		struct topo *t = t_hx_build(&p, &c);

		t_topo_check_names(t);
		t_hx_accels(t);
		if (c.accels <= 1024)
			t_topo_check_addrs(t);
		topo_free(t);
	}
}

/* Names, numbering, groups, coordinates and scaled rates. */
static void test_hxmesh_layout(void **state)
{
	struct gen_hxmesh_params p = t_hx4(2, 2, 3, 2);
	struct gen_hxmesh_counts c;
	struct topo *t;
	size_t i;

	(void)state;
	p.radix = 4; /* rows of 6 ports: two-level trees with 4-port switches */
	p.board_rate = 800 * T_GBIT;
	t = t_hx_build(&p, &c);
	/* board (1, 1), on-board (1, 0): global column 3, row 2 */
	assert_int_equal(topo_node_find(t, "a3-2"), ((1 * 3 + 1) * 2 + 0) * 2 + 1);
	assert_true(topo_node_find(t, "r0l0") >= 0);
	assert_true(topo_node_find(t, "r3s1") >= 0);
	assert_true(topo_node_find(t, "c5") >= 0);
	assert_int_equal(t->nodes.v[topo_node_find(t, "a3-2")].group, 4);
	assert_int_equal(t->nodes.v[topo_node_find(t, "a3-2")].coord[0], 1);
	assert_int_equal(t->nodes.v[topo_node_find(t, "a3-2")].coord[3], 0);
	topo_free(t);
	t = topo_new();
	assert_int_equal(gen_hxmesh(t, &p, 1e-4, NULL), 0);
	for (i = 0; i < t->links.n; i++) {
		const struct topo_link *l = &t->links.v[i];

		assert_int_equal(l->rate[0], l->tier == TOPO_TIER_DIRECT ? 80000000 : 40000000);
		assert_int_equal(l->rate[1], l->rate[0]);
	}
	topo_free(t);
}

/* Every small HxMesh: connected, all pairs routed, addresses unique; BFS diameter = §III-B. */
static void test_hxmesh_small(void **state)
{
	static const struct {
		uint32_t a, b, x, y, radix, taper;
		bool merged;
	} cfg[] = {
		{2, 2, 2, 2, 64, 1, false}, {2, 2, 4, 4, 64, 1, false}, {4, 4, 2, 2, 64, 1, false},
		{4, 4, 3, 3, 64, 1, false}, {3, 3, 3, 2, 64, 1, false}, {3, 2, 2, 3, 64, 1, false},
		{5, 3, 2, 2, 64, 1, false}, {1, 1, 4, 4, 64, 1, false}, {2, 2, 4, 4, 4, 1, false},
		{2, 2, 4, 3, 6, 2, false},  {3, 3, 4, 4, 4, 1, false},	{1, 1, 4, 4, 4, 1, false},
		{2, 2, 4, 4, 64, 1, true},  {4, 4, 2, 2, 64, 1, true},
	};
	struct gen_hxmesh_counts c;
	struct topo_paths paths;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct gen_hxmesh_params p = t_hx4(cfg[i].a, cfg[i].b, cfg[i].x, cfg[i].y);
		struct topo *t;

		p.radix = cfg[i].radix;
		p.taper = cfg[i].taper;
		p.merged = cfg[i].merged;
		t = t_hx_build(&p, &c);
		t_hx_accels(t);
		t_topo_check_all(t, &paths);
		if (!cfg[i].merged)
			assert_int_equal(t_topo_diameter(t, &paths), c.diameter);
		else
			assert_true(t_topo_diameter(t, &paths) <= c.diameter);
		paths_done(&paths);
		topo_free(t);
	}
}

/* §III-F: tapering keeps the leaves, trades spine links; 64 ports split 32:32, 42:22, 51:13. */
static void test_hxmesh_taper(void **state)
{
	static const uint32_t down[] = {0, 32, 42, 0, 51};
	struct gen_hxmesh_params p = t_hx(2, 64, 64, false);
	struct gen_hxmesh_counts c;
	uint32_t tp;

	(void)state;
	for (tp = 1; tp <= 4; tp *= 2) {
		p.taper = tp;
		assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
		assert_int_equal(c.row.down, down[tp]);
		assert_int_equal(c.row.uplinks, 64 - down[tp]);
		assert_int_equal(c.row.leaves * c.row.uplinks * c.row.count, c.row.fabric);
	}
	p = t_hx(2, 4, 4, false);
	p.taper = 2; /* 6 ports split 4:2: two leaves, one spine */
	p.radix = 6;
	assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
	assert_int_equal(c.row.leaves, 2);
	assert_int_equal(c.row.uplinks, 2);
	assert_int_equal(c.row.spines, 1);
}

static void test_hxmesh_invalid(void **state)
{
	struct gen_hxmesh_params p = t_hx(2, 2, 64, false);
	struct gen_hxmesh_counts c;
	struct topo *t = topo_new();
	struct diag d = {0};

	(void)state;
	p.a = 0;
	assert_int_equal(gen_hxmesh(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "board 0x2"));
	p = t_hx(2, 2, 64, false);
	p.taper = 0;
	diag_clear(&d);
	assert_int_equal(gen_hxmesh(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "taper"));
	p = t_hx(1, 64, 8, false); /* 128-port rows: 32 leaves of 4 down, more than 8 */
	diag_clear(&d);
	assert_int_equal(gen_hxmesh(t, &p, 1.0, &d), -E2BIG);
	assert_non_null(strstr(d.msg, "more than two levels"));
	assert_int_equal(gen_hxmesh_counts(&p, &c), -E2BIG);
	p = t_hx(2, 256, 64, false); /* 262144 accelerators: counts only */
	diag_clear(&d);
	assert_int_equal(gen_hxmesh_counts(&p, &c), 0);
	assert_int_equal(gen_hxmesh(t, &p, 1.0, &d), -E2BIG);
	assert_non_null(strstr(d.msg, "only be counted"));
	assert_int_equal(t->nodes.n, 0);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hxmesh_paper_counts),
		cmocka_unit_test(test_hxmesh_paper_trees),
		cmocka_unit_test(test_hxmesh_wiring_table),
		cmocka_unit_test(test_hxmesh_paper_graphs),
		cmocka_unit_test(test_hxmesh_layout),
		cmocka_unit_test(test_hxmesh_small),
		cmocka_unit_test(test_hxmesh_taper),
		cmocka_unit_test(test_hxmesh_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
