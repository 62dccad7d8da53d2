// SPDX-License-Identifier: MIT
/* The greedy routing paper's commodities on a built leaf-spine (policy/greedy_paths.h): a
 * connection across leaves has one candidate per spine, in spine order, each loading exactly
 * its uplink and its downlink; tag k takes spine k-1; a connection under one leaf has no
 * candidate; with a spine down, the candidates are the live spines, and with one left its path
 * is the only candidate. And greedy over them puts
 * the paper's toy demand (§2.3, Fig. 2) on distinct links. routing.enforce sport's ports
 * (policy/greedy_sport.h) put both directions of a pair on the paths the tags would. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/gen.h"
#include "model/paths.h"
#include "model/scenario.h"
#include "policy/greedy_paths.h"
#include "policy/greedy_sport.h"
#include "traffic/sport.h"

struct t_world {
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
};

/* hpl hosts under each of `leaves` leaves, `spines` spines; spine `down` (or none) failed. */
static void t_world_init(struct t_world *w, uint32_t hpl, uint32_t leaves, uint32_t spines,
			 int down)
{
	struct diag d = {0};
	size_t k;

	memset(w, 0, sizeof(*w));
	scn_init(&w->s);
	w->s.topology.gen = SCN_GEN_LEAFSPINE;
	w->s.topology.ls = (struct scn_leafspine){hpl,		 leaves, spines, 1,  1000000000ULL,
						  1000000000ULL, 1,	 0,	 {0}};
	if (topo_build(&w->s, &w->t, &d))
		fail_msg("%s", d.msg);
	for (k = 0; down >= 0 && k < w->t->links.n; k++) {
		struct topo_link *l = &w->t->links.v[k];
		const struct topo_node *a = &w->t->nodes.v[w->t->ports.v[l->port[0]].node];
		const struct topo_node *b = &w->t->nodes.v[w->t->ports.v[l->port[1]].node];

		if ((a->role == TOPO_ROLE_SPINE && a->index == (uint32_t)down) ||
		    (b->role == TOPO_ROLE_SPINE && b->index == (uint32_t)down))
			l->up = false;
	}
	assert_int_equal(paths_compute(w->t, &w->p), 0);
	assert_int_equal(route_plan_build(w->t, &w->p, &w->plan, &d), 0);
}

static void t_world_done(struct t_world *w)
{
	route_plan_done(&w->plan);
	paths_done(&w->p);
	topo_free(w->t);
	scn_done(&w->s);
}

static const struct topo_node *t_node(const struct t_world *w, uint32_t port)
{
	return &w->t->nodes.v[w->t->ports.v[port].node];
}

/* Candidate c of commodity i: an uplink leaving leaf `src_leaf` toward spine `spine` and a
 * downlink from that spine into leaf `dst_leaf`, nothing else. */
static void t_check_cand(const struct t_world *w, const struct greedy_paths *g, uint32_t i,
			 uint32_t c, uint32_t src_leaf, uint32_t spine, uint32_t dst_leaf)
{
	const struct greedy_cand *k = &g->cands.v[g->comms.v[i].cand_off + c];
	const uint32_t *l = g->links.v + k->link_off;

	assert_int_equal(k->link_n, 2);
	assert_int_equal(t_node(w, l[0])->role, TOPO_ROLE_LEAF);
	assert_int_equal(t_node(w, l[0])->index, src_leaf);
	assert_int_equal(topo_port_peer_node(w->t, l[0]), w->t->ports.v[l[1]].node);
	assert_int_equal(t_node(w, l[1])->role, TOPO_ROLE_SPINE);
	assert_int_equal(t_node(w, l[1])->index, spine);
	assert_int_equal(w->t->nodes.v[topo_port_peer_node(w->t, l[1])].index, dst_leaf);
}

static void test_candidates(void **state)
{
	static const uint32_t eps[] = {0, 5, 1}; /* h0 and h1 under l0, h5 under l1 */
	const struct greedy_conn c[] = {{7, eps, 0, 1}, {7, eps, 0, 2}, {7, eps, 1, 0}};
	struct greedy_paths g;
	struct t_world w;
	struct diag d = {0};
	uint32_t s;

	(void)state;
	t_world_init(&w, 4, 2, 3, -1);
	assert_int_equal(greedy_paths_build(&g, w.t, &w.plan, c, 3, &d), 0);
	assert_int_equal(g.in.ncomm, 3);
	assert_int_equal(g.comms.v[0].cand_n, 3);
	for (s = 0; s < 3; s++)
		t_check_cand(&w, &g, 0, s, 0, s, 1);
	assert_int_equal(g.comms.v[1].cand_n, 0); /* one leaf: no choice */
	for (s = 0; s < 3; s++)
		t_check_cand(&w, &g, 2, s, 1, s, 0);
	assert_int_equal(g.comms.v[0].src_grp, g.comms.v[2].dst_grp);
	assert_int_equal(g.comms.v[0].dst_grp, g.comms.v[2].src_grp);
	assert_int_equal(greedy_paths_tag(&g, 0, 2), 3);
	assert_int_equal(greedy_paths_tag(&g, 1, 0), 0);
	greedy_paths_done(&g);
	t_world_done(&w);
}

static void test_failed_spine(void **state)
{
	static const uint32_t eps[] = {0, 2};
	const struct greedy_conn c[] = {{0, eps, 0, 1}};
	struct greedy_paths g;
	struct t_world w;
	struct diag d = {0};

	(void)state;
	t_world_init(&w, 2, 2, 3, 1);
	assert_int_equal(greedy_paths_build(&g, w.t, &w.plan, c, 1, &d), 0);
	assert_int_equal(g.comms.v[0].cand_n, 2);
	t_check_cand(&w, &g, 0, 0, 0, 0, 1);
	t_check_cand(&w, &g, 0, 1, 0, 2, 1);
	greedy_paths_done(&g);
	t_world_done(&w);
	/* one spine left: the path it gives is the one candidate, and needs no tag */
	t_world_init(&w, 2, 2, 2, 1);
	assert_int_equal(greedy_paths_build(&g, w.t, &w.plan, c, 1, &d), 0);
	assert_int_equal(g.comms.v[0].cand_n, 1);
	t_check_cand(&w, &g, 0, 0, 0, 0, 1);
	assert_int_equal(greedy_paths_tag(&g, 0, 0), 0);
	greedy_paths_done(&g);
	t_world_done(&w);
}

/* The paper's toy (greedy routing §2.3, Fig. 2): 4 leaves, 2 spines, flows t1->t2, t2->t1,
 * t2->t3, t3->t1 (its demand matrix D), one host per flow end. Greedy gives every link one
 * commodity at most: every flow at full rate. */
static void test_toy(void **state)
{
	/* leaf i (t(i+1)) holds hosts 2i and 2i+1; ranks 0..5 on t1, t2, t2, t1, t3, t3 */
	static const uint32_t eps[] = {0, 2, 3, 1, 4, 5};
	const struct greedy_conn c[] = {
		{0, eps, 0, 1}, {0, eps, 2, 3}, {0, eps, 1, 4}, {0, eps, 5, 3}};
	struct greedy_paths g;
	struct t_world w;
	struct diag d = {0};
	uint32_t choice[4];

	(void)state;
	t_world_init(&w, 2, 4, 2, -1);
	assert_int_equal(greedy_paths_build(&g, w.t, &w.plan, c, 4, &d), 0);
	assert_int_equal(greedy_assign(&g.in, GREEDY_ORDER_INPUT, choice), 1);
	assert_int_equal(greedy_assign(&g.in, GREEDY_ORDER_BUSIEST_TOR, choice), 1);
	assert_int_equal(greedy_max_load(&g.in, choice), 1);
	greedy_paths_done(&g);
	t_world_done(&w);
}

#define T_PAIRS 1000

/* The ports flow a -> b leaves through with source port `port` (tag 0) equal those it leaves
 * through under tag want + 1; any path when want is GREEDY_ANY. */
static void t_check_lands(const struct t_world *w, const struct greedy_pair *p, uint32_t a,
			  uint32_t b, uint32_t want, uint16_t port)
{
	uint32_t hashed[ROUTE_TRACE_MAX], tagged[ROUTE_TRACE_MAX];
	uint32_t src = w->t->endpoints.v[p->eps[a]];
	struct route_flow f = route_job_flow_port(w->t, p->eps, p->job, a, b, port);
	int n = route_trace_ports(w->t, &w->plan, src, &f, hashed, ROUTE_TRACE_MAX), m;

	assert_true(n > 0);
	if (want == GREEDY_ANY)
		return;
	f.tag = (uint8_t)(want + 1);
	m = route_trace_ports(w->t, &w->plan, src, &f, tagged, ROUTE_TRACE_MAX);
	assert_int_equal(n, m);
	assert_memory_equal(hashed, tagged, (size_t)n * sizeof(*hashed));
}

static uint64_t t_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Random pairs across leaves, random wanted spines per direction (or none): the port found
 * lands each direction on its wanted path, the kernel's hash as route_trace has it; another
 * move (gen) starts the search elsewhere. With spine `down` failed too. */
static void t_sport_pairs(uint32_t spines, int down, uint32_t pairs)
{
	struct t_world w;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint32_t i, eps[2], alive = spines - (down >= 0), moved = 0;

	t_world_init(&w, 4, 4, spines, down);
	for (i = 0; i < pairs; i++) {
		struct greedy_pair p = {.job = (uint32_t)(t_next(&x) % 1000), .eps = eps};
		uint16_t port, again;

		eps[0] = (uint32_t)(t_next(&x) % 16);
		eps[1] = (eps[0] + 4 * (1 + t_next(&x) % 3)) % 16; /* another leaf */
		p.lo = 0;
		p.hi = 1;
		p.want_up = t_next(&x) % 4 ? (uint32_t)(t_next(&x) % alive) : GREEDY_ANY;
		p.want_down = t_next(&x) % 4 ? (uint32_t)(t_next(&x) % alive) : GREEDY_ANY;
		p.gen = (uint32_t)(t_next(&x) % 5);
		assert_int_equal(greedy_sport(w.t, &w.plan, &p, &port), 0);
		assert_true(port >= FLOW_SPORT_LO && port < FLOW_SPORT_LO + FLOW_SPORT_N);
		assert_int_equal(greedy_sport_fits(w.t, &w.plan, &p, port), 1);
		t_check_lands(&w, &p, 0, 1, p.want_up, port);
		t_check_lands(&w, &p, 1, 0, p.want_down, port);
		p.gen++;
		assert_int_equal(greedy_sport(w.t, &w.plan, &p, &again), 0);
		t_check_lands(&w, &p, 0, 1, p.want_up, again);
		t_check_lands(&w, &p, 1, 0, p.want_down, again);
		moved += again != port;
	}
	/* the search starts GREEDY_SPORT_STRIDE ports further: mostly another port */
	assert_true(moved > pairs * 3 / 4);
	t_world_done(&w);
}

static void test_sport(void **state)
{
	static const uint32_t eps[] = {0, 4}, same[] = {0, 1};
	struct t_world w;
	struct greedy_pair p = {.job = 1, .eps = eps, .lo = 0, .hi = 1, .want_up = 3};
	uint16_t port;

	(void)state;
	t_sport_pairs(4, -1, T_PAIRS);
	t_sport_pairs(4, 2, T_PAIRS);
	t_sport_pairs(32, -1, 50); /* the paper's 32 spines: 1 port in 1,024 lands both */
	/* a member the group does not have; a pair under one leaf has no choice to make */
	t_world_init(&w, 4, 2, 3, -1);
	assert_int_equal(greedy_sport(w.t, &w.plan, &p, &port), -EINVAL);
	p.want_up = 1;
	assert_int_equal(greedy_sport(w.t, &w.plan, &p, &port), 0);
	p.eps = same;
	assert_int_equal(greedy_sport_fits(w.t, &w.plan, &p, 0), 1);
	t_world_done(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidates),
		cmocka_unit_test(test_failed_spine),
		cmocka_unit_test(test_toy),
		cmocka_unit_test(test_sport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
