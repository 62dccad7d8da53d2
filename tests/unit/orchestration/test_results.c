// SPDX-License-Identifier: MIT
/* A results folder's files (report/results.c), in a temporary folder: every record
 * written and read back equal (100,003 flows too), malformed files refused with the file and record
 * named, a folder without sampling, summary.json's run object read back, the dilation rounded as
 * the JSON prints it, and a run loaded with its topology's rates. No root needed. */
#include <errno.h>
#include <fcntl.h>
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
#include "model/gen.h"
#include "report/results.h"

#define S 1000000000LL

static char t_dir[64];
static struct wdir t_root = WDIR_INIT, t_w = WDIR_INIT; /* t_dir, and a run folder in it */

static int t_setup(void **state)
{
	(void)state;
	snprintf(t_dir, sizeof(t_dir), "/tmp/tbunit.XXXXXX");
	return mkdtemp(t_dir) && !wdir_open(&t_root, t_dir, 0, NULL) ? 0 : -1;
}

static int t_teardown(void **state)
{
	char cmd[128];

	(void)state;
	wdir_close(&t_w);
	wdir_close(&t_root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t_dir);
	return system(cmd) ? -1 : 0;
}

/* A new run folder in t_dir as t_w, as each run has its own. */
static void t_fresh(void)
{
	wdir_close(&t_w);
	assert_int_equal(wdir_new(&t_w, &t_root, "run", "", NULL), 0);
}

static void t_run(struct rec_run *r)
{
	struct rec_job j = {.id = 1,
			    .model = "a,\"b\"",
			    .gpus = 2,
			    .kind = COLL_ALLREDUCE,
			    .algo = COLL_RING,
			    .iterations = 2,
			    .bytes = 100,
			    .arrival = 0,
			    .start = S,
			    .finish = 2 * S,
			    .status = REC_OK,
			    .placement = "h0;h1"};
	struct rec_iter it = {1, 0, 0, S, S + 5, S + 10};
	struct rec_flow f = {1, 0, 0, 1, 0, 1, 0, 0, 100, S, REC_NEVER, 0};
	struct rec_sample s = {0, 4, 1, 10, 1, 0, 0};
	struct rec_cpu c = {S / 10, 0.25, 1.0 / 3, 0, 0.01};

	*r = (struct rec_run){0};
	snprintf(j.reason, sizeof(j.reason), "line one\nline two");
	vec_push(&r->jobs, j);
	vec_push(&r->iters, it);
	vec_push(&r->flows, f);
	vec_push(&r->samples, s);
	s.t = S;
	s.tx_bytes = 1000;
	vec_push(&r->samples, s);
	vec_push(&r->cpu, c);
}

static void test_round_trip(void **state)
{
	struct rec_run a, b = {0};
	struct diag d = {0};

	(void)state;
	t_run(&a);
	assert_int_equal((t_fresh(), res_records_write(&t_w, &a, &d)), 0);
	assert_int_equal(res_records_read(&t_w, &b, &d), 0);
	assert_int_equal(b.jobs.n, 1);
	assert_memory_equal(&a.jobs.v[0], &b.jobs.v[0], sizeof(a.jobs.v[0]));
	assert_memory_equal(a.iters.v, b.iters.v, sizeof(*a.iters.v));
	assert_memory_equal(a.flows.v, b.flows.v, sizeof(*a.flows.v));
	assert_memory_equal(a.samples.v, b.samples.v, 2 * sizeof(*a.samples.v));
	assert_true(b.cpu.v[0].softirq == 1.0 / 3); /* 17 digits: exact */
	rec_run_done(&a);
	rec_run_done(&b);
}

static void t_put(const char *name, const char *text)
{
	assert_int_equal(wdir_write(&t_w, name, text, strlen(text), WDIR_REPLACE, NULL), 0);
}

/* Every field, not the padding (a record read back has the parser's). */
static void t_flow_equal(const struct rec_flow *x, const struct rec_flow *y)
{
	assert_true(x->job == y->job && x->iter == y->iter && x->src == y->src &&
		    x->dst == y->dst && x->src_node == y->src_node && x->dst_node == y->dst_node &&
		    x->seq == y->seq && x->phase == y->phase && x->bytes == y->bytes &&
		    x->t_start == y->t_start && x->t_end == y->t_end && x->tag == y->tag);
}

/* 100,003 flows, each different, written by blocks formatted on two threads (flows.csv of a
 * paper-scale run): read back in order and equal, the last partial block too. */
static void test_many_flows(void **state)
{
	struct rec_run a = {0}, b = {0};
	struct diag d = {0};
	uint32_t i;

	(void)state;
	for (i = 0; i < 100003; i++) {
		struct rec_flow *f = vec_grow(&a.flows);

		assert_non_null(f);
		f->job = i % 7;
		f->iter = i % 3;
		f->src = i;
		f->dst = i + 1;
		f->src_node = 2 * i;
		f->dst_node = 2 * i + 1;
		f->seq = i % 11;
		f->phase = i % 5;
		f->bytes = (uint64_t)i * 1000003;
		f->t_start = (int64_t)i * S / 7;
		f->t_end = (int64_t)i * S / 3;
		f->tag = i % 64;
	}
	assert_int_equal((t_fresh(), res_records_write(&t_w, &a, &d)), 0);
	assert_int_equal(res_records_read(&t_w, &b, &d), 0);
	assert_int_equal(b.flows.n, a.flows.n);
	for (i = 0; i < a.flows.n; i++)
		t_flow_equal(&a.flows.v[i], &b.flows.v[i]);
	rec_run_done(&a);
	rec_run_done(&b);
}

static void test_refusals(void **state)
{
	struct rec_run a, b = {0};
	struct diag d = {0};
	char want[WDIR_PATH_MAX + 256];

	(void)state;
	t_run(&a);
	assert_int_equal((t_fresh(), res_records_write(&t_w, &a, &d)), 0);
	t_put("iterations.csv", "job,rank\n1,2\n");
	assert_int_equal(res_records_read(&t_w, &b, &d), -EINVAL);
	snprintf(want, sizeof(want), "%s/iterations.csv: the header is not '%s'", t_w.path,
		 rec_iter_header);
	assert_string_equal(d.msg, want);
	rec_run_done(&b);
	diag_clear(&d);
	assert_int_equal((t_fresh(), res_records_write(&t_w, &a, &d)), 0);
	t_put("cpu.csv", "t_ns,busy,softirq\n1,0.5,0\n2,x,0\n");
	assert_int_equal(res_records_read(&t_w, &b, &d), -EINVAL);
	snprintf(want, sizeof(want), "%s/cpu.csv:3: not a record of this file", t_w.path);
	assert_string_equal(d.msg, want);
	rec_run_done(&b);
	diag_clear(&d);
	/* a run without sampling has no links.csv or cpu.csv */
	assert_int_equal((t_fresh(), res_records_write(&t_w, &a, &d)), 0);
	assert_int_equal(unlinkat(t_w.fd, "links.csv", 0), 0);
	assert_int_equal(unlinkat(t_w.fd, "cpu.csv", 0), 0);
	assert_int_equal(res_records_read(&t_w, &b, &d), 0);
	assert_int_equal(b.samples.n, 0);
	assert_int_equal(b.jobs.n, 1);
	rec_run_done(&b);
	assert_int_equal(unlinkat(t_w.fd, "jobs.csv", 0), 0);
	assert_int_equal(res_records_read(&t_w, &b, &d), -ENOENT);
	rec_run_done(&b);
	rec_run_done(&a);
}

static void test_info(void **state)
{
	struct res_info info = {.dilation = 1 / 0.003}, back;
	struct diag d = {0};

	(void)state;
	t_fresh();
	res_info_normalize(&info);
	assert_true(info.dilation != 1 / 0.003);
	assert_float_equal(info.dilation, 333.333333333333, 1e-12);
	t_put("summary.json", "{\"scenario\": \"q\", \"run_id\": \"r1\", \"run\": "
			      "{\"dilation\": 333.333333333333, \"end_ns\": 123}}");
	assert_int_equal(res_info_read(&t_w, &back, &d), 0);
	assert_true(back.dilation == info.dilation); /* as the report reads it back */
	assert_int_equal(back.t_end, 123);
	assert_string_equal(back.scenario, "q");
	assert_string_equal(back.run_id, "r1");
	t_put("summary.json", "{\"run\": {\"dilation\": 0}}");
	assert_int_equal(res_info_read(&t_w, &back, &d), -EINVAL);
}

/* Loading a folder: the topology's rates reach the metrics. */
static void test_load(void **state)
{
	struct scenario s;
	struct topo *t = NULL;
	struct rec_run a;
	struct res_info info = {.scenario = "q", .run_id = "r", .dilation = 1, .t_end = 2 * S};
	struct res_run x;
	struct diag d = {0};

	(void)state;
	scn_init(&s);
	s.topology.gen = SCN_GEN_LEAFSPINE;
	s.topology.ls = (struct scn_leafspine){2, 2, 1, 1, 8000, 8000, 1, 0, {0}};
	assert_int_equal(topo_build(&s, &t, &d), 0);
	t_run(&a);
	assert_int_equal((t_fresh(), res_records_write(&t_w, &a, &d)), 0);
	assert_int_equal(res_write_topology(&t_w, t, &s.shaping, &d), 0);
	if (res_load(&t_w, &info, NULL, &x, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(x.m.links.n, 1);
	assert_int_equal(x.m.links.v[0].rate_bps, 8000);
	assert_float_equal(x.m.links.v[0].util_mean, 8.0 * 990 / 8000, 1e-12);
	assert_int_equal(x.m.t_end, 2 * S);
	res_run_done(&x);
	rec_run_done(&a);
	topo_free(t);
	scn_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip), cmocka_unit_test(test_many_flows),
		cmocka_unit_test(test_refusals),   cmocka_unit_test(test_info),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
