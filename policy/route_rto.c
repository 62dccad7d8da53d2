// SPDX-License-Identifier: MIT
/* The endpoints' per-route rto_min (route_rto.h): per destination, the deepest queueing of any
 * shortest path toward it from every node, a walk down the hop distances; a route's value is
 * the worst round trip to the endpoints it leads to. Summed over the hops, not the deepest
 * hop alone: in a direct exchange every sender's own egress and the switch port toward a busy
 * receiver fill together, and a round trip whose segment waits in both outlasts a timer set
 * for one. Most scenarios queue far less than 200 ms on any path and are settled by a bound
 * before any walk (the deepest queue times the longest path: 1,024 endpoints walked cost
 * seconds). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy/route_rto.h"
#include "policy/shape.h"

#define NONE UINT64_MAX /* unreachable */

void route_rto_ports(const struct topo *t, const struct scn_shaping *sh, struct route_rto_port *out)
{
	struct shape_params sp;
	uint32_t p;

	for (p = 0; p < t->ports.n; p++) {
		const struct topo_link *l = &t->links.v[t->ports.v[p].link];

		out[p] = (struct route_rto_port){0, 0};
		/* a rate tbf cannot take: `up` refuses the file with its own message */
		if (shape_derive(topo_port_rate(t, p), l->delay_ns, sh, &sp, NULL) ||
		    sp.kind == SHAPE_NONE || !sp.rate_bps)
			continue;
		out[p].data_ns = (uint64_t)((double)sp.limit * 8e9 / (double)sp.rate_bps);
		out[p].ack_ns = sp.kind == SHAPE_HTB && sp.ack_prio ? 0 : out[p].data_ns;
	}
}

uint32_t route_rto_ms(uint64_t q_ns)
{
	uint64_t ms = q_ns / 1000000 + (q_ns % 1000000 != 0);

	if (ms <= ROUTE_RTO_KERNEL_MS)
		return 0;
	return ms > ROUTE_RTO_MAX_MS ? ROUTE_RTO_MAX_MS : (uint32_t)ms;
}

/* Whether port leads node n one hop closer to endpoint ep (paths_nexthops' rule); peer[p] is
 * the node port p leads to, TOPO_NONE over a link that is down. */
static bool leads(const struct topo *t, const struct topo_paths *p, const uint32_t *peer,
		  uint32_t n, uint32_t port, uint32_t ep)
{
	uint32_t v = peer[port];
	uint16_t dn = paths_dist(p, n, ep);

	return v != TOPO_NONE && dn != PATHS_INF && paths_dist(p, v, ep) + 1 == dn &&
	       (v == t->endpoints.v[ep] || t->nodes.v[v].forwards);
}

/* The deepest queueing toward one endpoint from every node, memoized: ports weighed by w,
 * peer[] as leads() takes it. */
struct walk {
	const struct topo *t;
	const struct topo_paths *p;
	const uint32_t *peer;
	const uint64_t *w;
	uint32_t ep, dst; /* its endpoint index and node */
	uint64_t *val;
	uint8_t *done;
};

static bool closer(const struct walk *w, uint32_t n, uint32_t port)
{
	return leads(w->t, w->p, w->peer, n, port, w->ep);
}

static uint64_t deepest(struct walk *w, uint32_t n)
{
	const struct topo_node *node = &w->t->nodes.v[n];
	uint64_t best = NONE, x;
	uint32_t i, port;

	if (n == w->dst)
		return 0;
	if (w->done[n])
		return w->val[n];
	for (i = 0; i < node->nports; i++) {
		port = topo_node_port(w->t, n, i);
		x = closer(w, n, port) ? deepest(w, w->peer[port]) : NONE;
		if (x == NONE)
			continue;
		x += w->w[port];
		best = best == NONE || x > best ? x : best;
	}
	w->done[n] = 1;
	w->val[n] = best;
	return best;
}

/* A fresh walk toward endpoint ep weighed by wt (its scratch kept). */
static void walk_to(struct walk *w, uint32_t ep, const uint64_t *wt)
{
	w->ep = ep;
	w->dst = w->t->endpoints.v[ep];
	w->w = wt;
	memset(w->done, 0, w->t->nodes.n);
}

/* The scratch, and per port its peer and both weights (data: w[0..P), ACKs: w[P..2P)). */
struct rto_scratch {
	uint32_t *peer;
	uint64_t *w;
	uint64_t *val;
	uint8_t *done;
};

static void scratch_done(struct rto_scratch *s)
{
	free(s->peer);
	free(s->w);
	free(s->val);
	free(s->done);
}

static int scratch_init(struct rto_scratch *s, const struct topo *t, const struct route_rto_port *q)
{
	size_t np = t->ports.n, p;

	s->peer = malloc(np * sizeof(*s->peer) + 1);
	s->w = malloc(2 * np * sizeof(*s->w) + 1);
	s->val = malloc(t->nodes.n * sizeof(*s->val) + 1);
	s->done = malloc(t->nodes.n + 1);
	if (!s->peer || !s->w || !s->val || !s->done)
		return -ENOMEM;
	for (p = 0; p < np; p++) {
		s->peer[p] = t->links.v[t->ports.v[p].link].up ? topo_port_peer_node(t, (uint32_t)p)
							       : TOPO_NONE;
		s->w[p] = q[p].data_ns;
		s->w[np + p] = q[p].ack_ns;
	}
	return 0;
}

static void walk_init(struct walk *w, const struct topo *t, const struct topo_paths *p,
		      const struct rto_scratch *s)
{
	*w = (struct walk){.t = t, .p = p, .peer = s->peer, .val = s->val, .done = s->done};
}

uint64_t route_rto_pair(const struct topo *t, const struct topo_paths *p,
			const struct route_rto_port *q, uint32_t a, uint32_t b)
{
	struct rto_scratch s = {0};
	uint64_t fwd = NONE, rev = NONE;
	struct walk w;

	if (!scratch_init(&s, t, q)) {
		walk_init(&w, t, p, &s);
		walk_to(&w, t->nodes.v[b].ep, s.w);
		fwd = deepest(&w, a);
		walk_to(&w, t->nodes.v[a].ep, s.w + t->ports.n);
		rev = deepest(&w, b);
	}
	scratch_done(&s);
	return fwd == NONE || rev == NONE ? NONE : fwd + rev;
}

/* At least what any round trip can queue: the longest path between endpoints, both ways, at
 * the deepest queue of each kind. */
static uint64_t bound(const struct topo *t, const struct topo_paths *p,
		      const struct route_rto_port *q)
{
	uint64_t data = 0, ack = 0;
	uint32_t e, f, hops = 0;
	uint16_t d;

	for (e = 0; e < t->ports.n; e++) {
		data = q[e].data_ns > data ? q[e].data_ns : data;
		ack = q[e].ack_ns > ack ? q[e].ack_ns : ack;
	}
	for (e = 0; e < t->endpoints.n; e++)
		for (f = 0; f < t->endpoints.n; f++) {
			d = paths_dist(p, t->endpoints.v[f], e);
			hops = d != PATHS_INF && d > hops ? d : hops;
		}
	return (uint64_t)hops * (data + ack);
}

/* Round trips: rtt[s * E + x] = the data's deepest queueing from endpoint s to x plus the
 * ACKs' from x back to s (NONE if either is unreachable). With no queue delaying an ACK (htb's
 * ACK class, the default) the ACKs' walks are skipped. */
static void round_trips(struct walk *w, const uint64_t *data, const uint64_t *ack, bool no_ack,
			uint64_t *rtt)
{
	const struct topo *t = w->t;
	uint32_t s, x, e = (uint32_t)t->endpoints.n;
	uint64_t *v, d;

	for (s = 0; s < e; s++) { /* toward s: the ACKs from every x */
		if (!no_ack)
			walk_to(w, s, ack);
		for (x = 0; x < e; x++)
			rtt[(size_t)s * e + x] =
				!no_ack ? deepest(w, t->endpoints.v[x])
				: paths_dist(w->p, t->endpoints.v[x], s) == PATHS_INF ? NONE
										      : 0;
	}
	for (x = 0; x < e; x++) { /* toward x: the data from every s */
		walk_to(w, x, data);
		for (s = 0; s < e; s++) {
			v = &rtt[(size_t)s * e + x];
			d = s == x || *v == NONE ? NONE : deepest(w, t->endpoints.v[s]);
			*v = d == NONE ? NONE : *v + d;
		}
	}
}

static int by_addr(const void *a, const void *b, void *arg)
{
	const struct topo *t = arg;
	uint32_t x = t->nodes.v[t->endpoints.v[*(const uint32_t *)a]].addr;
	uint32_t y = t->nodes.v[t->endpoints.v[*(const uint32_t *)b]].addr;

	return x < y ? -1 : x > y;
}

/* The first of the endpoints sorted by address (ord, n of them) at or above addr. */
static uint32_t lower(const struct topo *t, const uint32_t *ord, uint32_t n, uint64_t addr)
{
	uint32_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->nodes.v[t->endpoints.v[ord[mid]]].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The worst round trip of route re (of endpoint s) over the endpoints its prefix holds and
 * one of its ports leads to; NONE if none. The main table's prefixes are disjoint, so each
 * endpoint is looked at once per table. */
static uint64_t route_worst(const struct topo *t, const struct topo_paths *p, const uint32_t *peer,
			    const struct route_plan *plan, const struct route_entry *re,
			    const uint64_t *rtt, const uint32_t *ord, uint32_t s)
{
	uint32_t e = (uint32_t)t->endpoints.n, k, x, i;
	uint64_t lo = re->dst.plen ? re->dst.addr & ~0u << (32 - re->dst.plen) : 0;
	uint64_t hi = lo + (1ULL << (32 - re->dst.plen)), worst = NONE, v;

	for (k = lower(t, ord, e, lo); k < e; k++) {
		x = ord[k];
		if (t->nodes.v[t->endpoints.v[x]].addr >= hi)
			break;
		v = rtt[(size_t)s * e + x];
		if (v == NONE || (worst != NONE && v <= worst))
			continue;
		for (i = 0; i < re->nh_n; i++)
			if (leads(t, p, peer, re->node, plan->ports.v[re->nh_off + i], x))
				break;
		worst = i < re->nh_n ? v : worst;
	}
	return worst;
}

/* worst[i] for every route i: NONE where it leads to no endpoint. */
static int worst_routes(const struct topo *t, const struct topo_paths *p,
			const struct route_rto_port *q, const struct route_plan *plan,
			uint64_t *worst)
{
	size_t e = t->endpoints.n, np = t->ports.n, i;
	uint64_t *rtt = malloc(e * e * sizeof(*rtt) + 1);
	uint32_t *ord = malloc(e * sizeof(*ord) + 1), s, n, k;
	struct rto_scratch sc = {0};
	bool no_ack = true;
	struct walk w;
	int r = rtt && ord ? scratch_init(&sc, t, q) : -ENOMEM;

	for (i = 0; !r && i < np; i++)
		no_ack = no_ack && !sc.w[np + i];
	if (!r) {
		walk_init(&w, t, p, &sc);
		round_trips(&w, sc.w, sc.w + np, no_ack, rtt);
		for (s = 0; s < e; s++)
			ord[s] = s;
		qsort_r(ord, e, sizeof(*ord), by_addr, (void *)t);
	}
	for (s = 0; !r && s < e; s++) {
		n = t->endpoints.v[s];
		for (k = 0; k < plan->nodes.v[n].route_n; k++) {
			i = plan->nodes.v[n].route_off + k;
			worst[i] =
				route_worst(t, p, sc.peer, plan, &plan->routes.v[i], rtt, ord, s);
		}
	}
	scratch_done(&sc);
	free(rtt);
	free(ord);
	return r;
}

static void fill_fixed(const struct topo *t, uint32_t ms, struct route_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->routes.n; i++)
		plan->routes.v[i].rto_min_ms =
			t->nodes.v[plan->routes.v[i].node].kind == TOPO_ENDPOINT ? ms : 0;
}

int route_rto_fill(const struct topo *t, const struct topo_paths *p, const struct scn_shaping *sh,
		   const struct scn_rto *cfg, struct route_plan *plan, struct diag *d)
{
	struct route_rto_port *q;
	uint64_t *worst;
	size_t i;
	int r;

	if (cfg->mode != SCN_RTO_AUTO) {
		fill_fixed(t, cfg->mode == SCN_RTO_FIXED ? (uint32_t)(cfg->ns / 1000000) : 0, plan);
		return 0;
	}
	fill_fixed(t, 0, plan);
	q = malloc(t->ports.n * sizeof(*q) + 1);
	worst = malloc(plan->routes.n * sizeof(*worst) + 1);
	r = q && worst ? 0 : diag_set(d, -ENOMEM, "out of memory");
	if (!r)
		route_rto_ports(t, sh, q);
	if (r || !route_rto_ms(bound(t, p, q))) /* no route would get one */
		goto out;
	for (i = 0; i < plan->routes.n; i++)
		worst[i] = NONE;
	if (worst_routes(t, p, q, plan, worst))
		r = diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; !r && i < plan->routes.n; i++)
		plan->routes.v[i].rto_min_ms = worst[i] == NONE ? 0 : route_rto_ms(worst[i]);
out:
	free(q);
	free(worst);
	return r;
}
