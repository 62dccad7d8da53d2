// SPDX-License-Identifier: MIT
/* A Chakra trace file read into a rank's compact graph (chakra.h): the varint-delimited
 * stream cut into messages, each unpacked by protobuf-c into a scratch arena let go after it,
 * its fields and attributes checked and kept, then the dependencies' ids resolved. */
#include <errno.h>
#include <inttypes.h>
#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/chakra/chakra.h"
#include "traffic/chakra/et_def.pb-c.h"

static const char *const kind_names[CHAKRA_KINDS] = {
	"COMP_NODE",	 "COMM_COLL_NODE", "COMM_SEND_NODE", "COMM_RECV_NODE",
	"MEM_LOAD_NODE", "MEM_STORE_NODE", "METADATA_NODE",
};

static const char *const coll_names[CHAKRA_COLLS] = {
	"ALL_REDUCE", "REDUCE",		"ALL_GATHER",		"GATHER",  "SCATTER", "BROADCAST",
	"ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER",
};

const char *chakra_kind_name(enum chakra_kind k)
{
	return (unsigned)k < CHAKRA_KINDS ? kind_names[k] : "?";
}

const char *chakra_coll_name(enum chakra_coll c)
{
	return (unsigned)c < CHAKRA_COLLS ? coll_names[c] : "?";
}

/* Node ids as a file writes them (its dependencies', before they are resolved). */
typedef VEC(uint64_t) id_vec;

/* ---- one message's memory ---- */

/* protobuf-c's allocations for one message, from one block let go (kept) after it. */
struct arena {
	char *buf;
	size_t used, cap;
	bool over; /* a request did not fit: the block grows before the message is unpacked again */
};

static void *arena_alloc(void *data, size_t size)
{
	struct arena *a = data;

	size = (size + 15) & ~(size_t)15;
	if (size > a->cap - a->used) {
		a->over = true;
		return NULL;
	}
	a->used += size;
	return a->buf + a->used - size;
}

static void arena_free(void *data, void *p)
{
	(void)data;
	(void)p;
}

/* Room for a message of len bytes: protobuf-c takes about its size again in structs and
 * pointers; a message that still does not fit doubles the block and is unpacked again. */
static int arena_fit(struct arena *a, size_t want)
{
	char *b;

	a->used = 0;
	a->over = false;
	if (want <= a->cap)
		return 0;
	b = realloc(a->buf, want);
	if (!b)
		return -ENOMEM;
	a->buf = b;
	a->cap = want;
	return 0;
}

/* The message of len bytes at p, unpacked by desc into the arena. NULL with *err: -EINVAL (not
 * this message) or -ENOMEM. */
static ProtobufCMessage *unpack(const ProtobufCMessageDescriptor *desc, struct arena *a,
				const uint8_t *p, size_t len, int *err)
{
	ProtobufCAllocator al = {arena_alloc, arena_free, a};
	ProtobufCMessage *m;
	size_t want = 4 * len + 4096;

	for (;;) {
		*err = arena_fit(a, want);
		if (*err)
			return NULL;
		m = protobuf_c_message_unpack(desc, &al, len, p);
		if (m || !a->over)
			break;
		/* a valid message's structs take at most about 40 times its bytes (an empty
		 * attribute, 2 bytes, is a struct of about 80): one asking for far more is not one
		 */
		if (2 * a->cap > 256 * len + 65536)
			break;
		want = 2 * a->cap;
	}
	*err = m ? 0 : -EINVAL;
	return m;
}

/* ---- the stream ---- */

/* The varint at buf[*at] (before len), the length of the next message: *at moves past it.
 * 0, or -EINVAL (cut short, or longer than 10 bytes). */
static int varint(const uint8_t *buf, size_t len, size_t *at, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; shift < 64 && *at < len; shift += 7) {
		uint8_t b = buf[(*at)++];

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -EINVAL;
}

/* The next message's bytes: *msg, *mlen, and *at past it. 1, 0 at the end, or -EINVAL with d
 * set (its length cut short or past the end). */
static int next_message(const uint8_t *buf, size_t len, size_t *at, const uint8_t **msg,
			size_t *mlen, const char *file, struct diag *d)
{
	size_t start = *at;
	uint64_t n;

	if (*at >= len)
		return 0;
	if (varint(buf, len, at, &n) || n > len - *at)
		return diag_set(
			d, -EINVAL,
			"%s: byte %zu: a message's length %s: the file is cut short or is "
			"not a Chakra trace (a varint-delimited stream of protobuf messages)",
			file, start, *at >= len ? "is cut short" : "runs past the end");
	*msg = buf + *at;
	*mlen = (size_t)n;
	*at += (size_t)n;
	return 1;
}

/* ---- a rank's strings ---- */

/* s kept in r->names: its offset (0 for ""), or UINT32_MAX on ENOMEM or overflow. */
static uint32_t keep_str(struct chakra_rank *r, const char *s)
{
	size_t n = strlen(s), off = r->names.n;

	if (!n)
		return 0;
	if (off + n + 1 > UINT32_MAX || vec_reserve(&r->names, off + n + 1))
		return UINT32_MAX;
	memcpy(r->names.v + off, s, n + 1);
	r->names.n += n + 1;
	return (uint32_t)off;
}

/* ---- attributes ---- */

/* The integer an attribute holds, of any integer kind (bool as 0 or 1). 0, or -EINVAL for a
 * value that is not one. */
static int attr_int(const ChakraProtoMsg__AttributeProto *a, int64_t *v)
{
	switch (a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
		*v = a->int32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
		*v = a->int64_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
		*v = a->uint32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
		*v = (int64_t)a->uint64_val;
		return a->uint64_val > INT64_MAX ? -EINVAL : 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
		*v = a->sint32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
		*v = a->sint64_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL:
		*v = a->fixed32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
		*v = (int64_t)a->fixed64_val;
		return a->fixed64_val > INT64_MAX ? -EINVAL : 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL:
		*v = a->sfixed32_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL:
		*v = a->sfixed64_val;
		return 0;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
		*v = !!a->bool_val;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Where a node's message is: for messages about it. */
struct at {
	const char *file;
	const ChakraProtoMsg__Node *m;
};

static int bad_attr(const struct at *at, const ChakraProtoMsg__AttributeProto *a, const char *want,
		    struct diag *d)
{
	return diag_set(d, -EINVAL, "%s: node %" PRIu64 " (%s): attribute %s: expected %s",
			at->file, at->m->id, at->m->name, a->name, want);
}

/* An integer attribute in lo..hi into *v. */
static int int_in(const struct at *at, const ChakraProtoMsg__AttributeProto *a, int64_t lo,
		  int64_t hi, int64_t *v, struct diag *d)
{
	char want[96];

	if (!attr_int(a, v) && *v >= lo && *v <= hi)
		return 0;
	snprintf(want, sizeof(want), "an integer from %" PRId64 " to %" PRId64, lo, hi);
	return bad_attr(at, a, want, d);
}

/* involved_dim: a bool list, at most 16 dimensions, as bits. */
static int dims_of(const struct at *at, const ChakraProtoMsg__AttributeProto *a,
		   struct chakra_node *n, struct diag *d)
{
	size_t i;

	if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST ||
	    a->bool_list->n_values > 16)
		return bad_attr(at, a, "a bool list of at most 16 dimensions", d);
	n->dims = 0;
	for (i = 0; i < a->bool_list->n_values; i++)
		n->dims |= (uint16_t)(a->bool_list->values[i] ? 1u << i : 0);
	return 0;
}

/* The attributes testbed ignores (chakra.h). */
static bool ignored_attr(const char *name)
{
	static const char *const names[] = {"comm_priority", "tensor_loc", "rf_id",
					    "fw_parent",     "seq_id",	   "scope",
					    "tid",	     "fw_tid",	   "op_schema"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* One attribute of node n (not a METADATA_NODE) into it. */
static int node_attr(struct chakra_rank *r, const struct at *at,
		     const ChakraProtoMsg__AttributeProto *a, struct chakra_node *n, struct diag *d)
{
	const char *s = a->name;
	int64_t v = 0;
	int err = 0;

	if (!strcmp(s, "is_cpu_op")) {
		if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL &&
		    attr_int(a, &v))
			return bad_attr(at, a, "a bool", d);
		n->flags |= (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL
				     ? a->bool_val
				     : v != 0)
				    ? CHAKRA_F_CPU
				    : 0;
	} else if (!strcmp(s, "num_ops")) {
		err = int_in(at, a, 0, INT64_MAX, &v, d);
		n->num_ops = (uint64_t)v;
	} else if (!strcmp(s, "tensor_size")) {
		err = int_in(at, a, 0, INT64_MAX, &v, d);
		n->tensor_size = (uint64_t)v;
	} else if (!strcmp(s, "comm_type")) {
		err = int_in(at, a, 0, CHAKRA_COLLS - 1, &v, d);
		n->coll = (uint8_t)v;
	} else if (!strcmp(s, "comm_size")) {
		err = int_in(at, a, 0, INT64_MAX, &v, d);
		n->bytes = (uint64_t)v;
		n->flags |= CHAKRA_F_SIZE;
	} else if (!strcmp(s, "comm_src") || !strcmp(s, "comm_dst")) {
		err = int_in(at, a, 0, INT32_MAX, &v, d);
		/* the peer: a send's destination, a receive's source (the other is its own) */
		if (!err && (n->kind == CHAKRA_SEND) == (s[5] == 'd')) {
			n->peer = (int32_t)v;
			n->flags |= CHAKRA_F_PEER;
		}
	} else if (!strcmp(s, "comm_tag")) {
		err = int_in(at, a, INT32_MIN, INT32_MAX, &v, d);
		n->tag = (int32_t)v;
		n->flags |= CHAKRA_F_TAG;
	} else if (!strcmp(s, "involved_dim")) {
		err = dims_of(at, a, n, d);
	} else if (!strcmp(s, "pg_name")) {
		if (a->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
			return bad_attr(at, a, "a string (a process group's name)", d);
		n->pg = strcmp(a->string_val, "0") ? keep_str(r, a->string_val) : 0;
		if (n->pg == UINT32_MAX)
			return diag_set(d, -ENOMEM, "out of memory");
	} else if (!ignored_attr(s)) {
		return diag_set(
			d, -EINVAL,
			"%s: node %" PRIu64 " (%s): attribute '%s' is not one testbed reads "
			"(is_cpu_op, num_ops, tensor_size, comm_type, comm_size, comm_src, "
			"comm_dst, comm_tag, involved_dim, pg_name) or ignores (comm_priority, "
			"tensor_loc, and PyTorch's rf_id, fw_parent, seq_id, scope, tid, "
			"fw_tid, op_schema)",
			at->file, at->m->id, at->m->name, s);
	}
	return err;
}

/* ---- nodes ---- */

/* The schema's node type as ours, or -1 (INVALID_NODE, or one the schema does not have). */
static int kind_of(ChakraProtoMsg__NodeType t)
{
	switch (t) {
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
		return CHAKRA_COMP;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
		return CHAKRA_COLL;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
		return CHAKRA_SEND;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
		return CHAKRA_RECV;
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE:
		return CHAKRA_LOAD;
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE:
		return CHAKRA_STORE;
	case CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE:
		return CHAKRA_META;
	default:
		return -1;
	}
}

/* What a kind of node must carry. */
static int node_complete(const struct at *at, const struct chakra_node *n, bool has_type,
			 struct diag *d)
{
	const char *miss = NULL;

	if (n->kind == CHAKRA_COLL && !has_type)
		miss = "comm_type";
	else if ((n->kind == CHAKRA_COLL || n->kind == CHAKRA_SEND || n->kind == CHAKRA_RECV) &&
		 !(n->flags & CHAKRA_F_SIZE))
		miss = "comm_size";
	else if ((n->kind == CHAKRA_SEND || n->kind == CHAKRA_RECV) && !(n->flags & CHAKRA_F_PEER))
		miss = n->kind == CHAKRA_SEND ? "comm_dst" : "comm_src";
	else if ((n->kind == CHAKRA_SEND || n->kind == CHAKRA_RECV) && !(n->flags & CHAKRA_F_TAG))
		miss = "comm_tag";
	if (miss)
		return diag_set(d, -EINVAL, "%s: node %" PRIu64 " (%s): a %s without %s", at->file,
				at->m->id, at->m->name, kind_names[n->kind], miss);
	if (n->kind == CHAKRA_COLL && (n->coll == CHAKRA_GATHER || n->coll == CHAKRA_SCATTER ||
				       n->coll == CHAKRA_REDUCE_SCATTER_BLOCK))
		return diag_set(
			d, -EINVAL,
			"%s: node %" PRIu64 " (%s): comm_type %s: testbed runs ALL_REDUCE, "
			"REDUCE_SCATTER, ALL_GATHER, ALL_TO_ALL, BROADCAST, REDUCE and BARRIER",
			at->file, at->m->id, at->m->name, coll_names[n->coll]);
	return 0;
}

/* Node m's dependencies, as ids for now (resolved once every node is read). */
static int node_deps(id_vec *ids, const ChakraProtoMsg__Node *m, struct chakra_node *n)
{
	size_t i;

	n->dep = (uint32_t)ids->n;
	if (ids->n + m->n_data_deps + m->n_ctrl_deps > UINT32_MAX ||
	    vec_reserve(ids, ids->n + m->n_data_deps + m->n_ctrl_deps))
		return -ENOMEM;
	for (i = 0; i < m->n_data_deps; i++)
		ids->v[ids->n++] = m->data_deps[i];
	for (i = 0; i < m->n_ctrl_deps; i++)
		ids->v[ids->n++] = m->ctrl_deps[i];
	n->ndeps = (uint32_t)(ids->n - n->dep);
	return 0;
}

static int read_node(struct chakra_rank *r, id_vec *ids, const ChakraProtoMsg__Node *m,
		     const char *file, struct diag *d)
{
	const struct at at = {file, m};
	struct chakra_node n = {.id = m->id, .peer = -1, .dims = 0xffff};
	int kind = kind_of(m->type), err = 0;
	bool has_type = false;
	size_t i;

	if (kind < 0)
		return diag_set(d, -EINVAL,
				"%s: node %" PRIu64 " (%s): node type %d is not one of "
				"the schema's (COMP_NODE, COMM_COLL_NODE, "
				"COMM_SEND_NODE, COMM_RECV_NODE, MEM_LOAD_NODE, "
				"MEM_STORE_NODE, METADATA_NODE)",
				file, m->id, m->name, (int)m->type);
	n.kind = (uint8_t)kind;
	n.duration_us = m->duration_micros;
	n.flags = m->duration_micros ? CHAKRA_F_DURATION : 0;
	n.name = keep_str(r, m->name);
	for (i = 0; kind != CHAKRA_META && !err && i < m->n_attr; i++) {
		has_type |= !strcmp(m->attr[i]->name, "comm_type");
		err = node_attr(r, &at, m->attr[i], &n, d);
	}
	err = err ? err : node_complete(&at, &n, has_type, d);
	if (!err && kind == CHAKRA_META && m->inputs && m->inputs->values[0]) {
		uint32_t off = keep_str(r, m->inputs->values);

		err = off == UINT32_MAX || vec_push(&r->meta, off) ? -ENOMEM : 0;
	}
	if (!err && (n.name == UINT32_MAX || node_deps(ids, m, &n) || vec_push(&r->nodes, n)))
		err = -ENOMEM;
	return err == -ENOMEM ? diag_set(d, err, "%s: out of memory", file) : err;
}

/* ---- dependencies: ids to indices ---- */

struct id_at {
	uint64_t id;
	uint32_t at;
};

static int id_cmp(const void *a, const void *b)
{
	const struct id_at *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id ? 1 : (x->at > y->at) - (x->at < y->at);
}

/* The node with this id, or NULL. */
static const struct id_at *find_id(const struct id_at *v, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id ? &v[lo] : NULL;
}

static int resolve(struct chakra_rank *r, const id_vec *ids, const char *file, struct diag *d)
{
	struct id_at *by = malloc((r->nodes.n + 1) * sizeof(*by));
	size_t i, k;
	int err = by && !vec_reserve(&r->deps, ids->n) ? 0 : -ENOMEM;

	for (i = 0; !err && i < r->nodes.n; i++)
		by[i] = (struct id_at){r->nodes.v[i].id, (uint32_t)i};
	if (!err)
		qsort(by, r->nodes.n, sizeof(*by), id_cmp);
	for (i = 1; !err && i < r->nodes.n; i++)
		if (by[i].id == by[i - 1].id)
			err = diag_set(d, -EINVAL,
				       "%s: node %" PRIu64 " (%s): a second node with id "
				       "%" PRIu64 " (the first is %s)",
				       file, by[i].id, chakra_str(r, r->nodes.v[by[i].at].name),
				       by[i].id, chakra_str(r, r->nodes.v[by[i - 1].at].name));
	for (i = 0; !err && i < r->nodes.n; i++) {
		const struct chakra_node *n = &r->nodes.v[i];

		for (k = n->dep; !err && k < n->dep + n->ndeps; k++) {
			const struct id_at *p = find_id(by, r->nodes.n, ids->v[k]);

			if (!p)
				err = diag_set(d, -EINVAL,
					       "%s: node %" PRIu64 " (%s) depends on node %" PRIu64
					       ", which the file does not have",
					       file, n->id, chakra_str(r, n->name), ids->v[k]);
			else
				r->deps.v[k] = p->at;
		}
	}
	if (!err)
		r->deps.n = ids->n;
	free(by);
	return err == -ENOMEM ? diag_set(d, err, "%s: out of memory", file) : err;
}

/* ---- the file ---- */

static int read_meta(struct chakra_rank *r, const uint8_t *msg, size_t mlen, struct arena *a,
		     const char *file, struct diag *d)
{
	ChakraProtoMsg__GlobalMetadata *g;
	int err;

	g = (ChakraProtoMsg__GlobalMetadata *)unpack(&chakra_proto_msg__global_metadata__descriptor,
						     a, msg, mlen, &err);
	if (!g)
		return err == -ENOMEM ? diag_set(d, err, "%s: out of memory", file)
				      : diag_set(d, err,
						 "%s: the first message is not a GlobalMetadata: "
						 "not a Chakra trace of this schema",
						 file);
	snprintf(r->version, sizeof(r->version), "%s", g->version);
	return 0;
}

int chakra_read(const uint8_t *buf, size_t len, const char *file, struct chakra_rank *r,
		struct diag *d)
{
	struct arena a = {0};
	id_vec ids = {0};
	const uint8_t *msg = NULL;
	size_t at = 0, mlen = 0, k = 0;
	int more, err;

	memset(r, 0, sizeof(*r));
	err = vec_push(&r->names, '\0') ? diag_set(d, -ENOMEM, "out of memory") : 0;
	more = err ? 0 : next_message(buf, len, &at, &msg, &mlen, file, d);
	if (!err && more <= 0)
		err = more < 0 ? more : diag_set(d, -EINVAL, "%s: empty: no GlobalMetadata", file);
	err = err ? err : read_meta(r, msg, mlen, &a, file, d);
	while (!err && (more = next_message(buf, len, &at, &msg, &mlen, file, d)) > 0) {
		ChakraProtoMsg__Node *m = (ChakraProtoMsg__Node *)unpack(
			&chakra_proto_msg__node__descriptor, &a, msg, mlen, &err);

		k++;
		if (!m)
			err = err == -ENOMEM ? diag_set(d, err, "%s: out of memory", file)
					     : diag_set(d, err,
							"%s: message %zu (byte %zu): not a Node of "
							"this schema",
							file, k + 1, (size_t)(msg - buf));
		err = err ? err : read_node(r, &ids, m, file, d);
	}
	err = err ? err : more < 0 ? more : resolve(r, &ids, file, d);
	free(a.buf);
	vec_free(&ids);
	return err;
}

void chakra_rank_done(struct chakra_rank *r)
{
	vec_free(&r->nodes);
	vec_free(&r->deps);
	vec_free(&r->names);
	vec_free(&r->meta);
}
