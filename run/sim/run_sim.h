/* SPDX-License-Identifier: MIT */
/* run/sim/ owns the virtual-time backend: the runner's calls carried out on the flow model (sim/),
 * failures and OCS rewires on the virtual clock. May include: run/, scenario/, kernel/ (threads)
 * and the pure layers. */
/* The virtual-time backend of the runner (run.h): the jobs' ranks on the flow model
 * (sim/exec.h) in paper units, with link counters sampled on the virtual clock (sim/bins.h:
 * every run.sample_interval, or 100 to 200 bins over the run by default). Needs no root and
 * no kernel objects. */
#ifndef ORCH_RUN_SIM_H
#define ORCH_RUN_SIM_H

#include <stdint.h>

#include "model/paths.h"
#include "scenario/failure.h"
#include "run/run.h"
#include "policy/reroute.h"
#include "policy/route.h"
#include "sim/bins.h"
#include "sim/exec.h"

/* The scenario's failures and repairs on the virtual clock: the cables' link directions go
 * down or up in the flow model and the routing plan is rebuilt for the new graph at once
 * (the control plane takes no virtual time); the jobs' connections follow it. */
struct run_sim_net {
	struct fail_plan plan;
	struct topo *t; /* the topology after the events so far (owned), NULL before any */
	struct topo_paths paths;
	struct route_plan routes; /* over t */
	VEC(struct rec_netev) recs; /* failures.csv */
	/* OCS circuits (topology.ocs): the set in force over the physical ports (owned, NULL
	 * without OCSes), and a reconfiguration under way: its set, dark until lit_at
	 * (INT64_MAX: none), its row in recs and the job it is for (-1: a scenario's rewire) */
	uint32_t *xc, *next;
	int64_t lit_at;
	int64_t rec, job;
};

struct run_sim {
	struct sim_exec x;
	struct run_sim_net net;
	struct sim_bins bins; /* links.csv's samples, made rows at the end */
	uint64_t filled; /* the flow model's rate refills at the last sample */
	bool idle; /* no flow was in flight at the last sample */
	uint32_t frame; /* bytes of a full frame on the wire (MTU + Ethernet header) */
	struct sim_stats st; /* the engine's work, for progress and benches */
};

extern const struct run_backend run_sim_backend;

/* The flow model and the jobs move onto view nt (owned from now on, freed on error): its
 * plan is built (the control plane takes no virtual time), e (if any) counts what the kernel
 * would change, and every running connection is traced again. 0 or -errno with d set. */
int run_sim_set_view(struct run *r, struct topo *nt, struct rec_netev *e, struct diag *d);

/* A new row of failures.csv at the current virtual time, or NULL (out of memory). */
struct rec_netev *run_sim_rec(struct run *r, const char *event, const char *st, const char *target);

/* OCS reconfigurations in virtual time (run_sim_ocs.c). Init: the circuits in force, if t has
 * OCSes. Rewire: changes ch[0..n) for job j (a placement's; -1 for the scenario's), the
 * changed circuits dark now and lit after topology.ocs.delay; refused (recorded, -errno with d
 * set) while another is under way or when a circuit to tear down may carry a running job's
 * traffic. Tick: lights the one under way when its time has come. */
int run_sim_ocs_init(struct run *r, struct diag *d);
int run_sim_rewire(struct run *r, const struct ocs_change *ch, size_t n, int64_t j, struct diag *d);
int run_sim_circuits(struct run *r, uint32_t j, const struct ocs_change *ch, size_t n,
		     struct diag *d);
void run_sim_ocs_tick(struct run *r, int64_t now);

/* A link or node event on a topology with OCSes: cables[0..nc) (physical links) down or up,
 * and the view the circuits make over the cables as they now are (a circuit is up when both
 * its cables are), as the emulation's control plane makes it. 0 or -errno with d set. */
int run_sim_ocs_cables(struct run *r, const uint32_t *cables, uint32_t nc, bool up,
		       struct rec_netev *e, struct diag *d);

static inline void run_sim_use(struct run *r, struct run_sim *s)
{
	r->be = &run_sim_backend;
	r->be_data = s;
}

/* The share of a link's rate TCP payload gets with frames of mtu bytes: each carries
 * mtu - 52 bytes of data (IPv4 and TCP headers with timestamps) in mtu + 14 bytes on the
 * wire, as the emulation's shapers count them. */
double run_sim_goodput(uint32_t mtu);

#endif
