// SPDX-License-Identifier: MIT
/* The difference between two routing plans, node by node (see reroute.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/reroute.h"
#include "policy/route_rto.h"

struct side {
	const struct topo *t;
	const struct route_plan *plan;
};

struct diff {
	struct side o, n;
	struct route_diff *out;
	uint32_t node;
};

static int push(struct diff *x, enum route_op_kind kind, uint32_t idx, uint32_t addr)
{
	struct route_op op = {x->node, kind, idx, addr};

	return vec_push(&x->out->ops, op);
}

static int key_cmp(const struct route_entry *a, const struct route_entry *b)
{
	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	if (a->dst.addr != b->dst.addr)
		return a->dst.addr < b->dst.addr ? -1 : 1;
	return (int)a->dst.plen - (int)b->dst.plen;
}

static int cmp_route_idx(const void *a, const void *b, void *ctx)
{
	const struct route_plan *pl = ctx;

	return key_cmp(&pl->routes.v[*(const uint32_t *)a], &pl->routes.v[*(const uint32_t *)b]);
}

/* The node's route indexes in s's plan, sorted by (table, dst). */
static uint32_t *sorted_routes(const struct side *s, uint32_t node, uint32_t *n)
{
	const struct route_node *rn = &s->plan->nodes.v[node];
	uint32_t *v = malloc((rn->route_n + 1) * sizeof(*v)), i;

	if (!v)
		return NULL;
	for (i = 0; i < rn->route_n; i++)
		v[i] = rn->route_off + i;
	qsort_r(v, rn->route_n, sizeof(*v), cmp_route_idx, (void *)s->plan);
	*n = rn->route_n;
	return v;
}

/* The gateway of next hop i of route re: the address of the port at the link's far end. */
static uint32_t nh_gw(const struct side *s, const struct route_entry *re, uint32_t i)
{
	return s->t->ports.v[topo_port_peer(s->t, s->plan->ports.v[re->nh_off + i])].addr;
}

static bool same_route(const struct diff *x, const struct route_entry *a,
		       const struct route_entry *b)
{
	uint32_t i;

	if (a->nh_n != b->nh_n || a->src != b->src || a->rto_min_ms != b->rto_min_ms)
		return false;
	for (i = 0; i < a->nh_n; i++)
		if (x->o.plan->ports.v[a->nh_off + i] != x->n.plan->ports.v[b->nh_off + i] ||
		    nh_gw(&x->o, a, i) != nh_gw(&x->n, b, i))
			return false;
	return true;
}

/* Merges the two sorted route lists: SET for new or changed routes, DEL for gone ones. */
static int diff_routes(struct diff *x, enum route_op_kind kind)
{
	uint32_t *ov, *nv, on = 0, nn = 0, i = 0, j = 0;
	int r = 0, c;

	ov = sorted_routes(&x->o, x->node, &on);
	nv = sorted_routes(&x->n, x->node, &nn);
	if (!ov || !nv)
		r = -ENOMEM;
	while (!r && (i < on || j < nn)) {
		const struct route_entry *a = i < on ? &x->o.plan->routes.v[ov[i]] : NULL;
		const struct route_entry *b = j < nn ? &x->n.plan->routes.v[nv[j]] : NULL;

		c = !a ? 1 : !b ? -1 : key_cmp(a, b);
		if (c < 0 && kind == ROUTE_OP_DEL)
			r = push(x, ROUTE_OP_DEL, ov[i], 0);
		else if (c > 0 && kind == ROUTE_OP_SET)
			r = push(x, ROUTE_OP_SET, nv[j], 0);
		else if (!c && kind == ROUTE_OP_SET && !same_route(x, a, b))
			r = push(x, ROUTE_OP_SET, nv[j], 0);
		i += c <= 0;
		j += c >= 0;
	}
	free(ov);
	free(nv);
	return r;
}

static bool has_rule(const struct side *s, uint32_t node, const struct route_rule *ru)
{
	const struct route_node *rn = &s->plan->nodes.v[node];
	uint32_t i;

	for (i = 0; i < rn->rule_n; i++) {
		const struct route_rule *q = &s->plan->rules.v[rn->rule_off + i];

		if (q->prio == ru->prio && q->mark == ru->mark && q->table == ru->table)
			return true;
	}
	return false;
}

/* RULE_ADD for rules only `from` has (from = new), RULE_DEL for rules only old has. */
static int diff_rules(struct diff *x, const struct side *from, const struct side *other,
		      enum route_op_kind kind)
{
	const struct route_node *rn = &from->plan->nodes.v[x->node];
	uint32_t i;
	int r = 0;

	for (i = 0; !r && i < rn->rule_n; i++)
		if (!has_rule(other, x->node, &from->plan->rules.v[rn->rule_off + i]))
			r = push(x, kind, rn->rule_off + i, 0);
	return r;
}

static bool same_ports(const struct route_plan *a, uint32_t ao, const struct route_plan *b,
		       uint32_t bo, uint32_t n)
{
	return !n || !memcmp(&a->ports.v[ao], &b->ports.v[bo], n * sizeof(uint32_t));
}

static bool same_group(const struct diff *x, const struct route_group *a,
		       const struct route_group *b)
{
	const struct route_plan *op = x->o.plan, *np = x->n.plan;

	return a->seed == b->seed && a->nh_n == b->nh_n && a->pfx_n == b->pfx_n &&
	       same_ports(op, a->nh_off, np, b->nh_off, a->nh_n) &&
	       (!a->pfx_n || !memcmp(&op->prefixes.v[a->pfx_off], &np->prefixes.v[b->pfx_off],
				     a->pfx_n * sizeof(struct route_prefix)));
}

/* The ruleset is rebuilt whole (one atomic batch) when any group or edge port changed. */
static bool same_ruleset(const struct diff *x)
{
	const struct route_node *a = &x->o.plan->nodes.v[x->node];
	const struct route_node *b = &x->n.plan->nodes.v[x->node];
	uint32_t g;

	if (a->group_n != b->group_n || a->edge_n != b->edge_n ||
	    !same_ports(x->o.plan, a->edge_off, x->n.plan, b->edge_off, a->edge_n))
		return false;
	for (g = 0; g < a->group_n; g++)
		if (!same_group(x, &x->o.plan->groups.v[a->group_off + g],
				&x->n.plan->groups.v[b->group_off + g]))
			return false;
	return true;
}

/* The address of the router at the far end of port p, 0 if its link is down or it is an
 * OCS (no address). */
static uint32_t l3_peer(const struct topo *t, uint32_t p)
{
	uint32_t q = topo_port_peer(t, p);

	return t->links.v[t->ports.v[p].link].up ? t->ports.v[q].addr : 0;
}

static int diff_neigh(struct diff *x)
{
	const struct topo_node *n = &x->n.t->nodes.v[x->node];
	uint32_t i, p, was;
	int r = 0;

	for (i = 0; !r && n->kind != TOPO_OCS && i < n->nports; i++) {
		p = topo_node_port(x->n.t, x->node, i);
		was = l3_peer(x->o.t, p);
		if (was && was != l3_peer(x->n.t, p))
			r = push(x, ROUTE_OP_NEIGH_DEL, p, was);
	}
	return r;
}

static int diff_node(struct diff *x)
{
	size_t before = x->out->ops.n;
	int r;

	r = diff_routes(x, ROUTE_OP_SET);
	r = r ? r : diff_rules(x, &x->n, &x->o, ROUTE_OP_RULE_ADD);
	if (!r && !same_ruleset(x))
		r = push(x, ROUTE_OP_NFT, 0, 0);
	r = r ? r : diff_routes(x, ROUTE_OP_DEL);
	r = r ? r : diff_rules(x, &x->o, &x->n, ROUTE_OP_RULE_DEL);
	r = r ? r : diff_neigh(x);
	if (!r && x->out->ops.n > before)
		x->out->nodes++;
	return r;
}

int route_diff_build(const struct topo *ot, const struct route_plan *op, const struct topo *nt,
		     const struct route_plan *np, struct route_diff *out)
{
	struct diff x = {{ot, op}, {nt, np}, out, 0};
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (ot->nodes.n != nt->nodes.n || ot->ports.n != nt->ports.n)
		return -EINVAL;
	for (x.node = 0; !r && x.node < nt->nodes.n; x.node++)
		r = diff_node(&x);
	return r;
}

void route_diff_done(struct route_diff *d)
{
	if (d)
		vec_free(&d->ops);
}

void route_diff_count(const struct route_diff *d, uint32_t counts[ROUTE_OP_NEIGH_DEL + 1])
{
	size_t i;

	memset(counts, 0, (ROUTE_OP_NEIGH_DEL + 1) * sizeof(*counts));
	for (i = 0; i < d->ops.n; i++)
		counts[d->ops.v[i].kind]++;
}

struct route_diff_totals route_diff_totals(const struct route_diff *d)
{
	uint32_t ops[ROUTE_OP_NEIGH_DEL + 1] = {0};

	route_diff_count(d, ops);
	return (struct route_diff_totals){
		.nodes = d->nodes,
		.route_ops = ops[ROUTE_OP_SET] + ops[ROUTE_OP_DEL] + ops[ROUTE_OP_RULE_ADD] +
			     ops[ROUTE_OP_RULE_DEL] + ops[ROUTE_OP_NEIGH_DEL],
		.nft_ops = ops[ROUTE_OP_NFT],
	};
}

int route_view_next(const struct topo *ot, const struct route_plan *op, const struct topo *nt,
		    const struct scn_shaping *sh, const struct scn_rto *rto, struct topo_paths *np,
		    struct route_plan *nplan, struct route_diff *df, struct diag *d)
{
	int r = route_plan_for(nt, np, nplan, d);

	if (!r && sh)
		r = route_rto_fill(nt, np, sh, rto, nplan, d);
	if (!r && df && route_diff_build(ot, op, nt, nplan, df))
		r = diag_set(d, -ENOMEM, "out of memory");
	return r;
}
