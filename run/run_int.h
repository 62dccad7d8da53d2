/* SPDX-License-Identifier: MIT */
/* Internals shared by the run*.c files. */
#ifndef ORCH_RUN_INT_H
#define ORCH_RUN_INT_H

#include "run/run.h"
#include "scenario/jobs.h"

/* Fills the backend's sizes, times and timeout of rj from its spec. */
void run_scale_job(const struct run *r, struct run_job *rj);

/* Starts every job the scheduler can place now. */
int run_start_jobs(struct run *r, struct diag *d);
/* Ends job j (all ranks reported, or it failed): frees its endpoints. */
void run_end_job(struct run *r, uint32_t j, enum rec_status st, const char *why);
/* Fails job j with a reason and tells its other ranks to stop. */
void run_fail_job(struct run *r, uint32_t j, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The collective parameters of job rj, as its ranks build their schedule. */
struct coll_params run_job_coll(const struct run_job *rj);

/* TACOS jobs (run_tacos.c). Job j is placed: with algorithm tacos, synthesizes its collective
 * over its NPUs' links (once; TACOS §VI), else nothing. 0 or -errno with d set. */
int run_tacos_synth(struct run *r, uint32_t j, struct diag *d);
/* What the job's ranks build their schedule from besides run_job_coll (coll_sched_build_ext). */
struct coll_ext run_job_ext(const struct run_job *rj);
/* Writes tacos-<job>.txt under dir for every synthesized job (tacos_result_format). */
int run_tacos_write(const struct run *r, const struct wdir *dir, struct diag *d);
/* Job j is placed: with algorithm msccl, reads its XML (workload.msccl.file), else nothing.
 * 0 or -errno with d set. */
int run_msccl_load(struct run *r, uint32_t j, struct diag *d);
/* Frees rj's synthesis, XML and trace. */
void run_tacos_done(struct run_job *rj);
/* A Chakra trace's job (run_chakra.c): read when placed, with the backend's scales. */
struct run_chakra {
	struct jobs_chakra c;
	struct chakra_job job;
	struct chakra_maps maps; /* each step's node; under verify, each rank's regions */
	uint32_t *step_off; /* each rank's first step in it */
	int64_t *t0, *t1; /* per node: its first step's start, its last step's end, on its rank */
	uint8_t *crit; /* per node: on the critical path with nothing shared (chakra_ideal) */
};
/* Job j is placed: a Chakra job reads its trace (again: the files are the user's, and a run
 * keeps only its running jobs' traces), its bytes made its lowered schedule's and its
 * progress timeout a multiple of its time with nothing shared; else nothing. 0 or -errno. */
int run_chakra_load(struct run *r, uint32_t j, struct diag *d);
void run_chakra_done(struct run_job *rj);
/* Step `step` of rank `rank` of job j (its lowered schedule's) ran from t0 to t1: its node's
 * times in ops.csv. No-op for a job of no trace. */
void run_chakra_step(struct run *r, uint32_t j, uint32_t rank, uint32_t step, int64_t t0,
		     int64_t t1);
/* Job j ended: its nodes' rows into ops.csv's records, and its trace let go. 0 or -ENOMEM. */
int run_chakra_end(struct run *r, uint32_t j);
/* Job j is placed: with algorithm hx-rings or torus2d, its ranks in torus order
 * (policy/torus_order.h), else nothing. */
void run_torus_order(struct run *r, uint32_t j);

/* An OCS rewire's next circuit set, the one decision both backends take (vClos §7: only idle
 * circuits are rewired): changes ch[0..n) applied by the rules of model/ocs.h to xc, the
 * circuits in force over view's physical topology, with the circuits a running job's traffic
 * may cross held busy (under ocs-vclos the circuits each job holds, otherwise every link on a
 * shortest path of view between two of a running job's endpoints). *next: a new array of
 * view->phys's ports (the caller frees it), NULL on error. 0, or -errno with d set (-EINVAL,
 * -EBUSY: refused). */
int run_ocs_next(const struct run *r, const struct topo *view, const struct topo_paths *paths,
		 const uint32_t *xc, const struct ocs_change *ch, size_t n, uint32_t **next,
		 struct diag *d);
/* A rewire's target in failures.csv: "job J: " (J >= 0) and the changes, into buf. */
void run_ocs_target(const struct topo *phys, int64_t j, const struct ocs_change *ch, size_t n,
		    char *buf, size_t len);

/* Routing policies (run_route.c). A trigger of the policy (greedy routing §3.4.2: a job
 * starting or ending, a failure): the next run_route_update decides again. */
/* Asks the routing policy for a new decision, because of `why`; at: when the failure or
 * rewire behind it happened (-1 for a job's start or end). */
void run_route_trigger(struct run *r, const char *why, int64_t at);
/* A rank of job j entered (coll) or left an iteration's collective: under routing.trigger
 * phase, the job's first rank in starts a phase and its last one out ends it, each a
 * decision over the jobs then in a phase. */
void run_route_phase(struct run *r, uint32_t j, bool coll);
/* Job j started: the connections its schedule sends over, for the policy. 0 or -errno. */
int run_route_job(struct run *r, uint32_t j, struct diag *d);
/* After a trigger, the policy assigns every running job's connections a path and the backend
 * re-tags those that changed; the decision goes to r->rec.routes (routing.csv). A no-op under
 * ECMP. 0 or -errno (a policy that cannot decide
 * fails the run: its jobs' paths would be the hash's, not the policy's). */
int run_route_update(struct run *r, struct diag *d);

#endif
