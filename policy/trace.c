// SPDX-License-Identifier: MIT
/* Follows a flow through the routing plan the way the kernel forwards it, so users (and
 * tests) can ask which path a 5-tuple takes: `testbed path`. */
#include <errno.h>
#include <stdlib.h>

#include "policy/route.h"
#include "traffic/sport.h"

static bool prefix_has(const struct route_prefix *p, uint32_t a)
{
	uint32_t mask = p->plen ? ~0u << (32 - p->plen) : 0;

	return (a & mask) == (p->addr & mask);
}

static bool is_edge(const struct route_plan *plan, uint32_t node, uint32_t port)
{
	const struct route_node *rn = &plan->nodes.v[node];
	uint32_t i;

	for (i = 0; i < rn->edge_n; i++)
		if (plan->ports.v[rn->edge_off + i] == port)
			return true;
	return false;
}

/* The first hash group on a walk where a tag would be honoured: its member count and index
 * into plan->groups (width 0: none met yet). */
struct choice {
	uint32_t width, group;
};

/* The nft stage: a group whose prefixes hold daddr picks a member by tag or hash. Where a
 * tag would be honoured, *ch (if not yet set) gets the group. A spraying group that no tag
 * overrides is returned in *spray (its packets take any member; the hash's is returned). */
static uint32_t group_pick(const struct route_plan *plan, uint32_t node, const struct route_flow *f,
			   bool tag_ok, struct choice *ch, const struct route_group **spray)
{
	const struct route_node *rn = &plan->nodes.v[node];
	uint32_t g, i, idx;

	*spray = NULL;
	for (g = rn->group_off; g < rn->group_off + rn->group_n; g++) {
		const struct route_group *grp = &plan->groups.v[g];

		for (i = 0; i < grp->pfx_n; i++)
			if (prefix_has(&plan->prefixes.v[grp->pfx_off + i], f->daddr))
				break;
		if (i == grp->pfx_n)
			continue;
		if (tag_ok && !ch->width)
			*ch = (struct choice){grp->nh_n, g};
		if (tag_ok && f->tag && f->tag <= grp->nh_n) {
			idx = f->tag - 1u;
		} else {
			idx = route_hash_pick(f, grp->seed, grp->nh_n);
			if (grp->spray)
				*spray = grp;
		}
		return plan->ports.v[grp->nh_off + idx];
	}
	return TOPO_NONE;
}

/* The main table: longest prefix match. */
static uint32_t main_pick(const struct route_plan *plan, uint32_t node, uint32_t daddr)
{
	const struct route_node *rn = &plan->nodes.v[node];
	uint32_t i, best = TOPO_NONE;
	int best_len = -1;

	for (i = rn->route_off; i < rn->route_off + rn->route_n; i++) {
		const struct route_entry *re = &plan->routes.v[i];

		if (re->table != ROUTE_TABLE_MAIN || !prefix_has(&re->dst, daddr) ||
		    re->dst.plen <= best_len)
			continue;
		best_len = re->dst.plen;
		best = plan->ports.v[re->nh_off];
	}
	return best;
}

/* The walk behind both: the nodes visited (src first) into nodes, or the ports left through
 * into ports (one fewer), whichever is not NULL; at most max entries. */
static int walk(const struct topo *t, const struct route_plan *plan, uint32_t src,
		const struct route_flow *f, uint32_t *nodes, uint32_t *ports, uint32_t max,
		struct choice *ch)
{
	uint32_t node = src, in_port = TOPO_NONE, n = 0, port;
	const struct route_group *spray;

	for (;;) {
		bool local = in_port == TOPO_NONE;

		if (nodes && n == max)
			return -ELOOP;
		if (nodes)
			nodes[n] = node;
		if (t->nodes.v[node].kind == TOPO_ENDPOINT && t->nodes.v[node].addr == f->daddr)
			return (int)n + !!nodes;
		if (!nodes && n == max)
			return -ELOOP;
		if (!local && !t->nodes.v[node].forwards)
			return -EHOSTUNREACH;
		port = group_pick(plan, node, f, local || is_edge(plan, node, in_port), ch, &spray);
		if (port == TOPO_NONE)
			port = main_pick(plan, node, f->daddr);
		if (port == TOPO_NONE)
			return -EHOSTUNREACH;
		if (ports)
			ports[n] = port;
		n++;
		in_port = topo_port_peer(t, port);
		node = t->ports.v[in_port].node;
	}
}

int route_trace(const struct topo *t, const struct route_plan *plan, uint32_t src,
		const struct route_flow *f, uint32_t *hops, uint32_t max)
{
	struct choice ch = {0, 0};

	return walk(t, plan, src, f, hops, NULL, max, &ch);
}

int route_trace_ports(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f, uint32_t *ports, uint32_t max)
{
	struct choice ch = {0, 0};

	return walk(t, plan, src, f, NULL, ports, max, &ch);
}

int route_trace_width(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f)
{
	uint32_t ports[ROUTE_TRACE_MAX];
	struct choice ch = {0, 0};
	int r = walk(t, plan, src, f, NULL, ports, ROUTE_TRACE_MAX, &ch);

	return r < 0 ? r : (int)ch.width;
}

int route_trace_group(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f)
{
	uint32_t ports[ROUTE_TRACE_MAX];
	struct choice ch = {0, 0};
	int r = walk(t, plan, src, f, NULL, ports, ROUTE_TRACE_MAX, &ch);

	if (r < 0)
		return r;
	return ch.width ? (int)ch.group : -ENOENT;
}

int route_split_init(struct route_split *s, const struct topo *t, uint32_t max)
{
	size_t n = 2 * t->ports.n;

	memset(s, 0, sizeof(*s));
	s->out = malloc(((size_t)max + 1) * sizeof(*s->out));
	s->at = malloc((n + 1) * sizeof(*s->at));
	s->walk = malloc((2 * (size_t)max + 1) * sizeof(*s->walk));
	if (!s->out || !s->at || !s->walk)
		return -ENOMEM;
	memset(s->at, 0xff, n * sizeof(*s->at));
	s->max = max;
	s->nports = (uint32_t)t->ports.n;
	return 0;
}

void route_split_done(struct route_split *s)
{
	free(s->out);
	free(s->at);
	free(s->walk);
	memset(s, 0, sizeof(*s));
}

/* One split walk's state: the shares so far and the next step's arrivals. */
struct split_walk {
	struct route_split *s;
	uint32_t nout, nnext;
	struct route_split_at *next;
};

/* Adds mass leaving through port to the shares (each port once) and to the next step's
 * states (each arrival once; at most one per port out, so fewer than max). */
static int split_emit(const struct topo *t, struct split_walk *k, uint32_t port, double mass)
{
	uint32_t in = topo_port_peer(t, port);
	uint32_t *o = &k->s->at[2 * port], *a = &k->s->at[2 * in + 1];

	if (*o == UINT32_MAX) {
		if (k->nout == k->s->max)
			return -E2BIG;
		*o = k->nout;
		k->s->out[k->nout++] = (struct route_share){port, 0};
	}
	k->s->out[*o].w += mass;
	if (*a == UINT32_MAX) {
		*a = k->nnext;
		k->next[k->nnext++] = (struct route_split_at){t->ports.v[in].node, in, 0};
	}
	k->next[*a].mass += mass;
	return 0;
}

/* One step of the split walk: every state of cur forwards its mass into k->next. */
static int split_step(const struct topo *t, const struct route_plan *plan,
		      const struct route_flow *f, const struct route_split_at *cur, uint32_t ncur,
		      struct split_walk *k)
{
	struct choice ch = {0, 0};
	uint32_t i, m, port;
	int r = 0;

	k->nnext = 0;
	for (i = 0; !r && i < ncur; i++) {
		const struct topo_node *nd = &t->nodes.v[cur[i].node];
		bool local = cur[i].in_port == TOPO_NONE;
		const struct route_group *spray;

		if (nd->kind == TOPO_ENDPOINT && nd->addr == f->daddr)
			continue; /* arrived */
		if (!local && !nd->forwards)
			return -EHOSTUNREACH;
		port = group_pick(plan, cur[i].node, f,
				  local || is_edge(plan, cur[i].node, cur[i].in_port), &ch, &spray);
		if (port == TOPO_NONE)
			port = main_pick(plan, cur[i].node, f->daddr);
		if (port == TOPO_NONE)
			return -EHOSTUNREACH;
		for (m = 0; spray && !r && m < spray->nh_n; m++)
			r = split_emit(t, k, plan->ports.v[spray->nh_off + m],
				       cur[i].mass / spray->nh_n);
		if (!spray)
			r = split_emit(t, k, port, cur[i].mass);
	}
	return r;
}

int route_trace_split(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f, struct route_split *s)
{
	struct route_split_at *cur = s->walk, *x;
	struct split_walk k = {.s = s, .next = s->walk + s->max};
	uint32_t ncur = 1, depth, i;
	int r = 0;

	cur[0] = (struct route_split_at){src, TOPO_NONE, 1};
	for (depth = 0; !r && ncur; depth++) {
		if (depth > ROUTE_TRACE_MAX) {
			r = -ELOOP;
			break;
		}
		r = split_step(t, plan, f, cur, ncur, &k);
		for (i = 0; i < k.nnext; i++) /* the arrivals' slots, for the next step */
			s->at[2 * k.next[i].in_port + 1] = UINT32_MAX;
		x = cur;
		cur = k.next;
		k.next = x;
		ncur = k.nnext;
	}
	for (i = 0; i < k.nout; i++)
		s->at[2 * s->out[i].port] = UINT32_MAX;
	return r ? r : (int)k.nout;
}

struct route_flow route_job_flow_port(const struct topo *t, const uint32_t *eps, uint32_t job,
				      uint32_t a, uint32_t b, uint16_t sport)
{
	struct route_flow f = {.saddr = t->nodes.v[t->endpoints.v[eps[a]]].addr,
			       .daddr = t->nodes.v[t->endpoints.v[eps[b]]].addr,
			       .proto = 6};

	if (!sport)
		sport = flow_sport(job, a < b ? a : b, a < b ? b : a, 0);
	f.sport = a < b ? sport : FLOW_DPORT;
	f.dport = a < b ? FLOW_DPORT : sport;
	return f;
}

struct route_flow route_job_flow(const struct topo *t, const uint32_t *eps, uint32_t job,
				 uint32_t a, uint32_t b)
{
	return route_job_flow_port(t, eps, job, a, b, 0);
}

struct route_flow route_job_flow_chan(const struct topo *t, const uint32_t *eps, uint32_t job,
				      uint32_t a, uint32_t b, uint32_t chan)
{
	uint16_t sport = flow_sport_chan(job, a < b ? a : b, a < b ? b : a, chan, 0);

	return route_job_flow_port(t, eps, job, a, b, sport);
}
