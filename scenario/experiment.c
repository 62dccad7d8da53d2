// SPDX-License-Identifier: MIT
/* Experiment defaults and ownership (see experiment.h). */
#include <stdlib.h>
#include <string.h>

#include "scenario/experiment.h"

/* Default forwarding capacity for rate_scale: auto on the project's 2-core machines
 * (measured: ~12 Gbit/s for one flow over 4 veth hops, ~28 Gbit/s for four), with margin
 * for the per-packet costs of shaping and many flows. */
#define EXP_CAPACITY_BPS 8000000000ULL

void exp_init(struct experiment *e)
{
	memset(e, 0, sizeof(*e));
	scn_init(&e->s);
	e->w.algo = COLL_RING;
	e->w.iterations = 10;
	e->w.trace_time_scale = 1.0;
	e->w.trace_duration_scale = 1.0;
	e->w.md.sched = e->w.md.intra = e->w.md.sw = -1;
	e->w.tacos = (struct exp_tacos){.k = 1, .runs = 1, .seed = 1, .alpha_ns = 500};
	e->w.gen.iterations = 0;
	e->sched.queue = SCHED_FIFO;
	e->sched.place = SCHED_FIRST_FIT;
	e->sched.seed = 1;
	strcpy(e->run.results, "results");
	e->run.capacity_bps = EXP_CAPACITY_BPS;
	e->run.sample_ns = 100000000; /* 100 ms */
	e->run.max_wall_ns = 12 * 3600 * 1000000000ULL; /* 12 h */
}

void exp_done(struct experiment *e)
{
	if (!e)
		return;
	scn_done(&e->s);
	vec_free(&e->w.jobs);
	workload_gen_done(&e->w.gen);
	for (uint32_t i = 0; i < e->w.msccl_n; i++)
		free(e->w.msccl[i]), e->w.msccl[i] = NULL;
	e->w.msccl_n = 0;
	for (uint32_t i = 0; i < e->w.msccl_job_n; i++)
		free(e->w.msccl_job[i]), e->w.msccl_job[i] = NULL;
	e->w.msccl_job_n = 0;
	for (uint32_t i = 0; i < e->w.chakra_job_n; i++)
		free(e->w.chakra_job[i]), e->w.chakra_job[i] = NULL;
	e->w.chakra_job_n = 0;
	free(e->w.trace);
	e->w.trace = NULL;
	vec_free(&e->failures.v);
	vec_free(&e->failures.circuits);
	exp_sweep_done(&e->sweep);
}

void exp_sweep_done(struct exp_sweep *s)
{
	for (size_t i = 0; i < s->axes.n; i++) {
		for (size_t k = 0; k < s->axes.v[i].values.n; k++)
			free(s->axes.v[i].values.v[k]);
		vec_free(&s->axes.v[i].values);
	}
	vec_free(&s->axes);
	vec_free(&s->paper);
}

bool exp_has_workload(const struct experiment *e)
{
	return e->w.jobs.n || e->w.generate || e->w.trace;
}
