// SPDX-License-Identifier: MIT
/* A sweep cut into shards (report/sweep_shard.c): every run falls to exactly one shard, every
 * shard gets within one run of an even share, the same on every call; shards.json refuses a
 * folder that holds another cut; the shards' own files merge into the sweep.json the whole
 * sweep writes, naming the shard that wrote nothing and the runs it owes, and refusing a
 * shard's file of another sweep. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/sweep_report.h"
#include "scenario/scenario_yaml.h"

static const char t_text[] = "name: cut\n"
			     "topology:\n"
			     "  kind: leafspine\n"
			     "  hosts_per_leaf: 4\n"
			     "  leaves: 2\n"
			     "  spines: 2\n"
			     "  host_rate: 1Gbit\n"
			     "workload:\n"
			     "  jobs:\n"
			     "    - { model: gpt3, gpus: 4 }\n"
			     "sweep:\n"
			     "  topology.spines: [1, 2, 4, 8]\n"
			     "  seeds:\n"
			     "    routing.seed: [1, 2, 3]\n";

static char t_dir[] = "/tmp/tbunit-shard.XXXXXX";
static struct wdir t_w;

static int setup(void **state)
{
	(void)state;
	return mkdtemp(t_dir) && !wdir_open(&t_w, t_dir, 0, NULL) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	wdir_close(&t_w);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t_dir);
	return system(cmd) ? -1 : 0;
}

/* Every run in one shard, every shard within one run of n / shards, whatever the name. */
static void test_partition(void **state)
{
	static const char *const names[] = {"a", "vclos-cluster512", "greedy-toy", ""};
	uint32_t count[64], n, shards, k, i, lo, hi;

	(void)state;
	for (i = 0; i < 4; i++)
		for (n = 1; n <= 100; n += 7)
			for (shards = 1; shards <= 40; shards++) {
				memset(count, 0, sizeof(count));
				for (k = 0; k < n; k++) {
					uint32_t s = sweep_shard_of(names[i], k, shards);

					assert_true(s < shards);
					assert_int_equal(s, sweep_shard_of(names[i], k, shards));
					count[s]++;
				}
				lo = n / shards;
				hi = lo + (n % shards != 0);
				for (k = 0; k < shards; k++)
					assert_true(count[k] >= lo && count[k] <= hi);
			}
	/* dealt round: runs k and k + 1 on neighbouring shards */
	for (k = 0; k < 30; k++)
		assert_int_equal(sweep_shard_of("x", k + 1, 7),
				 (sweep_shard_of("x", k, 7) + 1) % 7);
	/* one shard: all of it */
	assert_int_equal(sweep_shard_of("x", 12345, 1), 0);
	/* the small sweeps of a catalogue do not all start on shard 1 */
	for (i = 0, n = 0; i < 4; i++)
		n += sweep_shard_of(names[i], 0, 8) != 0;
	assert_true(n >= 2);
}

static void t_plan(struct sweep_plan *p)
{
	struct experiment e;
	struct diag d = {0};

	if (exp_parse_buffer("cut.yaml", t_text, strlen(t_text), &e, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(sweep_plan_make(&e, p), 0);
	assert_int_equal(p->runs.n, 12);
	exp_done(&e);
}

/* Shard i of n writes its file: its own runs ok (run 5 failed, if it is one of them). */
static void t_shard_runs(const struct sweep_plan *all, uint32_t i, uint32_t n)
{
	struct sweep_plan p;
	struct diag d = {0};
	char file[64];
	size_t k;

	t_plan(&p);
	assert_int_equal(sweep_shards_begin(&t_w, &p, n, &d), 0);
	for (k = 0; k < p.runs.n; k++) {
		if (sweep_shard_of(all->scenario, (uint32_t)k, n) != i)
			continue;
		p.runs.v[k].status = k == 5 ? SWEEP_FAILED : SWEEP_OK;
		if (k == 5)
			snprintf(p.runs.v[k].error, sizeof(p.runs.v[k].error), "it broke");
	}
	sweep_shard_file(file, sizeof(file), i, n);
	assert_int_equal(sweep_plan_write_as(&t_w, file, &p, &d), 0);
	sweep_plan_done(&p);
}

static void test_merge(void **state)
{
	struct sweep_plan all, got;
	struct sweep_missing m;
	struct diag d = {0};
	char want[128];
	size_t k;
	uint32_t n;

	(void)state;
	t_plan(&all);
	assert_string_equal(all.scenario, "cut");
	t_shard_runs(&all, 0, 3);
	t_shard_runs(&all, 2, 3);
	assert_int_equal(sweep_shards_merge(&t_w, &m, &d), 0);
	assert_int_equal(m.shards_absent, 1);
	assert_int_equal(m.runs, 4);
	assert_int_equal(sweep_plan_read(&t_w, &got, &d), 0);
	for (k = 0, n = 0; k < got.runs.n; k++) {
		uint32_t s = sweep_shard_of("cut", (uint32_t)k, 3);
		enum sweep_status want_st = s == 1   ? SWEEP_PENDING
					    : k == 5 ? SWEEP_FAILED
						     : SWEEP_OK;

		assert_int_equal(got.runs.v[k].status, want_st);
		if (s == 1 && !n++) { /* the first run the absent shard owes is named */
			snprintf(want, sizeof(want),
				 "shard 2/3 wrote no shard-2-of-3.json: 4 runs (%s",
				 got.runs.v[k].dir);
			assert_non_null(strstr(m.text, want));
		}
	}
	assert_int_equal(m.failed, sweep_shard_of("cut", 5, 3) == 1 ? 0 : 1);
	sweep_plan_done(&got);

	/* the last shard comes in: nothing missing, and sweep.json is the whole sweep's */
	t_shard_runs(&all, 1, 3);
	assert_int_equal(sweep_shards_merge(&t_w, &m, &d), 0);
	assert_int_equal(m.runs, 0);
	assert_int_equal(m.shards_absent, 0);
	assert_string_equal(m.text, "");
	assert_int_equal(m.failed, 1);
	assert_int_equal(sweep_plan_read(&t_w, &got, &d), 0);
	for (k = 0; k < got.runs.n; k++) {
		assert_int_equal(got.runs.v[k].status, k == 5 ? SWEEP_FAILED : SWEEP_OK);
		assert_string_equal(got.runs.v[k].dir, all.runs.v[k].dir);
	}
	assert_string_equal(got.runs.v[5].error, "it broke");
	sweep_plan_done(&got);

	/* another cut of the same sweep into this folder: refused, naming the one there */
	assert_int_equal(sweep_shards_begin(&t_w, &all, 4, &d), -EEXIST);
	assert_non_null(strstr(d.msg, "cut into 3 shards of 12 runs"));
	/* a shard's file of another sweep: refused at the merge */
	snprintf(all.runs.v[3].dir, sizeof(all.runs.v[3].dir), "elsewhere");
	assert_int_equal(sweep_plan_write_as(&t_w, "shard-3-of-3.json", &all, &d), 0);
	d = (struct diag){0};
	assert_int_equal(sweep_shards_merge(&t_w, &m, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "shard-3-of-3.json: the plan of another sweep"));
	sweep_plan_done(&all);
}

/* A folder of a sweep that was not sharded takes no shard. */
static void test_unsharded_folder(void **state)
{
	struct sweep_plan p;
	struct diag d = {0};
	char sub[64];
	struct wdir w;

	(void)state;
	t_plan(&p);
	assert_int_equal(wdir_sub(&w, &t_w, "whole", WDIR_CREATE, &d), 0);
	assert_int_equal(sweep_plan_write(&w, &p, &d), 0);
	assert_int_equal(sweep_shards_begin(&w, &p, 2, &d), -EEXIST);
	assert_non_null(strstr(d.msg, "a sweep that was not sharded"));
	/* and a merge needs shards.json */
	assert_int_equal(sweep_shards_merge(&w, &(struct sweep_missing){0}, &d), -ENOENT);
	wdir_close(&w);
	sweep_plan_done(&p);
	sweep_shard_file(sub, sizeof(sub), 9, 10);
	assert_string_equal(sub, "shard-10-of-10.json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_unsharded_folder),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
