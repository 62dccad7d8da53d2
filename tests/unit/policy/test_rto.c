// SPDX-License-Identifier: MIT
/* The endpoints' rto_min (policy/route_rto.h): a port's queue in time, the round trip bound of
 * a pair (summed over the data's hops, plus the ACKs' way back unless htb serves them first),
 * the metric's rounding and floor, and every route's value under auto, off and a fixed time;
 * a changed value is a changed route to the control plane. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/gen.h"
#include "model/paths.h"
#include "policy/reroute.h"
#include "policy/route.h"
#include "policy/route_rto.h"

#define MBIT 1000000ULL
#define SEC 1000000000ULL

struct t_world {
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
};

/* Two leaves of two hosts under two spines; hosts at 8 Mbit/s, the fabric at 16, queues of
 * 1 MB: a second at a host's rate, half a second on the fabric. */
static void t_leafspine(struct t_world *w, enum scn_qdisc q)
{
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	scn_init(&w->s);
	strcpy(w->s.name, "t");
	w->s.topology.gen = SCN_GEN_LEAFSPINE;
	w->s.topology.ls = (struct scn_leafspine){2, 2, 2, 1, 8 * MBIT, 16 * MBIT, 1, 0, {0}};
	w->s.shaping.qdisc = q;
	w->s.shaping.queue_bytes = 1000000;
	assert_int_equal(topo_build(&w->s, &w->t, &d), 0);
	assert_int_equal(route_plan_for(w->t, &w->p, &w->plan, &d), 0);
}

/* 2 x 2 nodes in two switch dimensions at 8 Mbit/s: each node has a route per dimension, and
 * the nodes forward, so the fourth node is two dimensions (four hops) away. */
static void t_multidim(struct t_world *w)
{
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	scn_init(&w->s);
	strcpy(w->s.name, "t");
	w->s.topology.gen = SCN_GEN_MULTIDIM;
	w->s.topology.md.ndims = 2;
	w->s.topology.md.dim[0] = (struct gen_dim){GEN_DIM_SWITCH, 2, 8 * MBIT};
	w->s.topology.md.dim[1] = (struct gen_dim){GEN_DIM_SWITCH, 2, 8 * MBIT};
	w->s.shaping.queue_bytes = 1000000;
	assert_int_equal(topo_build(&w->s, &w->t, &d), 0);
	assert_int_equal(route_plan_for(w->t, &w->p, &w->plan, &d), 0);
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
	uint32_t n;

	for (n = 0; n < t->nodes.n; n++)
		if (!strcmp(t->nodes.v[n].name, name))
			return n;
	fail_msg("no node %s", name);
	return 0;
}

static void test_ms(void **state)
{
	(void)state;
	assert_int_equal(route_rto_ms(0), 0);
	assert_int_equal(route_rto_ms(200 * 1000000ULL), 0); /* the kernel's own */
	assert_int_equal(route_rto_ms(200 * 1000000ULL + 1), 201);
	assert_int_equal(route_rto_ms(3355443200ULL), 3356); /* 2 MiB at 5 Mbit/s, rounded up */
	assert_int_equal(route_rto_ms(UINT64_MAX), ROUTE_RTO_MAX_MS); /* TCP_RTO_MAX */
}

static void test_ports(void **state)
{
	struct t_world w;
	struct route_rto_port *q;
	uint32_t p, h0;

	(void)state;
	t_leafspine(&w, SCN_QDISC_HTB);
	q = calloc(w.t->ports.n, sizeof(*q));
	route_rto_ports(w.t, &w.s.shaping, q);
	h0 = t_node(w.t, "h0");
	p = topo_node_port(w.t, h0, 0);
	assert_int_equal(q[p].data_ns, SEC); /* 1 MB at 8 Mbit/s */
	assert_int_equal(q[p].ack_ns, 0); /* htb's ACK class goes first */
	p = topo_port_peer(w.t, p); /* the leaf's port toward h0 */
	assert_int_equal(q[p].data_ns, SEC);
	w.s.shaping.qdisc = SCN_QDISC_TBF; /* one queue for all */
	route_rto_ports(w.t, &w.s.shaping, q);
	assert_int_equal(q[p].ack_ns, SEC);
	w.s.shaping.qdisc = SCN_QDISC_NONE; /* nothing queues in time */
	route_rto_ports(w.t, &w.s.shaping, q);
	assert_int_equal(q[p].data_ns, 0);
	free(q);
	t_free(&w);
}

static void test_pair(void **state)
{
	struct t_world w;
	struct route_rto_port *q;
	uint32_t h0, h1, h2;

	(void)state;
	t_leafspine(&w, SCN_QDISC_HTB);
	q = calloc(w.t->ports.n, sizeof(*q));
	route_rto_ports(w.t, &w.s.shaping, q);
	h0 = t_node(w.t, "h0");
	h1 = t_node(w.t, "h1");
	h2 = t_node(w.t, "h2");
	/* same leaf: h0's egress and the leaf's toward h1, a second each; ACKs skip the queues */
	assert_int_equal(route_rto_pair(w.t, &w.p, q, h0, h1), 2 * SEC);
	/* across the fabric: + half a second up and half down, over either spine */
	assert_int_equal(route_rto_pair(w.t, &w.p, q, h0, h2), 3 * SEC);
	/* a queue deeper on one spine's downlink: the deepest path counts */
	w.s.shaping.qdisc = SCN_QDISC_TBF; /* ACKs queue behind data the whole way back */
	route_rto_ports(w.t, &w.s.shaping, q);
	assert_int_equal(route_rto_pair(w.t, &w.p, q, h0, h2), 6 * SEC);
	q[topo_node_port(w.t, t_node(w.t, "s1"), 1)].data_ns = 5 * SEC;
	assert_int_equal(route_rto_pair(w.t, &w.p, q, h0, h2), (6 + 4.5) * SEC);
	free(q);
	t_free(&w);
}

/* The value each of node n's routes got, in route order. */
static void t_values(const struct t_world *w, const char *name, uint32_t *out, uint32_t *n)
{
	const struct route_node *rn = &w->plan.nodes.v[t_node(w->t, name)];
	uint32_t i;

	for (i = 0; i < rn->route_n; i++)
		out[i] = w->plan.routes.v[rn->route_off + i].rto_min_ms;
	*n = rn->route_n;
}

static void test_fill(void **state)
{
	struct scn_rto cfg = {SCN_RTO_AUTO, 0};
	struct diag d = {0};
	struct t_world w;
	uint32_t v[64], n, i, two = 0, four = 0;

	(void)state;
	t_multidim(&w);
	assert_int_equal(route_rto_fill(w.t, &w.p, &w.s.shaping, &cfg, &w.plan, &d), 0);
	/* n0's own dimensions: 2 s, two hops each; n3 (and every per-port table's default route,
	 * which leads there too): 4 s */
	t_values(&w, "n0", v, &n);
	assert_true(n >= 3);
	for (i = 0; i < n; i++) {
		two += v[i] == 2000;
		four += v[i] == 4000;
	}
	assert_int_equal(two, 2);
	assert_int_equal(two + four, n);
	t_values(&w, "d0s0", v, &n); /* a switch runs no TCP */
	for (i = 0; i < n; i++)
		assert_int_equal(v[i], 0);
	/* a fixed time on every endpoint route, switches none */
	cfg = (struct scn_rto){SCN_RTO_FIXED, 1500 * 1000000ULL};
	assert_int_equal(route_rto_fill(w.t, &w.p, &w.s.shaping, &cfg, &w.plan, &d), 0);
	t_values(&w, "n3", v, &n);
	for (i = 0; i < n; i++)
		assert_int_equal(v[i], 1500);
	t_values(&w, "d1s0", v, &n);
	for (i = 0; i < n; i++)
		assert_int_equal(v[i], 0);
	/* off: none at all */
	cfg.mode = SCN_RTO_OFF;
	assert_int_equal(route_rto_fill(w.t, &w.p, &w.s.shaping, &cfg, &w.plan, &d), 0);
	for (i = 0; i < w.plan.routes.n; i++)
		assert_int_equal(w.plan.routes.v[i].rto_min_ms, 0);
	t_free(&w);
}

/* Shallow queues (the derived 64 frames at 1 Gbit/s: under a millisecond) leave the kernel's
 * 200 ms alone. */
static void test_fill_shallow(void **state)
{
	struct scn_rto cfg = {SCN_RTO_AUTO, 0};
	struct diag d = {0};
	struct t_world w;
	size_t i;

	(void)state;
	t_leafspine(&w, SCN_QDISC_HTB);
	w.s.shaping.queue_bytes = 0;
	for (i = 0; i < w.t->links.n; i++)
		w.t->links.v[i].rate[0] = w.t->links.v[i].rate[1] = 1000 * MBIT;
	assert_int_equal(route_rto_fill(w.t, &w.p, &w.s.shaping, &cfg, &w.plan, &d), 0);
	for (i = 0; i < w.plan.routes.n; i++)
		assert_int_equal(w.plan.routes.v[i].rto_min_ms, 0);
	t_free(&w);
}

/* netctl replaces a route whose rto_min changed, as it does one whose next hops did. */
static void test_diff(void **state)
{
	struct scn_rto cfg = {SCN_RTO_AUTO, 0};
	uint32_t ops[ROUTE_OP_NEIGH_DEL + 1];
	struct route_plan np = {0};
	struct topo_paths p2 = {0};
	struct route_diff df = {0};
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_leafspine(&w, SCN_QDISC_HTB);
	assert_int_equal(route_plan_for(w.t, &p2, &np, &d), 0);
	assert_int_equal(route_rto_fill(w.t, &p2, &w.s.shaping, &cfg, &np, &d), 0);
	assert_int_equal(route_diff_build(w.t, &w.plan, w.t, &np, &df), 0);
	route_diff_count(&df, ops);
	assert_int_equal(ops[ROUTE_OP_SET], 4); /* one aggregated route on each host */
	assert_int_equal(ops[ROUTE_OP_DEL], 0);
	route_diff_done(&df);
	route_plan_done(&np);
	paths_done(&p2);
	t_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ms),	     cmocka_unit_test(test_ports),
		cmocka_unit_test(test_pair),	     cmocka_unit_test(test_fill),
		cmocka_unit_test(test_fill_shallow), cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
