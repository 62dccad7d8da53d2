// SPDX-License-Identifier: MIT
/* The simulator checks its own physics (sim/phys.c, sim/exec_phys.c): a flow model broken on
 * purpose (sim_net.mutate scales a flow's rate past its share, or the model's capacities are
 * changed behind its back) stops the run with -EFAULT, saying which link or job, when, how
 * much; within the floating-point tolerance it does not; with the checks off (the bench's
 * switch) the same broken model runs to the end unnoticed. A rerouted flow, or one on a link
 * taken down, under a quantum sends nothing until the refill rather than passing a link. An
 * honest ring all-reduce runs at exactly its injection bound and passes, as do shard-rings
 * with each ring's ranks in the bus-bandwidth factor. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/gen.h"
#include "model/scenario.h"
#include "sim/exec.h"

#define GBIT 1e9
#define MS 1000000LL
#define MB (1ULL << 20)
#define T_MSG 8388608LL /* ns for 1 MiB at 1 Gbit/s */

/* The broken model: the first flow with a rate sends at *(double *)arg times it. */
static void t_overdrive(struct sim_net *s, void *arg)
{
	size_t i;

	for (i = 0; i < s->flows.n; i++) {
		if (s->flows.v[i].active && s->flows.v[i].rate > 0) {
			s->flows.v[i].rate *= *(const double *)arg;
			return;
		}
	}
}

/* The broken model: flow 0, stalled, sends anyway. */
static void t_unstall(struct sim_net *s, void *arg)
{
	(void)arg;
	s->flows.v[0].rate = GBIT / 1000;
}

/* Three 1 MB flows on a 1 Gbit/s link, the first at 3.4 times its share: the link over from
 * 0, at 1.8 Gbit/s (its whole load, not the part that first passed 1). With the checks off
 * the same model runs and says nothing. */
static void test_capacity_breach(void **state)
{
	double cap = GBIT, k = 3.4;
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;
	int off;

	(void)state;
	for (off = 0; off < 2; off++) {
		assert_int_equal(sim_net_init(&s, 1, &cap), 0);
		s.mutate = t_overdrive;
		s.mutate_arg = &k;
		s.unchecked = off;
		assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 0), 0);
		assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 1), 1);
		assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 2), 2);
		if (off) {
			assert_int_equal(sim_next(&s, &ev), 1);
			assert_int_equal(ev.cookie, 0); /* its 1 MB at 1.133 Gbit/s */
			assert_int_equal(ev.t, 7058824);
			sim_net_done(&s);
			continue;
		}
		assert_int_equal(sim_next(&s, &ev), -EFAULT);
		assert_int_equal(s.breach.link, 0);
		assert_int_equal(s.breach.t, 0);
		assert_true(fabs(s.breach.load - 1.8 * GBIT) < 1);
		assert_true(s.breach.cap == GBIT);
		sim_net_done(&s);
	}
}

/* A flow alone on its link, over its capacity by 1e-10 (rounding: it runs) and by 1e-8 (a
 * breach). */
static void test_tolerance(void **state)
{
	double cap = GBIT, k[2] = {1 + 1e-10, 1 + 1e-8};
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		assert_int_equal(sim_net_init(&s, 1, &cap), 0);
		s.mutate = t_overdrive;
		s.mutate_arg = &k[i];
		assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 0), 0);
		assert_int_equal(sim_next(&s, &ev), i ? -EFAULT : 1);
		sim_net_done(&s);
	}
}

/* A link taken down carries nothing: a flow over it that sends anyway is a breach against 0. */
static void test_down_breach(void **state)
{
	double cap = GBIT;
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;

	(void)state;
	assert_int_equal(sim_net_init(&s, 1, &cap), 0);
	s.mutate = t_unstall;
	assert_int_equal(sim_link_set(&s, 0, false), 0);
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 0), 0);
	assert_int_equal(sim_next(&s, &ev), -EFAULT);
	assert_true(s.breach.cap == 0 && s.breach.load == GBIT / 1000);
	sim_net_done(&s);
}

/* n (1 or 2) links of 1 Gbit/s under a 5 ms quantum, flow i (10 MB) alone on link i from 0,
 * run to a timer at 1 ms. */
static void t_at_1ms(struct sim_net *s, uint32_t n)
{
	const double cap[2] = {GBIT, GBIT};
	struct sim_event ev;
	uint32_t i;

	assert_int_equal(sim_net_init(s, n, cap), 0);
	s->quantum = 5 * MS;
	for (i = 0; i < n; i++)
		assert_int_equal(sim_flow_start(s, &i, NULL, 1, 10000000, i), (int)i);
	assert_int_equal(sim_timer(s, MS, 9), 0);
	assert_int_equal(sim_next(s, &ev), 1);
	assert_true(ev.kind == SIM_EV_TIMER && ev.t == MS);
}

/* Under a 5 ms quantum the clock moves on before a change is refilled: at 1 ms the model's
 * capacity halves behind its back and flow B joins A's link. The refill at 5 ms would find
 * nothing wrong (A and B at a quarter each); the check as the clock leaves 1 ms does. */
static void test_pending_breach(void **state)
{
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;

	(void)state;
	t_at_1ms(&s, 1);
	s.links.v[0].cap = GBIT / 2;
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 10000000, 1), 1);
	assert_int_equal(sim_next(&s, &ev), -EFAULT);
	assert_true(s.breach.t == MS && s.breach.load == GBIT && s.breach.cap == GBIT / 2);
	sim_net_done(&s);
}

/* Under a 5 ms quantum, flow A (10 MB, link 0) moves at 1 ms onto B's link 1 (10 MB): it
 * sends nothing until the refill at 5 ms, rather than 2 Gbit/s on a 1 Gbit/s link; then
 * they share. B ends at 155 ms (9.375 MB at 0.5), A at 159 (its 0.5 MB left alone). */
static void test_quantum_reroute(void **state)
{
	uint32_t p1 = 1;
	struct sim_net s;
	struct sim_event ev;

	(void)state;
	t_at_1ms(&s, 2);
	assert_int_equal(sim_flow_reroute(&s, 0, &p1, NULL, 1), 0);
	assert_true(sim_flow_rate(&s, 0) == 0 && sim_flow_rate(&s, 1) == GBIT);
	assert_int_equal(sim_next(&s, &ev), 1);
	assert_true(ev.cookie == 1 && ev.t == 155 * MS);
	assert_true(fabs(sim_link_bytes(&s, 0) - 125000) < 1e-6);
	assert_int_equal(sim_next(&s, &ev), 1);
	assert_true(ev.cookie == 0 && ev.t == 159 * MS);
	sim_net_done(&s);
}

/* Under a 5 ms quantum, link 0 goes down at 1 ms under flow A (10 MB): A stops at once (125 kB
 * sent), not at the refill; up again at 5 ms, the refill at 10 ms restarts it: done at 89 ms. */
static void test_quantum_down(void **state)
{
	struct sim_net s;
	struct sim_event ev;

	(void)state;
	t_at_1ms(&s, 1);
	assert_int_equal(sim_link_set(&s, 0, false), 0);
	assert_true(sim_flow_rate(&s, 0) == 0);
	assert_int_equal(sim_next(&s, &ev), 0); /* stalled: nothing can happen */
	assert_int_equal(s.now, 5 * MS);
	assert_true(fabs(sim_link_bytes(&s, 0) - 125000) < 1e-6);
	assert_int_equal(sim_link_set(&s, 0, true), 0);
	assert_int_equal(sim_next(&s, &ev), 1);
	assert_true(ev.cookie == 0 && ev.t == 89 * MS);
	sim_net_done(&s);
}

/* ---- jobs: four ranks on one switch, every link at 1 Gbit/s ---- */

struct t_world {
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
	struct rec_run rec;
	struct sim_exec x;
};

static const uint32_t t_eps[] = {0, 1, 2, 3};

/* The world, and a 4 MiB all-reduce by algo over its four hosts started (job 0, one
 * iteration). */
static void t_job(struct t_world *w, double goodput, enum coll_algo algo, uint32_t group)
{
	struct sim_job_in j = {
		.coll = {COLL_ALLREDUCE, algo, 4, 4 * MB, 4, group}, .iterations = 1, .eps = t_eps};
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	scn_init(&w->s);
	w->s.topology.gen = SCN_GEN_BEST;
	w->s.topology.ls =
		(struct scn_leafspine){4, 1, 1, 1, 1000000000ULL, 1000000000ULL, 1, 0, {0}};
	if (topo_build(&w->s, &w->t, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(paths_compute(w->t, &w->p), 0);
	assert_int_equal(route_plan_build(w->t, &w->p, &w->plan, &d), 0);
	assert_int_equal(sim_exec_init(&w->x, w->t, &w->plan, goodput, &w->rec, &d), 0);
	if (sim_exec_start(&w->x, &j, &d))
		fail_msg("%s", d.msg);
}

static void t_ring(struct t_world *w, double goodput)
{
	t_job(w, goodput, COLL_RING, 0);
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

/* A flow of the ring at twice its share: the run stops at once, naming the link. */
static void test_exec_link_breach(void **state)
{
	struct t_world w;
	double k = 2;
	uint32_t job;

	(void)state;
	t_ring(&w, 1);
	w.x.net.mutate = t_overdrive;
	w.x.net.mutate_arg = &k;
	assert_int_equal(sim_exec_run(&w.x, INT64_MAX, &job), -EFAULT);
	assert_int_equal(w.x.fault.err, -EFAULT);
	assert_non_null(strstr(w.x.fault.msg, "physics breach at 0.000000000 s"));
	assert_non_null(
		strstr(w.x.fault.msg, "carries 2 Gbit/s, over its capacity of 1 Gbit/s (x2)"));
	assert_non_null(strstr(w.x.fault.msg, " -> "));
	assert_non_null(strstr(w.x.fault.msg, "a bug in testbed"));
	t_world_done(&w);
}

/* The model's links at twice the topology's rates (as if it read them wrong): consistent
 * with itself, so no link is over, but the job ends in 3 messages' time, not 6, at twice the
 * busbw its ranks' 1 Gbit/s links can inject. */
static void test_exec_injection_breach(void **state)
{
	struct t_world w;
	uint32_t job;
	size_t i;

	(void)state;
	t_ring(&w, 1);
	for (i = 0; i < w.x.net.links.n; i++)
		w.x.net.links.v[i].cap *= 2;
	assert_int_equal(sim_exec_run(&w.x, INT64_MAX, &job), -EFAULT);
	assert_int_equal(sim_exec_now(&w.x), 3 * T_MSG);
	assert_non_null(strstr(w.x.fault.msg, "physics breach at 0.025165824 s"));
	assert_non_null(strstr(w.x.fault.msg, "job 0 (4 ranks), iteration 0, reached a bus "
					      "bandwidth of 0.25 GB/s, over its injection bound of "
					      "0.125 GB/s"));
	assert_non_null(strstr(w.x.fault.msg, "a bug in testbed"));
	t_world_done(&w);
}

/* An honest ring, with all headers (goodput 1) and without (0.9): it ends, at its injection
 * bound, busbw as collect/iters.c computes it, within the rounding of its bytes to whole
 * ones: a check with less slack than its tolerance would see a breach in a busbw this close. */
static void test_exec_passes(void **state)
{
	const double goodput[2] = {1, 0.9};
	struct t_world w;
	double coll, busbw;
	uint32_t job;
	size_t i, g;

	(void)state;
	for (g = 0; g < 2; g++) {
		t_ring(&w, goodput[g]);
		assert_int_equal(sim_exec_run(&w.x, INT64_MAX, &job), SIM_X_JOB_DONE);
		assert_int_equal(w.x.fault.err, 0);
		for (i = 0, coll = 0; i < w.rec.iters.n; i++)
			coll += (double)(w.rec.iters.v[i].t_end - w.rec.iters.v[i].t_compute_end);
		busbw = 4.0 * MB / (coll / 4 / 1e9) * coll_busbw_factor(COLL_ALLREDUCE, 4);
		assert_true(busbw <= goodput[g] * GBIT / 8);
		assert_true(busbw > goodput[g] * GBIT / 8 * (1 - 1e-6));
		t_world_done(&w);
	}
}

/* Shard-rings of 2 shards per replica: two rings of 2 replicas, each all-reducing its ranks'
 * 4 MiB, 2 MiB each way at line rate: the bus bandwidth of a 2-rank all-reduce is the line
 * rate, and passes. (collect/iters.c takes the job's 4 ranks for the factor: 1.5 times the
 * line rate.) */
static void test_exec_shard_rings(void **state)
{
	struct t_world w;
	uint32_t job;

	(void)state;
	t_job(&w, 1, COLL_SHARD_RINGS, 2);
	assert_int_equal(sim_exec_run(&w.x, INT64_MAX, &job), SIM_X_JOB_DONE);
	assert_int_equal(sim_exec_now(&w.x), 4 * T_MSG);
	assert_int_equal(coll_busbw_ranks(COLL_SHARD_RINGS, 4, 2), 2);
	assert_int_equal(coll_busbw_ranks(COLL_RING, 4, 2), 4);
	t_world_done(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_breach),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_down_breach),
		cmocka_unit_test(test_pending_breach),
		cmocka_unit_test(test_quantum_reroute),
		cmocka_unit_test(test_quantum_down),
		cmocka_unit_test(test_exec_link_breach),
		cmocka_unit_test(test_exec_injection_breach),
		cmocka_unit_test(test_exec_passes),
		cmocka_unit_test(test_exec_shard_rings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
