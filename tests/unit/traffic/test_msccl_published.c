// SPDX-License-Identifier: MIT
/* MSCCL algorithms other people wrote (tests/fixtures/msccl/README.md names each source):
 * every algorithm msccl-tools' example generators make for 4 and 8 ranks and every one
 * published with Azure's msccl-executor-nccl for NDv4 and NDv5 reads and is proven the
 * collective it says it is, at one element a chunk and at an uneven multiple; the generated
 * files that are not (two-stage pipelines, point-to-point "custom" patterns) are refused
 * saying why. Several threadblocks to one peer on different channels become one order both
 * ends agree on (traffic/msccl/msccl_order.c), and a deadlock across channels is refused; the
 * executor's choice among algorithms by size (minBytes, maxBytes) and the size the
 * emulation rounds to. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "traffic/coll.h"
#include "traffic/msccl/msccl.h"

static char *t_read(const char *name, size_t *n)
{
	char path[256], *buf = malloc(1 << 20);
	FILE *f;

	snprintf(path, sizeof(path), "tests/fixtures/msccl/%s", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: missing", path);
	assert_non_null(buf);
	*n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	assert_true(*n > 0 && *n < 1 << 20);
	return buf;
}

/* The job a file's <algo> is for: its ranks, its collective (custom: all-reduce), 4-byte
 * elements, `per` elements a chunk. */
static struct coll_params t_job(const struct msccl_head *h, uint64_t per)
{
	return (struct coll_params){.kind = h->kind < 0 ? COLL_ALLREDUCE : (enum coll_kind)h->kind,
				    .algo = COLL_MSCCL,
				    .nranks = h->ngpus,
				    .bytes = h->nchunks * 4 * per,
				    .elem = 4};
}

/* name proven at 1 and 7 elements a chunk, or (why != NULL) refused saying why at both. */
static void t_published(const char *name, const char *why)
{
	static const uint64_t per[] = {1, 7};
	struct msccl_head h;
	struct coll_params p;
	struct coll_sched s;
	struct diag d = {0};
	size_t n, i;
	char *x = t_read(name, &n);
	int err;

	if (msccl_head(x, n, &h, &d))
		fail_msg("%s: %s", name, d.msg);
	for (i = 0; i < sizeof(per) / sizeof(per[0]); i++) {
		p = t_job(&h, per[i]);
		memset(&d, 0, sizeof(d));
		err = msccl_parse_proven(x, n, &p, &s, &d);
		if (!why && err)
			fail_msg("%s, %llu bytes: %s", name, (unsigned long long)p.bytes, d.msg);
		if (why && (err != -EINVAL || !strstr(d.msg, why)))
			fail_msg("%s: '%s' lacks '%s'", name, d.msg, why);
		if (!err) {
			assert_int_equal(s.params.nranks, h.ngpus);
			assert_true(s.steps.n > 0);
			coll_sched_done(&s);
		}
	}
	free(x);
}

static void test_msccl_tools(void **state)
{
	static const char *const ok[] = {
		"allgather_a100_pcie-4",
		"allgather_allpairs-4",
		"allgather_allpairs-8",
		"allgather_recursive_doubling-4",
		"allgather_recursive_doubling-8",
		"allgather_ring-4",
		"allgather_ring-8",
		"allreduce-rdh-8",
		"allreduce_1step-4",
		"allreduce_1step-8",
		"allreduce_a100_allpairs-4",
		"allreduce_a100_allpairs-8",
		"allreduce_a100_allpairs_v2-4",
		"allreduce_a100_allpairs_v2-8",
		"allreduce_a100_multinode_allpairs-8",
		"allreduce_a100_multinode_allpairs-16",
		"allreduce_a100_ncv4-4",
		"allreduce_a100_ncv4_v2-4",
		"allreduce_a100_ring-4",
		"allreduce_a100_ring-8",
		"allreduce_recursive_doubling_halving-4",
		"alltoall_a100_three_step-4",
		"alltoall_a100_three_step-8",
		"alltoall_a100_two_step-4",
		"alltoall_a100_two_step-8",
		"alltoall_allpairs-4",
		"alltoall_allpairs-8",
		"hierarchical_allreduce-4",
		"hierarchical_allreduce-8",
	};
	/* not what they say: the pipelines all-reduce over the first half of the ranks and
	 * copy to the second (msccl-tools' Check() is commented out in them); alltonext sends
	 * to the next stage, a point-to-point pattern no collective kind names */
	static const struct {
		const char *name, *why;
	} bad[] = {
		{"pipeline_a100_allpairs-8", "copies data that is not the final result"},
		{"pipeline_a100_allpairs-16", "copies data that is not the final result"},
		{"pipeline_a100_ring-8", "copies data that is not the final result"},
		{"pipeline_a100_ring-16", "copies data that is not the final result"},
		{"alltonext_forward-8", "not the allreduce the job runs"},
		{"alltonext_forward-16", "not the allreduce the job runs"},
		{"alltonext_backward-8", "an out-of-place allreduce"},
		{"alltonext_backward-16", "an out-of-place allreduce"},
	};
	char name[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(name, sizeof(name), "msccl-tools-%s.xml", ok[i]);
		t_published(name, NULL);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "msccl-tools-%s.xml", bad[i].name);
		t_published(name, bad[i].why);
	}
}

static void test_executor(void **state)
{
	static const char *const ok[] = {
		"ndv4-ap2ll",	   "ndv4-ap4ll",  "ndv4-r48ll",	    "ndv4-r48ll128",
		"ndv5-ag-1k-512k", "ndv5-ag-1m",  "ndv5-ag-2m",	    "ndv5-ag-4m",
		"ndv5-ag-8m",	   "ndv5-ag-16m", "ndv5-ag-32m-1g", "ndv5-ar-1k-512k",
		"ndv5-ar-1m",	   "ndv5-ar-2m",  "ndv5-ar-4m",	    "ndv5-ar-8m",
	};
	char name[128];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(name, sizeof(name), "msccl-executor-%s.xml", ok[i]);
		t_published(name, NULL);
	}
}

/* Scratch, local reductions and channels as read: NDv4's all-pairs all-reduce keeps 112 of
 * 128 chunks of scratch per GPU and adds them with re steps; NDv5's 1 MiB all-gather joins
 * GPU pairs by threadblocks on several channels. */
static void test_features(void **state)
{
	struct coll_params p = {.kind = COLL_ALLREDUCE,
				.algo = COLL_MSCCL,
				.nranks = 8,
				.bytes = 128 * 4 * 3,
				.elem = 4};
	struct coll_sched s;
	struct diag d = {0};
	size_t n, i, local = 0, scr = 0;
	char *x = t_read("msccl-executor-ndv4-ap2ll.xml", &n);

	(void)state;
	if (msccl_parse_proven(x, n, &p, &s, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(s.params.scratch, 112 * 4 * 3);
	for (i = 0; i < s.steps.n; i++) {
		local += s.steps.v[i].op == COLL_LOCAL;
		scr += (s.steps.v[i].flags & COLL_F_SCRATCH) != 0;
	}
	assert_int_equal(local, 896); /* every re */
	assert_true(scr >= 896);
	assert_int_equal(msccl_format(&s, NULL, NULL, 0), 0); /* not written back */
	coll_sched_done(&s);
	free(x);
}

/* Two GPUs all-gather 4 chunks (GPU r owns 2r and 2r + 1) over two channels. GPU 1 takes
 * channel 1's chunk before channel 0's (a dependency says so) while GPU 0 lists its sends
 * the other way: one FIFO per pair needs one order of both, channel 1's message first. */
static const char t_two_chan[] =
	"<algo name='c' proto='Simple' nchannels='2' nchunksperloop='4' ngpus='2' "
	"coll='allgather' inplace='1'>\n"
	"<gpu id='0' i_chunks='2' o_chunks='4' s_chunks='0'>\n"
	"<tb id='0' send='1' recv='-1' chan='0'><step s='0' type='s' srcbuf='o' srcoff='0' "
	"dstbuf='o' dstoff='0' cnt='1' depid='-1' deps='-1' hasdep='0'/></tb>\n"
	"<tb id='1' send='1' recv='-1' chan='1'><step s='0' type='s' srcbuf='o' srcoff='1' "
	"dstbuf='o' dstoff='1' cnt='1' depid='-1' deps='-1' hasdep='0'/></tb>\n"
	"<tb id='2' send='-1' recv='1' chan='0'><step s='0' type='r' srcbuf='o' srcoff='2' "
	"dstbuf='o' dstoff='2' cnt='1' depid='-1' deps='-1' hasdep='0'/></tb>\n"
	"<tb id='3' send='-1' recv='1' chan='1'><step s='0' type='r' srcbuf='o' srcoff='3' "
	"dstbuf='o' dstoff='3' cnt='1' depid='-1' deps='-1' hasdep='0'/></tb>\n"
	"</gpu>\n"
	"<gpu id='1' i_chunks='2' o_chunks='4' s_chunks='0'>\n"
	"<tb id='0' send='-1' recv='0' chan='1'><step s='0' type='r' srcbuf='o' srcoff='1' "
	"dstbuf='o' dstoff='1' cnt='1' depid='-1' deps='-1' hasdep='1'/></tb>\n"
	"<tb id='1' send='-1' recv='0' chan='0'><step s='0' type='r' srcbuf='o' srcoff='0' "
	"dstbuf='o' dstoff='0' cnt='1' depid='0' deps='0' hasdep='0'/></tb>\n"
	"<tb id='2' send='0' recv='-1' chan='0'><step s='0' type='s' srcbuf='o' srcoff='2' "
	"dstbuf='o' dstoff='2' cnt='1' depid='-1' deps='-1' hasdep='0'/></tb>\n"
	"<tb id='3' send='0' recv='-1' chan='1'><step s='0' type='s' srcbuf='o' srcoff='3' "
	"dstbuf='o' dstoff='3' cnt='1' depid='-1' deps='-1' hasdep='0'/></tb>\n"
	"</gpu>\n</algo>\n";

/* text with the first `old` after `after` (NULL: the start) replaced by `new` (malloc'd). */
static char *t_sub(const char *text, const char *after, const char *old, const char *new)
{
	const char *from = after ? strstr(text, after) : text, *at;
	size_t lo, ln = strlen(new);
	char *out;

	assert_non_null(from);
	at = strstr(from, old);
	assert_non_null(at);
	lo = (size_t)(at - text);
	out = malloc(strlen(text) - strlen(old) + ln + 1);
	assert_non_null(out);
	memcpy(out, text, lo);
	memcpy(out + lo, new, ln);
	strcpy(out + lo + ln, at + strlen(old));
	return out;
}

static void test_channels(void **state)
{
	struct coll_params p = {
		.kind = COLL_ALLGATHER, .algo = COLL_MSCCL, .nranks = 2, .bytes = 4 * 4, .elem = 4};
	struct coll_sched s;
	struct diag d = {0};
	const struct coll_step *st;
	uint32_t i, k = 0;
	uint64_t want[] = {4, 0}; /* GPU 0's sends: chunk 1 (channel 1), then chunk 0 */
	char *t, *u;

	(void)state;
	if (msccl_parse_proven(t_two_chan, strlen(t_two_chan), &p, &s, &d))
		fail_msg("%s", d.msg);
	for (i = 0; i < s.ranks.v[0].step_n; i++) {
		st = &s.steps.v[s.ranks.v[0].step_off + i];
		if (st->op == COLL_SEND)
			assert_int_equal(st->off, want[k++]);
	}
	assert_int_equal(k, 2);
	coll_sched_done(&s);
	/* a second threadblock on a connection a first has: refused */
	t = t_sub(t_two_chan, NULL, "recv='-1' chan='1'", "recv='-1' chan='0'");
	assert_int_equal(msccl_parse(t, strlen(t), &p, &s, &d), -EINVAL);
	if (!strstr(d.msg, "threadblock 0 has this connection already (sends to gpu 1 on "
			   "channel 0)"))
		fail_msg("%s", d.msg);
	free(t);
	/* GPU 0 sends chunk 0 only after it has chunk 2, which GPU 1 sends only after it has
	 * chunk 0: neither goes */
	t = t_sub(t_two_chan, NULL, "depid='-1' deps='-1'", "depid='2' deps='0'");
	u = t_sub(t, "type='s' srcbuf='o' srcoff='2'", "depid='-1' deps='-1'",
		  "depid='1' deps='0'");
	memset(&d, 0, sizeof(d));
	assert_int_equal(msccl_parse(u, strlen(u), &p, &s, &d), -EINVAL);
	if (!strstr(d.msg, "never goes: its other end (at"))
		fail_msg("%s", d.msg);
	free(t);
	free(u);
}

/* The executor's choice (msccl_lifecycle.cc): ngpus, collective, in place, minBytes <=
 * size <= maxBytes; NDv5's all-reduces cover 1 KiB to 16 MiB - 1 between them. */
static void test_choice(void **state)
{
	static const char *const files[] = {"ar-1k-512k", "ar-1m", "ar-2m", "ar-4m", "ar-8m"};
	static const struct {
		uint64_t bytes;
		int file; /* -1: none */
	} cases[] = {
		{512, -1},     {1024, 0},     {1048575, 0},	    {1048576, 1},
		{3u << 20, 2}, {5u << 20, 3}, {(16u << 20) - 1, 4}, {16u << 20, -1},
	};
	struct msccl_head h[5];
	struct diag d = {0};
	size_t i, k, n;
	int got;
	char name[96], *x;

	(void)state;
	for (k = 0; k < 5; k++) {
		snprintf(name, sizeof(name), "msccl-executor-ndv5-%s.xml", files[k]);
		x = t_read(name, &n);
		assert_int_equal(msccl_head(x, n, &h[k], &d), 0);
		free(x);
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (got = -1, k = 0; k < 5 && got < 0; k++)
			if (msccl_head_takes(&h[k], COLL_ALLREDUCE, 8, cases[i].bytes))
				got = (int)k;
		assert_int_equal(got, cases[i].file);
	}
	assert_false(msccl_head_takes(&h[0], COLL_ALLGATHER, 8, 4096));
	assert_false(msccl_head_takes(&h[0], COLL_ALLREDUCE, 16, 4096));
	/* 16 chunks of 4-byte elements: sizes of 64 bytes; 67108 bytes (64 MiB at
	 * size_scale 0.001) runs as 67136, the nearest */
	assert_int_equal(msccl_head_bytes(&h[0], COLL_ALLREDUCE, 8, 4, 67108), 67136);
	assert_int_equal(msccl_head_bytes(&h[0], COLL_ALLREDUCE, 8, 4, 10), 64);
	assert_int_equal(msccl_head_bytes(&h[0], COLL_ALLREDUCE, 8, 4, 0), 0);
	/* all-to-all: whole blocks of 8 ranks too (16 chunks: 64-byte multiples already) */
	h[0].nchunks = 12;
	assert_int_equal(msccl_head_bytes(&h[0], COLL_ALLTOALL, 8, 4, 1000), 960);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msccl_tools), cmocka_unit_test(test_executor),
		cmocka_unit_test(test_features),    cmocka_unit_test(test_channels),
		cmocka_unit_test(test_choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
