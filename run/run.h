/* SPDX-License-Identifier: MIT */
/* run/ owns the backend-independent runner: arrivals, placement, routing decisions, job lives,
 * records; it asks its backend only through struct run_backend. May include: scenario/, report/,
 * kernel/ (files) and the pure layers; never run/emu/ or run/sim/. */
/* The runner: the workload's jobs arrive, the scheduler places them, they start and end, and
 * the raw records go to the results folder. It does not know what runs the ranks: a backend
 * does (struct run_backend): emulation (run_emu.h: one emu-node per endpoint over the kernel)
 * or the flow model in virtual time (run_sim.h). Ctrl-C stops the run cleanly and keeps what
 * was recorded. */
#ifndef ORCH_RUN_H
#define ORCH_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/netev.h"
#include "collect/records.h"
#include "lib/diag.h"
#include "model/ocs.h"
#include "model/topo.h"
#include "scenario/experiment.h"
#include "kernel/wdir.h"
#include "policy/route.h"
#include "policy/sched.h"
#include "traffic/job.h"

struct run;

/* Values of *run.stop, set by a signal handler. */
#define RUN_STOP_USER 1 /* Ctrl-C: abort running jobs, wait for them, write the results */
#define RUN_STOP_DOWN 2 /* `testbed down` takes the testbed: end now, write nothing */

/* A connection a job's collective sends over (rank src to rank dst) and how the routing
 * policy pinned its path: a DSCP path tag (0: the switches' hash), or under routing.enforce
 * sport the source port of the TCP connection the pair shares (0: flow_sport's first), the
 * same in both directions' entries. */
struct run_conn {
	uint32_t src, dst;
	uint8_t tag;
	uint16_t sport;
	uint16_t moves; /* times the pair's connection moved to a new port */
	uint16_t held; /* the policy's last choice for it + 1 (its candidate), 0 if none */
	uint32_t rev; /* the entry of dst -> src, or UINT32_MAX if dst sends src nothing */
};

/* A job as the runner runs it: the backend's sizes and times (emulated ones, or paper units
 * in virtual time), and what happened. */
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
	int rank_err; /* the -errno of the rank whose end gave the reason (0: none did) */
	uint32_t *eps; /* endpoints in rank order, while placed */
	uint32_t done; /* ranks that ended (run_rank_ended) */
	uint32_t verified; /* ranks that verified */
	bool submitted, running, aborting;
	bool launched; /* handed to the backend (its start came after the routing decision) */
	uint32_t in_coll; /* routing.trigger phase: ranks inside an iteration's collective */
	bool node_lost; /* the reason is an emu-node's death, the root cause */
	struct run_conn *conns; /* under a routing policy, while running: what it sends over */
	uint32_t nconns;
	struct tacos_result *tacos; /* algorithm tacos: synthesized when placed (run_tacos.c) */
	char *msccl; /* algorithm msccl: the XML, read when placed (run_tacos.c) */
	size_t msccl_len;
	struct run_chakra *chakra; /* a Chakra trace's job: read when placed (run_chakra.c) */
};

/* What runs the ranks. The runner calls these; the backend reports each rank's end with
 * run_rank_ended and appends iterations, flows and link samples to r->rec. Times are ns since
 * the run's start on the backend's clock (CLOCK_MONOTONIC, or virtual). */
struct run_backend {
	const char *name; /* "emulation", "sim": summary.json's backend */
	const char *command; /* the command that runs on it, for messages: "testbed up" */
	const char *ranks; /* what runs the ranks, for messages: "emu-nodes" */
	/* Its clock is the machine's (the emulation's CLOCK_MONOTONIC since the run began), not a
	 * virtual one: a run on it has a fidelity verdict (the machine may have limited it), and
	 * its wall time runs with its clock. */
	bool machine_clock;
	/* Sets up once the jobs are made; the clock reads 0 when it returns. */
	int (*prepare)(struct run *r, struct diag *d);
	int64_t (*now)(const struct run *r);
	/* Its own next deadline (a failure, a sample), INT64_MAX if none. */
	int64_t (*next)(const struct run *r);
	/* Hands job j, placed on r->jobs[j].eps, to its ranks, its connections pinned as
	 * r->jobs[j].conns says (if it has any). */
	int (*start)(struct run *r, uint32_t j, struct diag *d);
	/* Job j failed (run_fail_job): stop its ranks, which then report their end. */
	void (*abort)(struct run *r, uint32_t j);
	/* Carries out what happens until time `until`: returns once something changed the
	 * jobs' state, or at until (emulation may return earlier: it polls). */
	int (*wait)(struct run *r, int64_t until, struct diag *d);
	/* Its timed work due at now: progress deadlines, failures, counters. */
	void (*tick)(struct run *r, int64_t now);
	/* The run ended: last counters, records completed. */
	void (*finish)(struct run *r);
	/* Its own files in the results folder (failures.csv), or NULL. */
	int (*write)(struct run *r, const struct wdir *dir, struct diag *d);
	/* The network events it carried out (failures.csv's rows, *n of them), or NULL. */
	const struct rec_netev *(*netevs)(const struct run *r, size_t *n);
	/* The topology and routing plan in force now (failures change them). */
	void (*view)(const struct run *r, const struct topo **t, const struct route_plan **plan);
	/* Job j's connections v[0..n) get their tags (run_conn.tag) from now on, and under
	 * routing.enforce sport (run_conn.sport not 0, src the lower rank) move to the port.
	 * 0 or -errno. */
	int (*retag)(struct run *r, uint32_t j, const struct run_conn *v, size_t n, struct diag *d);
	/* Makes the OCS circuit changes ch[0..n) job j's placement needs (vClos §7): their
	 * ports go dark now, the circuits come up after topology.ocs.delay, then the backend
	 * calls run_circuits_ready. One at a time. NULL: the backend has no OCS. 0 or -errno. */
	int (*circuits)(struct run *r, uint32_t j, const struct ocs_change *ch, size_t n,
			struct diag *d);
	void (*done)(struct run *r);
	/* The rounds of its counter sampling that came out incomplete (*why: the first's reason)
	 * of *rounds. NULL: the backend samples nothing that can miss. */
	uint64_t (*sample_gaps)(const struct run *r, uint64_t *rounds, const char **why);
	/* The share of running job j's work done over its iterations (0 to 1), for progress
	 * within an iteration; -1 if it cannot tell. NULL: the backend never can. */
	double (*share)(const struct run *r, uint32_t j);
};

struct run {
	/* inputs, borrowed */
	const struct experiment *e;
	const struct topo *t;
	const struct route_plan *plan;
	const job_list *specs; /* the workload's jobs as jobs_resolve gave them, or NULL */
	/* the trace's rows left out, for summary.json; NULL when the workload has no trace */
	const struct job_trace_left *trace_left;
	volatile sig_atomic_t *stop; /* RUN_STOP_*, or 0 */
	const struct run_backend *be;
	void *be_data; /* the backend's own state */
	void (*progress)(void *arg, const struct run *r);
	void *progress_arg;
	/* state */
	double dilation;
	struct run_job *jobs;
	uint32_t njobs;
	uint32_t next_arrival; /* jobs[0 .. next_arrival) have arrived (sorted by arrival) */
	uint32_t finished; /* jobs that ended one way or another */
	uint32_t nnodes; /* endpoints */
	struct sched sched;
	struct rec_run rec;
	bool stopping;
	char route_why[16]; /* a routing policy's trigger since its last decision, or "" */
	int64_t route_event; /* the first failure or rewire since then (-1: none) */
	uint32_t rewires; /* OCS reconfigurations the scheduler's placements made */
	VEC(uint32_t) wire_q; /* placed jobs waiting for their circuits, in placement order */
	int64_t wiring; /* the job whose circuits are being made, -1 if none */
};

/* The backend made job j's circuits (err 0) or could not (err < 0, d says why): the job
 * starts, or fails. */
void run_circuits_ready(struct run *r, uint32_t j, int err, const struct diag *d);

/* Scales the resolved jobs (r->specs, or the workload's resolved here when NULL) and prepares
 * the backend r->be. 0 or -errno with d set; run_done cleans up either way. */
int run_prepare(struct run *r, struct diag *d);

/* Runs until every job ended or a stop was requested. 0 or -errno. */
int run_loop(struct run *r, struct diag *d);

/* Writes the records into the run's folder dir: jobs.csv, iterations.csv, flows.csv,
 * links.csv, cpu.csv, tcp.csv (r->rec, the jobs gathered into it first), topology.json, the
 * scenario (after note, if not NULL), and the backend's own files. 0 or -errno with d set. */
int run_write(struct run *r, const struct wdir *dir, const char *note, struct diag *d);

/* Stops the backend (every emu-node reaped) and frees the state. */
void run_done(struct run *r);

/* Ns since the run's start on the backend's clock. */
int64_t run_now(const struct run *r);

/* A rank of job j ended: status 0 or -errno, reason (may be NULL) for a failure, verified
 * when verify mode checked its result. The job ends when every rank has. */
void run_rank_ended(struct run *r, uint32_t j, int status, bool verified, const char *reason);

/* Writes dir/failures.csv from the rows v[0..n). 0 or -errno with d set. */
int run_netev_write(const struct wdir *dir, const struct rec_netev *v, size_t n, struct diag *d);

/* One line per row for the terminal, into buf (at least 128 bytes): whole lines, at most a
 * dozen, then how many more failures.csv has. Returns buf. */
char *run_netev_summary(const struct rec_netev *v, size_t n, char *buf, size_t len);

/* Counts for progress lines: jobs ended ok, ended otherwise (failed, or stopped by the
 * user), running and waiting. */
struct run_tally {
	uint32_t ok, failed, running, waiting;
};
void run_counts(const struct run *r, struct run_tally *t);

#endif
