/* SPDX-License-Identifier: MIT */
/* The least retransmission timeout of the endpoints' routes (the RTAX_RTO_MIN metric, `ip
 * route ... rto_min`), from the queues their paths cross. Linux arms a timeout at
 * srtt + max(4 rttvar, rto_min) with rto_min 200 ms: a queue that fills within one round trip
 * delays a segment by up to its depth in time without the estimate following, and a queue
 * deeper than 200 ms (1 MiB at 5 Mbit/s holds 1.7 s) then times out without loss, collapsing
 * the window (docs/scenario.md, `emulation.rto_min`). Pure: from the model and the shaping. */
#ifndef POLICY_ROUTE_RTO_H
#define POLICY_ROUTE_RTO_H

#include <stdint.h>

#include "lib/diag.h"
#include "model/paths.h"
#include "model/scenario.h"
#include "model/topo.h"
#include "policy/route.h"

#define ROUTE_RTO_KERNEL_MS 200 /* Linux's TCP_RTO_MIN: a route without the metric */
#define ROUTE_RTO_MAX_MS 120000 /* Linux's TCP_RTO_MAX: no timer waits longer */

/* What a full queue on one egress makes a packet wait, in ns: a data segment, and a pure ACK
 * (0 behind htb's ACK class, which serves ACKs before data: policy/shape.h). */
struct route_rto_port {
	uint64_t data_ns, ack_ns;
};

/* Every port of t under sh into out[t->ports.n] (caller's); a port shaped beyond what tbf
 * takes, which `up` refuses, counts as unshaped. */
void route_rto_ports(const struct topo *t, const struct scn_shaping *sh,
		     struct route_rto_port *out);

/* The metric for a round trip that can queue up to q_ns: whole ms rounded up, at most 120 s,
 * or 0 (keep the kernel's 200 ms) when that is no more than 200 ms. */
uint32_t route_rto_ms(uint64_t q_ns);

/* The most a round trip between endpoints a and b (node ids) can queue: the data's path from a
 * to b over the shortest path with the deepest queues (data_ns summed per hop) plus the ACKs'
 * path back (ack_ns summed). UINT64_MAX if either way is unreachable. */
uint64_t route_rto_pair(const struct topo *t, const struct topo_paths *p,
			const struct route_rto_port *q, uint32_t a, uint32_t b);

/* Sets rto_min_ms of every route of plan's endpoints as cfg says: auto, the worst
 * route_rto_pair over the endpoints the route leads to (route_rto_ms of it); a fixed time, that
 * on each; off, 0 (none). Other nodes' routes keep 0. 0 or -ENOMEM with d set. */
int route_rto_fill(const struct topo *t, const struct topo_paths *p, const struct scn_shaping *sh,
		   const struct scn_rto *cfg, struct route_plan *plan, struct diag *d);

#endif
