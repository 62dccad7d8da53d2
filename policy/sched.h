/* SPDX-License-Identifier: MIT */
/* The job scheduler: a queue of waiting jobs and a placement policy choosing the endpoints
 * (GPUs) a job runs on. Pure: the runner feeds it events (arrival, finish) in time order
 * and asks which jobs start; it reads no clock. Later policies (vClos, OCS-vClos) plug in
 * as placement functions of the same shape. */
#ifndef POLICY_SCHED_H
#define POLICY_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "model/topo.h"
#include "model/ocs.h"
#include "policy/ocs_vclos.h"
#include "policy/vclos.h"

enum sched_queue {
	SCHED_FIFO, /* strict: the head blocks everyone behind it (as in vClos's simulator) */
	SCHED_BACKFILL, /* FIFO, but later jobs that fit may start while the head waits (no
			 * reservation for the head: a stream of small jobs can starve it) */
	SCHED_SMALLEST_FIRST, /* vClos §9.7: the waiting job with the fewest GPUs first (ties:
			       * the earliest), strict: it blocks the others while it waits */
	SCHED_EDF, /* vClos §9.7: the waiting job due first (arrival + deadline; ties: the
		    * earliest), strict as well */
};

enum sched_place {
	SCHED_FIRST_FIT, /* the lowest-numbered free endpoints */
	SCHED_RANDOM, /* a uniformly random set of free endpoints (seeded) */
	SCHED_VCLOS, /* vClos §6: one server, one leaf, or an isolated virtual Clos (vclos.h) */
	SCHED_OCS_VCLOS, /* vClos §7: the same, the virtual Clos made of idle OCS circuits
			  * rewired for it (ocs_vclos.h) */
	SCHED_LOCALITY, /* vClos §9's baselines: vClos's one server or one leaf, else the idle
			 * servers of the fullest leaves; no links held (vclos_place_spread) */
	SCHED_SERVER_FIRST_FIT, /* whole servers, leaf-blind: a job of at most a server's GPUs
				 * on the fullest server that has room, a larger one on the
				 * lowest-numbered idle servers (the vClos paper's simulator's
				 * placement for its baselines) */
};

struct sched_cfg {
	enum sched_queue queue;
	enum sched_place place;
	uint64_t seed;
	bool placement_order; /* ranks in the order placed, not leaf-major */
	uint32_t gpus_per_server; /* vclos, server-first-fit: GPUs per server (T); 0 or 1: one each
				   */
	uint32_t line, col; /* where the file gives scheduler.placement; 0 if it does not */
	uint32_t qline, qcol; /* where it gives scheduler.queue; 0 if it does not */
};

/* Chooses n endpoints among the free ones for a job. Writes endpoint indexes (0..n_ep-1)
 * into out in rank order and returns 0, or -EAGAIN when the job cannot be placed now. */
struct sched;
typedef int (*sched_place_fn)(struct sched *s, uint32_t job, uint32_t n, uint32_t *out);

struct sched_job {
	uint32_t id;
	uint32_t gpus;
	uint64_t due; /* SCHED_EDF's key: arrival + deadline, any one clock */
	bool running;
	bool waiting;
	bool fragmented; /* it waited once while enough GPUs were free */
	uint32_t first; /* its endpoints are sched.assign[first .. first+gpus) while running */
};

struct sched {
	struct sched_cfg cfg;
	const struct topo *t; /* borrowed */
	uint32_t n_ep;
	uint8_t *busy; /* per endpoint */
	uint32_t free_n;
	VEC(struct sched_job) jobs; /* by job id */
	VEC(uint32_t) queue; /* waiting job ids, arrival order */
	VEC(uint32_t) assign; /* endpoints of started jobs, in rank order */
	uint64_t rng;
	sched_place_fn place;
	/* vClos §7, Table 2: the head could not start although enough GPUs were free (network
	 * fragmentation, or locality); attempts, and distinct jobs */
	uint32_t frag_tries, frag_jobs;
	uint32_t gpu_tries; /* Table 2's other cause: attempts with fewer GPUs free than asked */
	/* What changed since the last sched_next that started nothing: it looks again only when
	 * a job finished (or, with a queue other than strict FIFO, one arrived) or the head is
	 * a new one, as the authors' simulator tries its head at those events only. So the
	 * counts above are attempts, not calls, and a caller may call it at every event. */
	uint64_t gen, idle_gen;
	uint32_t idle_head;
	struct vclos *vc; /* SCHED_VCLOS: the leaves' servers and the leaf-spine links */
	VEC(struct vclos_alloc) vc_allocs; /* SCHED_VCLOS: by job id, while running */
	struct sched_ocs *ocs; /* SCHED_OCS_VCLOS: the cluster, its circuits, the allocations */
};

/* Sets up an empty cluster of t's endpoints. 0, -ENOMEM, or for SCHED_VCLOS -EINVAL when t
 * is not a two-tier leaf-spine with endpoints numbered leaf by leaf and whole servers under
 * each leaf. Release with sched_done (also after a failure). */
int sched_init(struct sched *s, const struct topo *t, const struct sched_cfg *cfg);
void sched_done(struct sched *s);

/* A job arrives, needing gpus endpoints, due at `due` (SCHED_EDF's order; any clock, the
 * same for every job). -EINVAL if it can never fit (more GPUs than the cluster has, or none)
 * or its id exceeds INT_MAX, -EEXIST if the id came before; d says so. */
int sched_submit(struct sched *s, uint32_t job, uint32_t gpus, uint64_t due, struct diag *d);

/* Whether a job of gpus GPUs can ever be placed on n_ep endpoints (sched_submit's rule). */
bool sched_gpus_fit(uint32_t n_ep, uint32_t gpus);

/* The next job that can start now, by the queue discipline: returns its id and writes its
 * endpoints (rank order: leaf-major, as placed) to *eps (borrowed until the next call that
 * changes the scheduler), or -EAGAIN when none can start. Call repeatedly after each event.
 * -EINVAL if the placement function returned an endpoint out of range, busy or twice. */
int sched_next(struct sched *s, const uint32_t **eps);

/* A running job finished (or failed): its endpoints are free again. A job still waiting
 * leaves the queue instead. */
void sched_finish(struct sched *s, uint32_t job);

/* SCHED_VCLOS: running job's allocation (its virtual Clos and each rank's uplink spine), or
 * NULL (another placement, or not running). */
const struct vclos_alloc *sched_vclos(const struct sched *s, uint32_t job);

/* SCHED_OCS_VCLOS (vClos §7): the circuit changes running job's placement needs before it
 * starts, as changes of t's physical view (node ids; *n = 0 when none, or another
 * placement). Borrowed until the next call. */
void sched_ocs_changes(struct sched *s, uint32_t job, const struct ocs_change **ch, size_t *n);

/* SCHED_OCS_VCLOS: the leaf ports (port ids, the same in the physical and logical views) a
 * flow of running job's rank src to rank dst goes up and comes down over: 1, or 0 when it
 * stays in its leaf, or another placement; -EINVAL for a bad rank. */
int sched_ocs_route(const struct sched *s, uint32_t job, uint32_t src, uint32_t dst,
		    uint32_t *up_port, uint32_t *down_port);

/* SCHED_OCS_VCLOS: marks in job1 (per link of view, the current logical view) the job, plus
 * one, holding each circuit; the rest untouched. 0. */
int sched_ocs_busy(const struct sched *s, const struct topo *view, uint32_t *job1);

/* Counts for reports: jobs waiting, GPUs free. */
uint32_t sched_waiting(const struct sched *s);

#endif
