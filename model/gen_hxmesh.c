// SPDX-License-Identifier: MIT
/* HammingMesh (see gen_hxmesh.h): the counting formulas of HammingMesh §III-B to §III-D and
 * Appendix A-C (the per-plane counts are ours, generalised from the appendix's cases), and one
 * plane built from them, so the graph and the formulas cannot disagree about its shape. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "model/gen_hxmesh.h"
#include "model/ocs.h"

/* HammingMesh §III-C: April 2022 prices in US$ (64-port switch, 5 m DAC, 20 m AoC) */
#define HX_PRICE_SWITCH 14280
#define HX_PRICE_DAC 272
#define HX_PRICE_AOC 603
#define HX_MAX_ACCELS 65536 /* what the testbed addresses */

static const char *const dim_name[2] = {"row", "column"};

static int check(const struct gen_hxmesh_params *p, struct diag *d)
{
	if (!p->a || !p->b || !p->x || !p->y)
		return diag_set(d, -EINVAL,
				"hammingmesh: board %ux%u and grid %ux%u must be at least 1x1 each",
				p->a, p->b, p->x, p->y);
	if ((uint64_t)p->a * p->b > (1ULL << 32) / ((uint64_t)p->x * p->y))
		return diag_set(d, -E2BIG, "hammingmesh: more than 2^32 accelerators");
	if (p->radix < 2 || p->radix > 65536)
		return diag_set(d, -EINVAL, "hammingmesh: switch radix must be 2..65536, not %u",
				p->radix);
	if (!p->taper)
		return diag_set(d, -EINVAL,
				"hammingmesh: taper is the leaves' down:up port ratio, at least 1 "
				"(1 = nonblocking)");
	if (!p->planes)
		return diag_set(d, -EINVAL, "hammingmesh: planes must be at least 1");
	return 0;
}

/* One network of n->ports endpoint ports: a single switch if it fits the radix, else a
 * two-level fat tree (HammingMesh §III). Leaves split their k ports down:up as taper:1 (§III-F;
 * 64 ports give 32:32, 42:22, 51:13, the paper's nonblocking, 50% and 75% trees); every leaf
 * reaches every spine, so at most k leaves. */
static int net_shape(struct gen_hxmesh_net *n, uint32_t k, uint32_t taper)
{
	n->levels = 1;
	n->leaves = n->spines = n->down = n->uplinks = 0;
	if (n->ports <= k)
		return 0;
	n->levels = 2;
	n->down = (uint32_t)((uint64_t)k * taper / ((uint64_t)taper + 1));
	n->uplinks = k - n->down;
	if ((n->ports + n->down - 1) / n->down > k)
		return -E2BIG;
	n->leaves = (uint32_t)((n->ports + n->down - 1) / n->down);
	/* q/k spines (Appendix A-C's trees), more if uneven uplinks would overfill one */
	n->spines = (n->leaves * n->uplinks + k - 1) / k;
	while (n->leaves * ((n->uplinks + n->spines - 1) / n->spines) > k)
		n->spines++;
	return 0;
}

/* Row (dim 0) or column (dim 1) networks: one per accelerator row (b*y of them, 2x ports
 * each) or column (a*x, 2y ports), or one per board row/column when merged and it fits. */
static int dim_plan(const struct gen_hxmesh_params *p, unsigned dim, struct gen_hxmesh_net *n,
		    struct diag *d)
{
	uint64_t lines = dim ? p->a : p->b, boards = dim ? p->y : p->x, across = dim ? p->x : p->y;
	int r;

	n->merged = p->merged && 2 * boards * lines <= p->radix;
	n->count = n->merged ? across : lines * across;
	n->ports = 2 * boards * (n->merged ? lines : 1);
	r = net_shape(n, p->radix, p->taper);
	if (r)
		return diag_set(d, r,
				"hammingmesh: %llu-port %s networks need more than two levels "
				"of %u-port switches",
				(unsigned long long)n->ports, dim_name[dim], p->radix);
	n->switches = n->count * (n->levels == 1 ? 1 : n->leaves + n->spines);
	n->fabric = n->count * n->leaves * n->uplinks;
	return 0;
}

/* HammingMesh §III-B: 2(⌊(a-1)/2⌋ + ⌊(b-1)/2⌋) + 2(⌈log_{k/2} 2x/k⌉+1) + 2(⌈log_{k/2} 2y/k⌉+1);
 * each log term is the network's levels - 1. */
static uint32_t diameter(const struct gen_hxmesh_params *p, const struct gen_hxmesh_counts *c)
{
	return 2 * ((p->a - 1) / 2 + (p->b - 1) / 2) + 2 * c->row.levels + 2 * c->col.levels;
}

static void totals(const struct gen_hxmesh_params *p, struct gen_hxmesh_counts *c)
{
	c->switches = c->row.switches + c->col.switches;
	c->edge_cables = c->row.count * c->row.ports + c->col.count * c->col.ports;
	c->fabric_cables = c->row.fabric + c->col.fabric;
	c->cables = c->edge_cables + c->fabric_cables;
	/* §III-D: DAC to endpoints along one dimension, AoC for the other and between switches */
	c->dac = c->row.count * c->row.ports;
	c->aoc = c->cables - c->dac;
	c->switch_ports = c->edge_cables + 2 * c->fabric_cables;
	c->accel_ports = 4;
	c->diameter = diameter(p, c);
	c->total_switches = c->switches * p->planes;
	c->total_cables = c->cables * p->planes;
	c->total_dac = c->dac * p->planes;
	c->total_aoc = c->aoc * p->planes;
	c->total_switch_ports = c->switch_ports * p->planes;
	c->total_accel_ports = c->accel_ports * p->planes;
	c->total_cost_usd = c->total_switches * HX_PRICE_SWITCH + c->total_dac * HX_PRICE_DAC +
			    c->total_aoc * HX_PRICE_AOC;
}

static int plan(const struct gen_hxmesh_params *p, struct gen_hxmesh_counts *c, struct diag *d)
{
	int r;

	memset(c, 0, sizeof(*c));
	r = check(p, d);
	if (!r)
		r = dim_plan(p, 0, &c->row, d);
	if (!r)
		r = dim_plan(p, 1, &c->col, d);
	if (r)
		return r;
	c->boards = (uint64_t)p->x * p->y;
	c->accels = c->boards * p->a * p->b;
	c->board_links = c->boards * ((uint64_t)p->b * (p->a - 1) + (uint64_t)p->a * (p->b - 1));
	totals(p, c);
	return 0;
}

int gen_hxmesh_counts(const struct gen_hxmesh_params *p, struct gen_hxmesh_counts *out)
{
	return plan(p, out, NULL);
}

/* ---- building one plane ---- */

struct hx_build {
	struct topo *t;
	const struct gen_hxmesh_params *p;
	struct gen_hxmesh_counts c;
	uint64_t board_rate, net_rate;
	uint32_t nsw[2]; /* switches added so far per dimension: their topo_node.index */
	uint32_t *edge; /* with OCSes: the edge cables' ends (accelerator, switch, dim), made
			   after every network has its switches */
	uint64_t nedge;
};

/* Node id of accelerator (i, j) on board (bx, by): accelerators come first, board by board. */
static uint32_t accel(const struct gen_hxmesh_params *p, uint32_t bx, uint32_t by, uint32_t i,
		      uint32_t j)
{
	return ((by * p->x + bx) * p->b + j) * p->a + i;
}

static int add_link(struct hx_build *h, uint32_t u, uint32_t v, uint64_t rate, enum topo_tier tier,
		    unsigned dim)
{
	int l = topo_link_add(h->t, u, v, rate, rate, tier);

	if (l < 0)
		return l;
	h->t->links.v[l].dim = (uint16_t)dim;
	return 0;
}

static int add_accels(struct hx_build *h)
{
	const struct gen_hxmesh_params *p = h->p;
	uint32_t n = (uint32_t)h->c.accels, ab = p->a * p->b, e;
	char name[TOPO_NAME_MAX];

	for (e = 0; e < n; e++) {
		uint32_t i = e % p->a, j = e / p->a % p->b, bx = e / ab % p->x, by = e / ab / p->x;
		struct topo_node *node;
		int id;

		snprintf(name, sizeof(name), "a%u-%u", bx * p->a + i, by * p->b + j);
		id = topo_node_add(h->t, TOPO_ENDPOINT, TOPO_ROLE_ACCEL, name, e);
		if (id < 0)
			return id;
		node = &h->t->nodes.v[id];
		node->forwards = true; /* HammingMesh §III: a 4x4 switch per plane */
		node->group = e / ab;
		node->coord[0] = (int32_t)bx;
		node->coord[1] = (int32_t)by;
		node->coord[2] = (int32_t)i;
		node->coord[3] = (int32_t)j;
	}
	return 0;
}

/* HammingMesh §III: "a local inexpensive high-bandwidth 2D mesh", no on-board wrap-around. */
static int add_board_links(struct hx_build *h)
{
	const struct gen_hxmesh_params *p = h->p;
	uint32_t n = (uint32_t)h->c.accels, e;
	int r = 0;

	for (e = 0; !r && e < n; e++) {
		if (e % p->a + 1 < p->a)
			r = add_link(h, e, e + 1, h->board_rate, TOPO_TIER_DIRECT, 0);
		if (!r && e / p->a % p->b + 1 < p->b)
			r = add_link(h, e, e + p->a, h->board_rate, TOPO_TIER_DIRECT, 1);
	}
	return r;
}

/* The accelerator on endpoint port k of network `net` of dimension dim: ports run W, E of
 * each board along the network (N, S for columns), then the next accelerator row (column)
 * of the same boards when merged. */
static uint32_t port_accel(const struct hx_build *h, unsigned dim, uint64_t net, uint64_t k)
{
	const struct gen_hxmesh_params *p = h->p;
	const struct gen_hxmesh_net *n = dim ? &h->c.col : &h->c.row;
	uint32_t lines = dim ? p->a : p->b, boards = dim ? p->y : p->x;
	uint32_t outer = (uint32_t)(n->merged ? net : net / lines);
	uint32_t line = (uint32_t)(n->merged ? k / (2 * boards) : net % lines);
	uint32_t along = (uint32_t)(k / 2 % boards);
	bool far = k % 2; /* the E (S) port rather than W (N) */

	if (dim)
		return accel(p, outer, along, line, far ? p->b - 1 : 0);
	return accel(p, along, outer, far ? p->a - 1 : 0, line);
}

static int add_switch(struct hx_build *h, unsigned dim, uint64_t net, const char *sfx,
		      uint32_t level, uint32_t pos)
{
	const struct gen_hxmesh_net *n = dim ? &h->c.col : &h->c.row;
	const char *pfx = dim ? (n->merged ? "cb" : "c") : (n->merged ? "rb" : "r");
	char name[TOPO_NAME_MAX];
	struct topo_node *node;
	int id, len;

	if (*sfx)
		len = snprintf(name, sizeof(name), "%s%llu%s%u", pfx, (unsigned long long)net, sfx,
			       pos);
	else
		len = snprintf(name, sizeof(name), "%s%llu", pfx, (unsigned long long)net);
	if (len >= (int)sizeof(name))
		return -ENAMETOOLONG;
	id = topo_node_add(h->t, TOPO_SWITCH, dim ? TOPO_ROLE_COLSW : TOPO_ROLE_ROWSW, name,
			   h->nsw[dim]++);
	if (id < 0)
		return id;
	node = &h->t->nodes.v[id];
	node->coord[0] = (int32_t)net;
	node->coord[1] = (int32_t)level;
	node->coord[2] = (int32_t)pos;
	return 0;
}

static int add_net_switches(struct hx_build *h, unsigned dim, uint64_t net)
{
	const struct gen_hxmesh_net *n = dim ? &h->c.col : &h->c.row;
	uint32_t i;
	int r = 0;

	if (n->levels == 1)
		return add_switch(h, dim, net, "", 0, 0);
	for (i = 0; !r && i < n->leaves; i++)
		r = add_switch(h, dim, net, "l", 0, i);
	for (i = 0; !r && i < n->spines; i++)
		r = add_switch(h, dim, net, "s", 1, i);
	return r;
}

/* An accelerator-switch cable: made now, or with OCSes noted for add_ocs_layer. */
static int add_edge(struct hx_build *h, uint32_t acc, uint32_t sw, unsigned dim)
{
	uint32_t *e;

	if (!h->p->ocs)
		return add_link(h, acc, sw, h->net_rate, TOPO_TIER_EDGE, dim);
	e = &h->edge[3 * h->nedge++];
	e[0] = acc;
	e[1] = sw;
	e[2] = dim;
	return 0;
}

/* The OCSes o0.. and the edge cables through them: the row networks' cables in turn through
 * the first ceil(ocs / 2) OCSes, the column networks' through the others (all through o0
 * when there is one), so that an accelerator of a board with a, b >= 2 has at most one port
 * on each OCS and a circuit never crosses dimensions. Cable u-v becomes u-o and v-o,
 * consecutive ports of o (ocs_pair_circuits joins them back); shaped where sent in,
 * unshaped out of the OCS, a passive cross-connect (as ocs_gen_layer cables a leaf-spine). */
static int add_ocs_layer(struct hx_build *h)
{
	uint32_t o0 = (uint32_t)h->t->nodes.n, k = h->p->ocs, nrow = (k + 1) / 2, j;
	uint64_t i, ord[2] = {0, 0};
	char name[TOPO_NAME_MAX];
	int r = 0, l;

	for (j = 0; j < k; j++) {
		snprintf(name, sizeof(name), "o%u", j);
		l = topo_node_add(h->t, TOPO_OCS, TOPO_ROLE_OCS, name, j);
		if (l < 0)
			return l;
		h->t->nodes.v[l].forwards = false;
	}
	for (i = 0; !r && i < h->nedge; i++) {
		const uint32_t *e = &h->edge[3 * i];
		uint64_t n = ord[e[2]]++;
		uint32_t o = o0 + (uint32_t)(e[2] && k > 1 ? nrow + n % (k - nrow) : n % nrow);

		for (j = 0; !r && j < 2; j++) {
			l = topo_link_add(h->t, e[j], o, h->net_rate, 0, TOPO_TIER_OCS);
			r = l < 0 ? l : 0;
			if (!r)
				h->t->links.v[l].dim = (uint16_t)e[2];
		}
	}
	return r;
}

/* One row or column network: its switches, its endpoint cables, its leaf-spine cables. */
static int add_net(struct hx_build *h, unsigned dim, uint64_t net)
{
	const struct gen_hxmesh_net *n = dim ? &h->c.col : &h->c.row;
	uint32_t sw0 = (uint32_t)h->t->nodes.n, l, u;
	uint64_t k;
	int r;

	r = add_net_switches(h, dim, net);
	for (k = 0; !r && k < n->ports; k++) {
		uint32_t sw = sw0 + (n->levels == 1 ? 0 : (uint32_t)(k / n->down));

		r = add_edge(h, port_accel(h, dim, net, k), sw, dim);
	}
	for (l = 0; !r && l < n->leaves; l++)
		for (u = 0; !r && u < n->uplinks; u++)
			r = add_link(h, sw0 + l, sw0 + n->leaves + u % n->spines, h->net_rate,
				     TOPO_TIER_FABRIC, dim);
	return r;
}

static int build(struct hx_build *h)
{
	uint64_t net;
	int r;

	r = add_accels(h);
	if (!r)
		r = add_board_links(h);
	for (net = 0; !r && net < h->c.row.count; net++)
		r = add_net(h, 0, net);
	for (net = 0; !r && net < h->c.col.count; net++)
		r = add_net(h, 1, net);
	if (!r && h->p->ocs)
		r = add_ocs_layer(h);
	return r;
}

/* plan() and the testbed's size limit */
static int validate(const struct gen_hxmesh_params *p, struct gen_hxmesh_counts *c, struct diag *d)
{
	int r = plan(p, c, d);

	if (!r && c->accels > HX_MAX_ACCELS)
		r = diag_set(d, -E2BIG,
			     "hammingmesh: %llu accelerators is more than the %u this testbed "
			     "addresses; paper-scale systems can only be counted",
			     (unsigned long long)c->accels, HX_MAX_ACCELS);
	return r;
}

int gen_hxmesh_validate(const struct gen_hxmesh_params *p, struct diag *d)
{
	struct gen_hxmesh_counts c;

	return validate(p, &c, d);
}

int gen_hxmesh(struct topo *t, const struct gen_hxmesh_params *p, double rate_scale, struct diag *d)
{
	struct hx_build h = {.t = t, .p = p};
	int r;

	r = validate(p, &h.c, d);
	if (r)
		return r;
	if (t->nodes.n)
		return diag_set(d, -EINVAL, "hammingmesh: the topology must start empty");
	if (p->ocs > OCS_MAX)
		return diag_set(d, -EINVAL, "topology.ocs.count: at most %d OCSes, found %u",
				OCS_MAX, p->ocs);
	h.board_rate = gen_scale_rate(p->board_rate, rate_scale);
	h.net_rate = gen_scale_rate(p->net_rate, rate_scale);
	/* every edge cable noted once: 2xy(a+b) of them (gen_hxmesh_counts) */
	h.edge = p->ocs ? calloc(3 * h.c.edge_cables + 1, sizeof(*h.edge)) : NULL;
	r = p->ocs && !h.edge ? -ENOMEM : build(&h);
	free(h.edge);
	if (r)
		return diag_set(d, r, "building the hammingmesh: %s",
				r == -ENOMEM ? "out of memory" : "node name too long");
	return 0;
}
