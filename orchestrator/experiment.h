/* SPDX-License-Identifier: MIT */
/* An experiment file: the scenario (model/scenario.h: topology, shaping, routing, addressing,
 * transport, emulation) plus what runs on it: the workload, the job scheduler and run
 * settings. It lives here, above model/ traffic/ policy/, because it holds their types.
 * Every field is documented in docs/scenario.md. */
#ifndef ORCH_EXPERIMENT_H
#define ORCH_EXPERIMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/vec.h"
#include "model/scenario.h"
#include "policy/sched.h"
#include "traffic/job.h"

/* One job of workload.jobs, as written: a catalogue model, or a custom one. */
struct exp_job {
	char model[JOB_NAME_MAX]; /* catalogue name; "" for a custom model */
	uint32_t gpus;
	uint32_t line; /* where it is in the file, for messages */
	int32_t kind; /* enum coll_kind, -1 = the model's */
	int32_t algo; /* enum coll_algo, -1 = workload.algorithm */
	uint32_t group; /* 0 = default */
	uint32_t iterations; /* 0 = workload.iterations */
	uint64_t arrival_ns;
	double params; /* custom: parameter count */
	uint32_t bytes_per_param; /* custom, default 4 */
	uint64_t bytes; /* override of the collective size M */
	uint64_t compute_ns; /* custom or override */
	double comm_fraction; /* custom: alpha */
};

struct exp_workload {
	VEC(struct exp_job) jobs;
	bool generate; /* the `generate:` section is given */
	bool gen_algo_given; /* generate.algorithm was written (else workload.algorithm) */
	struct workload_gen gen;
	char *trace; /* CSV trace path (owned), NULL for none */
	char trace_model[JOB_NAME_MAX];
	uint32_t trace_limit; /* first N jobs of the trace, 0 = all */
	enum coll_algo algo; /* default algorithm */
	uint32_t iterations; /* default iterations */
	bool verify; /* carry real floats and check every result */
	bool placement_order; /* ranks in placement order instead of leaf-major */
};

struct exp_run {
	char results[256]; /* results directory root */
	uint64_t progress_ns; /* fail a job after this long without progress, 0 = auto */
	uint64_t capacity_bps; /* forwarding capacity rate_scale: auto may use */
};

struct experiment {
	struct scenario s;
	struct exp_workload w;
	struct sched_cfg sched;
	struct exp_run run;
};

/* Defaults for everything (scn_init for the scenario part). */
void exp_init(struct experiment *e);
/* Frees what e owns; e itself is the caller's. NULL is fine. */
void exp_done(struct experiment *e);

/* Whether the file asks for jobs to run. */
bool exp_has_workload(const struct experiment *e);

#endif
