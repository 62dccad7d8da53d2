// SPDX-License-Identifier: MIT
/* collect/summary: summary.json validated against docs/summary.schema.json by a small
 * validator for the JSON Schema subset the schema uses (it refuses any other keyword), with
 * mutations it must reject; values and nulls; the dump; summary.txt and the sweep table. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/summary.h"
#include "tests/unit/json_schema.h"

#define S 1000000000LL
#define T_SCHEMA "docs/summary.schema.json"

static json_t *t_schema(void)
{
	json_error_t e;
	json_t *s = json_load_file(T_SCHEMA, 0, &e);

	if (!s)
		fail_msg("%s:%d: %s (run from the repository root)", T_SCHEMA, e.line, e.text);
	return s;
}

static int t_validate(const json_t *schema, const json_t *v, char *err, size_t len)
{
	return t_schema_validate(schema, v, err, len);
}

static struct rec_job t_job(uint32_t id, int64_t arrival, int64_t start, int64_t finish,
			    enum rec_status st)
{
	struct rec_job j = {.id = id,
			    .model = "gpt3",
			    .gpus = 2,
			    .kind = COLL_ALLREDUCE,
			    .algo = COLL_RING,
			    .iterations = 1,
			    .bytes = 1000,
			    .arrival = arrival,
			    .start = start,
			    .finish = finish,
			    .status = st,
			    .placement = "h0;h1"};

	return j;
}

static const uint64_t t_rates[] = {8000, 8000};
static const uint8_t t_shaped[] = {1, 0};

/* A run with one job of each status, an iteration, flows, links and hot CPU samples. */
static void t_run(struct rec_run *r)
{
	struct rec_iter it[] = {{0, 0, 0, 0, 10, 1010}, {0, 1, 0, 0, 10, 1010}};
	struct rec_flow f[] = {{.bytes = 500, .t_start = 0, .t_end = 1000}, {.bytes = 0}};
	struct rec_sample s[] = {{0, 0, 0, 0, 0, 0, 70000},	  {S, 0, 0, 100, 1, 0, 70000},
				 {2 * S, 0, 0, 200, 2, 0, 70000}, {3 * S, 0, 0, 300, 3, 0, 70000},
				 {0, 0, 1, 0, 0, 0, 0},		  {S, 0, 1, 0, 0, 4, 0}};
	struct rec_cpu c = {S, 0.99, 0.2, 0, 0.01};
	size_t i;

	*r = (struct rec_run){.dilation = 1000, .t_end = 20 * S};
	vec_push(&r->jobs, t_job(0, 0, S, 3 * S, REC_OK));
	vec_push(&r->jobs, t_job(1, 0, S, 2 * S, REC_FAILED));
	vec_push(&r->jobs, t_job(2, 5 * S, REC_NEVER, REC_NEVER, REC_NOT_STARTED));
	vec_push(&r->jobs, t_job(3, 0, 2 * S, 4 * S, REC_CANCELLED));
	snprintf(r->jobs.v[1].reason, sizeof(r->jobs.v[1].reason), "rank 1: \"%s\"\xff",
		 "ECONNRESET");
	for (i = 0; i < 2; i++)
		vec_push(&r->iters, it[i]);
	for (i = 0; i < 2; i++)
		vec_push(&r->flows, f[i]);
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		vec_push(&r->samples, s[i]);
	vec_push(&r->cpu, c);
}

static void t_metrics(const struct rec_run *r, struct col_metrics *m)
{
	struct col_links_cfg lc = {1, t_rates, t_shaped, NULL};
	struct diag d = {0};

	if (col_metrics_build(r, &lc, NULL, m, &d))
		fail_msg("%s", d.msg);
}

static const struct col_sched_counts t_sched = {
	.known = true, .frag_jobs = 2, .frag_tries = 5, .gpu_tries = 7};
static const struct col_summary_meta t_meta = {"quickstart", "run-1", NULL, &t_sched, NULL, 0,
					       NULL,	     0,	      NULL};
static const struct col_plot_skip t_skip[2] = {
	{"util_heatmap", "a single time bin: the link counters were read only at the start and "
			 "the end of the run (6.49 ms)"},
	{"util_dim", "a single time bin"}};
static const struct job_trace_left t_left = {{[JT_LEFT_NO_GPUS] = 2, [JT_LEFT_STATE] = 1}};
static const struct col_summary_meta t_sim = {"themis", "run-2", "sim", &t_sched, NULL,
					      0,	t_skip,	 2,	&t_left};

/* summary.json's trace rows left out: every reason's count, their total, and read back as
 * written (testbed report makes the summary again from it). */
static void t_trace_left_read(const json_t *j, const struct job_trace_left *want)
{
	const json_t *o = json_object_get(j, "trace_rows_left_out");
	struct job_trace_left got;

	assert_int_equal(json_integer_value(json_object_get(o, "no_gpus")),
			 want->n[JT_LEFT_NO_GPUS]);
	assert_int_equal(json_integer_value(json_object_get(o, "state")), want->n[JT_LEFT_STATE]);
	assert_int_equal(json_integer_value(json_object_get(o, "oversize")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "total")),
			 job_trace_left_total(want));
	assert_int_equal(json_object_size(o), JT_LEFT_N + 1);
	assert_int_equal(col_summary_trace_left_from(j, &got), 0);
	assert_memory_equal(&got, want, sizeof(got));
}

/* Under testbed sim the text names virtual seconds, and both say which plots were left out
 * and why, and which trace rows; the JSON validates. */
static void test_sim_and_skipped(void **state)
{
	struct rec_run r;
	struct col_metrics m;
	json_t *schema = t_schema(), *j, *x;
	char buf[8192], err[512];

	(void)state;
	t_run(&r);
	t_metrics(&r, &m);
	col_summary_txt(buf, sizeof(buf), &r, &m, &t_sim);
	assert_non_null(strstr(buf, "jobs (s: virtual seconds, ps: paper seconds, the same in "
				    "virtual time;"));
	assert_null(strstr(buf, "emulated"));
	assert_non_null(strstr(buf, "plots left out:\n  util_heatmap: a single time bin: the "
				    "link counters were read only at the start and the end"));
	assert_non_null(strstr(buf, "\n  util_dim: a single time bin\n"));
	j = col_summary_json(&r, &m, &t_sim);
	if (t_validate(schema, j, err, sizeof(err)))
		fail_msg("summary does not validate: %s", err);
	x = json_array_get(json_object_get(j, "plots_left_out"), 1);
	assert_string_equal(json_string_value(json_object_get(x, "plot")), "util_dim");
	assert_string_equal(json_string_value(json_object_get(x, "why")), "a single time bin");
	assert_non_null(strstr(buf, "\n1 trace row is in a state workload.trace.states leaves out: "
				    "left out\n2 trace rows have 0 GPUs (CPU jobs): left out\n"));
	t_trace_left_read(j, &t_left);
	json_decref(j);
	col_summary_txt(buf, sizeof(buf), &r, &m, &t_meta); /* emulation, nothing left out */
	assert_non_null(strstr(buf, "jobs (s: emulated seconds, ps: paper seconds;"));
	assert_null(strstr(buf, "left out"));
	j = col_summary_json(&r, &m, &t_meta);
	assert_null(json_object_get(j, "plots_left_out"));
	assert_null(json_object_get(j, "trace_rows_left_out")); /* no trace */
	json_decref(j);
	json_decref(schema);
	col_metrics_done(&m);
	rec_run_done(&r);
}

static void test_schema_valid(void **state)
{
	struct rec_run r, empty = {.dilation = 1};
	struct col_metrics m;
	json_t *schema = t_schema(), *j;
	char err[512];

	(void)state;
	t_run(&r);
	t_metrics(&r, &m);
	j = col_summary_json(&r, &m, &t_meta);
	assert_non_null(j);
	if (t_validate(schema, j, err, sizeof(err)))
		fail_msg("summary does not validate: %s", err);
	json_decref(j);
	col_metrics_done(&m);
	t_metrics(&empty, &m);
	j = col_summary_json(&empty, &m, NULL);
	if (t_validate(schema, j, err, sizeof(err)))
		fail_msg("empty summary does not validate: %s", err);
	json_decref(j);
	col_metrics_done(&m);
	json_decref(schema);
	rec_run_done(&r);
}

/* The validator rejects what the schema forbids, so a pass means something. */
static void test_schema_rejects(void **state)
{
	static const char *const bad[] = {
		"totals", /* a required key gone */
		"jobs.0.jwt_s", /* a number turned into a string */
		"extra", /* a key the schema does not know */
		"fidelity.verdict", /* outside the enum */
		"links.0.dir", /* outside the enum */
		"schema", /* not the constant */
	};
	json_t *schema = t_schema(), *j, *jobs0, *link0;
	struct col_metrics m;
	struct rec_run r;
	char err[512];
	size_t i;

	(void)state;
	t_run(&r);
	t_metrics(&r, &m);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = col_summary_json(&r, &m, &t_meta);
		jobs0 = json_array_get(json_object_get(j, "jobs"), 0);
		link0 = json_array_get(json_object_get(j, "links"), 0);
		if (i == 0)
			json_object_del(j, "totals");
		if (i == 1)
			json_object_set_new(jobs0, "jwt_s", json_string("1"));
		if (i == 2)
			json_object_set_new(j, "extra", json_true());
		if (i == 3)
			json_object_set_new(json_object_get(j, "fidelity"), "verdict",
					    json_string("meh"));
		if (i == 4)
			json_object_set_new(link0, "dir", json_integer(2));
		if (i == 5)
			json_object_set_new(j, "schema", json_string("testbed-summary/0"));
		if (!t_validate(schema, j, err, sizeof(err)))
			fail_msg("accepted a summary with a bad %s", bad[i]);
		json_decref(j);
	}
	col_metrics_done(&m);
	json_decref(schema);
	rec_run_done(&r);
}

static double t_num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void test_values(void **state)
{
	json_t *j, *jobs, *fid, *tot;
	struct col_metrics m;
	struct rec_run r;

	(void)state;
	t_run(&r);
	t_metrics(&r, &m);
	j = col_summary_json(&r, &m, &t_meta);
	jobs = json_object_get(j, "jobs");
	assert_string_equal(json_string_value(json_object_get(j, "scenario")), "quickstart");
	assert_true(fabs(t_num(json_array_get(jobs, 0), "jct_s") - 3) < 1e-12);
	assert_true(fabs(t_num(json_array_get(jobs, 0), "jct_paper_s") - 0.003) < 1e-12);
	assert_true(fabs(t_num(json_array_get(jobs, 0), "busbw_GBps") - 1.0) < 1e-12);
	assert_true(json_is_null(json_object_get(json_array_get(jobs, 2), "jrt_s")));
	assert_true(json_is_null(json_object_get(json_array_get(jobs, 2), "start_ns")));
	assert_true(json_is_true(json_object_get(json_array_get(jobs, 2), "censored")));
	assert_true(json_is_true(json_object_get(json_array_get(jobs, 1), "failed")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(jobs, 1), "reason")),
			    "rank 1: \"ECONNRESET\"?");
	fid = json_object_get(j, "fidelity");
	assert_string_equal(json_string_value(json_object_get(fid, "verdict")), "degraded");
	assert_int_equal(json_array_size(json_object_get(fid, "reasons")), 3);
	tot = json_object_get(j, "totals");
	assert_int_equal(json_integer_value(json_object_get(tot, "not_started")), 1);
	assert_true(json_is_null(json_object_get(tot, "stability_s")));
	tot = json_object_get(j, "scheduler"); /* vClos Table 2's two causes */
	assert_int_equal(json_integer_value(json_object_get(tot, "fragmented_tries")), 5);
	assert_int_equal(json_integer_value(json_object_get(tot, "gpu_tries")), 7);
	json_decref(j);
	col_metrics_done(&m);
	rec_run_done(&r);
}

static void test_dumps(void **state)
{
	struct col_metrics m;
	struct rec_run r;
	char *s, *again;
	json_t *a;

	(void)state;
	t_run(&r);
	t_metrics(&r, &m);
	s = col_summary_dumps(&r, &m, &t_meta);
	assert_non_null(s);
	assert_int_equal(s[strlen(s) - 1], '\n');
	assert_non_null(strstr(s, "\"cpu_hot_share\": 0.05,"));
	a = json_loads(s, 0, NULL);
	assert_non_null(a);
	again = json_dumps(a, COL_SUMMARY_DUMP_FLAGS);
	assert_memory_equal(s, again, strlen(again)); /* the text is a fixed point */
	free(again);
	json_decref(a);
	free(s);
	col_metrics_done(&m);
	rec_run_done(&r);
}

static void test_text(void **state)
{
	struct rec_run r, ok = {.dilation = 1};
	struct col_metrics m;
	char buf[8192], small[32];
	int n;

	(void)state;
	t_run(&r);
	t_metrics(&r, &m);
	n = col_summary_txt(buf, sizeof(buf), &r, &m, &t_meta);
	assert_int_equal(n, (int)strlen(buf));
	assert_int_equal(col_summary_txt(small, sizeof(small), &r, &m, &t_meta), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_non_null(strstr(
		buf, "fidelity: DEGRADED (cpu, forwarding)\n  - CPU busier than 65% in 100.0% of"));
	assert_non_null(strstr(buf, "link 0 dir 1: 4 drops on an unshaped hop"));
	assert_non_null(strstr(buf, "link 0 dir 0: backlogged"));
	assert_non_null(strstr(buf, "   0 gpt3               2 ok                  1         2     "
				    "    3     0.001     0.002     0.003          1\n"));
	assert_non_null(strstr(
		buf,
		"   2 gpt3               2 not-started       >15         -         -    >0.015"));
	assert_non_null(strstr(buf, "4 jobs: 1 ok, 1 failed, 1 not started, 1 cancelled"));
	assert_non_null(strstr(buf, "utilization mean 5.0%, peak 10.0%; drops 4\n"));
	col_metrics_done(&m);
	t_metrics(&ok, &m);
	col_summary_txt(buf, sizeof(buf), &ok, &m, NULL);
	assert_non_null(strstr(buf, "fidelity: ok\n"));
	assert_non_null(strstr(buf, "0 jobs"));
	col_metrics_done(&m);
	rec_run_done(&r);
}

static void test_sweep_text(void **state)
{
	struct col_sweep_run runs[2] = {{0, 1, {0}, 0}, {1, 1, {0}, 0}};
	const char *const names[] = {"ecmp", "vclos"};
	struct col_sweep s;
	char buf[8192];
	unsigned k;
	int n;

	(void)state;
	for (k = 0; k < COL_M_N; k++) {
		runs[0].v[k] = 2;
		runs[1].v[k] = 1;
	}
	assert_int_equal(col_sweep_build(runs, 2, &s, NULL), 0);
	n = col_sweep_txt(buf, sizeof(buf), &s, names);
	assert_int_equal(n, (int)strlen(buf));
	assert_non_null(strstr(buf, "avg_jct    paper s  ecmp                           2        1 "
				    "       1        1     1\n"));
	assert_non_null(strstr(buf, "                    vclos                          1      0.5 "
				    "     0.5      0.5     1\n"));
	col_sweep_txt(buf, sizeof(buf), &s, NULL);
	assert_non_null(strstr(buf, " v1 "));
	col_sweep_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_valid),   cmocka_unit_test(test_sim_and_skipped),
		cmocka_unit_test(test_schema_rejects), cmocka_unit_test(test_values),
		cmocka_unit_test(test_dumps),	       cmocka_unit_test(test_text),
		cmocka_unit_test(test_sweep_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
