/* SPDX-License-Identifier: MIT */
/* The runner: after `up` built the topology, it starts one emu-node per endpoint, runs the
 * workload (arrivals, the scheduler's placements, job starts, records, failures), and writes
 * the raw records to the results folder. Ctrl-C stops the run cleanly and keeps what was
 * recorded. */
#ifndef ORCH_RUN_H
#define ORCH_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/records.h"
#include "emu-node/ctl.h"
#include "lib/diag.h"
#include "model/topo.h"
#include "orchestrator/experiment.h"
#include "orchestrator/sample.h"
#include "policy/route.h"
#include "policy/sched.h"
#include "traffic/job.h"

struct run_net;

/* Values of *run.stop, set by a signal handler. */
#define RUN_STOP_USER 1 /* Ctrl-C: abort running jobs, wait for them, write the results */
#define RUN_STOP_DOWN 2 /* `testbed down` takes the testbed: end now, write nothing */

/* A job as the runner runs it: emulated sizes and times, and what happened. */
struct run_job {
	struct job_spec spec; /* paper units */
	uint64_t bytes; /* per-rank collective size, emulated */
	uint64_t compute_ns; /* per-iteration compute, emulated */
	uint64_t progress_ns; /* fail after this long without a record */
	int64_t arrival; /* emulated ns since the run's start */
	int64_t start, finish; /* REC_NEVER until they happen */
	int64_t last_progress;
	enum rec_status status;
	char reason[REC_REASON_MAX];
	uint32_t *eps; /* endpoints in rank order, while placed */
	uint32_t done; /* ranks that reported CTL_DONE */
	uint32_t verified; /* ranks that verified */
	bool submitted, running, aborting;
	bool node_lost; /* the reason is an emu-node's death, the root cause */
};

/* One emu-node. */
struct run_node {
	pid_t pid;
	int fd; /* control socket, -1 when dead */
	int32_t job; /* job it runs, -1 when idle */
	uint32_t rank;
	bool ready;
};

/* A SEND or RECV record of one rank, kept until the flows are joined. */
struct run_flow {
	uint32_t job, rank;
	struct ctl_flow f;
};

struct run {
	/* inputs, borrowed */
	const struct experiment *e;
	const struct topo *t;
	const struct route_plan *plan;
	const char *name; /* testbed name */
	const char *emu_path; /* the emu-node binary */
	const job_list *specs; /* the workload's jobs as run_resolve_jobs gave them, or NULL */
	const int *nsfd; /* per topology node */
	volatile sig_atomic_t *stop; /* RUN_STOP_*, or 0 */
	struct sampler *sampler; /* counter sampling into rec, or NULL (sample.h) */
	struct run_net *net; /* failures and OCS reconfigurations, or NULL (run_net.h) */
	void (*progress)(void *arg, const struct run *r);
	void *progress_arg;
	/* state */
	int64_t t0; /* CLOCK_MONOTONIC ns of the run's start */
	double dilation;
	struct run_job *jobs;
	uint32_t njobs;
	uint32_t next_arrival; /* jobs[0 .. next_arrival) have arrived (sorted by arrival) */
	uint32_t finished; /* jobs that ended one way or another */
	struct run_node *nodes; /* per endpoint */
	uint32_t nnodes;
	struct sched sched;
	struct rec_run rec;
	VEC(struct run_flow) raw;
	bool stopping;
};

/* Jobs of the workload, in arrival order, ids 0.. (paper units): its jobs entries, generated
 * ones and a trace's (read here). 0 or -errno with d set (-EINVAL: bad input). */
int run_resolve_jobs(const struct experiment *e, job_list *out, struct diag *d);

/* Whether every job fits the topology: -EINVAL naming the first that never can, at its
 * position (the scenario's jobs entry, the trace's row), or 0. Under trace.oversize skip,
 * such trace rows are left out instead (ids renumbered) and counted in *skipped. */
int run_jobs_fit(const struct experiment *e, job_list *jobs, const struct topo *t,
		 uint32_t *skipped, struct diag *d);

/* Scales the resolved jobs (r->specs, or the workload's resolved here when NULL), starts and
 * greets every emu-node. 0 or -errno with d set; run_done cleans up either way. */
int run_prepare(struct run *r, struct diag *d);

/* Runs until every job ended or a stop was requested. 0 or -errno. */
int run_loop(struct run *r, struct diag *d);

/* Writes the records under dir (created): jobs.csv, iterations.csv, flows.csv, links.csv,
 * cpu.csv (r->rec, the jobs and flows gathered into it first), topology.json and the
 * scenario. 0 or -errno with d set. */
int run_write(struct run *r, const char *dir, struct diag *d);

/* Under sudo, gives dir and what is in it (and its plots) to the user who asked. */
void run_give_back(const struct run *r, const char *dir);

/* Stops and reaps every emu-node and frees the state. */
void run_done(struct run *r);

/* Emulated ns since the run's start. */
int64_t run_now(const struct run *r);

/* Counts for progress lines. */
void run_counts(const struct run *r, uint32_t *done, uint32_t *running, uint32_t *waiting);

#endif
