// SPDX-License-Identifier: MIT
/* testbed doctor's decisions (doctor/doctor.h): which features a scenario needs and why,
 * what the probes need probed, the open-file verdict, and the text of each line and of `up`'s
 * refusal. Scenarios are loaded as `check` loads them, from a temporary file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/cmd.h"
#include "doctor/doctor.h"

#define T_LS                                                                            \
	"name: doc\n"                                                                   \
	"topology:\n  kind: leafspine\n  hosts_per_leaf: 2\n  leaves: 2\n  spines: 2\n" \
	"  host_rate: 1Gbit\n"

struct t_world {
	char path[64];
	struct world w;
	struct doctor_needs n;
};

/* Loads text as `check` and `doctor FILE` do, and takes its needs. */
static void t_load(struct t_world *tw, const char *text)
{
	struct diag d = {0};
	int fd, r;

	snprintf(tw->path, sizeof(tw->path), "/tmp/test_doctor.XXXXXX.yaml");
	fd = mkstemps(tw->path, 5);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	r = world_load(tw->path, (struct world_ask){.every_variant = true}, &tw->w, &d);
	if (r)
		print_error("%s\n", d.msg);
	assert_int_equal(r, 0);
	doctor_needs_of(&tw->w.e, tw->w.t, &tw->w.plan, &tw->w.jobs, &tw->n);
}

static void t_done(struct t_world *tw)
{
	world_done(&tw->w);
	unlink(tw->path);
}

/* Every feature found, but those listed (ending with -1) missing. */
static void t_found(struct doctor_result res[DOCTOR_FEATS], ...)
{
	va_list ap;
	int f;

	memset(res, 0, DOCTOR_FEATS * sizeof(*res));
	for (f = 0; f < DOCTOR_FEATS; f++)
		res[f].state = DOCTOR_OK;
	va_start(ap, res);
	while ((f = va_arg(ap, int)) >= 0)
		doctor_say(&res[f], DOCTOR_MISSING, "the kernel said no");
	va_end(ap);
}

static void t_line(const struct doctor_needs *n, const struct doctor_result *res,
		   enum doctor_feat f, const char *status, const char *text)
{
	const char *st;
	char buf[1024];

	doctor_line(n, res, f, &st, buf, sizeof(buf));
	assert_string_equal(st, status);
	assert_string_equal(buf, text);
}

/* Without a file: namespaces, veth, tbf or htb, nftables, io_uring; netem only for delay. */
static void test_core(void **state)
{
	struct doctor_result res[DOCTOR_FEATS];
	struct doctor_needs n;
	struct diag d = {0};
	int f;

	(void)state;
	doctor_needs_core(&n);
	assert_null(n.file);
	assert_non_null(n.f[DOCTOR_NETNS].field);
	assert_non_null(n.f[DOCTOR_VETH].field);
	assert_non_null(n.f[DOCTOR_NFT].field);
	assert_non_null(n.f[DOCTOR_URING].field);
	assert_true(n.f[DOCTOR_TBF].either && n.f[DOCTOR_HTB].either);
	assert_null(n.f[DOCTOR_NETEM].field);
	assert_null(n.f[DOCTOR_NUMGEN].field);
	assert_null(n.f[DOCTOR_MQ].field);
	t_found(res, DOCTOR_NETEM, -1);
	for (f = 0; f < DOCTOR_FEATS; f++)
		assert_false(doctor_blocks(&n, res, f));
	t_line(&n, res, DOCTOR_NETEM, "missing",
	       "needed only for topology.delay; modprobe sch_netem");
	assert_int_equal(doctor_refusal(&n, res, &d), 0);

	/* tbf or htb: one of them will do */
	t_found(res, DOCTOR_TBF, -1);
	assert_false(doctor_blocks(&n, res, DOCTOR_TBF));
	t_line(&n, res, DOCTOR_TBF, "missing",
	       "not needed: another qdisc does for shaping (tbf or htb); modprobe sch_tbf");
	t_found(res, DOCTOR_TBF, DOCTOR_HTB, -1);
	assert_true(doctor_blocks(&n, res, DOCTOR_TBF));
	assert_true(doctor_blocks(&n, res, DOCTOR_HTB));
	assert_int_equal(doctor_refusal(&n, res, &d), -EOPNOTSUPP);
	assert_string_equal(d.msg, "shaping (tbf or htb) needs the tbf qdisc (sch_tbf), which this "
				   "kernel does not have; modprobe sch_tbf");

	t_found(res, DOCTOR_URING, -1);
	assert_true(doctor_blocks(&n, res, DOCTOR_URING));
	t_line(&n, res, DOCTOR_URING, "missing",
	       "a workload needs it; kernel 5.19 or later, with io_uring allowed (sysctl "
	       "kernel.io_uring_disabled=0)");
}

/* topology.delay needs netem: named at its place, with `up`'s advice as it always was. */
static void test_delay(void **state)
{
	struct doctor_result res[DOCTOR_FEATS];
	struct t_world tw;
	struct diag d = {0};
	char want[512];

	(void)state;
	t_load(&tw, T_LS "  delay: 1ms\n");
	assert_string_equal(tw.n.f[DOCTOR_NETEM].field, "topology.delay");
	assert_int_equal(tw.n.f[DOCTOR_NETEM].at.line, 8);
	assert_int_equal(tw.n.f[DOCTOR_NETEM].at.col, 3);
	t_found(res, DOCTOR_NETEM, -1);
	assert_true(doctor_blocks(&tw.n, res, DOCTOR_NETEM));
	snprintf(want, sizeof(want), "topology.delay needs it (%s:8:3); modprobe sch_netem",
		 tw.path);
	t_line(&tw.n, res, DOCTOR_NETEM, "missing", want);
	assert_int_equal(doctor_refusal(&tw.n, res, &d), -EOPNOTSUPP);
	snprintf(want, sizeof(want),
		 "%s:8:3: topology.delay needs the netem qdisc (sch_netem), which this kernel "
		 "does not have; remove the delay or load sch_netem",
		 tw.path);
	assert_string_equal(d.msg, want);
	t_found(res, -1);
	snprintf(want, sizeof(want), "topology.delay needs it");
	t_line(&tw.n, res, DOCTOR_NETEM, "ok", want);
	t_done(&tw);

	t_load(&tw, T_LS);
	assert_null(tw.n.f[DOCTOR_NETEM].field);
	t_found(res, DOCTOR_NETEM, -1);
	assert_false(doctor_blocks(&tw.n, res, DOCTOR_NETEM));
	t_line(&tw.n, res, DOCTOR_NETEM, "missing",
	       "needed only for topology.delay; modprobe sch_netem");
	t_done(&tw);
}

/* htb by default: its pfifo and bfifo queues, u32 for the ACK class; tbf: its bfifo; none. */
static void test_shaping(void **state)
{
	struct t_world tw;

	(void)state;
	t_load(&tw, T_LS);
	assert_string_equal(tw.n.f[DOCTOR_HTB].field, "shaping.qdisc (htb by default)");
	assert_non_null(tw.n.f[DOCTOR_PFIFO].field);
	assert_non_null(tw.n.f[DOCTOR_BFIFO].field);
	assert_string_equal(tw.n.f[DOCTOR_U32].field, "shaping.ack_priority (on by default)");
	assert_null(tw.n.f[DOCTOR_TBF].field);
	assert_false(tw.n.f[DOCTOR_HTB].either);
	t_done(&tw);

	t_load(&tw, T_LS "shaping:\n  qdisc: tbf\n");
	assert_string_equal(tw.n.f[DOCTOR_TBF].field, "shaping.qdisc");
	assert_int_equal(tw.n.f[DOCTOR_TBF].at.line, 9);
	assert_non_null(tw.n.f[DOCTOR_BFIFO].field);
	assert_null(tw.n.f[DOCTOR_HTB].field);
	assert_null(tw.n.f[DOCTOR_PFIFO].field);
	assert_null(tw.n.f[DOCTOR_U32].field);
	t_done(&tw);

	t_load(&tw, T_LS "shaping:\n  qdisc: htb\n  ack_priority: false\n");
	assert_non_null(tw.n.f[DOCTOR_HTB].field);
	assert_null(tw.n.f[DOCTOR_U32].field);
	t_done(&tw);

	t_load(&tw, T_LS "shaping:\n  qdisc: none\n");
	assert_null(tw.n.f[DOCTOR_TBF].field);
	assert_null(tw.n.f[DOCTOR_HTB].field);
	assert_null(tw.n.f[DOCTOR_BFIFO].field);
	t_done(&tw);
}

/* ECMP: nftables, fwmark rules, multipath; spraying: numgen, at routing.spray. */
static void test_spray(void **state)
{
	struct doctor_result res[DOCTOR_FEATS];
	struct t_world tw;
	struct diag d = {0};
	char want[512];

	(void)state;
	t_load(&tw, T_LS);
	assert_string_equal(tw.n.f[DOCTOR_NFT].field, "topology (its ECMP groups)");
	assert_int_equal(tw.n.f[DOCTOR_NFT].at.line, 3); /* the topology mapping */
	assert_non_null(tw.n.f[DOCTOR_RULE].field);
	assert_non_null(tw.n.f[DOCTOR_MULTIPATH].field);
	assert_null(tw.n.f[DOCTOR_NUMGEN].field);
	t_done(&tw);

	t_load(&tw, T_LS "routing:\n  spray: true\n");
	assert_string_equal(tw.n.f[DOCTOR_NUMGEN].field, "routing.spray");
	assert_int_equal(tw.n.f[DOCTOR_NUMGEN].at.line, 9);
	t_found(res, DOCTOR_NUMGEN, -1);
	assert_int_equal(doctor_refusal(&tw.n, res, &d), -EOPNOTSUPP);
	snprintf(want, sizeof(want),
		 "%s:9:3: routing.spray needs nftables' numgen (nft_numgen), which this kernel "
		 "does not have; set routing.spray: false or load nft_numgen",
		 tw.path);
	assert_string_equal(d.msg, want);
	t_done(&tw);
}

/* An OCS layer: ingress qdiscs, u32 match-all filters, mirred redirects; its cables. */
static void test_ocs(void **state)
{
	struct t_world tw;

	(void)state;
	t_load(&tw, T_LS "  ocs:\n    count: 1\n");
	assert_string_equal(tw.n.f[DOCTOR_INGRESS].field, "topology.ocs");
	assert_string_equal(tw.n.f[DOCTOR_MIRRED].field, "topology.ocs");
	assert_int_equal(tw.n.f[DOCTOR_MIRRED].at.line, 8);
	assert_non_null(tw.n.f[DOCTOR_U32].field);
	assert_non_null(tw.w.t->phys);
	assert_int_equal(tw.n.veths, tw.w.t->phys->links.n);
	assert_int_equal(tw.n.namespaces, tw.w.t->nodes.n);
	t_done(&tw);

	t_load(&tw, T_LS);
	assert_null(tw.n.f[DOCTOR_INGRESS].field);
	assert_null(tw.n.f[DOCTOR_MIRRED].field);
	assert_int_equal(tw.n.veths, tw.w.t->links.n);
	t_done(&tw);
}

/* A workload needs io_uring; an all-to-all's emu-node keeps (gpus - 1) x channels
 * connections, other collectives a few. */
static void test_workload(void **state)
{
	struct t_world tw;

	(void)state;
	t_load(&tw, T_LS "workload:\n  channels: 4\n  jobs:\n"
			 "    - {gpus: 4, collective: alltoall, bytes: 1MiB, compute: 1ms}\n");
	assert_string_equal(tw.n.f[DOCTOR_URING].field, "workload");
	assert_int_equal(tw.n.conns, 3 * 4);
	assert_int_equal(tw.n.nofile_node, 3 * 4 + 16);
	assert_int_equal(tw.n.nofile_up, tw.w.t->nodes.n + 256);
	t_done(&tw);

	t_load(&tw, "name: doc\ntopology:\n  kind: leafspine\n  hosts_per_leaf: 16\n  leaves: 2\n"
		    "  spines: 2\n  host_rate: 1Gbit\nworkload:\n  jobs:\n"
		    "    - {gpus: 32, collective: allreduce, bytes: 1MiB, compute: 1ms}\n");
	assert_int_equal(tw.n.conns, 8); /* a few peers, not 31 */
	t_done(&tw);

	t_load(&tw, T_LS);
	assert_null(tw.n.f[DOCTOR_URING].field);
	assert_int_equal(tw.n.nofile_node, 0);
	t_done(&tw);
}

/* Open files: `up` raises its own limit when it may, and its emu-nodes inherit it. */
static void test_nofile(void **state)
{
	struct doctor_result res[DOCTOR_FEATS];
	struct doctor_limits lim = {.nofile_hard = 1024, .nr_open = 1048576};
	struct doctor_needs n;
	struct diag d = {0};

	(void)state;
	doctor_needs_core(&n);
	n.file = "x.yaml";
	n.namespaces = 2000;
	n.nofile_up = doctor_nofile_up(2000);
	t_found(res, -1);
	doctor_judge_limits(&n, &lim, res);
	assert_int_equal(res[DOCTOR_NOFILE].state, DOCTOR_MISSING);
	assert_string_equal(res[DOCTOR_NOFILE].detail,
			    "2000 namespaces need 2256 open files, the hard limit is 1024; "
			    "ulimit -Hn 2256");
	assert_true(doctor_blocks(&n, res, DOCTOR_NOFILE));
	assert_int_equal(doctor_refusal(&n, res, &d), -EOPNOTSUPP);
	assert_string_equal(d.msg, res[DOCTOR_NOFILE].detail);

	lim.nofile_raise = true; /* up raises it to 2256, and its emu-nodes get that */
	n.nofile_node = 2000;
	doctor_judge_limits(&n, &lim, res);
	assert_int_equal(res[DOCTOR_NOFILE].state, DOCTOR_OK);
	n.nofile_node = 3000;
	n.conns = 2984;
	doctor_judge_limits(&n, &lim, res);
	assert_int_equal(res[DOCTOR_NOFILE].state, DOCTOR_MISSING);
	assert_string_equal(res[DOCTOR_NOFILE].detail,
			    "an emu-node opens about 2984 connections and needs 3000 open files, "
			    "the hard limit is 2256; ulimit -Hn 3000");
	assert_int_equal(res[DOCTOR_MEMORY].state, DOCTOR_OK);
}

/* Probing a feature needs its namespace, veths, and what its probe stands on. */
static void test_wanted(void **state)
{
	bool want[DOCTOR_FEATS];
	struct doctor_needs n;
	int f;

	(void)state;
	memset(&n, 0, sizeof(n));
	n.f[DOCTOR_MIRRED].field = "topology.ocs";
	doctor_wanted(&n, false, want);
	assert_true(want[DOCTOR_MIRRED] && want[DOCTOR_INGRESS]);
	assert_true(want[DOCTOR_VETH] && want[DOCTOR_NETNS]);
	assert_false(want[DOCTOR_NETEM] || want[DOCTOR_MQ] || want[DOCTOR_MEMORY]);
	assert_false(want[DOCTOR_NFT] || want[DOCTOR_URING]);

	memset(&n, 0, sizeof(n));
	n.f[DOCTOR_U32].field = "shaping.ack_priority";
	doctor_wanted(&n, false, want);
	assert_true(want[DOCTOR_HTB]); /* the u32 probe is htb's ACK filter */

	memset(&n, 0, sizeof(n));
	n.f[DOCTOR_URING].field = "workload";
	doctor_wanted(&n, false, want);
	assert_true(want[DOCTOR_NETNS]);
	assert_false(want[DOCTOR_VETH]);

	doctor_wanted(&n, true, want);
	for (f = 0; f < DOCTOR_FEATS; f++)
		assert_true(want[f]);
}

/* A sweep's variants: every feature any needs, the largest counts. */
static void test_merge(void **state)
{
	struct doctor_needs a, b;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.f[DOCTOR_HTB].field = "shaping.qdisc";
	a.namespaces = 10;
	a.conns = 3;
	b.f[DOCTOR_HTB].field = "other";
	b.f[DOCTOR_NETEM].field = "topology.delay";
	b.namespaces = 5;
	b.conns = 60;
	doctor_needs_merge(&a, &b);
	assert_string_equal(a.f[DOCTOR_HTB].field, "shaping.qdisc");
	assert_string_equal(a.f[DOCTOR_NETEM].field, "topology.delay");
	assert_int_equal(a.namespaces, 10);
	assert_int_equal(a.conns, 60);
}

/* A feature whose probe could not run is not called missing; mq is never needed. */
static void test_untried_and_info(void **state)
{
	struct doctor_result res[DOCTOR_FEATS];
	struct doctor_needs n;

	(void)state;
	doctor_needs_core(&n);
	t_found(res, DOCTOR_MQ, -1);
	doctor_say(&res[DOCTOR_URING], DOCTOR_UNTRIED, "not probed: cannot run emu-node");
	assert_false(doctor_blocks(&n, res, DOCTOR_URING));
	t_line(&n, res, DOCTOR_URING, "-", "not probed: cannot run emu-node");
	assert_false(doctor_blocks(&n, res, DOCTOR_MQ));
	t_line(&n, res, DOCTOR_MQ, "missing", "informational: the testbed does not use it");
	assert_string_equal(doctor_feat_name(DOCTOR_URING), "io_uring");
}

/* The nftables probe's switch has an ECMP group that hashes, or sprays. */
static void test_nft_world(void **state)
{
	struct doctor_nft_world w;
	struct diag d = {0};
	const struct route_node *rn;

	(void)state;
	assert_int_equal(doctor_nft_world_init(&w, false, &d), 0);
	rn = &w.plan.nodes.v[w.node];
	assert_true(rn->group_n > 0);
	assert_int_equal(w.plan.groups.v[rn->group_off].nh_n, 2);
	assert_false(w.plan.groups.v[rn->group_off].spray);
	doctor_nft_world_done(&w);
	assert_int_equal(doctor_nft_world_init(&w, true, &d), 0);
	rn = &w.plan.nodes.v[w.node];
	assert_true(w.plan.groups.v[rn->group_off].spray);
	doctor_nft_world_done(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core),	  cmocka_unit_test(test_delay),
		cmocka_unit_test(test_shaping),	  cmocka_unit_test(test_spray),
		cmocka_unit_test(test_ocs),	  cmocka_unit_test(test_workload),
		cmocka_unit_test(test_nofile),	  cmocka_unit_test(test_wanted),
		cmocka_unit_test(test_merge),	  cmocka_unit_test(test_untried_and_info),
		cmocka_unit_test(test_nft_world),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
