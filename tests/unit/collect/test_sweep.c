// SPDX-License-Identifier: MIT
/* Sweeps in scenario files (scenario/scenario_sweep.c, scenario/sweep_names.c): the section
 * read into axes, runs enumerated variant-major with the first axis slowest, each run's values
 * set in the parsed experiment (also where the file does not give the field or its section),
 * labels, and every refusal pointing at the sweep's line. sweep.baseline, an axis or a case
 * named by its label: each variant's baseline, the comparison against it paired by its other
 * values and seed (collect/sweep.c), its blocks per baseline (collect/sweep_txt.c,
 * collect/sweep_out.c, report/sweep_compare.c) and sweep.json keeping it
 * (report/sweep_report.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "collect/summary.h"
#include "report/results.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"
#include "report/sweep_report.h"

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

/* A case that makes sections the document lacks adds nodes, and libyaml may move every node to
 * make room: at any size of document (one of them makes it grow), the case's values land and a
 * field refused in a made section is named at the case's key. libFuzzer found the key's place
 * read from where the nodes had been (SANITIZE=1 shows such a read; tests/fuzz/regress/). */
static void test_case_new_sections(void **state)
{
	char text[4096], want[128];
	struct experiment e;
	struct diag d;
	int pad, i, o;

	(void)state;
	for (pad = 0; pad < 40; pad++) {
		o = snprintf(text, sizeof(text),
			     "topology: {kind: leafspine, hosts_per_leaf: 2, leaves: 2, spines: 1, "
			     "host_rate: 1Gbit}\nworkload:\n  jobs:\n");
		for (i = 0; i <= pad; i++)
			o += snprintf(text + o, sizeof(text) - (size_t)o,
				      "    - {model: bert, gpus: 1}\n");
		snprintf(text + o, sizeof(text) - (size_t)o,
			 "sweep:\n  cases:\n    - {shaping.qdisc: tbf, emulation.rate_scale: "
			 "0.5}\n");
		diag_clear(&d);
		if (exp_parse_buffer("t.yaml", text, strlen(text), &e, &d))
			fail_msg("%d jobs: %s", pad + 1, d.msg);
		assert_int_equal(e.s.shaping.qdisc, SCN_QDISC_TBF);
		assert_true(e.s.emulation.rate_scale == 0.5);
		exp_done(&e);
		snprintf(text + o, sizeof(text) - (size_t)o,
			 "sweep:\n  cases:\n    - {shaping.qdisc: tbf, emulation.nosuch: 1}\n");
		snprintf(want, sizeof(want), "t.yaml:%d:28: unknown field 'nosuch' in 'emulation'",
			 pad + 7);
		diag_clear(&d);
		assert_int_equal(exp_parse_buffer("t.yaml", text, strlen(text), &e, &d), -EINVAL);
		if (strncmp(d.msg, want, strlen(want)))
			fail_msg("%d jobs: got '%s', want '%s...'", pad + 1, d.msg, want);
		exp_done(&e);
	}
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

/* sweep.baseline may come before the axis it names; seed axes between compared ones do not
 * count. Variant v = kind * 6 + algorithm * 2 + interval. */
static const char t_paired[] = "sweep:\n"
			       "  topology.kind: [leafspine, best]\n"
			       "  baseline: workload.algorithm\n"
			       "  seeds:\n"
			       "    routing.seed: [1, 2]\n"
			       "  workload.algorithm: [ring, hd, pairwise]\n"
			       "  run.sample_interval: [100ms, 50ms]\n";

/* Each variant's baseline: its own values with the first algorithm; run k's baseline run has
 * the same choice with that axis at 0. Without the key, variant 0 for all. */
static void test_baseline_map(void **state)
{
	static const uint32_t want[12] = {0, 1, 0, 1, 0, 1, 6, 7, 6, 7, 6, 7};
	uint32_t c[4], cb[4], v, k;
	struct experiment e;
	char label[64];

	(void)state;
	t_ok(t_paired, NULL, &e);
	assert_true(e.sweep.base_given);
	assert_int_equal(e.sweep.base_axis, 2);
	assert_int_equal(e.sweep.variants, 12);
	for (v = 0; v < 12; v++)
		assert_int_equal(exp_sweep_baseline(&e.sweep, v), want[v]);
	for (k = 0; k < 24; k++) {
		exp_sweep_choice(&e.sweep, k, c);
		exp_sweep_choice(&e.sweep, exp_sweep_baseline(&e.sweep, k / 2) * 2 + k % 2, cb);
		c[2] = 0;
		assert_memory_equal(c, cb, sizeof(c));
	}
	exp_sweep_base_label(&e.sweep, label, sizeof(label));
	assert_string_equal(label, "algorithm=ring");
	exp_done(&e);

	t_ok(t_sweep, NULL, &e);
	assert_false(e.sweep.base_given);
	for (v = 0; v < 6; v++)
		assert_int_equal(exp_sweep_baseline(&e.sweep, v), 0);
	exp_sweep_base_label(&e.sweep, label, sizeof(label));
	assert_string_equal(label, "");
	exp_done(&e);

	t_ok("sweep:\n"
	     "  routing.seed: [1, 2]\n"
	     "  cases: [{topology.kind: best}, {routing.policy: greedy}]\n"
	     "  baseline: cases\n",
	     NULL, &e);
	assert_int_equal(exp_sweep_baseline(&e.sweep, 3), 2);
	assert_int_equal(exp_sweep_baseline(&e.sweep, 1), 0);
	exp_sweep_base_label(&e.sweep, label, sizeof(label));
	assert_string_equal(label, "kind=best");
	exp_done(&e);
}

/* Only a compared axis, as written, is a baseline; the message lists them at the key, with
 * an example of the other spelling, a value's label. */
static void test_baseline_refusals(void **state)
{
	(void)state;
	t_bad("sweep:\n  topology.spines: [2, 1]\n  baseline: topology.spine\n",
	      "t.yaml:15:3: sweep.baseline: expected the path of a compared axis "
	      "(topology.spines) or a value's label (such as spines=2), "
	      "found 'topology.spine'");
	t_bad("sweep:\n  topology.spines: [2, 1]\n  workload.algorithm: [ring, hd]\n"
	      "  seeds:\n    routing.seed: [1, 2]\n  baseline: routing.seed\n",
	      "t.yaml:18:3: sweep.baseline: expected the path of a compared axis (topology.spines, "
	      "workload.algorithm) or a value's label (such as spines=2), found 'routing.seed'");
	t_bad("sweep:\n  topology.spines: [2, 1]\n  baseline: [topology.spines]\n",
	      "t.yaml:15:3: sweep.baseline: expected the path of a compared axis "
	      "(topology.spines) or a value's label (such as spines=2), "
	      "found a sequence");
	t_bad("sweep:\n  seeds:\n    routing.seed: [1, 2]\n  baseline: routing.seed\n",
	      "t.yaml:16:3: sweep.baseline: expected the path of a compared axis (none), found "
	      "'routing.seed'");
}

/* sweep.baseline naming a case: each variant is compared with that case at its own values on
 * the other axes (here the load), whichever place the case has in the list. Variant v = case *
 * 2 + interarrival. */
static const char t_named[] = "sweep:\n"
			      "  cases:\n"
			      "    - {routing.policy: ecmp}\n"
			      "    - {routing.policy: ecmp, scheduler.placement: first-fit}\n"
			      "    - {topology.kind: best}\n"
			      "  run.sample_interval: [100ms, 50ms]\n"
			      "  seeds:\n"
			      "    routing.seed: [1, 2]\n"
			      "  baseline: kind=best\n";

static void test_baseline_named(void **state)
{
	static const uint32_t want[6] = {4, 5, 4, 5, 4, 5};
	uint32_t c[3], cb[3], v, k;
	struct experiment e;
	char text[512], label[128];

	(void)state;
	t_ok(t_named, NULL, &e);
	assert_true(e.sweep.base_given);
	assert_int_equal(e.sweep.base_axis, 0);
	assert_int_equal(e.sweep.base_value, 2);
	for (v = 0; v < 6; v++)
		assert_int_equal(exp_sweep_baseline(&e.sweep, v), want[v]);
	for (k = 0; k < 12; k++) { /* the baseline's run: the same choice, the case Best's */
		exp_sweep_choice(&e.sweep, k, c);
		exp_sweep_choice(&e.sweep, exp_sweep_baseline(&e.sweep, k / 2) * 2 + k % 2, cb);
		c[0] = 2;
		assert_memory_equal(c, cb, sizeof(c));
	}
	exp_sweep_base_label(&e.sweep, label, sizeof(label));
	assert_string_equal(label, "kind=best");
	exp_sweep_choice(&e.sweep, 3 * 2, c); /* v3: ecmp first-fit at 50ms */
	exp_sweep_group_label(&e.sweep, c, label, sizeof(label));
	assert_string_equal(label, "sample_interval=50ms");
	exp_sweep_own_label(&e.sweep, c, label, sizeof(label));
	assert_string_equal(label, "policy=ecmp placement=first-fit");
	exp_done(&e);

	/* a case's whole label wins over a longer one that has its words */
	snprintf(text, sizeof(text), "%.*s  baseline: policy=ecmp\n",
		 (int)(strstr(t_named, "  baseline:") - t_named), t_named);
	t_ok(text, NULL, &e);
	assert_int_equal(e.sweep.base_value, 0);
	assert_int_equal(exp_sweep_baseline(&e.sweep, 5), 1);
	exp_done(&e);
	/* some of a label's words, when they pick one case; words in any order */
	snprintf(text, sizeof(text), "%.*s  baseline: placement=first-fit  policy=ecmp\n",
		 (int)(strstr(t_named, "  baseline:") - t_named), t_named);
	t_ok(text, NULL, &e);
	assert_int_equal(e.sweep.base_value, 1);
	exp_done(&e);
	/* a value of an axis other than cases */
	snprintf(text, sizeof(text), "%.*s  baseline: sample_interval=50ms\n",
		 (int)(strstr(t_named, "  baseline:") - t_named), t_named);
	t_ok(text, NULL, &e);
	assert_int_equal(e.sweep.base_axis, 1);
	assert_int_equal(e.sweep.base_value, 1);
	assert_int_equal(exp_sweep_baseline(&e.sweep, 2), 3);
	exp_sweep_choice(&e.sweep, 2 * 2, c);
	exp_sweep_group_label(&e.sweep, c, label, sizeof(label));
	assert_string_equal(label, "policy=ecmp placement=first-fit");
	exp_sweep_own_label(&e.sweep, c, label, sizeof(label));
	assert_string_equal(label, "sample_interval=100ms");
	exp_done(&e);
	/* the one compared axis: one group, named by nothing */
	t_ok("sweep:\n  cases: [{routing.policy: ecmp}, {topology.kind: best}]\n"
	     "  baseline: kind=best\n",
	     NULL, &e);
	assert_int_equal(exp_sweep_baseline(&e.sweep, 0), 1);
	exp_sweep_choice(&e.sweep, 0, c);
	exp_sweep_group_label(&e.sweep, c, label, sizeof(label));
	assert_string_equal(label, "");
	exp_done(&e);
}

/* A label that names no case or several is refused at the value, with the labels to choose
 * from; a seed's value is not compared. */
static void test_baseline_named_refusals(void **state)
{
	struct experiment e;
	char text[512];
	int head = (int)(strstr(t_named, "  baseline:") - t_named);

	(void)state;
	snprintf(text, sizeof(text), "%.*s  baseline: kind=bst\n", head, t_named);
	t_bad(text, "t.yaml:21:13: sweep.baseline: no case or axis value is labelled 'kind=bst' "
		    "(the compared ones: policy=ecmp; policy=ecmp placement=first-fit; kind=best; "
		    "sample_interval=100ms; sample_interval=50ms)");
	snprintf(text, sizeof(text), "%.*s  baseline: placement=first-fit\n", head, t_named);
	t_ok(text, NULL, &e); /* one case has it: fine */
	assert_int_equal(e.sweep.base_value, 1);
	exp_done(&e);
	snprintf(text, sizeof(text), "%.*s  baseline: policy=ecmp kind=best\n", head, t_named);
	t_bad(text, "t.yaml:21:13: sweep.baseline: no case or axis value is labelled "
		    "'policy=ecmp kind=best' (the compared ones: ");
	snprintf(text, sizeof(text), "%.*s  baseline: seed=2\n", head, t_named);
	t_bad(text, "t.yaml:21:13: sweep.baseline: no case or axis value is labelled 'seed=2' ");
	t_bad("sweep:\n  cases:\n    - {routing.policy: ecmp, scheduler.placement: random}\n"
	      "    - {routing.policy: ecmp, scheduler.placement: first-fit}\n"
	      "    - {topology.kind: best}\n"
	      "  baseline: policy=ecmp\n",
	      "t.yaml:18:13: sweep.baseline: 'policy=ecmp' names 2 cases or axis values "
	      "(policy=ecmp placement=random; policy=ecmp placement=first-fit): give more of one's "
	      "label");
	t_bad("sweep:\n  cases: [{routing.policy: ecmp}, {routing.policy: ecmp}]\n"
	      "  baseline: policy=ecmp\n",
	      "t.yaml:15:13: sweep.baseline: 'policy=ecmp' names 2 cases or axis values "
	      "(policy=ecmp; policy=ecmp): give more of one's label");
	t_bad("sweep:\n  seeds:\n    routing.seed: [1, 2]\n  baseline: seed=1\n",
	      "t.yaml:16:13: sweep.baseline: no case or axis value is labelled 'seed=1' (the "
	      "compared ones: none)");
}

static struct col_sweep_run t_srun(uint32_t variant, uint32_t base, uint64_t seed, double jct)
{
	struct col_sweep_run r = {.variant = variant, .seed = seed, .baseline = base};
	unsigned k;

	for (k = 0; k < COL_M_N; k++)
		r.v[k] = NAN;
	r.v[COL_M_AVG_JCT] = jct;
	return r;
}

static void t_cell(const struct col_sweep *s, uint32_t v, uint32_t n, double mean, double min,
		   double max)
{
	const struct col_sweep_cell *c = col_sweep_cell(s, v, COL_M_AVG_JCT);

	assert_int_equal(c->n, n);
	assert_float_equal(c->mean, mean, 1e-12);
	assert_float_equal(c->min, min, 1e-12);
	assert_float_equal(c->max, max, 1e-12);
}

static void t_starts(const char *got, const char *want)
{
	if (strncmp(got, want, strlen(want)))
		fail_msg("got '%.200s', want '%s...'", got, want);
}

/* Two groups, v1 against v0 and v3 against v2, paired by seed (v3's seed 3 against v2's mean
 * 15); the baselines get 1; v5's baseline v4 never ran: values, no ratios. */
static void test_baseline_compare(void **state)
{
	const struct col_sweep_run runs[] = {
		t_srun(0, 0, 1, 2),  t_srun(0, 0, 2, 4),  t_srun(1, 0, 1, 3), t_srun(1, 0, 2, 8),
		t_srun(2, 2, 1, 10), t_srun(2, 2, 2, 20), t_srun(3, 2, 1, 5), t_srun(3, 2, 2, 30),
		t_srun(3, 2, 3, 30), t_srun(5, 4, 1, 7),
	};
	const uint32_t bases[6] = {0, 0, 2, 2, 4, 4};
	struct col_sweep_groups g;
	const struct col_sweep_base b = {.label = "spines=4", .variant = bases, .groups = &g};
	struct diag d = {0};
	struct col_sweep s;
	char buf[8192];
	json_t *j, *v3;

	(void)state;
	assert_int_equal(col_sweep_groups_make(bases, 6, &g), 0);
	assert_int_equal(col_sweep_build(runs, 10, &s, &d), 0);
	assert_int_equal(s.variants, 6);
	t_cell(&s, 0, 2, 1, 1, 1);
	t_cell(&s, 1, 2, 1.75, 1.5, 2);
	t_cell(&s, 2, 2, 1, 1, 1);
	t_cell(&s, 3, 3, 4.0 / 3, 0.5, 2);
	assert_int_equal(col_sweep_cell(&s, 5, COL_M_AVG_JCT)->n, 0);
	assert_float_equal(col_sweep_cell(&s, 5, COL_M_AVG_JCT)->value, 7, 1e-12);

	col_sweep_txt_base(buf, sizeof(buf), &s, NULL, &b);
	t_starts(buf, "ratios to each variant's baseline (the same values with spines=4), mean "
		      "over seeds and range\n\nall variants: ratios to v0\nmetric ");
	/* a block per baseline, unnamed without names; v4 never ran */
	assert_non_null(strstr(buf, "\nall variants: ratios to v2\nmetric "));
	assert_non_null(strstr(buf, "\nall variants: no ratios, v4 has no run\nmetric "));
	assert_non_null(strstr(buf, "\navg_jct    paper s  v2                            15        "
				    "1        1        1     2\n                    v3      "));
	col_sweep_txt(buf, sizeof(buf), &s, NULL);
	t_starts(buf, "ratios to the baseline (the first variant), mean over seeds and range\n");

	j = col_sweep_json_base(&s, NULL, &b);
	assert_string_equal(json_string_value(json_object_get(j, "baseline")), "spines=4");
	v3 = json_array_get(json_object_get(j, "variants"), 3);
	assert_int_equal(json_integer_value(json_object_get(v3, "baseline")), 2);
	json_decref(j);
	j = col_sweep_json(&s, NULL);
	v3 = json_array_get(json_object_get(j, "variants"), 3);
	assert_null(json_object_get(v3, "baseline"));
	json_decref(j);
	col_sweep_done(&s);

	assert_int_equal(col_sweep_build(runs + 9, 1, &s, &d), -EINVAL);
	assert_string_equal(d.msg, "sweep: no run of any variant's baseline");
	col_sweep_done(&s);
	col_sweep_groups_done(&g);
}

/* Groups of variants sharing a baseline, in the order of their first variants, each in order;
 * a baseline that is no variant is refused. */
static void test_baseline_groups(void **state)
{
	static const uint32_t bases[7] = {4, 5, 6, 4, 5, 6, 4}, order[7] = {0, 3, 6, 1, 4, 2, 5};
	static const uint32_t start[4] = {0, 3, 5, 7}, bad[2] = {0, 2};
	struct col_sweep_groups g;

	(void)state;
	assert_int_equal(col_sweep_groups_make(bases, 7, &g), 0);
	assert_int_equal(g.n, 3);
	assert_memory_equal(g.order, order, sizeof(order));
	assert_memory_equal(g.start, start, sizeof(start));
	assert_int_equal(g.baseline[0], 4);
	assert_int_equal(g.baseline[1], 5);
	assert_int_equal(g.baseline[2], 6);
	col_sweep_groups_done(&g);
	assert_int_equal(col_sweep_groups_make(bad, 2, &g), -EINVAL);
	col_sweep_groups_done(&g);
}

/* t_named's runs: avg_jct 10 x (case + 1) + 5 x interval + seed, so a run paired with Best at
 * the other interval or seed would give other ratios. skip: a variant whose runs are left out
 * (6: none). */
static size_t t_named_runs(const struct sweep_plan *p, uint32_t skip, struct col_sweep_run *out)
{
	size_t i, n = 0;

	for (i = 0; i < p->runs.n; i++) {
		const struct sweep_run *r = &p->runs.v[i];

		if (r->variant == skip)
			continue;
		out[n++] = t_srun(r->variant, r->baseline, r->seed,
				  10.0 * (r->variant / 2 + 1) + 5.0 * (r->variant % 2) + r->seed);
	}
	return n;
}

/* The comparison of t_named from its plan, as sweep_report makes it: every variant listed,
 * groups by baseline, the blocks' names from the plan's axes; into buf and *j. */
static void t_named_compare(const struct sweep_plan *p, struct col_sweep *s, char *buf, size_t len,
			    json_t **j)
{
	uint32_t bases[6];
	struct col_sweep_groups g;
	struct sweep_names nm;
	struct col_sweep_base b = {.label = p->base_label, .variant = bases, .groups = &g};
	size_t i;

	for (i = 0; i < p->runs.n; i++)
		bases[p->runs.v[i].variant] = p->runs.v[i].baseline;
	assert_int_equal(sweep_names_make(p, &nm), 0);
	assert_int_equal(nm.group.n, 6);
	b.group = (const char *const *)nm.group.v;
	b.own = (const char *const *)nm.own.v;
	assert_int_equal(col_sweep_groups_make(bases, 6, &g), 0);
	assert_int_equal(col_sweep_pad(s, 6), 0);
	assert_int_equal(s->variants, 6);
	col_sweep_txt_base(buf, len, s, (const char *const *)p->variants.v, &b);
	*j = col_sweep_json_base(s, (const char *const *)p->variants.v, &b);
	col_sweep_groups_done(&g);
	sweep_names_done(&nm);
}

/* sweep.baseline: kind=best (the last case): each run is paired with Best's run at its own
 * interval and seed, the table printed in one block per interval; with Best's runs at 50ms
 * missing, that block says so and has no ratios, the other keeps its own. */
static void test_baseline_per_load(void **state)
{
	struct col_sweep_run runs[12];
	struct sweep_plan p;
	struct diag d = {0};
	struct experiment e;
	struct col_sweep s;
	char buf[16384];
	json_t *j, *g, *v1;

	(void)state;
	t_ok(t_named, NULL, &e);
	assert_int_equal(sweep_plan_make(&e, &p), 0);
	assert_int_equal(col_sweep_build(runs, t_named_runs(&p, 6, runs), &s, &d), 0);
	t_cell(&s, 0, 2, (10.0 / 30 + 11.0 / 31) / 2, 10.0 / 30, 11.0 / 31);
	t_cell(&s, 1, 2, (15.0 / 35 + 16.0 / 36) / 2, 15.0 / 35, 16.0 / 36);
	t_cell(&s, 3, 2, (25.0 / 35 + 26.0 / 36) / 2, 25.0 / 35, 26.0 / 36);
	t_cell(&s, 4, 2, 1, 1, 1);
	t_cell(&s, 5, 2, 1, 1, 1);
	t_named_compare(&p, &s, buf, sizeof(buf), &j);
	t_starts(buf,
		 "ratios to each variant's baseline (the same values with kind=best), mean "
		 "over seeds and range\n\n"
		 "sample_interval=100ms: ratios to v4 (kind=best)\n"
		 "metric     unit     variant                               value    ratio      "
		 "min      max  runs\n");
	assert_non_null(
		strstr(buf, "\navg_jct    paper s  policy=ecmp                            "
			    "10.5   0.3441   0.3333   0.3548     2\n"
			    "                    policy=ecmp placement=first-fit        20.5    "
			    "0.672   0.6667   0.6774     2\n"
			    "                    kind=best                              30.5     "
			    "   1        1        1     2\n"));
	assert_non_null(strstr(buf, "\n\nsample_interval=50ms: ratios to v5 (kind=best)\n"));
	g = json_object_get(j, "groups");
	assert_int_equal(json_array_size(g), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(g, 1), "name")),
			    "sample_interval=50ms");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 1), "baseline")), 5);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 1), "baseline_runs")),
			 2);
	assert_int_equal(json_integer_value(json_array_get(
				 json_object_get(json_array_get(g, 1), "variants"), 1)),
			 3);
	v1 = json_array_get(json_object_get(j, "variants"), 1);
	assert_int_equal(json_integer_value(json_object_get(v1, "baseline")), 5);
	assert_string_equal(json_string_value(json_object_get(v1, "group")),
			    "sample_interval=50ms");
	assert_string_equal(json_string_value(json_object_get(v1, "axis_value")), "policy=ecmp");
	json_decref(j);
	col_sweep_done(&s);

	/* Best never ran at 50ms */
	assert_int_equal(col_sweep_build(runs, t_named_runs(&p, 5, runs), &s, &d), 0);
	t_cell(&s, 0, 2, (10.0 / 30 + 11.0 / 31) / 2, 10.0 / 30, 11.0 / 31);
	assert_int_equal(col_sweep_cell(&s, 1, COL_M_AVG_JCT)->n, 0);
	assert_float_equal(col_sweep_cell(&s, 1, COL_M_AVG_JCT)->value, 15.5, 1e-12);
	assert_true(isnan(col_sweep_cell(&s, 3, COL_M_AVG_JCT)->mean));
	t_named_compare(&p, &s, buf, sizeof(buf), &j);
	assert_non_null(strstr(buf, "\n\nsample_interval=50ms: no ratios, v5 (kind=best) has no "
				    "run\n"));
	assert_non_null(strstr(buf,
			       "\navg_jct    paper s  policy=ecmp                            "
			       "15.5        -        -        -     0\n"
			       "                    policy=ecmp placement=first-fit        25.5    "
			       "    -        -        -     0\n"
			       "                    kind=best                                 -    "
			       "    -        -        -     0\n"));
	assert_int_equal(json_array_size(json_object_get(j, "variants")), 6);
	g = json_object_get(j, "groups");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 0), "baseline_runs")),
			 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 1), "baseline_runs")),
			 0);
	assert_true(json_is_null(json_object_get(
		json_object_get(json_object_get(json_array_get(json_object_get(j, "variants"), 3),
						"metrics"),
				"avg_jct"),
		"ratio")));
	json_decref(j);
	col_sweep_done(&s);
	sweep_plan_done(&p);
	exp_done(&e);
}

/* sweep.json keeps each run's baseline and the label, and reads them back; a file without
 * them (written before sweep.baseline) compares with variant 0. */
static void test_baseline_plan(void **state)
{
	static const char old[] = "{\"schema\": \"testbed-sweep/1\", \"scenario\": \"t\", "
				  "\"axes\": [], \"variants\": [\"a\", \"b\"], \"seeds\": [\"-\"], "
				  "\"runs\": [{\"dir\": \"v1-s0\", \"variant\": 1, \"seed\": 0, "
				  "\"status\": \"ok\", \"error\": \"\"}]}";
	char dir[] = "/tmp/tbunit-sweep.XXXXXX", path[64];
	struct sweep_plan p, q;
	struct diag d = {0};
	struct experiment e;
	struct wdir w;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(wdir_open(&w, dir, 0, &d), 0);
	t_ok(t_paired, NULL, &e);
	assert_int_equal(sweep_plan_make(&e, &p), 0);
	assert_string_equal(p.base_path, "workload.algorithm");
	assert_string_equal(p.base_label, "algorithm=ring");
	assert_int_equal(p.runs.n, 24);
	assert_int_equal(p.runs.v[21].variant, 10); /* best, pairwise, 100ms */
	assert_int_equal(p.runs.v[21].baseline, 6); /* best, ring, 100ms */
	assert_int_equal(sweep_plan_write(&w, &p, &d), 0);
	assert_int_equal(sweep_plan_read(&w, &q, &d), 0);
	assert_string_equal(q.base_path, p.base_path);
	assert_string_equal(q.base_label, p.base_label);
	for (i = 0; i < p.runs.n; i++)
		assert_int_equal(q.runs.v[i].baseline, p.runs.v[i].baseline);
	sweep_plan_done(&p);
	sweep_plan_done(&q);
	exp_done(&e);

	assert_int_equal(wdir_write(&w, SWEEP_FILE, old, strlen(old), WDIR_REPLACE, &d), 0);
	assert_int_equal(sweep_plan_read(&w, &q, &d), 0);
	assert_string_equal(q.base_label, "");
	assert_int_equal(q.runs.v[0].baseline, 0);
	sweep_plan_done(&q);
	wdir_close(&w);
	snprintf(path, sizeof(path), "%s/%s", dir, SWEEP_FILE);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* sweep.json keeps a named baseline's value and label; runs compared with a later variant (the
 * case Best is listed last) are read back as they were written. */
static void test_baseline_named_plan(void **state)
{
	char dir[] = "/tmp/tbunit-named.XXXXXX", path[64];
	struct sweep_plan p, q;
	struct diag d = {0};
	struct experiment e;
	struct wdir w;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(wdir_open(&w, dir, 0, &d), 0);
	t_ok(t_named, NULL, &e);
	assert_int_equal(sweep_plan_make(&e, &p), 0);
	assert_string_equal(p.base_path, "cases");
	assert_string_equal(p.base_label, "kind=best");
	assert_int_equal(p.base_value, 2);
	assert_int_equal(p.runs.v[1].baseline, 4); /* v0-s1 against Best at 100ms */
	assert_int_equal(sweep_plan_write(&w, &p, &d), 0);
	assert_int_equal(sweep_plan_read(&w, &q, &d), 0);
	assert_string_equal(q.base_label, "kind=best");
	assert_int_equal(q.base_value, 2);
	assert_int_equal(q.runs.n, p.runs.n);
	for (i = 0; i < p.runs.n; i++)
		assert_int_equal(q.runs.v[i].baseline, p.runs.v[i].baseline);
	sweep_plan_done(&p);
	sweep_plan_done(&q);
	exp_done(&e);
	wdir_close(&w);
	snprintf(path, sizeof(path), "%s/%s", dir, SWEEP_FILE);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* sweep.paper: a variant by index or label, metrics by name; kept in sweep.json. */
static void test_paper_map(void **state)
{
	char text[512], dir[] = "/tmp/tbunit-paper.XXXXXX", path[64];
	struct sweep_plan p, q;
	struct diag d = {0};
	struct experiment e;
	struct wdir w;

	(void)state;
	snprintf(text, sizeof(text),
		 "%s  paper:\n    v7: {avg_jrt: 1.5, avg_jwt: 2}\n"
		 "    kind=best algorithm=hd sample_interval=100ms: {util_mean: 0.5}\n",
		 t_paired);
	t_ok(text, NULL, &e);
	assert_int_equal(e.sweep.paper.n, 3);
	assert_int_equal(e.sweep.paper.v[0].variant, 7);
	assert_int_equal(e.sweep.paper.v[0].metric, COL_M_AVG_JRT);
	assert_float_equal(e.sweep.paper.v[0].ratio, 1.5, 0);
	assert_int_equal(e.sweep.paper.v[1].metric, COL_M_AVG_JWT);
	assert_int_equal(e.sweep.paper.v[2].variant, 8);
	assert_int_equal(e.sweep.paper.v[2].metric, COL_M_UTIL);

	assert_non_null(mkdtemp(dir));
	assert_int_equal(wdir_open(&w, dir, 0, &d), 0);
	assert_int_equal(sweep_plan_make(&e, &p), 0);
	assert_int_equal(sweep_plan_write(&w, &p, &d), 0);
	assert_int_equal(sweep_plan_read(&w, &q, &d), 0);
	wdir_close(&w);
	assert_int_equal(q.paper.n, 3);
	assert_memory_equal(q.paper.v, p.paper.v, 3 * sizeof(*q.paper.v));
	sweep_plan_done(&p);
	sweep_plan_done(&q);
	exp_done(&e);
	snprintf(path, sizeof(path), "%s/%s", dir, SWEEP_FILE);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

static void test_paper_refusals(void **state)
{
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%s  paper:\n    v12: {avg_jrt: 1.5}\n", t_paired);
	t_bad(text, "t.yaml:21:5: sweep.paper: expected a variant (v0 to v11, or its label as "
		    "comparison.txt lists it), found 'v12'");
	snprintf(text, sizeof(text), "%s  paper:\n    kind=best: {avg_jrt: 1.5}\n", t_paired);
	t_bad(text, "t.yaml:21:5: sweep.paper: expected a variant (v0 to v11");
	snprintf(text, sizeof(text), "%s  paper:\n    v1: {avg_jrx: 1.5}\n", t_paired);
	t_bad(text, "t.yaml:21:10: sweep.paper.v1: expected a metric (avg_jwt, avg_jrt, avg_jct, ");
	snprintf(text, sizeof(text), "%s  paper:\n    v1: {avg_jrt: -1}\n", t_paired);
	t_bad(text, "t.yaml:21:19: sweep.paper.v1.avg_jrt: expected a positive number, found "
		    "'-1'");
	snprintf(text, sizeof(text), "%s  paper:\n    v1: 1.5\n", t_paired);
	t_bad(text, "t.yaml:21:9: sweep.paper.v1: expected a mapping of metrics to ratios such as "
		    "{avg_jrt: 1.27}, found '1.5'");
	snprintf(text, sizeof(text),
		 "%s  paper:\n    v1: {avg_jrt: 1.5}\n"
		 "    kind=leafspine algorithm=ring sample_interval=50ms: {avg_jrt: 2}\n",
		 t_paired);
	t_bad(text, "t.yaml:22:58: sweep.paper.kind=leafspine algorithm=ring "
		    "sample_interval=50ms: avg_jrt is given twice");
	snprintf(text, sizeof(text), "%s  paper: [1]\n", t_paired);
	t_bad(text, "t.yaml:20:10: sweep.paper: expected a mapping of variants to {metric: "
		    "ratio}, found a sequence");
}

/* The paper's figures: a column of the table and a line each below it, with the throughput
 * change for running times (not for completion times, which include waiting); in
 * comparison.json beside the ratio. */
static void test_paper_table(void **state)
{
	struct col_sweep_run runs[] = {t_srun(0, 0, 1, 2), t_srun(1, 0, 1, 3)};
	double paper[2 * COL_M_N];
	const struct col_sweep_base b = {.paper = paper};
	struct diag d = {0};
	struct col_sweep s;
	char buf[8192];
	json_t *j, *c;
	unsigned k;

	(void)state;
	for (k = 0; k < 2 * COL_M_N; k++)
		paper[k] = NAN;
	paper[COL_M_N + COL_M_AVG_JCT] = 2.5;
	paper[COL_M_N + COL_M_AVG_JRT] = 2.5;
	runs[0].v[COL_M_AVG_JRT] = 2;
	runs[1].v[COL_M_AVG_JRT] = 3;
	assert_int_equal(col_sweep_build(runs, 2, &s, &d), 0);
	col_sweep_txt_base(buf, sizeof(buf), &s, NULL, &b);
	t_starts(buf, "ratios to the baseline (the first variant), mean over seeds and range\n"
		      "metric     unit     variant                    value    ratio      min      "
		      "max  runs    paper\n");
	assert_non_null(strstr(buf,
			       "\n                    v1                             3      1.5 "
			       "     1.5      1.5     1      2.5\n"));
	assert_non_null(strstr(
		buf, "\nbeside the paper (ratios to the baseline):\n"
		     "  v1   avg_jrt   measured 1.5     paper 2.5     measured/paper 0.6  "
		     "(throughput -33% vs -60%)\n"
		     "  v1   avg_jct   measured 1.5     paper 2.5     measured/paper 0.6\n"));
	j = col_sweep_json_base(&s, NULL, &b);
	c = json_object_get(
		json_object_get(json_array_get(json_object_get(j, "variants"), 1), "metrics"),
		"avg_jct");
	assert_float_equal(json_real_value(json_object_get(c, "paper")), 2.5, 0);
	c = json_object_get(
		json_object_get(json_array_get(json_object_get(j, "variants"), 0), "metrics"),
		"avg_jct");
	assert_null(json_object_get(c, "paper"));
	assert_null(json_object_get(json_array_get(json_object_get(j, "variants"), 1), "baseline"));
	json_decref(j);

	col_sweep_txt(buf, sizeof(buf), &s, NULL); /* without figures: no column */
	assert_null(strstr(buf, "runs    paper"));
	assert_null(strstr(buf, "beside the paper"));
	col_sweep_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_axes),
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_variant_values),
		cmocka_unit_test(test_missing_and_entries),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_bad_value_at_sweep),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_too_many_runs),
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_case_new_sections),
		cmocka_unit_test(test_baseline_map),
		cmocka_unit_test(test_baseline_refusals),
		cmocka_unit_test(test_baseline_named),
		cmocka_unit_test(test_baseline_named_refusals),
		cmocka_unit_test(test_baseline_compare),
		cmocka_unit_test(test_baseline_groups),
		cmocka_unit_test(test_baseline_per_load),
		cmocka_unit_test(test_baseline_plan),
		cmocka_unit_test(test_baseline_named_plan),
		cmocka_unit_test(test_paper_map),
		cmocka_unit_test(test_paper_refusals),
		cmocka_unit_test(test_paper_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
