// SPDX-License-Identifier: MIT
/* Leaf-spine and "best" generators (greedy routing §5.1, vClos §4.1 and §9.3 "Best"). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/gen.h"
#include "model/ocs.h"

uint64_t gen_scale_rate(uint64_t rate, double scale)
{
	double v = (double)rate * scale;

	if (!rate)
		return 0;
	return v < 1.0 ? 1 : (uint64_t)llround(v);
}

static int add_named(struct topo *t, enum topo_kind kind, enum topo_role role, const char *pfx,
		     uint32_t i)
{
	char name[TOPO_NAME_MAX];

	snprintf(name, sizeof(name), "%s%u", pfx, i);
	return topo_node_add(t, kind, role, name, i);
}

static int add_hosts(struct topo *t, const struct scn_leafspine *ls)
{
	uint32_t i, n = ls->hosts_per_leaf * ls->leaves;
	int id;

	for (i = 0; i < n; i++) {
		id = add_named(t, TOPO_ENDPOINT, TOPO_ROLE_HOST, "h", i);
		if (id < 0)
			return id;
		t->nodes.v[id].group = i / ls->hosts_per_leaf;
		t->nodes.v[id].coord[0] = (int32_t)(i / ls->hosts_per_leaf);
		t->nodes.v[id].coord[1] = (int32_t)(i % ls->hosts_per_leaf);
	}
	return 0;
}

static int check_counts(const struct scn_leafspine *ls, bool best, struct diag *d)
{
	if (!ls->hosts_per_leaf || !ls->leaves)
		return diag_set(d, -EINVAL, "topology needs hosts_per_leaf and leaves");
	if (ls->gpus_per_server > 1 && ls->hosts_per_leaf % ls->gpus_per_server)
		return diag_set(d, -EINVAL,
				"topology.gpus_per_server (%u) must divide hosts_per_leaf (%u): a "
				"server sits under one leaf",
				ls->gpus_per_server, ls->hosts_per_leaf);
	if (!best && (!ls->spines || !ls->links_per_pair))
		return diag_set(d, -EINVAL, "leafspine needs spines and links_per_pair >= 1");
	if ((uint64_t)ls->hosts_per_leaf * ls->leaves > 65536)
		return diag_set(d, -E2BIG,
				"%llu hosts is more than the 65536 this testbed addresses",
				(unsigned long long)ls->hosts_per_leaf * ls->leaves);
	return 0;
}

/* Servers of gpus_per_server consecutive hosts, each a full mesh of direct links: the
 * NVLink/NVSwitch path that keeps intra-server traffic off the network (vClos §4.1). */
static int add_servers(struct topo *t, const struct scn_leafspine *ls, double scale)
{
	uint32_t g = ls->gpus_per_server, nh = ls->hosts_per_leaf * ls->leaves, s, a, b;
	uint64_t rate =
		gen_scale_rate(ls->server_rate ? ls->server_rate : 10 * ls->host_rate, scale);
	int r = 0;

	for (s = 0; g > 1 && r >= 0 && s < nh / g; s++)
		for (a = 0; r >= 0 && a < g; a++)
			for (b = a + 1; r >= 0 && b < g; b++)
				r = topo_link_add(t, s * g + a, s * g + b, rate, rate,
						  TOPO_TIER_SERVER);
	for (s = 0; s < nh; s++)
		t->nodes.v[s].coord[2] = (int32_t)(s / (g ? g : 1)); /* server index */
	return r < 0 ? r : 0;
}

int gen_leafspine(struct topo *t, const struct scn_leafspine *ls, double scale, struct diag *d)
{
	uint64_t hr = gen_scale_rate(ls->host_rate, scale),
		 fr = gen_scale_rate(ls->fabric_rate, scale);
	uint32_t nh = ls->hosts_per_leaf * ls->leaves, leaf0, spine0, i, j, k;
	int r;

	r = check_counts(ls, false, d);
	if (r)
		return r;
	r = add_hosts(t, ls);
	leaf0 = (uint32_t)t->nodes.n;
	for (i = 0; r >= 0 && i < ls->leaves; i++)
		r = add_named(t, TOPO_SWITCH, TOPO_ROLE_LEAF, "l", i);
	spine0 = (uint32_t)t->nodes.n;
	for (i = 0; r >= 0 && i < ls->spines; i++)
		r = add_named(t, TOPO_SWITCH, TOPO_ROLE_SPINE, "s", i);
	for (i = 0; r >= 0 && i < nh; i++)
		r = topo_link_add(t, i, leaf0 + i / ls->hosts_per_leaf, hr, hr, TOPO_TIER_EDGE);
	if (r >= 0 && ls->ocs.count) /* leaves and spines cabled to OCSes instead */
		r = ocs_gen_layer(t, ls, leaf0, spine0, fr, d);
	for (i = 0; r >= 0 && !ls->ocs.count && i < ls->leaves; i++)
		for (j = 0; r >= 0 && j < ls->spines; j++)
			for (k = 0; r >= 0 && k < ls->links_per_pair; k++)
				r = topo_link_add(t, leaf0 + i, spine0 + j, fr, fr,
						  TOPO_TIER_FABRIC);
	if (r >= 0)
		r = add_servers(t, ls, scale);
	if (r < 0)
		return diag_set(d, r, "building the leaf-spine: %s", strerror(-r));
	return 0;
}

int gen_best(struct topo *t, const struct scn_leafspine *ls, double scale, struct diag *d)
{
	uint64_t hr = gen_scale_rate(ls->host_rate, scale);
	uint32_t nh = ls->hosts_per_leaf * ls->leaves, i;
	int r, sw;

	r = check_counts(ls, true, d);
	if (r)
		return r;
	r = add_hosts(t, ls);
	sw = r ? r : topo_node_add(t, TOPO_SWITCH, TOPO_ROLE_BEST, "sw", 0);
	r = sw < 0 ? sw : 0;
	for (i = 0; !r && i < nh; i++)
		r = topo_link_add(t, i, (uint32_t)sw, hr, hr, TOPO_TIER_EDGE) < 0 ? -ENOMEM : 0;
	if (!r)
		r = add_servers(t, ls, scale);
	if (r)
		return diag_set(d, r, "building the best topology: out of memory");
	return 0;
}
