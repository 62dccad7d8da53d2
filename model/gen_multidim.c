// SPDX-License-Identifier: MIT
/* Themis-style multi-dimensional platforms (see gen_multidim.h; Themis §2.3, Table 2). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/gen.h"
#include "model/gen_multidim.h"

#define MD_MAX_NODES 65536 /* what the testbed addresses */

static int check(const struct gen_multidim_params *p, struct diag *d)
{
	uint64_t n = 1;
	uint32_t k;

	if (!p->ndims || p->ndims > GEN_MULTIDIM_MAX)
		return diag_set(d, -EINVAL, "multidim: %u dimensions; 1 to %d are supported",
				p->ndims, GEN_MULTIDIM_MAX);
	for (k = 0; k < p->ndims; k++) {
		if (p->dim[k].type > GEN_DIM_FC)
			return diag_set(d, -EINVAL, "multidim: dimension %u: unknown type", k);
		if (p->dim[k].size < 2)
			return diag_set(d, -EINVAL, "multidim: dimension %u has size %u, not >= 2",
					k, p->dim[k].size);
		n *= p->dim[k].size;
		if (n > (1ULL << 32))
			return diag_set(d, -E2BIG, "multidim: more than 2^32 nodes");
	}
	return 0;
}

static uint32_t dim_degree(const struct gen_dim *g)
{
	switch (g->type) {
	case GEN_DIM_SWITCH:
		return 1;
	case GEN_DIM_RING:
		return g->size == 2 ? 1 : 2;
	case GEN_DIM_FC:
		return g->size - 1;
	}
	return 0;
}

static void dim_counts(const struct gen_dim *g, uint64_t nodes, struct gen_multidim_dim_counts *c)
{
	c->groups = nodes / g->size;
	c->degree = dim_degree(g);
	c->links = nodes * c->degree / (g->type == GEN_DIM_SWITCH ? 1 : 2);
	c->switches = g->type == GEN_DIM_SWITCH ? c->groups : 0;
}

/* Rings of 4 or more need relaying to non-neighbours, and with D >= 2 a node differing in two
 * coordinates is reachable only through a node sharing a group with each endpoint. */
static bool needs_forwarding(const struct gen_multidim_params *p)
{
	uint32_t k;

	if (p->ndims >= 2)
		return true;
	for (k = 0; k < p->ndims; k++)
		if (p->dim[k].type == GEN_DIM_RING && p->dim[k].size >= 4)
			return true;
	return false;
}

int gen_multidim_counts(const struct gen_multidim_params *p, struct gen_multidim_counts *out)
{
	uint32_t k;
	int r;

	memset(out, 0, sizeof(*out));
	r = check(p, NULL);
	if (r)
		return r;
	out->nodes = 1;
	for (k = 0; k < p->ndims; k++)
		out->nodes *= p->dim[k].size;
	for (k = 0; k < p->ndims; k++) {
		dim_counts(&p->dim[k], out->nodes, &out->dim[k]);
		out->switches += out->dim[k].switches;
		out->links += out->dim[k].links;
		out->degree += out->dim[k].degree;
	}
	out->forwards = needs_forwarding(p);
	return 0;
}

uint64_t gen_multidim_link_rate(const struct gen_multidim_params *p, uint32_t k)
{
	return gen_scale_rate(p->dim[k].rate, 1.0 / dim_degree(&p->dim[k]));
}

/* ---- building ---- */

struct md_build {
	struct topo *t;
	const struct gen_multidim_params *p;
	struct gen_multidim_counts c;
	double scale;
	uint32_t sw0[GEN_MULTIDIM_MAX]; /* node id of each dimension's first switch */
};

/* Node id of member m of group g of dimension k: g's digits are the node's other coordinates. */
static uint32_t member(const struct md_build *b, uint32_t k, uint32_t g, uint32_t m)
{
	uint32_t stride = 1, j;

	for (j = 0; j < k; j++)
		stride *= b->p->dim[j].size;
	return (g / stride) * stride * b->p->dim[k].size + m * stride + g % stride;
}

static int add_nodes(struct md_build *b)
{
	uint32_t n = (uint32_t)b->c.nodes, i, k;
	char name[TOPO_NAME_MAX];

	for (i = 0; i < n; i++) {
		struct topo_node *node;
		uint32_t rest = i;
		int id;

		snprintf(name, sizeof(name), "n%u", i);
		id = topo_node_add(b->t, TOPO_ENDPOINT, TOPO_ROLE_HOST, name, i);
		if (id < 0)
			return id;
		node = &b->t->nodes.v[id];
		node->forwards = b->c.forwards;
		node->group = i / b->p->dim[0].size;
		for (k = 0; k < b->p->ndims; k++) {
			node->coord[k] = (int32_t)(rest % b->p->dim[k].size);
			rest /= b->p->dim[k].size;
		}
	}
	return 0;
}

static int add_switches(struct md_build *b)
{
	char name[TOPO_NAME_MAX];
	uint32_t k, g;
	int id;

	for (k = 0; k < b->p->ndims; k++) {
		b->sw0[k] = (uint32_t)b->t->nodes.n;
		for (g = 0; g < b->c.dim[k].switches; g++) {
			snprintf(name, sizeof(name), "d%us%u", k, g);
			id = topo_node_add(b->t, TOPO_SWITCH, TOPO_ROLE_DIMSW, name, g);
			if (id < 0)
				return id;
			b->t->nodes.v[id].coord[0] = (int32_t)k;
			b->t->nodes.v[id].coord[1] = (int32_t)g;
		}
	}
	return 0;
}

static int add_link(struct md_build *b, uint32_t k, uint32_t u, uint32_t v)
{
	const struct gen_dim *g = &b->p->dim[k];
	uint64_t rate = gen_scale_rate(g->rate, b->scale / dim_degree(g));
	int l;

	l = topo_link_add(b->t, u, v, rate, rate,
			  g->type == GEN_DIM_SWITCH ? TOPO_TIER_EDGE : TOPO_TIER_DIRECT);
	if (l < 0)
		return l;
	b->t->links.v[l].dim = (uint16_t)k;
	return 0;
}

/* The links of group g of dimension k (Themis Table 2: Ring, FC or SW). */
static int add_group(struct md_build *b, uint32_t k, uint32_t g)
{
	const struct gen_dim *dim = &b->p->dim[k];
	uint32_t m, o, size = dim->size;
	int r = 0;

	for (m = 0; !r && m < size; m++) {
		switch (dim->type) {
		case GEN_DIM_SWITCH:
			r = add_link(b, k, member(b, k, g, m), b->sw0[k] + g);
			break;
		case GEN_DIM_RING: /* m -> m+1; a ring of 2 is one link */
			if (m + 1 < size || size > 2)
				r = add_link(b, k, member(b, k, g, m),
					     member(b, k, g, (m + 1) % size));
			break;
		case GEN_DIM_FC:
			for (o = m + 1; !r && o < size; o++)
				r = add_link(b, k, member(b, k, g, m), member(b, k, g, o));
			break;
		}
	}
	return r;
}

int gen_multidim_validate(const struct gen_multidim_params *p, struct diag *d)
{
	struct gen_multidim_counts c;
	int r;

	r = check(p, d);
	if (r)
		return r;
	gen_multidim_counts(p, &c);
	if (c.nodes > MD_MAX_NODES)
		return diag_set(d, -E2BIG, "multidim: %llu nodes; the testbed addresses %u",
				(unsigned long long)c.nodes, MD_MAX_NODES);
	return 0;
}

int gen_multidim(struct topo *t, const struct gen_multidim_params *p, double rate_scale,
		 struct diag *d)
{
	struct md_build b = {.t = t, .p = p, .scale = rate_scale};
	uint32_t k, g;
	int r;

	r = gen_multidim_validate(p, d);
	if (r)
		return r;
	gen_multidim_counts(p, &b.c);
	if (t->nodes.n)
		return diag_set(d, -EINVAL, "multidim: the topology must start empty");
	r = add_nodes(&b);
	if (!r)
		r = add_switches(&b);
	for (k = 0; !r && k < p->ndims; k++)
		for (g = 0; !r && g < b.c.dim[k].groups; g++)
			r = add_group(&b, k, g);
	if (r)
		return diag_set(d, r, "building the multidim topology: %s",
				r == -ENOMEM ? "out of memory" : "name too long");
	return 0;
}
