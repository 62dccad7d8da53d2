// SPDX-License-Identifier: MIT
/* The BPF Type Format reader (kbtf.h): the header's two sections, one pass to index the types
 * by id, then name lookups and member paths walked through the index. */
#include <errno.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/kbtf.h"

#define KBTF_PTR_SIZE 8 /* the 64-bit kernels the sampler's program is built for */
#define KBTF_DEPTH 16 /* typedef and modifier chains longer than this are refused */

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t t_info(const uint8_t *t)
{
	return rd32(t + 4);
}

static uint32_t t_kind(const uint8_t *t)
{
	return BTF_INFO_KIND(t_info(t));
}

static uint32_t t_vlen(const uint8_t *t)
{
	return BTF_INFO_VLEN(t_info(t));
}

/* size_or_type: a size for ints, structs, unions, enums; the referred type for the rest */
static uint32_t t_ref(const uint8_t *t)
{
	return rd32(t + 8);
}

/* The bytes after struct btf_type for this kind, or -1 for an unknown kind. */
static long extra_len(const uint8_t *t)
{
	uint32_t v = t_vlen(t);

	switch (t_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return (long)sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)v * (long)sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)v * (long)sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)v * (long)sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)v * (long)sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)v * (long)sizeof(struct btf_enum64);
	}
	return -1;
}

static int sections(struct kbtf *k, const uint8_t *b, size_t len)
{
	struct btf_header h;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len < sizeof(h) || h.hdr_len > len ||
	    (uint64_t)h.type_off + h.type_len > len - h.hdr_len ||
	    (uint64_t)h.str_off + h.str_len > len - h.hdr_len || !h.str_len)
		return -EINVAL;
	k->types = b + h.hdr_len + h.type_off;
	k->types_len = h.type_len;
	k->strs = b + h.hdr_len + h.str_off;
	k->strs_len = h.str_len;
	return k->strs[k->strs_len - 1] == '\0' ? 0 : -EINVAL;
}

/* One pass over the type section: how many types, or with idx set, where each starts. */
static long walk(const struct kbtf *k, const uint8_t **idx)
{
	uint32_t off = 0;
	long n = 0, x;

	while (off < k->types_len) {
		if (k->types_len - off < sizeof(struct btf_type))
			return -EINVAL;
		x = extra_len(k->types + off);
		if (x < 0)
			return -ENOTSUP;
		if ((uint64_t)off + sizeof(struct btf_type) + (uint64_t)x > k->types_len)
			return -EINVAL;
		if (idx)
			idx[n + 1] = k->types + off;
		n++;
		off += (uint32_t)(sizeof(struct btf_type) + (size_t)x);
	}
	return n;
}

int kbtf_init(struct kbtf *k, const void *blob, size_t len)
{
	long n;
	int err;

	memset(k, 0, sizeof(*k));
	err = sections(k, blob, len);
	n = err ? err : walk(k, NULL);
	if (n < 0)
		return (int)n;
	k->type = calloc((size_t)n + 1, sizeof(*k->type));
	if (!k->type)
		return -ENOMEM;
	k->n = (uint32_t)n;
	walk(k, k->type);
	return 0;
}

void kbtf_done(struct kbtf *k)
{
	free(k->type);
	k->type = NULL;
	k->n = 0;
}

static const char *name_of(const struct kbtf *k, uint32_t off)
{
	return off < k->strs_len ? (const char *)k->strs + off : "";
}

uint32_t kbtf_find(const struct kbtf *k, uint32_t kind, const char *name)
{
	uint32_t id;

	for (id = 1; id <= k->n; id++)
		if (t_kind(k->type[id]) == kind && !strcmp(name_of(k, rd32(k->type[id])), name))
			return id;
	return 0;
}

static const uint8_t *type_at(const struct kbtf *k, uint32_t id)
{
	return id && id <= k->n ? k->type[id] : NULL;
}

/* id with its typedefs and modifiers taken off, or NULL. */
static const uint8_t *resolve(const struct kbtf *k, uint32_t id)
{
	const uint8_t *t = type_at(k, id);
	int depth;

	for (depth = 0; t && depth < KBTF_DEPTH; depth++) {
		switch (t_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = type_at(k, t_ref(t));
			break;
		default:
			return t;
		}
	}
	return NULL;
}

/* The byte size of type t (resolved), or 0 when it has none. */
static uint32_t size_of(const struct kbtf *k, const uint8_t *t)
{
	struct btf_array a;
	uint32_t elem;

	switch (t_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		return t_ref(t);
	case BTF_KIND_PTR:
		return KBTF_PTR_SIZE;
	case BTF_KIND_ARRAY:
		memcpy(&a, t + sizeof(struct btf_type), sizeof(a));
		elem = resolve(k, a.type) ? size_of(k, resolve(k, a.type)) : 0;
		return (uint64_t)elem * a.nelems > UINT32_MAX ? 0 : elem * a.nelems;
	}
	return 0;
}

static int is_aggregate(const uint8_t *t)
{
	return t && (t_kind(t) == BTF_KIND_STRUCT || t_kind(t) == BTF_KIND_UNION);
}

/* Member `name` (len bytes) of aggregate t, also inside its anonymous members: its type id
 * and bit offset from t's start. 0, -ENOENT, or -ENOTSUP for a bitfield. */
static int member(const struct kbtf *k, const uint8_t *t, const char *name, size_t len,
		  uint32_t *id, uint32_t *bits, int depth)
{
	const uint8_t *m = t + sizeof(struct btf_type);
	uint32_t i, boff, sub;
	int r;

	for (i = 0; i < t_vlen(t); i++, m += sizeof(struct btf_member)) {
		const char *mn = name_of(k, rd32(m));

		boff = BTF_INFO_KFLAG(t_info(t)) ? BTF_MEMBER_BIT_OFFSET(rd32(m + 8)) : rd32(m + 8);
		if (!*mn && depth < KBTF_DEPTH && is_aggregate(resolve(k, rd32(m + 4)))) {
			r = member(k, resolve(k, rd32(m + 4)), name, len, id, &sub, depth + 1);
			if (r != -ENOENT) {
				*bits = boff + sub;
				return r;
			}
		} else if (strlen(mn) == len && !memcmp(mn, name, len)) {
			if (BTF_INFO_KFLAG(t_info(t)) && BTF_MEMBER_BITFIELD_SIZE(rd32(m + 8)))
				return -ENOTSUP;
			*id = rd32(m + 4);
			*bits = boff;
			return 0;
		}
	}
	return -ENOENT;
}

int kbtf_member(const struct kbtf *k, const char *type, const char *path, uint32_t *off,
		uint32_t *size)
{
	uint32_t sid = kbtf_find(k, BTF_KIND_STRUCT, type), id = 0, bits, total = 0;
	const uint8_t *t = resolve(k, sid ? sid : kbtf_find(k, BTF_KIND_UNION, type));
	const char *p = path;
	size_t len;
	int r;

	while (*p) {
		if (!is_aggregate(t))
			return -ENOENT;
		len = strcspn(p, ".");
		r = member(k, t, p, len, &id, &bits, 0);
		if (r)
			return r;
		if (bits % 8)
			return -ENOTSUP;
		total += bits / 8;
		t = resolve(k, id);
		p += len + (p[len] == '.');
	}
	if (!t || !id || !size_of(k, t))
		return t && id ? -ENOTSUP : -ENOENT;
	*off = total;
	*size = size_of(k, t);
	return 0;
}
