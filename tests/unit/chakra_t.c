// SPDX-License-Identifier: MIT
/* What the Chakra tests share (chakra_t.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/chakra_t.h"

void tchk_put_msg(struct tchk_buf *o, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m), v = n;

	if (o->n + n + 10 > o->cap) {
		o->cap = 2 * (o->n + n + 10);
		o->b = realloc(o->b, o->cap);
		assert_non_null(o->b);
	}
	do {
		o->b[o->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	o->n += protobuf_c_message_pack(m, o->b + o->n);
}

void tchk_put_meta(struct tchk_buf *o)
{
	ChakraProtoMsg__GlobalMetadata g = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;

	tchk_put_msg(o, &g.base);
}

void tchk_put_node(struct tchk_buf *o, uint64_t id, ChakraProtoMsg__NodeType t,
		   const uint64_t *deps, size_t nd, uint64_t us, const char *const *names,
		   const int64_t *vals)
{
	ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__AttributeProto a[3], *ap[3] = {&a[0], &a[1], &a[2]};
	size_t i;

	for (i = 0; names && i < 3 && names[i]; i++) {
		chakra_proto_msg__attribute_proto__init(&a[i]);
		a[i].name = (char *)names[i];
		a[i].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
		a[i].int64_val = vals[i];
	}
	m.id = id;
	m.name = (char *)"n";
	m.type = t;
	m.n_data_deps = nd;
	m.data_deps = (uint64_t *)deps;
	m.duration_micros = us;
	m.n_attr = i;
	m.attr = ap;
	tchk_put_msg(o, &m.base);
}

uint8_t *tchk_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	if (f)
		fclose(f);
	return b;
}

void tchk_read(const char *prefix, size_t n, struct tchk_job *j)
{
	struct diag d = {0};
	char path[256];
	size_t i, len = 0;

	memset(j, 0, sizeof(*j));
	j->n = n;
	for (i = 0; i < n; i++) {
		uint8_t *b;

		snprintf(path, sizeof(path), "scenarios/chakra/%s.%zu.et", prefix, i);
		b = tchk_slurp(path, &len);
		assert_non_null(b);
		if (chakra_read(b, len, path, &j->r[i], &d))
			fail_msg("%s", d.msg);
		free(b);
	}
	if (chakra_check(j->r, n, NULL, &j->st, &j->l, &d))
		fail_msg("%s", d.msg);
}

void tchk_load(struct tchk_buf *o, size_t n, struct tchk_job *j)
{
	struct diag d = {0};
	size_t i;

	memset(j, 0, sizeof(*j));
	j->n = n;
	for (i = 0; i < n; i++)
		if (chakra_read(o[i].b, o[i].n, "t.et", &j->r[i], &d))
			fail_msg("%s", d.msg);
	if (chakra_check(j->r, n, NULL, &j->st, &j->l, &d))
		fail_msg("%s", d.msg);
	for (i = 0; i < n; i++) {
		free(o[i].b);
		o[i] = (struct tchk_buf){0};
	}
}

struct chakra_job tchk_cj(const struct tchk_job *j, enum coll_algo a, bool regions)
{
	return (struct chakra_job){.ranks = j->r,
				   .n = j->n,
				   .l = &j->l,
				   .coll = {.algo = a, .elem = 4},
				   .size_mul = 1,
				   .time_mul = 1,
				   .regions = regions};
}

void tchk_done(struct tchk_job *j)
{
	size_t i;

	for (i = 0; i < j->n; i++)
		chakra_rank_done(&j->r[i]);
	chakra_links_done(&j->l);
}
