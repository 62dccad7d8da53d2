// SPDX-License-Identifier: MIT
/* The Chakra trace writer (traffic/chakra/chakra_out.c): jobs written rank by rank and read
 * back by chakra_read, checked as a job by chakra_check and timed by chakra_time; every
 * collective a job runs; no compute node for a compute under half a microsecond; the
 * refusals; the bytes of a small file, exactly, and the same bytes every time. */
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
#include "traffic/chakra/chakra_out.h"

/* Rank k of j written and read back into *r (the caller's to chakra_rank_done). */
static void t_write_read(const struct chakra_out_job *j, uint32_t k, struct chakra_rank *r)
{
	chakra_out_bytes b = {0};
	struct diag d = {0};
	char file[64];

	snprintf(file, sizeof(file), "%s.%u.et", j->name, k);
	if (chakra_out_rank(j, k, &b, &d))
		fail_msg("write %s: %s", file, d.msg);
	if (chakra_read(b.v, b.n, file, r, &d))
		fail_msg("read %s: %s", file, d.msg);
	vec_free(&b);
}

/* Node i's single parent, or -1 when it has none (and fails on more than one). */
static int t_parent(const struct chakra_rank *r, size_t i)
{
	const struct chakra_node *n = &r->nodes.v[i];

	assert_true(n->ndeps <= 1);
	return n->ndeps ? (int)r->deps.v[n->dep] : -1;
}

static void t_done(struct chakra_rank *r, size_t n)
{
	while (n--)
		chakra_rank_done(&r[n]);
}

/* ---- a job ---- */

/* A compute node's duration, 1 us for a collective: the job's critical path in ns. */
static uint64_t t_cost(void *arg, const struct chakra_run *x, const struct chakra_op *op)
{
	const struct chakra_links *l = arg;
	size_t k = 0;

	if (op->kind != CHAKRA_COMP)
		return 1000;
	while (l->base[k + 1] <= op->node)
		k++;
	return x->ranks[k].nodes.v[op->node - l->base[k]].duration_us * 1000;
}

/* 4 ranks, 3 iterations of 12.6 us of compute and a 1 MiB all-reduce. */
static void test_allreduce_job(void **state)
{
	const struct chakra_out_job j = {.nranks = 4,
					 .iterations = 3,
					 .compute_ns = 12600,
					 .coll = CHAKRA_ALL_REDUCE,
					 .bytes = 1 << 20,
					 .name = "job3"};
	static const char *const names[] = {"job3.it0.comp", "job3.it0.allreduce",
					    "job3.it1.comp", "job3.it1.allreduce",
					    "job3.it2.comp", "job3.it2.allreduce"};
	struct chakra_rank r[4];
	struct chakra_stats st;
	struct chakra_links l;
	struct chakra_path p = {0};
	struct diag d = {0};
	size_t k, i;

	(void)state;
	for (k = 0; k < 4; k++) {
		t_write_read(&j, (uint32_t)k, &r[k]);
		assert_string_equal(r[k].version, "0.0.4");
		assert_int_equal(r[k].nodes.n, 6);
		for (i = 0; i < 6; i++) {
			const struct chakra_node *n = &r[k].nodes.v[i];

			assert_int_equal(n->id, i);
			assert_string_equal(chakra_str(&r[k], n->name), names[i]);
			/* the chain: comp -> its collective -> the next comp */
			assert_int_equal(t_parent(&r[k], i), (int)i - 1);
			assert_int_equal(n->kind, i % 2 ? CHAKRA_COLL : CHAKRA_COMP);
			assert_int_equal(n->duration_us, i % 2 ? 0 : 13); /* 12.6 us, rounded */
			assert_int_equal(n->flags, i % 2 ? CHAKRA_F_SIZE : CHAKRA_F_DURATION);
			assert_int_equal(n->bytes, i % 2 ? 1u << 20 : 0);
			assert_int_equal(n->coll, CHAKRA_ALL_REDUCE);
			assert_int_equal(n->pg, 0); /* "": every rank */
			assert_int_equal(n->dims, 0xffff); /* involved_dim not written */
		}
	}
	assert_int_equal(chakra_check(r, 4, NULL, &st, &l, &d), 0);
	assert_int_equal(st.nodes[CHAKRA_COMP], 12);
	assert_int_equal(st.nodes[CHAKRA_COLL], 12);
	assert_int_equal(st.nodes[CHAKRA_SEND] + st.nodes[CHAKRA_RECV] + st.nodes[CHAKRA_META], 0);
	assert_int_equal(st.colls[CHAKRA_ALL_REDUCE], 12);
	assert_int_equal(st.coll_bytes, 12u << 20);
	assert_int_equal(st.deps, 4 * 5);
	assert_int_equal(st.pairs, 0);
	assert_int_equal(l.ninst, 3); /* one all-reduce of 4 ranks per iteration */
	assert_int_equal(chakra_time(r, 4, &l, t_cost, &l, &p), 0);
	assert_int_equal(p.end_ns, 3 * (13000 + 1000));
	assert_int_equal(p.steps.n, 6); /* through every iteration's compute and collective */
	chakra_path_done(&p);
	chakra_links_done(&l);
	t_done(r, 4);
}

/* Every other collective a job runs, on 2 ranks, with no compute. */
static void test_coll_kinds(void **state)
{
	static const struct {
		uint8_t coll;
		const char *name;
	} c[] = {{CHAKRA_ALL_GATHER, "x.it0.allgather"},
		 {CHAKRA_REDUCE_SCATTER, "x.it0.reducescatter"},
		 {CHAKRA_ALL_TO_ALL, "x.it0.alltoall"}};
	struct chakra_out_job j = {.nranks = 2, .iterations = 1, .bytes = 4096, .name = "x"};
	struct chakra_rank r[2];
	struct chakra_stats st;
	struct diag d = {0};
	size_t i, k;

	(void)state;
	for (i = 0; i < 3; i++) {
		j.coll = c[i].coll;
		for (k = 0; k < 2; k++) {
			t_write_read(&j, (uint32_t)k, &r[k]);
			assert_int_equal(r[k].nodes.n, 1);
			assert_int_equal(r[k].nodes.v[0].kind, CHAKRA_COLL);
			assert_int_equal(r[k].nodes.v[0].coll, c[i].coll);
			assert_int_equal(r[k].nodes.v[0].bytes, 4096);
			assert_string_equal(chakra_str(&r[k], r[k].nodes.v[0].name), c[i].name);
		}
		assert_int_equal(chakra_check(r, 2, NULL, &st, NULL, &d), 0);
		assert_int_equal(st.colls[c[i].coll], 2);
		assert_int_equal(st.nodes[CHAKRA_COLL], 2);
		assert_int_equal(st.coll_bytes, 2 * 4096);
		t_done(r, 2);
	}
}

/* A compute under half a microsecond writes no node: the collectives chain on each other. */
static void test_no_compute(void **state)
{
	static const uint64_t ns[] = {0, 400, 499};
	struct chakra_out_job j = {.nranks = 1, .iterations = 3, .bytes = 8, .name = "n"};
	struct chakra_rank r;
	struct chakra_stats st;
	struct diag d = {0};
	size_t i, k;

	(void)state;
	for (k = 0; k < 3; k++) {
		j.compute_ns = ns[k];
		t_write_read(&j, 0, &r);
		assert_int_equal(r.nodes.n, 3);
		for (i = 0; i < 3; i++) {
			assert_int_equal(r.nodes.v[i].kind, CHAKRA_COLL);
			assert_int_equal(t_parent(&r, i), (int)i - 1);
		}
		assert_string_equal(chakra_str(&r, r.nodes.v[2].name), "n.it2.allreduce");
		assert_int_equal(chakra_check(&r, 1, NULL, &st, NULL, &d), 0);
		assert_int_equal(st.nodes[CHAKRA_COMP], 0);
		assert_int_equal(st.deps, 2);
		chakra_rank_done(&r);
	}
	/* half a microsecond and over is one */
	j.compute_ns = 500;
	t_write_read(&j, 0, &r);
	assert_int_equal(r.nodes.n, 6);
	assert_int_equal(r.nodes.v[0].kind, CHAKRA_COMP);
	assert_int_equal(r.nodes.v[0].duration_us, 1);
	chakra_rank_done(&r);
}

static void test_rounding(void **state)
{
	(void)state;
	assert_int_equal(chakra_out_us(0), 0);
	assert_int_equal(chakra_out_us(499), 0);
	assert_int_equal(chakra_out_us(500), 1);
	assert_int_equal(chakra_out_us(1499), 1);
	assert_int_equal(chakra_out_us(1500), 2);
	assert_int_equal(chakra_out_us(12345678), 12346);
	assert_true(chakra_out_us(UINT64_MAX) == UINT64_MAX / 1000 + 1); /* ...615 ns: up */
}

/* ---- refusals ---- */

/* j refused for rank k with a message holding want, and nothing appended to what was there. */
static void t_refused(const struct chakra_out_job *j, uint32_t k, const char *want)
{
	chakra_out_bytes b = {0};
	struct diag d = {0};

	assert_int_equal(vec_push(&b, 0xab), 0);
	assert_int_equal(chakra_out_rank(j, k, &b, &d), -EINVAL);
	if (!strstr(d.msg, want))
		fail_msg("'%s' lacks '%s'", d.msg, want);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.v[0], 0xab);
	vec_free(&b);
}

static void test_refusals(void **state)
{
	const struct chakra_out_job ok = {.nranks = 2, .iterations = 1, .name = "bad"};
	struct chakra_out_job j = ok;
	char longname[CHAKRA_OUT_NAME_MAX + 2];
	struct chakra_rank r;

	(void)state;
	j.nranks = 0;
	t_refused(&j, 0, "Chakra job 'bad': nranks 0: at least 1 is needed");
	j = ok;
	j.iterations = 0;
	t_refused(&j, 0, "Chakra job 'bad': iterations 0: at least 1 is needed");
	t_refused(&ok, 2, "Chakra job 'bad': rank 2 of 2 ranks");
	j = ok;
	j.coll = CHAKRA_BROADCAST;
	t_refused(&j, 0,
		  "Chakra job 'bad': comm_type 5 (BROADCAST): a job runs ALL_REDUCE, ALL_GATHER, "
		  "REDUCE_SCATTER or ALL_TO_ALL");
	j.coll = 200;
	t_refused(&j, 0, "Chakra job 'bad': comm_type 200 (?): a job runs");
	j = ok;
	j.bytes = (uint64_t)INT64_MAX + 1;
	t_refused(&j, 0, "Chakra job 'bad': 9223372036854775808 bytes: comm_size is an int64");
	j = ok;
	j.name = NULL;
	t_refused(&j, 0, "Chakra job '(null)': a name of 1 to 64 bytes is needed");
	j.name = "";
	t_refused(&j, 0, "Chakra job '': a name of 1 to 64 bytes is needed");
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	j.name = longname; /* 65 bytes */
	t_refused(&j, 0, "a name of 1 to 64 bytes is needed");
	longname[CHAKRA_OUT_NAME_MAX] = '\0'; /* 64: written whole */
	t_write_read(&j, 1, &r);
	assert_int_equal(strlen(chakra_str(&r, r.nodes.v[0].name)),
			 CHAKRA_OUT_NAME_MAX + strlen(".it0.allreduce"));
	chakra_rank_done(&r);
}

/* ---- the bytes ---- */

/* One 1 MiB all-reduce, as ASTRA-sim's all_reduce.0.et (scenarios/chakra/SCHEMA-NOTES.md §1.2) but
 * for its name and the pg_name after it. */
static void test_bytes(void **state)
{
	static const uint8_t want[] = {
		0x07, 0x0a, 0x05, '0',	'.',  '0',  '.',  '4', /* GlobalMetadata: version */
		0x51, /* a Node of 81 bytes: id 0 is not written */
		0x12, 0x0f, 'x',  '.',	'i',  't',  '0',  '.',	'a',
		'l',  'l',  'r',  'e',	'd',  'u',  'c',  'e', /* name */
		0x18, 0x07, /* COMM_COLL_NODE */
		0x52, 0x0e, 0x0a, 0x09, 'i',  's',  '_',  'c',	'p',
		'u',  '_',  'o',  'p',	0xd8, 0x01, 0x00, /* false */
		0x52, 0x0d, 0x0a, 0x09, 'c',  'o',  'm',  'm',	'_',
		't',  'y',  'p',  'e',	0x48, 0x00, /* int64 0: ALL_REDUCE */
		0x52, 0x0f, 0x0a, 0x09, 'c',  'o',  'm',  'm',	'_',
		's',  'i',  'z',  'e',	0x48, 0x80, 0x80, 0x40, /* int64 1048576 */
		0x52, 0x0c, 0x0a, 0x07, 'p',  'g',  '_',  'n',	'a',
		'm',  'e',  0xea, 0x01, 0x00, /* string "" */
	};
	const struct chakra_out_job j = {.nranks = 4,
					 .iterations = 1,
					 .coll = CHAKRA_ALL_REDUCE,
					 .bytes = 1 << 20,
					 .name = "x"};
	chakra_out_bytes b = {0};
	struct diag d = {0};

	(void)state;
	assert_int_equal(chakra_out_rank(&j, 0, &b, &d), 0);
	assert_int_equal(b.n, sizeof(want));
	assert_memory_equal(b.v, want, sizeof(want));
	vec_free(&b);
}

/* The same job twice: the same bytes; and appended, each rank's bytes as alone. */
static void test_deterministic(void **state)
{
	const struct chakra_out_job j = {.nranks = 3,
					 .iterations = 50,
					 .compute_ns = 250000,
					 .coll = CHAKRA_REDUCE_SCATTER,
					 .bytes = 123456789,
					 .name = "det"};
	chakra_out_bytes a = {0}, b = {0}, both = {0};
	struct diag d = {0};

	(void)state;
	assert_int_equal(chakra_out_rank(&j, 1, &a, &d), 0);
	assert_int_equal(chakra_out_rank(&j, 1, &b, &d), 0);
	assert_true(a.n > 100 * 40);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.v, b.v, a.n);
	assert_int_equal(chakra_out_rank(&j, 0, &both, &d), 0);
	assert_int_equal(chakra_out_rank(&j, 2, &both, &d), 0);
	assert_int_equal(both.n, 2 * a.n); /* every rank's file is the same chain */
	assert_memory_equal(both.v, a.v, a.n);
	assert_memory_equal(both.v + a.n, a.v, a.n);
	vec_free(&a);
	vec_free(&b);
	vec_free(&both);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allreduce_job), cmocka_unit_test(test_coll_kinds),
		cmocka_unit_test(test_no_compute),    cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_refusals),      cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
