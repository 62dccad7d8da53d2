// SPDX-License-Identifier: MIT
/* A job written as one rank's Chakra trace (chakra_out.h), the reverse of chakra.c: each
 * message built on the stack and packed by protobuf-c straight into the caller's buffer, after
 * its varint length. No memory but the buffer's. */
#include <errno.h>
#include <inttypes.h>
#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "traffic/chakra/chakra_out.h"
#include "traffic/chakra/et_def.pb-c.h"

/* The collectives a job runs, as its collective nodes' names end; NULL for the others. */
static const char *coll_word(unsigned c)
{
	switch (c) {
	case CHAKRA_ALL_REDUCE:
		return "allreduce";
	case CHAKRA_ALL_GATHER:
		return "allgather";
	case CHAKRA_REDUCE_SCATTER:
		return "reducescatter";
	case CHAKRA_ALL_TO_ALL:
		return "alltoall";
	default:
		return NULL;
	}
}

static int job_valid(const struct chakra_out_job *j, uint32_t rank, struct diag *d)
{
	const char *name = j->name ? j->name : "(null)";

	if (!j->name || !j->name[0] || strlen(j->name) > CHAKRA_OUT_NAME_MAX)
		return diag_set(d, -EINVAL, "Chakra job '%.*s': a name of 1 to %d bytes is needed",
				CHAKRA_OUT_NAME_MAX, name, CHAKRA_OUT_NAME_MAX);
	if (!j->nranks || !j->iterations)
		return diag_set(d, -EINVAL, "Chakra job '%s': %s 0: at least 1 is needed", name,
				j->nranks ? "iterations" : "nranks");
	if (rank >= j->nranks)
		return diag_set(d, -EINVAL,
				"Chakra job '%s': rank %" PRIu32 " of %" PRIu32 " ranks", name,
				rank, j->nranks);
	if (!coll_word(j->coll))
		return diag_set(d, -EINVAL,
				"Chakra job '%s': comm_type %u (%s): a job runs ALL_REDUCE, "
				"ALL_GATHER, REDUCE_SCATTER or ALL_TO_ALL",
				name, j->coll, chakra_coll_name(j->coll));
	if (j->bytes > INT64_MAX)
		return diag_set(d, -EINVAL,
				"Chakra job '%s': %" PRIu64 " bytes: comm_size is an int64", name,
				j->bytes);
	return 0;
}

/* ---- the stream ---- */

/* m appended to out after its length as a varint. 0 or -ENOMEM. */
static int put_msg(chakra_out_bytes *out, const ProtobufCMessage *m)
{
	size_t len = protobuf_c_message_get_packed_size(m), x = len, k = 0;
	uint8_t v[10];

	do {
		v[k++] = (uint8_t)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
		x >>= 7;
	} while (x);
	if (vec_reserve(out, out->n + k + len))
		return -ENOMEM;
	memcpy(out->v + out->n, v, k);
	out->n += k;
	out->n += protobuf_c_message_pack(m, out->v + out->n);
	return 0;
}

static int put_meta(chakra_out_bytes *out)
{
	ChakraProtoMsg__GlobalMetadata g = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;

	g.version = (char *)CHAKRA_OUT_VERSION;
	return put_msg(out, &g.base);
}

/* ---- nodes ---- */

/* Attributes as the canonical kinds (scenarios/chakra/SCHEMA-NOTES.md §3.1): int64 integers, a
 * bool, a string. A value in the oneof is written even when it is 0 or "": the reader sees it set.
 */
static void attr_int(ChakraProtoMsg__AttributeProto *a, const char *name, int64_t v)
{
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
}

static void attr_bool(ChakraProtoMsg__AttributeProto *a, const char *name, bool v)
{
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
	a->bool_val = v;
}

static void attr_str(ChakraProtoMsg__AttributeProto *a, const char *name, const char *v)
{
	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a->string_val = (char *)v; /* never protobuf-c's default "", which it would leave out */
}

/* The rank's file as it is written: the next node's id, each node after the one before. */
struct writer {
	const struct chakra_out_job *j;
	chakra_out_bytes *out;
	uint64_t id;
};

/* Node m (its type, duration and attributes set) of iteration it, named NAME.it<it>.<what>,
 * given the next id and a data dependency on the node before it. */
static int put_node(struct writer *w, ChakraProtoMsg__Node *m, uint32_t it, const char *what)
{
	char name[CHAKRA_OUT_NAME_MAX + 32];
	uint64_t parent = w->id - 1;
	int err;

	snprintf(name, sizeof(name), "%s.it%" PRIu32 ".%s", w->j->name, it, what);
	m->id = w->id;
	m->name = name;
	m->n_data_deps = w->id ? 1 : 0;
	m->data_deps = &parent;
	err = put_msg(w->out, &m->base);
	w->id += !err;
	return err;
}

/* A GPU compute replayed for its duration (is_cpu_op false, as Chakra's generator writes:
 * ASTRA-sim's roofline mode would want num_ops and tensor_size, which a job does not have). */
static int put_comp(struct writer *w, uint32_t it, uint64_t us)
{
	ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__AttributeProto cpu, *attr[] = {&cpu};

	attr_bool(&cpu, "is_cpu_op", false);
	m.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
	m.duration_micros = us;
	m.n_attr = sizeof(attr) / sizeof(attr[0]);
	m.attr = attr;
	return put_node(w, &m, it, "comp");
}

/* The iteration's collective over every rank, its attributes in the order of ASTRA-sim's
 * microbenchmarks (is_cpu_op, comm_type, comm_size), then pg_name. */
static int put_coll(struct writer *w, uint32_t it)
{
	ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__AttributeProto cpu, type, size, pg;
	ChakraProtoMsg__AttributeProto *attr[] = {&cpu, &type, &size, &pg};

	attr_bool(&cpu, "is_cpu_op", false);
	attr_int(&type, "comm_type", w->j->coll);
	attr_int(&size, "comm_size", (int64_t)w->j->bytes);
	attr_str(&pg, "pg_name", "");
	m.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
	m.n_attr = sizeof(attr) / sizeof(attr[0]);
	m.attr = attr;
	return put_node(w, &m, it, coll_word(w->j->coll));
}

/* ---- the file ---- */

int chakra_out_rank(const struct chakra_out_job *j, uint32_t rank, chakra_out_bytes *out,
		    struct diag *d)
{
	struct writer w = {j, out, 0};
	uint64_t us = chakra_out_us(j->compute_ns);
	size_t start = out->n;
	uint32_t it;
	int err = job_valid(j, rank, d);

	if (err)
		return err;
	/* every rank's file is the same chain: the job's collectives are over all of them */
	err = put_meta(out);
	for (it = 0; !err && it < j->iterations; it++) {
		if (us)
			err = put_comp(&w, it, us);
		err = err ? err : put_coll(&w, it);
	}
	if (err) {
		out->n = start;
		return diag_set(d, err, "Chakra job '%s': out of memory", j->name);
	}
	return 0;
}
