// SPDX-License-Identifier: MIT
/* Direct networks for TACOS (see gen_direct.h). Every kind is a product of axes; an axis links
 * coordinate c to c+1..c+degree (mod size where it wraps), so mesh, torus, ring, hypercube and
 * unwound switches share one builder and one set of counting formulas. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "model/gen_direct.h"

#define DX_MAX_NODES 65536 /* what the testbed addresses */
#define DX_MAX_CUBE 16

struct dx_axis {
	uint32_t size, degree; /* links c -> c+1 .. c+degree */
	bool wrap, bidir;
	uint64_t rate; /* bit/s before scaling, shared by `share` links */
	uint32_t share; /* granted links per NPU sharing the rate (unwound), else 1 */
};

static int check_unwound(const struct gen_direct_params *p, struct diag *d)
{
	uint32_t k;

	if (!p->ndims || p->ndims > GEN_DIRECT_UNWIND_MAX)
		return diag_set(d, -EINVAL,
				"direct: unwound needs 1 to %d switch dimensions, not %u",
				GEN_DIRECT_UNWIND_MAX, p->ndims);
	for (k = 0; k < p->ndims; k++) {
		const struct gen_unwind_dim *u = &p->dim[k];

		if (u->size < 2)
			return diag_set(d, -EINVAL,
					"direct: unwound dimension %u has %u NPUs, not >= 2", k,
					u->size);
		if (u->degree >= u->size)
			return diag_set(d, -EINVAL,
					"direct: unwound dimension %u has degree %u, not < %u", k,
					u->degree, u->size);
	}
	return 0;
}

static int check(const struct gen_direct_params *p, struct diag *d)
{
	static const uint32_t extents[] = {
		[GEN_DIRECT_MESH2D] = 2, [GEN_DIRECT_TORUS2D] = 2, [GEN_DIRECT_TORUS3D] = 3};
	uint32_t k;

	switch (p->kind) {
	case GEN_DIRECT_MESH2D:
	case GEN_DIRECT_TORUS2D:
	case GEN_DIRECT_TORUS3D:
		for (k = 0; k < extents[p->kind]; k++)
			if (!p->size[k])
				return diag_set(d, -EINVAL, "direct: mesh/torus extent %u is 0", k);
		return 0;
	case GEN_DIRECT_RING:
		if (p->size[0] < 2)
			return diag_set(d, -EINVAL, "direct: a ring needs at least 2 nodes, not %u",
					p->size[0]);
		return 0;
	case GEN_DIRECT_HYPERCUBE:
		if (!p->size[0] || p->size[0] > DX_MAX_CUBE)
			return diag_set(d, -EINVAL,
					"direct: hypercube dimension must be 1..%d, not %u",
					DX_MAX_CUBE, p->size[0]);
		return 0;
	case GEN_DIRECT_UNWOUND:
		return check_unwound(p, d);
	}
	return diag_set(d, -EINVAL, "direct: unknown kind %d", (int)p->kind);
}

/* Granted links per NPU of an unwound dimension: d, or min(2d, size-1) both ways. */
static uint32_t unwound_share(const struct gen_unwind_dim *u, uint32_t degree)
{
	if (!u->bidir)
		return degree;
	return 2 * degree < u->size - 1 ? 2 * degree : u->size - 1;
}

static uint32_t axes_unwound(const struct gen_direct_params *p, struct dx_axis *ax)
{
	uint32_t k;

	for (k = 0; k < p->ndims; k++) {
		const struct gen_unwind_dim *u = &p->dim[k];
		uint32_t deg = u->degree ? u->degree : u->size - 1;

		/* TACOS §IV-D: n -> n+1, ..., n+d (mod N), each at 1/d of the port */
		ax[k] = (struct dx_axis){.size = u->size,
					 .degree = deg,
					 .wrap = true,
					 .bidir = u->bidir,
					 .rate = u->rate,
					 .share = unwound_share(u, deg)};
	}
	return p->ndims;
}

/* The axes of a valid p into ax[GEN_DIRECT_AXES]; returns how many. */
static uint32_t axes_of(const struct gen_direct_params *p, struct dx_axis *ax)
{
	uint32_t n, k;

	switch (p->kind) {
	case GEN_DIRECT_UNWOUND:
		return axes_unwound(p, ax);
	case GEN_DIRECT_TORUS3D:
		n = 3;
		break;
	case GEN_DIRECT_RING:
		n = 1;
		break;
	case GEN_DIRECT_HYPERCUBE:
		n = p->size[0];
		break;
	default: /* 2D mesh and torus */
		n = 2;
	}
	for (k = 0; k < n; k++)
		ax[k] = (struct dx_axis){.size = p->kind == GEN_DIRECT_HYPERCUBE ? 2 : p->size[k],
					 .degree = 1,
					 .wrap = p->kind != GEN_DIRECT_MESH2D,
					 .bidir = true,
					 .rate = p->rate,
					 .share = 1};
	return n;
}

/* Largest cyclic offset an axis links (a wrapping axis: offsets s and size-s are one pair). */
static uint32_t reach(const struct dx_axis *a)
{
	return a->degree < a->size / 2 ? a->degree : a->size / 2;
}

/* Links per group of one axis. */
static uint64_t axis_group_links(const struct dx_axis *a)
{
	uint64_t n = 0;
	uint32_t r;

	if (!a->wrap)
		return a->size - 1;
	for (r = 1; r <= reach(a); r++)
		n += 2 * r == a->size ? a->size / 2 : a->size;
	return n;
}

/* Neighbours per node on one axis: the least and the most. */
static void axis_degree(const struct dx_axis *a, uint32_t *lo, uint32_t *hi)
{
	if (!a->wrap) {
		*lo = a->size > 1;
		*hi = a->size > 2 ? 2 : a->size - 1;
		return;
	}
	*hi = 2 * a->degree < a->size - 1 ? 2 * a->degree : a->size - 1;
	*lo = *hi;
}

static uint32_t axis_diameter(const struct dx_axis *a)
{
	if (!a->wrap)
		return a->size - 1;
	return reach(a) ? (a->size / 2 + reach(a) - 1) / reach(a) : 0;
}

static int counts(const struct gen_direct_params *p, struct dx_axis *ax,
		  struct gen_direct_counts *c, struct diag *d)
{
	uint32_t k, lo, hi;
	int r;

	memset(c, 0, sizeof(*c));
	r = check(p, d);
	if (r)
		return r;
	c->axes = axes_of(p, ax);
	c->nodes = 1;
	for (k = 0; k < c->axes; k++) {
		c->nodes *= ax[k].size;
		if (c->nodes > (1ULL << 32))
			return diag_set(d, -E2BIG, "direct: more than 2^32 nodes");
	}
	for (k = 0; k < c->axes; k++) {
		c->axis_links[k] = c->nodes / ax[k].size * axis_group_links(&ax[k]);
		c->links += c->axis_links[k];
		axis_degree(&ax[k], &lo, &hi);
		c->degree_min += lo;
		c->degree_max += hi;
		c->diameter += axis_diameter(&ax[k]);
	}
	return 0;
}

int gen_direct_counts(const struct gen_direct_params *p, struct gen_direct_counts *out)
{
	struct dx_axis ax[GEN_DIRECT_AXES];

	return counts(p, ax, out, NULL);
}

/* Whether an axis grants c -> c+s for the forward offset from `from` to `to`. */
static bool axis_fwd(const struct dx_axis *a, uint32_t from, uint32_t to)
{
	uint32_t s = (to + a->size - from) % a->size;

	if (!a->wrap && to <= from)
		return false;
	return s >= 1 && s <= a->degree;
}

bool gen_direct_granted(const struct gen_direct_params *p, uint32_t from, uint32_t to)
{
	struct dx_axis ax[GEN_DIRECT_AXES];
	struct gen_direct_counts c;
	uint32_t k, axis = 0, cf = 0, ct = 0, diff = 0;

	if (counts(p, ax, &c, NULL) || from >= c.nodes || to >= c.nodes)
		return false;
	for (k = 0; k < c.axes; k++) {
		if (from % ax[k].size != to % ax[k].size) {
			axis = k;
			cf = from % ax[k].size;
			ct = to % ax[k].size;
			diff++;
		}
		from /= ax[k].size;
		to /= ax[k].size;
	}
	if (diff != 1)
		return false;
	return axis_fwd(&ax[axis], cf, ct) || (ax[axis].bidir && axis_fwd(&ax[axis], ct, cf));
}

/* ---- building ---- */

struct dx_build {
	struct topo *t;
	const struct gen_direct_params *p;
	struct dx_axis ax[GEN_DIRECT_AXES];
	struct gen_direct_counts c;
	bool cube;
	double scale;
	int32_t *node; /* topology node of NPU id, -1 for a failed NPU */
};

static bool failed(const struct gen_direct_params *p, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < p->nfailed; i++)
		if (p->failed[i] == id)
			return true;
	return false;
}

static int add_nodes(struct dx_build *b)
{
	uint32_t n = (uint32_t)b->c.nodes, i, k;
	char name[TOPO_NAME_MAX];

	for (i = 0; i < n; i++) {
		struct topo_node *node;
		uint32_t rest = i;
		int id;

		b->node[i] = -1;
		if (failed(b->p, i))
			continue;
		snprintf(name, sizeof(name), "n%u", i);
		id = topo_node_add(b->t, TOPO_ENDPOINT, TOPO_ROLE_HOST, name, i);
		if (id < 0)
			return id;
		b->node[i] = id;
		node = &b->t->nodes.v[id];
		node->forwards = true;
		node->group = i / b->ax[0].size;
		for (k = 0; k < b->c.axes && k < 4 && !b->cube; k++) {
			node->coord[k] = (int32_t)(rest % b->ax[k].size);
			rest /= b->ax[k].size;
		}
		if (b->cube)
			node->coord[0] = (int32_t)i;
	}
	return 0;
}

/* The link between NPUs u and v, unless one failed. */
static int add_link(struct dx_build *b, uint32_t k, uint32_t u, uint32_t v)
{
	uint64_t rate = gen_scale_rate(b->ax[k].rate, b->scale / b->ax[k].share);
	int l;

	if (b->node[u] < 0 || b->node[v] < 0)
		return 0;
	l = topo_link_add(b->t, (uint32_t)b->node[u], (uint32_t)b->node[v], rate, rate,
			  TOPO_TIER_DIRECT);
	if (l < 0)
		return l;
	b->t->links.v[l].dim = (uint16_t)k;
	return 0;
}

/* Axis k: node i links to the node s steps further along the axis, s = 1..reach; a pair at
 * offset size/2 is seen from both ends and added from the lower one. */
static int add_axis(struct dx_build *b, uint32_t k)
{
	const struct dx_axis *a = &b->ax[k];
	uint32_t n = (uint32_t)b->c.nodes, stride = 1, i, s, last;
	int r = 0;

	for (i = 0; i < k; i++)
		stride *= b->ax[i].size;
	last = a->wrap ? reach(a) : 1;
	for (i = 0; !r && i < n; i++) {
		uint32_t c = i / stride % a->size;

		for (s = 1; !r && s <= last; s++) {
			uint32_t o = (c + s) % a->size;

			if ((!a->wrap && c + s >= a->size) || (2 * s == a->size && o < c))
				continue;
			r = add_link(b, k, i, i - c * stride + o * stride);
		}
	}
	return r;
}

/* Failed NPUs name NPUs of the shape, once each, and leave at least one. */
static int check_failed(const struct gen_direct_params *p, uint64_t nodes, struct diag *d)
{
	uint32_t i, j;

	if (p->nfailed > GEN_DIRECT_FAILED_MAX || p->nfailed >= nodes)
		return diag_set(d, -EINVAL, "direct: %u failed NPUs of %llu, at most %llu",
				p->nfailed, (unsigned long long)nodes,
				(unsigned long long)(nodes - 1 < GEN_DIRECT_FAILED_MAX
							     ? nodes - 1
							     : GEN_DIRECT_FAILED_MAX));
	for (i = 0; i < p->nfailed; i++) {
		if (p->failed[i] >= nodes)
			return diag_set(d, -EINVAL,
					"direct: failed NPU %u, but the NPUs are 0..%llu",
					p->failed[i], (unsigned long long)nodes - 1);
		for (j = 0; j < i; j++)
			if (p->failed[j] == p->failed[i])
				return diag_set(d, -EINVAL, "direct: NPU %u failed twice",
						p->failed[i]);
	}
	return 0;
}

/* counts() and the testbed's size limit */
static int validate(const struct gen_direct_params *p, struct dx_axis *ax,
		    struct gen_direct_counts *c, struct diag *d)
{
	int r = counts(p, ax, c, d);

	if (!r && c->nodes > DX_MAX_NODES)
		r = diag_set(d, -E2BIG, "direct: %llu nodes; the testbed addresses %u",
			     (unsigned long long)c->nodes, DX_MAX_NODES);
	return r ? r : check_failed(p, c->nodes, d);
}

int gen_direct_validate(const struct gen_direct_params *p, struct diag *d)
{
	struct dx_axis ax[GEN_DIRECT_AXES];
	struct gen_direct_counts c;

	return validate(p, ax, &c, d);
}

int gen_direct(struct topo *t, const struct gen_direct_params *p, double rate_scale, struct diag *d)
{
	struct dx_build b = {.t = t, .p = p, .scale = rate_scale};
	uint32_t k;
	int r;

	r = validate(p, b.ax, &b.c, d);
	if (r)
		return r;
	if (t->nodes.n)
		return diag_set(d, -EINVAL, "direct: the topology must start empty");
	b.cube = p->kind == GEN_DIRECT_HYPERCUBE;
	b.node = malloc(b.c.nodes * sizeof(*b.node));
	r = b.node ? add_nodes(&b) : -ENOMEM;
	for (k = 0; !r && k < b.c.axes; k++)
		r = add_axis(&b, k);
	free(b.node);
	if (r)
		return diag_set(d, r, "building the direct topology: %s",
				r == -ENOMEM ? "out of memory" : "name too long");
	return 0;
}
