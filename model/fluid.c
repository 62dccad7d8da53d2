// SPDX-License-Identifier: MIT
/* Fluid all-to-all over the shortest paths (see fluid.h): per destination, flow is pushed
 * from the farthest nodes inward, each node splitting its flow equally over its next hops. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/fluid.h"

#define FLUID_MAX_NH 256

struct fluid {
	const struct topo *t;
	const struct topo_paths *p;
	double *load; /* per port: flow it sends, in units of the per-pair rate */
	double *flow; /* per node: flow at it toward the current destination */
	uint32_t *order; /* node ids, farthest from the current destination first */
	uint32_t dst; /* endpoint index */
};

static int cmp_dist(const void *a, const void *b, void *ctx)
{
	const struct fluid *f = ctx;
	uint16_t x = paths_dist(f->p, *(const uint32_t *)a, f->dst);
	uint16_t y = paths_dist(f->p, *(const uint32_t *)b, f->dst);

	return x > y ? -1 : x < y;
}

/* Every other endpoint sends one unit to endpoint dst. */
static int push(struct fluid *f)
{
	const struct topo *t = f->t;
	uint32_t ports[FLUID_MAX_NH], i, k;
	int n;

	for (i = 0; i < t->nodes.n; i++) {
		f->order[i] = i;
		f->flow[i] = t->nodes.v[i].kind == TOPO_ENDPOINT && t->endpoints.v[f->dst] != i;
	}
	qsort_r(f->order, t->nodes.n, sizeof(*f->order), cmp_dist, f);
	for (i = 0; i < t->nodes.n; i++) {
		uint32_t u = f->order[i];
		uint16_t dist = paths_dist(f->p, u, f->dst);

		if (!f->flow[u] || !dist)
			continue;
		if (dist == PATHS_INF)
			return -EINVAL;
		n = paths_nexthops(t, f->p, u, f->dst, ports, FLUID_MAX_NH);
		if (n <= 0 || n > FLUID_MAX_NH)
			return -EINVAL;
		for (k = 0; k < (uint32_t)n; k++) {
			f->load[ports[k]] += f->flow[u] / n;
			f->flow[topo_port_peer_node(t, ports[k])] += f->flow[u] / n;
		}
	}
	return 0;
}

/* The per-pair rate at which the busiest link direction is full (bit/s). */
static double pair_rate(const struct fluid *f)
{
	double lambda = -1, cap;
	size_t i;

	for (i = 0; i < f->t->ports.n; i++) {
		uint64_t rate = topo_port_rate(f->t, (uint32_t)i);

		if (!rate || f->load[i] <= 0)
			continue;
		cap = (double)rate / f->load[i];
		if (lambda < 0 || cap < lambda)
			lambda = cap;
	}
	return lambda;
}

double fluid_injection(const struct topo *t)
{
	double least = -1, sum;
	uint32_t e, i, n;

	for (e = 0; e < t->endpoints.n; e++) {
		n = t->endpoints.v[e];
		sum = 0;
		for (i = 0; i < t->nodes.v[n].nports; i++) {
			uint32_t port = topo_node_port(t, n, i);

			if (t->links.v[t->ports.v[port].link].tier != TOPO_TIER_SERVER)
				sum += (double)topo_port_rate(t, port);
		}
		if (least < 0 || sum < least)
			least = sum;
	}
	return least;
}

int fluid_alltoall(const struct topo *t, const struct topo_paths *p, double *out)
{
	struct fluid f = {.t = t, .p = p};
	double lambda, inj;
	int r = -ENOMEM;

	if (t->endpoints.n < 2)
		return -EINVAL;
	f.load = calloc(t->ports.n + 1, sizeof(*f.load));
	f.flow = calloc(t->nodes.n, sizeof(*f.flow));
	f.order = calloc(t->nodes.n, sizeof(*f.order));
	if (f.load && f.flow && f.order)
		r = 0;
	for (f.dst = 0; !r && f.dst < t->endpoints.n; f.dst++)
		r = push(&f);
	if (!r) {
		lambda = pair_rate(&f);
		inj = fluid_injection(t);
		r = lambda > 0 && inj > 0 ? 0 : -EINVAL;
		if (!r)
			*out = (double)(t->endpoints.n - 1) * lambda / inj;
	}
	free(f.load);
	free(f.flow);
	free(f.order);
	return r;
}
