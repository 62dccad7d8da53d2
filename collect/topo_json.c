// SPDX-License-Identifier: MIT
/* topology.json written from the model and read back for reports (topo_json.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/topo_json.h"
#include "model/addr.h"

static const char *const kinds[] = {
	[TOPO_ENDPOINT] = "endpoint",
	[TOPO_SWITCH] = "switch",
	[TOPO_OCS] = "ocs",
};

static const char *const tiers[] = {
	[TOPO_TIER_EDGE] = "edge", [TOPO_TIER_FABRIC] = "fabric", [TOPO_TIER_DIRECT] = "direct",
	[TOPO_TIER_OCS] = "ocs",   [TOPO_TIER_SERVER] = "server",
};

const char *col_tier_name(enum topo_tier t)
{
	return (unsigned)t < sizeof(tiers) / sizeof(tiers[0]) && tiers[t] ? tiers[t] : "other";
}

static json_t *addr_str(uint32_t a, int plen)
{
	char b[16], s[24];

	addr_fmt(b, sizeof(b), a);
	if (plen < 0)
		return json_string(b);
	snprintf(s, sizeof(s), "%s/%d", b, plen);
	return json_string(s);
}

static json_t *node_obj(const struct topo *t, uint32_t id)
{
	const struct topo_node *n = &t->nodes.v[id];
	bool ep = n->kind == TOPO_ENDPOINT;

	return json_pack("{s:I, s:s, s:s, s:s, s:I, s:I, s:b, s:o}", "id", (json_int_t)id, "name",
			 n->name, "kind", (unsigned)n->kind < 3 ? kinds[n->kind] : "other", "role",
			 topo_role_name(n->role), "index", (json_int_t)n->index, "group",
			 (json_int_t)n->group, "forwards", (int)n->forwards, "addr",
			 ep ? addr_str(n->addr, -1) : json_null());
}

static json_t *end_obj(const struct topo *t, uint32_t port)
{
	const struct topo_port *p = &t->ports.v[port];

	const struct topo_node *n = &t->nodes.v[p->node];

	return json_pack("{s:s, s:s, s:s, s:o}", "node", n->name, "kind",
			 (unsigned)n->kind < 3 ? kinds[n->kind] : "other", "ifname", p->ifname,
			 "addr", addr_str(p->addr, p->plen));
}

static json_t *link_obj(const struct topo *t, uint32_t id, const uint8_t *shaped)
{
	const struct topo_link *l = &t->links.v[id];

	return json_pack("{s:I, s:[o,o], s:[I,I], s:[b,b], s:s, s:I, s:I, s:b}", "id",
			 (json_int_t)id, "ends", end_obj(t, l->port[0]), end_obj(t, l->port[1]),
			 "rate_bps", (json_int_t)l->rate[0], (json_int_t)l->rate[1], "shaped",
			 shaped && shaped[id * 2], shaped && shaped[id * 2 + 1], "tier",
			 col_tier_name(l->tier), "dim", (json_int_t)l->dim, "delay_ns",
			 (json_int_t)l->delay_ns, "up", (int)l->up);
}

/* Appends f(t, i) for every i < n to a new array; NULL on ENOMEM. */
static json_t *array(size_t n, json_t *(*f)(const struct topo *, uint32_t, const uint8_t *),
		     const struct topo *t, const uint8_t *shaped)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++) {
		if (json_array_append_new(a, f(t, (uint32_t)i, shaped))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *node_item(const struct topo *t, uint32_t i, const uint8_t *shaped)
{
	(void)shaped;
	return node_obj(t, i);
}

json_t *col_topo_json(const struct topo *t, const uint8_t *shaped)
{
	return json_pack("{s:s, s:o, s:o}", "schema", COL_TOPO_SCHEMA, "nodes",
			 array(t->nodes.n, node_item, t, shaped), "links",
			 array(t->links.n, link_obj, t, shaped));
}

/* ---- reading back ---- */

static int bad(struct diag *d, size_t i, const char *what)
{
	return diag_set(d, -EINVAL, "topology.json: link %zu: %s", i, what);
}

static int end_parse(const json_t *e, char *name, uint8_t *endpoint, struct diag *d, size_t i)
{
	const char *s = json_string_value(json_object_get(e, "node"));
	const char *k = json_string_value(json_object_get(e, "kind"));

	if (!s || strlen(s) >= TOPO_NAME_MAX)
		return bad(d, i, "an end without a node name");
	snprintf(name, TOPO_NAME_MAX, "%s", s);
	*endpoint = k && !strcmp(k, kinds[TOPO_ENDPOINT]);
	return 0;
}

static int link_parse(const json_t *o, size_t i, struct col_topo_link *l, struct diag *d)
{
	const json_t *ends = json_object_get(o, "ends"), *rate = json_object_get(o, "rate_bps");
	const json_t *sh = json_object_get(o, "shaped"), *dim = json_object_get(o, "dim");
	const char *tier = json_string_value(json_object_get(o, "tier"));
	int k, err = 0;

	if (json_integer_value(json_object_get(o, "id")) != (json_int_t)i)
		return bad(d, i, "links out of order (id)");
	if (json_array_size(ends) != 2 || json_array_size(rate) != 2 || json_array_size(sh) != 2)
		return bad(d, i, "expected two ends, two rates and two shaped flags");
	for (k = 0; !err && k < 2; k++) {
		err = end_parse(json_array_get(ends, k), l->end[k], &l->endpoint[k], d, i);
		if (!json_is_integer(json_array_get(rate, k)) ||
		    json_integer_value(json_array_get(rate, k)) < 0)
			err = err ? err : bad(d, i, "a rate that is not a whole bit/s");
		l->rate_bps[k] = (uint64_t)json_integer_value(json_array_get(rate, k));
		l->shaped[k] = json_is_true(json_array_get(sh, k));
	}
	if (!err && (!json_is_integer(dim) || json_integer_value(dim) < 0 ||
		     json_integer_value(dim) > UINT16_MAX))
		err = bad(d, i, "dim is not a small whole number");
	l->dim = (uint16_t)json_integer_value(dim);
	snprintf(l->tier, sizeof(l->tier), "%s", tier ? tier : "other");
	return err;
}

static int arrays(struct col_topo_info *ti, struct diag *d)
{
	size_t i, n = ti->links.n;

	ti->rate_bps = calloc(n * 2 + 1, sizeof(*ti->rate_bps));
	ti->shaped = calloc(n * 2 + 1, sizeof(*ti->shaped));
	ti->endpoint = calloc(n * 2 + 1, sizeof(*ti->endpoint));
	if (!ti->rate_bps || !ti->shaped || !ti->endpoint)
		return diag_set(d, -ENOMEM, "out of memory");
	ti->dims = 1;
	for (i = 0; i < n; i++) {
		const struct col_topo_link *l = &ti->links.v[i];

		memcpy(&ti->rate_bps[i * 2], l->rate_bps, sizeof(l->rate_bps));
		memcpy(&ti->shaped[i * 2], l->shaped, sizeof(l->shaped));
		memcpy(&ti->endpoint[i * 2], l->endpoint, sizeof(l->endpoint));
		if ((uint32_t)l->dim + 1 > ti->dims)
			ti->dims = (uint32_t)l->dim + 1;
	}
	return 0;
}

int col_topo_info_parse(const json_t *j, struct col_topo_info *out, struct diag *d)
{
	const json_t *links = json_object_get(j, "links"), *o;
	const char *schema = json_string_value(json_object_get(j, "schema"));
	struct col_topo_link *l;
	size_t i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!schema || strcmp(schema, COL_TOPO_SCHEMA) || !json_is_array(links))
		return diag_set(d, -EINVAL, "topology.json: not a %s document", COL_TOPO_SCHEMA);
	json_array_foreach(links, i, o)
	{
		l = vec_grow(&out->links);
		err = l ? link_parse(o, i, l, d) : diag_set(d, -ENOMEM, "out of memory");
		if (err)
			break;
	}
	err = err ? err : arrays(out, d);
	if (err)
		col_topo_info_done(out);
	return err;
}

void col_topo_info_done(struct col_topo_info *ti)
{
	if (!ti)
		return;
	vec_free(&ti->links);
	free(ti->rate_bps);
	free(ti->shaped);
	free(ti->endpoint);
	ti->rate_bps = NULL;
	ti->shaped = NULL;
	ti->endpoint = NULL;
}

struct col_links_cfg col_topo_links_cfg(const struct col_topo_info *ti)
{
	return (struct col_links_cfg){(uint32_t)ti->links.n, ti->rate_bps, ti->shaped,
				      ti->endpoint};
}

void col_topo_dir_label(const struct col_topo_info *ti, uint32_t link, uint32_t dir, char *buf,
			size_t len)
{
	const struct col_topo_link *l;

	if (link >= ti->links.n || dir > 1) {
		snprintf(buf, len, "%u.%u", link, dir);
		return;
	}
	l = &ti->links.v[link];
	snprintf(buf, len, "%s>%s", l->end[dir], l->end[!dir]);
}
