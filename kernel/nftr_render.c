// SPDX-License-Identifier: MIT
/* nftables effector, text: a node's ruleset in the syntax `nft list ruleset` prints, from
 * the same plan and in the same order as nftr_node_build writes it (see nftr.h). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "lib/sbuf.h"
#include "model/addr.h"
#include "kernel/nftr_priv.h"

#define ELEMS_PER_LINE 4

/* Separator before element i of an `elements = { ... }` list, wrapping as nft does. */
static void elem_sep(struct sbuf *o, uint32_t i)
{
	if (!i)
		sbuf_put(o, "\t\telements = { ");
	else if (i % ELEMS_PER_LINE)
		sbuf_put(o, ", ");
	else
		sbuf_put(o, ",\n\t\t\t     ");
}

static void set_open(struct sbuf *o, const char *kw, const char *name, const char *type,
		     const char *flags)
{
	sbuf_put(o, "\t%s %s {\n\t\ttype %s\n", kw, name, type);
	if (flags)
		sbuf_put(o, "\t\tflags %s\n", flags);
}

static void set_close(struct sbuf *o, uint32_t n)
{
	sbuf_put(o, "%s\t}\n\n", n ? " }\n" : "");
}

static void render_edge(struct sbuf *o, const struct topo *t, const struct route_plan *plan,
			const struct route_node *rn)
{
	uint32_t i;

	set_open(o, "set", NFTR_SET_EDGE, "iface_index", NULL);
	for (i = 0; i < rn->edge_n; i++) {
		elem_sep(o, i);
		sbuf_put(o, "\"%s\"", t->ports.v[plan->ports.v[rn->edge_off + i]].ifname);
	}
	set_close(o, rn->edge_n);
}

static void render_dst(struct sbuf *o, const struct route_plan *plan, const struct route_group *g)
{
	const struct route_prefix *p;
	char name[NFTR_NAME_MAX], a[16];
	uint32_t i;

	nftr_set_name(name, sizeof(name), g->id, NFTR_DST);
	set_open(o, "set", name, "ipv4_addr", "interval");
	for (i = 0; i < g->pfx_n; i++) {
		p = &plan->prefixes.v[g->pfx_off + i];
		elem_sep(o, i);
		sbuf_put(o, "%s", addr_fmt(a, sizeof(a), p->addr));
		if (p->plen < 32)
			sbuf_put(o, "/%u", p->plen);
	}
	set_close(o, g->pfx_n);
}

static void render_hash(struct sbuf *o, const struct topo *t, const struct route_plan *plan,
			const struct route_group *g)
{
	char name[NFTR_NAME_MAX];
	uint32_t i;

	nftr_set_name(name, sizeof(name), g->id, NFTR_HASH);
	set_open(o, "map", name, "mark : mark", NULL);
	for (i = 0; i < g->nh_n; i++) {
		elem_sep(o, i);
		sbuf_put(o, "0x%08x : 0x%08x", i, nftr_member_mark(t, plan, g, i));
	}
	set_close(o, g->nh_n);
}

static void render_tag(struct sbuf *o, const struct topo *t, const struct route_plan *plan,
		       const struct route_group *g)
{
	char name[NFTR_NAME_MAX];
	uint32_t k, n = nftr_tag_count(g);

	nftr_set_name(name, sizeof(name), g->id, NFTR_TAG);
	set_open(o, "map", name, "dscp : mark", NULL);
	for (k = 1; k <= n; k++) {
		elem_sep(o, k - 1);
		sbuf_put(o, "0x%02x : 0x%08x", k, nftr_member_mark(t, plan, g, k - 1));
	}
	set_close(o, n);
}

static void render_rules(struct sbuf *o, const struct route_group *g, bool tags, const char *iif)
{
	if (g->spray)
		sbuf_put(o,
			 "\t\tip daddr @g%u_dst meta mark set numgen random mod %u map @g%u_hash\n",
			 g->id, g->nh_n, g->id);
	else
		sbuf_put(o,
			 "\t\tip daddr @g%u_dst meta mark set jhash ip saddr . ip daddr . ip "
			 "protocol . "
			 "th sport . th dport mod %u seed 0x%x map @g%u_hash\n",
			 g->id, g->nh_n, g->seed, g->id);
	if (tags)
		sbuf_put(o, "\t\t%sip daddr @g%u_dst meta mark set ip dscp map @g%u_tag\n", iif,
			 g->id, g->id);
}

static void render_chains(struct sbuf *o, const struct route_plan *plan,
			  const struct route_node *rn)
{
	const struct route_group *g = &plan->groups.v[rn->group_off];
	uint32_t i;

	sbuf_put(o,
		 "\tchain %s {\n\t\ttype filter hook prerouting priority mangle; policy accept;\n",
		 NFTR_CHAIN_PRE);
	for (i = 0; i < rn->group_n; i++)
		render_rules(o, &g[i], rn->edge_n, "iif @" NFTR_SET_EDGE " ");
	sbuf_put(
		o,
		"\t}\n\n\tchain %s {\n\t\ttype route hook output priority mangle; policy accept;\n",
		NFTR_CHAIN_OUT);
	for (i = 0; i < rn->group_n; i++)
		render_rules(o, &g[i], true, "");
	sbuf_put(o, "\t}\n");
}

int nftr_node_render(char *buf, size_t size, const struct topo *t, const struct route_plan *plan,
		     uint32_t node)
{
	const struct route_node *rn = &plan->nodes.v[node];
	struct sbuf o = {buf, size, 0};
	uint32_t i;

	if (size)
		buf[0] = '\0';
	if (!rn->group_n)
		return 0;
	sbuf_put(&o, "table ip %s {\n", NFTR_TABLE);
	if (rn->edge_n)
		render_edge(&o, t, plan, rn);
	for (i = rn->group_off; i < rn->group_off + rn->group_n; i++) {
		render_dst(&o, plan, &plan->groups.v[i]);
		render_hash(&o, t, plan, &plan->groups.v[i]);
		render_tag(&o, t, plan, &plan->groups.v[i]);
	}
	render_chains(&o, plan, rn);
	sbuf_put(&o, "}\n");
	return o.len > INT_MAX ? -EINVAL : (int)o.len;
}
