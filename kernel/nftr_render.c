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

/* The prefix of the node's groups that starts lowest at or after `from` (nft lists an
 * interval map's elements by address); its group in *gid. NULL when none is left. */
static const struct route_prefix *next_prefix(const struct route_plan *plan,
					      const struct route_node *rn, uint64_t from,
					      uint32_t *gid)
{
	const struct route_prefix *best = NULL, *p;
	const struct route_group *g;
	uint32_t i, k;

	for (k = 0; k < rn->group_n; k++) {
		g = &plan->groups.v[rn->group_off + k];
		for (i = 0; i < g->pfx_n; i++) {
			p = &plan->prefixes.v[g->pfx_off + i];
			if (p->addr >= from && (!best || p->addr < best->addr)) {
				best = p;
				*gid = g->id;
			}
		}
	}
	return best;
}

static void render_vmap(struct sbuf *o, const struct route_plan *plan, const struct route_node *rn,
			enum nftr_hook h)
{
	const struct route_prefix *p;
	char chain[NFTR_NAME_MAX], a[16];
	uint64_t from = 0;
	uint32_t n = 0, gid = 0;

	set_open(o, "map", nftr_hook_map(h), "ipv4_addr : verdict", "interval");
	while ((p = next_prefix(plan, rn, from, &gid))) {
		nftr_group_chain(chain, sizeof(chain), gid, h);
		elem_sep(o, n++);
		sbuf_put(o, "%s", addr_fmt(a, sizeof(a), p->addr));
		if (p->plen < 32)
			sbuf_put(o, "/%u", p->plen);
		sbuf_put(o, " : goto %s", chain);
		from = (uint64_t)p->addr + 1;
	}
	set_close(o, n);
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

static void render_group(struct sbuf *o, const struct route_group *g, enum nftr_hook h, bool edge)
{
	char chain[NFTR_NAME_MAX];

	nftr_group_chain(chain, sizeof(chain), g->id, h);
	sbuf_put(o, "\n\tchain %s {\n", chain);
	if (g->spray)
		sbuf_put(o, "\t\tmeta mark set numgen random mod %u map @g%u_hash\n", g->nh_n,
			 g->id);
	else
		sbuf_put(o,
			 "\t\tmeta mark set jhash ip saddr . ip daddr . ip protocol . th sport . "
			 "th dport mod %u seed 0x%x map @g%u_hash\n",
			 g->nh_n, g->seed, g->id);
	if (h == NFTR_OUT || edge)
		sbuf_put(o, "\t\t%smeta mark set ip dscp map @g%u_tag\n",
			 h == NFTR_PRE ? "iif @" NFTR_SET_EDGE " " : "", g->id);
	sbuf_put(o, "\t}\n");
}

static void render_chains(struct sbuf *o, const struct route_plan *plan,
			  const struct route_node *rn)
{
	const struct route_group *g = &plan->groups.v[rn->group_off];
	uint32_t i;

	sbuf_put(o,
		 "\tchain %s {\n\t\ttype filter hook prerouting priority mangle; policy accept;\n"
		 "\t\tip daddr vmap @%s\n\t}\n",
		 NFTR_CHAIN_PRE, nftr_hook_map(NFTR_PRE));
	sbuf_put(o,
		 "\n\tchain %s {\n\t\ttype route hook output priority mangle; policy accept;\n"
		 "\t\tip daddr vmap @%s\n\t}\n",
		 NFTR_CHAIN_OUT, nftr_hook_map(NFTR_OUT));
	for (i = 0; i < rn->group_n; i++) {
		render_group(o, &g[i], NFTR_PRE, rn->edge_n > 0);
		render_group(o, &g[i], NFTR_OUT, rn->edge_n > 0);
	}
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
		render_hash(&o, t, plan, &plan->groups.v[i]);
		render_tag(&o, t, plan, &plan->groups.v[i]);
	}
	render_vmap(&o, plan, rn, NFTR_PRE);
	render_vmap(&o, plan, rn, NFTR_OUT);
	render_chains(&o, plan, rn);
	sbuf_put(&o, "}\n");
	return o.len > INT_MAX ? -EINVAL : (int)o.len;
}
