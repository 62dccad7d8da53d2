/* SPDX-License-Identifier: MIT */
/* The virtual-time backend of the runner (run.h): the jobs' ranks on the flow model
 * (sim/exec.h) in paper units, with link counters sampled on the virtual clock. Needs no
 * root and no kernel objects. */
#ifndef ORCH_RUN_SIM_H
#define ORCH_RUN_SIM_H

#include <stdint.h>

#include "model/paths.h"
#include "orchestrator/failure.h"
#include "orchestrator/run.h"
#include "policy/reroute.h"
#include "policy/route.h"
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
};

struct run_sim {
	struct sim_exec x;
	struct run_sim_net net;
	int64_t sample_ns; /* links.csv every this long in virtual time (0: at the end only) */
	int64_t next_sample;
	uint64_t samples; /* rows written so far */
	uint32_t frame; /* bytes of a full frame on the wire (MTU + Ethernet header) */
	struct sim_stats st; /* the engine's work, for progress and benches */
};

extern const struct run_backend run_sim_backend;

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
