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
#include "traffic/trace/job_trace.h"

/* One job of workload.jobs, as written: a catalogue model, or a custom one. */
/* The chunked multi-dimensional collective (Themis; docs/scenario.md, `schedule`): the
 * workload's options, each of which a job entry may override. */
/* workload.msccl.files: at most this many algorithms to choose from */
#define EXP_MSCCL_MAX 32
/* workload.jobs[i].msccl: at most this many jobs with their own algorithm */
#define EXP_MSCCL_JOBS_MAX 256
/* workload.jobs[i].chakra: at most this many jobs of Chakra traces */
#define EXP_CHAKRA_JOBS_MAX 256

struct exp_md {
	int32_t sched; /* enum coll_md_sched; -1: not given (a job: the workload's) */
	int32_t intra; /* enum coll_md_intra; -1: not given (SCF under themis, else FIFO) */
	int32_t sw; /* switch dimensions' COLL_MD_DIRECT or COLL_MD_HD; -1: not given (direct) */
	uint32_t chunks; /* 0: not given (64) */
	/* chunk operations per dimension at once: n 0 not given (1), 1 one value for every
	 * dimension, else one per dimension (n must be the topology's); where it is given */
	struct exp_md_active {
		uint32_t v[COLL_MD_DIMS], n, line, col;
	} active;
	uint32_t thr_div; /* Themis's threshold divisor; 0: not given (16) */
	uint32_t line, col; /* where `schedule` is given, for messages */
	uint32_t sw_line, sw_col; /* where `switch` is given */
};

struct exp_job {
	char model[JOB_NAME_MAX]; /* catalogue name; "" for a custom model */
	uint32_t gpus;
	uint32_t line, col; /* where it is in the file, for messages */
	int32_t kind; /* enum coll_kind, -1 = the model's */
	int32_t algo; /* enum coll_algo, -1 = workload.algorithm */
	uint32_t group; /* 0 = default */
	uint32_t iterations; /* 0 = workload.iterations */
	uint64_t arrival_ns;
	uint64_t deadline_ns; /* due this long after arrival (0: none) */
	double params; /* custom: parameter count */
	uint32_t bytes_per_param; /* custom, default 4 */
	uint64_t bytes; /* override of the collective size M */
	uint64_t compute_ns; /* custom or override */
	double comm_fraction; /* custom: alpha */
	struct exp_md md;
	uint32_t channels; /* connections per pair, 0 = workload.channels */
	uint32_t chan_line, chan_col; /* where `channels` is given (0: not) */
	uint32_t msccl; /* 1 + its file's index in exp_workload.msccl_job, 0: the workload's */
	uint32_t chakra; /* 1 + its prefix's index in exp_workload.chakra_job, 0: none */
};

enum exp_rank_order {
	EXP_RANK_LEAF_MAJOR, /* by leaf (or board), then endpoint: vClos §5.3 needs it */
	EXP_RANK_PLACEMENT, /* in the order the placement chose */
};

/* A trace row that needs more GPUs than the topology has: check refuses the scenario at it,
 * or the row is left out (and counted). */
enum exp_oversize {
	EXP_OVERSIZE_REFUSE,
	EXP_OVERSIZE_SKIP,
};

struct exp_workload {
	VEC(struct exp_job) jobs;
	bool generate; /* the `generate:` section is given */
	bool gen_algo_given; /* generate.algorithm was written (else workload.algorithm) */
	struct workload_gen gen;
	char *trace; /* CSV trace path (owned), NULL for none */
	uint32_t trace_line, trace_col; /* where the file names it */
	enum exp_oversize trace_oversize; /* rows needing more GPUs than the topology has */
	char trace_model[JOB_NAME_MAX];
	uint32_t trace_limit; /* first N jobs of the trace, 0 = all */
	double trace_time_scale; /* multiplies the trace's submit times (1 = as recorded) */
	double trace_duration_scale; /* multiplies the trace's job lengths (1 = as recorded) */
	/* the header of each role (traffic/trace/job_trace.h), "" for its aliases */
	char trace_columns[JT_ROLES][JOB_TRACE_NAME_MAX];
	/* the states a replay keeps (any case), trace_states_n of them; 0: every state */
	char trace_states[JOB_TRACE_STATES_MAX][JOB_TRACE_NAME_MAX];
	uint32_t trace_states_n;
	enum coll_algo algo; /* default algorithm */
	uint32_t iterations; /* default iterations */
	bool verify; /* carry real floats and check every result */
	uint32_t verify_line, verify_col; /* where the file sets it */
	int32_t rank_order; /* enum exp_rank_order */
	struct exp_md md;
	uint32_t channels; /* connections per pair of ranks, 0 = 1 (traffic/plan.h) */
	uint32_t chan_line, chan_col; /* where `channels` is given (0: not) */
	/* algorithm: tacos (TACOS §VI): chunks per NPU, randomized runs (the fastest kept),
	 * their seed, and each link crossing's latency alpha */
	struct exp_tacos {
		uint32_t k, runs;
		uint64_t seed, alpha_ns;
	} tacos;
	/* algorithm: msccl: the MSCCL algorithm XMLs' paths (owned; msccl_n of them, 0 for
	 * none), a job running the first whose <algo> takes it; where named */
	char *msccl[EXP_MSCCL_MAX];
	uint32_t msccl_n;
	bool msccl_files; /* named as files (a list), not file */
	char *msccl_job[EXP_MSCCL_JOBS_MAX]; /* workload.jobs[i].msccl (owned) */
	uint32_t msccl_job_n;
	uint32_t msccl_line, msccl_col;
	/* workload.jobs[i].chakra (and workload.chakra, a one-job workload): the prefixes of
	 * Chakra traces, PREFIX.<rank>.et (owned) */
	char *chakra_job[EXP_CHAKRA_JOBS_MAX];
	uint32_t chakra_job_n;
	/* workload.chakra_flops: a GPU's operations per second, timing a compute node given as
	 * num_ops alone (0: none given, and such a node is refused) */
	double chakra_flops;
};

/* run.sim_share: how flows share a link in `testbed sim` (sim/net.h's enum sim_share). */
enum exp_share {
	EXP_SHARE_MAXMIN,
	EXP_SHARE_EQUAL,
	EXP_SHARE_EQUAL_SINCE_START,
};

struct exp_run {
	char results[256]; /* results directory root */
	uint64_t progress_ns; /* fail a job after this long without progress, 0 = auto */
	uint64_t capacity_bps; /* forwarding capacity rate_scale: auto may use */
	uint64_t sample_ns; /* counter sampling interval, 0 = no sampling */
	bool sample_given; /* the scenario set it: sim keeps it instead of its own choice */
	uint64_t max_wall_ns; /* up refuses jobs whose emulation takes longer, 0 = no limit */
	uint64_t sim_quantum_ns; /* sim: rates refilled at most once per this, 0 = every instant */
	enum exp_share sim_share; /* sim: the sharing rule */
	bool strict; /* a degraded fidelity verdict fails the command (exit 3), as --strict */
};

/* One axis of a sweep: a dotted path of a scalar field and the values it takes (the texts
 * as written; docs/scenario.md, `sweep`). */
struct exp_sweep_axis {
	char path[128]; /* "cases" for sweep.cases */
	bool seed; /* listed under sweep.seeds: averaged over, not compared */
	/* sweep.cases: each value is a case, a mapping of paths to values set together; values
	 * holds their labels ("kind=best", "policy=greedy enforce=sport") */
	bool cases;
	uint32_t line, col; /* of the path, for messages */
	VEC(char *) values; /* owned */
};

/* One figure of sweep.paper: what the paper reports for a variant's metric, as a ratio to
 * the variant's baseline (the comparison table prints it beside the measured ratio). */
struct exp_sweep_paper {
	uint32_t variant;
	uint32_t metric; /* enum col_metric */
	double ratio;
};

/* Variants are the cartesian product of the compared axes, each run once per combination of
 * the seed axes. Each variant is compared with its baseline: variant 0 (the first value of every
 * axis), or with sweep.baseline the variant that has that axis's first value (or the value it
 * names, a case) and its own values on the others. */
struct exp_sweep {
	VEC(struct exp_sweep_axis) axes; /* in file order */
	uint32_t variants, seeds; /* products of the compared and of the seed axes' sizes */
	/* sweep.baseline names axes.v[base_axis], a compared axis (base_value 0), or its value
	 * base_value (a case by its label, "kind=best") */
	bool base_given;
	uint32_t base_axis, base_value;
	VEC(struct exp_sweep_paper) paper; /* sweep.paper, in file order */
};

/* One timed network event of `failures:` (docs/scenario.md): a cable or a node going down
 * or coming back, or an OCS reconfiguration as a policy asks for one (run/emu/
 * run_net.h). Times are emulated: the machine's clock since the run's start. */
enum exp_event_kind {
	EXP_EVENT_LINK,
	EXP_EVENT_NODE,
	EXP_EVENT_REWIRE,
};

struct exp_failure {
	enum exp_event_kind kind;
	uint64_t at_ns; /* emulated ns since the run's start */
	uint64_t for_ns; /* a down event comes back up after this long; 0 = it stays down */
	bool up; /* state: up (a repair) */
	char a[SCN_NAME_MAX], b[SCN_NAME_MAX]; /* node; link: its ends (b may be a port of a) */
	uint32_t rewire_off, rewire_n; /* rewire: its circuits in exp_failures.circuits */
	uint32_t line, col; /* where the file gives it, for messages */
};

struct exp_failures {
	VEC(struct exp_failure) v; /* in file order */
	VEC(struct scn_ocs_circuit) circuits; /* of the rewire events */
};

struct experiment {
	struct scenario s;
	struct exp_workload w;
	struct sched_cfg sched;
	struct exp_run run;
	struct exp_sweep sweep; /* no axes: not a sweep */
	struct exp_failures failures;
};

/* Defaults for everything (scn_init for the scenario part). */
void exp_init(struct experiment *e);
/* Frees what e owns; e itself is the caller's. NULL is fine. */
void exp_done(struct experiment *e);
/* Frees what a sweep owns (exp_done does it for an experiment's). */
void exp_sweep_done(struct exp_sweep *s);

/* Whether the file asks for jobs to run. */
bool exp_has_workload(const struct experiment *e);

#endif
