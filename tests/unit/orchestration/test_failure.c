// SPDX-License-Identifier: MIT
/* Failures and OCS in scenario files: `failures:` and `topology.ocs` parsed and refused
 * (scenario/scenario_yaml_net.c), events resolved against the topology
 * (scenario/failure.h), and failures.csv rows read back (collect/netev.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collect/netev.h"
#include "model/gen.h"
#include "scenario/failure.h"
#include "scenario/scenario_yaml.h"

#define T_TOPO                                                                          \
	"topology:\n  kind: leafspine\n  hosts_per_leaf: 2\n  leaves: 2\n  spines: 4\n" \
	"  host_rate: 1Gbit\n"
#define T_OCS                                                                           \
	"topology:\n  kind: leafspine\n  hosts_per_leaf: 2\n  leaves: 2\n  spines: 2\n" \
	"  host_rate: 1Gbit\n  ocs:\n    count: 1\n    delay: 20ms\n"                   \
	"    circuits: [[o0, l0, s0], [o0, l1, s0]]\n"

static void t_parse(const char *text, struct experiment *e)
{
	struct diag d = {0};
	int r = exp_parse_buffer("t.yaml", text, strlen(text), e, &d);

	if (r)
		print_error("%s\n", d.msg);
	assert_int_equal(r, 0);
}

static void t_bad(const char *text, const char *want)
{
	struct diag d = {0};
	struct experiment e;

	assert_int_equal(exp_parse_buffer("t.yaml", text, strlen(text), &e, &d), -EINVAL);
	assert_string_equal(d.msg, want);
	exp_done(&e);
}

static void test_parse_failures(void **state)
{
	struct experiment e;
	const struct exp_failure *f;

	(void)state;
	t_parse(T_TOPO "failures:\n"
		       "  - {at: 2s, node: s3}\n"
		       "  - {at: 1500ms, link: [l0, s1], for: 1s}\n"
		       "  - {at: 5s, link: [l1, s2.0], state: up}\n",
		&e);
	assert_int_equal(e.failures.v.n, 3);
	f = &e.failures.v.v[0];
	assert_int_equal(f->kind, EXP_EVENT_NODE);
	assert_string_equal(f->a, "s3");
	assert_true(f->at_ns == 2000000000ULL && !f->up && !f->for_ns);
	f = &e.failures.v.v[1];
	assert_int_equal(f->kind, EXP_EVENT_LINK);
	assert_string_equal(f->a, "l0");
	assert_string_equal(f->b, "s1");
	assert_true(f->for_ns == 1000000000ULL);
	assert_int_equal(f->line, 9);
	assert_true(e.failures.v.v[2].up);
	assert_string_equal(e.failures.v.v[2].b, "s2.0");
	exp_done(&e);
}

static void test_parse_ocs(void **state)
{
	struct experiment e;
	const struct scn_ocs *o;

	(void)state;
	t_parse(T_OCS "failures:\n  - at: 1s\n    rewire: [[o0, l0, s1], [o0, l1, s1]]\n", &e);
	o = &e.s.topology.ls.ocs;
	assert_int_equal(o->count, 1);
	assert_true(o->delay_ns == 20000000ULL);
	assert_int_equal(o->circuits.n, 2);
	assert_string_equal(o->circuits.v[1].a, "l1");
	assert_int_equal(o->circuits.v[1].line, 10);
	assert_int_equal(e.failures.v.v[0].kind, EXP_EVENT_REWIRE);
	assert_int_equal(e.failures.v.v[0].rewire_n, 2);
	assert_string_equal(e.failures.circuits.v[1].b, "s1");
	exp_done(&e);
	t_parse(T_TOPO "  ocs: {count: 2}\n", &e); /* the default delay: vClos §7 */
	assert_true(e.s.topology.ls.ocs.delay_ns == 50000000ULL);
	exp_done(&e);
}

static void test_parse_refused(void **state)
{
	(void)state;
	t_bad(T_TOPO "failures:\n  - {at: 1s, node: s3, link: [l0, s1]}\n",
	      "t.yaml:8:5: failures[0]: an event names exactly one of 'link', 'node' and 'rewire'");
	t_bad(T_TOPO "failures:\n  - {node: s3}\n",
	      "t.yaml:8:5: missing required field 'at' in 'failures[0]'");
	t_bad(T_TOPO "failures:\n  - {at: 1s, link: [l0]}\n",
	      "t.yaml:8:20: failures[0].link: expected [node, node] or [node, port] such as "
	      "[l0, s1], found a sequence");
	t_bad(T_TOPO "failures:\n  - {at: 1s, node: s3, state: broken}\n",
	      "t.yaml:8:31: failures[0].state: expected down or up, found 'broken'");
	t_bad(T_TOPO "failures:\n  - {at: 1s, node: s3, state: up, for: 1s}\n",
	      "t.yaml:8:40: failures[0].for: only a 'down' event comes back up by itself");
	t_bad(T_OCS "failures:\n  - {at: 1s, rewire: [[o0, l0, s1]], for: 1s}\n",
	      "t.yaml:12:5: failures[0]: a rewire has no 'state' or 'for'");
	t_bad(T_TOPO "  ocs: {count: 1, circuits: [[o0, l0]]}\n",
	      "t.yaml:7:30: topology.ocs.circuits[0]: expected a circuit [ocs, node, node] "
	      "such as [o0, l0, s1], found a sequence");
	t_bad(T_TOPO "  ocs: {spine_ports: 2}\n",
	      "t.yaml:7:8: missing required field 'count' in 'topology.ocs'");
}

static struct topo *t_topo(struct experiment *e, const char *text)
{
	struct topo *t = NULL;
	struct diag d = {0};

	t_parse(text, e);
	assert_int_equal(topo_build(&e->s, &t, &d), 0);
	return t;
}

static void test_plan(void **state)
{
	struct fail_plan p;
	struct experiment e;
	struct diag d = {0};
	struct topo *t;

	(void)state;
	t = t_topo(&e, T_TOPO "failures:\n"
			      "  - {at: 2s, node: s3}\n"
			      "  - {at: 1s, link: [l0, s1], for: 2s}\n");
	assert_int_equal(fail_plan_build(&e, t, &p, &d), 0);
	assert_int_equal(p.events.n, 3); /* the link's down and up, the spine's down */
	assert_true(p.events.v[0].at == 1000000000LL && !p.events.v[0].up);
	assert_string_equal(p.events.v[0].target, "l0-s1");
	assert_int_equal(p.events.v[0].cable_n, 1);
	assert_true(p.events.v[1].at == 2000000000LL);
	assert_string_equal(fail_state_name(&p.events.v[1]), "down");
	assert_int_equal(p.events.v[1].cable_n, 2); /* s3's two leaves */
	assert_true(p.events.v[2].at == 3000000000LL && p.events.v[2].up);
	/* the same cable both times */
	assert_int_equal(p.cables.v[p.events.v[0].cable_off], p.cables.v[p.events.v[2].cable_off]);
	fail_plan_done(&p);
	topo_free(t);
	exp_done(&e);
}

static void test_plan_refused(void **state)
{
	static const char *const bad[][2] = {
		{T_TOPO "failures:\n  - {at: 1s, node: s9}\n",
		 "t.yaml:8:5: failures[0]: no node named s9"},
		{T_TOPO "failures:\n  - {at: 1s, link: [l0, l1]}\n",
		 "t.yaml:8:5: failures[0]: no cable between l0 and l1 (with an OCS layer, name a "
		 "cable to an OCS, such as [l0, o0])"},
		{T_TOPO "failures:\n  - {at: 1s, rewire: [[o0, l0, s1]]}\n",
		 "t.yaml:8:5: failures[0]: a rewire needs an OCS layer (topology.ocs)"},
	};
	struct fail_plan p;
	struct experiment e;
	struct topo *t;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct diag d = {0};

		t = t_topo(&e, bad[i][0]);
		assert_int_equal(fail_plan_build(&e, t, &p, &d), -EINVAL);
		assert_string_equal(d.msg, bad[i][1]);
		fail_plan_done(&p);
		topo_free(t);
		exp_done(&e);
	}
}

/* With an OCS the cables are the physical ones: [l0, o0] is one. */
static void test_plan_ocs(void **state)
{
	struct fail_plan p;
	struct experiment e;
	struct diag d = {0};
	struct topo *t;

	(void)state;
	t = t_topo(&e, T_OCS "failures:\n  - {at: 1s, link: [l0, o0]}\n"
			     "  - {at: 2s, rewire: [[o0, l0, s1]]}\n");
	assert_int_equal(fail_plan_build(&e, t, &p, &d), 0);
	assert_int_equal(p.events.v[0].cable_n, 1);
	assert_int_equal(t->phys->links.v[p.cables.v[0]].tier, TOPO_TIER_OCS);
	assert_int_equal(p.events.v[1].change_n, 1);
	assert_string_equal(p.events.v[1].target, "o0:l0-s1");
	assert_int_equal(p.changes.v[0].b, topo_node_find(t, "s1"));
	fail_plan_done(&p);
	topo_free(t);
	exp_done(&e);
}

static void test_netev_roundtrip(void **state)
{
	struct rec_netev a = {
		.t = 3001322819LL,
		.event = "node",
		.state = "down",
		.target = "s3",
		.routes_ns = 1234567,
		.probe_ns = REC_NEVER,
		.probe = "h0>h4",
		.probe_answered = 15,
		.probe_sent = 16,
		.dark_ns = REC_NEVER,
		.nodes = 3,
		.route_ops = 12,
		.nft_ops = 2,
		.plan_ns = 54586,
		.apply_ns = 1000000,
		.result = "refused: circuit o0:l0-s0 carries job 0's traffic, \"busy\""};
	struct rec_netev b;
	char line[1024];

	(void)state;
	assert_true(rec_netev_format(line, sizeof(line), &a) < (int)sizeof(line));
	assert_int_equal(rec_netev_parse(line, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(rec_netev_parse("1,node,down", &b), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_failures),	cmocka_unit_test(test_parse_ocs),
		cmocka_unit_test(test_parse_refused),	cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_refused),	cmocka_unit_test(test_plan_ocs),
		cmocka_unit_test(test_netev_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
