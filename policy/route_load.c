// SPDX-License-Identifier: MIT
/* What per-flow ECMP leaves of an all-to-all (see route.h, route_alltoall_hashed): each
 * ordered pair one flow with a random source port, walked through the plan as the kernel
 * hashes it, and the busiest link direction then bounds every pair's rate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "model/fluid.h"
#include "policy/route.h"

#define LOAD_MAX_HOPS 64
#define LOAD_DPORT 7001 /* emu-node's listening port */

/* The port of node a whose link leads to node b (the first, if links are parallel). */
static uint32_t port_to(const struct topo *t, uint32_t a, uint32_t b)
{
	uint32_t i, p;

	for (i = 0; i < t->nodes.v[a].nports; i++) {
		p = topo_node_port(t, a, i);
		if (topo_port_peer_node(t, p) == b)
			return p;
	}
	return TOPO_NONE;
}

/* One draw: adds one unit per flow to load[] along its path. */
static int draw(const struct topo *t, const struct route_plan *plan, uint64_t *rng, double *load)
{
	uint32_t hops[LOAD_MAX_HOPS], a, b;
	int n, i;

	for (a = 0; a < t->endpoints.n; a++) {
		for (b = 0; b < t->endpoints.n; b++) {
			struct route_flow f = {.saddr = t->nodes.v[t->endpoints.v[a]].addr,
					       .daddr = t->nodes.v[t->endpoints.v[b]].addr,
					       .sport = (uint16_t)(32768 + rng_next(rng) % 28232),
					       .dport = LOAD_DPORT,
					       .proto = 6};

			if (a == b)
				continue;
			n = route_trace(t, plan, t->endpoints.v[a], &f, hops, LOAD_MAX_HOPS);
			if (n < 0)
				return -EINVAL;
			for (i = 0; i + 1 < n; i++)
				load[port_to(t, hops[i], hops[i + 1])] += 1;
		}
	}
	return 0;
}

/* (N-1) lambda / injection, lambda the pair rate that fills the busiest link direction. */
static double fraction(const struct topo *t, const double *load)
{
	double lambda = -1, cap;
	size_t i;

	for (i = 0; i < t->ports.n; i++) {
		if (load[i] <= 0 || !topo_port_rate(t, (uint32_t)i))
			continue;
		cap = (double)topo_port_rate(t, (uint32_t)i) / load[i];
		if (lambda < 0 || cap < lambda)
			lambda = cap;
	}
	return (double)(t->endpoints.n - 1) * lambda / fluid_injection(t);
}

int route_alltoall_hashed(const struct topo *t, const struct route_plan *plan, uint32_t trials,
			  uint64_t seed, struct route_a2a_bound *out)
{
	double *load = calloc(t->ports.n + 1, sizeof(*load)), f;
	uint32_t k;
	int r = load ? 0 : -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!r && (t->endpoints.n < 2 || !trials || fluid_injection(t) <= 0))
		r = -EINVAL;
	for (k = 0; !r && k < trials; k++) {
		memset(load, 0, t->ports.n * sizeof(*load));
		r = draw(t, plan, &seed, load);
		f = r ? 0 : fraction(t, load);
		out->mean += f / trials;
		out->min = !k || f < out->min ? f : out->min;
		out->max = f > out->max ? f : out->max;
	}
	free(load);
	return r;
}
