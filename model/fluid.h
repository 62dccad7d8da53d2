/* SPDX-License-Identifier: MIT */
/* Fluid (flow-level) predictions over the shortest paths: what a topology delivers for a
 * traffic pattern when every node splits what it forwards equally over its next hops, the
 * limit of per-packet spraying. Pure. */
#ifndef MODEL_FLUID_H
#define MODEL_FLUID_H

#include "model/paths.h"
#include "model/topo.h"

/* All-to-all: every endpoint sends the same rate to every other at once (HammingMesh §V-A1
 * simulates it; ours is a fluid model). Writes the largest such per-endpoint send rate as a
 * fraction of the endpoint's injection bandwidth (the sum of its ports' rates, intra-server
 * links left out), the least over endpoints, into *out: (N-1) lambda / injection, lambda the
 * per-pair rate at which the busiest link direction is full. Unshaped links never limit.
 * 0, -EINVAL (fewer than two endpoints, or one cannot reach another) or -ENOMEM. */
int fluid_alltoall(const struct topo *t, const struct topo_paths *p, double *out);

/* The least injection bandwidth of an endpoint: the sum of its ports' rates, intra-server
 * links left out (bit/s; -1 without endpoints). */
double fluid_injection(const struct topo *t);

#endif
