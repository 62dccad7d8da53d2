/* SPDX-License-Identifier: MIT */
/* Jobs' ranks executing their collective schedules on the flow model (sim/net.h), in virtual
 * time: each iteration a compute phase (a timer), then the rank's steps started in the order
 * traffic/plan.h decides, as emu-node starts them. A SEND is a flow over the ports the kernel
 * would forward its 5-tuple through (policy/route.h, route_job_flow: the source ports
 * emu-node binds, the switches' ECMP hash and seeds; under routing.spray, split equally at
 * each spraying switch, route_trace_split); it completes when its last byte left,
 * and reaches its receiver one path latency later, queued there in order (a TCP connection's
 * byte stream) until the matching RECV takes it. With channels (traffic/plan.h), a SEND is one
 * flow per part, each over its own connection's path, and its message arrives when the last
 * part did (never before the pair's previous message). Records go to a rec_run as emulation writes
 * them: iterations.csv and flows.csv. Pure: no clock, no I/O. */
#ifndef SIM_EXEC_H
#define SIM_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/records.h"
#include "lib/diag.h"
#include "lib/vec.h"
#include "model/topo.h"
#include "policy/route.h"
#include "sim/net.h"
#include "traffic/coll.h"
#include "traffic/plan.h"

#define SIM_JOBS_MAX (1u << 18) /* job ids the flow cookies can carry */
#define SIM_PATH_MAX 64 /* hops */
#define SIM_SPLIT_MAX 4096 /* link directions a sprayed connection crosses */
/* Ranks whose steps are built at once as a job starts, then let go once their plans hold what
 * the run reads: a job's whole schedule at once would be the run's largest allocation, and
 * touched only to build the plans. */
#define SIM_BLOCK 8

/* A job as the runner hands it over: placed, in the backend's units (paper units here). */
struct sim_job_in {
	uint32_t id; /* < SIM_JOBS_MAX */
	struct coll_params coll;
	struct coll_ext ext; /* what coll needs besides (TACOS's synthesis), borrowed */
	uint32_t iterations;
	uint64_t compute_ns; /* per iteration */
	uint32_t channels; /* connections per pair (traffic/plan.h), 0 means 1 */
	const uint32_t *eps; /* endpoint index per rank (copied) */
	bool step_times; /* report each step's start and end (sim_exec.on_step) */
};

/* One message queued at its receiver: the bytes are in, the RECV has not taken them yet. */
struct sim_arrival {
	int64_t t_send; /* when its SEND started */
	uint8_t tag; /* the DSCP path tag its connection carried then */
};

/* A RECV step taken and waiting for its message, with what its record needs (kept here, where
 * the delivery looks, rather than read back from the schedule). */
struct sim_recv {
	uint32_t step; /* COLL_PLAN_NONE: none waits */
	uint32_t seq; /* its position in the channel */
	uint64_t len;
	uint16_t phase;
};

struct sim_chan_in {
	VEC(struct sim_arrival) q;
	uint32_t head; /* first not yet taken */
	struct sim_recv w; /* the RECV waiting for its message */
};

/* The SEND in flight on a connection (traffic/plan.h runs one step at a time per channel). */
struct sim_send {
	int64_t t_send; /* when it started */
	int64_t t_arrive; /* when its parts sent so far reach the peer */
	uint8_t left; /* its parts still sending */
};

/* A rank's side of its connections to one peer, in one place: a message's delivery and its
 * send's progress read it together. */
struct sim_peer {
	struct sim_send out; /* the SEND in flight to the peer */
	int64_t t_last; /* when the last message to the peer arrives */
	uint32_t back; /* this rank's index among the peer's peers */
	uint16_t sport; /* channel 0's source port (0: flow_sport's) */
	uint8_t tag; /* the DSCP path tag its packets carry (0: none) */
	struct sim_chan_in in; /* the receive side */
	VEC(int64_t)
	flying; /* when each message still on its way to the peer was sent: they
		 * arrive in order, the first at fly_head */
	uint32_t fly_head;
};

struct sim_rank {
	struct coll_plan plan;
	struct coll_plan_run run;
	struct sim_peer *pr; /* per peer index */
	uint32_t *path; /* per connection (peer index x channels + channel): its path's offset in
			 * sim_job.paths (hops, ports...) */
	int64_t *lat; /* per connection: the path's latency, ns */
	uint32_t iter;
	int64_t t_start, t_compute_end;
	int64_t *t_step; /* with step times: when each step was taken */
	bool done;
};

struct sim_job {
	bool active;
	uint32_t id;
	struct sim_rank *ranks; /* each with its plan; the schedule is not kept (SIM_BLOCK) */
	uint32_t *eps;
	VEC(uint32_t) paths; /* each connection's path, traced once: hop count, then ports */
	VEC(double)
	wts; /* under spraying, each port's share of the connection's bytes, at its
	      * index in paths (policy/route.h route_trace_split); empty without */
	uint32_t nranks, iterations, ranks_done;
	uint32_t chans; /* connections per pair */
	uint32_t elem; /* the collective's element size (coll_params.elem) */
	enum coll_kind kind; /* the collective's, for its busbw: kind, algorithm, group, bytes */
	enum coll_algo algo;
	uint32_t group;
	uint64_t bytes;
	double *coll_ns; /* per iteration: its ranks' collective times (iterations.csv's
			  * t_end - t_compute_end) summed */
	uint32_t *coll_in; /* per iteration: the ranks that finished it */
	double inj; /* bytes/s its busbw can reach at most (sim/exec_phys.c) */
	uint64_t steps; /* of all ranks */
	uint64_t steps_done; /* completed, over all iterations */
	uint64_t compute_ns;
	uint32_t flows; /* flows of the job in the network */
	bool step_times; /* its ranks keep when each step was taken (sim_exec.on_step) */
};

/* What ended: a job whose every rank finished, or jobs stuck with nothing left to happen. */
enum sim_exec_what {
	SIM_X_UNTIL, /* the clock reached `until` */
	SIM_X_JOB_DONE, /* job `job` finished */
	SIM_X_IDLE, /* nothing is left to happen before until (no flow, no timer) */
	SIM_X_PHASE, /* ranks entered or left a collective (sim_exec.phase_q, when asked for) */
	SIM_X_BUDGET, /* it did sim_exec.budget work: the caller may look up and go on */
};

/* Runs fn(arg, i) for every i < n and returns the first nonzero result, in any order and
 * possibly several at once (the caller's threads: the simulator has none). fn's calls touch
 * disjoint data (each rank's plan as a job starts), so the result is the same either way. */
typedef int sim_each_fn(uint32_t n, int (*fn)(void *arg, uint32_t i), void *arg);

/* Rank `rank` of job `job` entered (coll) or left an iteration's collective. */
struct sim_phase {
	uint32_t job, rank;
	bool coll;
};

struct sim_exec {
	const struct topo *t; /* borrowed */
	const struct route_plan *plan; /* borrowed */
	struct rec_run *rec; /* borrowed: iterations and flows are appended */
	double goodput;
	struct sim_net net;
	VEC(struct sim_job) jobs; /* by job id */
	VEC(uint32_t) ended; /* jobs finished, not yet reported */
	bool phases; /* queue collective phases (the caller sets it: routing.trigger phase) */
	VEC(struct sim_phase) phase_q; /* not yet reported; the caller empties it */
	int64_t wake; /* the latest wake-up timer set */
	uint64_t budget; /* work one sim_exec_run does at most (0: no limit): events plus flows
			  * whose rates a refill set, so a caller can report progress and heed a
			  * stop between instants far apart, or in a network of many flows */
	sim_each_fn *each; /* the caller's way to run independent work, NULL: in order */
	uint32_t block; /* ranks whose steps are built at once as a job starts (0: SIM_BLOCK):
			 * the records do not depend on it */
	struct diag fault; /* what sim_exec_run's -EFAULT says: the physics breach, where */
	/* a step of a job started with step_times ran from t0 to t1 (a Chakra trace's job: its
	 * ops.csv); NULL: none asked */
	void (*on_step)(void *arg, uint32_t job, uint32_t rank, uint32_t step, int64_t t0,
			int64_t t1);
	void *step_arg;
};

/* Over t's ports as links (link id = port id: the direction leaving it) at their rates;
 * goodput is the share of a link's rate left for payload (TCP/IP and Ethernet headers);
 * records go to rec. 0 or -ENOMEM (d set); sim_exec_done either way. */
int sim_exec_init(struct sim_exec *x, const struct topo *t, const struct route_plan *plan,
		  double goodput, struct rec_run *rec, struct diag *d);
void sim_exec_done(struct sim_exec *x);

static inline int64_t sim_exec_now(const struct sim_exec *x)
{
	return x->net.now;
}

/* Starts job j now: every rank begins its first iteration. -EINVAL for a schedule that does
 * not build or a pair without a route (d says which), -ENOMEM. */
int sim_exec_start(struct sim_exec *x, const struct sim_job_in *j, struct diag *d);

/* Withdraws job id now: its flows leave the network, nothing more is recorded. */
void sim_exec_abort(struct sim_exec *x, uint32_t id);

/* Runs events until one ends a job (*job set, SIM_X_JOB_DONE), a rank enters or leaves a
 * collective with x->phases set (SIM_X_PHASE: x->phase_q holds them), the clock reaches until
 * (SIM_X_UNTIL; INT64_MAX: never), nothing is left to happen (SIM_X_IDLE), or x->budget work
 * was done (SIM_X_BUDGET; calling again goes on as if it had not returned). Or -ENOMEM, or
 * -EFAULT when the model broke its own physics (a bug in testbed, x->fault says what): a
 * link direction carried more than its capacity (sim/net.h), or a job's iteration reached a
 * bus bandwidth over what its ranks' links can send (sim/exec_phys.c). x->net.unchecked
 * turns both checks off. */
int sim_exec_run(struct sim_exec *x, int64_t until, uint32_t *job);

/* The topology changed (a failure, a repair): t and plan replace the ones the jobs were
 * traced over (same node and port ids; borrowed from now on). Every running job's connections
 * are traced again and its flows in flight move onto their new paths, as the kernel's
 * rerouted packets would; a connection left without a route keeps its path and stalls there.
 * Instant in virtual time. 0 or -ENOMEM (d set). */
int sim_exec_reroute(struct sim_exec *x, const struct topo *t, const struct route_plan *plan,
		     struct diag *d);

/* Rank `rank` of job `job` marks its packets toward rank `peer` with DSCP path tag `tag`
 * (0: none), and (sport not 0, routing.enforce sport) the pair's connection moves to source
 * port sport, from the next sim_exec_retrace of the job on. 0, or -EINVAL for a job that is
 * not running or a pair that exchanges nothing. */
int sim_exec_tag(struct sim_exec *x, uint32_t job, uint32_t rank, uint32_t peer, uint8_t tag,
		 uint16_t sport);

/* Job `job`'s connections traced again with their tags, its flows in flight moved onto the
 * new paths (what they sent stays sent). Instant in virtual time. 0, -EINVAL (not running),
 * or -ENOMEM (d set). */
int sim_exec_retrace(struct sim_exec *x, uint32_t job, struct diag *d);

/* Takes port's direction of a link (link id = port id) down or up: flows over it stall at
 * rate 0 while it is down. 0 or -EINVAL. */
int sim_exec_port_state(struct sim_exec *x, uint32_t port, bool up);

/* Whether job id is running. */
bool sim_exec_running(const struct sim_exec *x, uint32_t id);

/* The share of running job id's steps completed, over all its iterations (0 to 1), or -1 if
 * it is not running: progress within an iteration, which a long collective needs. */
double sim_exec_share(const struct sim_exec *x, uint32_t id);

#endif
