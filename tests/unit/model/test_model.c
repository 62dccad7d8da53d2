// SPDX-License-Identifier: MIT
/* Model tests: leaf-spine/best generator counts, names, addressing, next-hop sets, routing
 * plan, path tracing and the jhash model. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/addr.h"
#include "model/gen.h"
#include "model/paths.h"
#include "policy/route.h"

struct t_world {
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
};

/* t_load, with routing.spray set as asked. */
static void t_load_spray(struct t_world *w, enum scn_gen gen, uint32_t hpl, uint32_t leaves,
			 uint32_t spines, uint32_t lpp, bool spray)
{
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	scn_init(&w->s);
	strcpy(w->s.name, "t");
	w->s.routing.spray = spray;
	w->s.topology.gen = gen;
	w->s.topology.ls = (struct scn_leafspine){hpl,		 leaves, spines, lpp, 1000000000ULL,
						  4000000000ULL, 1,	 0,	 {0}};
	assert_int_equal(topo_build(&w->s, &w->t, &d), 0);
	assert_int_equal(paths_compute(w->t, &w->p), 0);
	assert_int_equal(route_plan_build(w->t, &w->p, &w->plan, &d), 0);
}

static void t_load(struct t_world *w, enum scn_gen gen, uint32_t hpl, uint32_t leaves,
		   uint32_t spines, uint32_t lpp)
{
	t_load_spray(w, gen, hpl, leaves, spines, lpp, false);
}

static void t_free(struct t_world *w)
{
	route_plan_done(&w->plan);
	paths_done(&w->p);
	topo_free(w->t);
	scn_done(&w->s);
}

static void test_leafspine_counts(void **state)
{
	struct t_world w;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 4, 4, 2, 1);
	assert_int_equal(w.t->nodes.n, 16 + 4 + 2);
	assert_int_equal(topo_count_kind(w.t, TOPO_ENDPOINT), 16);
	assert_int_equal(w.t->links.n, 16 + 4 * 2);
	assert_int_equal(w.t->ports.n, 2 * w.t->links.n);
	/* host links at host_rate, fabric at fabric_rate */
	assert_true(w.t->links.v[0].rate[0] == 1000000000ULL);
	assert_true(w.t->links.v[16].rate[1] == 4000000000ULL);
	t_free(&w);

	t_load(&w, SCN_GEN_LEAFSPINE, 32, 32, 32, 1);
	assert_int_equal(w.t->nodes.n, 1024 + 64);
	assert_int_equal(w.t->links.n, 1024 + 32 * 32);
	t_free(&w);

	t_load(&w, SCN_GEN_LEAFSPINE, 2, 3, 2, 3);
	assert_int_equal(w.t->links.n, 6 + 3 * 2 * 3);
	t_free(&w);
}

static void test_best_counts(void **state)
{
	struct t_world w;

	(void)state;
	t_load(&w, SCN_GEN_BEST, 4, 4, 2, 1);
	assert_int_equal(w.t->nodes.n, 17);
	assert_int_equal(w.t->links.n, 16);
	assert_int_equal(w.plan.groups.n, 0);
	assert_int_equal(w.t->nodes.v[16].nports, 16);
	t_free(&w);
}

/* Interface names fit IFNAMSIZ, are unique per node and follow the peer's name. */
static void test_names(void **state)
{
	struct t_world w;
	size_t n;
	uint32_t i, j;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 2, 3, 2, 2);
	for (n = 0; n < w.t->nodes.n; n++) {
		const struct topo_node *node = &w.t->nodes.v[n];

		for (i = 0; i < node->nports; i++) {
			const struct topo_port *p =
				&w.t->ports.v[topo_node_port(w.t, (uint32_t)n, i)];

			assert_true(strlen(p->ifname) < TOPO_NAME_MAX);
			assert_int_equal(p->ifindex, i + 2);
			for (j = 0; j < i; j++)
				assert_string_not_equal(
					p->ifname,
					w.t->ports.v[topo_node_port(w.t, (uint32_t)n, j)].ifname);
		}
	}
	/* leaf l0: two hosts, then two links to each spine */
	n = (size_t)topo_node_find(w.t, "l0");
	assert_string_equal(w.t->ports.v[topo_node_port(w.t, (uint32_t)n, 0)].ifname, "h0");
	assert_string_equal(w.t->ports.v[topo_node_port(w.t, (uint32_t)n, 2)].ifname, "s0.0");
	assert_string_equal(w.t->ports.v[topo_node_port(w.t, (uint32_t)n, 3)].ifname, "s0.1");
	assert_string_equal(w.t->ports.v[topo_node_port(w.t, (uint32_t)n, 4)].ifname, "s1.0");
	t_free(&w);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Every address is unique, endpoints sit in aligned per-leaf blocks, /31 pairs match. */
static void test_addressing(void **state)
{
	struct t_world w;
	uint32_t *all, n = 0;
	size_t i;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 6, 5, 3, 1);
	all = malloc((w.t->endpoints.n + w.t->ports.n) * sizeof(*all));
	for (i = 0; i < w.t->endpoints.n; i++) {
		const struct topo_node *h = &w.t->nodes.v[w.t->endpoints.v[i]];

		all[n++] = h->addr;
		/* 6 hosts per leaf -> blocks of 8 */
		assert_int_equal((h->addr - (198u << 24 | 18u << 16)) / 8, h->group);
	}
	for (i = 0; i < w.t->links.n; i++) {
		const struct topo_link *l = &w.t->links.v[i];
		uint32_t a = w.t->ports.v[l->port[0]].addr, b = w.t->ports.v[l->port[1]].addr;

		assert_int_equal(a ^ b, 1);
		assert_int_equal(w.t->ports.v[l->port[0]].plen, 31);
		all[n++] = a;
		all[n++] = b;
	}
	qsort(all, n, sizeof(*all), cmp_u32);
	for (i = 1; i < n; i++)
		assert_true(all[i] != all[i - 1]);
	free(all);
	t_free(&w);
}

/* Every port's permanent neighbour is its link's other end, at that end's address and
 * Ethernet address; Ethernet addresses are distinct, locally administered and unicast. */
static void test_neighbours(void **state)
{
	struct t_world w;
	uint8_t mac[6], other[6];
	uint32_t p, q, addr;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 6, 5, 3, 1);
	for (p = 0; p < w.t->ports.n; p++) {
		q = topo_port_peer(w.t, p);
		assert_int_equal(addr_neigh(w.t, p, &addr, mac), 0);
		assert_int_equal(addr, w.t->ports.v[q].addr);
		addr_mac(q, other);
		assert_memory_equal(mac, other, 6);
		assert_int_equal(mac[0] & 3, 2);
		addr_mac(p, other);
		assert_memory_not_equal(mac, other, 6);
	}
	t_free(&w);
}

static void test_addressing_too_small(void **state)
{
	struct scenario s;
	struct topo *t = NULL;
	struct diag d = {0};

	(void)state;
	scn_init(&s);
	s.topology.ls = (struct scn_leafspine){32, 32, 32, 1, 1000, 1000, 1, 0, {0}};
	s.addressing.plen = 22; /* 512 endpoint addresses for 1024 hosts */
	assert_int_equal(topo_build(&s, &t, &d), -E2BIG);
	assert_non_null(strstr(d.msg, "too small"));
	assert_null(t);
	scn_done(&s);
}

/* Leaf to a remote host: every uplink; to a local host: its one port; host: its leaf. */
static void test_nexthops(void **state)
{
	uint32_t ports[64];
	struct t_world w;
	int l0, s1, n;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 2, 3, 4, 2);
	l0 = topo_node_find(w.t, "l0");
	s1 = topo_node_find(w.t, "s1");
	n = paths_nexthops(w.t, &w.p, (uint32_t)l0, 5, ports, 64); /* h5 on l2 */
	assert_int_equal(n, 8);
	n = paths_nexthops(w.t, &w.p, (uint32_t)l0, 1, ports, 64);
	assert_int_equal(n, 1);
	assert_int_equal(topo_port_peer_node(w.t, ports[0]), 1);
	n = paths_nexthops(w.t, &w.p, 0, 5, ports, 64);
	assert_int_equal(n, 1);
	assert_int_equal(topo_port_peer_node(w.t, ports[0]), (uint32_t)l0);
	n = paths_nexthops(w.t, &w.p, (uint32_t)s1, 5, ports, 64);
	assert_int_equal(n, 2); /* two parallel links to l2 */
	assert_int_equal(paths_nexthops(w.t, &w.p, 0, 0, ports, 64), 0);
	t_free(&w);
}

/* Leaf: one ECMP group over all uplinks toward the other leaves' blocks, one rule and one
 * table per uplink; spine: one route per leaf; host: one aggregate route. */
static void test_route_plan(void **state)
{
	const struct route_node *rn;
	const struct route_group *g;
	struct t_world w;
	int l0, s0;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 4, 4, 2, 1);
	l0 = topo_node_find(w.t, "l0");
	s0 = topo_node_find(w.t, "s0");
	rn = &w.plan.nodes.v[l0];
	assert_int_equal(rn->group_n, 1);
	g = &w.plan.groups.v[rn->group_off];
	assert_int_equal(g->nh_n, 2);
	assert_int_equal(g->seed, w.t->nodes.v[l0].seed);
	assert_int_equal(g->pfx_n, 2); /* l1..l3 blocks: .4/30 and .8/29 */
	assert_int_equal(rn->rule_n, 2);
	assert_int_equal(rn->edge_n, 4);
	/* 4 host /32s + 2 group prefixes in main, 2 per-uplink default routes */
	assert_int_equal(rn->route_n, 4 + 2 + 2);
	rn = &w.plan.nodes.v[s0];
	assert_int_equal(rn->group_n, 0);
	assert_int_equal(rn->route_n, 4);
	rn = &w.plan.nodes.v[0];
	assert_int_equal(rn->route_n, 1);
	assert_int_equal(w.plan.routes.v[rn->route_off].dst.plen, 28);
	assert_int_equal(w.plan.routes.v[rn->route_off].src, w.t->nodes.v[0].addr);
	t_free(&w);
}

static bool pfx_has(struct route_prefix x, uint32_t addr)
{
	return !x.plen || !((x.addr ^ addr) >> (32 - x.plen));
}

/* The main-table route of node n that the kernel picks for addr (longest prefix). */
static const struct route_entry *lpm(const struct route_plan *pl, uint32_t n, uint32_t addr)
{
	const struct route_node *rn = &pl->nodes.v[n];
	const struct route_entry *best = NULL;
	uint32_t i;

	for (i = rn->route_off; i < rn->route_off + rn->route_n; i++) {
		const struct route_entry *re = &pl->routes.v[i];

		if (re->table == ROUTE_TABLE_MAIN && pfx_has(re->dst, addr) &&
		    (!best || re->dst.plen > best->dst.plen))
			best = re;
	}
	return best;
}

static bool same_hops(const struct route_plan *pl, uint32_t a_off, uint32_t a_n, uint32_t b_off,
		      uint32_t b_n)
{
	return a_n == b_n && !memcmp(&pl->ports.v[a_off], &pl->ports.v[b_off], a_n * 4);
}

/* A leaf with 40 hosts has 41 next-hop sets (one per host, the uplinks): past the first
 * table of classes, and the middle leaf meets its uplinks' set again after its hosts'. Every
 * node's longest-prefix route to every other endpoint leaves by exactly the shortest paths'
 * next hops, each leaf has one ECMP group, and each group holds exactly the main routes over
 * its next hops, in route order. */
static void test_route_plan_classes(void **state)
{
	uint32_t hops[64], n, e, i, g, k;
	struct t_world w;
	int nh;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 40, 3, 3, 1);
	for (n = 0; n < w.t->nodes.n; n++) {
		const struct route_node *rn = &w.plan.nodes.v[n];

		for (e = 0; e < w.t->endpoints.n; e++) {
			const struct route_entry *re;

			nh = paths_nexthops(w.t, &w.p, n, e, hops, 64);
			if (!nh)
				continue;
			re = lpm(&w.plan, n, w.t->nodes.v[w.t->endpoints.v[e]].addr);
			assert_non_null(re);
			assert_int_equal(re->nh_n, nh);
			assert_memory_equal(&w.plan.ports.v[re->nh_off], hops, nh * sizeof(*hops));
		}
		for (g = rn->group_off; g < rn->group_off + rn->group_n; g++) {
			const struct route_group *gr = &w.plan.groups.v[g];

			for (i = rn->route_off, k = 0; i < rn->route_off + rn->route_n; i++) {
				const struct route_entry *re = &w.plan.routes.v[i];

				if (re->table != ROUTE_TABLE_MAIN ||
				    !same_hops(&w.plan, re->nh_off, re->nh_n, gr->nh_off, gr->nh_n))
					continue;
				assert_true(k < gr->pfx_n);
				assert_int_equal(w.plan.prefixes.v[gr->pfx_off + k].addr,
						 re->dst.addr);
				assert_int_equal(w.plan.prefixes.v[gr->pfx_off + k].plen,
						 re->dst.plen);
				k++;
			}
			assert_int_equal(k, gr->pfx_n);
		}
	}
	for (k = 0; k < 3; k++) {
		char name[8];

		snprintf(name, sizeof(name), "l%u", k);
		n = (uint32_t)topo_node_find(w.t, name);
		assert_int_equal(w.plan.nodes.v[n].group_n, 1);
	}
	t_free(&w);
}

/* Every pair is reachable along a shortest path; tags pin the spine. */
static void test_trace_all_pairs(void **state)
{
	struct route_flow f = {.proto = 6, .sport = 40000, .dport = 5201};
	uint32_t hops[16], a, b;
	struct t_world w;
	int n, k;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 3, 4, 4, 1);
	for (a = 0; a < 12; a++) {
		for (b = 0; b < 12; b++) {
			if (a == b)
				continue;
			f.saddr = w.t->nodes.v[a].addr;
			f.daddr = w.t->nodes.v[b].addr;
			f.tag = 0;
			n = route_trace(w.t, &w.plan, a, &f, hops, 16);
			assert_int_equal(n, a / 3 == b / 3 ? 3 : 5);
			assert_int_equal(hops[n - 1], b);
			for (k = 1; n == 5 && k <= 4; k++) {
				f.tag = (uint8_t)k;
				assert_int_equal(route_trace(w.t, &w.plan, a, &f, hops, 16), 5);
				assert_string_equal(
					w.t->nodes.v[hops[2]].role == TOPO_ROLE_SPINE ? "s" : "?",
					"s");
				assert_int_equal(w.t->nodes.v[hops[2]].index, (uint32_t)(k - 1));
			}
		}
	}
	t_free(&w);
}

/* route_trace_split on 4 leaves x 3 hosts, 4 spines: without spraying, the hashed path with
 * every share 1; with it, h0 -> h3 crosses its host link and the far leaf's host port whole and
 * each spine a quarter (10 ports, each hop's shares summing to 1); within a leaf one path; a
 * tag pins one spine; a limit under the ports is -E2BIG; walks leave their scratch clean. */
static void test_trace_split(void **state)
{
	struct route_flow f = {.proto = 6, .sport = 40000, .dport = 5201};
	uint32_t ports[16];
	struct route_split sp, small;
	struct route_share *sh;
	struct t_world w;
	double sum;
	int n, k, i;

	(void)state;
	t_load(&w, SCN_GEN_LEAFSPINE, 3, 4, 4, 1);
	f.saddr = w.t->nodes.v[0].addr;
	f.daddr = w.t->nodes.v[3].addr;
	n = route_trace_ports(w.t, &w.plan, 0, &f, ports, 16);
	assert_int_equal(route_split_init(&sp, w.t, 16), 0);
	sh = sp.out;
	assert_int_equal(route_trace_split(w.t, &w.plan, 0, &f, &sp), n);
	for (k = 0; k < n; k++) {
		assert_int_equal(sh[k].port, ports[k]);
		assert_true(sh[k].w == 1);
	}
	route_split_done(&sp);
	t_free(&w);

	t_load_spray(&w, SCN_GEN_LEAFSPINE, 3, 4, 4, 1, true);
	assert_int_equal(route_split_init(&sp, w.t, 16), 0);
	assert_int_equal(route_split_init(&small, w.t, 9), 0);
	sh = sp.out;
	assert_int_equal(route_trace_split(w.t, &w.plan, 0, &f, &sp), 10);
	assert_true(sh[0].w == 1 && w.t->ports.v[sh[0].port].node == 0);
	for (k = 1, sum = 0; k < 5; k++) { /* l0 -> s0..s3 */
		assert_true(sh[k].w == 0.25);
		assert_int_equal(w.t->nodes.v[topo_port_peer_node(w.t, sh[k].port)].role,
				 TOPO_ROLE_SPINE);
		sum += sh[k].w;
	}
	assert_true(sum == 1);
	for (k = 5; k < 9; k++) /* s0..s3 -> l1 */
		assert_true(sh[k].w == 0.25 &&
			    w.t->nodes.v[w.t->ports.v[sh[k].port].node].role == TOPO_ROLE_SPINE);
	assert_true(sh[9].w == 1 && topo_port_peer_node(w.t, sh[9].port) == 3);
	assert_int_equal(route_trace_split(w.t, &w.plan, 0, &f, &small), -E2BIG);
	for (k = 0; k < (int)(2 * w.t->ports.n); k++) /* the scratch left clean, also cut short */
		assert_true(sp.at[k] == UINT32_MAX && small.at[k] == UINT32_MAX);
	f.daddr = w.t->nodes.v[1].addr; /* h1, same leaf */
	assert_int_equal(route_trace_split(w.t, &w.plan, 0, &f, &small), 2);
	assert_int_equal(route_trace_split(w.t, &w.plan, 0, &f, &sp), 2);
	assert_true(sh[0].w == 1 && sh[1].w == 1);
	f.daddr = w.t->nodes.v[3].addr;
	f.tag = 2;
	n = route_trace_ports(w.t, &w.plan, 0, &f, ports, 16);
	assert_int_equal(route_trace_split(w.t, &w.plan, 0, &f, &sp), n);
	for (i = 0; i < n; i++)
		assert_true(sh[i].port == ports[i] && sh[i].w == 1);
	assert_int_equal(w.t->nodes.v[topo_port_peer_node(w.t, ports[1])].index, 1);
	route_split_done(&sp);
	route_split_done(&small);
	t_free(&w);
}

/* Bob Jenkins' lookup3 test vectors (hashlittle), which the kernel's jhash implements. */
static void test_jhash_vectors(void **state)
{
	const char *s = "Four score and seven years ago";

	(void)state;
	assert_int_equal(route_jhash("", 0, 0), 0xdeadbeefu);
	assert_int_equal(route_jhash("", 0, 0xdeadbeefu), 0xbd5b7ddeu);
	assert_int_equal(route_jhash(s, 30, 0), 0x17770551u);
	assert_int_equal(route_jhash(s, 30, 1), 0xcd628161u);
}

/* 4096 flows over 4 next hops: each gets its share within 15%; other seeds, other picks. */
static void test_hash_spread(void **state)
{
	struct route_flow f = {0x0a000001, 0x0a000102, 0, 5201, 6, 0};
	uint32_t count[4] = {0}, i, differ = 0;

	(void)state;
	for (i = 0; i < 4096; i++) {
		f.sport = (uint16_t)(20000 + i);
		count[route_hash_pick(&f, 7, 4)]++;
		differ += route_hash_pick(&f, 7, 4) != route_hash_pick(&f, 8, 4);
	}
	for (i = 0; i < 4; i++)
		assert_true(count[i] > 870 && count[i] < 1180);
	assert_true(differ > 2500);
}

static void test_seed_overrides(void **state)
{
	struct scn_seed sd = {"l1", 4242};
	struct scenario s;
	struct topo *t = NULL;
	struct diag d = {0};

	(void)state;
	scn_init(&s);
	s.topology.ls = (struct scn_leafspine){2, 2, 2, 1, 1000, 1000, 1, 0, {0}};
	assert_int_equal(vec_push(&s.routing.seeds, sd), 0);
	assert_int_equal(topo_build(&s, &t, &d), 0);
	assert_int_equal(t->nodes.v[topo_node_find(t, "l1")].seed, 4242);
	assert_true(t->nodes.v[topo_node_find(t, "l0")].seed != 4242);
	topo_free(t);
	strcpy(s.routing.seeds.v[0].node, "l9");
	assert_int_equal(topo_build(&s, &t, &d), -EINVAL);
	assert_string_equal(d.msg, "routing.seeds: no switch named 'l9'");
	scn_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leafspine_counts),
		cmocka_unit_test(test_best_counts),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_addressing),
		cmocka_unit_test(test_addressing_too_small),
		cmocka_unit_test(test_nexthops),
		cmocka_unit_test(test_route_plan),
		cmocka_unit_test(test_route_plan_classes),
		cmocka_unit_test(test_trace_split),
		cmocka_unit_test(test_trace_all_pairs),
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_jhash_vectors),
		cmocka_unit_test(test_hash_spread),
		cmocka_unit_test(test_seed_overrides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
