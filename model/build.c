// SPDX-License-Identifier: MIT
/* Scenario -> topology: generator, scaling, seeds, delays, finalize, addressing. */
#include <errno.h>
#include <string.h>

#include "model/addr.h"
#include "model/gen.h"
#include "model/ocs.h"

uint32_t gen_switch_seed(uint32_t base, uint32_t id)
{
	/* murmur3's finalizer: neighbouring switches get unrelated seeds */
	uint32_t h = base ^ (id * 0x9e3779b9u);

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static int apply_seeds(struct topo *t, const struct scn_routing *rt, struct diag *d)
{
	size_t i;
	int n;

	for (i = 0; i < t->nodes.n; i++) {
		t->nodes.v[i].seed = gen_switch_seed(rt->seed, (uint32_t)i);
		t->nodes.v[i].spray = rt->spray;
	}
	for (i = 0; i < rt->seeds.n; i++) {
		n = topo_node_find(t, rt->seeds.v[i].node);
		if (n < 0 || !t->nodes.v[n].forwards)
			return diag_set(d, -EINVAL, "routing.seeds: no switch named '%s'",
					rt->seeds.v[i].node);
		t->nodes.v[n].seed = rt->seeds.v[i].seed;
	}
	return 0;
}

/* Links the generator will make, from its counting formulas (0 when it has none: its own
 * host limit bounds it). */
static uint64_t planned_links(const struct scenario *s)
{
	struct gen_multidim_counts mc;
	struct gen_direct_counts dc;
	struct gen_hxmesh_counts hc;

	switch (s->topology.gen) {
	case SCN_GEN_MULTIDIM:
		return gen_multidim_counts(&s->topology.md, &mc) ? 0 : mc.links;
	case SCN_GEN_DIRECT:
		return gen_direct_counts(&s->topology.dr, &dc) ? 0 : dc.links;
	case SCN_GEN_HAMMINGMESH:
		return gen_hxmesh_counts(&s->topology.hx, &hc)
			       ? 0
			       : hc.board_links + hc.edge_cables + hc.fabric_cables;
	default:
		return 0;
	}
}

/* The prefix's link half holds a /31 per link (addr_assign): a topology that cannot fit is
 * refused from its counts, before gigabytes of it are built. */
static int check_size(const struct scenario *s, struct diag *d)
{
	uint8_t plen = s->addressing.plen;
	uint64_t half = plen && plen < 32 ? (1ULL << (32 - plen)) / 2 : 0;
	uint64_t links = planned_links(s);

	if (half && 2 * links > half)
		return diag_set(
			d, -E2BIG,
			"addressing prefix /%u is too small: %llu links need %llu addresses, "
			"the prefix's link half has %llu",
			plen, (unsigned long long)links, (unsigned long long)(2 * links),
			(unsigned long long)half);
	return 0;
}

static int generate(const struct scenario *s, struct topo *t, struct diag *d)
{
	double scale = s->emulation.rate_scale > 0 ? s->emulation.rate_scale : 1.0; /* 0: auto,
										    measured at 1 */

	switch (s->topology.gen) {
	case SCN_GEN_LEAFSPINE:
		return gen_leafspine(t, &s->topology.ls, scale, d);
	case SCN_GEN_BEST:
		return gen_best(t, &s->topology.ls, scale, d);
	case SCN_GEN_HAMMINGMESH: {
		struct gen_hxmesh_params hp = s->topology.hx;

		hp.ocs = s->topology.ls.ocs.count; /* topology.ocs, shared with leafspine */
		if (hp.ocs && s->topology.ls.ocs.spine_ports)
			return diag_set(d, -EINVAL,
					"topology.ocs.spine_ports: only a leafspine has spines; a "
					"hammingmesh's OCSes take its edge cables in turn");
		return gen_hxmesh(t, &hp, scale, d);
	}
	case SCN_GEN_MULTIDIM:
		return gen_multidim(t, &s->topology.md, scale, d);
	case SCN_GEN_DIRECT:
		return gen_direct(t, &s->topology.dr, scale, d);
	}
	return diag_set(d, -EINVAL, "unknown topology kind");
}

int topo_build(const struct scenario *s, struct topo **out, struct diag *d)
{
	struct topo *t = topo_new();
	size_t i;
	int r;

	if (!t)
		return diag_set(d, -ENOMEM, "out of memory");
	r = check_size(s, d);
	r = r ? r : generate(s, t, d);
	if (r)
		goto out;
	for (i = 0; i < t->links.n; i++)
		t->links.v[i].delay_ns = s->topology.delay_ns;
	r = topo_finalize(t, d);
	if (r)
		goto out;
	r = apply_seeds(t, &s->routing, d);
	if (r)
		goto out;
	r = addr_assign(t, s->addressing.base, s->addressing.plen, d);
	if (!r && s->topology.gen == SCN_GEN_LEAFSPINE && s->topology.ls.ocs.count)
		r = ocs_build(&t, &s->topology.ls.ocs, ocs_spine_ports(&s->topology.ls),
			      d); /* t becomes the logical view */
	else if (!r && s->topology.gen == SCN_GEN_HAMMINGMESH && s->topology.ls.ocs.count)
		r = ocs_build(&t, &s->topology.ls.ocs, 0, d);
out:
	if (r) {
		topo_free(t);
		return r;
	}
	*out = t;
	return 0;
}

double gen_auto_scale(const struct topo *t, uint64_t capacity_bps, uint64_t link_max_bps)
{
	double scale = 1.0, aggregate = 0, fastest = 0;
	size_t i;

	for (i = 0; i < t->ports.n; i++) {
		const struct topo_port *p = &t->ports.v[i];
		double rate = (double)topo_port_rate(t, (uint32_t)i);

		if (rate > fastest)
			fastest = rate;
		if (t->nodes.v[p->node].kind == TOPO_ENDPOINT &&
		    t->links.v[p->link].tier != TOPO_TIER_SERVER)
			aggregate += rate;
	}
	if (aggregate > 0 && (double)capacity_bps / aggregate < scale)
		scale = (double)capacity_bps / aggregate;
	if (fastest > 0 && (double)link_max_bps / fastest < scale)
		scale = (double)link_max_bps / fastest;
	return scale;
}
