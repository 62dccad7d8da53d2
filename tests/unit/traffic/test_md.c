// SPDX-License-Identifier: MIT
/* The chunked multi-dimensional collective as measured (collect/md.h): on a hand-made 2x2
 * run, the all-reduce time against the ideal one, each dimension's bytes, utilization and
 * frontend activity (Themis §6.1); an iteration a rank did not finish is left out; the
 * schedule dump reads back as written. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collect/md.h"

#define S_NS 1000000000LL

/* 2x2, both dimensions 8 bit/s (1 byte/s), direct, one chunk, baseline order. */
static struct col_md_job t_job(void)
{
	struct col_md_job j = {.job = 3, .bytes = 8};

	j.md.ndims = 2;
	j.md.sched = COLL_MD_BASELINE;
	j.md.intra = COLL_MD_FIFO;
	j.md.chunks = 1;
	j.md.thr_div = 16;
	for (int k = 0; k < 2; k++)
		j.md.dim[k] = (struct coll_md_dim){
			.size = 2, .algo = COLL_MD_DIRECT, .active = 1, .rate = 8};
	return j;
}

/* Rank r's flows of iteration it: each stage sends to the peer of its dimension, stage s
 * from at[s] to at[s + 1] seconds. */
static void t_flows(struct rec_run *r, uint32_t it, const int64_t at[5])
{
	static const uint32_t dim[4] = {0, 1, 1, 0}, bytes[4] = {4, 2, 2, 4};
	uint32_t rank, s;

	for (rank = 0; rank < 4; rank++)
		for (s = 0; s < 4; s++) {
			struct rec_flow f = {.job = 3,
					     .iter = it,
					     .src = rank,
					     .dst = rank ^ (1u << dim[s]),
					     .phase = s,
					     .bytes = bytes[s],
					     .t_start = at[s] * S_NS,
					     .t_end = at[s + 1] * S_NS};

			assert_int_equal(vec_push(&r->flows, f), 0);
		}
}

static void t_iter(struct rec_run *r, uint32_t it, uint32_t ranks, int64_t b, int64_t e)
{
	for (uint32_t rank = 0; rank < ranks; rank++) {
		struct rec_iter x = {.job = 3,
				     .rank = rank,
				     .iter = it,
				     .t_start = b * S_NS,
				     .t_compute_end = b * S_NS,
				     .t_end = e * S_NS};

		assert_int_equal(vec_push(&r->iters, x), 0);
	}
}

/* Iteration 0: stages 0-2, 2-4, 4-6 and a slow 6-12 s; iteration 1 lacks a rank. */
static void test_measure(void **state)
{
	static const int64_t at0[5] = {0, 2, 4, 6, 12}, at1[5] = {20, 21, 22, 23, 24};
	struct col_md_job j = t_job();
	struct rec_job rj = {.id = 3, .gpus = 4, .iterations = 2};
	struct rec_run r = {.dilation = 1};
	col_md_results out = {0};
	const struct col_md_result *x;

	(void)state;
	assert_int_equal(vec_push(&r.jobs, rj), 0);
	t_flows(&r, 0, at0);
	t_iter(&r, 0, 4, 0, 12);
	t_flows(&r, 1, at1);
	t_iter(&r, 1, 3, 20, 24);
	assert_int_equal(col_md_measure(&r, &j, 1, &out), 0);
	assert_int_equal(out.n, 1);
	x = &out.v[0];
	assert_int_equal(x->job, 3);
	assert_int_equal(x->iters, 1);
	assert_float_equal(x->t_s, 12, 1e-9);
	/* 2 S (N-1)/N over 2 bytes/s: 6 s */
	assert_float_equal(x->t_ideal_s, 6, 1e-9);
	assert_float_equal(x->util, 0.5, 1e-9);
	assert_float_equal(x->dim_bytes[0], 8, 1e-9);
	assert_float_equal(x->dim_bytes[1], 4, 1e-9);
	assert_float_equal(x->dim_util[0], 8.0 / 12, 1e-9);
	assert_float_equal(x->dim_util[1], 4.0 / 12, 1e-9);
	/* dim 0: stage 0 (0-2) and stage 3, queued from 6: 8 of 12 s; dim 1: 2-6 */
	assert_float_equal(x->dim_active[0], 8.0 / 12, 1e-9);
	assert_float_equal(x->dim_active[1], 4.0 / 12, 1e-9);
	vec_free(&out);
	rec_run_done(&r);
}

/* The dump names the parameters, and reading it back gives the job as run (a ring, direct
 * and halving-doubling dimension). */
static void test_schedule_roundtrip(void **state)
{
	struct col_md_job j = t_job();
	col_md_jobs back = {0};
	struct diag d = {0};
	json_t *o;

	(void)state;
	j.md.chunks = 4;
	j.md.sched = COLL_MD_THEMIS;
	j.md.intra = COLL_MD_SCF;
	j.md.dim[1].rate = 4;
	j.md.dim[1].algo = COLL_MD_HD; /* each algorithm reads back as itself */
	j.md.dim[2] = (struct coll_md_dim){.size = 4, .algo = COLL_MD_RING, .active = 2, .rate = 8};
	j.md.ndims = 3;
	j.bytes = 4096;
	o = col_md_schedule_json(&j, 1, &d);
	assert_non_null(o);
	assert_int_equal(json_array_size(json_object_get(
				 json_array_get(json_object_get(o, "jobs"), 0), "orders")),
			 4);
	assert_int_equal(col_md_schedule_parse(o, &back, &d), 0);
	assert_int_equal(back.n, 1);
	assert_memory_equal(&back.v[0], &j, sizeof(j));
	json_decref(o);
	vec_free(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_measure),
		cmocka_unit_test(test_schedule_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
