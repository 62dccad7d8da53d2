// SPDX-License-Identifier: MIT
/* Builds the routing plan (see route.h): per node, endpoint destinations classified by
 * next-hop set, aggregated into the fewest aligned prefixes, and ECMP groups for the
 * classes with more than one next hop. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/addr.h"
#include "policy/route.h"

#define CLS_SELF UINT32_MAX /* the node itself: any route may cover it */
#define CLS_UNREACH (UINT32_MAX - 1)
#define CLS_NONE (UINT32_MAX - 2)
#define MAX_NH 256

struct nhclass {
	uint32_t n;
	uint32_t port[MAX_NH];
	uint32_t group; /* group index in the plan, or CLS_NONE */
	uint32_t slot; /* its place in build.slot */
};

struct build {
	const struct topo *t;
	const struct topo_paths *p;
	struct route_plan *plan;
	uint32_t *sorted; /* endpoint ids sorted by address */
	uint32_t *cls; /* class of each endpoint for the current node */
	VEC(struct nhclass) classes;
	uint32_t *slot; /* the classes by next-hop set: index + 1 per slot, 0 when free */
	uint32_t slots; /* a power of two, at least twice the endpoints (a node's most classes) */
	VEC(uint32_t) route_cls; /* the class of each of the current node's routes */
	VEC(uint32_t) pos; /* scratch of collect_prefixes */
	uint32_t node;
};

static int cmp_addr_ctx(const void *a, const void *b, void *ctx)
{
	const struct topo *t = ctx;
	uint32_t x = t->nodes.v[t->endpoints.v[*(const uint32_t *)a]].addr;
	uint32_t y = t->nodes.v[t->endpoints.v[*(const uint32_t *)b]].addr;

	return x < y ? -1 : x > y;
}

/* FNV-1a over a next-hop set. */
static uint32_t nh_hash(const uint32_t *ports, uint32_t n)
{
	uint32_t h = 2166136261u, i;

	for (i = 0; i < n; i++)
		h = (h ^ ports[i]) * 16777619u;
	return h;
}

static bool nh_same(const struct nhclass *c, const uint32_t *ports, uint32_t n)
{
	return c->n == n && !memcmp(c->port, ports, n * sizeof(*ports));
}

/* The slot holding ports' class, or the free slot where it goes. */
static uint32_t slot_of(const struct build *b, const uint32_t *ports, uint32_t n)
{
	uint32_t i = nh_hash(ports, n) & (b->slots - 1);

	while (b->slot[i] && !nh_same(&b->classes.v[b->slot[i] - 1], ports, n))
		i = (i + 1) & (b->slots - 1);
	return i;
}

/* The class of a next-hop set, numbered in order of first sight. */
static uint32_t class_of(struct build *b, const uint32_t *ports, uint32_t n)
{
	struct nhclass *c;
	uint32_t i;

	i = slot_of(b, ports, n);
	if (b->slot[i])
		return b->slot[i] - 1;
	c = vec_grow(&b->classes);
	if (!c)
		return CLS_NONE;
	c->n = n;
	memcpy(c->port, ports, n * sizeof(*ports));
	c->group = CLS_NONE;
	c->slot = i;
	b->slot[i] = (uint32_t)b->classes.n;
	return (uint32_t)(b->classes.n - 1);
}

static int classify(struct build *b)
{
	const struct topo *t = b->t;
	uint32_t ports[MAX_NH];
	size_t e;
	int n;

	for (e = 0; e < b->classes.n; e++) /* the previous node's */
		b->slot[b->classes.v[e].slot] = 0;
	b->classes.n = 0;
	for (e = 0; e < t->endpoints.n; e++) {
		if (t->endpoints.v[e] == b->node) {
			b->cls[e] = CLS_SELF;
			continue;
		}
		n = paths_nexthops(t, b->p, b->node, (uint32_t)e, ports, MAX_NH);
		if (n > MAX_NH)
			return -E2BIG;
		b->cls[e] = n ? class_of(b, ports, (uint32_t)n) : CLS_UNREACH;
		if (b->cls[e] == CLS_NONE)
			return -ENOMEM;
	}
	return 0;
}

static uint32_t own_src(const struct build *b)
{
	const struct topo_node *n = &b->t->nodes.v[b->node];

	return n->kind == TOPO_ENDPOINT ? n->addr : 0;
}

static int add_group(struct build *b, struct nhclass *c)
{
	struct route_plan *pl = b->plan;
	struct route_group *g;
	uint32_t i;

	g = vec_grow(&pl->groups);
	if (!g || vec_reserve(&pl->ports, pl->ports.n + c->n))
		return -ENOMEM;
	g->node = b->node;
	g->id = (uint32_t)(pl->groups.n - 1 - pl->nodes.v[b->node].group_off);
	g->seed = b->t->nodes.v[b->node].seed;
	g->spray = b->t->nodes.v[b->node].spray;
	g->nh_off = (uint32_t)pl->ports.n;
	g->nh_n = c->n;
	for (i = 0; i < c->n; i++)
		pl->ports.v[pl->ports.n++] = c->port[i];
	c->group = (uint32_t)(pl->groups.n - 1);
	return 0;
}

static int emit(struct build *b, uint32_t addr, uint8_t plen, uint32_t cls)
{
	struct nhclass *c = &b->classes.v[cls];
	struct route_plan *pl = b->plan;
	struct route_entry *re;
	uint32_t i;

	re = vec_grow(&pl->routes);
	if (!re || vec_reserve(&pl->ports, pl->ports.n + c->n) || vec_push(&b->route_cls, cls))
		return -ENOMEM;
	re->node = b->node;
	re->table = ROUTE_TABLE_MAIN;
	re->dst.addr = addr;
	re->dst.plen = plen;
	re->src = own_src(b);
	re->nh_off = (uint32_t)pl->ports.n;
	re->nh_n = c->n;
	for (i = 0; i < c->n; i++)
		pl->ports.v[pl->ports.n++] = c->port[i];
	if (c->n < 2)
		return 0;
	if (c->group == CLS_NONE && add_group(b, c))
		return -ENOMEM;
	/* group prefixes are appended per node after all routes; remember via the route */
	return 0;
}

/* Emits the fewest aligned prefixes covering sorted[lo, hi) by class; the node's own address
 * is a wildcard, unreachable endpoints are a class of their own that gets no route. */
static int aggregate(struct build *b, uint32_t pfx, uint8_t plen, size_t lo, size_t hi)
{
	const struct topo *t = b->t;
	uint32_t cls = CLS_NONE, half;
	size_t i, mid;
	int mixed = 0, r;

	for (i = lo; i < hi && !mixed; i++) {
		uint32_t k = b->cls[b->sorted[i]];

		if (k == CLS_SELF)
			continue;
		if (cls == CLS_NONE)
			cls = k;
		else if (k != cls)
			mixed = 1;
	}
	if (cls == CLS_NONE)
		return 0;
	if (!mixed)
		return cls == CLS_UNREACH ? 0 : emit(b, pfx, plen, cls);
	half = 1u << (31 - plen);
	for (mid = lo; mid < hi; mid++)
		if (t->nodes.v[t->endpoints.v[b->sorted[mid]]].addr >= pfx + half)
			break;
	r = aggregate(b, pfx, (uint8_t)(plen + 1), lo, mid);
	return r ? r : aggregate(b, pfx + half, (uint8_t)(plen + 1), mid, hi);
}

/* Group prefixes: the node's main-table routes whose class has a group (a route's next hops
 * are its group's exactly when they share the class), per group in route order. */
static int collect_prefixes(struct build *b, struct route_node *rn)
{
	struct route_plan *pl = b->plan;
	uint32_t g, i, n = 0;

	if (vec_reserve(&b->pos, rn->group_n + 1))
		return -ENOMEM;
	for (g = 0; g < rn->group_n; g++) /* each group's first prefix, counted */
		b->pos.v[g] = 0;
	for (i = 0; i < rn->route_n; i++) {
		g = b->classes.v[b->route_cls.v[i]].group;
		if (g != CLS_NONE)
			b->pos.v[g - rn->group_off]++;
	}
	for (g = 0; g < rn->group_n; g++) {
		pl->groups.v[rn->group_off + g].pfx_off = (uint32_t)pl->prefixes.n + n;
		pl->groups.v[rn->group_off + g].pfx_n = b->pos.v[g];
		n += b->pos.v[g];
		b->pos.v[g] = pl->groups.v[rn->group_off + g].pfx_off;
	}
	if (vec_reserve(&pl->prefixes, pl->prefixes.n + n))
		return -ENOMEM;
	for (i = 0; i < rn->route_n; i++) {
		g = b->classes.v[b->route_cls.v[i]].group;
		if (g != CLS_NONE)
			pl->prefixes.v[b->pos.v[g - rn->group_off]++] =
				pl->routes.v[rn->route_off + i].dst;
	}
	pl->prefixes.n += n;
	return 0;
}

static uint32_t port_pos(const struct topo *t, uint32_t port)
{
	return t->ports.v[port].ifindex - 2;
}

/* One rule and one table per port that is a member of some group. */
static int add_tables(struct build *b, struct route_node *rn)
{
	struct route_plan *pl = b->plan;
	const struct topo_node *n = &b->t->nodes.v[b->node];
	uint8_t *used = calloc(n->nports + 1, 1);
	uint32_t g, i;
	int r = 0;

	if (!used)
		return -ENOMEM;
	for (g = rn->group_off; g < rn->group_off + rn->group_n; g++)
		for (i = 0; i < pl->groups.v[g].nh_n; i++)
			used[port_pos(b->t, pl->ports.v[pl->groups.v[g].nh_off + i])] = 1;
	rn->rule_off = (uint32_t)pl->rules.n;
	for (i = 0; i < n->nports && !r; i++) {
		struct route_rule rule = {b->node, ROUTE_RULE_PRIO + i, route_port_table(i),
					  route_port_table(i)};
		struct route_entry re = {.node = b->node,
					 .table = route_port_table(i),
					 .nh_off = (uint32_t)pl->ports.n,
					 .nh_n = 1,
					 .src = own_src(b)};

		if (!used[i])
			continue;
		r = vec_push(&pl->rules, rule);
		r = r ? r : vec_push(&pl->ports, topo_node_port(b->t, b->node, i));
		r = r ? r : vec_push(&pl->routes, re);
		rn->rule_n++;
		rn->route_n++;
	}
	free(used);
	return r;
}

static int add_edges(struct build *b, struct route_node *rn)
{
	const struct topo *t = b->t;
	uint32_t i;

	rn->edge_off = (uint32_t)b->plan->ports.n;
	for (i = 0; i < t->nodes.v[b->node].nports; i++) {
		uint32_t port = topo_node_port(t, b->node, i), peer = topo_port_peer_node(t, port);

		if (t->nodes.v[peer].forwards || t->nodes.v[peer].kind != TOPO_ENDPOINT)
			continue;
		if (vec_push(&b->plan->ports, port))
			return -ENOMEM;
		rn->edge_n++;
	}
	return 0;
}

static int plan_node(struct build *b, uint32_t region, uint8_t rplen)
{
	struct route_plan *pl = b->plan;
	struct route_node *rn = &pl->nodes.v[b->node];
	int r;

	rn->route_off = (uint32_t)pl->routes.n;
	rn->group_off = (uint32_t)pl->groups.n;
	if (!b->t->nodes.v[b->node].nports)
		return 0;
	b->route_cls.n = 0;
	r = classify(b);
	if (r)
		return r;
	r = aggregate(b, region, rplen, 0, b->t->endpoints.n);
	if (r)
		return r;
	rn = &pl->nodes.v[b->node];
	rn->route_n = (uint32_t)(pl->routes.n - rn->route_off);
	rn->group_n = (uint32_t)(pl->groups.n - rn->group_off);
	r = collect_prefixes(b, rn);
	r = r ? r : add_tables(b, rn);
	return r ? r : add_edges(b, rn);
}

/* The smallest aligned prefix covering every endpoint address. */
static void endpoint_cover(const struct build *b, uint32_t *pfx, uint8_t *plen)
{
	const struct topo *t = b->t;
	uint32_t lo, hi, x;
	uint8_t l = 32;

	if (!t->endpoints.n) {
		*pfx = 0;
		*plen = 32;
		return;
	}
	lo = t->nodes.v[t->endpoints.v[b->sorted[0]]].addr;
	hi = t->nodes.v[t->endpoints.v[b->sorted[t->endpoints.n - 1]]].addr;
	for (x = lo ^ hi; x; x >>= 1)
		l--;
	*plen = l;
	*pfx = l ? lo & (~0u << (32 - l)) : 0;
}

int route_plan_build(const struct topo *t, const struct topo_paths *p, struct route_plan *out,
		     struct diag *d)
{
	struct build b = {.t = t, .p = p, .plan = out};
	uint32_t region, i;
	uint8_t rplen;
	int r = -ENOMEM;

	memset(out, 0, sizeof(*out));
	b.sorted = malloc(t->endpoints.n * sizeof(uint32_t) + 1);
	b.cls = malloc(t->endpoints.n * sizeof(uint32_t) + 1);
	for (b.slots = 64; b.slots < 2 * t->endpoints.n + 2; b.slots *= 2)
		;
	b.slot = calloc(b.slots, sizeof(*b.slot));
	if (!b.sorted || !b.cls || !b.slot || vec_reserve(&out->nodes, t->nodes.n))
		goto out;
	memset(out->nodes.v, 0, t->nodes.n * sizeof(*out->nodes.v));
	out->nodes.n = t->nodes.n;
	for (i = 0; i < t->endpoints.n; i++)
		b.sorted[i] = i;
	qsort_r(b.sorted, t->endpoints.n, sizeof(uint32_t), cmp_addr_ctx, (void *)t);
	endpoint_cover(&b, &region, &rplen);
	for (i = 0, r = 0; i < t->nodes.n && !r; i++) {
		b.node = i;
		r = plan_node(&b, region, rplen);
	}
	if (r == -E2BIG)
		diag_set(d, r, "a node has more than %d next hops toward one destination", MAX_NH);
out:
	if (r == -ENOMEM)
		diag_set(d, r, "out of memory");
	free(b.sorted);
	free(b.cls);
	vec_free(&b.classes);
	free(b.slot);
	vec_free(&b.route_cls);
	vec_free(&b.pos);
	return r;
}

void route_plan_done(struct route_plan *plan)
{
	if (!plan)
		return;
	vec_free(&plan->nodes);
	vec_free(&plan->routes);
	vec_free(&plan->rules);
	vec_free(&plan->groups);
	vec_free(&plan->ports);
	vec_free(&plan->prefixes);
}

int route_plan_for(const struct topo *t, struct topo_paths *p, struct route_plan *plan,
		   struct diag *d)
{
	int r = paths_compute(t, p);

	if (r)
		return diag_set(d, r, "computing paths: out of memory");
	return route_plan_build(t, p, plan, d);
}
