// SPDX-License-Identifier: MIT
/* OCS layers (model/ocs.h): the generator's counts and names, the default circuits, the
 * logical view routing sees, addresses, and rewiring: what changes, what is refused, busy
 * circuits, and leaf-leaf circuits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/gen.h"
#include "model/addr.h"
#include "model/ocs.h"
#include "model/paths.h"
#include "policy/reroute.h"
#include "policy/route.h"
#include "tests/unit/topo_check.h"

struct t_world {
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
};

static void t_scn(struct scenario *s, uint32_t leaves, uint32_t spines, uint32_t k, uint32_t ports)
{
	scn_init(s);
	strcpy(s->name, "t");
	s->topology.ls = (struct scn_leafspine){.hosts_per_leaf = 2,
						.leaves = leaves,
						.spines = spines,
						.links_per_pair = 1,
						.host_rate = 1000000000ULL,
						.fabric_rate = 1000000000ULL,
						.gpus_per_server = 1};
	s->topology.ls.ocs.count = k;
	s->topology.ls.ocs.spine_ports = ports;
}

static void t_plan(struct t_world *w)
{
	struct diag d = {0};

	assert_int_equal(paths_compute(w->t, &w->p), 0);
	assert_int_equal(route_plan_build(w->t, &w->p, &w->plan, &d), 0);
}

static void t_load(struct t_world *w, uint32_t leaves, uint32_t spines, uint32_t k, uint32_t ports)
{
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	t_scn(&w->s, leaves, spines, k, ports);
	assert_int_equal(topo_build(&w->s, &w->t, &d), 0);
	t_plan(w);
}

static void t_replan(struct t_world *w)
{
	route_plan_done(&w->plan);
	paths_done(&w->p);
	t_plan(w);
}

static void t_free(struct t_world *w)
{
	route_plan_done(&w->plan);
	paths_done(&w->p);
	topo_free(w->t);
	scn_done(&w->s);
}

static uint32_t t_node(const struct topo *t, const char *name)
{
	int n = topo_node_find(t, name);

	assert_true(n >= 0);
	return (uint32_t)n;
}

/* The endpoint index of node `name`. */
static uint32_t t_ep(const struct topo *t, const char *name)
{
	uint32_t n = t_node(t, name), i;

	for (i = 0; i < t->endpoints.n; i++)
		if (t->endpoints.v[i] == n)
			return i;
	fail_msg("%s is not an endpoint", name);
	return 0;
}

/* The node at the logical far end of node n's port named ifname. */
static const char *t_far(const struct topo *t, const char *n, const char *ifname)
{
	uint32_t id = t_node(t, n), i;

	for (i = 0; i < t->nodes.v[id].nports; i++) {
		uint32_t p = topo_node_port(t, id, i);

		if (!strcmp(t->ports.v[p].ifname, ifname))
			return t->links.v[t->ports.v[p].link].up
				       ? t->nodes.v[topo_port_peer_node(t, p)].name
				       : "dark";
	}
	fail_msg("%s has no port %s", n, ifname);
	return NULL;
}

static void test_counts_and_names(void **state)
{
	struct t_world w;
	struct topo *p;
	uint32_t o;

	(void)state;
	t_load(&w, 4, 2, 2, 0); /* K >= S: P = ceil(4 / 2) = 2 */
	p = w.t->phys;
	assert_non_null(p);
	assert_int_equal(p->nodes.n, 8 + 4 + 2 + 2);
	assert_int_equal(p->links.n, 8 + 2 * (4 + 2 * 2));
	assert_int_equal(w.t->nodes.n, p->nodes.n);
	assert_int_equal(w.t->ports.n, p->ports.n);
	o = t_node(p, "o1");
	assert_int_equal(p->nodes.v[o].kind, TOPO_OCS);
	assert_false(p->nodes.v[o].forwards);
	assert_int_equal(p->nodes.v[o].nports, 4 + 2 * 2);
	assert_int_equal(p->nodes.v[t_node(p, "s1")].nports, 2 * 2);
	assert_int_equal(p->nodes.v[t_node(p, "l3")].nports, 2 + 2);
	t_topo_check_names(p);
	/* cables are shaped into the OCS, not out of it */
	assert_true(p->links.v[8].rate[0] == 1000000000ULL);
	assert_true(p->links.v[8].rate[1] == 0);
	assert_int_equal(p->links.v[8].tier, TOPO_TIER_OCS);
	t_free(&w);
	t_load(&w, 2, 2, 1, 0); /* K < S: each OCS takes every leaf to one spine, P = leaves */
	assert_int_equal(w.t->phys->nodes.v[t_node(w.t, "s1")].nports, 2);
	t_free(&w);
}

/* Through an OCS no port has a fixed neighbour: none in the logical view (its peers change
 * with the circuits), and in the physical one only ports whose cable ends at a router. */
static void test_no_fixed_neighbour(void **state)
{
	struct t_world w;
	const struct topo *p;
	uint32_t i, q, addr, fixed = 0;
	uint8_t mac[6];

	(void)state;
	t_load(&w, 4, 2, 2, 0);
	p = w.t->phys;
	for (i = 0; i < w.t->ports.n; i++)
		assert_int_equal(addr_neigh(w.t, i, &addr, mac), -ENOENT);
	for (i = 0; i < p->ports.n; i++) {
		q = topo_port_peer(p, i);
		if (p->nodes.v[p->ports.v[i].node].kind == TOPO_OCS ||
		    p->nodes.v[p->ports.v[q].node].kind == TOPO_OCS) {
			assert_int_equal(addr_neigh(p, i, &addr, mac), -ENOENT);
			continue;
		}
		assert_int_equal(addr_neigh(p, i, &addr, mac), 0);
		assert_int_equal(addr, p->ports.v[q].addr);
		fixed++;
	}
	assert_int_equal(fixed, 2 * 8); /* the hosts' cables, both ends */
	t_free(&w);
}

static void test_default_is_leafspine(void **state)
{
	uint32_t l, s, i, seen[4][2];
	char ln[8];
	struct t_world w;

	(void)state;
	t_load(&w, 4, 2, 2, 0);
	memset(seen, 0, sizeof(seen));
	for (l = 0; l < 4; l++) {
		snprintf(ln, sizeof(ln), "l%u", l);
		for (i = 0; i < 2; i++) {
			const char *far = t_far(w.t, ln, i ? "o1" : "o0");

			assert_true(far[0] == 's');
			s = (uint32_t)(far[1] - '0');
			seen[l][s]++;
		}
	}
	for (l = 0; l < 4; l++)
		assert_true(seen[l][0] == 1 && seen[l][1] == 1);
	t_topo_check_paths(w.t, &w.p);
	/* every host reaches every other host through two spines */
	assert_int_equal(paths_dist(&w.p, t_node(w.t, "h0"), w.t->nodes.v[t_node(w.t, "h7")].ep),
			 4);
	t_free(&w);
}

static void test_addresses_and_gateways(void **state)
{
	uint32_t l0 = 0, i, port;
	struct t_world w;

	(void)state;
	t_load(&w, 2, 2, 2, 0);
	for (i = 0; i < w.t->ports.n; i++) {
		const struct topo_port *pt = &w.t->ports.v[i];

		if (w.t->nodes.v[pt->node].kind == TOPO_OCS)
			assert_true(pt->addr == 0 && pt->plen == 0);
	}
	l0 = t_node(w.t, "l0");
	for (i = 0; i < w.t->nodes.v[l0].nports; i++) {
		port = topo_node_port(w.t, l0, i);
		if (!strcmp(w.t->ports.v[port].ifname, "o0")) {
			assert_int_equal(w.t->ports.v[port].plen, 32);
			/* the routing plan's gateway is the spine's port, through the circuit */
			assert_int_equal(w.t->nodes.v[topo_port_peer_node(w.t, port)].role,
					 TOPO_ROLE_SPINE);
			assert_int_equal(w.t->ports.v[topo_port_peer(w.t, port)].plen, 32);
		}
	}
	t_free(&w);
}

static int t_rewire(struct t_world *w, const char *const (*c)[3], size_t n,
		    const struct ocs_busy *busy, struct diag *d)
{
	struct ocs_change ch[8];
	uint32_t *xc = malloc(w->t->ports.n * sizeof(*xc));
	struct topo *l;
	size_t i;
	int r;

	assert_non_null(xc);
	for (i = 0; i < n; i++) { /* "-s1": tear down the circuit to s1 */
		bool off = c[i][2][0] == '-';

		ch[i] = (struct ocs_change){t_node(w->t, c[i][0]), t_node(w->t, c[i][1]),
					    t_node(w->t, c[i][2] + off), off};
	}
	ocs_circuits_of(w->t, xc);
	r = ocs_rewire(w->t->phys, xc, ch, n, busy, false, d);
	if (!r) {
		l = ocs_apply(w->t->phys, xc);
		assert_non_null(l);
		topo_free(w->t);
		w->t = l;
		t_replan(w);
	}
	free(xc);
	return r;
}

/* Acceptance 4's shape: two leaves on s0 through one OCS, then both moved to s1. */
static void test_rewire_to_other_spine(void **state)
{
	static const char *const to_s1[][3] = {{"o0", "l0", "s1"}, {"o0", "l1", "s1"}};
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_load(&w, 2, 2, 1, 2);
	assert_string_equal(t_far(w.t, "l0", "o0"), "s0");
	assert_string_equal(t_far(w.t, "l1", "o0"), "s0");
	assert_string_equal(t_far(w.t, "s1", "o0.0"), "dark");
	assert_int_equal(t_rewire(&w, to_s1, 2, NULL, &d), 0);
	assert_string_equal(t_far(w.t, "l0", "o0"), "s1");
	assert_string_equal(t_far(w.t, "l1", "o0"), "s1");
	assert_string_equal(t_far(w.t, "s1", "o0.0"), "l0");
	assert_string_equal(t_far(w.t, "s1", "o0.1"), "l1");
	assert_string_equal(t_far(w.t, "s0", "o0.0"), "dark");
	t_topo_check_paths(w.t, &w.p);
	t_free(&w);
}

static void test_rewire_refused(void **state)
{
	static const char *const spines[][3] = {{"o0", "s0", "s1"}};
	static const char *const twice[][3] = {{"o0", "l0", "s1"}, {"o0", "l0", "s0"}};
	static const char *const none[][3] = {{"o0", "l0", "-s1"}};
	static const char *const host[][3] = {{"o0", "h0", "s1"}};
	static const char *const full[][3] = {
		{"o0", "l0", "s1"}, {"o0", "l1", "s1"}, {"o0", "l2", "s1"}};
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_load(&w, 3, 2, 1, 0); /* P = 3 */
	assert_int_equal(t_rewire(&w, spines, 1, NULL, &d), -EINVAL);
	assert_string_equal(d.msg, "s0-s1: a circuit joins a leaf to a spine or to another leaf");
	diag_clear(&d);
	assert_int_equal(t_rewire(&w, twice, 2, NULL, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "l0 has no free port on o0"));
	diag_clear(&d);
	assert_int_equal(t_rewire(&w, host, 1, NULL, &d), -EINVAL);
	assert_string_equal(d.msg, "h0 is not cabled to o0");
	diag_clear(&d);
	assert_int_equal(t_rewire(&w, none, 1, NULL, &d), -EINVAL);
	assert_string_equal(d.msg, "no circuit l0-s1 on o0 to tear down");
	diag_clear(&d);
	assert_int_equal(t_rewire(&w, full, 3, NULL, &d), 0);
	t_free(&w);
	t_load(&w, 3, 2, 1, 2); /* two ports per spine: the third leaf finds none free on s1 */
	assert_int_equal(t_rewire(&w, full, 3, NULL, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "s1 has no free port on o0"));
	t_free(&w);
}

/* A running job's circuits are busy: tearing one down is refused, naming the job; the
 * others may change. */
static void test_busy(void **state)
{
	static const char *const move_l0[][3] = {{"o0", "l0", "s1"}};
	static const char *const move_l2[][3] = {{"o0", "l2", "s1"}};
	uint32_t *job1, eps[2];
	struct diag d = {0};
	struct ocs_busy busy;
	struct t_world w;

	(void)state;
	t_load(&w, 3, 2, 1, 3);
	job1 = calloc(w.t->links.n, sizeof(*job1));
	assert_non_null(job1);
	eps[0] = w.t->nodes.v[t_node(w.t, "h0")].ep; /* l0 */
	eps[1] = w.t->nodes.v[t_node(w.t, "h2")].ep; /* l1 */
	assert_int_equal(route_links_used(w.t, &w.p, eps, 2, 8, job1), 0);
	busy.job1 = job1;
	assert_int_equal(t_rewire(&w, move_l0, 1, &busy, &d), -EBUSY);
	assert_string_equal(d.msg, "circuit o0:l0-s0 carries job 7's traffic: only idle "
				   "circuits are rewired (vClos §7)");
	diag_clear(&d);
	assert_int_equal(t_rewire(&w, move_l2, 1, &busy, &d), 0);
	assert_string_equal(t_far(w.t, "l2", "o0"), "s1");
	free(job1);
	t_free(&w);
}

/* vClos §7.2: two leaves joined directly, without a spine; routing sees a leaf-leaf link. */
static void test_leaf_leaf(void **state)
{
	static const char *const direct[][3] = {{"o1", "l0", "l1"}};
	uint32_t h0, h2;
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_load(&w, 2, 1, 2, 0);
	h0 = t_node(w.t, "h0");
	h2 = w.t->nodes.v[t_node(w.t, "h2")].ep;
	assert_int_equal(paths_dist(&w.p, h0, h2), 4);
	assert_int_equal(t_rewire(&w, direct, 1, NULL, &d), 0);
	assert_string_equal(t_far(w.t, "l0", "o1"), "l1");
	assert_int_equal(paths_dist(&w.p, h0, h2), 3);
	assert_int_equal(
		w.t->links.v[w.t->ports.v[topo_node_port(w.t, t_node(w.t, "l0"), 3)].link].tier,
		TOPO_TIER_OCS);
	t_free(&w);
}

static void test_scenario_circuits(void **state)
{
	struct scn_ocs_circuit c[2] = {{"o0", "l0", "s1", 7}, {"o0", "l0", "s0", 8}};
	struct scenario s;
	struct topo *t = NULL;
	struct diag d = {0};

	(void)state;
	t_scn(&s, 2, 2, 1, 2);
	assert_int_equal(vec_push(&s.topology.ls.ocs.circuits, c[0]), 0);
	assert_int_equal(topo_build(&s, &t, &d), 0);
	assert_string_equal(t_far(t, "l0", "o0"), "s1");
	assert_string_equal(t_far(t, "l1", "o0"), "dark"); /* only what the list says */
	topo_free(t);
	assert_int_equal(vec_push(&s.topology.ls.ocs.circuits, c[1]), 0);
	assert_int_equal(topo_build(&s, &t, &d), -EINVAL);
	assert_string_equal(d.msg, "topology.ocs.circuits (line 8): l0's port on o0 is already "
				   "in circuit o0:l0-s1");
	diag_clear(&d);
	strcpy(s.topology.ls.ocs.circuits.v[1].b, "s9");
	assert_int_equal(topo_build(&s, &t, &d), -EINVAL);
	assert_string_equal(d.msg, "topology.ocs.circuits (line 8): no node named s9");
	diag_clear(&d);
	s.topology.ls.links_per_pair = 2;
	assert_int_equal(topo_build(&s, &t, &d), -EINVAL);
	scn_done(&s);
}

/* A 2x2 grid of 2x2 boards (16 accelerators) with k OCSes between the boards' edges and the
 * row and column networks (gen_hxmesh.h, ocs.h). */
static void t_load_hx(struct t_world *w, uint32_t k)
{
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	scn_init(&w->s);
	strcpy(w->s.name, "t");
	w->s.topology.gen = SCN_GEN_HAMMINGMESH;
	w->s.topology.hx.a = w->s.topology.hx.b = 2;
	w->s.topology.hx.x = w->s.topology.hx.y = 2;
	w->s.topology.hx.board_rate = w->s.topology.hx.net_rate = 1000000000ULL;
	w->s.topology.ls.ocs.count = k;
	assert_int_equal(topo_build(&w->s, &w->t, &d), 0);
	t_plan(w);
}

/* The default circuits rebuild the HammingMesh: every accelerator reaches every other over
 * the same number of hops as without the OCSes. Row cables go through o0, column cables
 * through o1: one port per accelerator on each. */
static void test_hxmesh_default(void **state)
{
	struct t_world w, plain;
	struct topo *p;
	uint32_t i, j, a, b, o0, o1;

	(void)state;
	t_load_hx(&w, 2);
	t_load_hx(&plain, 0);
	p = w.t->phys;
	assert_non_null(p);
	assert_null(plain.t->phys);
	/* 16 accelerators, 4 row and 4 column switches, 2 OCSes; 16 PCB links and the 32 edge
	 * cables doubled */
	assert_int_equal(p->nodes.n, 16 + 8 + 2);
	assert_int_equal(p->links.n, 16 + 2 * 32);
	o0 = t_node(p, "o0");
	o1 = t_node(p, "o1");
	assert_int_equal(p->nodes.v[o0].nports, 2 * 16);
	assert_int_equal(p->nodes.v[o1].nports, 2 * 16);
	for (i = 0; i < p->nodes.v[o0].nports; i++) {
		uint32_t q = topo_node_port(p, o0, i), r = topo_node_port(p, o1, i);

		assert_int_equal(p->links.v[p->ports.v[q].link].dim, 0);
		assert_int_equal(p->links.v[p->ports.v[r].link].dim, 1);
	}
	assert_string_equal(t_far(w.t, "a0-0", "o0"), "r0");
	assert_string_equal(t_far(w.t, "a0-0", "o1"), "c0");
	assert_string_equal(t_far(w.t, "a3-2", "o0"), "r2");
	t_topo_check_names(p);
	for (i = 0; i < w.t->endpoints.n; i++) {
		for (j = 0; j < w.t->endpoints.n; j++) {
			a = w.t->endpoints.v[i];
			b = plain.t->endpoints.v[i];
			assert_string_equal(w.t->nodes.v[a].name, plain.t->nodes.v[b].name);
			assert_int_equal(paths_dist(&w.p, a, j), paths_dist(&plain.p, b, j));
		}
	}
	t_topo_check_paths(w.t, &w.p);
	t_free(&w);
	t_free(&plain);
}

/* Rewiring a HammingMesh: two boards' West edges joined directly (an accelerator-accelerator
 * circuit) leave their row switch's ports dark; two network switches are never joined. */
static void test_hxmesh_rewire(void **state)
{
	static const char *const direct[][3] = {{"o0", "a0-0", "a2-0"}};
	static const char *const switches[][3] = {{"o0", "r0", "r1"}};
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_load_hx(&w, 2);
	assert_int_equal(t_rewire(&w, direct, 1, NULL, &d), 0);
	assert_string_equal(t_far(w.t, "a0-0", "o0"), "a2-0");
	assert_string_equal(t_far(w.t, "a2-0", "o0"), "a0-0");
	assert_string_equal(t_far(w.t, "r0", "o0.0"), "dark");
	assert_string_equal(t_far(w.t, "r0", "o0.2"), "dark");
	assert_string_equal(t_far(w.t, "r0", "o0.1"), "a1-0");
	assert_int_equal(paths_dist(&w.p, t_node(w.t, "a0-0"), t_ep(w.t, "a2-0")), 1);
	t_topo_check_paths(w.t, &w.p);
	assert_int_equal(t_rewire(&w, switches, 1, NULL, &d), -EINVAL);
	assert_string_equal(d.msg, "r0-r1: a circuit joins an accelerator to a row or column "
				   "switch or to another accelerator");
	t_free(&w);
}

/* topology.ocs.spine_ports belongs to a leaf-spine. */
static void test_hxmesh_spine_ports(void **state)
{
	struct diag d = {0};
	struct scenario s;
	struct topo *t = NULL;

	(void)state;
	scn_init(&s);
	s.topology.gen = SCN_GEN_HAMMINGMESH;
	s.topology.hx.a = s.topology.hx.b = s.topology.hx.x = s.topology.hx.y = 2;
	s.topology.hx.board_rate = s.topology.hx.net_rate = 1000000000ULL;
	s.topology.ls.ocs.count = 2;
	s.topology.ls.ocs.spine_ports = 2;
	assert_int_equal(topo_build(&s, &t, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "topology.ocs.spine_ports: only a leafspine has spines"));
	assert_null(t);
	scn_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_and_names),
		cmocka_unit_test(test_no_fixed_neighbour),
		cmocka_unit_test(test_default_is_leafspine),
		cmocka_unit_test(test_addresses_and_gateways),
		cmocka_unit_test(test_rewire_to_other_spine),
		cmocka_unit_test(test_rewire_refused),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_leaf_leaf),
		cmocka_unit_test(test_scenario_circuits),
		cmocka_unit_test(test_hxmesh_default),
		cmocka_unit_test(test_hxmesh_rewire),
		cmocka_unit_test(test_hxmesh_spine_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
