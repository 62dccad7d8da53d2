// SPDX-License-Identifier: MIT
/* Rerouting (policy/reroute.h): the plan difference after a spine fails, after it comes back
 * and after an OCS rewire, checked by applying it to a model of the kernel's tables and
 * comparing with the new plan; which links a job's traffic may cross. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/gen.h"
#include "model/ocs.h"
#include "policy/reroute.h"

struct t_net {
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
};

/* One route as the kernel holds it: key and what it says. */
struct t_route {
	uint32_t node, table, dst;
	uint8_t plen;
	uint32_t nh_n, src, ifindex[8], gw[8];
};

struct t_kernel {
	VEC(struct t_route) routes;
	VEC(struct route_rule) rules;
};

static void t_net_plan(struct t_net *n)
{
	struct diag d = {0};

	assert_int_equal(paths_compute(n->t, &n->p), 0);
	assert_int_equal(route_plan_build(n->t, &n->p, &n->plan, &d), 0);
}

static void t_net_done(struct t_net *n)
{
	route_plan_done(&n->plan);
	paths_done(&n->p);
	topo_free(n->t);
}

static void t_build(struct t_net *n, uint32_t leaves, uint32_t spines, uint32_t ocs)
{
	struct scenario s;
	struct diag d = {0};

	scn_init(&s);
	s.topology.ls = (struct scn_leafspine){.hosts_per_leaf = 2,
					       .leaves = leaves,
					       .spines = spines,
					       .links_per_pair = 1,
					       .host_rate = 1000000,
					       .fabric_rate = 1000000,
					       .gpus_per_server = 1};
	s.topology.ls.ocs.count = ocs;
	s.topology.ls.ocs.spine_ports = ocs ? leaves : 0;
	memset(n, 0, sizeof(*n));
	assert_int_equal(topo_build(&s, &n->t, &d), 0);
	scn_done(&s);
	t_net_plan(n);
}

static struct t_route t_route_of(const struct t_net *n, const struct route_entry *re)
{
	struct t_route r;
	uint32_t i, port;

	memset(&r, 0, sizeof(r)); /* compared with memcmp, padding too */
	r.node = re->node;
	r.table = re->table;
	r.dst = re->dst.addr;
	r.plen = re->dst.plen;
	r.nh_n = re->nh_n;
	r.src = re->src;
	assert_true(re->nh_n <= 8);
	for (i = 0; i < re->nh_n; i++) {
		port = n->plan.ports.v[re->nh_off + i];
		r.ifindex[i] = n->t->ports.v[port].ifindex;
		r.gw[i] = n->t->ports.v[topo_port_peer(n->t, port)].addr;
	}
	return r;
}

static struct t_route *t_find(struct t_kernel *k, const struct t_route *key)
{
	size_t i;

	for (i = 0; i < k->routes.n; i++) {
		struct t_route *r = &k->routes.v[i];

		if (r->node == key->node && r->table == key->table && r->dst == key->dst &&
		    r->plen == key->plen)
			return r;
	}
	return NULL;
}

static void t_load_kernel(struct t_kernel *k, const struct t_net *n)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < n->plan.routes.n; i++)
		assert_int_equal(vec_push(&k->routes, t_route_of(n, &n->plan.routes.v[i])), 0);
	for (i = 0; i < n->plan.rules.n; i++)
		assert_int_equal(vec_push(&k->rules, n->plan.rules.v[i]), 0);
}

static void t_rule_del(struct t_kernel *k, const struct route_rule *ru)
{
	size_t i;

	for (i = 0; i < k->rules.n; i++)
		if (!memcmp(&k->rules.v[i], ru, sizeof(*ru))) {
			k->rules.v[i] = k->rules.v[--k->rules.n];
			return;
		}
	fail_msg("deleting a rule that is not there");
}

/* Applies diff d (old net o -> new net n) to k, as the effector does. */
static void t_apply(struct t_kernel *k, const struct route_diff *d, const struct t_net *o,
		    const struct t_net *n)
{
	struct t_route r, *have;
	size_t i;

	for (i = 0; i < d->ops.n; i++) {
		const struct route_op *op = &d->ops.v[i];

		if (op->kind == ROUTE_OP_SET) {
			r = t_route_of(n, &n->plan.routes.v[op->idx]);
			have = t_find(k, &r);
			if (have)
				*have = r;
			else
				assert_int_equal(vec_push(&k->routes, r), 0);
		} else if (op->kind == ROUTE_OP_DEL) {
			r = t_route_of(o, &o->plan.routes.v[op->idx]);
			have = t_find(k, &r);
			assert_non_null(have);
			*have = k->routes.v[--k->routes.n];
		} else if (op->kind == ROUTE_OP_RULE_ADD) {
			assert_int_equal(vec_push(&k->rules, n->plan.rules.v[op->idx]), 0);
		} else if (op->kind == ROUTE_OP_RULE_DEL) {
			t_rule_del(k, &o->plan.rules.v[op->idx]);
		}
	}
}

/* k holds exactly n's plan. */
static void t_same(struct t_kernel *k, const struct t_net *n)
{
	struct t_route want, *have;
	size_t i;

	assert_int_equal(k->routes.n, n->plan.routes.n);
	assert_int_equal(k->rules.n, n->plan.rules.n);
	for (i = 0; i < n->plan.routes.n; i++) {
		want = t_route_of(n, &n->plan.routes.v[i]);
		have = t_find(k, &want);
		assert_non_null(have);
		assert_memory_equal(have, &want, sizeof(want));
	}
	vec_free(&k->routes);
	vec_free(&k->rules);
}

static struct t_net t_with_node_down(const struct t_net *o, const char *name, bool down)
{
	struct t_net n = {.t = topo_copy(o->t)};
	uint32_t id = (uint32_t)topo_node_find(n.t, name), i;

	for (i = 0; i < n.t->nodes.v[id].nports; i++)
		n.t->links.v[n.t->ports.v[topo_node_port(n.t, id, i)].link].up = !down;
	t_net_plan(&n);
	return n;
}

static bool t_has_op(const struct route_diff *d, const struct topo *t, const char *node,
		     enum route_op_kind kind)
{
	size_t i;

	for (i = 0; i < d->ops.n; i++)
		if (d->ops.v[i].kind == kind && !strcmp(t->nodes.v[d->ops.v[i].node].name, node))
			return true;
	return false;
}

static void test_same_plan_no_ops(void **state)
{
	struct route_diff d;
	struct t_net a, b;

	(void)state;
	t_build(&a, 4, 4, 0);
	t_build(&b, 4, 4, 0);
	assert_int_equal(route_diff_build(a.t, &a.plan, b.t, &b.plan, &d), 0);
	assert_int_equal(d.ops.n, 0);
	assert_int_equal(d.nodes, 0);
	route_diff_done(&d);
	t_net_done(&a);
	t_net_done(&b);
}

/* Greedy routing §5.4's spine failure, mid-run; then the spine comes back. */
static void test_spine_fails_and_returns(void **state)
{
	uint32_t counts[ROUTE_OP_NEIGH_DEL + 1];
	struct route_diff d;
	struct t_kernel k;
	struct t_net o, n;

	(void)state;
	t_build(&o, 4, 4, 0);
	n = t_with_node_down(&o, "s3", true);
	assert_int_equal(route_diff_build(o.t, &o.plan, n.t, &n.plan, &d), 0);
	t_load_kernel(&k, &o);
	t_apply(&k, &d, &o, &n);
	t_same(&k, &n);
	/* every leaf loses a member of its hash group, and the spine its routes */
	assert_true(t_has_op(&d, n.t, "l0", ROUTE_OP_NFT));
	assert_true(t_has_op(&d, n.t, "l3", ROUTE_OP_RULE_DEL));
	assert_true(t_has_op(&d, n.t, "s3", ROUTE_OP_DEL));
	assert_false(t_has_op(&d, n.t, "s0", ROUTE_OP_SET));
	assert_false(t_has_op(&d, n.t, "h0", ROUTE_OP_SET));
	assert_false(t_has_op(&d, n.t, "s1", ROUTE_OP_NFT));
	route_diff_count(&d, counts);
	assert_int_equal(counts[ROUTE_OP_RULE_DEL], 4); /* the table of each leaf's port to s3 */
	assert_int_equal(counts[ROUTE_OP_NEIGH_DEL], 8); /* both ends of the four cables */
	assert_int_equal(d.nodes, 5);
	route_diff_done(&d);
	/* and back */
	assert_int_equal(route_diff_build(n.t, &n.plan, o.t, &o.plan, &d), 0);
	t_load_kernel(&k, &n);
	t_apply(&k, &d, &n, &o);
	t_same(&k, &o);
	route_diff_count(&d, counts);
	assert_int_equal(counts[ROUTE_OP_RULE_ADD], 4);
	assert_int_equal(counts[ROUTE_OP_NEIGH_DEL], 0);
	route_diff_done(&d);
	t_net_done(&n);
	t_net_done(&o);
}

/* An OCS rewire keeps every port id, so the difference is in gateways: the leaves' routes
 * are replaced, and their stale neighbours flushed. */
static void test_ocs_rewire(void **state)
{
	struct ocs_change ch[2];
	struct route_diff d;
	struct t_kernel k;
	struct t_net o, n = {0};
	uint32_t *xc, counts[ROUTE_OP_NEIGH_DEL + 1];
	struct diag dg = {0};

	(void)state;
	t_build(&o, 2, 2, 1); /* both leaves on s0 */
	xc = malloc(o.t->ports.n * sizeof(*xc));
	assert_non_null(xc);
	ocs_circuits_of(o.t, xc);
	ch[0] = (struct ocs_change){(uint32_t)topo_node_find(o.t, "o0"),
				    (uint32_t)topo_node_find(o.t, "l0"),
				    (uint32_t)topo_node_find(o.t, "s1"), false};
	ch[1] = ch[0];
	ch[1].a = (uint32_t)topo_node_find(o.t, "l1");
	assert_int_equal(ocs_rewire(o.t->phys, xc, ch, 2, NULL, false, &dg), 0);
	n.t = ocs_apply(o.t->phys, xc);
	free(xc);
	t_net_plan(&n);
	assert_int_equal(route_diff_build(o.t, &o.plan, n.t, &n.plan, &d), 0);
	t_load_kernel(&k, &o);
	t_apply(&k, &d, &o, &n);
	t_same(&k, &n);
	assert_true(t_has_op(&d, n.t, "l0", ROUTE_OP_SET));
	assert_true(t_has_op(&d, n.t, "s0", ROUTE_OP_DEL));
	assert_true(t_has_op(&d, n.t, "l1", ROUTE_OP_NEIGH_DEL));
	assert_false(t_has_op(&d, n.t, "o0", ROUTE_OP_NEIGH_DEL));
	route_diff_count(&d, counts);
	assert_int_equal(counts[ROUTE_OP_NEIGH_DEL], 4); /* l0, l1, and s0's two ports */
	route_diff_done(&d);
	t_net_done(&n);
	t_net_done(&o);
}

static void test_links_used(void **state)
{
	uint32_t *mark, eps[2], i, on_s, other_leaf;
	struct t_net n;

	(void)state;
	t_build(&n, 3, 4, 0);
	mark = calloc(n.t->links.n, sizeof(*mark));
	assert_non_null(mark);
	eps[0] = 0; /* h0 on l0 */
	eps[1] = 2; /* h2 on l1 */
	assert_int_equal(route_links_used(n.t, &n.p, eps, 2, 5, mark), 0);
	for (i = on_s = other_leaf = 0; i < n.t->links.n; i++) {
		const struct topo_link *l = &n.t->links.v[i];
		uint32_t a = n.t->ports.v[l->port[0]].node;

		if (!mark[i])
			continue;
		assert_int_equal(mark[i], 5);
		on_s += l->tier == TOPO_TIER_FABRIC;
		other_leaf += !strcmp(n.t->nodes.v[a].name, "l2") || a == 4 || a == 5;
	}
	assert_int_equal(on_s, 8); /* both leaves' links to all four spines */
	assert_int_equal(other_leaf, 0);
	assert_int_equal(mark[0] + mark[2], 10); /* the two host links */
	assert_int_equal(mark[1], 0);
	free(mark);
	t_net_done(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_plan_no_ops),
		cmocka_unit_test(test_spine_fails_and_returns),
		cmocka_unit_test(test_ocs_rewire),
		cmocka_unit_test(test_links_used),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
