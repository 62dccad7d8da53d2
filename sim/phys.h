/* SPDX-License-Identifier: MIT */
/* Internal to sim/net.c: the flow model checks its own physics (sim/net.h, sim_net.breach).
 * Each link direction's load, the sum of the rates of the flows crossing it (each at its
 * share under spraying), is kept as rates change and checked against what it can carry. */
#ifndef SIM_PHYS_H
#define SIM_PHYS_H

#include <stdint.h>

#include "sim/net.h"

/* How far a load may pass its link's capacity, relative to the capacity, before it is a
 * breach: floating point only. A load sums at most a few 10^5 rates, each set by
 * progressive filling from the capacity in a few roundings of 1.1e-16, so honest loads stay
 * within about 1e-11 of it; the smallest real breach, one flow over its share among 10^5,
 * is 1e-5 of it. 1e-9 sits between with room both ways. */
#define SIM_PHYS_TOL 1e-9

/* Adds (sign 1) or takes away (sign -1) flow f's rate to or from the load of each link it
 * crosses, as it joins or leaves them. Only under a quantum: without one, every change is
 * refilled, and the loads it reached summed anew, before the clock moves on, and nothing
 * reads a load in between. */
static inline void sim_phys_flow(struct sim_net *s, const struct sim_flow *f, double sign)
{
	uint32_t h;

	if (s->unchecked || s->quantum <= 0 || f->rate == 0) /* started: sends nothing yet */
		return;
	for (h = 0; h < f->hops; h++)
		s->links.v[f->path[h]].load += sign * (f->w ? f->rate * f->w[h] : f->rate);
}

/* After a refill: the load of every link it reached (s->comp_links, whose loads gather set
 * to 0; s->comp_flows holds every flow on them) summed anew from its flows' rates and
 * checked. 0 or -EFAULT with s->breach set. */
int sim_phys_refilled(struct sim_net *s);

/* Before the clock moves on with the refill deferred by the quantum: every link changed
 * since (s->dirty, from s->dirty_checked on) checked at the load it carries meanwhile. 0 or
 * -EFAULT with s->breach set. */
int sim_phys_pending(struct sim_net *s);

#endif
