// SPDX-License-Identifier: MIT
/* A Chakra job as one schedule (traffic/chakra/chakra_lower.c): the published one-collective
 * traces of scenarios/chakra/ lower to exactly the schedule the job's algorithm builds,
 * proven by coll_prove; Chakra's generator's traces (broadcast, barrier, computes, metadata,
 * memory) to the steps documented; the MLP chain to a schedule whose every rank's slice ships,
 * whose waits add up to its compute nodes' durations and whose alpha-beta time is its critical
 * path's (chakra_ideal); scales; a compute given as num_ops alone refused without a rate and
 * timed with one; an algorithm that cannot build a collective refused at its node; and random
 * jobs, whose schedules always complete with every send paired with its receive. */
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

#include "tests/unit/chakra_t.h"

/* Every rank's slice of s ships (coll_sched_from_rank checks it as a rank would). */
static void t_ships(const struct coll_sched *s)
{
	struct diag d = {0};
	uint32_t r;

	for (r = 0; r < s->params.nranks; r++) {
		uint32_t n = s->ranks.v[r].step_n, nd = coll_sched_rank_deps(s, r);
		struct coll_step *st = malloc((n + 1) * sizeof(*st));
		uint32_t *dep = malloc((nd + 1) * sizeof(*dep));
		struct coll_sched o;

		coll_sched_rank_slice(s, r, st, dep);
		if (coll_sched_from_rank(&s->params, r, st, n, dep, nd, &o, &d))
			fail_msg("rank %u: %s", r, d.msg);
		coll_sched_done(&o);
		free(st);
		free(dep);
	}
}

/* ---- the published traces ---- */

static void test_published_collectives(void **state)
{
	static const struct {
		const char *name;
		enum coll_kind kind;
	} colls[] = {{"all_reduce", COLL_ALLREDUCE},
		     {"all_gather", COLL_ALLGATHER},
		     {"reduce_scatter", COLL_REDUCESCATTER},
		     {"all_to_all", COLL_ALLTOALL}};
	static const size_t npus[] = {4, 8, 16};
	struct diag d = {0};
	size_t c, k, i;

	(void)state;
	for (c = 0; c < 4; c++) {
		for (k = 0; k < 3; k++) {
			char prefix[128];
			struct tchk_job j;
			struct chakra_job cj;
			struct coll_sched s, want;
			struct coll_params p = {.kind = colls[c].kind,
						.algo = coll_algo_default(colls[c].kind),
						.nranks = (uint32_t)npus[k],
						.bytes = 1 << 20,
						.elem = 4};

			snprintf(prefix, sizeof(prefix), "%s/%zunpus_1MB/%s", colls[c].name,
				 npus[k], colls[c].name);
			tchk_read(prefix, npus[k], &j);
			cj = tchk_cj(&j, COLL_RING, false);
			if (chakra_lower(&cj, &s, NULL, &d))
				fail_msg("%s: %s", prefix, d.msg);
			assert_int_equal(s.params.algo, COLL_CHAKRA);
			assert_int_equal(s.params.bytes, 1 << 20);
			assert_int_equal(coll_sched_build(&p, &want, &d), 0);
			/* the same steps as the algorithm's own, in the same order */
			assert_int_equal(s.steps.n, want.steps.n);
			for (i = 0; i < s.steps.n; i++) {
				assert_int_equal(s.steps.v[i].op, want.steps.v[i].op);
				assert_int_equal(s.steps.v[i].peer, want.steps.v[i].peer);
				assert_int_equal(s.steps.v[i].len, want.steps.v[i].len);
				assert_int_equal(s.steps.v[i].off, want.steps.v[i].off);
			}
			s.params.kind = colls[c].kind; /* proven as the collective it is */
			s.params.algo = p.algo;
			if (coll_prove(&s, NULL, &d))
				fail_msg("%s: %s", prefix, d.msg);
			coll_sched_done(&want);
			coll_sched_done(&s);
			tchk_done(&j);
		}
	}
}

/* Steps of rank r of s by op. */
static void t_ops(const struct coll_sched *s, uint32_t r, size_t *by_op)
{
	uint32_t i;

	memset(by_op, 0, 4 * sizeof(*by_op));
	for (i = 0; i < s->ranks.v[r].step_n; i++)
		by_op[s->steps.v[s->ranks.v[r].step_off + i].op]++;
}

static void test_generator_traces(void **state)
{
	struct diag d = {0};
	struct coll_sched s;
	struct chakra_job cj;
	struct tchk_job j;
	size_t ops[4];
	uint32_t r;

	(void)state;
	/* broadcast: rank 0 sends the 65,536 bytes to each other rank, one message each */
	tchk_read("chakra_generator/4npus/BROADCAST", 4, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	t_ops(&s, 0, ops);
	assert_int_equal(ops[COLL_SEND], 3);
	assert_int_equal(ops[COLL_RECV], 0);
	for (r = 1; r < 4; r++) {
		t_ops(&s, r, ops);
		assert_int_equal(ops[COLL_RECV], 1);
		assert_int_equal(s.steps.v[s.ranks.v[r].step_off].len, 65536);
		assert_int_equal(s.steps.v[s.ranks.v[r].step_off].peer, 0);
	}
	t_ships(&s);
	coll_sched_done(&s);
	tchk_done(&j);
	/* barrier (comm_size 0): a one-element all-reduce */
	tchk_read("chakra_generator/4npus/BARRIER", 4, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	assert_int_equal(s.params.bytes, 4);
	assert_true(isfinite(coll_sched_alpha_beta(&s, 1e-6, 1e9)));
	coll_sched_done(&s);
	tchk_done(&j);
	/* two dependent computes of 5 us: two waits, the second after the first */
	tchk_read("chakra_generator/4npus/two_comp_nodes_dependent", 4, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	cj.time_mul = 3;
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	for (r = 0; r < 4; r++) {
		const struct coll_step *st = s.steps.v + s.ranks.v[r].step_off;

		assert_int_equal(s.ranks.v[r].step_n, 2);
		assert_int_equal(st[0].op, COLL_WAIT);
		assert_int_equal(st[0].len, 15000);
		assert_int_equal(st[0].dep_n, 0);
		assert_int_equal(st[1].dep_n, 1);
		assert_int_equal(s.deps.v[st[1].dep_off], 0);
	}
	t_ships(&s);
	coll_sched_done(&s);
	tchk_done(&j);
	/* metadata and remote memory without a duration: no steps */
	tchk_read("chakra_generator/4npus/one_metadata_node_all_types", 4, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	assert_int_equal(s.steps.n, 0);
	coll_sched_done(&s);
	tchk_done(&j);
	tchk_read("chakra_generator/4npus/one_remote_mem_load_node", 4, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	assert_int_equal(s.steps.n, 0);
	coll_sched_done(&s);
	tchk_done(&j);
}

/* The MLP chain: 18 compute nodes per rank as waits of their durations, 6 all-gathers and 5
 * all-reduces as rings; each step's node on its own rank; the alpha-beta time of the whole
 * schedule is the critical path's at the same costs. */
static void test_mlp(void **state)
{
	struct diag d = {0};
	struct coll_sched s;
	struct chakra_job cj;
	struct chakra_path p;
	struct chakra_maps m;
	struct tchk_job j;
	uint32_t *sn, r, i, k;
	double ab;

	(void)state;
	tchk_read("mlp_model_parallel/8npus/MLP_ModelParallel", 8, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	assert_int_equal(chakra_lower(&cj, &s, &m, &d), 0);
	sn = m.step_node;
	assert_int_equal(m.regions.n, 0); /* no regions asked for */
	assert_int_equal(s.params.bytes, 147456);
	for (r = 0; r < 8; r++) {
		uint64_t waits = 0, want = 0;
		size_t nw = 0;

		for (i = 0; i < s.ranks.v[r].step_n; i++) {
			const struct coll_step *st = &s.steps.v[s.ranks.v[r].step_off + i];
			uint32_t g = sn[s.ranks.v[r].step_off + i];

			assert_int_equal(chakra_links_rank(&j.l, 8, g), r);
			if (st->op == COLL_WAIT) {
				waits += st->len;
				nw++;
			}
		}
		for (k = 0; k < j.r[r].nodes.n; k++)
			if (j.r[r].nodes.v[k].kind == CHAKRA_COMP)
				want += j.r[r].nodes.v[k].duration_us * 1000;
		assert_int_equal(nw, 18);
		assert_int_equal(waits, want);
	}
	t_ships(&s);
	ab = coll_sched_alpha_beta(&s, 1e-6, 100e9);
	assert_int_equal(chakra_ideal(&cj, 1e-6, 100e9, &p), 0);
	assert_true(fabs(ab - (double)p.end_ns * 1e-9) < 1e-6 * ab);
	chakra_path_done(&p);
	chakra_maps_done(&m);
	coll_sched_done(&s);
	tchk_done(&j);
}

/* The backend's scales: bytes times size_mul (whole elements), times times time_mul. */
static void test_scales(void **state)
{
	struct diag d = {0};
	struct coll_sched s;
	struct chakra_job cj;
	struct tchk_job j;
	uint32_t i;

	(void)state;
	tchk_read("mlp_model_parallel/8npus/MLP_ModelParallel", 8, &j);
	cj = tchk_cj(&j, COLL_HD, false);
	cj.size_mul = 0.005;
	cj.time_mul = 2;
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	assert_int_equal(s.params.bytes, 736); /* 147,456 x 0.005 = 737.28: whole elements */
	assert_int_equal(s.steps.v[0].op, COLL_WAIT); /* rank 0's first compute: 32,291 us */
	assert_int_equal(s.steps.v[0].len, 2 * 32291000ull);
	for (i = 0; i < s.steps.n; i++)
		assert_true(s.steps.v[i].op == COLL_WAIT || s.steps.v[i].len % 4 == 0);
	coll_sched_done(&s);
	tchk_done(&j);
}

/* ---- hand-built traces ---- */

/* A compute of 2e9 operations and no duration: refused without a rate, 2 ms at 1e12/s. */
static void test_num_ops(void **state)
{
	static const char *const names[] = {"num_ops", NULL};
	static const int64_t vals[] = {2000000000};
	struct tchk_buf o[1] = {{0}};
	struct diag d = {0};
	struct coll_sched s;
	struct chakra_job cj;
	struct tchk_job j;

	(void)state;
	tchk_put_meta(&o[0]);
	tchk_put_node(&o[0], 7, TCHK_COMP, NULL, 0, 0, names, vals);
	tchk_load(o, 1, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "rank 0: node 7 (n): a compute given as num_ops alone"));
	assert_non_null(strstr(d.msg, "workload.chakra_flops"));
	cj.flops = 1e12;
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	assert_int_equal(s.steps.n, 1);
	assert_int_equal(s.steps.v[0].op, COLL_WAIT);
	assert_int_equal(s.steps.v[0].len, 2000000);
	coll_sched_done(&s);
	tchk_done(&j);
}

/* hier-ring with group 2 cannot build an all-reduce over 3 ranks: refused at the node. */
static void test_algorithm_refused(void **state)
{
	static const char *const names[] = {"comm_type", "comm_size", NULL};
	static const int64_t vals[] = {CHAKRA_ALL_REDUCE, 1 << 20};
	struct tchk_buf o[3] = {{0}};
	struct diag d = {0};
	struct coll_sched s;
	struct chakra_job cj;
	struct tchk_job j;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		tchk_put_meta(&o[i]);
		tchk_put_node(&o[i], 4, TCHK_COLL, NULL, 0, 0, names, vals);
	}
	tchk_load(o, 3, &j);
	cj = tchk_cj(&j, COLL_HIER_RING, false);
	cj.coll.group = 2;
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "rank 0: node 4 (n): ALL_REDUCE over 3 ranks: "));
	tchk_done(&j);
}

/* A send and its receive: one message of comm_size bytes, after each side's parents. */
static void test_pair(void **state)
{
	static const char *const sn[] = {"comm_dst", "comm_size", "comm_tag"};
	static const char *const rn[] = {"comm_src", "comm_size", "comm_tag"};
	static const int64_t sv[] = {1, 4096, 9}, rv[] = {0, 4096, 9};
	struct tchk_buf o[2] = {{0}};
	struct diag d = {0};
	struct coll_sched s;
	struct chakra_job cj;
	struct tchk_job j;
	const struct coll_step *a, *b;

	(void)state;
	tchk_put_meta(&o[0]);
	tchk_put_node(&o[0], 1, TCHK_COMP, NULL, 0, 10, NULL, NULL);
	tchk_put_node(&o[0], 2, TCHK_SEND, (const uint64_t[]){1}, 1, 0, sn, sv);
	tchk_put_meta(&o[1]);
	tchk_put_node(&o[1], 1, TCHK_RECV, NULL, 0, 0, rn, rv);
	tchk_put_node(&o[1], 2, TCHK_COMP, (const uint64_t[]){1}, 1, 20, NULL, NULL);
	tchk_load(o, 2, &j);
	cj = tchk_cj(&j, COLL_RING, false);
	assert_int_equal(chakra_lower(&cj, &s, NULL, &d), 0);
	a = s.steps.v + s.ranks.v[0].step_off;
	b = s.steps.v + s.ranks.v[1].step_off;
	assert_int_equal(s.ranks.v[0].step_n, 2);
	assert_int_equal(a[1].op, COLL_SEND);
	assert_int_equal(a[1].peer, 1);
	assert_int_equal(a[1].len, 4096);
	assert_int_equal(a[1].dep_n, 1); /* after the compute */
	assert_int_equal(b[0].op, COLL_RECV);
	assert_int_equal(b[0].peer, 0);
	assert_int_equal(b[1].op, COLL_WAIT);
	assert_int_equal(b[1].len, 20000);
	assert_int_equal(b[1].dep_n, 1);
	/* alpha-beta: 10 us, then the message (1 us + 4096 B at 1 GB/s), then 20 us */
	assert_true(fabs(coll_sched_alpha_beta(&s, 1e-6, 8e9) - (10e-6 + 1e-6 + 4096e-9 + 20e-6)) <
		    1e-12);
	t_ships(&s);
	coll_sched_done(&s);
	tchk_done(&j);
}

/* Random jobs: 2 to 6 ranks, each a chain-ish graph of computes and all-reduces (the same
 * number on every rank, each after a random earlier node) and a ring of sends: the schedule
 * completes under the alpha-beta model (every receive paired, no deadlock), every rank's
 * slice ships, and it is the same built twice. */
static void test_random_jobs(void **state)
{
	static const char *const cn[] = {"comm_type", "comm_size", NULL};
	unsigned seed = 4242, t;
	struct diag d = {0};

	(void)state;
	for (t = 0; t < 40; t++) {
		size_t n = 2 + (size_t)(rand_r(&seed) % 5), i, k, colls = 1 + rand_r(&seed) % 4;
		struct tchk_buf o[6] = {{0}};
		struct coll_sched s, s2;
		struct chakra_job cj;
		struct tchk_job j;
		double ab;

		for (i = 0; i < n; i++) {
			uint64_t id = 1, dep;

			tchk_put_meta(&o[i]);
			for (k = 0; k < colls; k++) {
				/* the same size on every rank */
				int64_t cv[] = {CHAKRA_ALL_REDUCE, 4096 * (int64_t)(k + 1)};

				tchk_put_node(&o[i], id, TCHK_COMP, NULL, 0, 1 + rand_r(&seed) % 50,
					      NULL, NULL);
				dep = 1 + (uint64_t)rand_r(&seed) % id;
				tchk_put_node(&o[i], id + 1, TCHK_COLL, &dep, 1, 0, cn, cv);
				id += 2;
			}
			{
				static const char *const sn[] = {"comm_dst", "comm_size",
								 "comm_tag"};
				static const char *const rn[] = {"comm_src", "comm_size",
								 "comm_tag"};
				int64_t sv[] = {(int64_t)((i + 1) % n), 8192, 1};
				int64_t rv[] = {(int64_t)((i + n - 1) % n), 8192, 1};
				uint64_t last = id - 1;

				/* receive first, independent of the send: a ring that can start */
				tchk_put_node(&o[i], id, TCHK_RECV, NULL, 0, 0, rn, rv);
				tchk_put_node(&o[i], id + 1, TCHK_SEND, &last, 1, 0, sn, sv);
			}
		}
		tchk_load(o, n, &j);
		cj = tchk_cj(&j, t % 2 ? COLL_HD : COLL_RING, false);
		if (chakra_lower(&cj, &s, NULL, &d))
			fail_msg("job %u: %s", t, d.msg);
		ab = coll_sched_alpha_beta(&s, 1e-6, 1e10);
		assert_true(isfinite(ab) && ab > 0);
		t_ships(&s);
		assert_int_equal(chakra_lower(&cj, &s2, NULL, &d), 0);
		assert_int_equal(s.steps.n, s2.steps.n);
		assert_memory_equal(s.steps.v, s2.steps.v, s.steps.n * sizeof(*s.steps.v));
		coll_sched_done(&s);
		coll_sched_done(&s2);
		tchk_done(&j);
	}
}

/* Themis's chunked collective (workload.schedule) on a 4 x 2 x 2 platform: each node's
 * collective of its own kind (an all-gather here, while the job's platform says all-reduce),
 * the published 16-NPU traces built and shipped. */
static void test_multidim(void **state)
{
	static const char *const colls[] = {"all_reduce", "all_gather", "reduce_scatter",
					    "all_to_all"};
	struct coll_md md = {.ndims = 3,
			     .sched = COLL_MD_THEMIS,
			     .intra = COLL_MD_SCF,
			     .kind = COLL_ALLREDUCE,
			     .chunks = 8,
			     .thr_div = 16,
			     .dim = {{4, COLL_MD_DIRECT, 1, 0, 400000000000ull},
				     {2, COLL_MD_DIRECT, 1, 0, 400000000000ull},
				     {2, COLL_MD_DIRECT, 1, 0, 400000000000ull}}};
	struct diag d = {0};
	struct coll_sched s;
	struct chakra_job cj;
	struct tchk_job j;
	char prefix[128];
	size_t c;

	(void)state;
	for (c = 0; c < 4; c++) {
		snprintf(prefix, sizeof(prefix), "%s/16npus_1MB/%s", colls[c], colls[c]);
		tchk_read(prefix, 16, &j);
		cj = tchk_cj(&j, COLL_MULTIDIM, false);
		cj.coll.md = md;
		if (chakra_lower(&cj, &s, NULL, &d))
			fail_msg("%s: %s", prefix, d.msg);
		assert_true(s.steps.n > 0);
		t_ships(&s);
		coll_sched_done(&s);
		tchk_done(&j);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_published_collectives),
		cmocka_unit_test(test_generator_traces),
		cmocka_unit_test(test_mlp),
		cmocka_unit_test(test_scales),
		cmocka_unit_test(test_num_ops),
		cmocka_unit_test(test_algorithm_refused),
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_random_jobs),
		cmocka_unit_test(test_multidim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
