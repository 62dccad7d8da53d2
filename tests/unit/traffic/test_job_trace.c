// SPDX-License-Identifier: MIT
/* The trace reader on the published traces' layouts (traffic/trace/job_trace.h): the samples of
 * scenarios/traces/ (Helios, Philly, PAI, ElasticFlow, columns mapped by hand), each job's
 * length, the states kept, GPU percent rounded up, the rows left out counted by reason, and
 * every malformed variant refused with its exact message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "traffic/trace/job_trace.h"

#define T_SEC 1000000000ULL

static const struct job_trace_opts t_opts = {
	.default_model = "resnet50", .algo = COLL_RING, .iterations = 2};

/* Reads text (len bytes) as t.csv with o; on error nothing is appended and left unchanged. */
static int t_read_n(const char *text, size_t len, const struct job_trace_opts *o, job_list *l,
		    struct job_trace_left *left, struct diag *d)
{
	struct job_trace_left before = *left;
	int r;

	diag_clear(d);
	r = workload_trace_parse("t.csv", text, len, o, l, left, d);
	if (r) {
		assert_int_equal(l->n, 0);
		assert_memory_equal(left, &before, sizeof(before));
		assert_true(d->msg[0] != '\0');
	}
	return r;
}

static int t_read(const char *text, const struct job_trace_opts *o, job_list *l,
		  struct job_trace_left *left, struct diag *d)
{
	return t_read_n(text, strlen(text), o, l, left, d);
}

/* text is refused with exactly msg. */
static void t_refused_n(const char *text, size_t len, const struct job_trace_opts *o,
			const char *msg)
{
	struct job_trace_left left = {{0}};
	struct diag d = {0};
	job_list l = {0};

	assert_int_equal(t_read_n(text, len, o, &l, &left, &d), -EINVAL);
	assert_string_equal(d.msg, msg);
	vec_free(&l);
}

static void t_refused(const char *text, const struct job_trace_opts *o, const char *msg)
{
	t_refused_n(text, strlen(text), o, msg);
}

/* A sample of scenarios/traces/ read with o. */
static void t_sample(const char *name, const struct job_trace_opts *o, job_list *l,
		     struct job_trace_left *left)
{
	char path[128], buf[8192];
	struct diag d = {0};
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "scenarios/traces/%s", name);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(buf));
	if (workload_trace_parse(path, buf, n, o, l, left, &d))
		fail_msg("%s", d.msg);
}

static void t_left_is(const struct job_trace_left *l, uint32_t state, uint32_t gpus, uint32_t none)
{
	assert_int_equal(l->n[JT_LEFT_STATE], state);
	assert_int_equal(l->n[JT_LEFT_NO_GPUS], gpus);
	assert_int_equal(l->n[JT_LEFT_NO_DURATION], none);
	assert_int_equal(l->n[JT_LEFT_LIMIT], 0); /* scenario/jobs.c counts these two */
	assert_int_equal(l->n[JT_LEFT_OVERSIZE], 0);
}

/* Helios cluster_log.csv: date-times, the duration column is each job's length (not end -
 * start, which agrees here anyway), every state kept by default, 0-GPU rows counted. */
static void test_helios(void **state)
{
	static const uint64_t len[] = {1820, 7260, 310, 15400, 2405, 60, 28800, 5400, 1200, 43200};
	struct job_trace_left left = {{0}};
	job_list l = {0};
	size_t i;

	(void)state;
	t_sample("helios-sample.csv", &t_opts, &l, &left);
	assert_int_equal(l.n, 10);
	for (i = 0; i < l.n; i++)
		assert_int_equal(l.v[i].duration_ns, len[i] * T_SEC);
	t_left_is(&left, 0, 2, 0);
	vec_free(&l);
}

/* Philly's job table: submitted_time is the arrival, end_time - start_time the length; the
 * row whose end is None has none and is counted; status kept as given. */
static void test_philly(void **state)
{
	struct job_trace_left left = {{0}};
	job_list l = {0};

	(void)state;
	t_sample("philly-sample.csv", &t_opts, &l, &left);
	assert_int_equal(l.n, 11);
	assert_int_equal(l.v[0].arrival_ns, 0); /* 01:11:39 */
	assert_int_equal(l.v[0].duration_ns, (2 * 3600 + 41 * 60 + 3) * T_SEC); /* 01:12:09 on */
	assert_int_equal(l.v[0].gpus, 8);
	assert_int_equal(l.v[1].arrival_ns, 26 * T_SEC);
	assert_int_equal(l.v[1].duration_ns, 1800 * T_SEC);
	assert_int_equal(l.v[10].gpus, 8);
	assert_int_equal(l.v[10].arrival_ns, (38 * 60 + 21) * T_SEC);
	assert_int_equal(l.v[10].duration_ns, 2400 * T_SEC); /* queued 20 min, not counted */
	t_left_is(&left, 0, 0, 1);
	vec_free(&l);
}

/* PAI's job table with plan_gpu: start_time is the arrival (PAI's submission), end_time -
 * start_time the length, plan_gpu rounded up to whole GPUs; states kept as asked, in any
 * case. */
static void test_pai(void **state)
{
	static const char *const keep[] = {"terminated", "FAILED"};
	static const uint32_t gpus[] = {1, 1, 2, 8, 1, 16, 2, 5, 32};
	static const uint64_t len[] = {537, 2800, 60, 14400, 3600, 7200, 30, 600, 3600};
	struct job_trace_opts o = t_opts;
	struct job_trace_left left = {{0}};
	job_list l = {0};
	size_t i;

	(void)state;
	o.states = keep;
	o.states_n = 2;
	t_sample("pai-sample.csv", &o, &l, &left);
	assert_int_equal(l.n, 9);
	for (i = 0; i < l.n; i++) {
		assert_int_equal(l.v[i].gpus, gpus[i]);
		assert_int_equal(l.v[i].duration_ns, len[i] * T_SEC);
	}
	assert_int_equal(l.v[1].arrival_ns, 23 * T_SEC);
	t_left_is(&left, 2, 1, 0); /* Running and Waiting; the parameter server's 0.0 */
	vec_free(&l);
	memset(&left, 0, sizeof(left)); /* every state: the two without an end have no length */
	t_sample("pai-sample.csv", &t_opts, &l, &left);
	assert_int_equal(l.n, 9);
	t_left_is(&left, 0, 1, 2);
	vec_free(&l);
}

/* ElasticFlow's raw traces: job_id,submission_time,duration,num_gpu, as published. */
static void test_elasticflow(void **state)
{
	struct job_trace_left left = {{0}};
	job_list l = {0};
	const char *text = "job_id,submission_time,duration,num_gpu\n"
			   "6b2d9ccc-6279-403c-e1a2-cfe7810d5c57,16566,3890,4\n"
			   "0bc6e292-b9b4-36d3-61bf-fb714fe2f053,911907,709,32\n";
	struct diag d = {0};
	uint64_t sum = 0;
	size_t i;

	(void)state;
	assert_int_equal(t_read(text, &t_opts, &l, &left, &d), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[1].arrival_ns, (911907 - 16566) * T_SEC);
	assert_int_equal(l.v[1].duration_ns, 709 * T_SEC);
	assert_int_equal(l.v[1].gpus, 32);
	vec_free(&l);
	t_sample("elasticflow-sample.csv", &t_opts, &l, &left);
	assert_int_equal(l.n, 12);
	for (i = 0; i < l.n; i++)
		sum += l.v[i].duration_ns / T_SEC;
	assert_int_equal(sum, 166190);
	t_left_is(&left, 0, 0, 0);
	vec_free(&l);
}

/* workload.trace.columns: headers of no layout mapped by hand; a mapped header is no other
 * role's alias; a mapped header the file lacks is named. */
static void test_columns(void **state)
{
	static const char *const keep[] = {"ok"};
	struct job_trace_opts o = t_opts;
	struct job_trace_left left = {{0}};
	struct diag d = {0};
	job_list l = {0};

	(void)state;
	o.columns[JT_SUBMIT] = "queued_at";
	o.columns[JT_GPUS] = "GPU COUNT";
	o.columns[JT_DURATION] = "run_s";
	o.columns[JT_STATE] = "outcome";
	o.states = keep;
	o.states_n = 1;
	t_sample("columns-sample.csv", &o, &l, &left);
	assert_int_equal(l.n, 8);
	assert_int_equal(l.v[1].arrival_ns, 12 * T_SEC + T_SEC / 2);
	assert_int_equal(l.v[1].duration_ns, 1800 * T_SEC);
	t_left_is(&left, 3, 1, 0);
	vec_free(&l);

	/* start_time mapped as the submit time: no longer the start, so no end - start */
	o = t_opts;
	o.columns[JT_SUBMIT] = "start_time";
	assert_int_equal(t_read("submit_time,start_time,end_time,gpus\n"
				"1,100,160,2\n",
				&o, &l, &left, &d),
			 0);
	assert_int_equal(l.v[0].duration_ns, 0);
	vec_free(&l);
	o.columns[JT_GPUS] = "cards";
	t_refused("start_time,gpus\n1,2\n", &o,
		  "t.csv:1: the header has no column 'cards' (workload.trace.columns.gpus)");
}

/* A length from end - start, in seconds or date-times; the duration column wins; missing
 * values (empty, None, NaN) leave the row out; without any, a job has no length. */
static void test_lengths(void **state)
{
	struct job_trace_left left = {{0}};
	struct diag d = {0};
	job_list l = {0};

	(void)state;
	assert_int_equal(t_read("submit_time,start_time,end_time,duration,gpus\n"
				"0,10,20,5.5,1\n",
				&t_opts, &l, &left, &d),
			 0);
	assert_int_equal(l.v[0].duration_ns, 5 * T_SEC + T_SEC / 2);
	vec_free(&l);
	assert_int_equal(t_read("submit_time,start_time,end_time,gpus\n"
				"2020-04-01 00:00:00,2020-04-01 23:59:30,2020-04-02 00:00:30.25,1\n"
				"2020-04-01 00:00:01,,2020-04-01 00:00:05,1\n"
				"2020-04-01 00:00:02,2020-04-01 00:00:03,NaN,1\n"
				"2020-04-01 00:00:03,none,None,1\n",
				&t_opts, &l, &left, &d),
			 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].duration_ns, 60 * T_SEC + T_SEC / 4);
	t_left_is(&left, 0, 0, 3);
	vec_free(&l);
	assert_int_equal(t_read("arrival,gpus,start_time\n3,2,5\n", &t_opts, &l, &left, &d), 0);
	assert_int_equal(l.v[0].duration_ns, 0); /* no end: the model's iterations */
	vec_free(&l);
}

/* plan_gpu: percent of one GPU, rounded up to whole GPUs (a GPU is not shared); 0 is none. */
static void test_gpu_percent(void **state)
{
	static const char *const pct[] = {"1",	    "50",  "100",   "100.0",
					  "100.01", "150", "450.5", "800"};
	static const uint32_t want[] = {1, 1, 1, 1, 2, 2, 5, 8};
	struct job_trace_left left = {{0}};
	struct diag d = {0};
	job_list l = {0};
	char text[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(text, sizeof(text), "start_time,plan_gpu\n1,%s\n", pct[i]);
		assert_int_equal(t_read(text, &t_opts, &l, &left, &d), 0);
		assert_int_equal(l.n, 1);
		assert_int_equal(l.v[0].gpus, want[i]);
		l.n = 0;
	}
	assert_int_equal(t_read("start_time,plan_gpu\n1,0.0\n2,0\n", &t_opts, &l, &left, &d), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(left.n[JT_LEFT_NO_GPUS], 2);
	vec_free(&l);
	t_refused("start_time,plan_gpu\n1,-50\n", &t_opts,
		  "t.csv:2:2: plan_gpu: got '-50', a negative share of a GPU");
	t_refused("start_time,plan_gpu\n1,half\n", &t_opts,
		  "t.csv:2:2: plan_gpu: expected a percentage of one GPU (50 is half a GPU), got "
		  "'half'");
	t_refused("start_time,plan_gpu\n1,50.\n", &t_opts,
		  "t.csv:2:2: plan_gpu: expected a percentage of one GPU (50 is half a GPU), got "
		  "'50.'");
	t_refused("start_time,gpu_num,plan_gpu\n1,1,50\n", &t_opts,
		  "t.csv:1:3: both gpu_num (column 2) and plan_gpu (column 3) give the GPUs");
}

/* states: rows in other states are left out (before anything else of theirs is read); a
 * trace without a state column cannot be filtered by state. */
static void test_states(void **state)
{
	static const char *const keep[] = {"COMPLETED"};
	struct job_trace_opts o = t_opts;
	struct job_trace_left left = {{0}};
	struct diag d = {0};
	job_list l = {0};

	(void)state;
	o.states = keep;
	o.states_n = 1;
	assert_int_equal(t_read("submit_time,gpu_num,state,duration\n"
				"1,2,COMPLETED,10\n"
				"2,0,FAILED,-1\n" /* left out by state: the rest is not read */
				"3,0,completed,10\n"
				"4,2,,10\n"
				"5,2,CANCELLED,oops\n",
				&o, &l, &left, &d),
			 0);
	assert_int_equal(l.n, 1);
	t_left_is(&left, 3, 1, 0);
	vec_free(&l);
	t_refused("submit_time,gpu_num\n1,2\n", &o,
		  "t.csv:1: workload.trace.states keeps only some states, but the header has no "
		  "state column (expected state or status)");
}

/* Impossible values, each at file:line:col with its column's header. */
static void test_malformed(void **state)
{
	(void)state;
	t_refused("job_id,num_gpu\nx,1\n", &t_opts,
		  "t.csv:1: the header has no submit time column (expected submit_time, "
		  "submitted_time, submission_time or arrival, or start_time when the trace has "
		  "no submit time; or map one with workload.trace.columns)");
	t_refused("job_id,submission_time,duration\nx,1,5\n", &t_opts,
		  "t.csv:1: the header has no GPU count column (expected gpu_num, num_gpus, "
		  "num_gpu or gpus, or plan_gpu in percent of a GPU; or map one with "
		  "workload.trace.columns)");
	t_refused("job_id,submission_time,duration,num_gpu\nx,1,-5,1\n", &t_opts,
		  "t.csv:2:3: duration: expected seconds above 0, got '-5'");
	t_refused("job_id,submission_time,duration,num_gpu\nx,1,0,1\n", &t_opts,
		  "t.csv:2:3: duration: expected seconds above 0, got '0'");
	t_refused("job_id,submission_time,duration,num_gpu\nx,1,0.0,1\n", &t_opts,
		  "t.csv:2:3: duration: expected seconds above 0, got '0.0'");
	t_refused("job_id,submission_time,duration,num_gpu\nx,1,1h,1\n", &t_opts,
		  "t.csv:2:3: duration: expected seconds above 0, got '1h'");
	t_refused("job_id,submission_time,duration,num_gpu\nx,1,5,-1\n", &t_opts,
		  "t.csv:2:4: num_gpu: got '-1', a negative GPU count");
	t_refused("job_id,submission_time,duration,num_gpu\nx,1,5,2.5\n", &t_opts,
		  "t.csv:2:4: num_gpu: expected a whole number of GPUs, got '2.5'");
	t_refused("job_id,submission_time,duration,num_gpu\nx,soon,5,1\n", &t_opts,
		  "t.csv:2:2: submission_time: expected seconds or YYYY-MM-DD HH:MM:SS, got "
		  "'soon'");
	t_refused("submit_time,start_time,end_time,gpus\n0,100,40,1\n", &t_opts,
		  "t.csv:2:3: end_time: '40' is not after start_time '100' (column 2): a job lasts "
		  "more than 0 s");
	t_refused("submit_time,start_time,end_time,gpus\n"
		  "2020-04-01 00:00:00,2020-04-01 01:00:00,2020-04-01 01:00:00,1\n",
		  &t_opts,
		  "t.csv:2:3: end_time: '2020-04-01 01:00:00' is not after start_time '2020-04-01 "
		  "01:00:00' (column 2): a job lasts more than 0 s");
	t_refused("submit_time,start_time,end_time,gpus\n"
		  "2020-04-01 00:00:00,2020-04-01 01:00:00,3600,1\n",
		  &t_opts, "t.csv:2:3: end_time: '3600' mixes seconds with earlier date-times");
	t_refused("job_id,submission_time,duration,num_gpu\nx,1,5\n", &t_opts,
		  "t.csv:2:4: num_gpu: missing (the row has 3 fields, the header 4)");
}

/* 0 GPUs: counted, not refused; CRLF line ends and a UTF-8 byte order mark are read. */
static void test_zero_gpus_crlf_bom(void **state)
{
	const char *text = "\xef\xbb\xbfjob_id,submission_time,duration,num_gpu\r\n"
			   "a,10,100,0\r\n"
			   "b,20,100,2\r\n"
			   "c,30,100,0\r\n";
	struct job_trace_left left = {{0}};
	struct diag d = {0};
	job_list l = {0};

	(void)state;
	assert_int_equal(t_read(text, &t_opts, &l, &left, &d), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.v[0].gpus, 2);
	assert_int_equal(l.v[0].line, 3);
	assert_int_equal(l.v[0].duration_ns, 100 * T_SEC);
	t_left_is(&left, 0, 2, 0);
	vec_free(&l);
}

/* UTF-16, with either byte order mark or none (its ASCII characters' NUL bytes), is refused
 * as such, not read as a header of no known column. */
static void test_utf16(void **state)
{
	static const char le[] = "\xff\xfes\0u\0b\0";
	static const char be[] = "\xfe\xff\0s\0u\0b";
	static const char bare[] = "submit_time,gpus\nX\0Y\0";

	(void)state;
	t_refused_n(le, sizeof(le) - 1, &t_opts,
		    "t.csv:1: UTF-16 text (byte order mark FF FE): a trace is read as UTF-8 or "
		    "ASCII (convert it, e.g. iconv -f UTF-16 -t UTF-8)");
	t_refused_n(be, sizeof(be) - 1, &t_opts,
		    "t.csv:1: UTF-16 text (byte order mark FE FF): a trace is read as UTF-8 or "
		    "ASCII (convert it, e.g. iconv -f UTF-16 -t UTF-8)");
	t_refused_n(bare, sizeof(bare) - 1, &t_opts,
		    "t.csv:2: a NUL byte: UTF-16 text without a byte order mark, or not text; a "
		    "trace is read as UTF-8 or ASCII");
}

/* The lines check, sim and up print, in one and in many. */
static void test_left_lines(void **state)
{
	struct job_trace_left l = {{[JT_LEFT_NO_GPUS] = 1, [JT_LEFT_OVERSIZE] = 3}};
	char buf[256];

	(void)state;
	assert_int_equal(job_trace_left_total(&l), 4);
	job_trace_left_line(buf, sizeof(buf), &l, JT_LEFT_NO_GPUS);
	assert_string_equal(buf, "1 trace row has 0 GPUs (a CPU job): left out");
	job_trace_left_line(buf, sizeof(buf), &l, JT_LEFT_OVERSIZE);
	assert_string_equal(buf, "3 trace rows need more GPUs than the topology has: left out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helios),	    cmocka_unit_test(test_philly),
		cmocka_unit_test(test_pai),	    cmocka_unit_test(test_elasticflow),
		cmocka_unit_test(test_columns),	    cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_gpu_percent), cmocka_unit_test(test_states),
		cmocka_unit_test(test_malformed),   cmocka_unit_test(test_zero_gpus_crlf_bom),
		cmocka_unit_test(test_utf16),	    cmocka_unit_test(test_left_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
