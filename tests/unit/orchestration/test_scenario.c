// SPDX-License-Identifier: MIT
/* Scenario parser: every file in scenarios/ parses, values and defaults land where they should,
 * and every tests/fixtures/bad/ file is refused with its exact message. Run from the repo root. */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/gen.h"
#include "cli/cmd.h"
#include "run/emu/run_emu.h"
#include "run/run_int.h"
#include "scenario/jobs.h"
#include "scenario/scenario_yaml.h"

#define GBIT 1000000000ULL
#define MBIT 1000000ULL

static const char t_topo[] = "topology:\n"
			     "  kind: leafspine\n"
			     "  hosts_per_leaf: 4\n"
			     "  leaves: 4\n"
			     "  spines: 2\n"
			     "  host_rate: 1Gbit\n";

/* Parses text (named `name`) and expects success. */
static void t_parse_ok(const char *name, const char *text, struct experiment *e)
{
	struct diag d = {0};
	int r = exp_parse_buffer(name, text, strlen(text), e, &d);

	if (r)
		print_error("%s: %s\n", name, d.msg);
	assert_int_equal(r, 0);
	assert_string_equal(d.msg, "");
}

/* Parses text and expects -EINVAL with exactly `want`; s must come back holding nothing. */
static void t_parse_bad(const char *text, size_t len, const char *want)
{
	struct diag d = {0};
	struct experiment e;
	int r = exp_parse_buffer("t.yaml", text, len, &e, &d);

	assert_int_equal(r, -EINVAL);
	assert_int_equal(d.err, -EINVAL);
	assert_string_equal(d.msg, want);
	assert_null(e.s.path);
	assert_int_equal(e.s.routing.seeds.n, 0);
	exp_done(&e);
}

static void t_bad(const char *text, const char *want)
{
	t_parse_bad(text, strlen(text), want);
}

/* The whole file, or NULL; trailing newlines cut. */
static char *t_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, 4096);
	n = buf ? fread(buf, 1, 4095, f) : 0;
	fclose(f);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

/* Every documented default outside the topology's own fields (docs/scenario.md). */
static void t_check_defaults(const struct scenario *s)
{
	assert_int_equal(s->topology.delay_ns, 0);
	assert_int_equal(s->shaping.qdisc, SCN_QDISC_HTB);
	assert_true(s->shaping.ack_priority);
	assert_int_equal(s->shaping.burst_bytes, 0);
	assert_int_equal(s->shaping.queue_bytes, 0);
	assert_int_equal(s->shaping.mtu, 1500);
	assert_int_equal(s->routing.policy, SCN_POLICY_ECMP);
	assert_int_equal(s->routing.seed, 1);
	assert_int_equal(s->routing.seeds.n, 0);
	assert_int_equal(s->addressing.base, (198u << 24) | (18u << 16));
	assert_int_equal(s->addressing.plen, 15);
	assert_true(s->emulation.rate_scale == 1.0 && s->emulation.size_scale == 1.0);
	assert_int_equal(s->emulation.rto_min.mode, SCN_RTO_AUTO);
}

static void test_every_scenario_parses(void **state)
{
	struct topo *t = NULL;
	struct experiment e;
	struct diag d;
	glob_t g;
	size_t i;

	(void)state;
	assert_int_equal(glob("scenarios/*.yaml", 0, NULL, &g), 0);
	assert_int_equal(glob("scenarios/*/*.yaml", GLOB_APPEND, NULL, &g), 0);
	assert_true(g.gl_pathc >= 4);
	for (i = 0; i < g.gl_pathc; i++) {
		diag_clear(&d);
		if (exp_parse_file(g.gl_pathv[i], &e, &d))
			fail_msg("%s", d.msg);
		assert_string_equal(e.s.path, g.gl_pathv[i]);
		assert_true(strlen(e.s.name) >= 1 && strlen(e.s.name) <= SCN_YAML_NAME_LEN);
		if (e.s.topology.gen == SCN_GEN_LEAFSPINE || e.s.topology.gen == SCN_GEN_BEST) {
			assert_true(e.s.topology.ls.hosts_per_leaf >= 1 &&
				    e.s.topology.ls.leaves >= 1);
			assert_true(e.s.topology.ls.host_rate > 0 &&
				    e.s.topology.ls.fabric_rate > 0);
			assert_true(e.s.topology.gen == SCN_GEN_BEST ||
				    e.s.topology.ls.spines >= 1);
		}
		/* and it builds */
		if (topo_build(&e.s, &t, &d))
			fail_msg("%s: %s", g.gl_pathv[i], d.msg);
		topo_free(t);
		exp_done(&e);
	}
	globfree(&g);
}

static void t_parse_path(const char *path, struct experiment *e)
{
	struct diag d = {0};

	if (exp_parse_file(path, e, &d))
		fail_msg("%s", d.msg);
}

static void test_leafspine_small(void **state)
{
	struct experiment e;

	(void)state;
	t_parse_path("scenarios/leafspine-small.yaml", &e);
	assert_string_equal(e.s.name, "ls-small");
	assert_int_equal(e.s.topology.gen, SCN_GEN_LEAFSPINE);
	assert_int_equal(e.s.topology.ls.hosts_per_leaf, 4);
	assert_int_equal(e.s.topology.ls.leaves, 4);
	assert_int_equal(e.s.topology.ls.spines, 2);
	assert_int_equal(e.s.topology.ls.links_per_pair, 1);
	assert_int_equal(e.s.topology.ls.host_rate, GBIT);
	assert_int_equal(e.s.topology.ls.fabric_rate, GBIT);
	t_check_defaults(&e.s);
	exp_done(&e);
}

static void test_other_scenarios(void **state)
{
	struct experiment e;

	(void)state;
	t_parse_path("scenarios/best-small.yaml", &e);
	assert_int_equal(e.s.topology.gen, SCN_GEN_BEST);
	assert_int_equal(e.s.topology.ls.hosts_per_leaf * e.s.topology.ls.leaves, 16);
	exp_done(&e);
	t_parse_path("scenarios/leafspine-1024.yaml", &e);
	assert_int_equal(e.s.topology.ls.hosts_per_leaf * e.s.topology.ls.leaves, 1024);
	assert_int_equal(e.s.topology.ls.spines, 32);
	assert_int_equal(e.s.topology.ls.host_rate, 100 * GBIT);
	assert_true(e.s.emulation.rate_scale == 0.001);
	exp_done(&e);
	t_parse_path("scenarios/ecmp-4spine.yaml", &e);
	assert_int_equal(e.s.topology.ls.leaves, 2);
	assert_int_equal(e.s.topology.ls.hosts_per_leaf, 16);
	assert_int_equal(e.s.topology.ls.spines, 4);
	assert_int_equal(e.s.topology.ls.fabric_rate, 200 * MBIT);
	assert_int_equal(e.s.routing.seed, 7);
	exp_done(&e);
}

/* The chunked collective's fields reach each job: the workload's under a job's own, active
 * chunks one for all or one per dimension, the collective kind into the plan; the workload's
 * schedule leaves an all-to-all job to its algorithm. */
static void test_md_fields(void **state)
{
	const char *text =
		"topology:\n  kind: multidim\n  host_rate: 100Gbit\n  multidim:\n"
		"    dims: [ { type: ring, size: 4 }, { type: switch, size: 2 } ]\n"
		"workload:\n  schedule: themis\n  chunks: 8\n  active_chunks: 3\n  jobs:\n"
		"    - {gpus: 8, bytes: 1MiB, compute: 1ms}\n"
		"    - {gpus: 8, bytes: 1MiB, compute: 1ms, collective: allgather,\n"
		"       schedule: baseline, intra: scf, active_chunks: [2, 5], threshold: 4}\n"
		"    - {gpus: 8, bytes: 1MiB, compute: 1ms, collective: alltoall}\n";
	struct experiment e;
	job_list jobs = {0};
	struct diag d = {0};
	const struct coll_md *a, *b;

	(void)state;
	t_parse_ok("md.yaml", text, &e);
	assert_int_equal(jobs_resolve(&e, &jobs, NULL, &d), 0);
	assert_int_equal(jobs.n, 3);
	a = &jobs.v[0].md;
	b = &jobs.v[1].md;
	assert_int_equal(jobs.v[0].algo, COLL_MULTIDIM);
	assert_true(a->kind == COLL_ALLREDUCE && a->sched == COLL_MD_THEMIS &&
		    a->intra == COLL_MD_SCF && a->chunks == 8 && a->thr_div == 16);
	assert_true(a->ndims == 2 && a->dim[0].active == 3 && a->dim[1].active == 3);
	assert_true(a->dim[0].algo == COLL_MD_RING && a->dim[1].algo == COLL_MD_DIRECT);
	assert_true(b->kind == COLL_ALLGATHER && b->sched == COLL_MD_BASELINE &&
		    b->intra == COLL_MD_SCF && b->chunks == 8 && b->thr_div == 4);
	assert_true(b->dim[0].active == 2 && b->dim[1].active == 5);
	assert_int_equal(jobs.v[2].algo, COLL_PAIRWISE);
	assert_int_equal(jobs.v[2].md.ndims, 0);
	vec_free(&jobs);
	exp_done(&e);
}

/* workload.tacos: the fields and their defaults (1 chunk, 1 run, seed 1, alpha 0.5 us). */
static void test_tacos_fields(void **state)
{
	const char *head = "topology:\n  kind: direct\n  host_rate: 100Gbit\n"
			   "  direct: {shape: mesh2d, size: [2, 2]}\n"
			   "workload:\n  algorithm: tacos\n  jobs:\n"
			   "    - {gpus: 4, bytes: 1MiB, compute: 1ms}\n";
	char text[512];
	struct experiment e;

	(void)state;
	t_parse_ok("t.yaml", head, &e);
	assert_int_equal(e.w.algo, COLL_TACOS);
	assert_true(e.w.tacos.k == 1 && e.w.tacos.runs == 1 && e.w.tacos.seed == 1);
	assert_int_equal(e.w.tacos.alpha_ns, 500);
	exp_done(&e);
	snprintf(text, sizeof(text), "%s  tacos: {chunks: 2, runs: 3, seed: 9, alpha: 2us}\n",
		 head);
	t_parse_ok("t.yaml", text, &e);
	assert_true(e.w.tacos.k == 2 && e.w.tacos.runs == 3 && e.w.tacos.seed == 9);
	assert_int_equal(e.w.tacos.alpha_ns, 2000);
	exp_done(&e);
}

/* hammingmesh, multidim and direct: every field lands in its generator's parameters, and
 * host_rate fills the rates the file leaves out. */
static void test_other_kinds(void **state)
{
	const char *hx = "topology:\n  kind: hammingmesh\n  host_rate: 400Gbit\n"
			 "  hammingmesh: { a: 4, b: 2, x: 3, y: 5, radix: 8, taper: 2, planes: 4,\n"
			 "                 merged: true, board_rate: 1Tbit }\n"
			 "routing: { spray: true }\n";
	const char *md =
		"topology:\n  kind: multidim\n  host_rate: 100Gbit\n  multidim:\n"
		"    dims: [ { type: ring, size: 4, rate: 1Tbit }, { type: fc, size: 3 } ]\n";
	const char *dr = "topology:\n  kind: direct\n  direct:\n    shape: unwound\n"
			 "    dims:\n      - { size: 8, rate: 300Gbit }\n"
			 "      - { size: 4, degree: 1, bidir: true, rate: 25Gbit }\n";
	struct experiment e;
	const struct scn_topology *t = &e.s.topology;

	(void)state;
	t_parse_ok("hx.yaml", hx, &e);
	assert_int_equal(t->gen, SCN_GEN_HAMMINGMESH);
	assert_true(t->hx.a == 4 && t->hx.b == 2 && t->hx.x == 3 && t->hx.y == 5);
	assert_true(t->hx.radix == 8 && t->hx.taper == 2 && t->hx.planes == 4 && t->hx.merged);
	assert_int_equal(t->hx.net_rate, 400 * GBIT);
	assert_int_equal(t->hx.board_rate, 1000 * GBIT);
	assert_true(e.s.routing.spray);
	exp_done(&e);
	t_parse_ok("hx.yaml",
		   "topology: { kind: hammingmesh, host_rate: 1Gbit,\n"
		   "  hammingmesh: { a: 2, b: 2, x: 2, y: 2 } }\n",
		   &e);
	assert_true(t->hx.radix == 64 && t->hx.taper == 1 && t->hx.planes == 1 && !t->hx.merged);
	assert_int_equal(t->hx.board_rate, GBIT);
	assert_false(e.s.routing.spray);
	exp_done(&e);
	t_parse_ok("md.yaml", md, &e);
	assert_int_equal(t->md.ndims, 2);
	assert_true(t->md.dim[0].type == GEN_DIM_RING && t->md.dim[0].size == 4);
	assert_int_equal(t->md.dim[0].rate, 1000 * GBIT);
	assert_true(t->md.dim[1].type == GEN_DIM_FC && t->md.dim[1].size == 3);
	assert_int_equal(t->md.dim[1].rate, 100 * GBIT);
	exp_done(&e);
	t_parse_ok("dr.yaml", dr, &e);
	assert_int_equal(t->dr.kind, GEN_DIRECT_UNWOUND);
	assert_int_equal(t->dr.ndims, 2);
	assert_true(t->dr.dim[0].size == 8 && t->dr.dim[0].degree == 0 && !t->dr.dim[0].bidir);
	assert_true(t->dr.dim[1].degree == 1 && t->dr.dim[1].bidir);
	assert_int_equal(t->dr.dim[1].rate, 25 * GBIT);
	exp_done(&e);
	t_parse_ok("dr.yaml",
		   "topology: { kind: direct, host_rate: 1Gbit,\n"
		   "  direct: { shape: torus3d, size: [2, 3, 4] } }\n",
		   &e);
	assert_true(t->dr.size[0] == 2 && t->dr.size[1] == 3 && t->dr.size[2] == 4);
	assert_int_equal(t->dr.rate, GBIT);
	exp_done(&e);
}

static void test_defaults(void **state)
{
	const char *text =
		"topology: { kind: best, hosts_per_leaf: 2, leaves: 1, host_rate: 10Mbit }\n";
	struct experiment e;

	(void)state;
	t_parse_ok("dir/My_Scenario.v2.yaml", text, &e);
	assert_string_equal(e.s.path, "dir/My_Scenario.v2.yaml");
	assert_string_equal(e.s.name, "my-scenario");
	assert_int_equal(e.s.topology.ls.links_per_pair, 1);
	assert_int_equal(e.s.topology.ls.spines, 0);
	assert_int_equal(e.s.topology.ls.fabric_rate, 10 * MBIT);
	t_check_defaults(&e.s);
	exp_done(&e);
}

static void test_default_names(void **state)
{
	static const char *const cases[][2] = {
		{"scenarios/leafspine-small.yaml", "leafspine-sm"},
		{"UPPER.yml", "upper"},
		{"a b c", "a-b-c"},
		{"tb.2024.yaml", "tb-2024"},
		{"--x--.yaml", "x"},
		{"dir.d/___.yaml", "scenario"},
		{".hidden", "hidden"},
		{"<stdin>", "stdin"},
	};
	struct experiment e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t_parse_ok(cases[i][0], t_topo, &e);
		assert_string_equal(e.s.name, cases[i][1]);
		exp_done(&e);
	}
}

static void test_every_field(void **state)
{
	const char *text = "name: a-1\n"
			   "topology:\n"
			   "  kind: leafspine\n"
			   "  hosts_per_leaf: \"3\"\n"
			   "  leaves: &n 5\n"
			   "  spines: *n\n"
			   "  links_per_pair: 16\n"
			   "  host_rate: 1.5Gbit/s\n"
			   "  fabric_rate: 400Mbit\n"
			   "  delay: 1.5ms\n"
			   "shaping: { qdisc: htb, burst: 64KiB, queue: 1MB, mtu: 9000 }\n"
			   "routing:\n"
			   "  policy: ecmp\n"
			   "  seed: 0\n"
			   "  seeds: { l0: 7, s1: 4294967295 }\n"
			   "  optimal_limit: 18446744073709551615\n"
			   "  enforce: sport\n"
			   "addressing:\n"
			   "  prefix: 10.0.0.0/16\n"
			   "emulation:\n"
			   "  rate_scale: auto\n"
			   "  size_scale: 1e-3\n"
			   "  rto_min: 2.5s\n";
	struct experiment e;

	(void)state;
	t_parse_ok("every.yaml", text, &e);
	assert_string_equal(e.s.name, "a-1");
	assert_int_equal(e.s.topology.ls.hosts_per_leaf, 3);
	assert_int_equal(e.s.topology.ls.leaves, 5);
	assert_int_equal(e.s.topology.ls.spines, 5);
	assert_int_equal(e.s.topology.ls.links_per_pair, 16);
	assert_int_equal(e.s.topology.ls.host_rate, 1500 * MBIT);
	assert_int_equal(e.s.topology.ls.fabric_rate, 400 * MBIT);
	assert_int_equal(e.s.topology.delay_ns, 1500000);
	assert_int_equal(e.s.shaping.qdisc, SCN_QDISC_HTB);
	assert_int_equal(e.s.shaping.burst_bytes, 65536);
	assert_int_equal(e.s.shaping.queue_bytes, 1000000);
	assert_int_equal(e.s.shaping.mtu, 9000);
	assert_int_equal(e.s.routing.seed, 0);
	assert_int_equal(e.s.routing.seeds.n, 2);
	assert_string_equal(e.s.routing.seeds.v[0].node, "l0");
	assert_int_equal(e.s.routing.seeds.v[0].seed, 7);
	assert_string_equal(e.s.routing.seeds.v[1].node, "s1");
	assert_int_equal(e.s.routing.seeds.v[1].seed, UINT32_MAX);
	assert_true(e.s.routing.optimal_limit == UINT64_MAX);
	assert_int_equal(e.s.routing.enforce, SCN_ENFORCE_SPORT);
	assert_int_equal(e.s.addressing.base, 10u << 24);
	assert_int_equal(e.s.addressing.plen, 16);
	assert_true(e.s.emulation.rate_scale == 0);
	assert_true(e.s.emulation.size_scale == 1e-3);
	assert_int_equal(e.s.emulation.rto_min.mode, SCN_RTO_FIXED);
	assert_int_equal(e.s.emulation.rto_min.ns, 2500000000ULL);
	exp_done(&e);
	t_parse_ok("off.yaml",
		   "topology: { kind: best, hosts_per_leaf: 2, leaves: 1, host_rate: 10Mbit }\n"
		   "emulation: { rto_min: off }\n",
		   &e);
	assert_int_equal(e.s.emulation.rto_min.mode, SCN_RTO_OFF);
	exp_done(&e);
}

static void test_lenient_forms(void **state)
{
	char text[512];
	struct experiment e;

	(void)state;
	/* empty sections are all-default; kind best reads and ignores the fabric fields */
	snprintf(text, sizeof(text),
		 "# comment\n---\ntopology:\n  kind: best\n  hosts_per_leaf: 65536\n  leaves: 1\n"
		 "  spines: 9\n  links_per_pair: 2\n  host_rate: 1Gbit\n  fabric_rate: 5Gbit\n"
		 "shaping:\nrouting:\n  seeds:\naddressing: {}\n...\n");
	t_parse_ok("lenient.yaml", text, &e);
	assert_int_equal(e.s.topology.gen, SCN_GEN_BEST);
	assert_int_equal(e.s.topology.ls.hosts_per_leaf, 65536);
	assert_int_equal(e.s.topology.ls.fabric_rate, 5 * GBIT);
	assert_int_equal(e.s.routing.seeds.n, 0);
	exp_done(&e);
}

static void test_buffer_is_not_a_string(void **state)
{
	char text[256];
	struct diag d = {0};
	struct experiment e;
	size_t len;

	(void)state;
	len = (size_t)snprintf(text, sizeof(text), "%sname: abc", t_topo);
	text[len] = 'X'; /* no NUL after the buffer: the parser must stop at len */
	assert_int_equal(exp_parse_buffer("b.yaml", text, len, &e, &d), 0);
	assert_string_equal(e.s.name, "abc");
	exp_done(&e);
}

/* The parser alone: it refuses, and keeps nothing. */
static int t_load_parse(const char *path, struct diag *d)
{
	struct experiment e;
	int r = exp_parse_file(path, &e, d);

	assert_null(e.s.path);
	exp_done(&e);
	return r;
}

/* Everything check does (world_load): the built model, jobs and trace too. */
static int t_load_world(const char *path, struct diag *d)
{
	struct world w;
	int r = world_load(path, (struct world_ask){.every_variant = true}, &w, d);

	world_done(&w);
	return r;
}

/* Every file matching pattern (at least min) is refused by load as bad input (-EINVAL) with
 * exactly the message of its .expect file. */
static void t_fixtures(const char *pattern, size_t min, int (*load)(const char *, struct diag *))
{
	char expect_path[4096], *want;
	struct diag d;
	size_t i, bad = 0;
	glob_t g;
	int r;

	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= min);
	for (i = 0; i < g.gl_pathc; i++) {
		snprintf(expect_path, sizeof(expect_path), "%.*s.expect",
			 (int)(strlen(g.gl_pathv[i]) - 5), g.gl_pathv[i]);
		want = t_slurp(expect_path);
		diag_clear(&d);
		r = load(g.gl_pathv[i], &d);
		if (!want || r != -EINVAL || strcmp(d.msg, want)) {
			print_error("%s: got %d '%s'\n  want -EINVAL '%s'\n", g.gl_pathv[i], r,
				    d.msg, want ? want : "(no .expect file)");
			bad++;
		}
		free(want);
	}
	globfree(&g);
	assert_int_equal(bad, 0);
}

static void test_bad_fixtures(void **state)
{
	(void)state;
	t_fixtures("tests/fixtures/bad/*.yaml", 24, t_load_parse);
}

/* What the parser accepts but check refuses before up builds anything (the topology's size,
 * failures' names, jobs against the topology, the trace file and its rows). */
static void test_bad_world_fixtures(void **state)
{
	(void)state;
	t_fixtures("tests/fixtures/bad-world/*.yaml", 8, t_load_world);
}

static void test_more_refusals(void **state)
{
	(void)state;
	t_parse_bad("name: \"a\\0b\"\n", 13,
		    "t.yaml:1:7: name: expected 1 to 12 characters from "
		    "a-z, 0-9 and '-', found 'a?b'");
	t_bad("name: \"\\tx\"\n", "t.yaml:1:7: name: expected 1 to 12 characters from a-z, 0-9 "
				  "and '-', found '?x' ('?' is not allowed)");
	t_bad("name: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	      "t.yaml:1:7: name: expected 1 to 12 characters from a-z, 0-9 and '-', found "
	      "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'... (54 characters)");
	t_bad("topology: { kind: best, hosts_per_leaf: 1e3 }\n",
	      "t.yaml:1:41: topology.hosts_per_leaf: expected an integer from 1 to 65536, found "
	      "'1e3' (not "
	      "a whole number)");
	t_bad("topology: { kind: best, hosts_per_leaf: 0x10 }\n",
	      "t.yaml:1:41: topology.hosts_per_leaf: expected an integer from 1 to 65536, found "
	      "'0x10'");
	t_bad("topology: { kind: best, hosts_per_leaf: 1, leaves: 1, host_rate: 99999999Tbit }\n",
	      "t.yaml:1:66: topology.host_rate: expected a rate, found '99999999Tbit': too large");
	t_bad("topology: { kind: best, hosts_per_leaf: 1, leaves: 1, host_rate: 1Gbit, delay: "
	      "9999999h }\n",
	      "t.yaml:1:80: topology.delay: expected a time such as 50us or 1.5ms, found "
	      "'9999999h' (too large)");
	t_bad("emulation: { rate_scale: 1e999 }\n", "t.yaml:1:26: emulation.rate_scale: expected a "
						    "positive number or auto, found '1e999'");
	t_bad("emulation: { size_scale: nan }\n",
	      "t.yaml:1:26: emulation.size_scale: expected a positive number, found 'nan'");
	t_bad("emulation: { rto_min: 500us }\n", "t.yaml:1:23: emulation.rto_min: expected auto, "
						 "off or a time from 1ms to 120s, found '500us'");
	t_bad("emulation: { rto_min: 121s }\n", "t.yaml:1:23: emulation.rto_min: expected auto, "
						"off or a time from 1ms to 120s, found '121s'");
	t_bad("emulation: { rto_min: on }\n", "t.yaml:1:23: emulation.rto_min: expected auto, "
					      "off or a time from 1ms to 120s, found 'on'");
	t_bad("emulation: { size_scale: auto }\n",
	      "t.yaml:1:26: emulation.size_scale: expected a positive number, found 'auto'");
	t_bad("shaping: { queue: 0 }\n", "t.yaml:1:19: shaping.queue: expected a size such as "
					 "64KiB or 1MB, or auto, found '0'");
	/* a queue under one frame is refused at the default MTU too */
	t_bad("shaping: { queue: 1KB }\n",
	      "t.yaml:1:19: shaping.queue: expected at least one frame "
	      "(1514 bytes at mtu 1500), found 1000 bytes");
	t_bad("shaping: { mtu: 67 }\n",
	      "t.yaml:1:17: shaping.mtu: expected an integer from 68 to 65535, found '67'");
	t_bad("routing: { seeds: { l0: -1 } }\n",
	      "t.yaml:1:25: routing.seeds.l0: expected a non-negative integer, found '-1' "
	      "(negative)");
	t_bad("# nothing but a comment\n",
	      "t.yaml:1:1: expected a mapping at the top level, found an empty document");
	t_bad("topology: {}\n---\n[\n",
	      "t.yaml:4:1: YAML syntax: did not find expected node content (while parsing a flow "
	      "node)");
	t_bad("topology: {}\n", "t.yaml:1:11: missing required field 'kind' in 'topology'");
}

/* A regular file over the size limit (sparse: no disk is used) is refused from its size. */
static void t_big_file(struct experiment *e, struct diag *d)
{
	char path[] = "/tmp/tb-unit-big-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, SCN_YAML_FILE_MAX + 1), 0);
	close(fd);
	assert_int_equal(exp_parse_file(path, e, d), -EFBIG);
	assert_non_null(strstr(d->msg, ": larger than 4 MiB, not a scenario"));
	exp_done(e);
	unlink(path);
}

static void test_file_errors(void **state)
{
	struct diag d = {0};
	struct experiment e;

	(void)state;
	assert_int_equal(exp_parse_file("tests/fixtures/none.yaml", &e, &d), -ENOENT);
	assert_string_equal(d.msg, "tests/fixtures/none.yaml: No such file or directory");
	assert_null(e.s.path);
	exp_done(&e);
	diag_clear(&d);
	assert_int_equal(exp_parse_file("tests/fixtures", &e, &d), -EISDIR);
	assert_int_equal(d.err, -EISDIR);
	exp_done(&e);
	diag_clear(&d);
	/* not a regular file: refused before reading (a FIFO would block, /dev/zero not end) */
	assert_int_equal(exp_parse_file("/dev/zero", &e, &d), -EINVAL);
	assert_string_equal(d.msg, "/dev/zero: not a regular file (a character device)");
	exp_done(&e);
	diag_clear(&d);
	t_big_file(&e, &d);
}

/* A job inherits workload.algorithm only when it builds the job's collective: an all-to-all
 * job under the workload's hd runs pairwise, an all-reduce keeps hd, and generated
 * all-reduce jobs under generate.algorithm pairwise run ring. A named one stays. */
static void test_inherited_algorithm(void **state)
{
	static const char text[] =
		"topology: {kind: leafspine, hosts_per_leaf: 2, leaves: 2, "
		"spines: 1, host_rate: 1Gbit}\n"
		"workload:\n"
		"  algorithm: hd\n"
		"  jobs:\n"
		"    - {gpus: 4, collective: alltoall, bytes: 1MiB, compute: 1ms}\n"
		"    - {gpus: 4, collective: allreduce, bytes: 1MiB, compute: 1ms}\n"
		"    - {gpus: 4, collective: alltoall, algorithm: direct, bytes: 1MiB, "
		"compute: 1ms}\n"
		"  generate: {count: 2, mean_interarrival: 1s, sizes: {4: 1}, "
		"models: [resnet50], algorithm: pairwise}\n";
	static const enum coll_algo want[] = {COLL_PAIRWISE, COLL_HD, COLL_DIRECT};
	struct experiment e;
	struct diag d = {0};
	job_list jobs = {0};
	size_t i;

	(void)state;
	t_parse_ok("t.yaml", text, &e);
	assert_int_equal(jobs_resolve(&e, &jobs, NULL, &d), 0);
	assert_int_equal(jobs.n, 5);
	for (i = 0; i < jobs.n; i++) /* by arrival: the listed ones at 0 come first */
		assert_int_equal(jobs.v[i].algo, i < 3 ? want[i] : COLL_RING);
	vec_free(&jobs);
	exp_done(&e);
}

/* Emulation's wall-time bound: the latest arrival plus iterations x (compute +
 * contention-free collective), dilated: here 2 s x 2 + 3 x (10 ms x 2 + 1.5 x 8 Mbit at
 * 500 Mbit/s) = 2.132 s for the second job, which ends after the first. */
static void test_emu_wall(void **state)
{
	static const char text[] = "topology: {kind: leafspine, hosts_per_leaf: 2, leaves: 2, "
				   "spines: 1, host_rate: 1Gbit}\n"
				   "emulation: {rate_scale: 0.5}\n"
				   "run: {max_wall: 2s}\n"
				   "workload:\n"
				   "  jobs:\n"
				   "    - {gpus: 4, bytes: 1MB, compute: 10ms, iterations: 3}\n"
				   "    - {gpus: 4, bytes: 1MB, compute: 10ms, iterations: 3, "
				   "arrival: 1s}\n";
	struct world w = {0};
	struct diag d = {0};
	char buf[256];

	(void)state;
	t_parse_ok("t.yaml", text, &w.e);
	assert_int_equal(w.e.run.max_wall_ns, 2 * GBIT);
	assert_int_equal(topo_build(&w.e.s, &w.t, &d), 0);
	assert_int_equal(jobs_resolve(&w.e, &w.jobs, NULL, &d), 0);
	assert_int_equal(emu_wall_ns(&w.e, &w.jobs, w.t), 2132000000ULL);
	assert_true(cmd_emu_too_long(&w, buf, sizeof(buf))); /* 1 Gbit of NICs fits 8 Gbit */
	assert_non_null(strstr(buf, "at least 2.13 s of wall time here (at link rates the machine "
				    "keeps up with, time runs 2x slower than the papers'), over "
				    "run.max_wall (2 s)"));
	w.e.run.max_wall_ns = 0; /* no limit */
	assert_false(cmd_emu_too_long(&w, buf, sizeof(buf)));
	assert_string_equal(buf, "at least 2.13 s of wall time here (dilation 2)");
	w.e.run.max_wall_ns = 3 * GBIT;
	assert_false(cmd_emu_too_long(&w, buf, sizeof(buf)));
	vec_free(&w.jobs);
	topo_free(w.t);
	exp_done(&w.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_scenario_parses),
		cmocka_unit_test(test_leafspine_small),
		cmocka_unit_test(test_other_scenarios),
		cmocka_unit_test(test_other_kinds),
		cmocka_unit_test(test_md_fields),
		cmocka_unit_test(test_tacos_fields),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_names),
		cmocka_unit_test(test_every_field),
		cmocka_unit_test(test_lenient_forms),
		cmocka_unit_test(test_buffer_is_not_a_string),
		cmocka_unit_test(test_bad_fixtures),
		cmocka_unit_test(test_bad_world_fixtures),
		cmocka_unit_test(test_more_refusals),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_inherited_algorithm),
		cmocka_unit_test(test_emu_wall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
