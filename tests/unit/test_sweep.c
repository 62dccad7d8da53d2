// SPDX-License-Identifier: MIT
/* Sweeps in scenario files (orchestrator/scenario_sweep.c): the section read into axes, runs
 * enumerated variant-major with the first axis slowest, each run's values set in the parsed
 * experiment (also where the file does not give the field or its section), labels, and every
 * refusal pointing at the sweep's line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "orchestrator/scenario_sweep.h"
#include "orchestrator/scenario_yaml.h"

static const char t_base[] = "topology:\n"
			     "  kind: leafspine\n"
			     "  hosts_per_leaf: 4\n"
			     "  leaves: 2\n"
			     "  spines: 2\n"
			     "  host_rate: 1Gbit\n"
			     "routing:\n"
			     "  seed: 7\n"
			     "workload:\n"
			     "  jobs:\n"
			     "    - { model: gpt3, gpus: 4 }\n"
			     "    - { model: bert, gpus: 2 }\n";

/* t_base followed by `tail`, parsed for run choice (NULL: the baseline). */
static int t_parse(const char *tail, const uint32_t *choice, struct experiment *e, struct diag *d)
{
	char text[2048];

	snprintf(text, sizeof(text), "%s%s", t_base, tail);
	return exp_parse_buffer_variant("t.yaml", text, strlen(text), choice, e, d);
}

static void t_ok(const char *tail, const uint32_t *choice, struct experiment *e)
{
	struct diag d = {0};

	if (t_parse(tail, choice, e, &d))
		fail_msg("%s", d.msg);
}

/* Refused with a message that starts with want (the lists of accepted fields grow). */
static void t_bad(const char *tail, const char *want)
{
	struct diag d = {0};
	struct experiment e;

	assert_int_equal(t_parse(tail, NULL, &e, &d), -EINVAL);
	if (strncmp(d.msg, want, strlen(want)))
		fail_msg("got '%s', want '%s...'", d.msg, want);
	assert_int_equal(e.sweep.axes.n, 0);
	exp_done(&e);
}

static const char t_sweep[] = "sweep:\n"
			      "  topology.kind: [leafspine, best]\n"
			      "  workload.algorithm: [ring, hd, pairwise]\n"
			      "  seeds:\n"
			      "    routing.seed: [1, 2]\n";

static void test_axes(void **state)
{
	struct experiment e;

	(void)state;
	t_ok(t_sweep, NULL, &e);
	assert_int_equal(e.sweep.axes.n, 3);
	assert_string_equal(e.sweep.axes.v[0].path, "topology.kind");
	assert_false(e.sweep.axes.v[0].seed);
	assert_int_equal(e.sweep.axes.v[0].line, 14);
	assert_int_equal(e.sweep.axes.v[0].col, 3);
	assert_int_equal(e.sweep.axes.v[1].values.n, 3);
	assert_string_equal(e.sweep.axes.v[1].values.v[2], "pairwise");
	assert_true(e.sweep.axes.v[2].seed);
	assert_string_equal(e.sweep.axes.v[2].path, "routing.seed");
	assert_int_equal(e.sweep.variants, 6);
	assert_int_equal(e.sweep.seeds, 2);
	/* the baseline: every first value */
	assert_int_equal(e.s.topology.gen, SCN_GEN_LEAFSPINE);
	assert_int_equal(e.w.algo, COLL_RING);
	assert_int_equal(e.s.routing.seed, 1);
	exp_done(&e);
}

/* Run k = variant * seeds + seed; the first compared axis varies slowest. */
static void test_choice(void **state)
{
	static const uint32_t want[12][3] = {
		{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 1}, {0, 2, 0}, {0, 2, 1},
		{1, 0, 0}, {1, 0, 1}, {1, 1, 0}, {1, 1, 1}, {1, 2, 0}, {1, 2, 1},
	};
	struct experiment e;
	uint32_t c[3], k;

	(void)state;
	t_ok(t_sweep, NULL, &e);
	for (k = 0; k < 12; k++) {
		exp_sweep_choice(&e.sweep, k, c);
		assert_memory_equal(c, want[k], sizeof(c));
	}
	exp_done(&e);
}

static void test_variant_values(void **state)
{
	const uint32_t c[3] = {1, 2, 1};
	struct experiment e;
	char label[128];

	(void)state;
	t_ok(t_sweep, c, &e);
	assert_int_equal(e.s.topology.gen, SCN_GEN_BEST);
	assert_int_equal(e.w.algo, COLL_PAIRWISE);
	assert_int_equal(e.s.routing.seed, 2);
	assert_int_equal(e.s.topology.ls.leaves, 2); /* the rest as written */
	exp_sweep_label(&e.sweep, c, false, label, sizeof(label));
	assert_string_equal(label, "kind=best algorithm=pairwise");
	exp_sweep_label(&e.sweep, c, true, label, sizeof(label));
	assert_string_equal(label, "seed=2");
	exp_done(&e);
}

/* A field the file leaves out, in a section it leaves out or leaves empty, and a list entry. */
static void test_missing_and_entries(void **state)
{
	const uint32_t c[3] = {1, 1, 1};
	struct experiment e;
	char label[128];

	(void)state;
	t_ok("scheduler:\n"
	     "sweep:\n"
	     "  scheduler.placement: [first-fit, random]\n"
	     "  run.sample_interval: [100ms, 50ms]\n"
	     "  workload.jobs[1].gpus: [2, 4]\n",
	     c, &e);
	assert_int_equal(e.sched.place, SCHED_RANDOM);
	assert_int_equal(e.run.sample_ns, 50000000);
	assert_int_equal(e.w.jobs.v[1].gpus, 4);
	assert_int_equal(e.w.jobs.v[0].gpus, 4);
	assert_int_equal(e.sweep.variants, 8);
	assert_int_equal(e.sweep.seeds, 1);
	exp_sweep_label(&e.sweep, c, true, label, sizeof(label));
	assert_string_equal(label, "-");
	exp_done(&e);
}

/* Two axes ending alike are named by their whole paths; a sweep of seeds only has one
 * variant, the baseline. */
static void test_labels(void **state)
{
	const uint32_t c[2] = {1, 0};
	struct experiment e;
	char label[128];

	(void)state;
	t_ok("sweep:\n"
	     "  seeds:\n"
	     "    routing.seed: [3, 4]\n"
	     "    scheduler.seed: [5]\n",
	     c, &e);
	assert_int_equal(e.sweep.variants, 1);
	assert_int_equal(e.sweep.seeds, 2);
	assert_int_equal(e.s.routing.seed, 4);
	assert_int_equal(e.sched.seed, 5);
	exp_sweep_label(&e.sweep, c, true, label, sizeof(label));
	assert_string_equal(label, "routing.seed=4 scheduler.seed=5");
	exp_sweep_label(&e.sweep, c, false, label, sizeof(label));
	assert_string_equal(label, "baseline");
	exp_done(&e);
}

/* Values are checked where they are written: in the sweep's list. */
static void test_bad_value_at_sweep(void **state)
{
	const uint32_t c[1] = {1};
	struct experiment e;
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_parse("sweep:\n  topology.spines: [2, four]\n", c, &e, &d), -EINVAL);
	assert_string_equal(d.msg, "t.yaml:14:24: topology.spines: expected an integer from 1 to "
				   "65536, found 'four'");
	exp_done(&e);
}

static void test_refusals(void **state)
{
	(void)state;
	t_bad("sweep:\n  topology.spine: [1, 2]\n",
	      "t.yaml:14:3: unknown field 'spine' in 'topology' (expected one of: kind, "
	      "hosts_per_leaf, leaves, spines, ");
	t_bad("sweep:\n  nosuch.field: [1]\n",
	      "t.yaml:14:3: unknown field 'nosuch' at the top level (expected one of: name, "
	      "topology, ");
	t_bad("sweep:\n  topology: [1]\n",
	      "t.yaml:14:3: sweep: topology is a section or a list, not a value");
	t_bad("sweep:\n  routing.seed.x: [1]\n",
	      "t.yaml:14:3: sweep: routing.seed.x: 'x' is not inside a section");
	t_bad("sweep:\n  workload.jobs[5].gpus: [1]\n",
	      "t.yaml:14:3: sweep: workload.jobs[5].gpus: 'jobs' has no entry 5");
	t_bad("sweep:\n  routing.seed: 3\n",
	      "t.yaml:14:17: sweep.routing.seed: expected a list of values such as [1, 2], "
	      "found '3'");
	t_bad("sweep:\n  routing.seed: []\n",
	      "t.yaml:14:17: sweep.routing.seed: expected a list of values such as [1, 2], "
	      "found a sequence");
	t_bad("sweep:\n  routing.seed: [[1]]\n",
	      "t.yaml:14:18: sweep.routing.seed: expected a scalar value, found a sequence");
	t_bad("sweep:\n  Routing.Seed: [1]\n",
	      "t.yaml:14:3: sweep: expected a field path such as routing.seed, found "
	      "'Routing.Seed'");
	t_bad("sweep:\n  name: [a, b]\n",
	      "t.yaml:14:3: sweep: expected a field path such as routing.seed, found 'name'");
	t_bad("sweep:\n  routing.seed: [1]\n  seeds:\n    routing.seed: [2]\n",
	      "t.yaml:16:5: sweep: routing.seed is swept twice (first at line 14)");
	t_bad("sweep: 3\n",
	      "t.yaml:13:8: sweep: expected a mapping of field paths to lists of values, "
	      "found '3'");
}

/* sweep.cases: each case sets its paths together, a variant of its own (times the other
 * axes); its label names them; bad cases are refused at their place. */
static void test_cases(void **state)
{
	static const char sw[] = "sweep:\n"
				 "  cases:\n"
				 "    - {topology.kind: best}\n"
				 "    - {routing.policy: greedy, routing.enforce: sport}\n"
				 "    - {routing.policy: ecmp}\n"
				 "  workload.algorithm: [ring, hd]\n"
				 "  seeds:\n"
				 "    routing.seed: [1, 2]\n";
	const uint32_t c1[3] = {1, 1, 1}, c0[3] = {0, 0, 0};
	struct experiment e;
	char label[128];

	(void)state;
	t_ok(sw, c1, &e);
	assert_int_equal(e.sweep.variants, 6);
	assert_int_equal(e.sweep.seeds, 2);
	assert_true(e.sweep.axes.v[0].cases);
	assert_int_equal(e.s.topology.gen, SCN_GEN_LEAFSPINE);
	assert_int_equal(e.s.routing.policy, SCN_POLICY_GREEDY);
	assert_int_equal(e.s.routing.enforce, SCN_ENFORCE_SPORT);
	assert_int_equal(e.w.algo, COLL_HD);
	exp_sweep_label(&e.sweep, c1, false, label, sizeof(label));
	assert_string_equal(label, "policy=greedy enforce=sport algorithm=hd");
	exp_done(&e);
	t_ok(sw, c0, &e);
	assert_int_equal(e.s.topology.gen, SCN_GEN_BEST);
	assert_int_equal(e.s.routing.policy, SCN_POLICY_ECMP);
	exp_done(&e);
	t_bad("sweep:\n  cases: [best]\n", "t.yaml:14:11: sweep.cases: expected a mapping");
	t_bad("sweep:\n  cases: [{nosuch: 1}]\n", "t.yaml:14:");
	t_bad("sweep:\n  cases: [{routing.seed: 1}]\n  routing.seed: [1, 2]\n",
	      "t.yaml:14:12: sweep: routing.seed is swept twice");
	t_bad("sweep:\n  cases: [{routing.policy: vclos}]\n", "t.yaml:14:28: routing.policy:");
}

static void test_too_many_runs(void **state)
{
	char text[512];
	struct experiment e;
	struct diag d = {0};

	(void)state;
	snprintf(text, sizeof(text),
		 "sweep:\n"
		 "  routing.seed: [1,2,3,4,5,6,7,8,9,10]\n"
		 "  scheduler.seed: [1,2,3,4,5,6,7,8,9,10]\n"
		 "  workload.iterations: [1,2,3,4,5,6,7,8,9,10]\n"
		 "  seeds:\n"
		 "    routing.seeds.l0: [1,2,3,4,5,6,7,8,9,10,11]\n");
	assert_int_equal(t_parse(text, NULL, &e, &d), -EINVAL);
	assert_string_equal(d.msg, "t.yaml:14:3: sweep: more than 10000 runs (variants x seeds)");
	exp_done(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_axes),	       cmocka_unit_test(test_choice),
		cmocka_unit_test(test_variant_values), cmocka_unit_test(test_missing_and_entries),
		cmocka_unit_test(test_labels),	       cmocka_unit_test(test_bad_value_at_sweep),
		cmocka_unit_test(test_refusals),       cmocka_unit_test(test_too_many_runs),
		cmocka_unit_test(test_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
