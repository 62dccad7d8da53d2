// SPDX-License-Identifier: MIT
/* collect/records: CSV lines of the five record types, exact round trips (REC_NEVER, quoted
 * text with commas, quotes, CR and LF), random records through write -> parse, record
 * splitting, and the malformed lines the parsers refuse. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "collect/csv.h"
#include "collect/records.h"

#define T_LINE 2048
#define T_ROUNDS 2000

static uint64_t t_rng = 0x9e3779b97f4a7c15ULL;

static uint64_t t_rand(void)
{
	t_rng ^= t_rng << 13; /* xorshift64: reproducible, no libc state */
	t_rng ^= t_rng >> 7;
	t_rng ^= t_rng << 17;
	return t_rng;
}

static int64_t t_time(void)
{
	switch (t_rand() % 4) {
	case 0:
		return REC_NEVER;
	case 1:
		return INT64_MAX - (int64_t)(t_rand() % 3);
	case 2:
		return -(int64_t)(t_rand() % 1000000);
	}
	return (int64_t)(t_rand() >> 2);
}

/* Random text of up to max-1 bytes, rich in the characters CSV must escape. */
static void t_text(char *s, size_t max)
{
	static const char alpha[] = "ab,\"\r\n; .-_xyz0";
	size_t i, n = t_rand() % max;

	for (i = 0; i < n; i++)
		s[i] = alpha[t_rand() % (sizeof(alpha) - 1)];
	s[n] = '\0';
}

static void t_job_rand(struct rec_job *j)
{
	memset(j, 0, sizeof(*j));
	j->id = (uint32_t)t_rand();
	t_text(j->model, sizeof(j->model));
	j->gpus = (uint32_t)t_rand();
	j->kind = (enum coll_kind)(t_rand() % 4);
	j->algo = (enum coll_algo)(t_rand() % 5);
	j->iterations = (uint32_t)t_rand();
	j->bytes = t_rand();
	j->compute_ns = t_rand();
	j->arrival = t_time();
	j->start = t_time();
	j->finish = t_time();
	j->status = (enum rec_status)(t_rand() % 4);
	j->verified = t_rand() % 2;
	t_text(j->reason, sizeof(j->reason));
	t_text(j->placement, sizeof(j->placement));
	j->group = (uint32_t)t_rand();
}

static void t_job_eq(const struct rec_job *a, const struct rec_job *b)
{
	assert_int_equal(a->id, b->id);
	assert_string_equal(a->model, b->model);
	assert_int_equal(a->gpus, b->gpus);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->algo, b->algo);
	assert_int_equal(a->iterations, b->iterations);
	assert_true(a->bytes == b->bytes && a->compute_ns == b->compute_ns);
	assert_true(a->arrival == b->arrival && a->start == b->start && a->finish == b->finish);
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->verified, b->verified);
	assert_string_equal(a->reason, b->reason);
	assert_string_equal(a->placement, b->placement);
	assert_int_equal(a->group, b->group);
}

static void test_job_line(void **state)
{
	struct rec_job j = {.id = 3,
			    .model = "gpt3",
			    .gpus = 8,
			    .kind = COLL_ALLREDUCE,
			    .algo = COLL_HIER_RING,
			    .iterations = 10,
			    .bytes = 1000,
			    .compute_ns = 5,
			    .arrival = 0,
			    .start = REC_NEVER,
			    .finish = REC_NEVER,
			    .status = REC_NOT_STARTED,
			    .reason = "said \"no\", twice\nthen",
			    .placement = "h0;h1",
			    .group = 4};
	char line[T_LINE];
	struct rec_job back;
	int n;

	(void)state;
	n = rec_job_csv(line, sizeof(line), &j);
	assert_int_equal(n, (int)strlen(line));
	assert_string_equal(line, "3,gpt3,8,allreduce,hier-ring,10,1000,5,0,,,not-started,0,"
				  "\"said \"\"no\"\", twice\nthen\",h0;h1,4\n");
	assert_int_equal(rec_job_parse(line, &back), 0);
	t_job_eq(&j, &back);
	assert_int_equal(rec_csv_record_len(line), strlen(line));
	/* a row written before the group column reads as group 0 */
	assert_int_equal(rec_job_parse("3,gpt3,8,allreduce,hier-ring,10,1000,5,0,,,not-started,0,"
				       "why,h0;h1\n",
				       &back),
			 0);
	assert_int_equal(back.group, 0);
	assert_string_equal(back.placement, "h0;h1");
	assert_int_equal(rec_job_parse("3,gpt3,8,allreduce,hier-ring,10,1000,5,0,,,not-started,0,"
				       "why,h0;h1,4,5\n",
				       &back),
			 -EINVAL); /* one field too many */
}

static void test_other_lines(void **state)
{
	struct rec_iter i = {1, 2, 3, 10, REC_NEVER, -5};
	struct rec_flow f = {1, 2, 3, 4, 5, 6, 7, 8, 0, 100, REC_NEVER, 46};
	struct rec_sample s = {7, 3, 1, 1500, 1, 0, 64};
	struct rec_cpu c = {100000000, 0.25, 0.1, 3, 0.5};
	char line[T_LINE];

	(void)state;
	rec_iter_csv(line, sizeof(line), &i);
	assert_string_equal(line, "1,2,3,10,,-5\n");
	rec_flow_csv(line, sizeof(line), &f);
	assert_string_equal(line, "1,2,3,4,5,6,7,8,0,100,,46\n");
	rec_sample_csv(line, sizeof(line), &s);
	assert_string_equal(line, "7,3,1,1500,1,0,64\n");
	rec_cpu_csv(line, sizeof(line), &c);
	assert_string_equal(line, "100000000,0.25,0.10000000000000001,3,0.5\n");
	c.backlog_drops = REC_NEVER; /* unknown: empty */
	rec_cpu_csv(line, sizeof(line), &c);
	assert_string_equal(line, "100000000,0.25,0.10000000000000001,,0.5\n");
	assert_int_equal(strchr(rec_job_header, '\n'), NULL);
	assert_string_equal(rec_cpu_header, "t_ns,busy,softirq,backlog_drops,self");
	assert_string_equal(rec_cpu_header_v1, "t_ns,busy,softirq");
	{
		struct rec_route r = {5, "failure", 1728, 12, 2, 2, 800000, 16000000};

		rec_route_csv(line, sizeof(line), &r);
		assert_string_equal(line, "5,failure,1728,12,2,2,800000,16000000\n");
		r.paths_ns = REC_NEVER;
		rec_route_csv(line, sizeof(line), &r);
		assert_string_equal(line, "5,failure,1728,12,2,2,800000,\n");
		assert_string_equal(rec_route_header,
				    "t_ns,trigger,commodities,retagged,max_load,lower_bound,"
				    "decide_ns,paths_ns");
	}
}

static void t_iter_round(void)
{
	struct rec_iter a = {(uint32_t)t_rand(), (uint32_t)t_rand(), (uint32_t)t_rand(),
			     t_time(),		 t_time(),	     t_time()};
	struct rec_iter b;
	char line[T_LINE];

	rec_iter_csv(line, sizeof(line), &a);
	assert_int_equal(rec_iter_parse(line, &b), 0);
	assert_true(a.job == b.job && a.rank == b.rank && a.iter == b.iter);
	assert_true(a.t_start == b.t_start && a.t_compute_end == b.t_compute_end &&
		    a.t_end == b.t_end);
}

static void t_flow_round(void)
{
	struct rec_flow a = {(uint32_t)t_rand(), (uint32_t)t_rand(), (uint32_t)t_rand(),
			     (uint32_t)t_rand(), (uint32_t)t_rand(), (uint32_t)t_rand(),
			     (uint32_t)t_rand(), (uint32_t)t_rand(), t_rand(),
			     t_time(),		 t_time(),	     (uint32_t)t_rand()};
	struct rec_flow b;
	char line[T_LINE];

	rec_flow_csv(line, sizeof(line), &a);
	assert_int_equal(rec_flow_parse(line, &b), 0);
	assert_true(a.job == b.job && a.iter == b.iter && a.src == b.src && a.dst == b.dst);
	assert_true(a.src_node == b.src_node && a.dst_node == b.dst_node && a.seq == b.seq);
	assert_true(a.phase == b.phase && a.bytes == b.bytes && a.tag == b.tag);
	assert_true(a.t_start == b.t_start && a.t_end == b.t_end);
}

static void t_sample_round(void)
{
	struct rec_sample a = {t_time(), (uint32_t)t_rand(), t_rand() % 2, t_rand(),
			       t_rand(), t_rand(),	     t_rand()};
	struct rec_sample b;
	char line[T_LINE];

	rec_sample_csv(line, sizeof(line), &a);
	assert_int_equal(rec_sample_parse(line, &b), 0);
	assert_true(a.t == b.t && a.link == b.link && a.dir == b.dir);
	assert_true(a.tx_bytes == b.tx_bytes && a.tx_packets == b.tx_packets);
	assert_true(a.drops == b.drops && a.backlog == b.backlog);
}

static void t_cpu_round(void)
{
	struct rec_cpu a = {t_time(), (double)t_rand() / (double)UINT64_MAX,
			    (double)(t_rand() % 1000) / 7.0,
			    t_rand() % 3 ? (int64_t)(t_rand() >> 1) : REC_NEVER,
			    (double)(t_rand() % 1000) / 999.0};
	struct rec_cpu b;
	char line[T_LINE];

	rec_cpu_csv(line, sizeof(line), &a);
	assert_int_equal(rec_cpu_parse(line, &b), 0);
	assert_true(a.t == b.t && a.busy == b.busy && a.softirq == b.softirq &&
		    a.backlog_drops == b.backlog_drops && a.self == b.self);
}

static void t_route_round(void)
{
	static const char *const why[] = {"start", "end", "failure", "rewire"};
	struct rec_route a = {.t = t_time(),
			      .commodities = (uint32_t)t_rand(),
			      .retagged = (uint32_t)t_rand(),
			      .max_load = (uint32_t)t_rand(),
			      .lower_bound = (uint32_t)t_rand(),
			      .decide_ns = t_time(),
			      .paths_ns = t_time()};
	struct rec_route b;
	char line[T_LINE];

	snprintf(a.trigger, sizeof(a.trigger), "%s", why[t_rand() % 4]);
	rec_route_csv(line, sizeof(line), &a);
	assert_int_equal(rec_route_parse(line, &b), 0);
	assert_true(a.t == b.t && !strcmp(a.trigger, b.trigger) && a.decide_ns == b.decide_ns);
	assert_true(a.paths_ns == b.paths_ns);
	assert_true(a.commodities == b.commodities && a.retagged == b.retagged);
	assert_true(a.max_load == b.max_load && a.lower_bound == b.lower_bound);
}

/* Property: any record survives write -> parse exactly. */
static void test_random_round_trips(void **state)
{
	struct rec_job a, b;
	char line[T_LINE];
	int i, n;

	(void)state;
	for (i = 0; i < T_ROUNDS; i++) {
		t_job_rand(&a);
		n = rec_job_csv(line, sizeof(line), &a);
		assert_int_equal(n, (int)strlen(line));
		assert_int_equal(rec_csv_record_len(line), strlen(line));
		if (rec_job_parse(line, &b))
			fail_msg("job line did not parse back: %s", line);
		t_job_eq(&a, &b);
		t_iter_round();
		t_flow_round();
		t_sample_round();
		t_cpu_round();
		t_route_round();
	}
}

/* A file of several records split with rec_csv_record_len, newlines inside quotes. */
static void test_split(void **state)
{
	struct rec_job j[3];
	char text[3 * T_LINE] = "";
	const char *p = text;
	struct rec_job back;
	size_t n, k = 0;
	char rec[T_LINE];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		t_job_rand(&j[i]);
		snprintf(j[i].reason, sizeof(j[i].reason), "line one\nline \"two\"\r\n%d", i);
		rec_job_csv(text + strlen(text), sizeof(text) - strlen(text), &j[i]);
	}
	for (; *p; p += n, k++) {
		n = rec_csv_record_len(p);
		assert_true(n < sizeof(rec));
		memcpy(rec, p, n);
		rec[n] = '\0';
		assert_int_equal(rec_job_parse(rec, &back), 0);
		t_job_eq(&j[k], &back);
	}
	assert_int_equal(k, 3);
	assert_int_equal(rec_csv_record_len("a,b"), 3);
	assert_int_equal(rec_csv_record_len(""), 0);
}

static void test_truncation(void **state)
{
	struct rec_job j = {.model = "m", .reason = "a,b", .placement = "p"};
	struct rec_iter it = {4000000000u, 1, 2, -123456789, REC_NEVER, INT64_MAX};
	char full[T_LINE], small[10], cut[17];
	int n = rec_job_csv(full, sizeof(full), &j);

	(void)state;
	assert_int_equal(rec_job_csv(small, sizeof(small), &j), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, full, sizeof(small) - 1);
	assert_int_equal(rec_job_csv(NULL, 0, &j), n);
	/* numbers cut the same way */
	n = rec_iter_csv(full, sizeof(full), &it);
	assert_string_equal(full, "4000000000,1,2,-123456789,,9223372036854775807\n");
	assert_int_equal(rec_iter_csv(small, sizeof(small), &it), n);
	assert_string_equal(small, "400000000");
	assert_int_equal(rec_iter_csv(cut, sizeof(cut), &it), n); /* after a minus sign */
	assert_string_equal(cut, "4000000000,1,2,-");
	assert_int_equal(rec_iter_csv(NULL, 0, &it), n);
}

static void test_malformed(void **state)
{
	static const char *const iters[] = {
		"1,2,3,4,5",
		"1,2,3,4,5,6,7",
		"1,2,3,4,5,x",
		"-1,2,3,4,5,6",
		"1,2,3,4,5,-",
		"1,2,3,4,5, 6",
		"4294967296,2,3,4,5,6",
		"1,2,3,4,5,6\r",
		"1,2,3,4,5,6\n\n",
		"1,2,3,4,\"5,6",
		"1,2,3,4,5\"\",6",
		"1,2,3,4,5,99999999999999999999",
		"1,2,3,4,5,9223372036854775808",
		"1,2,3,4,5,0000000000000000000000000000000000000006",
		"",
		NULL,
	};
	static const char *const jobs[] = {
		"0,m,1,allreduce,ring,1,1,1,0,0,0,ok,1,,x,extra",
		"0,m,1,allreduce,ring,1,1,1,0,0,0,OK,1,,",
		"0,m,1,broadcast,ring,1,1,1,0,0,0,ok,1,,",
		"0,m,1,allreduce,tree,1,1,1,0,0,0,ok,1,,",
		"0,a-model-name-of-25-chars,1,allreduce,ring,1,1,1,0,0,0,ok,1,,",
		"0,\"m\"x,1,allreduce,ring,1,1,1,0,0,0,ok,1,,",
	};
	struct rec_iter it = {.job = 77};
	struct rec_flow f;
	struct rec_job j;
	struct rec_sample s;
	struct rec_cpu c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(iters) / sizeof(iters[0]); i++) {
		if (rec_iter_parse(iters[i], &it) != -EINVAL)
			fail_msg("accepted iteration line %zu: %s", i,
				 iters[i] ? iters[i] : "NULL");
	}
	assert_int_equal(it.job, 77); /* untouched by a refusal */
	for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		if (rec_job_parse(jobs[i], &j) != -EINVAL)
			fail_msg("accepted job line %zu: %s", i, jobs[i]);
	}
	assert_int_equal(rec_job_parse("0,m,1,allreduce,ring,1,1,1,0,0,0,ok,1,,\r\n", &j), 0);
	/* numbers in quotes, with a sign, at the limits */
	assert_int_equal(
		rec_iter_parse("\"1\",2,3,\"-4\",-9223372036854775807,9223372036854775807\n", &it),
		0);
	assert_true(it.job == 1 && it.t_start == -4 && it.t_compute_end == -INT64_MAX &&
		    it.t_end == INT64_MAX);
	/* the longest number accepted: 39 characters */
	assert_int_equal(rec_iter_parse("1,2,3,4,5,000000000000000000000000000000000000006", &it),
			 0);
	assert_int_equal(it.t_end, 6);
	/* bytes up to 2^64 - 1 */
	assert_int_equal(rec_flow_parse("1,2,3,4,5,6,7,8,18446744073709551615,9,10,11", &f), 0);
	assert_true(f.bytes == UINT64_MAX && f.t_end == 10 && f.tag == 11);
	assert_int_equal(rec_flow_parse("1,2,3,4,5,6,7,8,18446744073709551616,9,10,11", &f),
			 -EINVAL);
	assert_int_equal(rec_sample_parse("1,2,2,0,0,0,0", &s), -EINVAL);
	assert_int_equal(rec_cpu_parse("1,0.5,", &c), -EINVAL);
	assert_int_equal(rec_cpu_parse("1,0.5x,0", &c), -EINVAL);
	assert_int_equal(rec_cpu_parse("1, 0.5,0", &c), -EINVAL);
	assert_int_equal(rec_cpu_parse("1,5e-1,0", &c), 0);
	assert_true(c.busy == 0.5);
	/* a folder from before the columns */
	assert_true(c.backlog_drops == REC_NEVER && isnan(c.self));
	assert_int_equal(rec_cpu_parse("1,0.5,0,17,0.25", &c), 0);
	assert_true(c.backlog_drops == 17 && c.self == 0.25);
	assert_int_equal(rec_cpu_parse("1,0.5,0,,0.25", &c), 0);
	assert_int_equal(c.backlog_drops, REC_NEVER);
	assert_int_equal(rec_cpu_parse("1,0.5,0,-3,0", &c), -EINVAL);
	assert_int_equal(rec_cpu_parse("1,0.5,0,3", &c), -EINVAL); /* one of the two */
	assert_int_equal(rec_cpu_parse("1,0.5,0,3,0,4", &c), -EINVAL);
}

static void test_names(void **state)
{
	struct rec_run r = {0};

	(void)state;
	assert_string_equal(rec_status_name(REC_OK), "ok");
	assert_string_equal(rec_status_name(REC_NOT_STARTED), "not-started");
	assert_string_equal(rec_status_name(REC_CANCELLED), "cancelled");
	assert_string_equal(rec_status_name((enum rec_status)42), "?");
	assert_int_equal(vec_push(&r.cpu, ((struct rec_cpu){0})), 0);
	assert_int_equal(vec_push(&r.jobs, ((struct rec_job){0})), 0);
	rec_run_done(&r);
	assert_null(r.cpu.v);
	rec_run_done(NULL);
}

/* Integers are written as printf's %llu and %lld write them: every digit count, both ends of
 * the range, and random values of every magnitude; a field that does not fit is cut as
 * vsnprintf cuts it. */
static void test_integers(void **state)
{
	char got[64], want[64], cut[8];
	struct col_csv_w w;
	uint64_t v, p;
	int i, n;

	(void)state;
	for (i = 0; i < 4000; i++) {
		p = i < 64 ? (uint64_t)1 << i : t_rand() >> (t_rand() % 64);
		v = i % 3 == 0 ? p : i % 3 == 1 ? p - 1 : p + 1;
		col_csv_w_init(&w, got, sizeof(got));
		col_csv_u64(&w, v);
		col_csv_time(&w, (int64_t)v);
		n = col_csv_w_end(&w);
		snprintf(want, sizeof(want), "%llu,%lld\n", (unsigned long long)v, (long long)v);
		if ((int64_t)v == REC_NEVER)
			snprintf(want, sizeof(want), "%llu,\n", (unsigned long long)v);
		assert_string_equal(got, want);
		assert_int_equal(n, (int)strlen(want));
	}
	for (v = 1, i = 0; i < 20; i++, v *= 10) {
		col_csv_w_init(&w, got, sizeof(got));
		col_csv_u64(&w, v - 1);
		col_csv_u64(&w, v);
		col_csv_w_end(&w);
		snprintf(want, sizeof(want), "%llu,%llu\n", (unsigned long long)(v - 1),
			 (unsigned long long)v);
		assert_string_equal(got, want);
	}
	col_csv_w_init(&w, got, sizeof(got));
	col_csv_u64(&w, UINT64_MAX);
	col_csv_w_end(&w);
	assert_string_equal(got, "18446744073709551615\n");
	col_csv_w_init(&w, cut, sizeof(cut));
	col_csv_u64(&w, 123456789);
	assert_int_equal(col_csv_w_end(&w), 10);
	assert_string_equal(cut, "1234567");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_line),
		cmocka_unit_test(test_other_lines),
		cmocka_unit_test(test_random_round_trips),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
