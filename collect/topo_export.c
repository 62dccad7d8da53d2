// SPDX-License-Identifier: MIT
/* The topology as a Graphviz graph and as a containerlab topology file (topo_export.h).
 * Names need no escaping: nodes are named by the generators ([a-z0-9-]), scenarios [a-z0-9-]. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/topo_export.h"
#include "lib/sbuf.h"
#include "lib/units.h"
#include "model/addr.h"
#include "model/ocs.h"

/* How a role is drawn: endpoints as boxes, each layer of switches its own shape and colour. */
struct exp_style {
	const char *shape, *fill;
};

static const struct exp_style styles[] = {
	[TOPO_ROLE_HOST] = {"box", "#cfe2f3"},	    [TOPO_ROLE_ACCEL] = {"box", "#d9ead3"},
	[TOPO_ROLE_LEAF] = {"ellipse", "#fce5cd"},  [TOPO_ROLE_SPINE] = {"octagon", "#f4cccc"},
	[TOPO_ROLE_BEST] = {"octagon", "#f4cccc"},  [TOPO_ROLE_ROWSW] = {"hexagon", "#fff2cc"},
	[TOPO_ROLE_COLSW] = {"hexagon", "#ead1dc"}, [TOPO_ROLE_DIMSW] = {"hexagon", "#fff2cc"},
	[TOPO_ROLE_OCS] = {"diamond", "#d9d2e9"},   [TOPO_ROLE_OTHER] = {"ellipse", "#eeeeee"},
};

static const struct exp_style *style_of(enum topo_role r)
{
	bool known = (unsigned)r < sizeof(styles) / sizeof(styles[0]) && styles[r].shape;

	return &styles[known ? r : TOPO_ROLE_OTHER];
}

/* The cables: under OCS layers the physical view, else t itself. */
static const struct topo *cables(const struct topo *t)
{
	return t->phys ? t->phys : t;
}

/* "100Gbit", "100Gbit, 2us", "100Gbit / 25Gbit" (port 0's way first), "" when neither. */
static char *link_label(char *buf, size_t len, const struct topo_link *l)
{
	struct sbuf s = {buf, len, 0};
	uint64_t a = l->rate[0], b = l->rate[1];
	char v[32];

	buf[0] = '\0';
	if (a || b) /* an OCS cable is shaped one way only: into the OCS */
		sbuf_put(&s, "%s", units_fmt_rate(v, sizeof(v), a ? a : b));
	if (a && b && a != b)
		sbuf_put(&s, " / %s", units_fmt_rate(v, sizeof(v), b));
	if (l->delay_ns)
		sbuf_put(&s, "%s%s", s.len ? ", " : "", units_fmt_time(v, sizeof(v), l->delay_ns));
	return buf;
}

/* What an endpoint group is here: a leaf's hosts, a HammingMesh board, or the generator's
 * group (a row of a direct network, a group of a multidim platform's first dimension). */
static const char *group_noun(const struct topo *t)
{
	bool leaves = false;
	size_t i;

	for (i = 0; i < t->nodes.n; i++) {
		if (t->nodes.v[i].role == TOPO_ROLE_ACCEL)
			return "board";
		leaves |= t->nodes.v[i].role == TOPO_ROLE_LEAF;
	}
	return leaves ? "leaf" : "group";
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t key_group(uint64_t k)
{
	return (uint32_t)(k >> 32);
}

/* t's endpoints as keys group << 32 | node id, sorted: by group, then id. *n of them in a new
 * array, NULL on ENOMEM. */
static uint64_t *by_group(const struct topo *t, size_t *n)
{
	uint64_t *k = malloc((t->nodes.n + 1) * sizeof(*k));
	size_t i;

	*n = 0;
	for (i = 0; k && i < t->nodes.n; i++)
		if (t->nodes.v[i].kind == TOPO_ENDPOINT)
			k[(*n)++] = (uint64_t)t->nodes.v[i].group << 32 | i;
	if (k)
		qsort(k, *n, sizeof(*k), cmp_u64);
	return k;
}

/* Whether t's endpoints fall into more than one group. */
static bool has_groups(const struct topo *t)
{
	size_t i;

	for (i = 1; i < t->endpoints.n; i++)
		if (t->nodes.v[t->endpoints.v[i]].group != t->nodes.v[t->endpoints.v[0]].group)
			return true;
	return false;
}

/* The circuits at `up` of t's OCSes (all, or only node ocs's when not TOPO_NONE, with their
 * containerlab interfaces), one comment line each after pfx. 0 or -ENOMEM. */
static int put_circuits(struct col_text *o, const struct topo *t, const char *pfx, uint32_t ocs)
{
	const struct topo *p = t->phys;
	uint32_t *xc, a;
	char b[64];

	if (!p)
		return 0;
	xc = malloc(t->ports.n * sizeof(*xc) + 1);
	if (!xc)
		return -ENOMEM;
	ocs_circuits_of(t, xc); /* the logical view's ports are the physical one's */
	for (a = 0; a < t->ports.n; a++) {
		if (xc[a] == TOPO_NONE || xc[a] < a ||
		    (ocs != TOPO_NONE && p->ports.v[a].node != ocs))
			continue;
		col_text_printf(o, "%scircuit %s", pfx,
				ocs_circuit_name(b, sizeof(b), p, a, xc[a]));
		if (ocs != TOPO_NONE)
			col_text_printf(o, ": eth%u-eth%u", col_clab_eth(p, a),
					col_clab_eth(p, xc[a]));
		col_text_printf(o, "\n");
	}
	free(xc);
	return 0;
}

/* ---- Graphviz ---- */

static void dot_node(struct col_text *o, const struct topo *t, uint32_t id, const char *indent)
{
	const struct topo_node *n = &t->nodes.v[id];
	const struct exp_style *s = style_of(n->role);
	char a[16];

	col_text_printf(o, "%s\"%s\" [shape=%s, fillcolor=\"%s\"", indent, n->name, s->shape,
			s->fill);
	if (n->kind == TOPO_ENDPOINT)
		col_text_printf(o, ", label=\"%s\\n%s\"", n->name, addr_fmt(a, sizeof(a), n->addr));
	col_text_printf(o, "];\n");
}

/* The endpoints, by group, each group a cluster when there are several. 0 or -ENOMEM. */
static int dot_endpoints(struct col_text *o, const struct topo *t)
{
	const char *noun = group_noun(t);
	bool clusters = has_groups(t);
	size_t n, i;
	uint64_t *k = by_group(t, &n);
	uint32_t g;

	if (!k)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		g = key_group(k[i]);
		if (clusters && (!i || g != key_group(k[i - 1])))
			col_text_printf(o, "\tsubgraph cluster_g%u {\n\t\tlabel=\"%s %u\";\n", g,
					noun, g);
		dot_node(o, t, (uint32_t)k[i], clusters ? "\t\t" : "\t");
		if (clusters && (i + 1 == n || g != key_group(k[i + 1])))
			col_text_printf(o, "\t}\n");
	}
	free(k);
	return 0;
}

/* A cable into an OCS is dashed, one inside a server (NVLink) bold. */
static const char *tier_style(enum topo_tier tier)
{
	return tier == TOPO_TIER_OCS ? "dashed" : tier == TOPO_TIER_SERVER ? "bold" : NULL;
}

static void dot_edge(struct col_text *o, const struct topo *t, uint32_t id)
{
	const struct topo_link *l = &t->links.v[id];
	const char *style = tier_style(l->tier);
	char lb[96], attrs[160];
	struct sbuf a = {attrs, sizeof(attrs), 0};

	attrs[0] = '\0';
	if (link_label(lb, sizeof(lb), l)[0])
		sbuf_put(&a, "label=\"%s\"", lb);
	if (style)
		sbuf_put(&a, "%sstyle=%s", a.len ? ", " : "", style);
	col_text_printf(o, "\t\"%s\" -- \"%s\"%s%s%s;\n",
			t->nodes.v[t->ports.v[l->port[0]].node].name,
			t->nodes.v[t->ports.v[l->port[1]].node].name, a.len ? " [" : "", attrs,
			a.len ? "]" : "");
}

int col_topo_dot(struct col_text *o, const struct topo *t, const char *name)
{
	const struct topo *c = cables(t);
	size_t i;
	int r;

	col_text_printf(o,
			"// %s: the topology `testbed up` builds (testbed export --dot).\n"
			"// Rates are the scenario's, before emulation.rate_scale. "
			"Render: dot -Tsvg FILE >FILE.svg\n",
			name);
	r = put_circuits(o, t, "// at `up`: ", TOPO_NONE);
	col_text_printf(o, "graph \"%s\" {\n", name);
	col_text_printf(o,
			"\tgraph [label=\"%s\", labelloc=t, fontname=\"Helvetica\"];\n"
			"\tnode [style=filled, fontname=\"Helvetica\"];\n"
			"\tedge [fontname=\"Helvetica\", fontsize=10];\n",
			name);
	r = r ? r : dot_endpoints(o, c);
	for (i = 0; i < c->nodes.n; i++)
		if (c->nodes.v[i].kind != TOPO_ENDPOINT)
			dot_node(o, c, (uint32_t)i, "\t");
	for (i = 0; i < c->links.n; i++)
		dot_edge(o, c, (uint32_t)i);
	col_text_printf(o, "}\n");
	return r ? r : o->err;
}

/* ---- containerlab ---- */

static void clab_header(struct col_text *o, const struct topo *t, const char *name)
{
	col_text_printf(
		o,
		"# %s: the topology `testbed up` builds, as a containerlab topology file\n"
		"# (testbed export --containerlab). Only the wiring and the addresses are "
		"exported:\n"
		"# routing, ECMP, shaping (rates, queues) and delays are not. Rates are comments,\n"
		"# the scenario's, before emulation.rate_scale.\n"
		"# Every node is a plain Linux container (kind linux, image %s): nothing in it\n"
		"# routes; give switches a routing stack (an FRR image, say) to forward.\n"
		"# Interfaces eth1, eth2, ... follow the node's ports in the testbed (named there\n"
		"# after the peer, in the comments); eth0 is containerlab's management interface.\n"
		"# An endpoint's identity address is a /32 on lo, as in the testbed.\n",
		name, COL_CLAB_IMAGE);
	if (t->phys)
		col_text_printf(o, "# An OCS joins its ports in pairs (its circuits at `up`, in "
				   "comments); the container\n# does not: join them yourself (a "
				   "bridge per circuit, say).\n");
}

/* The node's addresses as `exec:` commands: its identity on lo, then its ports'. */
static void clab_exec(struct col_text *o, const struct topo *t, uint32_t id)
{
	const struct topo_node *n = &t->nodes.v[id];
	uint32_t i, addrs = n->kind == TOPO_ENDPOINT;
	char a[16];

	for (i = 0; i < n->nports; i++)
		addrs += t->ports.v[topo_node_port(t, id, i)].plen != 0;
	if (addrs)
		col_text_printf(o, "      exec:\n");
	if (n->kind == TOPO_ENDPOINT)
		col_text_printf(o, "        - ip addr add %s/32 dev lo\n",
				addr_fmt(a, sizeof(a), n->addr));
	for (i = 0; i < n->nports; i++) {
		uint32_t p = topo_node_port(t, id, i);
		const struct topo_port *pp = &t->ports.v[p];

		if (pp->plen) /* OCS ports have no address */
			col_text_printf(o, "        - ip addr add %s/%u dev eth%u # %s\n",
					addr_fmt(a, sizeof(a), pp->addr), pp->plen,
					col_clab_eth(t, p), pp->ifname);
	}
}

static int clab_node(struct col_text *o, const struct topo *t, uint32_t id, const char *noun)
{
	const struct topo *c = cables(t);
	const struct topo_node *n = &c->nodes.v[id];

	col_text_printf(o, "    %s: # %s\n      kind: linux\n      image: %s\n", n->name,
			topo_role_name(n->role), COL_CLAB_IMAGE);
	if (noun && n->kind == TOPO_ENDPOINT)
		col_text_printf(o, "      group: %s%u\n", noun, n->group);
	if (n->kind == TOPO_OCS)
		return put_circuits(o, t, "      # ", id);
	clab_exec(o, c, id);
	return 0;
}

static void clab_link(struct col_text *o, const struct topo *t, uint32_t id)
{
	const struct topo_link *l = &t->links.v[id];
	uint32_t a = l->port[0], b = l->port[1];
	char lb[96];

	col_text_printf(o, "    - endpoints: [\"%s:eth%u\", \"%s:eth%u\"]",
			t->nodes.v[t->ports.v[a].node].name, col_clab_eth(t, a),
			t->nodes.v[t->ports.v[b].node].name, col_clab_eth(t, b));
	if (link_label(lb, sizeof(lb), l)[0])
		col_text_printf(o, " # %s", lb);
	col_text_printf(o, "\n");
}

int col_topo_clab(struct col_text *o, const struct topo *t, const char *name)
{
	const struct topo *c = cables(t);
	const char *noun = has_groups(c) ? group_noun(c) : NULL;
	size_t i;
	int r = 0;

	clab_header(o, t, name);
	col_text_printf(o, "name: %s\n\ntopology:\n  nodes:\n", name);
	for (i = 0; !r && i < c->nodes.n; i++)
		r = clab_node(o, t, (uint32_t)i, noun);
	col_text_printf(o, "\n  links:\n");
	for (i = 0; i < c->links.n; i++)
		clab_link(o, c, (uint32_t)i);
	return r ? r : o->err;
}
