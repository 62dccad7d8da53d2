// SPDX-License-Identifier: MIT
/* OCS layers (see ocs.h): the generator, the default circuits, and the logical view a
 * circuit set gives. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ocs.h"

uint32_t ocs_spine_ports(const struct scn_leafspine *ls)
{
	if (ls->ocs.spine_ports)
		return ls->ocs.spine_ports;
	if (ls->ocs.count >= ls->spines)
		return (ls->leaves + ls->spines - 1) / ls->spines;
	return ls->leaves;
}

static int check_layer(const struct scn_leafspine *ls, struct diag *d)
{
	uint32_t ports = ocs_spine_ports(ls);

	if (ls->ocs.count > OCS_MAX)
		return diag_set(d, -EINVAL, "topology.ocs.count: at most %d OCSes, found %u",
				OCS_MAX, ls->ocs.count);
	if (ls->links_per_pair != 1)
		return diag_set(d, -EINVAL,
				"topology.links_per_pair: with an OCS layer every leaf has one "
				"uplink per OCS (ocs.count); leave links_per_pair at 1");
	if ((uint64_t)ports * ls->spines < ls->leaves)
		return diag_set(
			d, -EINVAL,
			"topology.ocs.spine_ports: %u ports of %u spines on each OCS cannot "
			"take its %u leaves",
			ports, ls->spines, ls->leaves);
	return 0;
}

int ocs_gen_layer(struct topo *t, const struct scn_leafspine *ls, uint32_t leaf0, uint32_t spine0,
		  uint64_t rate, struct diag *d)
{
	uint32_t ports = ocs_spine_ports(ls), k, i, j;
	char name[TOPO_NAME_MAX];
	int r, o;

	r = check_layer(ls, d);
	for (k = 0; !r && k < ls->ocs.count; k++) {
		snprintf(name, sizeof(name), "o%u", k);
		o = topo_node_add(t, TOPO_OCS, TOPO_ROLE_OCS, name, k);
		if (o < 0)
			return diag_set(d, o, "adding OCS %s: %s", name, strerror(-o));
		t->nodes.v[o].forwards = false; /* a cross-connect, not a router */
		for (i = 0; r >= 0 && i < ls->leaves; i++)
			r = topo_link_add(t, leaf0 + i, (uint32_t)o, rate, 0, TOPO_TIER_OCS);
		for (i = 0; r >= 0 && i < ls->spines; i++)
			for (j = 0; r >= 0 && j < ports; j++)
				r = topo_link_add(t, spine0 + i, (uint32_t)o, rate, 0,
						  TOPO_TIER_OCS);
		if (r < 0)
			return diag_set(d, r, "cabling OCS %s: %s", name, strerror(-r));
		r = 0;
	}
	return r;
}

/* The node at the other end of OCS port a's cable. */
static uint32_t far_node(const struct topo *p, uint32_t a)
{
	return topo_port_peer_node(p, a);
}

/* OCS ports of OCS node o cabled to node n, lowest first, that are free in xc. */
static uint32_t free_port(const struct topo *p, const uint32_t *xc, uint32_t o, uint32_t n)
{
	uint32_t i, q;

	for (i = 0; i < p->nodes.v[o].nports; i++) {
		q = topo_node_port(p, o, i);
		if (far_node(p, q) == n && xc[q] == TOPO_NONE)
			return q;
	}
	return TOPO_NONE;
}

/* The ids of the spines, by index. */
static int spine_ids(const struct topo *p, uint32_t **out, uint32_t *n)
{
	size_t i;

	*n = 0;
	*out = calloc(p->nodes.n + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < p->nodes.n; i++) {
		if (p->nodes.v[i].role != TOPO_ROLE_SPINE || p->nodes.v[i].index >= p->nodes.n)
			continue;
		(*out)[p->nodes.v[i].index] = (uint32_t)i;
		(*n)++;
	}
	return 0;
}

/* As in the vClos authors' simulator: a circuit pairs one leaf port with one spine port on
 * the same OCS; rotating by OCS index spreads every leaf over every spine when K >= S. */
static int default_ocs(const struct topo *p, uint32_t o, uint32_t ports, const uint32_t *spine,
		       uint32_t nspine, uint32_t *xc)
{
	uint32_t k = p->nodes.v[o].index, i, a, b, leaf;

	for (i = 0; i < p->nodes.v[o].nports; i++) {
		a = topo_node_port(p, o, i);
		leaf = far_node(p, a);
		if (p->nodes.v[leaf].role != TOPO_ROLE_LEAF)
			continue;
		b = free_port(p, xc, o, spine[(k + p->nodes.v[leaf].index / ports) % nspine]);
		if (b == TOPO_NONE)
			return -ENOSPC;
		xc[a] = b;
		xc[b] = a;
	}
	return 0;
}

int ocs_default_circuits(const struct topo *p, uint32_t ports_per_spine, uint32_t *xc)
{
	uint32_t *spine, nspine;
	size_t i;
	int r;

	for (i = 0; i < p->ports.n; i++)
		xc[i] = TOPO_NONE;
	r = spine_ids(p, &spine, &nspine);
	for (i = 0; !r && i < p->nodes.n; i++)
		if (p->nodes.v[i].kind == TOPO_OCS)
			r = nspine ? default_ocs(p, (uint32_t)i,
						 ports_per_spine ? ports_per_spine : 1, spine,
						 nspine, xc)
				   : -ENOSPC;
	free(spine);
	return r;
}

void ocs_pair_circuits(const struct topo *p, uint32_t *xc)
{
	uint32_t i, a, b;
	size_t n;

	for (n = 0; n < p->ports.n; n++)
		xc[n] = TOPO_NONE;
	for (n = 0; n < p->nodes.n; n++) {
		if (p->nodes.v[n].kind != TOPO_OCS)
			continue;
		for (i = 0; i + 1 < p->nodes.v[n].nports; i += 2) {
			a = topo_node_port(p, (uint32_t)n, i);
			b = topo_node_port(p, (uint32_t)n, i + 1);
			xc[a] = b;
			xc[b] = a;
		}
	}
}

/* Re-pairs the two cables of circuit (a, b), a < b, in logical view l (ocs.h). */
static void join(const struct topo *p, struct topo *l, uint32_t a, uint32_t b)
{
	uint32_t la = p->ports.v[a].link, lb = p->ports.v[b].link;
	uint32_t x = topo_port_peer(p, a), y = topo_port_peer(p, b);
	uint8_t xs = p->ports.v[x].side, ys = !xs;
	struct topo_link *ll = &l->links.v[la], *lo = &l->links.v[lb];

	ll->port[ys] = y;
	ll->rate[ys] = p->links.v[lb].rate[p->ports.v[y].side];
	ll->up = p->links.v[la].up && p->links.v[lb].up;
	l->ports.v[y].link = la;
	l->ports.v[y].side = ys;
	lo->port[0] = a;
	lo->port[1] = b;
	lo->rate[0] = p->links.v[la].rate[p->ports.v[a].side];
	lo->rate[1] = p->links.v[lb].rate[p->ports.v[b].side];
	lo->up = false; /* inside the OCS: no node forwards over it */
	l->ports.v[a].link = lb;
	l->ports.v[a].side = 0;
	l->ports.v[b].link = lb;
	l->ports.v[b].side = 1;
}

struct topo *ocs_apply(const struct topo *p, const uint32_t *xc)
{
	struct topo *l = topo_copy(p);
	size_t a;

	if (!l)
		return NULL;
	topo_free(l->phys);
	l->phys = topo_copy(p);
	if (!l->phys) {
		topo_free(l);
		return NULL;
	}
	for (a = 0; a < p->ports.n; a++) {
		if (p->nodes.v[p->ports.v[a].node].kind != TOPO_OCS)
			continue;
		if (xc[a] == TOPO_NONE)
			l->links.v[p->ports.v[a].link].up = false; /* dark */
		else if (a < xc[a])
			join(p, l, (uint32_t)a, xc[a]);
	}
	return l;
}

void ocs_circuits_of(const struct topo *l, uint32_t *xc)
{
	size_t a;

	for (a = 0; a < l->ports.n; a++) {
		uint32_t q = topo_port_peer(l, (uint32_t)a), o = l->ports.v[a].node;

		xc[a] = l->nodes.v[o].kind == TOPO_OCS && l->ports.v[q].node == o ? q : TOPO_NONE;
	}
}

/* OCS ports have no address; the ports cabled to them a /32 each. */
static void ocs_addresses(struct topo *p)
{
	size_t i;

	for (i = 0; i < p->ports.n; i++) {
		struct topo_port *pt = &p->ports.v[i];

		if (p->nodes.v[pt->node].kind == TOPO_OCS) {
			pt->addr = 0;
			pt->plen = 0;
		} else if (p->nodes.v[topo_port_peer_node(p, (uint32_t)i)].kind == TOPO_OCS) {
			pt->plen = 32;
		}
	}
}

/* The scenario's circuits (topology.ocs.circuits), by name. */
static int scenario_circuits(const struct topo *p, const struct scn_ocs *o, uint32_t *xc,
			     struct diag *d)
{
	struct ocs_change ch;
	size_t i;
	int r = 0, ids[3];

	for (i = 0; i < p->ports.n; i++)
		xc[i] = TOPO_NONE;
	for (i = 0; !r && i < o->circuits.n; i++) {
		const struct scn_ocs_circuit *c = &o->circuits.v[i];

		ids[0] = topo_node_find(p, c->ocs);
		ids[1] = topo_node_find(p, c->a);
		ids[2] = topo_node_find(p, c->b);
		if (ids[0] < 0 || ids[1] < 0 || ids[2] < 0)
			return diag_set(d, -EINVAL,
					"topology.ocs.circuits (line %u): no node named %s",
					c->line,
					ids[0] < 0   ? c->ocs
					: ids[1] < 0 ? c->a
						     : c->b);
		ch = (struct ocs_change){(uint32_t)ids[0], (uint32_t)ids[1], (uint32_t)ids[2],
					 false};
		r = ocs_rewire(p, xc, &ch, 1, NULL, true, d);
		if (r)
			diag_wrap(d, r, "topology.ocs.circuits (line %u): ", c->line);
	}
	return r;
}

int ocs_build(struct topo **t, const struct scn_ocs *o, uint32_t spine_ports, struct diag *d)
{
	struct topo *p = *t, *l;
	uint32_t *xc = malloc(p->ports.n * sizeof(*xc) + 1);
	int r = 0;

	if (!xc)
		return diag_set(d, -ENOMEM, "out of memory");
	ocs_addresses(p);
	if (o->circuits.n)
		r = scenario_circuits(p, o, xc, d);
	else if (!spine_ports)
		ocs_pair_circuits(p, xc);
	else if ((r = ocs_default_circuits(p, spine_ports, xc)))
		diag_set(d, r, "topology.ocs: the default circuits do not fit the spine ports");
	l = r ? NULL : ocs_apply(p, xc);
	if (!r && !l)
		r = diag_set(d, -ENOMEM, "out of memory");
	free(xc);
	if (r)
		return r;
	topo_free(p);
	*t = l;
	return 0;
}
