// SPDX-License-Identifier: MIT
/* A job's connections in the virtual-time backend: each one's path as the kernel would forward
 * it, its latency, and where each rank sits among its peers' peers (see exec_int.h). */
#include <errno.h>
#include <string.h>

#include "sim/exec_int.h"

static int64_t path_delay(const struct sim_exec *x, const uint32_t *ports, int hops)
{
	int64_t ns = 0;
	int i;

	for (i = 0; i < hops; i++)
		ns += (int64_t)x->t->links.v[x->t->ports.v[ports[i]].link].delay_ns;
	return ns;
}

/* Appends a path of hops ports to j->paths (hop count first); its offset in *at. */
static int path_add(struct sim_job *j, const uint32_t *ports, uint32_t hops, uint32_t *at)
{
	if (vec_reserve(&j->paths, j->paths.n + (size_t)hops + 1))
		return -ENOMEM;
	*at = (uint32_t)j->paths.n;
	j->paths.v[j->paths.n++] = hops;
	memcpy(j->paths.v + j->paths.n, ports, (size_t)hops * sizeof(*ports));
	j->paths.n += hops;
	return 0;
}

/* Connection ch of rank k toward its peer of index i: its flow, as the kernel hashes it. */
static struct route_flow conn_flow(const struct sim_exec *x, const struct sim_job *j, uint32_t k,
				   uint32_t i, uint32_t ch)
{
	const struct sim_rank *rk = &j->ranks[k];
	uint32_t peer = rk->plan.peers[i];
	struct route_flow f = ch ? route_job_flow_chan(x->t, j->eps, j->id, k, peer, ch)
				 : route_job_flow_port(x->t, j->eps, j->id, k, peer, rk->sport[i]);

	f.tag = rk->tag[i];
	return f;
}

int sim_trace_paths(const struct sim_exec *x, struct sim_job *j, const uint32_t *old,
		    struct diag *d)
{
	uint32_t ports[SIM_PATH_MAX], k, i, c, src;
	int hops;

	for (k = 0; k < j->nranks; k++) {
		struct sim_rank *rk = &j->ranks[k];

		for (i = 0; i < rk->plan.npeers * j->chans; i++) {
			struct route_flow f = conn_flow(x, j, k, i / j->chans, i % j->chans);
			const uint32_t *use = ports;

			src = x->t->endpoints.v[j->eps[k]];
			hops = route_trace_ports(x->t, x->plan, src, &f, ports, SIM_PATH_MAX);
			c = rk->plan.peers[i / j->chans];
			if (hops <= 0 && !old)
				return diag_set(d, -EINVAL, "job %u: no route from %s to %s", j->id,
						x->t->nodes.v[src].name,
						x->t->nodes.v[x->t->endpoints.v[j->eps[c]]].name);
			if (hops <= 0) {
				use = old + rk->path[i] + 1;
				hops = (int)old[rk->path[i]];
			}
			rk->lat[i] = path_delay(x, use, hops);
			if (path_add(j, use, (uint32_t)hops, &rk->path[i]))
				return diag_set(d, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

int sim_link_peers(struct sim_job *j, struct diag *d)
{
	uint32_t k, i, peer;
	int b;

	for (k = 0; k < j->nranks; k++) {
		for (i = 0; i < j->ranks[k].plan.npeers; i++) {
			peer = j->ranks[k].plan.peers[i];
			b = coll_plan_peer(&j->ranks[peer].plan, k);
			if (b < 0)
				return diag_set(
					d, -EPROTO,
					"job %u: rank %u exchanges data with rank %u, which "
					"has no step with it",
					j->id, k, peer);
			j->ranks[k].back[i] = (uint32_t)b;
		}
	}
	return 0;
}
