// SPDX-License-Identifier: MIT
/* workload.trace in a scenario: its fields (columns, states, duration_scale) read and refused
 * at file:line:col, the trace's jobs scaled and cut by the scenario (scenario/jobs.c), and the
 * rows left out counted by reason in the world `check`, `sim` and `up` load. Run from the repo
 * root (the samples of scenarios/traces/). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "scenario/jobs.h"
#include "scenario/scenario_yaml.h"
#include "scenario/world.h"

#define T_SEC 1000000000ULL

#define T_TOPO "topology: {kind: best, hosts_per_leaf: 4, leaves: 4, host_rate: 1Gbit}\n"

static void t_parse(const char *text, struct experiment *e)
{
	struct diag d = {0};

	if (exp_parse_buffer("t.yaml", text, strlen(text), e, &d))
		fail_msg("%s", d.msg);
}

static void t_refused(const char *text, const char *want)
{
	struct diag d = {0};
	struct experiment e;

	assert_int_equal(exp_parse_buffer("t.yaml", text, strlen(text), &e, &d), -EINVAL);
	assert_string_equal(d.msg, want);
	exp_done(&e);
}

/* Every role of traffic/trace/job_trace.h is a field of columns, under its key; states and
 * duration_scale land; the defaults are every state and scale 1. */
static void test_fields(void **state)
{
	char text[2048];
	struct experiment e;
	size_t k = 0;
	int r;

	(void)state;
	t_parse(T_TOPO "workload: {trace: {file: x.csv}}\n", &e);
	assert_true(e.w.trace_duration_scale == 1.0);
	assert_int_equal(e.w.trace_states_n, 0);
	for (r = 0; r < JT_ROLES; r++)
		assert_string_equal(e.w.trace_columns[r], "");
	exp_done(&e);
	k = (size_t)snprintf(text, sizeof(text),
			     T_TOPO "workload:\n  trace:\n    file: x.csv\n"
				    "    duration_scale: 0.25\n    states: [COMPLETED, \"Pass\"]\n"
				    "    columns:\n");
	for (r = 0; r < JT_ROLES; r++)
		k += (size_t)snprintf(text + k, sizeof(text) - k, "      %s: \"Col %d, x\"\n",
				      job_trace_roles[r].key, r);
	t_parse(text, &e);
	assert_true(e.w.trace_duration_scale == 0.25);
	assert_int_equal(e.w.trace_states_n, 2);
	assert_string_equal(e.w.trace_states[0], "COMPLETED");
	assert_string_equal(e.w.trace_states[1], "Pass");
	for (r = 0; r < JT_ROLES; r++) {
		snprintf(text, sizeof(text), "Col %d, x", r);
		assert_string_equal(e.w.trace_columns[r], text);
	}
	exp_done(&e);
}

static void test_field_refusals(void **state)
{
	(void)state;
	t_refused(T_TOPO "workload: {trace: {file: x.csv, columns: {gpu: n}}}\n",
		  "t.yaml:2:43: unknown field 'gpu' in 'workload.trace.columns' (expected one of: "
		  "submit, start, end, duration, gpus, gpu_percent, state, model, deadline)");
	t_refused(
		T_TOPO "workload: {trace: {file: x.csv, columns: {gpus: \"\"}}}\n",
		"t.yaml:2:49: workload.trace.columns.gpus: expected a column header or state of 1 "
		"to 63 characters, found ''");
	t_refused(
		T_TOPO "workload: {trace: {file: x.csv, columns: {gpus: \"a\\tb\"}}}\n",
		"t.yaml:2:49: workload.trace.columns.gpus: expected a column header or state of 1 "
		"to 63 characters, found 'a?b' (a control character)");
	t_refused(T_TOPO "workload: {trace: {file: x.csv, states: []}}\n",
		  "t.yaml:2:41: workload.trace.states: expected a list of 1 to 16 states such as "
		  "[COMPLETED], found a sequence");
	t_refused(T_TOPO "workload: {trace: {file: x.csv, states: COMPLETED}}\n",
		  "t.yaml:2:41: workload.trace.states: expected a list of 1 to 16 states such as "
		  "[COMPLETED], found 'COMPLETED'");
	t_refused(T_TOPO "workload: {trace: {file: x.csv, duration_scale: 0}}\n",
		  "t.yaml:2:49: workload.trace.duration_scale: expected a positive number, found "
		  "'0'");
}

/* The scenario's trace: the first `limit` jobs (the rest counted), arrivals times time_scale,
 * lengths times duration_scale, on top of what the reader left out. */
static void test_resolve(void **state)
{
	struct job_trace_left left = {{[JT_LEFT_NO_GPUS] = 1}};
	struct experiment e;
	struct diag d = {0};
	job_list jobs = {0};

	(void)state;
	t_parse(T_TOPO "workload:\n  trace:\n    file: scenarios/traces/elasticflow-sample.csv\n"
		       "    limit: 5\n    time_scale: 0.5\n    duration_scale: 0.25\n",
		&e);
	assert_int_equal(jobs_resolve(&e, &jobs, &left, &d), 0);
	assert_int_equal(jobs.n, 5);
	assert_int_equal(left.n[JT_LEFT_LIMIT], 7);
	assert_int_equal(left.n[JT_LEFT_NO_GPUS], 1); /* added to, not reset */
	assert_int_equal(jobs.v[1].arrival_ns, 7 * T_SEC); /* 16580 - 16566 */
	assert_int_equal(jobs.v[1].duration_ns, 155 * T_SEC); /* 620 */
	assert_int_equal(jobs.v[4].duration_ns, 11250 * T_SEC); /* 45000 */
	assert_string_equal(jobs.v[4].model, "resnet50");
	vec_free(&jobs);
	exp_done(&e);
}

/* What check loads: every reason counted, the oversize rows by jobs_fit among them. */
static void test_world_counts(void **state)
{
	static const struct {
		const char *path;
		size_t jobs;
		struct job_trace_left left;
	} cases[] = {
		{"scenarios/trace.yaml", 8, {{[JT_LEFT_NO_GPUS] = 2, [JT_LEFT_OVERSIZE] = 2}}},
		{"scenarios/trace-philly.yaml",
		 10,
		 {{[JT_LEFT_NO_DURATION] = 1, [JT_LEFT_OVERSIZE] = 1}}},
		{"scenarios/trace-pai.yaml",
		 8,
		 {{[JT_LEFT_STATE] = 2, [JT_LEFT_NO_GPUS] = 1, [JT_LEFT_OVERSIZE] = 1}}},
		{"scenarios/trace-elasticflow.yaml", 11, {{[JT_LEFT_OVERSIZE] = 1}}},
		{"scenarios/trace-columns.yaml", 8, {{[JT_LEFT_STATE] = 3, [JT_LEFT_NO_GPUS] = 1}}},
	};
	struct diag d = {0};
	struct world w;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (world_load(cases[i].path, (struct world_ask){.sim = true}, &w, &d))
			fail_msg("%s", d.msg);
		assert_int_equal(w.jobs.n, cases[i].jobs);
		assert_memory_equal(&w.trace_left, &cases[i].left, sizeof(w.trace_left));
		world_done(&w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_field_refusals),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_world_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
