// SPDX-License-Identifier: MIT
/* What per-flow ECMP leaves of an all-to-all (see route.h, route_alltoall_hashed and
 * route_alltoall_conns): each ordered pair one flow per channel, with a random source port or
 * the one emu-node will bind, walked through the plan as the kernel hashes it; the busiest link
 * direction then bounds every pair's rate. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "model/fluid.h"
#include "policy/route.h"
#include "traffic/sport.h"

#define LOAD_MAX_HOPS 64

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

/* Adds w to load[] along the path of flow f from endpoint node src. */
static int add_flow(const struct topo *t, const struct route_plan *plan, uint32_t src,
		    const struct route_flow *f, double w, double *load)
{
	uint32_t hops[LOAD_MAX_HOPS];
	int n, i;

	n = route_trace(t, plan, src, f, hops, LOAD_MAX_HOPS);
	if (n < 0)
		return -EINVAL;
	for (i = 0; i + 1 < n; i++)
		load[port_to(t, hops[i], hops[i + 1])] += w;
	return 0;
}

/* One draw: `channels` flows per ordered pair, each with a random source port. */
static int draw(const struct topo *t, const struct route_plan *plan, uint32_t channels,
		uint64_t *rng, double *load)
{
	uint32_t a, b, c;
	int r = 0;

	for (a = 0; !r && a < t->endpoints.n; a++) {
		for (b = 0; !r && b < t->endpoints.n; b++) {
			for (c = 0; !r && a != b && c < channels; c++) {
				struct route_flow f = {
					.saddr = t->nodes.v[t->endpoints.v[a]].addr,
					.daddr = t->nodes.v[t->endpoints.v[b]].addr,
					.sport = (uint16_t)(32768 + rng_next(rng) % 28232),
					.dport = FLOW_DPORT,
					.proto = 6};

				r = add_flow(t, plan, t->endpoints.v[a], &f, 1.0 / channels, load);
			}
		}
	}
	return r;
}

/* (N-1) lambda / injection, lambda the pair rate that fills the busiest link direction. */
static double fraction_of(const struct topo *t, const double *load, uint32_t nranks)
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
	return (double)(nranks - 1) * lambda / fluid_injection(t);
}

static double fraction(const struct topo *t, const double *load)
{
	return fraction_of(t, load, (uint32_t)t->endpoints.n);
}

int route_alltoall_hashed(const struct topo *t, const struct route_plan *plan, uint32_t trials,
			  uint64_t seed, uint32_t channels, struct route_a2a_bound *out)
{
	double *load = calloc(t->ports.n + 1, sizeof(*load)), f;
	uint32_t k;
	int r = load ? 0 : -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!r && (t->endpoints.n < 2 || !trials || !channels || fluid_injection(t) <= 0))
		r = -EINVAL;
	for (k = 0; !r && k < trials; k++) {
		memset(load, 0, t->ports.n * sizeof(*load));
		r = draw(t, plan, channels, &seed, load);
		f = r ? 0 : fraction(t, load);
		out->mean += f / trials;
		out->min = !k || f < out->min ? f : out->min;
		out->max = f > out->max ? f : out->max;
	}
	free(load);
	return r;
}

int route_alltoall_conn_loads(const struct topo *t, const struct route_plan *plan,
			      const uint32_t *eps, uint32_t n, uint32_t job, uint32_t channels,
			      double *load)
{
	uint32_t a, b, c;
	int r = 0;

	memset(load, 0, t->ports.n * sizeof(*load));
	if (n < 2 || !channels)
		return -EINVAL;
	for (a = 0; !r && a < n; a++) {
		for (b = 0; !r && b < n; b++) {
			for (c = 0; !r && a != b && c < channels; c++) {
				struct route_flow f = route_job_flow_chan(t, eps, job, a, b, c);

				r = add_flow(t, plan, t->endpoints.v[eps[a]], &f, 1.0 / channels,
					     load);
			}
		}
	}
	return r;
}

int route_alltoall_conns(const struct topo *t, const struct route_plan *plan, const uint32_t *eps,
			 uint32_t n, uint32_t job, uint32_t channels, double *out)
{
	double *load = calloc(t->ports.n + 1, sizeof(*load));
	int r = load ? 0 : -ENOMEM;

	*out = 0;
	if (!r && fluid_injection(t) <= 0)
		r = -EINVAL;
	if (!r)
		r = route_alltoall_conn_loads(t, plan, eps, n, job, channels, load);
	if (!r)
		*out = fraction_of(t, load, n);
	free(load);
	return r;
}
