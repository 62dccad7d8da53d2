// SPDX-License-Identifier: MIT
/* Themis multidim and TACOS direct generators: Themis Table 2 and TACOS §IV-D counts, node
 * degrees and dimension tags, unwound-switch grants, and structural checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/gen_direct.h"
#include "model/gen_multidim.h"
#include "tests/unit/topo_check.h"

#define T_GBIT 1000000000ULL

/* ---- multidim ---- */

static struct gen_multidim_params t_md(uint32_t n, const enum gen_dim_type *type,
				       const uint32_t *size)
{
	struct gen_multidim_params p = {.ndims = n};
	uint32_t k;

	for (k = 0; k < n; k++)
		p.dim[k] = (struct gen_dim){
			.type = type[k], .size = size[k], .rate = (k + 1) * 600 * T_GBIT};
	return p;
}

/* Themis Table 2: 1024 NPUs, switches per dimension group, fc P-1 links per NPU. */
static void test_multidim_themis_counts(void **state)
{
	static const enum gen_dim_type sw2[] = {GEN_DIM_SWITCH, GEN_DIM_SWITCH},
				       frs[] = {GEN_DIM_FC, GEN_DIM_RING, GEN_DIM_SWITCH},
				       rfrs[] = {GEN_DIM_RING, GEN_DIM_FC, GEN_DIM_RING,
						 GEN_DIM_SWITCH};
	static const uint32_t s2[] = {16, 64}, s3[] = {8, 16, 8}, s4[] = {4, 8, 4, 8};
	struct gen_multidim_params p = t_md(2, sw2, s2);
	struct gen_multidim_counts c;

	(void)state;
	assert_int_equal(gen_multidim_counts(&p, &c), 0);
	assert_int_equal(c.nodes, 1024);
	assert_int_equal(c.switches, 64 + 16);
	assert_int_equal(c.links, 2048);
	assert_int_equal(c.degree, 2);
	p = t_md(3, frs, s3); /* 3D-FC_Ring_SW: FC of 8 has 7 links per NPU */
	assert_int_equal(gen_multidim_counts(&p, &c), 0);
	assert_int_equal(c.dim[0].degree, 7);
	assert_int_equal(c.dim[0].links, 1024 * 7 / 2);
	assert_int_equal(c.dim[1].links, 1024);
	assert_int_equal(c.dim[2].switches, 128);
	assert_true(c.forwards);
	p = t_md(4, rfrs, s4); /* 4D-Ring_FC_Ring_SW */
	assert_int_equal(gen_multidim_counts(&p, &c), 0);
	assert_int_equal(c.links, 1024 + 1024 * 7 / 2 + 1024 + 1024);
	assert_int_equal(c.switches, 128);
	assert_int_equal(c.degree, 2 + 7 + 2 + 1);
}

/* Every node's per-dimension degree, the dimension switches' ports, tags and rates. */
static void t_md_degrees(const struct topo *t, const struct gen_multidim_params *p,
			 const struct gen_multidim_counts *c)
{
	uint32_t n, k;
	size_t i;

	for (n = 0; n < t->nodes.n; n++) {
		const struct topo_node *node = &t->nodes.v[n];

		if (node->kind == TOPO_SWITCH) {
			k = (uint32_t)node->coord[0];
			assert_int_equal(node->nports, p->dim[k].size);
			assert_int_equal(t_topo_dim_degree(t, n, k), p->dim[k].size);
			continue;
		}
		assert_int_equal(node->forwards, c->forwards);
		assert_int_equal(node->nports, c->degree);
		for (k = 0; k < p->ndims; k++)
			assert_int_equal(t_topo_dim_degree(t, n, k), c->dim[k].degree);
	}
	for (i = 0; i < t->links.n; i++) {
		k = t->links.v[i].dim;
		assert_true(k < p->ndims);
		assert_int_equal(t->links.v[i].rate[0], gen_multidim_link_rate(p, k));
	}
}

static void test_multidim_shapes(void **state)
{
	static const struct {
		uint32_t n;
		enum gen_dim_type type[4];
		uint32_t size[4];
		bool forwards;
	} cfg[] = {
		{1, {GEN_DIM_SWITCH}, {8}, false},
		{1, {GEN_DIM_RING}, {8}, true},
		{1, {GEN_DIM_RING}, {3}, false},
		{1, {GEN_DIM_FC}, {6}, false},
		{2, {GEN_DIM_SWITCH, GEN_DIM_SWITCH}, {4, 4}, true},
		{2, {GEN_DIM_RING, GEN_DIM_SWITCH}, {2, 8}, true},
		{3, {GEN_DIM_SWITCH, GEN_DIM_SWITCH, GEN_DIM_SWITCH}, {4, 2, 2}, true},
		{3, {GEN_DIM_FC, GEN_DIM_RING, GEN_DIM_SWITCH}, {4, 5, 2}, true},
		{4, {GEN_DIM_RING, GEN_DIM_FC, GEN_DIM_RING, GEN_DIM_SWITCH}, {2, 3, 4, 2}, true},
		{4,
		 {GEN_DIM_SWITCH, GEN_DIM_SWITCH, GEN_DIM_FC, GEN_DIM_SWITCH},
		 {2, 2, 2, 2},
		 true},
	};
	struct gen_multidim_counts c;
	struct topo_paths paths;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct gen_multidim_params p = t_md(cfg[i].n, cfg[i].type, cfg[i].size);
		struct topo *t = topo_new();
		struct diag d = {0};
		struct t_topo_tally g;

		assert_int_equal(gen_multidim_counts(&p, &c), 0);
		assert_int_equal(c.forwards, cfg[i].forwards);
		assert_int_equal(gen_multidim(t, &p, 1.0, &d), 0);
		t_topo_check_all(t, &paths);
		t_topo_tally(t, &g);
		assert_int_equal(g.endpoints, c.nodes);
		assert_int_equal(g.switches, c.switches);
		assert_int_equal(t->links.n, c.links);
		t_md_degrees(t, &p, &c);
		paths_done(&paths);
		topo_free(t);
	}
}

/* Numbering (dimension 0 fastest), names, groups, and the per-link share of B_k. */
static void test_multidim_layout(void **state)
{
	static const enum gen_dim_type type[] = {GEN_DIM_RING, GEN_DIM_FC, GEN_DIM_SWITCH};
	static const uint32_t size[] = {4, 3, 2};
	struct gen_multidim_params p = t_md(3, type, size);
	struct topo *t = topo_new();
	struct diag d = {0};
	int n;

	(void)state;
	assert_int_equal(gen_multidim(t, &p, 0.5, &d), 0);
	n = topo_node_find(t, "n17"); /* 17 = 1 + 4 * (1 + 3 * 1) */
	assert_int_equal(n, 17);
	assert_int_equal(t->nodes.v[n].coord[0], 1);
	assert_int_equal(t->nodes.v[n].coord[1], 1);
	assert_int_equal(t->nodes.v[n].coord[2], 1);
	assert_int_equal(t->nodes.v[n].group, 4);
	assert_true(topo_node_find(t, "d2s11") >= 0);
	assert_int_equal(topo_node_find(t, "d2s12"), -ENOENT);
	/* ring: 600G over 2 links; fc: 1200G over 2 links; switch: 1800G; times 0.5 */
	assert_int_equal(t->links.v[0].rate[0], 150 * T_GBIT);
	assert_int_equal(t->links.v[t->links.n - 1].rate[0], 900 * T_GBIT);
	topo_free(t);
}

static void test_multidim_invalid(void **state)
{
	static const enum gen_dim_type type[] = {GEN_DIM_SWITCH, GEN_DIM_RING};
	static const uint32_t size[] = {4, 1};
	struct gen_multidim_params p = t_md(2, type, size);
	struct gen_multidim_counts c;
	struct topo *t = topo_new();
	struct diag d = {0};

	(void)state;
	assert_int_equal(gen_multidim(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "dimension 1 has size 1"));
	p.ndims = 5;
	diag_clear(&d);
	assert_int_equal(gen_multidim(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "5 dimensions"));
	p = t_md(2, type, (const uint32_t[]){1024, 1024});
	diag_clear(&d);
	assert_int_equal(gen_multidim_counts(&p, &c), 0);
	assert_int_equal(gen_multidim(t, &p, 1.0, &d), -E2BIG);
	assert_int_equal(t->nodes.n, 0);
	topo_free(t);
}

/* ---- direct (TACOS) ---- */

static struct gen_direct_params t_dx(enum gen_direct_kind kind, uint32_t x, uint32_t y, uint32_t z)
{
	return (struct gen_direct_params){
		.kind = kind, .size = {x, y, z}, .rate = 100 * 8 * T_GBIT};
}

static struct gen_direct_params t_unwound(uint32_t n, const uint32_t *size, const uint32_t *deg,
					  bool bidir)
{
	struct gen_direct_params p = {.kind = GEN_DIRECT_UNWOUND, .ndims = n};
	uint32_t k;

	for (k = 0; k < n; k++)
		p.dim[k] = (struct gen_unwind_dim){
			.size = size[k], .degree = deg[k], .bidir = bidir, .rate = 840 * T_GBIT};
	return p;
}

/* Node degrees within [min, max] (equal for regular kinds), per-axis link counts, tags. */
static void t_dx_degrees(const struct topo *t, const struct gen_direct_counts *c, bool regular)
{
	uint64_t per_axis[GEN_DIRECT_AXES] = {0};
	uint32_t n, k;
	size_t i;

	for (n = 0; n < t->nodes.n; n++) {
		assert_true(t->nodes.v[n].forwards);
		assert_true(t->nodes.v[n].nports >= c->degree_min);
		assert_true(t->nodes.v[n].nports <= c->degree_max);
		if (regular)
			assert_int_equal(t->nodes.v[n].nports, c->degree_max);
	}
	for (i = 0; i < t->links.n; i++) {
		assert_true(t->links.v[i].dim < c->axes);
		per_axis[t->links.v[i].dim]++;
	}
	for (k = 0; k < c->axes; k++)
		assert_int_equal(per_axis[k], c->axis_links[k]);
}

static void test_direct_shapes(void **state)
{
	static const uint32_t ss[] = {8, 4}, ss_deg[] = {0, 1}, one[] = {6}, d2[] = {2}, u5[] = {5},
			      d3[] = {3}, u34[] = {3, 4}, d11[] = {1, 1};
	const struct {
		struct gen_direct_params p;
		uint64_t nodes, links;
		uint32_t dmin, dmax;
	} cfg[] = {
		{t_dx(GEN_DIRECT_MESH2D, 5, 5, 0), 25, 40, 2, 4},
		{t_dx(GEN_DIRECT_MESH2D, 3, 1, 0), 3, 2, 1, 2},
		{t_dx(GEN_DIRECT_TORUS2D, 4, 4, 0), 16, 32, 4, 4},
		{t_dx(GEN_DIRECT_TORUS2D, 2, 3, 0), 6, 3 + 6, 3, 3},
		{t_dx(GEN_DIRECT_TORUS3D, 4, 4, 4), 64, 192, 6, 6},
		{t_dx(GEN_DIRECT_TORUS3D, 3, 2, 2), 12, 12 + 6 + 6, 4, 4},
		{t_dx(GEN_DIRECT_RING, 8, 0, 0), 8, 8, 2, 2},
		{t_dx(GEN_DIRECT_RING, 2, 0, 0), 2, 1, 1, 1},
		{t_dx(GEN_DIRECT_HYPERCUBE, 4, 0, 0), 16, 32, 4, 4},
		{t_dx(GEN_DIRECT_HYPERCUBE, 1, 0, 0), 2, 1, 1, 1},
		/* Switch_Switch 8x4: degree-max inside, degree-1 across (TACOS §VII-B) */
		{t_unwound(2, ss, ss_deg, false), 32, 4 * 28 + 8 * 4, 9, 9},
		{t_unwound(1, one, d2, false), 6, 12, 4, 4},
		{t_unwound(1, u5, d3, false), 5, 10, 4, 4},
		{t_unwound(1, one, d3, true), 6, 15, 5, 5},
		{t_unwound(2, u34, d11, true), 12, 12 + 12, 4, 4},
	};
	struct gen_direct_counts c;
	struct topo_paths paths;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct topo *t = topo_new();
		struct diag d = {0};

		assert_int_equal(gen_direct_counts(&cfg[i].p, &c), 0);
		assert_int_equal(c.nodes, cfg[i].nodes);
		assert_int_equal(c.links, cfg[i].links);
		assert_int_equal(c.degree_min, cfg[i].dmin);
		assert_int_equal(c.degree_max, cfg[i].dmax);
		assert_int_equal(gen_direct(t, &cfg[i].p, 1.0, &d), 0);
		assert_int_equal(t->nodes.n, c.nodes);
		assert_int_equal(t->links.n, c.links);
		t_topo_check_all(t, &paths);
		t_dx_degrees(t, &c, cfg[i].p.kind != GEN_DIRECT_MESH2D);
		assert_int_equal(t_topo_diameter(t, &paths), c.diameter);
		paths_done(&paths);
		topo_free(t);
	}
}

/* TACOS §IV-D: n -> n+1..n+d (mod N) at 1/d of the port; the reverse only if granted. */
static void test_direct_unwinding(void **state)
{
	static const uint32_t four[] = {4}, deg1[] = {1}, max[] = {0}, ss[] = {8, 4},
			      ss_deg[] = {0, 1};
	struct gen_direct_params p = t_unwound(1, four, deg1, false);
	struct topo *t = topo_new();
	struct diag d = {0};
	size_t i;

	(void)state;
	assert_true(gen_direct_granted(&p, 0, 1));
	assert_true(gen_direct_granted(&p, 3, 0));
	assert_false(gen_direct_granted(&p, 1, 0));
	assert_false(gen_direct_granted(&p, 0, 2));
	assert_int_equal(gen_direct(t, &p, 1.0, &d), 0);
	for (i = 0; i < t->links.n; i++) { /* port[0] is the granted sender, at the full rate */
		const struct topo_link *l = &t->links.v[i];

		assert_true(gen_direct_granted(&p, t->ports.v[l->port[0]].node,
					       t->ports.v[l->port[1]].node));
		assert_int_equal(l->rate[0], 840 * T_GBIT);
	}
	topo_free(t);
	p.dim[0].bidir = true; /* both neighbours, half the port each */
	assert_true(gen_direct_granted(&p, 1, 0));
	assert_false(gen_direct_granted(&p, 0, 2));
	p = t_unwound(1, four, max, false); /* degree-max: full mesh at port/3 */
	assert_true(gen_direct_granted(&p, 2, 1));
	t = topo_new();
	assert_int_equal(gen_direct(t, &p, 1.0, &d), 0);
	assert_int_equal(t->links.v[0].rate[0], 280 * T_GBIT);
	topo_free(t);
	p = t_unwound(2, ss, ss_deg, false); /* across nodes: same NPU index, ring of 4 */
	assert_true(gen_direct_granted(&p, 5, 13));
	assert_false(gen_direct_granted(&p, 13, 5));
	assert_true(gen_direct_granted(&p, 29, 5));
	assert_false(gen_direct_granted(&p, 5, 14));
}

static void test_direct_layout(void **state)
{
	struct gen_direct_params p = t_dx(GEN_DIRECT_TORUS3D, 4, 3, 2);
	struct topo *t = topo_new();
	struct diag d = {0};
	int n;

	(void)state;
	assert_int_equal(gen_direct(t, &p, 0.001, &d), 0);
	n = topo_node_find(t, "n19"); /* 19 = 3 + 4 * (1 + 3 * 1) */
	assert_int_equal(t->nodes.v[n].coord[0], 3);
	assert_int_equal(t->nodes.v[n].coord[1], 1);
	assert_int_equal(t->nodes.v[n].coord[2], 1);
	assert_int_equal(t->nodes.v[n].group, 4);
	assert_int_equal(t->links.v[0].rate[1], 800000000);
	topo_free(t);
}

/* Failed NPUs (TACOS Table III): a 4x4 mesh without NPUs 6 and 8 keeps the other names and
 * coordinates, loses their 4 + 3 links, numbers the endpoints in id order without them;
 * bad lists are refused. */
static void test_direct_failed(void **state)
{
	struct gen_direct_params p = t_dx(GEN_DIRECT_MESH2D, 4, 4, 0);
	struct topo *t = topo_new();
	struct diag d = {0};
	int n;

	(void)state;
	p.nfailed = 2;
	p.failed[0] = 6, p.failed[1] = 8;
	assert_int_equal(gen_direct(t, &p, 1.0, &d), 0);
	assert_int_equal(topo_finalize(t, &d), 0);
	assert_int_equal(t->nodes.n, 14);
	assert_int_equal(t->links.n, 24 - 4 - 3); /* n6 inside, n8 on the edge */
	assert_int_equal(topo_node_find(t, "n6"), -ENOENT);
	n = topo_node_find(t, "n9");
	assert_true(n >= 0);
	assert_int_equal(t->nodes.v[n].index, 9);
	assert_int_equal(t->nodes.v[n].ep, 7); /* n0..n5, n7: seven before it */
	assert_int_equal(t->nodes.v[n].coord[0], 1);
	assert_int_equal(t->nodes.v[n].coord[1], 2);
	topo_free(t);
	t = topo_new();
	p.failed[1] = 16;
	assert_int_equal(gen_direct(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "failed NPU 16, but the NPUs are 0..15"));
	p.failed[1] = 6;
	diag_clear(&d);
	assert_int_equal(gen_direct(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "NPU 6 failed twice"));
	topo_free(t);
}

static void test_direct_invalid(void **state)
{
	static const uint32_t four[] = {4}, deg4[] = {4};
	struct gen_direct_params p = t_dx(GEN_DIRECT_RING, 1, 0, 0);
	struct gen_direct_counts c;
	struct topo *t = topo_new();
	struct diag d = {0};

	(void)state;
	assert_int_equal(gen_direct(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "ring needs at least 2"));
	p = t_dx(GEN_DIRECT_HYPERCUBE, 17, 0, 0);
	diag_clear(&d);
	assert_int_equal(gen_direct(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "hypercube"));
	p = t_unwound(1, four, deg4, false);
	diag_clear(&d);
	assert_int_equal(gen_direct(t, &p, 1.0, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "degree 4, not < 4"));
	p = t_dx(GEN_DIRECT_TORUS3D, 64, 64, 32); /* 131072 nodes: counts only */
	diag_clear(&d);
	assert_int_equal(gen_direct_counts(&p, &c), 0);
	assert_int_equal(c.links, 3 * 131072);
	assert_int_equal(gen_direct(t, &p, 1.0, &d), -E2BIG);
	assert_int_equal(t->nodes.n, 0);
	topo_free(t);
}

/* The largest topologies the testbed addresses: names fit IFNAMSIZ, counts still hold. */
static void test_largest(void **state)
{
	static const enum gen_dim_type sw4[] = {GEN_DIM_SWITCH, GEN_DIM_SWITCH, GEN_DIM_SWITCH,
						GEN_DIM_SWITCH};
	static const uint32_t s4[] = {16, 16, 16, 16};
	struct gen_multidim_params mp = t_md(4, sw4, s4);
	struct gen_direct_params dp = t_dx(GEN_DIRECT_HYPERCUBE, 16, 0, 0);
	struct topo *t = topo_new(), *u = topo_new();
	struct diag d = {0};

	(void)state;
	assert_int_equal(gen_multidim(t, &mp, 1.0, &d), 0);
	assert_int_equal(topo_finalize(t, &d), 0);
	t_topo_check_names(t);
	assert_int_equal(t->nodes.n, 65536 + 4 * 4096);
	assert_int_equal(t->links.n, 4 * 65536);
	assert_int_equal(gen_direct(u, &dp, 1.0, &d), 0);
	assert_int_equal(topo_finalize(u, &d), 0);
	t_topo_check_names(u);
	assert_int_equal(u->links.n, 16 * 32768);
	topo_free(t);
	topo_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multidim_themis_counts),
		cmocka_unit_test(test_multidim_shapes),
		cmocka_unit_test(test_multidim_layout),
		cmocka_unit_test(test_multidim_invalid),
		cmocka_unit_test(test_direct_shapes),
		cmocka_unit_test(test_direct_unwinding),
		cmocka_unit_test(test_direct_layout),
		cmocka_unit_test(test_direct_invalid),
		cmocka_unit_test(test_direct_failed),
		cmocka_unit_test(test_largest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
