/* SPDX-License-Identifier: MIT */
/* Training jobs: the model catalogue (models the five papers use, each with its source),
 * job specifications, and workloads (explicit lists, a Poisson generator; CSV traces in
 * traffic/trace/job_trace.h).
 * Everything here is in paper units: bytes of the model, seconds of the paper's hardware.
 * Scaling to the emulation (size_scale, rate_scale, time dilation) happens in the runner.
 * Pure: no syscalls (trace files are read by the caller and handed over as text). */
#ifndef TRAFFIC_JOB_H
#define TRAFFIC_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "traffic/coll.h"

#define JOB_NAME_MAX 24
#define JOB_TRACE_MAX (64u << 20) /* bytes of a trace file read at most */
#define JOB_RANKS_AT_SCALE 1024 /* alpha is defined at scale: see job_compute_ns */

/* A model of the catalogue. Either compute_ns (per-iteration compute on the paper's
 * hardware) or comm_fraction (vClos's alpha: the share of a contention-free iteration
 * that is non-overlapped communication; compute is derived from it at run time) is set, or
 * neither where no paper gives compute (the scenario must then give it). params is 0 where
 * no paper gives a size: job_from_model refuses such a model (the scenario gives bytes). */
struct job_model {
	const char *name; /* "gpt3" */
	const char *source; /* "greedy routing §5.1 Table 2; compute from the authors' code" */
	double params; /* parameter count */
	uint32_t bytes_per_param; /* 4 = fp32 gradients */
	uint32_t shards; /* greedy routing: tensor x pipeline GPUs per replica (1 = none) */
	uint64_t compute_ns; /* 0 if comm_fraction is used */
	double comm_fraction; /* 0 if compute_ns is used */
	enum coll_kind kind; /* the collective each iteration runs */
};

/* The catalogue, and lookup by name (NULL if unknown). */
extern const struct job_model job_models[];
extern const size_t job_models_n;
const struct job_model *job_model_find(const char *name);

/* One job as the workload describes it. */
struct job_spec {
	uint32_t id; /* 0, 1, ... in arrival order */
	char model[JOB_NAME_MAX]; /* catalogue name, or "custom" */
	uint32_t gpus; /* ranks */
	enum coll_kind kind;
	enum coll_algo algo;
	uint32_t group; /* HIER_RING: GPUs per server; SHARD_RINGS: shards per replica */
	uint32_t iterations;
	uint64_t arrival_ns; /* paper time since the workload's start */
	uint64_t bytes; /* per-rank collective buffer M, paper bytes */
	uint64_t compute_ns; /* per-iteration compute, paper time (0: derive from alpha) */
	double comm_fraction; /* alpha, when compute is derived */
	uint64_t duration_ns; /* contention-free length of the whole job, paper time (0: none);
			       * when set, compute and bytes follow it (job_fit_duration) */
	uint32_t elem; /* collective element size: the model's bytes_per_param (0 means 4) */
	uint64_t deadline_ns; /* due this long after its arrival, paper time (0: none; vClos
			       * §9.7's EDF queue orders by arrival + deadline) */
	struct coll_md md; /* MULTIDIM: the platform's dimensions and the schedule's options */
	uint32_t channels; /* connections per pair of ranks (traffic/plan.h), 0 means 1 */
	uint32_t msccl; /* its own MSCCL algorithm (workload.jobs[i].msccl): 1 + its index among
			 * the scenario's, 0 for the workload's */
	/* a Chakra trace's job (workload.jobs[i].chakra): 1 + its prefix's index among the
	 * scenario's, 0: none. Its algo is then COLL_CHAKRA (one schedule, the whole trace,
	 * bytes its largest operation's, one iteration), and chakra_algo its collectives' */
	uint32_t chakra;
	enum coll_algo chakra_algo;
	uint64_t chakra_ns; /* its critical path with the network infinitely fast: a lower bound */
	uint64_t chakra_ship; /* the most bytes of its lowered schedule one rank gets (steps,
			       * dependencies, regions): what emulation ships each rank */
	uint32_t line, col; /* where a file gives it: a jobs entry's line:col in the scenario, a
			     * trace row's line (col 0); 0:0 when generated */
};

/* Fills a job spec from a catalogue model for `gpus` GPUs: M = ceil(params / shards) x
 * bytes_per_param (the per-GPU shard in whole parameters, as greedy routing's code), elem,
 * compute and kind from the model, iterations 1; id and arrival_ns are 0 for the caller. For
 * shards > 1 the algorithm is SHARD_RINGS with group = shards and gpus must be a multiple of
 * shards; all-to-all models get PAIRWISE (the only algorithm that builds it); otherwise algo as
 * given (HIER_RING's group, GPUs per server, is the caller's). 0 or -EINVAL with a message. */
int job_from_model(const struct job_model *m, uint32_t gpus, enum coll_algo algo,
		   struct job_spec *out, struct diag *d);

/* The collective parameters of one of j's collectives of `bytes` per rank (emulated or paper
 * bytes, as the caller runs it). */
static inline struct coll_params job_coll(const struct job_spec *j, uint64_t bytes)
{
	return (struct coll_params){.kind = j->kind,
				    .algo = j->algo,
				    .nranks = j->gpus,
				    .bytes = bytes,
				    .elem = j->elem ? j->elem : 4,
				    .group = j->group,
				    .md = j->md};
}

/* When j is due, paper time since the workload's start (arrival + deadline), or UINT64_MAX
 * without a deadline. */
static inline uint64_t job_due_ns(const struct job_spec *j)
{
	return j->deadline_ns ? j->arrival_ns + j->deadline_ns : UINT64_MAX;
}

/* Compute time of one iteration in paper time: compute_ns if set, else derived from alpha
 * as compute = T_comm (1 - alpha) / alpha, where T_comm is the contention-free collective
 * time at link rate rate_bps at scale (the nccl-tests bus factor for JOB_RANKS_AT_SCALE ranks
 * times M over the rate), so compute does not depend on the job's size. 0 when neither is
 * set or for rate 0. */
uint64_t job_compute_ns(const struct job_spec *j, uint64_t rate_bps);

/* Contention-free time of one of j's collectives of `bytes` per rank at rate_bps (ns): its bytes on
 * the wire per rank (the nccl-tests bus factor) over the rate. */
uint64_t job_comm_ns(const struct job_spec *j, uint64_t bytes, uint64_t rate_bps);

/* For a job given a duration T (and alpha, iterations I and its own GPU count): compute per
 * iteration T/I (1 - alpha) and the collective's bytes M such that it takes T/I alpha
 * contention-free at rate_bps, as the vClos paper's simulator sizes its jobs (one GPU: all
 * compute); M in whole elements, an all-to-all's a multiple of its ranks' elements. No-op
 * without a duration. */
void job_fit_duration(struct job_spec *j, uint64_t rate_bps);

/* A Poisson workload (vClos §9.2; lambda read as the mean inter-arrival time). */
struct job_size_weight {
	uint32_t gpus;
	double weight;
};

struct workload_gen {
	uint32_t count;
	uint64_t mean_interarrival_ns;
	uint64_t seed;
	VEC(struct job_size_weight) sizes; /* job-size distribution */
	VEC(char *) models; /* chosen uniformly per job (owned strings) */
	enum coll_algo algo;
	VEC(enum coll_algo)
	algos; /* if any: chosen uniformly per job instead of algo (vClos
		* §8: Ring, hierarchical Ring or HD at random) */
	uint32_t iterations;
	/* job durations (0: from the models): exponential of this mean, clamped to [min, max]
	 * and rounded down to 100 s, as the vClos paper's simulator treats Helios durations */
	uint64_t dur_mean_ns, dur_min_ns, dur_max_ns;
	double deadline_slack; /* > 0: each job is due deadline_slack x its duration after it
				* arrives (needs dur_mean_ns); 0: no deadlines */
};

typedef VEC(struct job_spec) job_list;

/* Appends g->count jobs with exponential inter-arrival times (the first arrives at 0), sizes
 * drawn from the weights and models drawn uniformly, deterministic for a seed; ids count on
 * from out->n. 0 or -EINVAL/-ENOMEM with d set, and then nothing is appended. */
int workload_generate(const struct workload_gen *g, job_list *out, struct diag *d);

/* Frees what g owns. */
void workload_gen_done(struct workload_gen *g);

#endif
