// SPDX-License-Identifier: MIT
/* Collective schedules executed on the flow model (sim/exec.h), on cases whose times are
 * known by hand: a ring all-reduce on one switch (2(N-1) rounds of M/N at the NIC rate),
 * with compute and iterations, with link latency, and with two ring hops sharing an uplink;
 * an aborted job; a spine failing mid-transfer, its flows moved onto the other spine; and, as
 * properties, every message delivered exactly once and the same
 * inputs giving the same records, with the ranks' plans built on threads too and their steps
 * built in blocks of any size; the share of a job's steps done, for progress. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/gen.h"
#include "model/scenario.h"
#include "kernel/par.h"
#include "sim/exec.h"

#define GBIT 1000000000ULL
#define MB (1ULL << 20)
#define MS 1000000LL
#define T_MSG 8388608LL /* ns for 1 MiB at 1 Gbit/s */

struct t_world {
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
	struct rec_run rec;
	struct sim_exec x;
};

/* hosts_per_leaf x leaves hosts under `spines` spines (0: one switch), hosts' links at
 * host_rate, the others at 1 Gbit/s. */
static void t_world_init_rate(struct t_world *w, uint32_t hpl, uint32_t leaves, uint32_t spines,
			      uint64_t delay_ns, uint64_t host_rate)
{
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	scn_init(&w->s);
	w->s.topology.gen = spines ? SCN_GEN_LEAFSPINE : SCN_GEN_BEST;
	w->s.topology.ls = (struct scn_leafspine){
		hpl, leaves, spines ? spines : 1, 1, host_rate, GBIT, 1, 0, {0}};
	w->s.topology.delay_ns = delay_ns;
	if (topo_build(&w->s, &w->t, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(paths_compute(w->t, &w->p), 0);
	assert_int_equal(route_plan_build(w->t, &w->p, &w->plan, &d), 0);
	assert_int_equal(sim_exec_init(&w->x, w->t, &w->plan, 1.0, &w->rec, &d), 0);
}

/* The same, every link at 1 Gbit/s. */
static void t_world_init(struct t_world *w, uint32_t hpl, uint32_t leaves, uint32_t spines,
			 uint64_t delay_ns)
{
	t_world_init_rate(w, hpl, leaves, spines, delay_ns, GBIT);
}

static void t_world_done(struct t_world *w)
{
	sim_exec_done(&w->x);
	rec_run_done(&w->rec);
	route_plan_done(&w->plan);
	paths_done(&w->p);
	topo_free(w->t);
	scn_done(&w->s);
}

static void t_start_chan(struct t_world *w, uint32_t id, enum coll_algo algo, uint32_t n,
			 uint64_t bytes, uint32_t iters, uint64_t compute, const uint32_t *eps,
			 uint32_t channels)
{
	struct sim_job_in j = {.id = id,
			       .coll = {COLL_ALLREDUCE, algo, n, bytes, 4, 0},
			       .iterations = iters,
			       .compute_ns = compute,
			       .channels = channels,
			       .eps = eps};
	struct diag d = {0};

	if (sim_exec_start(&w->x, &j, &d))
		fail_msg("%s", d.msg);
}

static void t_start(struct t_world *w, uint32_t id, enum coll_algo algo, uint32_t n, uint64_t bytes,
		    uint32_t iters, uint64_t compute, const uint32_t *eps)
{
	t_start_chan(w, id, algo, n, bytes, iters, compute, eps, 1);
}

/* Runs until job id ends; returns the virtual time it did. */
static int64_t t_until_done(struct t_world *w, uint32_t id)
{
	uint32_t job = UINT32_MAX;
	int r;

	do
		r = sim_exec_run(&w->x, INT64_MAX, &job);
	while (r == SIM_X_JOB_DONE && job != id);
	assert_int_equal(r, SIM_X_JOB_DONE);
	return sim_exec_now(&w->x);
}

static const uint32_t t_eps4[] = {0, 1, 2, 3};

/* 4 ranks on one switch: 6 rounds of 1 MiB, each on its own uplink and downlink. */
static void test_ring_one_switch(void **state)
{
	struct t_world w;
	size_t i;

	(void)state;
	t_world_init(&w, 4, 1, 0, 0);
	t_start(&w, 0, COLL_RING, 4, 4 * MB, 1, 0, t_eps4);
	assert_int_equal(t_until_done(&w, 0), 6 * T_MSG);
	assert_int_equal(w.rec.flows.n, 4 * 6);
	assert_int_equal(w.rec.iters.n, 4);
	for (i = 0; i < w.rec.flows.n; i++) {
		const struct rec_flow *f = &w.rec.flows.v[i];

		assert_int_equal(f->dst, (f->src + 1) % 4); /* ring order is rank order */
		assert_int_equal(f->bytes, MB);
		assert_int_equal(f->t_end - f->t_start, T_MSG); /* every hop uncontended */
	}
	assert_false(sim_exec_running(&w.x, 0));
	t_world_done(&w);
}

/* Compute, then the collective, three times over; iterations.csv's times say so. */
static void test_iterations(void **state)
{
	struct t_world w;
	size_t i;

	(void)state;
	t_world_init(&w, 4, 1, 0, 0);
	t_start(&w, 7, COLL_RING, 4, 4 * MB, 3, 10 * MS, t_eps4);
	assert_int_equal(t_until_done(&w, 7), 3 * (10 * MS + 6 * T_MSG));
	assert_int_equal(w.rec.iters.n, 12);
	for (i = 0; i < w.rec.iters.n; i++) {
		const struct rec_iter *it = &w.rec.iters.v[i];

		assert_int_equal(it->job, 7);
		assert_int_equal(it->t_compute_end - it->t_start, 10 * MS);
		assert_int_equal(it->t_end - it->t_compute_end, 6 * T_MSG);
		assert_int_equal(it->t_start, (int64_t)it->iter * (10 * MS + 6 * T_MSG));
	}
	t_world_done(&w);
}

/* The share of a job's steps done, for progress within an iteration: a third of the three
 * iterations' at each compute phase after the first, part of one mid-collective, rising;
 * -1 for a job not running. */
static void test_share(void **state)
{
	const int64_t iter = 10 * MS + 6 * T_MSG;
	double last = 0, s;
	uint32_t job;
	struct t_world w;
	int64_t t;

	(void)state;
	t_world_init(&w, 4, 1, 0, 0);
	assert_true(sim_exec_share(&w.x, 7) == -1);
	t_start(&w, 7, COLL_RING, 4, 4 * MB, 3, 10 * MS, t_eps4);
	assert_true(sim_exec_share(&w.x, 7) == 0);
	for (t = 10 * MS + T_MSG / 2; t < 3 * iter; t += T_MSG / 2) {
		assert_int_equal(sim_exec_run(&w.x, t, &job), SIM_X_UNTIL);
		s = sim_exec_share(&w.x, 7);
		assert_true(s >= last && s < 1);
		last = s;
	}
	t_world_done(&w);
	for (int i = 1; i <= 2; i++) {
		t_world_init(&w, 4, 1, 0, 0);
		t_start(&w, 7, COLL_RING, 4, 4 * MB, 3, 10 * MS, t_eps4);
		assert_int_equal(sim_exec_run(&w.x, 10 * MS + 3 * T_MSG, &job), SIM_X_UNTIL);
		s = sim_exec_share(&w.x, 7);
		assert_true(s > 0 && s < 1.0 / 3);
		assert_int_equal(sim_exec_run(&w.x, i * iter + 5 * MS, &job), SIM_X_UNTIL);
		assert_float_equal(sim_exec_share(&w.x, 7), i / 3.0, 1e-12);
		assert_int_equal(t_until_done(&w, 7), 3 * iter);
		assert_true(sim_exec_share(&w.x, 7) == -1);
		t_world_done(&w);
	}
}

/* Asked for phases, the run stops as each rank enters and leaves each iteration's
 * collective, at the instants iterations.csv gives, every rank in and out once per
 * iteration; not asked, it never does. */
static void test_phases(void **state)
{
	int64_t now;
	uint32_t job, in[4] = {0}, out[4] = {0}, k;
	struct t_world w;
	int r;

	(void)state;
	t_world_init(&w, 4, 1, 0, 0);
	w.x.phases = true;
	t_start(&w, 7, COLL_RING, 4, 4 * MB, 3, 10 * MS, t_eps4);
	while ((r = sim_exec_run(&w.x, INT64_MAX, &job)) == SIM_X_PHASE) {
		now = sim_exec_now(&w.x);
		for (k = 0; k < w.x.phase_q.n; k++) {
			const struct sim_phase *p = &w.x.phase_q.v[k];
			uint32_t it = p->coll ? in[p->rank]++ : out[p->rank]++;

			assert_int_equal(p->job, 7);
			assert_int_equal(now, (int64_t)it * (10 * MS + 6 * T_MSG) + 10 * MS +
						      (p->coll ? 0 : 6 * T_MSG));
		}
		w.x.phase_q.n = 0;
	}
	assert_int_equal(r, SIM_X_JOB_DONE);
	for (k = 0; k < 4; k++)
		assert_true(in[k] == 3 && out[k] == 3);
	t_world_done(&w);
	t_world_init(&w, 4, 1, 0, 0);
	t_start(&w, 7, COLL_RING, 4, 4 * MB, 3, 10 * MS, t_eps4);
	assert_int_equal(sim_exec_run(&w.x, INT64_MAX, &job), SIM_X_JOB_DONE);
	t_world_done(&w);
}

/* Each message is one more path latency (two hops through the switch) late, and every
 * round waits for the one before. */
static void test_latency(void **state)
{
	struct t_world w;

	(void)state;
	t_world_init(&w, 4, 1, 0, 5 * MS);
	t_start(&w, 0, COLL_RING, 4, 4 * MB, 1, 0, t_eps4);
	assert_int_equal(t_until_done(&w, 0), 6 * (T_MSG + 2 * 5 * MS));
	t_world_done(&w);
}

/* Ranks alternating between two leaves under one spine: leaf 0's uplink carries 0->1 and
 * 2->3 of the ring, as does leaf 1's for 1->2 and 3->0, so every round runs at half rate. */
static void test_shared_uplink(void **state)
{
	static const uint32_t eps[] = {0, 2, 1, 3};
	struct t_world w;

	(void)state;
	t_world_init(&w, 2, 2, 1, 0);
	t_start(&w, 0, COLL_RING, 4, 4 * MB, 1, 0, eps);
	assert_int_equal(t_until_done(&w, 0), 6 * 2 * T_MSG);
	t_world_done(&w);
}

/* An aborted job records nothing more, and the other finishes as if alone. */
static void test_abort(void **state)
{
	static const uint32_t a[] = {0, 1}, b[] = {2, 3};
	struct t_world w;
	uint32_t job;
	size_t i;

	(void)state;
	t_world_init(&w, 4, 1, 0, 0);
	t_start(&w, 0, COLL_RING, 2, 2 * MB, 1000, 0, a);
	t_start(&w, 1, COLL_RING, 2, 2 * MB, 2, 0, b);
	assert_int_equal(sim_exec_run(&w.x, T_MSG / 2, &job), SIM_X_UNTIL);
	sim_exec_abort(&w.x, 0);
	assert_false(sim_exec_running(&w.x, 0));
	assert_int_equal(t_until_done(&w, 1), 2 * 2 * T_MSG);
	assert_int_equal(sim_exec_run(&w.x, INT64_MAX, &job), SIM_X_IDLE);
	for (i = 0; i < w.rec.flows.n; i++)
		assert_int_equal(w.rec.flows.v[i].job, 1);
	t_world_done(&w);
}

/* The spine rank 0's connection to rank 1 crosses in job id. */
static uint32_t t_spine_of(const struct t_world *w, uint32_t id)
{
	const struct sim_job *j = &w->x.jobs.v[id];
	const uint32_t *p = j->paths.v + j->ranks[0].path[0];
	uint32_t h, node;

	for (h = 0; h < p[0]; h++) {
		node = w->t->ports.v[p[1 + h]].node;
		if (w->t->nodes.v[node].role == TOPO_ROLE_SPINE)
			return node;
	}
	fail_msg("no spine on the path");
	return 0;
}

/* Spine `spine`'s cables down in a copy of w's topology, its ports down in the flow model;
 * with reroute, the jobs moved onto the new plan (*nt, *np, *nplan kept for the caller). */
static void t_fail_spine(struct t_world *w, uint32_t spine, bool reroute, struct topo **nt,
			 struct topo_paths *np, struct route_plan *nplan)
{
	struct diag d = {0};
	size_t k;

	*nt = topo_copy(w->t);
	assert_non_null(*nt);
	for (k = 0; k < (*nt)->links.n; k++) {
		struct topo_link *l = &(*nt)->links.v[k];

		if ((*nt)->ports.v[l->port[0]].node != spine &&
		    (*nt)->ports.v[l->port[1]].node != spine)
			continue;
		l->up = false;
		assert_int_equal(sim_exec_port_state(&w->x, l->port[0], false), 0);
		assert_int_equal(sim_exec_port_state(&w->x, l->port[1], false), 0);
	}
	assert_int_equal(paths_compute(*nt, np), 0);
	assert_int_equal(route_plan_build(*nt, np, nplan, &d), 0);
	if (reroute)
		assert_int_equal(sim_exec_reroute(&w->x, *nt, nplan, &d), 0);
}

/* Two ranks on two leaves under two spines: the spine their ring crosses fails halfway
 * through the first message. Rerouted, the message goes on over the other spine from where
 * it was (every message still takes T_MSG); left where it was, it stalls for good. */
static void test_spine_failure(void **state)
{
	static const uint32_t eps[] = {0, 2};
	struct topo_paths np;
	struct route_plan nplan;
	struct t_world w;
	struct topo *nt;
	uint32_t spine, job, pass;
	size_t i;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		t_world_init(&w, 2, 2, 2, 0);
		t_start(&w, 0, COLL_RING, 2, 2 * MB, 1, 0, eps);
		assert_int_equal(sim_exec_run(&w.x, T_MSG / 2, &job), SIM_X_UNTIL);
		spine = t_spine_of(&w, 0);
		memset(&np, 0, sizeof(np));
		memset(&nplan, 0, sizeof(nplan));
		t_fail_spine(&w, spine, pass == 0, &nt, &np, &nplan);
		if (pass == 0) {
			assert_int_not_equal(t_spine_of(&w, 0), spine);
			assert_int_equal(t_until_done(&w, 0), 2 * T_MSG);
			assert_int_equal(w.rec.flows.n, 2 * 2);
			for (i = 0; i < w.rec.flows.n; i++)
				assert_int_equal(w.rec.flows.v[i].t_end - w.rec.flows.v[i].t_start,
						 T_MSG);
		} else {
			assert_int_equal(sim_exec_run(&w.x, INT64_MAX, &job), SIM_X_IDLE);
			assert_true(sim_exec_running(&w.x, 0));
		}
		t_world_done(&w); /* the exec borrowed nt: freed after it */
		route_plan_done(&nplan);
		paths_done(&np);
		topo_free(nt);
	}
}

/* Halving-doubling on 6 ranks (pre and post steps) across a 2-spine fabric, twice: every
 * SEND of every iteration arrives exactly once, and the run is the same each time. */
static void t_hd_run(struct rec_run *out, uint32_t channels)
{
	static const uint32_t eps[] = {0, 5, 2, 7, 4, 1};
	struct coll_params p = {COLL_ALLREDUCE, COLL_HD, 6, 6 * MB, 4, 0, {0}, 0};
	struct coll_sched s = {0};
	struct t_world w;
	struct diag d = {0};
	size_t i, k, sends = 0;

	t_world_init(&w, 4, 2, 2, 1000);
	t_start_chan(&w, 3, COLL_HD, 6, 6 * MB, 2, MS, eps, channels);
	t_until_done(&w, 3);
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	for (i = 0; i < s.steps.n; i++)
		sends += s.steps.v[i].op == COLL_SEND;
	assert_int_equal(w.rec.flows.n, 2 * sends);
	for (i = 0; i < w.rec.flows.n; i++)
		for (k = i + 1; k < w.rec.flows.n; k++) {
			const struct rec_flow *a = &w.rec.flows.v[i], *b = &w.rec.flows.v[k];

			assert_false(a->iter == b->iter && a->src == b->src && a->dst == b->dst &&
				     a->seq == b->seq);
		}
	coll_sched_done(&s);
	*out = w.rec;
	memset(&w.rec, 0, sizeof(w.rec));
	t_world_done(&w);
}

/* a and b hold the same flows and iterations, byte for byte; both released. */
static void t_same_records(struct rec_run *a, struct rec_run *b)
{
	assert_int_equal(a->flows.n, b->flows.n);
	assert_int_equal(a->iters.n, b->iters.n);
	assert_memory_equal(a->flows.v, b->flows.v, a->flows.n * sizeof(*a->flows.v));
	assert_memory_equal(a->iters.v, b->iters.v, a->iters.n * sizeof(*a->iters.v));
	rec_run_done(a);
	rec_run_done(b);
}

static void test_exactly_once_and_deterministic(void **state)
{
	static const uint32_t chans[] = {1, 5};
	struct rec_run a, b;
	size_t c;

	(void)state;
	for (c = 0; c < 2; c++) { /* one connection per pair, and 5 (uneven parts) */
		t_hd_run(&a, chans[c]);
		t_hd_run(&b, chans[c]);
		t_same_records(&a, &b);
	}
}

/* A ring of n ranks on hpl hosts per leaf of `leaves` leaves under `spines` spines (0: one
 * switch), `iters` iterations, its steps built in blocks of `block` ranks (0: SIM_BLOCK) and
 * its plans by each (NULL: one after the other). */
static void t_ring(struct rec_run *out, uint32_t n, uint32_t hpl, uint32_t leaves, uint32_t spines,
		   uint32_t iters, uint32_t block, sim_each_fn *each)
{
	uint32_t eps[128], i;
	struct t_world w;

	for (i = 0; i < n; i++)
		eps[i] = i;
	t_world_init(&w, hpl, leaves, spines, 1000);
	w.x.block = block;
	w.x.each = each;
	t_start(&w, 1, COLL_RING, n, n * 4096, iters, 0, eps);
	t_until_done(&w, 1);
	*out = w.rec;
	memset(&w.rec, 0, sizeof(w.rec));
	t_world_done(&w);
}

/* A ring of 128 ranks over two leaves whose plans are built by par_each's threads (as testbed
 * sim builds them) records what it records with them built one after the other. */
static void test_ranks_on_threads(void **state)
{
	struct rec_run a, b;

	(void)state;
	t_ring(&a, 128, 64, 2, 2, 1, 0, NULL);
	t_ring(&b, 128, 64, 2, 2, 1, 0, par_each);
	assert_int_equal(a.flows.n, 2 * 128 * 127);
	t_same_records(&a, &b);
}

/* The blocks a job's steps are built in change nothing: one rank at a time, blocks that do
 * not divide the ranks (5: 5 + 5 + 3), the default, and every rank at once record the same. */
static void test_blocks(void **state)
{
	static const uint32_t blocks[] = {5, 0, 13, 64};
	struct rec_run a, b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		/* 13 ranks on one switch, two iterations */
		t_ring(&a, 13, 13, 1, 0, 2, 1, NULL);
		t_ring(&b, 13, 13, 1, 0, 2, blocks[i], i % 2 ? par_each : NULL);
		assert_int_equal(a.flows.n, 2 * 2 * 13 * 12);
		t_same_records(&a, &b);
	}
}

/* A schedule that does not build is refused with the builder's message, from whichever block
 * met it. */
static void test_build_error(void **state)
{
	static const uint32_t eps[13] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	struct sim_job_in j = {.id = 0,
			       .coll = {COLL_ALLREDUCE, COLL_RING, 13, 4098, 4, 0},
			       .iterations = 1,
			       .eps = eps};
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_world_init(&w, 13, 1, 0, 0);
	w.x.block = 4;
	assert_int_equal(sim_exec_start(&w.x, &j, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "4098 bytes are not a whole number of 4-byte elements"));
	assert_false(sim_exec_running(&w.x, 0));
	t_world_done(&w);
}

/* Channels (traffic/plan.h): K connections per pair, each step's bytes split over them. On
 * one switch the parts share the pair's one path: the ring takes what it takes with one
 * connection, 6 rounds of 1 MiB, and records one flow per message. Between two leaves whose
 * hosts send at twice an uplink's rate over two spines, one connection per pair is held to
 * the uplink its hash picks; 16 spread over both and finish sooner, never faster than the
 * hosts' links allow. */
static void test_channels(void **state)
{
	static const uint32_t eps[] = {0, 2};
	struct t_world w;
	int64_t t1, t16;
	size_t i;

	(void)state;
	t_world_init(&w, 4, 1, 0, 0);
	t_start_chan(&w, 0, COLL_RING, 4, 4 * MB, 1, 0, t_eps4, 4);
	assert_int_equal(t_until_done(&w, 0), 6 * T_MSG);
	assert_int_equal(w.rec.flows.n, 4 * 6);
	for (i = 0; i < w.rec.flows.n; i++)
		assert_int_equal(w.rec.flows.v[i].bytes, MB);
	t_world_done(&w);

	t_world_init_rate(&w, 2, 2, 2, 0, 2 * GBIT);
	t_start_chan(&w, 0, COLL_RING, 2, 32 * MB, 1, 0, eps, 1);
	t1 = t_until_done(&w, 0);
	t_start_chan(&w, 1, COLL_RING, 2, 32 * MB, 1, 0, eps, 16);
	t16 = t_until_done(&w, 1) - t1;
	print_message("2 ranks across two spines: one connection %.1f ms, 16 %.1f ms\n", t1 / 1e6,
		      t16 / 1e6);
	/* one connection: 2 rounds of 16 MiB at one uplink's 1 Gbit/s at best */
	assert_true(t1 >= 2 * 16 * T_MSG);
	assert_true(t16 < t1 * 3 / 4 && t16 >= 16 * T_MSG); /* 2 Gbit/s at most */
	t_world_done(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_one_switch),
		cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_shared_uplink),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_spine_failure),
		cmocka_unit_test(test_exactly_once_and_deterministic),
		cmocka_unit_test(test_ranks_on_threads),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_build_error),
		cmocka_unit_test(test_channels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
