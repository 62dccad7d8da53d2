// SPDX-License-Identifier: MIT
/* Scenario files, the topology section: the fields every kind shares, leaf-spine's own, and
 * one nested mapping per other kind (hammingmesh, multidim, direct) read straight into its
 * generator's parameters, which then validate it (docs/scenario.md, "topology"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/gen.h"
#include "scenario/scenario_yaml_types.h"

#define HOSTS_MAX 65536u /* the addressing plan's limit (model/gen_leafspine.c) */
#define LINKS_PER_PAIR_MAX 16u
#define SIZE_MAX_ 65536u /* any one extent or group size */

_Static_assert(sizeof(enum gen_dim_type) == sizeof(int) &&
		       sizeof(enum gen_direct_kind) == sizeof(int),
	       "enums are int-sized");

static const struct keyword gen_names[] = {
	{"leafspine", SCN_GEN_LEAFSPINE},     {"best", SCN_GEN_BEST},
	{"hammingmesh", SCN_GEN_HAMMINGMESH}, {"multidim", SCN_GEN_MULTIDIM},
	{"direct", SCN_GEN_DIRECT},	      {NULL, 0},
};

static const struct keyword dim_type_names[] = {
	{"switch", GEN_DIM_SWITCH},
	{"ring", GEN_DIM_RING},
	{"fc", GEN_DIM_FC},
	{NULL, 0},
};

static const struct keyword shape_names[] = {
	{"mesh2d", GEN_DIRECT_MESH2D},
	{"torus2d", GEN_DIRECT_TORUS2D},
	{"torus3d", GEN_DIRECT_TORUS3D},
	{"ring", GEN_DIRECT_RING},
	{"hypercube", GEN_DIRECT_HYPERCUBE},
	{"unwound", GEN_DIRECT_UNWOUND},
	{NULL, 0},
};

static struct scn_topology *topo_of(struct scn_yaml_ctx *c)
{
	return &c->e->s.topology;
}

static const char *gen_name(enum scn_gen g)
{
	return gen_names[g].name;
}

/* "path: <generator's message>" at n, from a generator's validate function. */
static int fail_gen(struct scn_yaml_ctx *c, const yaml_node_t *n, const struct diag *d)
{
	return scn_yaml_fail_at(c, &n->start_mark, "topology.%s", d->msg);
}

/* ---- sequences: multidim.dims, direct.dims, direct.size ---- */

/* Reads sequence n of at most max mappings, item i into base + i * stride by sec. */
static int read_items(struct scn_yaml_ctx *c, yaml_node_t *n, const struct section *sec, void *base,
		      size_t stride, uint32_t max, uint32_t *count)
{
	size_t old = strlen(c->path), k = 0;
	yaml_node_item_t *it, *start = NULL;
	void *saved = c->base;
	char what[64];
	int r = 0;

	if (n->type == YAML_SEQUENCE_NODE) {
		start = n->data.sequence.items.start;
		k = (size_t)(n->data.sequence.items.top - start);
	}
	snprintf(what, sizeof(what), "a list of 1 to %u dimensions", max);
	if (k > max)
		return scn_yaml_fail_at(c, &n->start_mark, "%s: expected %s, found %zu", c->path,
					what, k);
	if (!k)
		return scn_yaml_fail_value(c, n, what, "");
	for (it = start; !r && it < n->data.sequence.items.top; it++) {
		snprintf(c->path + old, sizeof(c->path) - old, "[%zu]", (size_t)(it - start));
		c->base = (char *)base + (size_t)(it - start) * stride;
		r = scn_yaml_read_map(c, yaml_document_get_node(c->doc, *it), sec);
		c->path[old] = '\0';
	}
	c->base = saved;
	*count = (uint32_t)k;
	return r;
}

/* direct.size: one integer, or a list of 1 to 3, each 1..65536, into dr.size[]. */
static int set_extents(struct scn_yaml_ctx *c, yaml_node_t *n,
		       __attribute__((unused)) const struct scn_yaml_field *f)
{
	uint32_t *size = topo_of(c)->dr.size;
	yaml_node_item_t *it;
	uint64_t x;
	size_t k;
	int r;

	if (n->type == YAML_SCALAR_NODE) {
		r = scn_yaml_read_uint(c, n, 1, SIZE_MAX_, &x);
		size[0] = (uint32_t)x;
		return r;
	}
	k = n->type == YAML_SEQUENCE_NODE
		    ? (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)
		    : 0;
	if (!k || k > 3)
		return scn_yaml_fail_value(c, n, "an integer or a list of 1 to 3 integers", "");
	for (it = n->data.sequence.items.start, r = 0; !r && it < n->data.sequence.items.top;
	     it++) {
		r = scn_yaml_read_uint(c, yaml_document_get_node(c->doc, *it), 1, SIZE_MAX_, &x);
		size[it - n->data.sequence.items.start] = (uint32_t)x;
	}
	return r;
}

/* direct.dims[i].degree: 1..65535, or `max` (stored as 0: size - 1). */
static int set_degree(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);
	uint64_t x = 0;
	int r = 0;

	if (v && strcmp(v, "max") && strspn(v, "0123456789") != strlen(v))
		return scn_yaml_fail_value(c, n, "an integer from 1 to 65535, or max", "");
	if (!v || strcmp(v, "max"))
		r = scn_yaml_read_uint(c, n, 1, SIZE_MAX_ - 1, &x);
	if (!r)
		*(uint32_t *)scn_yaml_field_ptr(c, f) = (uint32_t)x;
	return r;
}

/* ---- hammingmesh ---- */

#define BASE struct experiment

static const struct scn_yaml_field hx_fields[] = {
	UINT("a", s.topology.hx.a, true, 1, SIZE_MAX_),
	UINT("b", s.topology.hx.b, true, 1, SIZE_MAX_),
	UINT("x", s.topology.hx.x, true, 1, SIZE_MAX_),
	UINT("y", s.topology.hx.y, true, 1, SIZE_MAX_),
	UINT("radix", s.topology.hx.radix, false, 2, SIZE_MAX_),
	UINT("taper", s.topology.hx.taper, false, 1, 64),
	UINT("planes", s.topology.hx.planes, false, 1, 64),
	FIELD("merged", scn_yaml_bool, s.topology.hx.merged, bool, false),
	FIELD("board_rate", scn_yaml_rate, s.topology.hx.board_rate, uint64_t, false),
};

static const struct section hx_sec = TABLE(hx_fields, NULL);

/* ---- multidim ---- */

#undef BASE
#define BASE struct gen_dim

static const struct scn_yaml_field md_dim_fields[] = {
	ENUM("type", type, enum gen_dim_type, true, dim_type_names),
	UINT("size", size, true, 2, SIZE_MAX_),
	FIELD("rate", scn_yaml_rate, rate, uint64_t, false),
};

static const struct section md_dim_sec = TABLE(md_dim_fields, NULL);

static int set_md_dims(struct scn_yaml_ctx *c, yaml_node_t *n,
		       __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct gen_multidim_params *md = &topo_of(c)->md;

	return read_items(c, n, &md_dim_sec, md->dim, sizeof(md->dim[0]), GEN_MULTIDIM_MAX,
			  &md->ndims);
}

#undef BASE
#define BASE struct experiment

static const struct scn_yaml_field md_fields[] = {
	FIELD("dims", set_md_dims, s.topology.md.dim, struct gen_dim[GEN_MULTIDIM_MAX], true),
};

static const struct section md_sec = TABLE(md_fields, NULL);

/* ---- direct ---- */

#undef BASE
#define BASE struct gen_unwind_dim

static const struct scn_yaml_field dr_dim_fields[] = {
	UINT("size", size, true, 2, SIZE_MAX_),
	FIELD("degree", set_degree, degree, uint32_t, false),
	FIELD("bidir", scn_yaml_bool, bidir, bool, false),
	FIELD("rate", scn_yaml_rate, rate, uint64_t, false),
};

static const struct section dr_dim_sec = TABLE(dr_dim_fields, NULL);

static int set_dr_dims(struct scn_yaml_ctx *c, yaml_node_t *n,
		       __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct gen_direct_params *dr = &topo_of(c)->dr;

	return read_items(c, n, &dr_dim_sec, dr->dim, sizeof(dr->dim[0]), GEN_DIRECT_UNWIND_MAX,
			  &dr->ndims);
}

#undef BASE
#define BASE struct experiment

/* Extents each shape takes from `size` (unwound takes `dims` instead). */
static uint32_t shape_extents(enum gen_direct_kind k)
{
	static const uint32_t n[] = {
		[GEN_DIRECT_MESH2D] = 2, [GEN_DIRECT_TORUS2D] = 2,   [GEN_DIRECT_TORUS3D] = 3,
		[GEN_DIRECT_RING] = 1,	 [GEN_DIRECT_HYPERCUBE] = 1, [GEN_DIRECT_UNWOUND] = 0};

	return n[k];
}

static int dr_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	const struct gen_direct_params *dr = &topo_of(c)->dr;
	uint32_t want = shape_extents(dr->kind), got = 0;
	yaml_node_t *size = scn_yaml_given(m, "size"), *dims = scn_yaml_given(m, "dims");
	const char *shape = shape_names[dr->kind].name;

	while (got < 3 && dr->size[got])
		got++;
	if (want && dims)
		return scn_yaml_fail_at(c, &dims->start_mark,
					"topology.direct.dims: only for shape unwound, not %s",
					shape);
	if (!want && size)
		return scn_yaml_fail_at(c, &size->start_mark,
					"topology.direct.size: shape unwound takes 'dims' instead");
	if (!want && !dims)
		return scn_yaml_fail_at(c, &m->node->start_mark,
					"missing required field 'dims' in 'topology.direct' "
					"(shape unwound needs it)");
	if (want && !size)
		return scn_yaml_fail_at(c, &m->node->start_mark,
					"missing required field 'size' in 'topology.direct'");
	if (want && got != want)
		return scn_yaml_fail_at(c, &size->start_mark,
					"topology.direct.size: expected %u extent%s for shape %s, "
					"found %u",
					want, want > 1 ? "s" : "", shape, got);
	return 0;
}

/* direct.failed: a list of NPU ids left out (TACOS Table III). */
#define DX_ID_MAX 65535 /* the largest NPU id a direct topology has */

static int set_dr_failed(struct scn_yaml_ctx *c, yaml_node_t *n,
			 __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct gen_direct_params *dr = &topo_of(c)->dr;
	yaml_node_item_t *it,
		*first = n->type == YAML_SEQUENCE_NODE ? n->data.sequence.items.start : NULL;
	size_t k = first ? (size_t)(n->data.sequence.items.top - first) : 0;
	uint64_t x;
	int r = 0;

	if (!first || k > GEN_DIRECT_FAILED_MAX)
		return scn_yaml_fail_value(c, n, "a list of up to 64 NPU ids", "");
	for (it = first; !r && it < n->data.sequence.items.top; it++) {
		r = scn_yaml_read_uint(c, yaml_document_get_node(c->doc, *it), 0, DX_ID_MAX, &x);
		dr->failed[it - first] = (uint32_t)x;
	}
	dr->nfailed = (uint32_t)k;
	return r;
}

static const struct scn_yaml_field dr_fields[] = {
	ENUM("shape", s.topology.dr.kind, enum gen_direct_kind, true, shape_names),
	FIELD("size", set_extents, s.topology.dr.size, uint32_t[3], false),
	FIELD("dims", set_dr_dims, s.topology.dr.dim, struct gen_unwind_dim[GEN_DIRECT_UNWIND_MAX],
	      false),
	FIELD("failed", set_dr_failed, s.topology.dr.failed, uint32_t[GEN_DIRECT_FAILED_MAX],
	      false),
};

static const struct section dr_sec = TABLE(dr_fields, dr_check);

/* ---- the topology mapping ---- */

/* spines, links_per_pair and fabric_rate are read but unused by kind best, so a sweep can
 * flip kind between the two alone. */
static const struct scn_yaml_field topology_fields[] = {
	ENUM("kind", s.topology.gen, enum scn_gen, true, gen_names),
	UINT("hosts_per_leaf", s.topology.ls.hosts_per_leaf, false, 1, HOSTS_MAX),
	UINT("leaves", s.topology.ls.leaves, false, 1, HOSTS_MAX),
	UINT("spines", s.topology.ls.spines, false, 1, HOSTS_MAX),
	UINT("links_per_pair", s.topology.ls.links_per_pair, false, 1, LINKS_PER_PAIR_MAX),
	FIELD("host_rate", scn_yaml_rate, s.topology.ls.host_rate, uint64_t, false),
	FIELD("fabric_rate", scn_yaml_rate, s.topology.ls.fabric_rate, uint64_t, false),
	FIELD("delay", scn_yaml_time, s.topology.delay_ns, uint64_t, false),
	UINT("gpus_per_server", s.topology.ls.gpus_per_server, false, 1, 64),
	FIELD("server_rate", scn_yaml_rate, s.topology.ls.server_rate, uint64_t, false),
	SECTION("hammingmesh", hx_sec, false),
	SECTION("multidim", md_sec, false),
	SECTION("direct", dr_sec, false),
	SECTION("ocs", scn_yaml_ocs_sec, false), /* leafspine, hammingmesh: scenario_yaml_net.c */
};

/* The kinds that read a field: leafspine and best share theirs, the others have a mapping
 * each (hammingmesh also reads ocs), and kind, host_rate and delay are everyone's. */
static bool field_used(const char *name, enum scn_gen g)
{
	static const char *const shared[] = {"kind", "host_rate", "delay"};
	bool ls = g == SCN_GEN_LEAFSPINE || g == SCN_GEN_BEST;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(shared); i++)
		if (!strcmp(name, shared[i]))
			return true;
	if (g == SCN_GEN_HAMMINGMESH && !strcmp(name, "ocs"))
		return true; /* between the boards' edges and the networks (model/ocs.h) */
	if (g == SCN_GEN_HAMMINGMESH || g == SCN_GEN_MULTIDIM || g == SCN_GEN_DIRECT)
		return !strcmp(name, gen_name(g));
	return ls && strcmp(name, "hammingmesh") && strcmp(name, "multidim") &&
	       strcmp(name, "direct");
}

static int missing(struct scn_yaml_ctx *c, const struct map_read *m, const char *field)
{
	return scn_yaml_fail_at(c, &m->node->start_mark,
				"missing required field '%s' in 'topology' (kind %s needs it)",
				field, gen_name(topo_of(c)->gen));
}

/* A field given that the kind does not read is an error, not silently ignored. */
static int foreign_fields(struct scn_yaml_ctx *c, const struct map_read *m)
{
	enum scn_gen g = topo_of(c)->gen;
	size_t i;

	for (i = 0; i < m->sec->n; i++)
		if (m->key[i] && !field_used(m->sec->fields[i].name, g))
			return scn_yaml_fail_at(c, &m->key[i]->start_mark,
						"topology.%s: not used by kind %s",
						m->sec->fields[i].name, gen_name(g));
	if (g >= SCN_GEN_HAMMINGMESH && !scn_yaml_given(m, gen_name(g)))
		return missing(c, m, gen_name(g));
	return 0;
}

static int ls_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	struct scn_leafspine *ls = &topo_of(c)->ls;
	uint64_t hosts = (uint64_t)ls->hosts_per_leaf * ls->leaves;

	if (!scn_yaml_given(m, "hosts_per_leaf"))
		return missing(c, m, "hosts_per_leaf");
	if (!scn_yaml_given(m, "leaves"))
		return missing(c, m, "leaves");
	if (topo_of(c)->gen == SCN_GEN_LEAFSPINE && !scn_yaml_given(m, "spines"))
		return missing(c, m, "spines");
	if (scn_yaml_given(m, "gpus_per_server") && ls->hosts_per_leaf % ls->gpus_per_server)
		return scn_yaml_fail_at(
			c, &scn_yaml_given(m, "gpus_per_server")->start_mark,
			"topology.gpus_per_server: %u does not divide hosts_per_leaf "
			"(%u): a server sits under one leaf",
			ls->gpus_per_server, ls->hosts_per_leaf);
	if (hosts > HOSTS_MAX)
		return scn_yaml_fail_at(c, &scn_yaml_given(m, "leaves")->start_mark,
					"topology.leaves: expected at most %u hosts in all, "
					"found %u x %u = %llu",
					HOSTS_MAX, ls->hosts_per_leaf, ls->leaves,
					(unsigned long long)hosts);
	if (!scn_yaml_given(m, "fabric_rate"))
		ls->fabric_rate = ls->host_rate;
	return 0;
}

/* HammingMesh §III: one link rate for the network; the board's PCB links default to it. */
static int hx_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	struct gen_hxmesh_params *hx = &topo_of(c)->hx;
	struct diag d = {0};

	hx->net_rate = topo_of(c)->ls.host_rate;
	if (!hx->board_rate)
		hx->board_rate = hx->net_rate;
	if (gen_hxmesh_validate(hx, &d))
		return fail_gen(c, scn_yaml_given(m, "hammingmesh"), &d);
	return 0;
}

/* A dimension without its own rate takes host_rate; it needs one or the other. */
static int dim_rate(struct scn_yaml_ctx *c, const struct map_read *m, const char *what, uint32_t k,
		    uint64_t *rate)
{
	if (!*rate)
		*rate = topo_of(c)->ls.host_rate;
	if (*rate)
		return 0;
	return scn_yaml_fail_at(c, &scn_yaml_given(m, what)->start_mark,
				"topology.%s.dims[%u]: no rate, and no topology.host_rate to "
				"default to",
				what, k);
}

static int md_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	struct gen_multidim_params *md = &topo_of(c)->md;
	struct diag d = {0};
	uint32_t k;
	int r = 0;

	for (k = 0; !r && k < md->ndims; k++)
		r = dim_rate(c, m, "multidim", k, &md->dim[k].rate);
	if (!r && gen_multidim_validate(md, &d))
		r = fail_gen(c, scn_yaml_given(m, "multidim"), &d);
	return r;
}

static int dr_topo_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	struct gen_direct_params *dr = &topo_of(c)->dr;
	struct diag d = {0};
	uint32_t k;
	int r = 0;

	dr->rate = topo_of(c)->ls.host_rate;
	if (dr->kind != GEN_DIRECT_UNWOUND && !dr->rate)
		return missing(c, m, "host_rate");
	for (k = 0; !r && k < dr->ndims; k++)
		r = dim_rate(c, m, "direct", k, &dr->dim[k].rate);
	if (!r && gen_direct_validate(dr, &d))
		r = fail_gen(c, scn_yaml_given(m, "direct"), &d);
	return r;
}

static int topology_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	enum scn_gen g = topo_of(c)->gen;
	int r;

	r = foreign_fields(c, m);
	if (r)
		return r;
	topo_of(c)->line = (uint32_t)m->node->start_mark.line + 1;
	topo_of(c)->col = (uint32_t)m->node->start_mark.column + 1;
	topo_of(c)->delay_at = scn_yaml_at(m, "delay");
	topo_of(c)->ocs_at = scn_yaml_at(m, "ocs");
	if (g != SCN_GEN_MULTIDIM && g != SCN_GEN_DIRECT && !scn_yaml_given(m, "host_rate"))
		return missing(c, m, "host_rate");
	switch (g) {
	case SCN_GEN_HAMMINGMESH:
		return hx_check(c, m);
	case SCN_GEN_MULTIDIM:
		return md_check(c, m);
	case SCN_GEN_DIRECT:
		return dr_topo_check(c, m);
	default:
		return ls_check(c, m);
	}
}

const struct section scn_yaml_topology_sec = TABLE(topology_fields, topology_check);
