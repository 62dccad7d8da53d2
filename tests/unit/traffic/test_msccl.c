// SPDX-License-Identifier: MIT
/* Schedules as MSCCL algorithm XML (traffic/msccl/msccl.c): every algorithm the project builds goes
 * out and back in unchanged (steps, order, peers, bytes, flags, dependency lists, phases) on
 * uneven sizes with 4- and 8-byte elements, and what comes back passes the symbolic executor
 * (traffic/coll_prove.c); the text keeps to what MSCCL's reader takes; two hand-written 4-GPU ring
 * all-gathers as msccl-tools writes them read and run; and the refusals name the line:column
 * and the problem. */
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

#include "tests/unit/coll_sim.h"
#include "traffic/coll.h"
#include "traffic/msccl/msccl.h"
#include "traffic/tacos.h"

/* s's text, after checking the snprintf contract: measuring, a short buffer, the exact one. */
static char *t_export(const struct coll_sched *s, const char *name)
{
	size_t len = msccl_format(s, name, NULL, 0);
	char small[16], *buf;

	assert_true(len > 0);
	assert_int_equal(msccl_format(s, name, small, sizeof(small)), len);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	buf = malloc(len + 1);
	assert_non_null(buf);
	assert_int_equal(msccl_format(s, name, buf, len + 1), len);
	assert_int_equal(strlen(buf), len);
	assert_memory_equal(buf, small, sizeof(small) - 1);
	return buf;
}

/* What MSCCL's reader (src/graph/xml.cc, the executor's msccl_parser.cc) needs of the text:
 * double quotes, no declaration, at most 16 attributes an element, a step after nops that
 * carries a dependency itself, and hasdep on whatever a step depends on. */
static void t_msccl_form(const char *text)
{
	const char *line = text, *nl, *q;
	bool after_nop = false;
	unsigned attrs;

	assert_null(strchr(text, '\''));
	assert_null(strstr(text, "<?xml"));
	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		for (attrs = 0, q = line; (q = strstr(q, "=\"")) && q < nl; q++)
			attrs++;
		assert_true(attrs <= 16);
		if (!strncmp(line, "      <step ", 12)) {
			bool nop =
				strstr(line, "type=\"nop\"") && strstr(line, "type=\"nop\"") < nl;
			bool dep = !(strstr(line, "depid=\"-1\"") &&
				     strstr(line, "depid=\"-1\"") < nl);

			if (after_nop && !nop)
				assert_true(dep);
			after_nop = nop;
		}
	}
}

/* a and b hold the same steps per rank in the same order, with equal dependency lists. */
static void t_same(const struct coll_sched *a, const struct coll_sched *b)
{
	uint32_t r, i;

	assert_int_equal(a->ranks.n, b->ranks.n);
	for (r = 0; r < a->ranks.n; r++) {
		const struct coll_rank *ra = &a->ranks.v[r], *rb = &b->ranks.v[r];

		assert_int_equal(ra->step_n, rb->step_n);
		for (i = 0; i < ra->step_n; i++) {
			const struct coll_step *x = &a->steps.v[ra->step_off + i];
			const struct coll_step *y = &b->steps.v[rb->step_off + i];

			if (x->op != y->op || x->flags != y->flags || x->phase != y->phase ||
			    x->peer != y->peer || x->off != y->off || x->len != y->len ||
			    x->dep_n != y->dep_n ||
			    (x->dep_n && memcmp(&a->deps.v[x->dep_off], &b->deps.v[y->dep_off],
						x->dep_n * sizeof(uint32_t))))
				fail_msg("rank %u step %u differs after the round trip", r, i);
		}
	}
}

static void t_sim_ok(const struct coll_sched *s, const char *what)
{
	char msg[512];

	if (t_sim_run(s, msg, sizeof(msg)))
		fail_msg("%s: %s", what, msg);
}

static void t_parse_ok(const char *text, const struct coll_params *p, struct coll_sched *out)
{
	struct diag d = {0};

	if (msccl_parse(text, strlen(text), p, out, &d))
		fail_msg("parse: %s", d.msg);
}

/* Removes every attribute key="..." from text (in place): MSCCL files lack ours. */
static void t_strip_attr(char *text, const char *key)
{
	char pat[32], *p, *q;

	snprintf(pat, sizeof(pat), " %s=\"", key);
	while ((p = strstr(text, pat))) {
		q = strchr(p + strlen(pat), '"');
		assert_non_null(q);
		memmove(p, q + 1, strlen(q + 1) + 1);
	}
}

/* s out and back in: identical, runs; without seq and phase (a foreign file) it still runs. */
static void t_round(const struct coll_sched *s, const char *what, bool foreign)
{
	char *text = t_export(s, what);
	struct coll_sched back;

	t_msccl_form(text);
	t_parse_ok(text, &s->params, &back);
	t_same(s, &back);
	t_sim_ok(&back, what);
	coll_sched_done(&back);
	if (foreign) {
		t_strip_attr(text, "seq");
		t_strip_attr(text, "phase");
		t_parse_ok(text, &s->params, &back);
		t_sim_ok(&back, what);
		coll_sched_done(&back);
	}
	free(text);
}

static void t_build_round(const struct coll_params *p, bool foreign)
{
	struct coll_sched s;
	struct diag d = {0};
	char what[128];

	snprintf(what, sizeof(what), "%s %s, %u ranks, %llu bytes, elem %u",
		 coll_algo_name(p->algo), coll_kind_name(p->kind), p->nranks,
		 (unsigned long long)p->bytes, p->elem);
	if (coll_sched_build(p, &s, &d))
		fail_msg("%s: %s", what, d.msg);
	t_sim_ok(&s, what);
	t_round(&s, what, foreign);
	coll_sched_done(&s);
}

/* Element counts: fewer than the ranks (empty parts), uneven, and one more than a multiple. */
static const uint64_t t_elems[] = {3, 97, 1001};
static const uint32_t t_elem[] = {4, 8};

/* The sizes above, but those of fewer than min_elems elements (a builder refuses them). */
static void t_sizes_from(struct coll_params p, bool foreign, uint64_t min_elems)
{
	size_t i, j;

	for (i = 0; i < sizeof(t_elems) / sizeof(t_elems[0]); i++)
		for (j = 0; j < sizeof(t_elem) / sizeof(t_elem[0]) && t_elems[i] >= min_elems;
		     j++) {
			p.elem = t_elem[j];
			p.bytes = t_elems[i] * p.elem;
			if (p.kind == COLL_ALLTOALL) /* whole blocks */
				p.bytes = (t_elems[i] + 1) * p.nranks * p.elem;
			t_build_round(&p, foreign && !j);
		}
}

static void t_sizes(struct coll_params p, bool foreign)
{
	t_sizes_from(p, foreign, 0);
}

static struct coll_params t_p(enum coll_kind k, enum coll_algo a, uint32_t n, uint32_t group)
{
	return (struct coll_params){.kind = k, .algo = a, .nranks = n, .group = group};
}

static void test_ring_hd(void **state)
{
	static const uint32_t ns[] = {1, 2, 5, 8};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		t_sizes(t_p(COLL_ALLREDUCE, COLL_RING, ns[i], 0), true);
		t_sizes(t_p(COLL_ALLGATHER, COLL_RING, ns[i], 0), false);
		t_sizes(t_p(COLL_REDUCESCATTER, COLL_RING, ns[i], 0), false);
		t_sizes(t_p(COLL_ALLREDUCE, COLL_HD, ns[i], 0), true);
	}
	t_sizes(t_p(COLL_ALLREDUCE, COLL_HD, 12, 0), false);
}

static void test_alltoall_direct(void **state)
{
	(void)state;
	t_sizes(t_p(COLL_ALLTOALL, COLL_PAIRWISE, 4, 0), true);
	t_sizes(t_p(COLL_ALLTOALL, COLL_PAIRWISE, 7, 0), false);
	t_sizes(t_p(COLL_ALLTOALL, COLL_DIRECT, 6, 0), true);
	t_sizes(t_p(COLL_ALLTOALL, COLL_DIRECT, 6, 2), false);
	t_sizes(t_p(COLL_ALLREDUCE, COLL_DIRECT, 5, 0), true);
	t_sizes(t_p(COLL_ALLGATHER, COLL_DIRECT, 5, 0), true);
	t_sizes(t_p(COLL_REDUCESCATTER, COLL_DIRECT, 6, 0), true);
}

static void test_hier_shard(void **state)
{
	(void)state;
	t_sizes(t_p(COLL_ALLREDUCE, COLL_HIER_RING, 8, 4), true);
	t_sizes(t_p(COLL_ALLREDUCE, COLL_HIER_RING, 6, 3), false);
	t_sizes(t_p(COLL_ALLREDUCE, COLL_SHARD_RINGS, 6, 3), true);
	t_sizes(t_p(COLL_ALLREDUCE, COLL_SHARD_RINGS, 8, 2), false);
}

static void test_hx(void **state)
{
	(void)state;
	t_sizes(t_p(COLL_ALLREDUCE, COLL_HX_RINGS, 9, 3), true);
	t_sizes(t_p(COLL_ALLREDUCE, COLL_TORUS2D, 6, 3), true);
	t_sizes(t_p(COLL_ALLREDUCE, COLL_TORUS2D, 16, 4), false);
}

/* Themis chunks on a 2 x 3 platform, rings then direct, each kind. */
static void test_multidim(void **state)
{
	static const enum coll_kind kinds[] = {COLL_ALLREDUCE, COLL_REDUCESCATTER, COLL_ALLGATHER};
	struct coll_params p = t_p(COLL_ALLREDUCE, COLL_MULTIDIM, 6, 0);
	size_t i;
	uint32_t a;

	(void)state;
	p.md.ndims = 2, p.md.sched = COLL_MD_THEMIS, p.md.intra = COLL_MD_SCF;
	p.md.chunks = 4, p.md.thr_div = 16;
	p.md.dim[0] = (struct coll_md_dim){.size = 2, .active = 1, .rate = 200000000000ull};
	p.md.dim[1] = (struct coll_md_dim){.size = 3, .active = 2, .rate = 100000000000ull};
	for (a = 0; a < 2; a++)
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			p.kind = p.md.kind = (uint8_t)kinds[i];
			p.md.dim[0].algo = p.md.dim[1].algo = (uint8_t)a;
			t_sizes_from(p, true, 4 * 6);
		}
}

/* A bidirectional rows x cols mesh of unit links for TACOS. */
static uint32_t t_mesh(struct tacos_link *l, uint32_t rows, uint32_t cols)
{
	uint32_t r, c, m = 0, id;

	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++) {
			id = r * cols + c;
			if (c + 1 < cols) {
				l[m++] = (struct tacos_link){id, id + 1, 0, 8000000000ull};
				l[m++] = (struct tacos_link){id + 1, id, 0, 8000000000ull};
			}
			if (r + 1 < rows) {
				l[m++] = (struct tacos_link){id, id + cols, 0, 8000000000ull};
				l[m++] = (struct tacos_link){id + cols, id, 0, 8000000000ull};
			}
		}
	return m;
}

static void t_tacos_round(const struct tacos_result *r, struct coll_params p)
{
	struct coll_sched s;
	struct diag d = {0};
	char what[96];

	snprintf(what, sizeof(what), "tacos %s, k %u, %llu bytes, elem %u", coll_kind_name(p.kind),
		 r->k, (unsigned long long)p.bytes, p.elem);
	if (tacos_coll_sched(r, &p, &s, &d))
		fail_msg("%s: %s", what, d.msg);
	t_sim_ok(&s, what);
	t_round(&s, what, true);
	coll_sched_done(&s);
}

static void test_tacos(void **state)
{
	struct tacos_link l[64];
	struct tacos_graph g = {6, t_mesh(l, 2, 3), l};
	struct coll_params p = t_p(COLL_ALLREDUCE, COLL_TACOS, 6, 0);
	struct tacos_result r;
	struct diag d = {0};
	uint32_t k, e;

	(void)state;
	for (k = 1; k <= 2; k++) {
		struct tacos_cfg c = {.chunk_bytes = 1 << 20, .k = k, .runs = 2, .seed = k};

		assert_int_equal(tacos_allreduce(&g, &c, &r, &d), 0);
		for (e = 4; e <= 8; e += 4) {
			p.kind = COLL_ALLREDUCE, p.elem = e;
			p.bytes = (uint64_t)e * (3 * 6 * k + 5); /* uneven parts */
			t_tacos_round(&r, p);
			p.kind = COLL_ALLGATHER;
			p.bytes = (uint64_t)e * 2 * 6 * k;
			t_tacos_round(&r, p);
		}
		tacos_result_done(&r);
	}
}

/* The export: its header, the buffers and chunks it chose, and a sanitized name. */
static void test_export_form(void **state)
{
	struct coll_params p = t_p(COLL_ALLGATHER, COLL_RING, 4, 0);
	struct coll_sched s;
	struct diag d = {0};
	char *text;

	(void)state;
	p.elem = 4, p.bytes = 4 * 8; /* 2 elements a share: chunks of 2 elements */
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	text = t_export(&s, "my ring <4>");
	assert_non_null(strstr(text, "<algo name=\"my_ring__4_\" proto=\"Simple\" nchannels=\"1\" "
				     "nchunksperloop=\"4\" ngpus=\"4\" coll=\"allgather\" "
				     "inplace=\"1\" outofplace=\"0\""));
	assert_non_null(
		strstr(text, "<gpu id=\"1\" i_chunks=\"1\" o_chunks=\"4\" s_chunks=\"0\">"));
	assert_non_null(strstr(text, "<tb id=\"0\" send=\"-1\" recv=\"0\" chan=\"0\">"));
	assert_non_null(strstr(text, "type=\"s\" srcbuf=\"o\" srcoff=\"1\" dstbuf=\"o\" "
				     "dstoff=\"1\" cnt=\"1\""));
	free(text);
	coll_sched_done(&s);
	p.bytes = 4 * 9; /* uneven shares: custom, chunks of one element */
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	text = t_export(&s, NULL);
	assert_non_null(strstr(text, "<algo name=\"ring_allgather\""));
	assert_non_null(strstr(text, "nchunksperloop=\"9\" ngpus=\"4\" coll=\"custom\""));
	free(text);
	coll_sched_done(&s);
	p = t_p(COLL_ALLTOALL, COLL_PAIRWISE, 3, 0);
	p.elem = 4, p.bytes = 4 * 3 * 2;
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	text = t_export(&s, "a2a");
	assert_non_null(strstr(text, "coll=\"alltoall\" inplace=\"0\" outofplace=\"1\""));
	assert_non_null(strstr(text, "<tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
				     "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" "
				     "dstbuf=\"o\" dstoff=\"0\" cnt=\"1\""));
	free(text);
	coll_sched_done(&s);
}

/* msccl-tools' allgather_ring(4, channels=1) (examples/mscclang/allgather_ring.py), in place:
 * one threadblock a gpu, receiving from the previous and sending to the next, its receive and
 * forward fused into rcs; no dependencies (a threadblock's order carries them). */
/* clang-format off */
#define T_AG(s, type, off)                                                                   \
	"      <step s=\"" #s "\" type=\"" type "\" srcbuf=\"o\" srcoff=\"" #off "\" "          \
	"dstbuf=\"o\" dstoff=\"" #off "\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
#define T_AG_GPU(g, next, prev, c1, c2, c3)                                                  \
	"  <gpu id=\"" #g "\" i_chunks=\"1\" o_chunks=\"4\" s_chunks=\"0\">\n"                 \
	"    <tb id=\"0\" send=\"" #next "\" recv=\"" #prev "\" chan=\"0\">\n"                  \
	T_AG(0, "s", g)                                                                      \
	T_AG(1, "rcs", c1)                                                                   \
	T_AG(2, "rcs", c2)                                                                   \
	T_AG(3, "r", c3)                                                                     \
	"    </tb>\n"                                                                        \
	"  </gpu>\n"

static const char t_ring_ag[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<!-- allgather_ring_1channelsperring: msccl-tools, 4 gpus, 1 channel -->\n"
	"<algo name=\"allgather_ring_1channelsperring\" proto=\"Simple\" nchannels=\"1\" "
	"nchunksperloop=\"4\" ngpus=\"4\" coll=\"allgather\" inplace=\"1\">\n"
	T_AG_GPU(0, 1, 3, 3, 2, 1)
	T_AG_GPU(1, 2, 0, 0, 3, 2)
	T_AG_GPU(2, 3, 1, 1, 0, 3)
	T_AG_GPU(3, 0, 2, 2, 1, 0)
	"</algo>\n";

/* The same ring with a receive and a send threadblock a gpu, as msccl-tools writes it with
 * sendtb/recvtb apart: each forward depends on its receive by depid/deps (single quotes). */
#define T_AG2_GPU(g, next, prev, c1, c2, c3)                                             \
	"  <gpu id='" #g "' i_chunks='1' o_chunks='4' s_chunks='0'>\n"                   \
	"    <tb id='0' send='-1' recv='" #prev "' chan='0'>\n"                          \
	"      <step s='0' type='r' srcbuf='o' srcoff='" #c1 "' dstbuf='o' dstoff='" #c1 \
	"' cnt='1' depid='-1' deps='-1' hasdep='1'/>\n"                                  \
	"      <step s='1' type='r' srcbuf='o' srcoff='" #c2 "' dstbuf='o' dstoff='" #c2 \
	"' cnt='1' depid='-1' deps='-1' hasdep='1'/>\n"                                  \
	"      <step s='2' type='r' srcbuf='o' srcoff='" #c3 "' dstbuf='o' dstoff='" #c3 \
	"' cnt='1' depid='-1' deps='-1' hasdep='0'/>\n"                                  \
	"    </tb>\n"                                                                    \
	"    <tb id='1' send='" #next "' recv='-1' chan='0'>\n"                          \
	"      <step s='0' type='s' srcbuf='o' srcoff='" #g "' dstbuf='o' dstoff='" #g   \
	"' cnt='1' depid='-1' deps='-1' hasdep='0'/>\n"                                  \
	"      <step s='1' type='s' srcbuf='o' srcoff='" #c1 "' dstbuf='o' dstoff='" #c1 \
	"' cnt='1' depid='0' deps='0' hasdep='0'/>\n"                                    \
	"      <step s='2' type='s' srcbuf='o' srcoff='" #c2 "' dstbuf='o' dstoff='" #c2 \
	"' cnt='1' depid='0' deps='1' hasdep='0'/>\n"                                    \
	"    </tb>\n"                                                                    \
	"  </gpu>\n"

static const char t_ring_ag2[] =
	"<algo name='allgather_ring_tbs' proto='LL128' nchannels='1' nchunksperloop='4' "
	"ngpus='4' coll='allgather' inplace='1'>\n"
	T_AG2_GPU(0, 1, 3, 3, 2, 1)
	T_AG2_GPU(1, 2, 0, 0, 3, 2)
	T_AG2_GPU(2, 3, 1, 1, 0, 3)
	T_AG2_GPU(3, 0, 2, 2, 1, 0)
	"</algo>\n";
/* clang-format on */

static struct coll_params t_ag_params(void)
{
	struct coll_params p = t_p(COLL_ALLGATHER, COLL_RING, 4, 0);

	p.elem = 4, p.bytes = 4 * 4 * 2; /* chunks of two elements */
	return p;
}

static void t_step_is(const struct coll_sched *s, uint32_t r, uint32_t i, uint8_t op, uint32_t peer,
		      uint64_t chunk, uint32_t ndeps)
{
	const struct coll_step *st = &s->steps.v[s->ranks.v[r].step_off + i];

	assert_int_equal(st->op, op);
	assert_int_equal(st->peer, peer);
	assert_int_equal(st->off, chunk * 8);
	assert_int_equal(st->len, 8);
	assert_int_equal(st->dep_n, ndeps);
	if (op == COLL_RECV)
		assert_int_equal(st->flags, COLL_F_COPY);
}

static void test_hand_written(void **state)
{
	struct coll_params p = t_ag_params();
	struct coll_sched s;
	const uint32_t *dv;

	(void)state;
	t_parse_ok(t_ring_ag, &p, &s);
	assert_int_equal(s.ranks.v[0].step_n, 6);
	t_step_is(&s, 0, 0, COLL_SEND, 1, 0, 0);
	t_step_is(&s, 0, 1, COLL_RECV, 3, 3, 0); /* no bytes in common with the send before */
	t_step_is(&s, 0, 2, COLL_SEND, 1, 3, 1); /* forwards what step 1 received */
	t_step_is(&s, 0, 3, COLL_RECV, 3, 2, 0);
	t_step_is(&s, 0, 5, COLL_RECV, 3, 1, 0);
	dv = s.deps.v + s.steps.v[s.ranks.v[0].step_off + 2].dep_off;
	assert_int_equal(dv[0], 1);
	assert_int_equal(s.steps.v[s.ranks.v[0].step_off + 3].phase, 2); /* its s */
	t_sim_ok(&s, "msccl-tools ring all-gather");
	coll_sched_done(&s);

	t_parse_ok(t_ring_ag2, &p, &s);
	assert_int_equal(s.ranks.v[0].step_n, 6);
	/* by s, then threadblock: r 3, s 0, r 2, s 3 (after r 3), r 1, s 2 (after r 2) */
	t_step_is(&s, 0, 0, COLL_RECV, 3, 3, 0);
	t_step_is(&s, 0, 1, COLL_SEND, 1, 0, 0);
	t_step_is(&s, 0, 2, COLL_RECV, 3, 2, 0);
	t_step_is(&s, 0, 3, COLL_SEND, 1, 3, 1);
	t_step_is(&s, 0, 5, COLL_SEND, 1, 2, 1);
	dv = s.deps.v + s.steps.v[s.ranks.v[0].step_off + 5].dep_off;
	assert_int_equal(dv[0], 2);
	t_sim_ok(&s, "msccl-tools ring all-gather, two threadblocks");
	coll_sched_done(&s);
}

/* text with the first `old` replaced by `new` (malloc'd). */
static char *t_replace(const char *text, const char *old, const char *new)
{
	const char *at = strstr(text, old);
	size_t n = strlen(text) - strlen(old) + strlen(new);
	char *out;

	if (!at)
		fail_msg("'%s' not in the text", old);
	out = malloc(n + 1);
	assert_non_null(out);
	memcpy(out, text, (size_t)(at - text));
	strcpy(out + (at - text), new);
	strcat(out, at + strlen(old));
	return out;
}

static void t_bad_p(const char *text, size_t len, const struct coll_params *p, const char *needle)
{
	struct coll_sched s;
	struct diag d = {0};

	if (msccl_parse(text, len, p, &s, &d) != -EINVAL)
		fail_msg("accepted, expected: %s", needle);
	if (!strstr(d.msg, needle))
		fail_msg("'%s' lacks '%s'", d.msg, needle);
	assert_null(s.steps.v);
	assert_null(s.ranks.v);
}

/* The ring all-gather with old replaced by new must be refused with needle in the message. */
static void t_bad(const char *base, const char *old, const char *new, const char *needle)
{
	struct coll_params p = t_ag_params();
	char *text = t_replace(base, old, new);

	t_bad_p(text, strlen(text), &p, needle);
	free(text);
}

static void test_refused_xml(void **state)
{
	struct coll_params p = t_ag_params();
	const char *t = t_ring_ag;

	(void)state;
	/* truncated: inside a tag, after one (lines: 3 <algo>, 4 <gpu>, 5 <tb>) */
	t_bad_p(t, (size_t)(strstr(t, "<step s=\"1\"") - t), &p,
		"MSCCL XML 5:5: <tb> is never closed: the text ends at 7:7");
	t_bad_p(t, (size_t)(strstr(t, "s=\"2\"") - t), &p, "8:7: the text ends inside this tag");
	t_bad_p(t, 30, &p, "1:1: this processing instruction never ends");
	t_bad_p("", 0, &p, "1:1: no element: expected <algo>");
	/* unclosed: the first </tb> missing, so </gpu> comes while <tb> is open */
	t_bad(t, "    </tb>\n", "", "10:3: </gpu> where <tb> (opened at 5:5) must close");
	t_bad(t, "</algo>", "</algo><algo/>", "36:8: a second root element <algo>");
	t_bad(t, "  <gpu id=\"1\"", "hello <gpu id=\"1\"", "12:1: text outside a tag");
	t_bad(t, "recv=\"3\"", "recv=\"3\" recv=\"2\"", "5:34: attribute recv appears twice");
	t_bad(t, "recv=\"3\"", "recv=3", "5:30: the value of recv must be in quotes");
	t_bad(t, "recv=\"3\" chan", "recv=\"3\"chan", "5:33: expected white space");
	t_bad(t, "<!--", "<!DOCTYPE algo><!--", "unsupported markup '<!'");
	t_bad(t, "<tb id", "<tb <id", "5:9: expected an attribute name");
}

static void test_refused_content(void **state)
{
	struct coll_params p = t_ag_params();
	const char *t = t_ring_ag;

	(void)state;
	p.nranks = 8;
	t_bad_p(t, strlen(t), &p, "3:1: <algo> names 4 ranks (ngpus), the job has 8");
	p = t_ag_params();
	p.kind = COLL_ALLREDUCE;
	t_bad_p(t, strlen(t), &p, "coll=\"allgather\", but the job's collective is allreduce");
	p = t_ag_params();
	p.bytes = 4 * 6;
	t_bad_p(t, strlen(t), &p, "nchunksperloop=\"4\" does not cut 24 bytes");
	t_bad(t, "send=\"1\" recv=\"3\"", "send=\"9\" recv=\"3\"",
	      "5:16: send=\"9\": peer out of range, the job has 4 ranks");
	t_bad(t, "send=\"1\" recv=\"3\"", "send=\"1\" recv=\"0\"",
	      "a threadblock of gpu 0 with itself");
	t_bad(t, " chan=\"0\"", "", "5:5: <tb> lacks attribute chan");
	t_bad(t, "type=\"rcs\"", "type=\"xyz\"", "7:19: unsupported step type 'xyz'");
	t_bad(t, "type=\"rcs\"", "type=\"rrs\"", "a rrs step reduces, but an allgather copies");
	t_bad(t, "type=\"rcs\"", "type=\"re\"", "a re step reduces, but an allgather copies");
	t_bad(t, "cnt=\"1\"", "cnt=\"two\"", "6:72: cnt=\"two\": expected an integer");
	t_bad(t, "hasdep=\"0\"", "hasdep=\"2\"", "hasdep=\"2\": expected an integer from 0 to 1");
	t_bad(t, "srcoff=\"0\"", "srcoff=\"4\"", "chunks 4 to 4 of buffer o: it has 4 chunks");
	t_bad(t, "srcbuf=\"o\"", "srcbuf=\"s\"",
	      "chunks 0 to 0 of buffer s: it has 0 chunks (s_chunks)");
	t_bad(t, "srcbuf=\"o\"", "srcbuf=\"x\"", "MSCCL's buffers are i, o and s");
	t_bad(t, "srcbuf=\"o\" srcoff=\"0\"", "srcbuf=\"i\" srcoff=\"1\"",
	      "chunks 1 to 1 of buffer i: it has 1 chunks");
	t_bad(t, "type=\"rcs\"", "type=\"rrcs\"", "a rrcs step reduces, but an allgather copies");
	t_bad(t, "<step s=\"1\"", "<step s=\"4\"",
	      "7:7: s=\"4\", but it is step 1 of its threadblock");
	t_bad(t, "inplace=\"1\"", "inplace=\"0\"", "an out-of-place allgather");
	t_bad(t, "proto=\"Simple\"", "proto=\"Fast\"", "proto=\"Fast\": MSCCL's are");
	t_bad(t, "<gpu id=\"3\"", "<gpu id=\"2\"",
	      "28:3: a second <gpu id=\"2\"> (the first at 20:3)");
	t_bad(t, "<gpu id=\"3\"", "<gpu id=\"7\"", "gpu id 7 is out of range");
	t_bad(t, "<step s=\"0\"", "<op s=\"0\"", "<op> in <tb>: expected <step>");
	/* gpu 1 (lines 12 to 19) takes two of gpu 0's three chunks; gpu 0 forwards two chunks
	 * (line 8) where gpu 1 takes one (line 17) */
	t_bad(t, T_AG(3, "r", 2), "",
	      "8:7: send 3 from gpu 0 to gpu 1 has no receive: gpu 1 takes 2 from gpu 0");
	t_bad(t, "srcoff=\"2\" dstbuf=\"o\" dstoff=\"2\" cnt=\"1\"",
	      "srcoff=\"2\" dstbuf=\"o\" dstoff=\"2\" cnt=\"2\"",
	      "17:7: this receive takes 8 bytes, its send (at 8:7) 16");
	/* a local copy where gpu 0 forwarded: it no longer sends what gpu 1 waits for */
	t_bad(t, "type=\"rcs\" srcbuf=\"o\" srcoff=\"3\"", "type=\"cpy\" srcbuf=\"o\" srcoff=\"2\"",
	      "17:7: receive 3 at gpu 1 from gpu 0 has no send: gpu 0 sends 2 to gpu 1");
}

static void test_refused_deps(void **state)
{
	const char *t = t_ring_ag2;

	(void)state;
	t_bad(t, "depid='0' deps='0'", "depid='0' deps='7'",
	      "depends on step 7 of threadblock 0, which has 3 steps");
	t_bad(t, "depid='0' deps='0'", "depid='4' deps='0'",
	      "depends on threadblock 4, gpu 0 has 2");
	t_bad(t, "depid='0' deps='0'", "depid='0' deps='-1'", "depends on step -1");
	t_bad(t, "depid='0' deps='0'", "depid='-2' deps='0'", "depid=\"-2\": expected an integer");
	/* gpu 0: tb 0's first receive waits for tb 1's second send, which waits for it */
	t_bad(t, "srcoff='3' dstbuf='o' dstoff='3' cnt='1' depid='-1' deps='-1' hasdep='1'",
	      "srcoff='3' dstbuf='o' dstoff='3' cnt='1' depid='1' deps='1' hasdep='1'",
	      "waits in a cycle of dependencies");
	t_bad(t, "send='1' recv='-1'", "send='1' recv='3'",
	      "recv=\"3\": threadblock 0 has this connection already");
	t_bad(t, "<tb id='1'", "<tb id='2'", "threadblock id 2: gpu 0 has 2, so ids 0 to 1");
}

/* A nop carries an extra dependency and counts in s; dependencies on a nop mean the step
 * before it. */
static void test_nop(void **state)
{
	struct coll_params p = t_ag_params();
	struct coll_sched s;
	char *text;
	const struct coll_step *st;

	(void)state;
	text = t_replace(
		t_ring_ag2,
		"      <step s='2' type='s' srcbuf='o' srcoff='2' dstbuf='o' dstoff='2' "
		"cnt='1' depid='0' deps='1' hasdep='0'/>\n",
		"      <step s='2' type='nop' srcbuf='i' srcoff='-1' dstbuf='o' dstoff='-1' "
		"cnt='0' depid='0' deps='2' hasdep='0'/>\n"
		"      <step s='3' type='s' srcbuf='o' srcoff='2' dstbuf='o' dstoff='2' "
		"cnt='1' depid='0' deps='1' hasdep='0'/>\n");
	t_parse_ok(text, &p, &s);
	st = &s.steps.v[s.ranks.v[0].step_off + 5];
	assert_int_equal(st->op, COLL_SEND);
	/* the nop's receive of chunk 1 (tb 0's step 2) is the later of the two it waits for:
	 * that of chunk 2 (step 1) is done by then (one connection's receives end in order) */
	assert_int_equal(st->dep_n, 1);
	assert_int_equal(s.steps.v[s.ranks.v[0].step_off + s.deps.v[st->dep_off]].off, 8);
	t_sim_ok(&s, "with a nop");
	coll_sched_done(&s);
	free(text);
}

/* A cpy onto the same bytes is no step: gpu 0's input chunk is its output chunk 0 in place. */
static void test_identity_copy(void **state)
{
	struct coll_params p = t_ag_params();
	struct coll_sched a, b;
	char *text;

	(void)state;
	text = t_replace(t_ring_ag, "    </tb>\n",
			 "    </tb>\n"
			 "    <tb id=\"1\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
			 "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" "
			 "dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
			 "    </tb>\n");
	t_parse_ok(t_ring_ag, &p, &a);
	t_parse_ok(text, &p, &b);
	t_same(&a, &b);
	coll_sched_done(&a);
	coll_sched_done(&b);
	free(text);
}

/* A read file may send other chunks than its receive reduces into (MSCCL allows it, and so do
 * our steps): written out, rrc's src still names the receiver's own chunks, which MSCCL adds
 * into, so the text reads back unchanged (libFuzzer found the sender's chunks written there,
 * which the reader then refused). */
static void test_reduce_other_chunk(void **state)
{
	struct coll_params p = t_p(COLL_ALLREDUCE, COLL_RING, 4, 0);
	struct coll_sched s, back;
	struct diag d = {0};
	struct coll_step *st;
	char *text;

	(void)state;
	p.elem = 4, p.bytes = 4 * 4;
	assert_int_equal(coll_sched_build(&p, &s, &d), 0);
	st = &s.steps.v[s.ranks.v[2].step_off];
	while (st->op != COLL_SEND) /* rank 2's first send: to another chunk */
		st++;
	st->off = (st->off + 4) % p.bytes;
	text = t_export(&s, NULL);
	t_parse_ok(text, &p, &back);
	t_same(&s, &back);
	coll_sched_done(&back);
	coll_sched_done(&s);
	free(text);
}

/* Every prefix short of "</algo>" is refused with a position, never read past; random bytes
 * written over the text are refused or read, never crash. */
static void test_robust(void **state)
{
	struct coll_params p = t_ag_params();
	const char *texts[] = {t_ring_ag, t_ring_ag2};
	size_t i, n, end, k;
	struct coll_sched s;
	struct diag d;
	uint32_t seed = 7;
	char *m;
	int err;

	(void)state;
	for (i = 0; i < 2; i++) {
		n = strlen(texts[i]);
		end = (size_t)(strstr(texts[i], "</algo>") - texts[i]) + strlen("</algo>");
		for (k = 0; k <= n; k++) {
			memset(&d, 0, sizeof(d));
			err = msccl_parse(texts[i], k, &p, &s, &d);
			if (k < end && (err != -EINVAL || strncmp(d.msg, "MSCCL XML ", 10)))
				fail_msg("prefix of %zu bytes: %d '%s'", k, err, d.msg);
			if (k >= end)
				assert_int_equal(err, 0);
			coll_sched_done(&s);
		}
		m = malloc(n + 1);
		assert_non_null(m);
		for (k = 0; k < 3000; k++) {
			memcpy(m, texts[i], n + 1);
			seed = seed * 1103515245u + 12345u;
			m[(seed >> 8) % n] = (char)(32 + (seed >> 20) % 95);
			memset(&d, 0, sizeof(d));
			err = msccl_parse(m, n, &p, &s, &d);
			assert_true(err == 0 || (err == -EINVAL && d.msg[0]));
			coll_sched_done(&s);
		}
		free(m);
	}
}

/* A fixture file (tests/fixtures/msccl/README.md says where each comes from), malloc'd. */
static char *t_fixture(const char *name, size_t *n)
{
	char path[256], *buf = malloc(1 << 20);
	FILE *f;

	snprintf(path, sizeof(path), "tests/fixtures/msccl/%s", name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(buf);
	*n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	assert_true(*n > 0 && *n < 1 << 20);
	return buf;
}

/* msccl-tools' recursive doubling/halving all-reduce for 8 ranks: read with its threadblocks'
 * order (a step follows what its threadblock's earlier steps waited for), it is proven at
 * every size, among them the 64 MiB at which it once raced (a send of a partial sum) and
 * 105 MiB; one element per chunk, uneven multiples, and the sizes emulation verifies. */
static void test_rdh_proven(void **state)
{
	static const uint64_t chunks[] = {1, 2, 3, 5, 7, 64, 1000, 2097152, 3440640};
	struct coll_params p = t_p(COLL_ALLREDUCE, COLL_MSCCL, 8, 0);
	struct coll_sched s;
	struct diag d = {0};
	size_t n, i;
	char *x = t_fixture("msccl-tools-allreduce-rdh-8.xml", &n);

	(void)state;
	for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		p.elem = 4, p.bytes = 8 * 4 * chunks[i]; /* 2097152: 64 MiB; 3440640: 105 MiB */
		memset(&d, 0, sizeof(d));
		if (msccl_parse_proven(x, n, &p, &s, &d))
			fail_msg("%llu bytes: %s", (unsigned long long)p.bytes, d.msg);
		assert_int_equal(s.steps.n, 96);
		coll_sched_done(&s);
	}
	free(x);
}

/* The ns-3 MSCCL validation set's "Others" say coll="allgather" but are not one: each is
 * refused with the line of the first step that puts data elsewhere than it was read; the
 * set's genuine all-pairs all-gather is proven. */
static void test_not_what_they_say(void **state)
{
	static const struct {
		const char *file, *where;
		uint64_t chunks;
	} bad[] = {
		{"ns3-others-peer2peer.xml", "MSCCL XML 11:13: not the allgather it says it is", 2},
		{"ns3-others-all2one.xml", "MSCCL XML 35:13: not the allgather it says it is", 14},
		{"ns3-others-all2all.xml", "MSCCL XML 35:13: not the allgather it says it is", 14},
	};
	struct coll_params p = t_p(COLL_ALLGATHER, COLL_MSCCL, 8, 0);
	struct coll_sched s;
	struct diag d = {0};
	size_t n, i;
	char *x;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		x = t_fixture(bad[i].file, &n);
		p.elem = 4, p.bytes = 4 * 1024 * bad[i].chunks;
		memset(&d, 0, sizeof(d));
		assert_int_equal(msccl_parse(x, n, &p, &s, &d), 0); /* it reads */
		coll_sched_done(&s);
		assert_int_equal(msccl_parse_proven(x, n, &p, &s, &d), -EINVAL);
		if (!strstr(d.msg, bad[i].where) || !strstr(d.msg, "lands elsewhere"))
			fail_msg("%s: %s", bad[i].file, d.msg);
		free(x);
	}
	x = t_fixture("ns3-ag_allpair_simple_x_1.xml", &n);
	p.bytes = 4 * 1024 * 8;
	memset(&d, 0, sizeof(d));
	if (msccl_parse_proven(x, n, &p, &s, &d))
		fail_msg("the genuine all-gather: %s", d.msg);
	coll_sched_done(&s);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_hd),
		cmocka_unit_test(test_alltoall_direct),
		cmocka_unit_test(test_hier_shard),
		cmocka_unit_test(test_hx),
		cmocka_unit_test(test_multidim),
		cmocka_unit_test(test_tacos),
		cmocka_unit_test(test_export_form),
		cmocka_unit_test(test_hand_written),
		cmocka_unit_test(test_refused_xml),
		cmocka_unit_test(test_refused_content),
		cmocka_unit_test(test_refused_deps),
		cmocka_unit_test(test_nop),
		cmocka_unit_test(test_identity_copy),
		cmocka_unit_test(test_robust),
		cmocka_unit_test(test_reduce_other_chunk),
		cmocka_unit_test(test_rdh_proven),
		cmocka_unit_test(test_not_what_they_say),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
