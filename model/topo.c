// SPDX-License-Identifier: MIT
/* The topology graph (see topo.h): construction and port naming. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/topo.h"

struct topo *topo_new(void)
{
	return calloc(1, sizeof(struct topo));
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	vec_free(&t->nodes);
	vec_free(&t->ports);
	vec_free(&t->links);
	vec_free(&t->node_ports);
	vec_free(&t->endpoints);
	topo_free(t->phys);
	free(t);
}

int topo_node_add(struct topo *t, enum topo_kind kind, enum topo_role role, const char *name,
		  uint32_t index)
{
	struct topo_node *n;

	if (strlen(name) >= TOPO_NAME_MAX)
		return -ENAMETOOLONG;
	n = vec_grow(&t->nodes);
	if (!n)
		return -ENOMEM;
	n->kind = kind;
	n->role = role;
	n->index = index;
	n->forwards = kind != TOPO_ENDPOINT;
	n->ep = TOPO_NONE;
	strcpy(n->name, name);
	t->finalized = false;
	return (int)(t->nodes.n - 1);
}

static int port_add(struct topo *t, uint32_t node, uint32_t link, uint8_t side)
{
	struct topo_port *p = vec_grow(&t->ports);

	if (!p)
		return -ENOMEM;
	p->node = node;
	p->link = link;
	p->side = side;
	return (int)(t->ports.n - 1);
}

int topo_link_add(struct topo *t, uint32_t a, uint32_t b, uint64_t rate_ab, uint64_t rate_ba,
		  enum topo_tier tier)
{
	uint32_t id = (uint32_t)t->links.n;
	struct topo_link *l;
	int pa, pb;

	if (a >= t->nodes.n || b >= t->nodes.n || a == b)
		return -EINVAL;
	pa = port_add(t, a, id, 0);
	pb = pa < 0 ? pa : port_add(t, b, id, 1);
	if (pa < 0 || pb < 0)
		return -ENOMEM;
	l = vec_grow(&t->links);
	if (!l)
		return -ENOMEM;
	l->port[0] = (uint32_t)pa;
	l->port[1] = (uint32_t)pb;
	l->rate[0] = rate_ab;
	l->rate[1] = rate_ba;
	l->tier = tier;
	l->up = true;
	t->finalized = false;
	return (int)id;
}

/* Counting sort of ports by node keeps each node's ports in link order. */
static int group_ports(struct topo *t)
{
	size_t i;

	t->node_ports.n = 0;
	if (vec_reserve(&t->node_ports, t->ports.n))
		return -ENOMEM;
	for (i = 0; i < t->nodes.n; i++)
		t->nodes.v[i].nports = 0;
	for (i = 0; i < t->ports.n; i++)
		t->nodes.v[t->ports.v[i].node].nports++;
	for (i = 0; i < t->nodes.n; i++)
		t->nodes.v[i].port0 = i ? t->nodes.v[i - 1].port0 + t->nodes.v[i - 1].nports : 0;
	for (i = 0; i < t->nodes.n; i++)
		t->nodes.v[i].nports = 0;
	for (i = 0; i < t->ports.n; i++) {
		struct topo_node *n = &t->nodes.v[t->ports.v[i].node];

		t->node_ports.v[n->port0 + n->nports++] = (uint32_t)i;
	}
	t->node_ports.n = t->ports.n;
	return 0;
}

/* Names a node's ports after their peers; parallel links to one peer get ".0", ".1", ... */
static int name_ports(struct topo *t, uint32_t n, struct diag *d)
{
	const struct topo_node *node = &t->nodes.v[n];
	uint32_t i, j;

	for (i = 0; i < node->nports; i++) {
		uint32_t p = topo_node_port(t, n, i), peer = topo_port_peer_node(t, p);
		uint32_t same = 0, rank = 0;
		struct topo_port *pp = &t->ports.v[p];
		int len;

		for (j = 0; j < node->nports; j++) {
			if (topo_port_peer_node(t, topo_node_port(t, n, j)) != peer)
				continue;
			if (j < i)
				rank++;
			same++;
		}
		if (same > 1)
			len = snprintf(pp->ifname, TOPO_NAME_MAX, "%s.%u", t->nodes.v[peer].name,
				       rank);
		else
			len = snprintf(pp->ifname, TOPO_NAME_MAX, "%s", t->nodes.v[peer].name);
		if (len >= TOPO_NAME_MAX)
			return diag_set(d, -ENAMETOOLONG,
					"interface name for %s -> %s is longer than %d characters",
					node->name, t->nodes.v[peer].name, TOPO_NAME_MAX - 1);
		pp->ifindex = 2 + i;
	}
	return 0;
}

int topo_finalize(struct topo *t, struct diag *d)
{
	size_t i;
	int r;

	r = group_ports(t);
	if (r)
		return diag_set(d, r, "out of memory");
	t->endpoints.n = 0;
	for (i = 0; i < t->nodes.n; i++) {
		struct topo_node *n = &t->nodes.v[i];

		r = name_ports(t, (uint32_t)i, d);
		if (r)
			return r;
		if (n->kind != TOPO_ENDPOINT)
			continue;
		n->ep = (uint32_t)t->endpoints.n;
		if (vec_push(&t->endpoints, (uint32_t)i))
			return diag_set(d, -ENOMEM, "out of memory");
	}
	t->finalized = true;
	return 0;
}

int topo_node_find(const struct topo *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nodes.n; i++)
		if (!strcmp(t->nodes.v[i].name, name))
			return (int)i;
	return -ENOENT;
}

uint32_t topo_count_kind(const struct topo *t, enum topo_kind kind)
{
	uint32_t c = 0;
	size_t i;

	for (i = 0; i < t->nodes.n; i++)
		c += t->nodes.v[i].kind == kind;
	return c;
}

const char *topo_role_name(enum topo_role role)
{
	static const char *const names[] = {
		[TOPO_ROLE_HOST] = "host",   [TOPO_ROLE_LEAF] = "leaf",
		[TOPO_ROLE_SPINE] = "spine", [TOPO_ROLE_BEST] = "switch",
		[TOPO_ROLE_ACCEL] = "accel", [TOPO_ROLE_ROWSW] = "row",
		[TOPO_ROLE_COLSW] = "col",   [TOPO_ROLE_OCS] = "ocs",
		[TOPO_ROLE_DIMSW] = "dimsw", [TOPO_ROLE_OTHER] = "other",
	};

	return role <= TOPO_ROLE_OTHER ? names[role] : "?";
}

uint64_t topo_nic_rate_min(const struct topo *t)
{
	uint64_t slowest = 0;
	size_t i;

	for (i = 0; i < t->ports.n; i++) {
		const struct topo_port *p = &t->ports.v[i];
		uint64_t rate = topo_port_rate(t, (uint32_t)i);

		if (t->nodes.v[p->node].kind != TOPO_ENDPOINT ||
		    t->links.v[p->link].tier == TOPO_TIER_SERVER || !rate)
			continue;
		if (!slowest || rate < slowest)
			slowest = rate;
	}
	return slowest ? slowest : 1000000000ULL;
}
