/* SPDX-License-Identifier: MIT */
/* What the Chakra tests share (tests/unit/traffic/test_chakra*.c, test_emu_chakra_verify.c):
 * writing a trace (each message after its varint length, packed by protobuf-c against the
 * project's et_def.proto), reading the published ones under scenarios/chakra/, and a job of
 * ranks read and linked. Failures end the test (cmocka). */
#ifndef TESTS_UNIT_CHAKRA_T_H
#define TESTS_UNIT_CHAKRA_T_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "traffic/chakra/chakra.h"
#include "traffic/chakra/et_def.pb-c.h"

/* A trace being written, growing. */
struct tchk_buf {
	uint8_t *b;
	size_t n, cap;
};

/* m after its length as a varint. */
void tchk_put_msg(struct tchk_buf *o, const ProtobufCMessage *m);
/* A GlobalMetadata with no version. */
void tchk_put_meta(struct tchk_buf *o);
/* A node named "n" of type t after deps (nd of them), of us microseconds, with up to 3 int64
 * attributes (names NULL-terminated, or NULL: none). */
void tchk_put_node(struct tchk_buf *o, uint64_t id, ChakraProtoMsg__NodeType t,
		   const uint64_t *deps, size_t nd, uint64_t us, const char *const *names,
		   const int64_t *vals);

#define TCHK_COMP CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE
#define TCHK_COLL CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
#define TCHK_SEND CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
#define TCHK_RECV CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE

/* A whole file (malloc'd, *len bytes), or NULL. */
uint8_t *tchk_slurp(const char *path, size_t *len);

/* A job of up to 16 ranks, read and linked (chakra_check). */
struct tchk_job {
	struct chakra_rank r[16];
	struct chakra_links l;
	struct chakra_stats st;
	size_t n;
};

/* scenarios/chakra/<prefix>.<rank>.et for n ranks into j. */
void tchk_read(const char *prefix, size_t n, struct tchk_job *j);
/* The n buffers as ranks into j; the buffers freed. */
void tchk_load(struct tchk_buf *o, size_t n, struct tchk_job *j);
void tchk_done(struct tchk_job *j);
/* j run under algorithm a at its trace's own sizes and times (4-byte elements), every
 * operation in its own regions or not. */
struct chakra_job tchk_cj(const struct tchk_job *j, enum coll_algo a, bool regions);

#endif
