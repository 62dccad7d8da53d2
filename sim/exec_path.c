// SPDX-License-Identifier: MIT
/* A job's connections in the virtual-time backend: each one's path as the kernel would forward
 * it, its latency, and where each rank sits among its peers' peers (see exec_int.h). */
#include <errno.h>
#include <stdbool.h>
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

/* Appends a path of hops ports to j->paths (hop count first), and when split their shares w
 * to j->wts at the same places; its offset in *at. */
static int path_add(struct sim_job *j, const uint32_t *ports, const double *w, bool split,
		    uint32_t hops, uint32_t *at)
{
	size_t n = j->paths.n;
	uint32_t h;

	if (vec_reserve(&j->paths, n + (size_t)hops + 1) ||
	    (split && vec_reserve(&j->wts, n + (size_t)hops + 1)))
		return -ENOMEM;
	*at = (uint32_t)n;
	j->paths.v[n] = hops;
	memcpy(j->paths.v + n + 1, ports, (size_t)hops * sizeof(*ports));
	j->paths.n = n + hops + 1;
	if (split) { /* every path has shares then, 1 where none were given */
		j->wts.v[n] = 0;
		for (h = 0; h < hops; h++)
			j->wts.v[n + 1 + h] = w ? w[h] : 1;
		j->wts.n = j->paths.n;
	}
	return 0;
}

/* Whether any switch of t sprays (routing.spray): then paths are split. */
static bool sprays(const struct topo *t)
{
	size_t i;

	for (i = 0; i < t->nodes.n; i++)
		if (t->nodes.v[i].spray)
			return true;
	return false;
}

/* Connection f's split from src into ports and w (SIM_SPLIT_MAX each): the count, or what
 * route_trace_split returns. */
static int split(const struct sim_exec *x, struct route_split *sp, uint32_t src,
		 const struct route_flow *f, uint32_t *ports, double *w)
{
	int n = route_trace_split(x->t, x->plan, src, f, sp), i;

	for (i = 0; i < n; i++) {
		ports[i] = sp->out[i].port;
		w[i] = sp->out[i].w;
	}
	return n;
}

/* Connection ch of rank k toward its peer of index i: its flow, as the kernel hashes it. */
static struct route_flow conn_flow(const struct sim_exec *x, const struct sim_job *j, uint32_t k,
				   uint32_t i, uint32_t ch)
{
	const struct sim_rank *rk = &j->ranks[k];
	uint32_t peer = rk->plan.peers[i];
	struct route_flow f =
		ch ? route_job_flow_chan(x->t, j->eps, j->id, k, peer, ch)
		   : route_job_flow_port(x->t, j->eps, j->id, k, peer, rk->pr[i].sport);

	f.tag = rk->pr[i].tag;
	return f;
}

int sim_trace_paths(const struct sim_exec *x, struct sim_job *j, const uint32_t *old,
		    const double *oldw, struct diag *d)
{
	static _Thread_local uint32_t ports[SIM_SPLIT_MAX];
	static _Thread_local double w[SIM_SPLIT_MAX];
	uint32_t hashed[SIM_PATH_MAX], k, i, c, src;
	bool spray = sprays(x->t);
	struct route_split sp = {0};
	int hops, nh, r = 0;

	if (spray && route_split_init(&sp, x->t, SIM_SPLIT_MAX))
		r = diag_set(d, -ENOMEM, "out of memory");
	for (k = 0; !r && k < j->nranks; k++) {
		struct sim_rank *rk = &j->ranks[k];

		for (i = 0; !r && i < rk->plan.npeers * j->chans; i++) {
			struct route_flow f = conn_flow(x, j, k, i / j->chans, i % j->chans);
			const uint32_t *use = spray ? ports : hashed;
			const double *usew = w;

			src = x->t->endpoints.v[j->eps[k]];
			nh = route_trace_ports(x->t, x->plan, src, &f, hashed, SIM_PATH_MAX);
			hops = !spray || nh <= 0 ? nh : split(x, &sp, src, &f, ports, w);
			c = rk->plan.peers[i / j->chans];
			if (hops == -E2BIG) {
				r = diag_set(d, hops,
					     "job %u: a sprayed path from %s crosses more than "
					     "%d links",
					     j->id, x->t->nodes.v[src].name, SIM_SPLIT_MAX);
				break;
			}
			if (hops <= 0 && !old) {
				r = diag_set(d, -EINVAL, "job %u: no route from %s to %s", j->id,
					     x->t->nodes.v[src].name,
					     x->t->nodes.v[x->t->endpoints.v[j->eps[c]]].name);
				break;
			}
			if (hops <= 0) { /* stalls on its old path, whose latency it keeps */
				use = old + rk->path[i] + 1;
				usew = oldw ? oldw + rk->path[i] + 1 : NULL;
				hops = (int)old[rk->path[i]];
			} else { /* latency: the path a hash would take (spraying's are alike) */
				rk->lat[i] = path_delay(x, hashed, nh);
			}
			if (path_add(j, use, usew, spray, (uint32_t)hops, &rk->path[i]))
				r = diag_set(d, -ENOMEM, "out of memory");
		}
	}
	route_split_done(&sp);
	return r;
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
			j->ranks[k].pr[i].back = (uint32_t)b;
		}
	}
	return 0;
}
