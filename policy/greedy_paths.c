// SPDX-License-Identifier: MIT
/* Commodities and their tag-selectable candidate paths, traced through the routing plan as
 * the kernel forwards them (see greedy_paths.h). */
#include <errno.h>
#include <string.h>

#include "policy/greedy_paths.h"

void greedy_paths_done(struct greedy_paths *g)
{
	vec_free(&g->comms);
	vec_free(&g->cands);
	vec_free(&g->links);
	memset(g, 0, sizeof(*g));
}

static bool on_fabric(const struct topo *t, uint32_t port)
{
	return t->links.v[t->ports.v[port].link].tier != TOPO_TIER_EDGE;
}

/* The switch a path's first hop reaches (its source ToR) and the one its last leaves from. */
static void ends(const struct topo *t, const uint32_t *ports, int hops, struct greedy_comm *c)
{
	c->src_grp = t->ports.v[topo_port_peer(t, ports[0])].node;
	c->dst_grp = t->ports.v[ports[hops - 1]].node;
}

/* Candidate `tag` (0: the path the hash gives) of flow f from src: its fabric links appended;
 * the count of them, or -EINVAL (no route), -ENOMEM. */
static int add_cand(struct greedy_paths *g, const struct topo *t, const struct route_plan *plan,
		    uint32_t src, struct route_flow f, uint8_t tag, struct greedy_comm *c)
{
	uint32_t ports[ROUTE_TRACE_MAX];
	struct greedy_cand *k;
	int hops, i;

	f.tag = tag;
	hops = route_trace_ports(t, plan, src, &f, ports, ROUTE_TRACE_MAX);
	if (hops <= 0)
		return -EINVAL;
	k = vec_grow(&g->cands);
	if (!k)
		return -ENOMEM;
	k->link_off = (uint32_t)g->links.n;
	for (i = 0; i < hops; i++)
		if (on_fabric(t, ports[i]) && vec_push(&g->links, ports[i]))
			return -ENOMEM;
	k->link_n = (uint32_t)g->links.n - k->link_off;
	if (tag <= 1)
		ends(t, ports, hops, c);
	return (int)k->link_n;
}

/* A connection with paths to choose from has one candidate per tag; one with a single path
 * over the fabric (a spine left) has that one, so that it counts in the loads; one that
 * crosses no switch-to-switch link (under one ToR) has none. */
static int add_conn(struct greedy_paths *g, const struct topo *t, const struct route_plan *plan,
		    const struct greedy_conn *cn)
{
	struct route_flow f = route_job_flow(t, cn->eps, cn->job, cn->src, cn->dst);
	uint32_t src = t->endpoints.v[cn->eps[cn->src]];
	struct greedy_comm c = {.cand_off = (uint32_t)g->cands.n};
	int width = route_trace_width(t, plan, src, &f), k, r = 0;

	if (width < 0)
		return -EINVAL;
	if (width > ROUTE_TAG_MAX)
		width = ROUTE_TAG_MAX;
	if (width > 1) {
		for (k = 1; r >= 0 && k <= width; k++)
			r = add_cand(g, t, plan, src, f, (uint8_t)k, &c);
		c.cand_n = (uint32_t)width;
	} else {
		r = add_cand(g, t, plan, src, f, 0, &c);
		c.cand_n = r > 0;
		if (r == 0) /* nothing to load: take its candidate back */
			g->cands.n--;
	}
	return r < 0 ? r : vec_push(&g->comms, c);
}

int greedy_paths_build(struct greedy_paths *g, const struct topo *t, const struct route_plan *plan,
		       const struct greedy_conn *c, uint32_t n, struct diag *d)
{
	uint32_t i;
	int err = 0;

	memset(g, 0, sizeof(*g));
	for (i = 0; !err && i < n; i++)
		err = add_conn(g, t, plan, &c[i]);
	if (err == -EINVAL)
		return diag_set(d, err, "job %u: no route from rank %u to rank %u", c[i - 1].job,
				c[i - 1].src, c[i - 1].dst);
	if (err)
		return diag_set(d, err, "out of memory");
	g->in = (struct greedy_in){.comms = g->comms.v,
				   .ncomm = (uint32_t)g->comms.n,
				   .cands = g->cands.v,
				   .links = g->links.v,
				   .nlinks = (uint32_t)t->ports.n};
	return 0;
}
