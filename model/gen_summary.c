// SPDX-License-Identifier: MIT
/* What a scenario's generator makes, in its paper's terms (formula counts, diameter), for
 * `testbed check`: the graph's own counts are printed beside it, so the two can be compared. */
#include <stdio.h>

#include "lib/sbuf.h"
#include "lib/units.h"
#include "model/gen.h"

static void hx_net(struct sbuf *o, const char *what, const struct gen_hxmesh_net *n)
{
	sbuf_put(o, "\n           %s %llu networks of %llu ports, ", what,
		 (unsigned long long)n->count, (unsigned long long)n->ports);
	if (n->levels == 1)
		sbuf_put(o, "one switch each");
	else
		sbuf_put(o, "fat trees of %u leaves (%u down, %u up) and %u spines", n->leaves,
			 n->down, n->uplinks, n->spines);
}

/* HammingMesh §III naming: HaxbMesh, or Hx<a>Mesh for square boards */
static void hx_summary(struct sbuf *o, const struct gen_hxmesh_params *p)
{
	struct gen_hxmesh_counts c;

	if (gen_hxmesh_counts(p, &c))
		return;
	if (p->a == p->b)
		sbuf_put(o, "hammingmesh %ux%u Hx%uMesh", p->x, p->y, p->a);
	else
		sbuf_put(o, "hammingmesh %ux%u H%ux%uMesh", p->x, p->y, p->a, p->b);
	sbuf_put(o, ": %llu accelerators on %llu boards, %llu PCB links",
		 (unsigned long long)c.accels, (unsigned long long)c.boards,
		 (unsigned long long)c.board_links);
	hx_net(o, "rows:   ", &c.row);
	hx_net(o, "columns:", &c.col);
	sbuf_put(o,
		 "\n           per plane %llu switches, %llu cables (%llu DAC, %llu AoC); diameter "
		 "%u",
		 (unsigned long long)c.switches, (unsigned long long)c.cables,
		 (unsigned long long)c.dac, (unsigned long long)c.aoc, c.diameter);
	sbuf_put(o,
		 "\n           %u plane%s (one built): %llu switches, US$ %llu "
		 "(HammingMesh §III-C)",
		 p->planes, p->planes > 1 ? "s" : "", (unsigned long long)c.total_switches,
		 (unsigned long long)c.total_cost_usd);
}

static void md_summary(struct sbuf *o, const struct gen_multidim_params *p)
{
	static const char *const type[] = {"switch", "ring", "fc"};
	struct gen_multidim_counts c;
	char r[32];
	uint32_t k;

	if (gen_multidim_counts(p, &c))
		return;
	sbuf_put(o, "multidim ");
	for (k = 0; k < p->ndims; k++)
		sbuf_put(o, "%s%u", k ? "x" : "", p->dim[k].size);
	sbuf_put(o, ": %llu nodes, %llu switches, %llu links, %u ports per node%s",
		 (unsigned long long)c.nodes, (unsigned long long)c.switches,
		 (unsigned long long)c.links, c.degree, c.forwards ? ", nodes forward" : "");
	for (k = 0; k < p->ndims; k++)
		sbuf_put(o, "\n           dim %u: %s of %u, %s per node on %u link%s", k,
			 type[p->dim[k].type], p->dim[k].size,
			 units_fmt_rate(r, sizeof(r), p->dim[k].rate), c.dim[k].degree,
			 c.dim[k].degree > 1 ? "s" : "");
}

static void dr_summary(struct sbuf *o, const struct gen_direct_params *p)
{
	static const char *const shape[] = {"mesh2d", "torus2d",   "torus3d",
					    "ring",   "hypercube", "unwound"};
	static const uint32_t extents[] = {2, 2, 3, 0, 0, 0};
	struct gen_direct_counts c;
	uint32_t k, n = p->kind == GEN_DIRECT_UNWOUND ? p->ndims : extents[p->kind];

	if (gen_direct_counts(p, &c))
		return;
	sbuf_put(o, "direct %s", shape[p->kind]);
	for (k = 0; k < n; k++)
		sbuf_put(o, "%s%u", k ? "x" : " ",
			 p->kind == GEN_DIRECT_UNWOUND ? p->dim[k].size : p->size[k]);
	sbuf_put(o, ": %llu nodes, %llu links, ", (unsigned long long)c.nodes,
		 (unsigned long long)c.links);
	if (c.degree_min != c.degree_max)
		sbuf_put(o, "%u to ", c.degree_min);
	sbuf_put(o, "%u links per node, diameter %u", c.degree_max, c.diameter);
	for (k = 0; k < p->nfailed; k++) /* the counts are the whole shape's */
		sbuf_put(o, "%s%u", k ? ", " : "; failed NPUs ", p->failed[k]);
}

int gen_summary(const struct scenario *s, char *buf, size_t size)
{
	struct sbuf o = {buf, size, 0};

	if (size)
		buf[0] = '\0';
	switch (s->topology.gen) {
	case SCN_GEN_HAMMINGMESH:
		hx_summary(&o, &s->topology.hx);
		break;
	case SCN_GEN_MULTIDIM:
		md_summary(&o, &s->topology.md);
		break;
	case SCN_GEN_DIRECT:
		dr_summary(&o, &s->topology.dr);
		break;
	default:
		break;
	}
	return (int)o.len;
}
