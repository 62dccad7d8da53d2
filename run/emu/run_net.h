/* SPDX-License-Identifier: MIT */
/* The runner's control of the network: the scenario's timed failures and repairs (the control
 * plane removes dead next hops and re-runs the routing policy), and OCS reconfigurations (the
 * ports a rewire changes stay dark for the delay), asked for by the scenario or by a placement
 * policy (run_ocs_rewire), each carried out through the control plane (netctl.h) and
 * recorded, with its reroute and probe times, for failures.csv. */
#ifndef ORCH_RUN_NET_H
#define ORCH_RUN_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/netev.h"
#include "lib/vec.h"
#include "scenario/failure.h"
#include "fabric/netctl.h"
#include "fabric/ocs_reconf.h"
#include "run/run.h"

#define RUN_NET_PROBES 16 /* echoes per probe, each hashed on its own */
#define RUN_NET_PROBE_NS 2000000000LL /* a probe gives up after this long */

/* A probe under way in its own thread, and the row it reports to. */
struct run_probe {
	struct netctl_probe *p;
	uint32_t rec;
	int64_t t0; /* CLOCK_MONOTONIC ns its times count from */
};

struct run_net {
	struct netctl ctl;
	struct fail_plan plan;
	struct ocs_reconf reconf; /* under way while reconf.next is set */
	int32_t reconf_rec; /* its row in recs, -1 */
	uint8_t *reconf_ports; /* the OCS ports it changes (per physical port) */
	int64_t reconf_job; /* the job it is made for (a placement's), -1 if none */
	uint64_t ocs_delay_ns; /* topology.ocs.delay */
	VEC(struct rec_netev) recs;
	VEC(struct run_probe) probes;
};

/* Sets up r->net when the scenario has failures or OCSes (else leaves it NULL): the control
 * plane over r->t and the resolved events. 0 or -errno with d set. */
int run_net_init(struct run *r, struct diag *d);
void run_net_done(struct run *r);

/* Emulated ns of the next event or reconfiguration step, INT64_MAX when none is due. */
int64_t run_net_next(const struct run *r);

/* Carries out every event due at emulated time now, and the second half of a
 * reconfiguration whose delay has passed. Outcomes go to the records. */
void run_net_tick(struct run *r, int64_t now);

/* The API placement policies (OCS-vClos) call: rewires circuits ch[0..n) (model/ocs.h).
 * Circuits that any running job's traffic may cross are busy (policy/reroute.h,
 * route_links_used): tearing one down is refused with -EBUSY (vClos §7: only idle
 * circuits are rewired). Accepted changes take their ports dark now; after
 * topology.ocs.delay the runner's loop puts the circuits in and fixes the routes. -EAGAIN
 * while another reconfiguration is under way; -EINVAL for an illegal change or a topology
 * without OCS. Every call is recorded. */
int run_ocs_rewire(struct run *r, const struct ocs_change *ch, size_t n, struct diag *d);

/* The backend's circuits (run.h): job j's placement's changes, as run_ocs_rewire, busy
 * circuits being those the scheduler gave running jobs (OCS-vClos keeps them apart);
 * run_circuits_ready follows once the routes are fixed. */
int run_net_circuits(struct run *r, uint32_t j, const struct ocs_change *ch, size_t n,
		     struct diag *d);

/* Whether a reconfiguration is under way (its ports dark, its routes not yet fixed). */
bool run_ocs_pending(const struct run *r);

/* Waits for the probes under way, then writes dir/failures.csv. 0 or -errno with d set. */
int run_net_write(struct run *r, const struct wdir *dir, struct diag *d);

/* "after link l0-s1 down at 2.000 s (failures.csv): " for the latest event, if it came at or
 * after emulated time since, else "": the context of a job that stopped making progress, put
 * first in its reason so that a long message cannot cut it off. */
const char *run_net_why(const struct run *r, int64_t since, char *buf, size_t len);

/* The topology and plan the control plane has in force now (the backend's view). */
void run_net_view(const struct run *r, const struct topo **t, const struct route_plan **plan);

/* The events recorded so far (*n of them): the backend's netevs. */
const struct rec_netev *run_net_events(const struct run *r, size_t *n);

/* Internal to run_net*.c: a new row for an event at emulated time t, or NULL (ENOMEM). */
struct rec_netev *run_net_rec(struct run_net *n, int64_t t, const char *event, const char *state,
			      const char *target);
/* Two endpoints (endpoint indexes) whose paths in the current view cross a link marked in
 * aff (per link), or failing that two in different groups. false if there are none. */
bool run_net_pick(const struct run_net *n, const uint8_t *aff, uint32_t pair[2]);
/* Starts a probe between pair for row e, its time counted from t0; the row's probe fields
 * are filled when it ends (run_net_probes). */
void run_net_probe(struct run_net *n, const uint32_t pair[2], int64_t t0, struct rec_netev *e);
/* Collects the probes that ended (all of them, waiting, with wait). */
void run_net_probes(struct run_net *n, bool wait);

#endif
