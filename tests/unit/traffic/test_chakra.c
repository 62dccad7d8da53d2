// SPDX-License-Identifier: MIT
/* Chakra execution traces (traffic/chakra/): hand-built traces, written by a small encoder
 * here (protobuf-c packing the project's own et_def.proto, each message after its varint
 * length), read back: dependencies in order, a send/receive pair, every collective kind, and
 * the refusals (a cycle, a dependency on a node the file lacks, a send and receive of
 * different sizes, an attribute testbed neither reads nor ignores, a kind it cannot run, a
 * stream cut short). Then every published trace under scenarios/chakra/ (its README names
 * the sources): read, and checked as a job. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "traffic/chakra/chakra.h"
#include "traffic/chakra/et_def.pb-c.h"

/* ---- the encoder ---- */

struct buf {
	uint8_t b[1 << 16];
	size_t n;
};

static void put_varint(struct buf *o, uint64_t v)
{
	do {
		o->b[o->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void put_msg(struct buf *o, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);

	assert_true(o->n + n + 10 <= sizeof(o->b));
	put_varint(o, n);
	o->n += protobuf_c_message_pack(m, o->b + o->n);
}

static void put_meta(struct buf *o)
{
	ChakraProtoMsg__GlobalMetadata g = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;

	g.version = (char *)"0.0.4";
	put_msg(o, &g.base);
}

/* An attribute: an int64 value, a bool, or a string. */
static ChakraProtoMsg__AttributeProto *a_int(const char *name, int64_t v)
{
	ChakraProtoMsg__AttributeProto *a = calloc(1, sizeof(*a));

	chakra_proto_msg__attribute_proto__init(a);
	a->name = (char *)name;
	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	a->int64_val = v;
	return a;
}

static ChakraProtoMsg__AttributeProto *a_str(const char *name, const char *v)
{
	ChakraProtoMsg__AttributeProto *a = a_int(name, 0);

	a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	a->string_val = (char *)v;
	return a;
}

/* A node of type t with up to 4 data dependencies (0-terminated ids, so id 0 is never a
 * parent here) and its attributes (NULL-terminated). */
static void put_node(struct buf *o, uint64_t id, const char *name, ChakraProtoMsg__NodeType t,
		     const uint64_t *deps, uint64_t dur_us, ...)
{
	ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;
	ChakraProtoMsg__AttributeProto *attr[8];
	uint64_t dd[4];
	va_list ap;
	size_t i;

	m.id = id;
	m.name = (char *)name;
	m.type = t;
	m.duration_micros = dur_us;
	for (i = 0; deps && deps[i] && i < 4; i++)
		dd[i] = deps[i];
	m.n_data_deps = i;
	m.data_deps = dd;
	va_start(ap, dur_us);
	for (i = 0; i < 8 && (attr[i] = va_arg(ap, ChakraProtoMsg__AttributeProto *)); i++)
		;
	va_end(ap);
	m.n_attr = i;
	m.attr = attr;
	put_msg(o, &m.base);
	while (i--)
		free(attr[i]);
}

#define COMP CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE
#define COLL CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
#define SEND CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
#define RECV CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE

static int t_read(const struct buf *o, struct chakra_rank *r, struct diag *d)
{
	return chakra_read(o->b, o->n, "t.0.et", r, d);
}

/* ---- hand-built traces ---- */

static void test_dependency_order(void **state)
{
	struct buf *o = calloc(1, sizeof(*o));
	struct chakra_rank r;
	struct chakra_stats st;
	struct diag d = {0};
	const char *files[] = {"t.0.et"};

	(void)state;
	put_meta(o);
	/* written out of order: 7 waits for 5 and 9, 9 for 5 */
	put_node(o, 7, "last", COMP, (const uint64_t[]){5, 9, 0}, 30, NULL);
	put_node(o, 5, "first", COMP, NULL, 10, NULL);
	put_node(o, 9, "middle", COMP, (const uint64_t[]){5, 0}, 20, NULL);
	assert_int_equal(t_read(o, &r, &d), 0);
	assert_string_equal(r.version, "0.0.4");
	assert_int_equal(r.nodes.n, 3);
	assert_int_equal(r.nodes.v[0].ndeps, 2);
	assert_int_equal(r.deps.v[r.nodes.v[0].dep], 1); /* id 5: the second node */
	assert_int_equal(r.deps.v[r.nodes.v[0].dep + 1], 2); /* id 9: the third */
	assert_int_equal(r.deps.v[r.nodes.v[2].dep], 1);
	assert_int_equal(r.nodes.v[1].duration_us, 10);
	assert_string_equal(chakra_str(&r, r.nodes.v[2].name), "middle");
	assert_int_equal(chakra_check(&r, 1, files, &st, NULL, &d), 0);
	assert_int_equal(st.nodes[CHAKRA_COMP], 3);
	assert_int_equal(st.deps, 3);
	chakra_rank_done(&r);
	free(o);
}

/* Rank 0 sends 4 KiB to rank 1 (tag 7), which receives size bytes. */
static int t_pair(uint64_t size, int32_t peer, struct chakra_stats *st, struct diag *d)
{
	struct buf *o = calloc(2, sizeof(*o));
	struct chakra_rank r[2];
	const char *files[] = {"p.0.et", "p.1.et"};
	int err;

	put_meta(&o[0]);
	put_node(&o[0], 1, "send", SEND, NULL, 0, a_int("comm_size", 4096), a_int("comm_dst", peer),
		 a_int("comm_src", 0), a_int("comm_tag", 7), NULL);
	put_meta(&o[1]);
	put_node(&o[1], 2, "recv", RECV, NULL, 0, a_int("comm_size", (int64_t)size),
		 a_int("comm_src", 0), a_int("comm_tag", 7), NULL);
	assert_int_equal(chakra_read(o[0].b, o[0].n, files[0], &r[0], d), 0);
	assert_int_equal(chakra_read(o[1].b, o[1].n, files[1], &r[1], d), 0);
	assert_int_equal(r[0].nodes.v[0].peer, peer);
	assert_int_equal(r[1].nodes.v[0].peer, 0);
	err = chakra_check(r, 2, files, st, NULL, d);
	chakra_rank_done(&r[0]);
	chakra_rank_done(&r[1]);
	free(o);
	return err;
}

static void test_send_recv(void **state)
{
	struct chakra_stats st;
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_pair(4096, 1, &st, &d), 0);
	assert_int_equal(st.pairs, 1);
	assert_int_equal(st.p2p_bytes, 4096);
	assert_int_equal(st.nodes[CHAKRA_SEND], 1);
	assert_int_equal(st.nodes[CHAKRA_RECV], 1);

	d = (struct diag){0};
	assert_int_equal(t_pair(2048, 1, &st, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "p.0.et: node 1 (send) sends 4096 bytes to rank 1, and "
				      "p.1.et: node 2 (recv), the receive it meets (comm_tag 7), "
				      "takes 2048"));
	d = (struct diag){0};
	assert_int_equal(t_pair(4096, 0, &st, &d), -EINVAL); /* to itself */
	assert_non_null(strstr(d.msg, "p.0.et: node 1 (send): comm_dst 0 is not another rank"));
}

static void test_unpaired(void **state)
{
	struct buf *o = calloc(2, sizeof(*o));
	struct chakra_rank r[2];
	struct chakra_stats st;
	struct diag d = {0};
	const char *files[] = {"u.0.et", "u.1.et"};

	(void)state;
	put_meta(&o[0]);
	put_node(&o[0], 1, "send", SEND, NULL, 0, a_int("comm_size", 8), a_int("comm_dst", 1),
		 a_int("comm_tag", 3), NULL);
	put_meta(&o[1]);
	put_node(&o[1], 1, "recv", RECV, NULL, 0, a_int("comm_size", 8), a_int("comm_src", 0),
		 a_int("comm_tag", 4), NULL); /* another tag */
	assert_int_equal(chakra_read(o[0].b, o[0].n, files[0], &r[0], &d), 0);
	assert_int_equal(chakra_read(o[1].b, o[1].n, files[1], &r[1], &d), 0);
	assert_int_equal(chakra_check(r, 2, files, &st, NULL, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "u.0.et: node 1 (send): a send to rank 1 with comm_tag 3 "
				      "that no receive at rank 1 meets"));
	chakra_rank_done(&r[0]);
	chakra_rank_done(&r[1]);
	free(o);
}

/* Every collective testbed runs, on two ranks, in one group of every rank. */
static void test_collectives(void **state)
{
	static const int kinds[] = {CHAKRA_ALL_REDUCE, CHAKRA_REDUCE_SCATTER, CHAKRA_ALL_GATHER,
				    CHAKRA_ALL_TO_ALL, CHAKRA_BROADCAST,      CHAKRA_REDUCE,
				    CHAKRA_BARRIER};
	struct buf *o = calloc(2, sizeof(*o));
	struct chakra_rank r[2];
	struct chakra_stats st;
	struct diag d = {0};
	const char *files[] = {"c.0.et", "c.1.et"};
	size_t i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		put_meta(&o[k]);
		for (i = 0; i < 7; i++)
			put_node(&o[k], 100 + i, chakra_coll_name(kinds[i]), COLL,
				 i ? (const uint64_t[]){99 + i, 0} : NULL, 0,
				 a_int("comm_type", kinds[i]), a_int("comm_size", 1 << (10 + i)),
				 a_str("pg_name", "0"), NULL);
		assert_int_equal(chakra_read(o[k].b, o[k].n, files[k], &r[k], &d), 0);
	}
	for (i = 0; i < 7; i++) {
		assert_int_equal(r[1].nodes.v[i].kind, CHAKRA_COLL);
		assert_int_equal(r[1].nodes.v[i].coll, kinds[i]);
		assert_int_equal(r[1].nodes.v[i].bytes, 1u << (10 + i));
		assert_int_equal(r[1].nodes.v[i].pg, 0); /* "0": every rank */
	}
	assert_int_equal(chakra_check(r, 2, files, &st, NULL, &d), 0);
	for (i = 0; i < 7; i++)
		assert_int_equal(st.colls[kinds[i]], 2);
	assert_int_equal(st.coll_bytes, 2 * ((1u << 17) - (1u << 10)));
	chakra_rank_done(&r[1]);

	/* rank 1's fourth collective of another size: refused, naming it and rank 0's */
	o[1].n = 0;
	put_meta(&o[1]);
	for (i = 0; i < 7; i++)
		put_node(&o[1], 100 + i, chakra_coll_name(kinds[i]), COLL, NULL, 0,
			 a_int("comm_type", kinds[i]),
			 a_int("comm_size", (1 << (10 + i)) + (i == 3)), NULL);
	assert_int_equal(chakra_read(o[1].b, o[1].n, files[1], &r[1], &d), 0);
	assert_int_equal(chakra_check(r, 2, files, &st, NULL, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "c.1.et: node 103 (ALL_TO_ALL), collective 4 of process "
				      "group '': ALL_TO_ALL of 8193 bytes, where c.0.et has "
				      "ALL_TO_ALL of 8192"));
	chakra_rank_done(&r[0]);
	chakra_rank_done(&r[1]);
	free(o);
}

/* A trace with one node (t, its attributes) refused with a message holding want. */
static void t_refused(ChakraProtoMsg__NodeType t, const char *want, ...)
{
	struct buf *o = calloc(1, sizeof(*o));
	ChakraProtoMsg__AttributeProto *a[4];
	struct chakra_rank r;
	struct diag d = {0};
	va_list ap;
	size_t n = 0;

	va_start(ap, want);
	while (n < 4 && (a[n] = va_arg(ap, ChakraProtoMsg__AttributeProto *)))
		n++;
	va_end(ap);
	put_meta(o);
	put_node(o, 3, "x", t, NULL, 0, n > 0 ? a[0] : NULL, n > 1 ? a[1] : NULL,
		 n > 2 ? a[2] : NULL, n > 3 ? a[3] : NULL, NULL);
	assert_int_equal(t_read(o, &r, &d), -EINVAL);
	if (!strstr(d.msg, want))
		fail_msg("'%s' lacks '%s'", d.msg, want);
	chakra_rank_done(&r);
	free(o);
}

static void test_refusals(void **state)
{
	(void)state;
	t_refused(COMP, "t.0.et: node 3 (x): attribute 'flops' is not one testbed reads",
		  a_int("flops", 1), NULL);
	t_refused(COLL, "t.0.et: node 3 (x): a COMM_COLL_NODE without comm_type",
		  a_int("comm_size", 8), NULL);
	t_refused(COLL, "t.0.et: node 3 (x): a COMM_COLL_NODE without comm_size",
		  a_int("comm_type", 0), NULL);
	t_refused(COLL, "comm_type GATHER: testbed runs ALL_REDUCE", a_int("comm_type", 3),
		  a_int("comm_size", 8), NULL);
	t_refused(COLL, "attribute comm_type: expected an integer from 0 to 9",
		  a_int("comm_type", 12), a_int("comm_size", 8), NULL);
	t_refused(SEND, "a COMM_SEND_NODE without comm_dst", a_int("comm_size", 8),
		  a_int("comm_tag", 1), NULL);
	t_refused(RECV, "a COMM_RECV_NODE without comm_tag", a_int("comm_size", 8),
		  a_int("comm_src", 1), NULL);
	t_refused(COMP, "attribute pg_name: expected a string", a_int("pg_name", 1), NULL);
	t_refused(COMP, "attribute comm_size: expected an integer from 0", a_int("comm_size", -1),
		  NULL);
	t_refused((ChakraProtoMsg__NodeType)0, "node type 0 is not one of the schema's", NULL);
}

static void test_ignored(void **state)
{
	struct buf *o = calloc(1, sizeof(*o));
	struct chakra_rank r;
	struct diag d = {0};

	(void)state;
	put_meta(o);
	put_node(o, 1, "k", COMP, NULL, 5, a_int("comm_priority", 2), a_int("rf_id", 9),
		 a_str("op_schema", "aten::mm"), a_int("num_ops", 1000), NULL);
	put_node(o, 2, "m", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, NULL, 0,
		 a_int("anything", 1), NULL);
	assert_int_equal(t_read(o, &r, &d), 0);
	assert_int_equal(r.nodes.v[0].num_ops, 1000);
	assert_int_equal(r.nodes.v[1].kind, CHAKRA_META);
	chakra_rank_done(&r);
	free(o);
}

static void test_cycle_and_dangling(void **state)
{
	struct buf *o = calloc(1, sizeof(*o));
	struct chakra_rank r;
	struct chakra_stats st;
	struct diag d = {0};
	const char *files[] = {"g.0.et"};

	(void)state;
	put_meta(o);
	put_node(o, 1, "root", COMP, NULL, 1, NULL);
	put_node(o, 2, "a", COMP, (const uint64_t[]){1, 3, 0}, 1, NULL);
	put_node(o, 3, "b", COMP, (const uint64_t[]){2, 0}, 1, NULL);
	put_node(o, 4, "after", COMP, (const uint64_t[]){3, 0}, 1, NULL);
	assert_int_equal(chakra_read(o->b, o->n, files[0], &r, &d), 0);
	assert_int_equal(chakra_check(&r, 1, files, &st, NULL, &d), -EINVAL);
	/* named on the cycle (a or b), not after it */
	if (!strstr(d.msg, "g.0.et: node 2 (a) depends on itself") &&
	    !strstr(d.msg, "g.0.et: node 3 (b) depends on itself"))
		fail_msg("%s", d.msg);
	assert_non_null(strstr(d.msg, "(3 of the file's 4 nodes can never start)"));
	chakra_rank_done(&r);

	o->n = 0;
	d = (struct diag){0};
	put_meta(o);
	put_node(o, 1, "root", COMP, NULL, 1, NULL);
	put_node(o, 2, "orphan", COMP, (const uint64_t[]){1, 42, 0}, 1, NULL);
	assert_int_equal(chakra_read(o->b, o->n, files[0], &r, &d), -EINVAL);
	assert_string_equal(d.msg, "g.0.et: node 2 (orphan) depends on node 42, which the file "
				   "does not have");
	chakra_rank_done(&r);

	o->n = 0;
	d = (struct diag){0};
	put_meta(o);
	put_node(o, 1, "one", COMP, NULL, 1, NULL);
	put_node(o, 1, "again", COMP, NULL, 1, NULL);
	assert_int_equal(chakra_read(o->b, o->n, files[0], &r, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "a second node with id 1"));
	chakra_rank_done(&r);
	free(o);
}

static void test_stream(void **state)
{
	struct buf *o = calloc(1, sizeof(*o));
	struct chakra_rank r;
	struct diag d = {0};
	size_t full;

	(void)state;
	assert_int_equal(chakra_read(o->b, 0, "e.et", &r, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "e.et: empty: no GlobalMetadata"));
	chakra_rank_done(&r);
	put_meta(o);
	put_node(o, 1, "n", COMP, NULL, 1, NULL);
	full = o->n;
	for (o->n = full - 1; o->n > 0; o->n--) { /* every cut refused, none crashes */
		d = (struct diag){0};
		if (chakra_read(o->b, o->n, "cut.et", &r, &d) == 0)
			assert_int_equal(r.nodes.n, 0); /* cut right after the metadata */
		chakra_rank_done(&r);
	}
	memcpy(o->b, "not a trace at all", 18);
	d = (struct diag){0};
	assert_int_equal(chakra_read(o->b, 18, "text.et", &r, &d), -EINVAL);
	chakra_rank_done(&r);
	free(o);
}

/* ---- published traces ---- */

/* The bytes of scenarios/chakra/<path> (malloc'd), or NULL if it is not there. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* The job PREFIX.0.et .. PREFIX.<n-1>.et read and checked: the check's result. */
static int t_job(const char *prefix, size_t n, struct chakra_rank *r, struct chakra_stats *st,
		 struct diag *d)
{
	char path[256], *files[32];
	size_t i, len = 0;
	int err = 0;

	assert_true(n <= 32);
	for (i = 0; i < n; i++) {
		uint8_t *b;

		snprintf(path, sizeof(path), "scenarios/chakra/%s.%zu.et", prefix, i);
		files[i] = strdup(path);
		b = slurp(path, &len);
		if (!b)
			fail_msg("%s: missing", path);
		if (chakra_read(b, len, path, &r[i], d))
			fail_msg("%s", d->msg);
		free(b);
	}
	err = chakra_check(r, n, (const char *const *)files, st, NULL, d);
	for (i = 0; i < n; i++)
		free(files[i]);
	return err;
}

static void t_done(struct chakra_rank *r, size_t n)
{
	while (n--)
		chakra_rank_done(&r[n]);
}

/* ASTRA-sim's microbenchmarks: one 1 MiB collective per rank on 4, 8 and 16 NPUs. */
static void test_astra_microbenchmarks(void **state)
{
	static const struct {
		const char *name;
		int coll;
	} b[] = {{"all_reduce", CHAKRA_ALL_REDUCE},
		 {"all_gather", CHAKRA_ALL_GATHER},
		 {"reduce_scatter", CHAKRA_REDUCE_SCATTER},
		 {"all_to_all", CHAKRA_ALL_TO_ALL}};
	struct chakra_rank r[16];
	struct chakra_stats st;
	struct diag d = {0};
	char prefix[128];
	size_t i, n, k;

	(void)state;
	for (i = 0; i < 4; i++)
		for (n = 4; n <= 16; n *= 2) {
			snprintf(prefix, sizeof(prefix), "%s/%zunpus_1MB/%s", b[i].name, n,
				 b[i].name);
			if (t_job(prefix, n, r, &st, &d))
				fail_msg("%s: %s", prefix, d.msg);
			assert_int_equal(st.nodes[CHAKRA_COLL], n);
			assert_int_equal(st.colls[b[i].coll], n);
			assert_int_equal(st.coll_bytes, n << 20);
			for (k = 0; k < n; k++) {
				assert_string_equal(r[k].version, "0.0.4");
				assert_int_equal(r[k].nodes.n, 1);
			}
			t_done(r, n);
		}
}

/* The MLP model-parallel chain: 8 ranks of 18 compute nodes, 6 all-gathers, 5 all-reduces. */
static void test_mlp_chain(void **state)
{
	struct chakra_rank r[8];
	struct chakra_stats st;
	struct diag d = {0};
	size_t k;

	(void)state;
	if (t_job("mlp_model_parallel/8npus/MLP_ModelParallel", 8, r, &st, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(st.nodes[CHAKRA_COMP], 8 * 18);
	assert_int_equal(st.colls[CHAKRA_ALL_GATHER], 8 * 6);
	assert_int_equal(st.colls[CHAKRA_ALL_REDUCE], 8 * 5);
	for (k = 0; k < 8; k++) {
		assert_int_equal(r[k].nodes.n, 29);
		assert_int_equal(r[k].nodes.v[0].kind, CHAKRA_COMP);
		assert_int_equal(r[k].nodes.v[0].duration_us, 32291);
		assert_int_equal(r[k].nodes.v[1].coll, CHAKRA_ALL_GATHER);
		assert_int_equal(r[k].nodes.v[1].bytes, 37632);
	}
	t_done(r, 8);
}

/* Chakra's own generator: every workload but its send and receive, which carry none of
 * comm_src, comm_dst, comm_tag and comm_size (ASTRA-sim refuses them too). */
static void test_chakra_generator(void **state)
{
	static const char *const ok[] = {"ALL_REDUCE",
					 "ALL_GATHER",
					 "ALL_TO_ALL",
					 "REDUCE_SCATTER",
					 "BROADCAST",
					 "BARRIER",
					 "one_comp_node",
					 "two_comp_nodes_independent",
					 "two_comp_nodes_dependent",
					 "one_remote_mem_load_node",
					 "one_remote_mem_store_node",
					 "one_metadata_node_all_types"};
	static const char *const bad[] = {"one_comm_send_node", "one_comm_recv_node"};
	struct chakra_rank r[4];
	struct chakra_stats st;
	struct diag d = {0};
	char prefix[128], path[160];
	uint8_t *b;
	size_t i, len = 0;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(prefix, sizeof(prefix), "chakra_generator/4npus/%s", ok[i]);
		if (t_job(prefix, 4, r, &st, &d))
			fail_msg("%s: %s", prefix, d.msg);
		assert_string_equal(r[0].version, "1.0.0");
		t_done(r, 4);
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "scenarios/chakra/chakra_generator/4npus/%s.0.et",
			 bad[i]);
		b = slurp(path, &len);
		assert_non_null(b);
		d = (struct diag){0};
		assert_int_equal(chakra_read(b, len, path, &r[0], &d), -EINVAL);
		assert_non_null(strstr(d.msg, "without comm_size"));
		chakra_rank_done(&r[0]);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dependency_order),
		cmocka_unit_test(test_send_recv),
		cmocka_unit_test(test_unpaired),
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_ignored),
		cmocka_unit_test(test_cycle_and_dangling),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_astra_microbenchmarks),
		cmocka_unit_test(test_mlp_chain),
		cmocka_unit_test(test_chakra_generator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
