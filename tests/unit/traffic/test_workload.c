// SPDX-License-Identifier: MIT
/* Workload tests: the Poisson generator (mean inter-arrival, size and model frequencies,
 * determinism) and the CSV trace reader (the sample trace, header variants, bad rows). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "traffic/job.h"
#include "traffic/trace/job_trace.h"

#define T_SEC 1000000000ULL

static void t_gen(struct workload_gen *g, uint32_t count, uint64_t seed)
{
	static const struct job_size_weight sizes[] = {{1, 4}, {2, 2}, {8, 1}, {16, 1}, {32, 0}};
	static const char *const models[] = {"vgg16", "bert", "resnet50"};
	size_t i;

	memset(g, 0, sizeof(*g));
	g->count = count;
	g->mean_interarrival_ns = 120 * T_SEC; /* vClos §9.2: lambda = 120 s */
	g->seed = seed;
	g->algo = COLL_RING;
	g->iterations = 5;
	for (i = 0; i < 5; i++)
		assert_int_equal(vec_push(&g->sizes, sizes[i]), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(vec_push(&g->models, strdup(models[i])), 0);
}

static void t_generate(uint32_t count, uint64_t seed, job_list *out)
{
	struct workload_gen g;
	struct diag d = {0};

	t_gen(&g, count, seed);
	assert_int_equal(workload_generate(&g, out, &d), 0);
	workload_gen_done(&g);
	assert_int_equal(out->n, count);
}

static void test_gen_interarrival(void **state)
{
	job_list l = {0};
	double mean;
	size_t i;

	(void)state;
	t_generate(20000, 1, &l);
	assert_int_equal(l.v[0].arrival_ns, 0);
	for (i = 0; i < l.n; i++) {
		assert_int_equal(l.v[i].id, i);
		assert_int_equal(l.v[i].iterations, 5);
		if (i)
			assert_true(l.v[i].arrival_ns >= l.v[i - 1].arrival_ns);
	}
	mean = (double)l.v[l.n - 1].arrival_ns / (double)(l.n - 1);
	assert_true(mean > 0.95 * 120 * T_SEC && mean < 1.05 * 120 * T_SEC);
	vec_free(&l);
}

static void test_gen_frequencies(void **state)
{
	static const char *const models[] = {"vgg16", "bert", "resnet50"};
	size_t size_n[17] = {0}, model_n[3] = {0}, i, k;
	job_list l = {0};

	(void)state;
	t_generate(20000, 7, &l);
	for (i = 0; i < l.n; i++) {
		assert_true(l.v[i].gpus <= 16); /* 32 has weight 0 */
		size_n[l.v[i].gpus]++;
		for (k = 0; k < 3; k++)
			model_n[k] += !strcmp(l.v[i].model, models[k]);
	}
	/* weights 4:2:1:1; the standard error is at most 0.0036, allow 0.015 */
	assert_true(abs((int)size_n[1] - 10000) < 300);
	assert_true(abs((int)size_n[2] - 5000) < 300);
	assert_true(abs((int)size_n[8] - 2500) < 300);
	assert_true(abs((int)size_n[16] - 2500) < 300);
	assert_int_equal(size_n[1] + size_n[2] + size_n[8] + size_n[16], 20000);
	for (k = 0; k < 3; k++)
		assert_true(abs((int)model_n[k] - 6667) < 300);
	vec_free(&l);
}

static bool t_same(const job_list *a, const job_list *b)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (a->v[i].arrival_ns != b->v[i].arrival_ns || a->v[i].gpus != b->v[i].gpus ||
		    strcmp(a->v[i].model, b->v[i].model))
			return false;
	}
	return a->n == b->n;
}

static void test_gen_determinism(void **state)
{
	job_list a = {0}, b = {0}, c = {0};

	(void)state;
	t_generate(1000, 42, &a);
	t_generate(1000, 42, &b);
	t_generate(1000, 43, &c);
	assert_true(t_same(&a, &b));
	assert_false(t_same(&a, &c));
	vec_free(&a);
	vec_free(&b);
	vec_free(&c);
}

/* Durations (vClos's simulator): exponential of mean 4,000 s clamped to [1,000, 100,000] s and
 * rounded down to 100 s: E = 1,000 + 4,000 e^-1/4 - ~50 = 4,065 s. */
static void test_gen_durations(void **state)
{
	struct workload_gen g;
	struct diag d = {0};
	job_list l = {0};
	double sum = 0;
	size_t i;

	(void)state;
	t_gen(&g, 20000, 5);
	g.dur_mean_ns = 4000 * T_SEC;
	g.dur_min_ns = 1000 * T_SEC;
	g.dur_max_ns = 100000 * T_SEC;
	g.deadline_slack = 1.5;
	assert_int_equal(workload_generate(&g, &l, &d), 0);
	for (i = 0; i < l.n; i++) {
		assert_int_equal(l.v[i].deadline_ns, l.v[i].duration_ns * 3 / 2);
		assert_true(l.v[i].duration_ns >= 1000 * T_SEC);
		assert_true(l.v[i].duration_ns <= 100000 * T_SEC);
		assert_int_equal(l.v[i].duration_ns % (100 * T_SEC), 0);
		sum += (double)l.v[i].duration_ns;
	}
	sum /= (double)l.n * T_SEC;
	assert_true(sum > 0.97 * 4065 && sum < 1.03 * 4065);
	vec_free(&l);
	g.deadline_slack = 0.5; /* due before it could finish */
	assert_int_equal(workload_generate(&g, &l, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "deadline_slack 0.5: expected a finite number >= 1"));
	g.deadline_slack = 0;
	d.msg[0] = '\0';
	g.dur_min_ns = 200000 * T_SEC; /* above the maximum */
	assert_int_equal(workload_generate(&g, &l, &d), -EINVAL);
	assert_string_equal(d.msg, "duration_min is above duration_max");
	assert_int_equal(l.n, 0);
	workload_gen_done(&g);
}

/* moe has no size in the papers: a generator with durations sizes it from each job's length
 * (its all-to-all, pairwise, of the bytes job_fit_duration gives: T/I x alpha at the rate);
 * without durations it is refused. */
static void test_gen_sized_by_duration(void **state)
{
	struct workload_gen g;
	struct diag d = {0};
	job_list l = {0};
	size_t i, moe = 0;

	(void)state;
	t_gen(&g, 300, 9);
	free(g.models.v[2]);
	g.models.v[2] = strdup("moe");
	assert_int_equal(workload_generate(&g, &l, &d), -EINVAL); /* no durations */
	assert_non_null(strstr(d.msg, "model moe has no size in the papers"));
	diag_clear(&d);
	g.dur_mean_ns = 4000 * T_SEC;
	g.dur_min_ns = 1000 * T_SEC;
	assert_int_equal(workload_generate(&g, &l, &d), 0);
	for (i = 0; i < l.n; i++) {
		struct job_spec j = l.v[i];

		if (strcmp(j.model, "moe"))
			continue;
		moe++;
		assert_int_equal(j.kind, COLL_ALLTOALL);
		assert_int_equal(j.algo, COLL_PAIRWISE);
		job_fit_duration(&j, 100000000000ull);
		if (j.gpus > 1) /* T/I alpha of all-to-all at 100 Gbit/s, within rounding */
			assert_true(fabs((double)job_comm_ns(&j, j.bytes, 100000000000ull) -
					 (double)j.duration_ns / 5 * 0.258) <
				    1e-3 * (double)j.duration_ns);
	}
	assert_true(moe > 60 && moe < 140); /* a third of 300 */
	vec_free(&l);
	workload_gen_done(&g);
}

static void test_gen_errors(void **state)
{
	struct workload_gen g;
	struct diag d = {0};
	job_list l = {0};

	(void)state;
	t_generate(3, 1, &l); /* later jobs count on */
	t_gen(&g, 2, 1);
	assert_int_equal(workload_generate(&g, &l, &d), 0);
	assert_int_equal(l.v[4].id, 4);
	free(g.models.v[1]);
	g.models.v[1] = strdup("bloom"); /* 48 GPUs per replica: sizes 1-16 cannot run it */
	g.count = 200;
	assert_int_equal(workload_generate(&g, &l, &d), -EINVAL);
	assert_non_null(strstr(d.msg, ": model bloom needs a multiple of 48 GPUs"));
	assert_int_equal(strncmp(d.msg, "job ", 4), 0);
	assert_int_equal(l.n, 5); /* nothing appended */
	diag_clear(&d);
	free(g.models.v[1]);
	g.models.v[1] = strdup("gpt-3");
	assert_int_equal(workload_generate(&g, &l, &d), -EINVAL);
	assert_string_equal(d.msg, "unknown model 'gpt-3'");
	diag_clear(&d);
	g.models.n = 0;
	assert_int_equal(workload_generate(&g, &l, &d), -EINVAL);
	assert_string_equal(d.msg, "the workload names no models");
	g.models.n = 3;
	free(g.models.v[1]);
	g.models.v[1] = strdup("bert");
	diag_clear(&d);
	g.sizes.n = 1;
	g.sizes.v[0].weight = 0;
	assert_int_equal(workload_generate(&g, &l, &d), -EINVAL);
	assert_string_equal(d.msg, "the workload's job sizes have no positive weight");
	workload_gen_done(&g);
	vec_free(&l);
}

/* ---- traces ---- */

static int t_trace(const char *text, const char *def, job_list *l, struct diag *d)
{
	const struct job_trace_opts o = {.default_model = def, .algo = COLL_RING, .iterations = 2};

	return workload_trace_parse("t.csv", text, strlen(text), &o, l, NULL, d);
}

static void test_trace_sample(void **state)
{
	static const uint64_t at[] = {0, 12, 45, 130, 131, 250, 600, 611, 900, 1500};
	static const uint32_t gpus[] = {1, 8, 2, 16, 4, 1, 32, 8, 2, 64};
	const char *path = "scenarios/traces/helios-sample.csv";
	const struct job_trace_opts o = {
		.default_model = "resnet50", .algo = COLL_HD, .iterations = 3};
	struct job_trace_left left = {{0}};
	struct diag d = {0};
	job_list l = {0};
	char buf[8192];
	size_t n, i;
	FILE *f;

	(void)state;
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 0 && n < sizeof(buf));
	assert_int_equal(workload_trace_parse(path, buf, n, &o, &l, &left, &d), 0);
	assert_int_equal(l.n, 10); /* 12 rows, two CPU jobs */
	assert_int_equal(left.n[JT_LEFT_NO_GPUS], 2);
	assert_int_equal(job_trace_left_total(&left), 2);
	for (i = 0; i < l.n; i++) {
		assert_int_equal(l.v[i].id, i);
		assert_int_equal(l.v[i].arrival_ns, at[i] * T_SEC);
		assert_int_equal(l.v[i].gpus, gpus[i]);
		assert_int_equal(l.v[i].iterations, 3);
		assert_int_equal(l.v[i].algo, COLL_HD);
		assert_string_equal(l.v[i].model, "resnet50");
	}
	vec_free(&l);
}

static void test_trace_header_variants(void **state)
{
	const char *text = "\xef\xbb\xbf# a comment\r\n"
			   "\r\n"
			   "\"Submitted_Time\" , NUM_GPUS,user,Model\r\n"
			   "20.5,4,\"a, \"\"b\"\"\",bert\r\n"
			   "  # indented comment\r\n"
			   "10,2,c,\r\n"
			   "20.5,1,d,vgg16\r\n"
			   "30,0,e,nonsense\r\n"
			   "15.000000001,8,f,\"resnet101\"";
	struct diag d = {0};
	job_list l = {0};

	(void)state;
	assert_int_equal(t_trace(text, "resnet50", &l, &d), 0);
	assert_int_equal(l.n, 4);
	/* arrival order, relative to the earliest, ties in file order */
	assert_int_equal(l.v[0].arrival_ns, 0);
	assert_string_equal(l.v[0].model, "resnet50");
	assert_int_equal(l.v[1].arrival_ns, 5 * T_SEC + 1);
	assert_string_equal(l.v[1].model, "resnet101");
	assert_int_equal(l.v[2].arrival_ns, 10 * T_SEC + T_SEC / 2);
	assert_int_equal(l.v[2].gpus, 4);
	assert_string_equal(l.v[2].model, "bert");
	assert_int_equal(l.v[3].gpus, 1);
	assert_int_equal(l.v[3].id, 3);
	vec_free(&l);

	/* absolute epoch seconds and Philly-style names, no model column */
	assert_int_equal(t_trace("arrival,gpus\n1585699200.25,2\n1585699260,4\n", "bert", &l, &d),
			 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.v[1].arrival_ns, 59 * T_SEC + 3 * T_SEC / 4);
	vec_free(&l);

	/* date-times are UTC: 2020-04-01 is day 18353 */
	assert_int_equal(t_trace("submit_time,gpu_num\n2020-03-31T23:59:59.5,1\n"
				 "2020-04-01 00:00:10,1\n",
				 "bert", &l, &d),
			 0);
	assert_int_equal(l.v[1].arrival_ns, 10 * T_SEC + T_SEC / 2);
	vec_free(&l);

	/* a deadline column, seconds after the submit time; empty: none */
	assert_int_equal(t_trace("submit_time,gpu_num,deadline\n3,2,600.5\n1,1,\n", "bert", &l, &d),
			 0);
	assert_int_equal(l.v[0].deadline_ns, 0);
	assert_int_equal(l.v[1].deadline_ns, 600 * T_SEC + T_SEC / 2);
	vec_free(&l);
}

static void t_bad(const char *text, const char *def, const char *msg)
{
	struct diag d = {0};
	job_list l = {0};

	assert_int_equal(t_trace(text, def, &l, &d), -EINVAL);
	assert_string_equal(d.msg, msg);
	assert_int_equal(l.n, 0);
	vec_free(&l);
}

static void test_trace_bad_rows(void **state)
{
	(void)state;
	t_bad("submit_time,user,gpu_num\n1,a,2\n5,u1\n", "bert",
	      "t.csv:3:3: gpu_num: missing (the row has 2 fields, the header 3)");
	t_bad("submit_time,gpu_num\n5,four\n", "bert",
	      "t.csv:2:2: gpu_num: expected a whole number of GPUs, got 'four'");
	t_bad("submit_time,gpu_num\n5,\n", "bert",
	      "t.csv:2:2: gpu_num: expected a whole number of GPUs, got ''");
	t_bad("submit_time,gpu_num\n5,-2\n", "bert",
	      "t.csv:2:2: gpu_num: got '-2', a negative GPU count");
	t_bad("submit_time,gpu_num\n-5,2\n", "bert",
	      "t.csv:2:1: submit_time: got '-5', a negative time");
	t_bad("submit_time,gpu_num\nsoon,2\n", "bert",
	      "t.csv:2:1: submit_time: expected seconds or YYYY-MM-DD HH:MM:SS, got 'soon'");
	t_bad("submit_time,gpu_num\n2020-13-01 00:00:00,2\n", "bert",
	      "t.csv:2:1: submit_time: expected seconds or YYYY-MM-DD HH:MM:SS, got '2020-13-01 "
	      "00:00:00'");
	t_bad("submit_time,gpu_num\n5,2\n2020-04-01 00:00:00,2\n", "bert",
	      "t.csv:3:1: submit_time: '2020-04-01 00:00:00' mixes a date-time with earlier "
	      "seconds");
	t_bad("submit_time,gpu_num\n5,2,extra\n", "bert",
	      "t.csv:2:3: the row has 3 fields, the header 2 (an unquoted comma?)");
	t_bad("submit_time,gpu_num\n\"5,2\n", "bert",
	      "t.csv:2:1: a quoted field is not closed on its line");
	t_bad("submit_time,gpu_num\n\"5\"x,2\n", "bert",
	      "t.csv:2:1: expected a comma after the closing quote");
	t_bad("submit_time,gpu_num\n5,8\n", "bloom",
	      "t.csv:2:2: gpu_num: model bloom needs a multiple of 48 GPUs (one replica is 48 "
	      "shards), "
	      "not 8");
	t_bad("submit_time,gpu_num,model\n5,8,\n", NULL,
	      "t.csv:2:3: model: empty, and no default model is set");
	t_bad("submit_time,gpu_num,deadline\n5,8,0\n", "bert",
	      "t.csv:2:3: deadline: expected seconds after the submit time (> 0), got '0'");
	t_bad("submit_time,gpu_num,deadline\n5,8,soon\n", "bert",
	      "t.csv:2:3: deadline: expected seconds after the submit time (> 0), got 'soon'");
}

static void test_trace_bad_headers(void **state)
{
	struct diag d = {0};
	job_list l = {0};

	(void)state;
	t_bad("submit_time,cpus\n5,2\n", "bert",
	      "t.csv:1: the header has no GPU count column (expected gpu_num, num_gpus, num_gpu or "
	      "gpus, or plan_gpu in percent of a GPU; or map one with workload.trace.columns)");
	t_bad("# only\n\ngpus\n", "bert",
	      "t.csv:3: the header has no submit time column (expected submit_time, "
	      "submitted_time, submission_time or arrival, or start_time when the trace has no "
	      "submit time; or map one with workload.trace.columns)");
	t_bad("arrival,gpus,GPU_NUM\n", "bert",
	      "t.csv:1:3: both gpus (column 2) and GPU_NUM (column 3) name the GPU count column");
	t_bad("arrival,gpus\n", NULL,
	      "t.csv:1: the header has no model column and no default model is set");
	t_bad("", "bert", "t.csv: no header row (expected column names, e.g. submit_time,gpu_num)");
	t_bad("arrival,gpus\n", "gpt-3", "t.csv: unknown default model 'gpt-3'");
	assert_int_equal(t_trace("arrival,gpus,model\n1,2,gpt-3\n", "bert", &l, &d), -EINVAL);
	assert_non_null(
		strstr(d.msg, "t.csv:2:3: model: unknown model 'gpt-3' (known: bloom, gpt3, "));
	/* a header alone is an empty workload */
	assert_int_equal(t_trace("arrival,gpus\n", "bert", &l, &d), 0);
	assert_int_equal(l.n, 0);
	vec_free(&l);
}

/* A header and no job (only CPU rows) into an empty list: no jobs and no error. (The path
 * where libFuzzer found an offset from the list's NULL array; clang's UBSan, which `make fuzz`
 * uses, reports that, gcc's does not.) */
static void test_trace_no_rows(void **state)
{
	job_list l = {0};
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_trace("submit_time,gpu_num\n", "resnet50", &l, &d), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(t_trace("submit_time,gpu_num\n5,0\n", "resnet50", &l, &d), 0);
	assert_int_equal(l.n, 0);
	vec_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gen_interarrival),
		cmocka_unit_test(test_gen_frequencies),
		cmocka_unit_test(test_gen_determinism),
		cmocka_unit_test(test_gen_durations),
		cmocka_unit_test(test_gen_sized_by_duration),
		cmocka_unit_test(test_gen_errors),
		cmocka_unit_test(test_trace_sample),
		cmocka_unit_test(test_trace_header_variants),
		cmocka_unit_test(test_trace_bad_rows),
		cmocka_unit_test(test_trace_bad_headers),
		cmocka_unit_test(test_trace_no_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
