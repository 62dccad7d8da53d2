// SPDX-License-Identifier: MIT
/* Model catalogue tests: sources, the greedy routing paper's per-step flow sizes (its authors'
 * code) and ideal all-reduce times, alpha-derived compute (vClos §9.1), job specs that build
 * schedules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "traffic/job.h"

/* The greedy routing authors' code's per-step flow sizes, and the ideal (contention-free,
 * 100 Gbit/s) all-reduce time 2 (N - 1) step / 100 Gbit/s, our arithmetic */
struct t_step {
	const char *model;
	uint32_t n;
	uint64_t step;
	double ar_s; /* as printed, 3 decimals */
};

static const struct t_step t_steps[] = {
	{"bloom", 2, 7333333334ULL, 1.173},	 {"bloom", 4, 3666666667ULL, 1.760},
	{"bloom", 8, 1833333334ULL, 2.053},	 {"gpt3", 2, 5468750000ULL, 0.875},
	{"gpt3", 4, 2734375000ULL, 1.313},	 {"gpt3", 8, 1367187500ULL, 1.531},
	{"llama2-70b", 2, 1093750000ULL, 0.175}, {"llama2-70b", 4, 546875000ULL, 0.263},
	{"llama2-70b", 8, 273437500ULL, 0.306},
};

static void t_from(const char *name, uint32_t gpus, enum coll_algo algo, struct job_spec *j)
{
	struct diag d = {0};

	assert_int_equal(job_from_model(job_model_find(name), gpus, algo, j, &d), 0);
}

static void test_catalogue_sources(void **state)
{
	const struct job_model *m;
	size_t i, k;

	(void)state;
	assert_true(job_models_n >= 12);
	for (i = 0; i < job_models_n; i++) {
		m = &job_models[i];
		assert_non_null(m->source);
		assert_true(strstr(m->source, "greedy routing §") || strstr(m->source, "vClos §") ||
			    strstr(m->source, "Themis §"));
		assert_true(strlen(m->name) < JOB_NAME_MAX);
		assert_true(m->bytes_per_param == 2 || m->bytes_per_param == 4);
		assert_true(m->shards >= 1);
		assert_false(m->compute_ns && m->comm_fraction);
		assert_true(m->comm_fraction >= 0 && m->comm_fraction < 1);
		assert_ptr_equal(job_model_find(m->name), m);
		for (k = 0; k < i; k++)
			assert_string_not_equal(job_models[k].name, m->name);
	}
	assert_null(job_model_find("gpt-3"));
	assert_null(job_model_find(NULL));
}

static void test_greedy_steps(void **state)
{
	const struct t_step *s;
	struct job_spec j;
	uint64_t chunk;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t_steps) / sizeof(t_steps[0]); i++) {
		s = &t_steps[i];
		t_from(s->model, s->n * job_model_find(s->model)->shards, COLL_RING, &j);
		assert_int_equal(j.algo, COLL_SHARD_RINGS);
		assert_int_equal(j.group, job_model_find(s->model)->shards);
		assert_int_equal(j.elem, 4);
		assert_int_equal(j.bytes % j.elem, 0);
		/* the ring step is M / N, rounded up as the authors' code does */
		assert_int_equal((j.bytes + s->n - 1) / s->n, s->step);
		/* the schedule's largest chunk is whole elements: within one element of it */
		chunk = coll_chunk_off(j.bytes, j.elem, s->n, 1);
		assert_true(chunk >= s->step && chunk - s->step < j.elem);
	}
}

static void test_greedy_ideal_ar(void **state)
{
	const struct t_step *s;
	struct job_spec j;
	double ar, busbw;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t_steps) / sizeof(t_steps[0]); i++) {
		s = &t_steps[i];
		t_from(s->model, s->n * job_model_find(s->model)->shards, COLL_RING, &j);
		/* 2(N-1) steps at 100 Gbit/s, no contention */
		ar = 2.0 * (s->n - 1) * (double)s->step * 8 / 100e9;
		assert_true(fabs(ar - s->ar_s) <= 0.0005 + 1e-9);
		/* the nccl-tests bus factor times M gives the same time */
		busbw = coll_busbw_factor(COLL_ALLREDUCE, s->n) * (double)j.bytes * 8 / 100e9;
		assert_true(fabs(busbw - ar) < 1e-9 * ar + 1e-9);
	}
}

static void test_greedy_compute(void **state)
{
	struct job_spec j;

	(void)state;
	t_from("bloom", 384, COLL_RING, &j);
	assert_int_equal(job_compute_ns(&j, 100000000000ULL), 1238769231ULL);
	t_from("gpt3", 128, COLL_RING, &j);
	assert_int_equal(job_compute_ns(&j, 1), 1009615385ULL);
	t_from("llama2-70b", 1024, COLL_RING, &j);
	assert_int_equal(job_compute_ns(&j, 0), 2692307693ULL);
	assert_int_equal(j.bytes, 2187500000ULL);
	assert_int_equal(j.iterations, 1);
	assert_string_equal(j.model, "llama2-70b");
}

/* alpha = T_comm / (T_comm + compute) once compute is derived from it, T_comm at scale */
static void t_alpha_back(const char *name, uint32_t gpus, uint64_t rate)
{
	struct job_spec j;
	double comm, a;
	uint64_t c;

	t_from(name, gpus, COLL_RING, &j);
	c = job_compute_ns(&j, rate);
	comm = coll_busbw_factor(j.kind, JOB_RANKS_AT_SCALE) * (double)j.bytes * 8e9 / (double)rate;
	a = comm / (comm + (double)c);
	assert_true(c > 0);
	assert_true(fabs(a - j.comm_fraction) < 1e-6);
}

static void test_alpha_compute(void **state)
{
	static const char *const names[] = {"vgg16", "resnet50", "resnet101", "bert"};
	static const uint32_t gpus[] = {2, 4, 8, 16, 512};
	struct job_spec j;
	size_t i, k;

	(void)state;
	for (i = 0; i < 4; i++) {
		for (k = 0; k < 5; k++) {
			t_alpha_back(names[i], gpus[k], 100000000000ULL);
			t_alpha_back(names[i], gpus[k], 1000000000ULL);
		}
	}
	/* VGG16, 100 Gbit/s: T_comm at scale = 2 x 1023/1024 x 552 MB x 8 / 100 G = 88.24 ms,
	 * compute = 3 x that, for 8 GPUs and for 1 (a GPU's compute does not depend on N) */
	t_from("vgg16", 8, COLL_RING, &j);
	assert_int_equal(j.bytes, 552000000ULL);
	assert_int_equal(job_compute_ns(&j, 100000000000ULL), 264701250ULL);
	t_from("vgg16", 1, COLL_RING, &j);
	assert_int_equal(job_compute_ns(&j, 100000000000ULL), 264701250ULL);
	/* no rate, no time */
	t_from("bert", 4, COLL_RING, &j);
	assert_int_equal(job_compute_ns(&j, 0), 0);
	/* no compute in the papers: 0, the scenario gives it */
	t_from("transformer-1t", 1024, COLL_RING, &j);
	assert_int_equal(job_compute_ns(&j, 100000000000ULL), 0);
}

static void test_themis_models(void **state)
{
	struct job_spec j;

	(void)state;
	t_from("resnet152", 16, COLL_HD, &j);
	assert_int_equal(j.algo, COLL_HD);
	assert_int_equal(j.elem, 2);
	assert_int_equal(j.bytes, 120400000ULL);
	assert_int_equal(job_compute_ns(&j, 1), 108000000ULL);
	t_from("dlrm", 8, COLL_RING, &j);
	assert_int_equal(j.bytes, 2960000ULL);
	t_from("transformer-1t", 1024, COLL_RING, &j);
	assert_int_equal(j.algo, COLL_SHARD_RINGS);
	assert_int_equal(j.group, 128);
	assert_int_equal(j.bytes, 15625000000ULL);
}

static void t_err(const char *name, uint32_t gpus, const char *msg)
{
	struct diag d = {0};
	struct job_spec j;

	assert_int_equal(job_from_model(job_model_find(name), gpus, COLL_RING, &j, &d), -EINVAL);
	assert_int_equal(strncmp(d.msg, msg, strlen(msg)), 0);
}

static void test_from_model_errors(void **state)
{
	(void)state;
	t_err("bloom", 100,
	      "model bloom needs a multiple of 48 GPUs (one replica is 48 shards), "
	      "not 100");
	t_err("gpt3", 0, "model gpt3: 0 GPUs, expected 1 to 16384");
	t_err("vgg16", 16385, "model vgg16: 16385 GPUs, expected 1 to 16384");
	t_err("gnmt", 8, "model gnmt has no size in the papers (Themis §5.2");
	t_err("moe", 8, "model moe has no size in the papers (vClos §4.2");
	t_err("no-such-model", 8, "no model given");
}

static void test_alltoall_pairwise(void **state)
{
	struct job_model m = {"a2a", "test", 1024, 4, 1, 0, 0.258, COLL_ALLTOALL};
	struct diag d = {0};
	struct job_spec j;

	(void)state;
	assert_int_equal(job_from_model(&m, 4, COLL_RING, &j, &d), 0);
	assert_int_equal(j.algo, COLL_PAIRWISE);
	assert_int_equal(j.kind, COLL_ALLTOALL);
	assert_int_equal(j.bytes, 4096);
	/* all-to-all bus factor (N-1)/N at scale: T_comm = 1023/1024 x 4096 x 8 ns at 1 Gbit/s,
	 * whatever the job's own size */
	assert_int_equal(job_compute_ns(&j, 1000000000ULL),
			 (uint64_t)llround(32768.0 * 1023 / 1024 * (1 - 0.258) / 0.258));
	assert_int_equal(job_from_model(&m, 1, COLL_RING, &j, &d), 0);
	assert_true(job_compute_ns(&j, 1000000000ULL) > 0); /* one GPU still computes */
}

/* Every sized model makes a job whose schedule builds (elem, group, multiples agree). */
static void test_catalogue_builds(void **state)
{
	const struct job_model *m;
	struct coll_sched s = {0};
	struct coll_params p;
	struct job_spec j;
	struct diag d = {0};
	size_t i;

	(void)state;
	for (i = 0; i < job_models_n; i++) {
		m = &job_models[i];
		if (m->params <= 0 || m->kind == COLL_ALLTOALL)
			continue;
		t_from(m->name, 2 * m->shards, COLL_RING, &j);
		p = (struct coll_params){.kind = j.kind,
					 .algo = j.algo,
					 .nranks = j.gpus,
					 .bytes = j.bytes,
					 .elem = j.elem,
					 .group = j.group};
		assert_int_equal(coll_sched_build(&p, &s, &d), 0);
		coll_sched_done(&s);
	}
}

/* The vClos authors' simulator's job sizing: a 4,000 s job of 4 iterations with alpha 0.1 on 8 GPUs
 * at 100 Gbit/s computes 900 s per iteration and all-reduces M bytes with 1.75 x 8 M / 100 Gbit/s
 * = 100 s; one GPU only computes; no duration changes nothing. */
static void test_fit_duration(void **state)
{
	struct job_spec j = {.gpus = 8,
			     .kind = COLL_ALLREDUCE,
			     .iterations = 4,
			     .comm_fraction = 0.1,
			     .elem = 4,
			     .bytes = 7,
			     .duration_ns = 4000000000000ULL};
	struct job_spec one = j, none = j;
	double comm;

	(void)state;
	job_fit_duration(&j, 100000000000ULL);
	assert_int_equal(j.compute_ns, 900000000000ULL);
	assert_int_equal(j.bytes % 4, 0);
	comm = 1.75 * 8.0 * (double)j.bytes / 1e11;
	assert_true(comm > 100 - 1e-6 && comm <= 100);
	one.gpus = 1;
	job_fit_duration(&one, 100000000000ULL);
	assert_int_equal(one.compute_ns, 1000000000000ULL);
	assert_int_equal(one.bytes, 4);
	none.duration_ns = 0;
	job_fit_duration(&none, 100000000000ULL);
	assert_int_equal(none.bytes, 7);
	assert_int_equal(none.compute_ns, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue_sources), cmocka_unit_test(test_greedy_steps),
		cmocka_unit_test(test_greedy_ideal_ar),	  cmocka_unit_test(test_greedy_compute),
		cmocka_unit_test(test_alpha_compute),	  cmocka_unit_test(test_themis_models),
		cmocka_unit_test(test_from_model_errors), cmocka_unit_test(test_alltoall_pairwise),
		cmocka_unit_test(test_catalogue_builds),  cmocka_unit_test(test_fit_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
