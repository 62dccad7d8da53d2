/* SPDX-License-Identifier: MIT */
/* The virtual-time backend's network: flows over directed links sharing bandwidth by max-min
 * fairness (progressive filling), recomputed only for the flows a change reaches, on a virtual
 * clock in nanoseconds with flow completions and timers as events. Pure: no clock, no I/O.
 * The caller maps a topology link and direction to a link id (link * 2 + dir) and gives each
 * flow its path; the engine knows nothing of topologies, hashing or policies. */
#ifndef SIM_NET_H
#define SIM_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/vec.h"

#define SIM_NEVER INT64_MAX

enum sim_event_kind {
	SIM_EV_FLOW_DONE, /* a flow's last byte left it */
	SIM_EV_TIMER, /* a timer the caller set */
};

struct sim_event {
	enum sim_event_kind kind;
	int64_t t; /* virtual ns */
	uint64_t cookie; /* the flow's or the timer's */
	uint32_t flow; /* SIM_EV_FLOW_DONE: its id (free for reuse after this event) */
};

/* Work counters, for reports and benches. */
struct sim_stats {
	uint64_t events; /* events returned */
	uint64_t recomputes; /* progressive fillings run */
	uint64_t flows_touched; /* flows whose rate those fillings set, summed */
};

/* How flows crossing one link share it (run.sim_share, docs/scenario.md). */
enum sim_share {
	SIM_SHARE_MAXMIN, /* max-min fair rates by progressive filling */
	/* Each flow gets, on the most loaded link it crosses, the link's capacity over the flows
	 * there (weighted by the share of its bytes crossing it); what a flow leaves unused on
	 * its other links nobody takes. */
	SIM_SHARE_EQUAL,
	/* As SIM_SHARE_EQUAL, and at every change a flow's progress is computed anew as if its
	 * new rate had held since it started: a flow joining late slows the whole of another's,
	 * one leaving gives the rest its time back. The rule of the authors' simulator for
	 * "Isolated Scheduling for Distributed Training Tasks in GPU Clusters" (RapidNetSim,
	 * task_step.py, network_refresh.py), per flow rather than per step. */
	SIM_SHARE_EQUAL_SINCE_START,
};

struct sim_link {
	double cap; /* bit/s; 0 = unlimited */
	bool up;
	double bytes; /* carried so far */
	double load; /* bit/s its flows' rates add up to now (sim/phys.c) */
	VEC(uint32_t) flows; /* active flows crossing it */
	uint32_t mark; /* recomputation pass that last reached it */
};

struct sim_flow {
	uint32_t *path; /* link ids (owned) */
	double *w; /* the share of its bytes crossing each (owned), NULL when all of them cross
		    * every link (one path); several paths split: each link once */
	uint32_t hops;
	double left; /* bytes still to send */
	double size; /* bytes it started with (SIM_SHARE_EQUAL_SINCE_START) */
	int64_t start; /* virtual ns it started */
	double rate; /* bit/s now */
	int64_t since; /* virtual ns its rate and left were last settled */
	uint64_t cookie;
	int64_t done; /* virtual ns of its last byte at its rate, SIM_NEVER when stalled */
	uint64_t seq; /* when done was set: ties in time go in that order, timers included */
	uint32_t hpos; /* its place in the completion heap, UINT32_MAX when not there */
	uint32_t mark;
	bool active, frozen;
};

struct sim_timer_item {
	int64_t t;
	uint64_t seq; /* insertion order breaks ties: runs are deterministic */
	uint64_t cookie;
};

/* The model broke its own physics: a link direction carried more than it can. Never the
 * scenario's doing: a bug in testbed. */
struct sim_breach {
	uint32_t link;
	int64_t t; /* virtual ns from which it did */
	double load; /* bit/s its flows' rates added up to */
	double cap; /* bit/s it can carry: its capacity, 0 when down */
};

struct sim_net {
	int64_t now;
	VEC(struct sim_link) links;
	VEC(struct sim_flow) flows;
	VEC(uint32_t) free_ids;
	VEC(struct sim_timer_item) timers; /* a heap by (t, seq) */
	VEC(uint32_t)
	done; /* active flows with a completion, a heap by (done, seq): updated in
	       * place when a rate changes, so it never holds more than the flows */
	VEC(uint32_t) dirty; /* flows whose component must be refilled before time moves */
	VEC(uint32_t) comp_flows, comp_links; /* scratch of one refilling */
	uint64_t seq;
	uint32_t pass;
	/* Rates are refilled at most once per quantum of virtual ns (0: at every instant that
	 * changed something). Between refills a flow keeps the rate it had, one that started,
	 * moved or lost a link sends nothing and what one that ended freed lies idle: never
	 * more than a link's capacity, at most quantum late. Set it after sim_net_init, before
	 * the first flow starts. */
	int64_t quantum;
	enum sim_share share; /* set after sim_net_init, before the first flow starts */
	int64_t filled_at; /* virtual ns of the last refill */
	struct sim_stats st;
	/* Physics checks (sim/phys.c): after every refill, every link direction it reached
	 * carries at most its capacity; before the clock moves on with a refill deferred by the
	 * quantum, so does every link a change touched since. A breach stops the run with
	 * -EFAULT and says where in breach. */
	struct sim_breach breach;
	size_t dirty_checked; /* dirty links checked before the clock moved on */
	bool unchecked; /* the checks off: for measuring what they cost (make bench), only */
	/* Tests only: breaks the model on purpose after each refill's rates are set, before the
	 * checks see them (tests/unit/sim/test_sim_phys.c). NULL in every run. */
	void (*mutate)(struct sim_net *s, void *arg);
	void *mutate_arg;
};

/* n links, each up with capacity cap[i] bit/s (0: unlimited); cap NULL: all unlimited.
 * 0 or -ENOMEM; release with sim_net_done (also after failure). */
int sim_net_init(struct sim_net *s, uint32_t n, const double *cap);
void sim_net_done(struct sim_net *s);

/* Starts a flow of bytes over path (hops link ids, copied) now. w: NULL for one path, or
 * per link the share of the flow's bytes that crosses it (in (0, 1], copied; each link
 * once): a flow split over several paths in fixed shares, as spraying splits it, whose rate
 * r puts w x r on each link. Returns its id (>= 0), -EINVAL for a bad link id, share or no
 * bytes, -ENOMEM. */
int sim_flow_start(struct sim_net *s, const uint32_t *path, const double *w, uint32_t hops,
		   uint64_t bytes, uint64_t cookie);

/* Moves flow id onto another path (a reroute after a failure; w as sim_flow_start's),
 * keeping what it sent. 0, -EINVAL or -ENOMEM. */
int sim_flow_reroute(struct sim_net *s, uint32_t id, const uint32_t *path, const double *w,
		     uint32_t hops);

/* Ends flow id now, sent or not (an aborted job). 0 or -EINVAL. */
int sim_flow_cancel(struct sim_net *s, uint32_t id);

/* Takes a link down (its flows stall at rate 0 until it is up or they are rerouted) or up;
 * setting the state it has is a no-op (no refill), so a caller may set every link as a new
 * view has it. 0 or -EINVAL. */
int sim_link_set(struct sim_net *s, uint32_t link, bool up);

/* Sets a timer at virtual time t (>= now). 0 or -EINVAL / -ENOMEM. */
int sim_timer(struct sim_net *s, int64_t t, uint64_t cookie);

/* Advances the clock to the next event and returns it in *ev: 1, or 0 when nothing is left
 * to happen (only stalled flows, or none), -ENOMEM, or -EFAULT for a physics breach (breach
 * says which link, when, how much). The events of one instant come before
 * the rates are refilled for what they changed; the refill comes when the clock is about to
 * move on (no flow can end sooner than now at any rate), or with a quantum at the first
 * instant at least quantum after the last refill (the clock stops there for it when no event
 * does). */
int sim_next(struct sim_net *s, struct sim_event *ev);

/* Refills now the rates of what changed since the last refill (sim_next does it before the
 * clock moves): for reading sim_flow_rate in the middle of an instant. 0, -ENOMEM or
 * -EFAULT (a physics breach, as sim_next's). */
int sim_net_settle(struct sim_net *s);

/* Bytes link has carried up to now (settled at the last event; exact at event times). */
double sim_link_bytes(const struct sim_net *s, uint32_t link);

/* The rate of flow id in bit/s as last refilled (sim_next, sim_net_settle). */
double sim_flow_rate(const struct sim_net *s, uint32_t id);

/* Flows in flight (started, not ended). */
static inline size_t sim_net_flows(const struct sim_net *s)
{
	return s->flows.n - s->free_ids.n;
}

#endif
