// SPDX-License-Identifier: MIT
/* The sampler's netlink messages (sample/sample_msg.c): requests parsed back, and
 * replies made here as the kernel makes them (qdiscs with TCA_STATS2, interfaces' 64-bit
 * counters, a dump's end, an error) read into counters, several to a buffer. The sampler's
 * plan (sample/sample_plan.c): which namespaces are dumped and which directions read.
 * And the CPU shares from /proc/stat text (collect/cpu.c). */
#include <errno.h>
#include <math.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "collect/cpu.h"
#include "model/topo.h"
#include "sample/sample_msg.h"
#include "sample/sample_plan.h"

static void test_requests(void **state)
{
	char buf[128];
	const struct nlmsghdr *h = (const void *)buf;
	const struct tcmsg *tc;
	const struct if_stats_msg *st;
	size_t n;

	(void)state;
	assert_int_equal(sample_req_build(buf, 16, SAMPLE_QDISC, 2, 1), 0); /* does not fit */
	n = sample_req_build(buf, sizeof(buf), SAMPLE_QDISC, 5, 77);
	assert_int_equal(n, h->nlmsg_len);
	assert_int_equal(h->nlmsg_type, RTM_GETQDISC);
	assert_int_equal(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_ECHO);
	assert_int_equal(h->nlmsg_seq, 77);
	tc = mnl_nlmsg_get_payload(h);
	assert_int_equal(tc->tcm_ifindex, 5);
	assert_int_equal(tc->tcm_parent, TC_H_ROOT);
	assert_int_equal(tc->tcm_handle, 0);
	n = sample_req_build(buf, sizeof(buf), SAMPLE_LINK, 6, 78);
	assert_int_equal(h->nlmsg_type, RTM_GETSTATS);
	st = mnl_nlmsg_get_payload(h);
	assert_int_equal(st->ifindex, 6);
	assert_int_equal(st->filter_mask, IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64));
	assert_int_equal(n, mnl_nlmsg_size(sizeof(*st)));
}

static void test_dump_request(void **state)
{
	char buf[128];
	const struct nlmsghdr *h = (const void *)buf;
	const struct if_stats_msg *st;
	size_t n;

	(void)state;
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(sample_dump_build(buf, 20, 1), 0); /* does not fit */
	n = sample_dump_build(buf, sizeof(buf), 0x12345);
	st = mnl_nlmsg_get_payload(h);
	assert_int_equal(n, mnl_nlmsg_size(sizeof(*st)));
	assert_int_equal(h->nlmsg_len, n);
	assert_int_equal(h->nlmsg_type, RTM_GETSTATS);
	assert_int_equal(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(h->nlmsg_seq, 0x12345);
	assert_int_equal(st->family, AF_UNSPEC);
	assert_int_equal(st->ifindex, 0); /* every interface */
	assert_int_equal(st->pad1, 0);
	assert_int_equal(st->pad2, 0);
	assert_int_equal(st->filter_mask, IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64));
}

/* A qdisc message as tc_fill_qdisc writes it: kind, options, TCA_STATS2 with basic, 64-bit
 * packets and queue, and the old TCA_STATS. */
static size_t t_qdisc(char *buf, uint32_t seq, int ifindex, uint32_t parent, uint64_t bytes,
		      uint64_t pkts, uint32_t drops, uint32_t backlog)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct tcmsg *tc = mnl_nlmsg_put_extra_header(h, sizeof(*tc));
	struct gnet_stats_basic b = {.bytes = bytes, .packets = (uint32_t)pkts};
	struct gnet_stats_queue q = {.backlog = backlog, .drops = drops};
	struct tc_stats old = {.bytes = 1, .drops = 2};
	struct nlattr *nest;

	h->nlmsg_type = RTM_NEWQDISC;
	h->nlmsg_seq = seq;
	h->nlmsg_flags = NLM_F_MULTI;
	tc->tcm_ifindex = ifindex;
	tc->tcm_parent = parent;
	tc->tcm_handle = 0x10000;
	mnl_attr_put_strz(h, TCA_KIND, "htb");
	nest = mnl_attr_nest_start(h, TCA_STATS2);
	mnl_attr_put(h, TCA_STATS_BASIC, sizeof(b), &b);
	mnl_attr_put(h, TCA_STATS_QUEUE, sizeof(q), &q);
	mnl_attr_put_u64(h, TCA_STATS_PKT64, pkts);
	mnl_attr_nest_end(h, nest);
	mnl_attr_put(h, TCA_STATS, sizeof(old), &old);
	return NLMSG_ALIGN(h->nlmsg_len);
}

/* An interface's counters as rtnl_fill_statsinfo writes them, the struct len bytes long (an
 * older kernel's is shorter). */
static size_t t_stats_len(char *buf, uint32_t seq, uint32_t ifindex, size_t len)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct if_stats_msg *s = mnl_nlmsg_put_extra_header(h, sizeof(*s));
	struct rtnl_link_stats64 st = {.tx_bytes = 5000000000ULL,
				       .tx_packets = 9,
				       .tx_dropped = 3,
				       .rx_packets = 11,
				       .rx_dropped = 4,
				       .rx_bytes = 77};

	h->nlmsg_type = RTM_NEWSTATS;
	h->nlmsg_seq = seq;
	s->ifindex = ifindex;
	mnl_attr_put(h, IFLA_STATS_LINK_64, len, &st);
	return NLMSG_ALIGN(h->nlmsg_len);
}

static size_t t_stats(char *buf, uint32_t seq, uint32_t ifindex)
{
	return t_stats_len(buf, seq, ifindex, sizeof(struct rtnl_link_stats64));
}

static size_t t_end(char *buf, uint32_t seq, uint16_t type, int error)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	int *e = mnl_nlmsg_put_extra_header(h, type == NLMSG_ERROR ? sizeof(struct nlmsgerr) : 4);

	h->nlmsg_type = type;
	h->nlmsg_seq = seq;
	*e = error;
	return NLMSG_ALIGN(h->nlmsg_len);
}

static void test_replies(void **state)
{
	char buf[4096] __attribute__((aligned(8)));
	struct sample_reply r;
	size_t len = 0, off = 0, n;

	(void)state;
	memset(buf, 0, sizeof(buf));
	len += t_qdisc(buf + len, 9, 2, TC_H_ROOT, 1ULL << 40, 1ULL << 33, 7, 1514);
	len += t_qdisc(buf + len, 9, 2, 0x10020, 5, 6, 0, 0);
	len += t_stats(buf + len, 9, 3);
	len += t_end(buf + len, 9, NLMSG_DONE, 0);

	n = sample_reply_parse(buf + off, len - off, &r);
	assert_true(n > 0);
	assert_int_equal(r.type, SAMPLE_MSG_COUNTERS);
	assert_int_equal(r.kind, SAMPLE_QDISC);
	assert_int_equal(r.seq, 9);
	assert_int_equal(r.ifindex, 2);
	assert_int_equal(r.parent, TC_H_ROOT);
	assert_int_equal(r.bytes, 1ULL << 40);
	assert_int_equal(r.packets, 1ULL << 33); /* the 64-bit count, not the 32-bit one */
	assert_int_equal(r.drops, 7);
	assert_int_equal(r.backlog, 1514);
	off += n;
	n = sample_reply_parse(buf + off, len - off, &r);
	assert_int_equal(r.parent, 0x10020);
	off += n;
	n = sample_reply_parse(buf + off, len - off, &r);
	assert_int_equal(r.kind, SAMPLE_LINK);
	assert_int_equal(r.ifindex, 3);
	assert_int_equal(r.bytes, 5000000000ULL);
	assert_int_equal(r.packets, 9);
	assert_int_equal(r.drops, 3);
	assert_int_equal(r.rx_packets, 11);
	assert_int_equal(r.rx_drops, 4);
	off += n;
	n = sample_reply_parse(buf + off, len - off, &r);
	assert_int_equal(r.type, SAMPLE_MSG_DONE);
	off += n;
	assert_int_equal(off, len);
	assert_int_equal(sample_reply_parse(buf + off, len - off, &r), 0);
	assert_int_equal(sample_reply_parse(buf, 10, &r), 0); /* truncated */
}

static void test_error_and_other(void **state)
{
	char buf[256] __attribute__((aligned(8)));
	struct sample_reply r;
	struct nlmsghdr *h = (void *)buf;

	(void)state;
	memset(buf, 0, sizeof(buf));
	t_end(buf, 4, NLMSG_ERROR, -EPERM);
	assert_true(sample_reply_parse(buf, sizeof(buf), &r) > 0);
	assert_int_equal(r.type, SAMPLE_MSG_ERROR);
	assert_int_equal(r.error, -EPERM);
	t_end(buf, 4, NLMSG_ERROR, 0);
	sample_reply_parse(buf, sizeof(buf), &r);
	assert_int_equal(r.type, SAMPLE_MSG_OTHER); /* an ack */
	h->nlmsg_type = RTM_NEWLINK;
	sample_reply_parse(buf, sizeof(buf), &r);
	assert_int_equal(r.type, SAMPLE_MSG_OTHER);
}

/* A dump's reply: several interfaces in one buffer, then its end; an older kernel's shorter
 * counters still read, a truncated attribute does not. */
static void test_dump_reply(void **state)
{
	char buf[4096] __attribute__((aligned(8)));
	struct sample_reply r;
	size_t len = 0, off = 0, n;

	(void)state;
	memset(buf, 0, sizeof(buf));
	len += t_stats(buf + len, 5, 1);
	len += t_stats_len(buf + len, 5, 2, 184); /* before rx_otherhost_dropped */
	len += t_stats_len(buf + len, 5, 3, 40); /* cut inside the drops */
	len += t_end(buf + len, 5, NLMSG_DONE, 0);
	n = sample_reply_parse(buf + off, len - off, &r);
	assert_int_equal(r.ifindex, 1);
	assert_int_equal(r.rx_packets, 11);
	off += n;
	n = sample_reply_parse(buf + off, len - off, &r);
	assert_int_equal(r.type, SAMPLE_MSG_COUNTERS);
	assert_int_equal(r.kind, SAMPLE_LINK);
	assert_int_equal(r.ifindex, 2);
	assert_int_equal(r.seq, 5);
	assert_int_equal(r.packets, 9);
	assert_int_equal(r.drops, 3);
	assert_int_equal(r.rx_drops, 4);
	off += n;
	n = sample_reply_parse(buf + off, len - off, &r);
	assert_int_equal(r.ifindex, 3);
	assert_int_equal(r.packets, 0);
	assert_int_equal(r.rx_packets, 0);
	off += n;
	n = sample_reply_parse(buf + off, len - off, &r);
	assert_int_equal(r.type, SAMPLE_MSG_DONE);
	assert_int_equal(off + n, len);
}

static uint32_t t_node(struct topo *t, enum topo_kind k, enum topo_role role, const char *name,
		       uint32_t i)
{
	int n = topo_node_add(t, k, role, name, i);

	assert_true(n >= 0);
	return (uint32_t)n;
}

/* hosts h0 h1 on l0, h2 h3 on l1, both leaves on s0; numbered in that order */
static struct topo *t_leafspine(void)
{
	struct topo *t = topo_new();
	struct diag d = {0};
	uint32_t h[4], l[2], s0, i;
	char name[8];

	assert_non_null(t);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		h[i] = t_node(t, TOPO_ENDPOINT, TOPO_ROLE_HOST, name, i);
	}
	l[0] = t_node(t, TOPO_SWITCH, TOPO_ROLE_LEAF, "l0", 0);
	l[1] = t_node(t, TOPO_SWITCH, TOPO_ROLE_LEAF, "l1", 1);
	s0 = t_node(t, TOPO_SWITCH, TOPO_ROLE_SPINE, "s0", 0);
	for (i = 0; i < 4; i++)
		assert_true(topo_link_add(t, h[i], l[i / 2], 1000, 1000, TOPO_TIER_EDGE) >= 0);
	for (i = 0; i < 2; i++)
		assert_true(topo_link_add(t, l[i], s0, 1000, 1000, TOPO_TIER_FABRIC) >= 0);
	assert_int_equal(topo_finalize(t, &d), 0);
	return t;
}

/* Every link has a dumped end, and each direction is watched from one of them. */
static void t_covered(const struct topo *t, const bool *dump, const uint8_t *view)
{
	uint32_t p, n, peer;

	for (p = 0; p < t->ports.n; p++) {
		n = t->ports.v[p].node;
		peer = topo_port_peer_node(t, p);
		assert_true(dump[n] || dump[peer]);
		assert_int_equal(view[p], dump[n] ? SAMPLE_VIEW_OWN : SAMPLE_VIEW_PEER);
	}
}

static void test_plan_leafspine(void **state)
{
	struct topo *t = t_leafspine();
	bool dump[7];
	uint8_t view[12];
	uint32_t p;

	(void)state;
	assert_int_equal(t->ports.n, 12);
	/* the leaves watch everything: their hosts and the spine need no dump */
	assert_int_equal(sample_plan_watch(t, true, dump, view), 2);
	assert_false(dump[0] || dump[1] || dump[2] || dump[3] || dump[6]);
	assert_true(dump[4] && dump[5]);
	t_covered(t, dump, view);
	/* OCS: no peer views; every node with two ports or more watches its own */
	assert_int_equal(sample_plan_watch(t, false, dump, view), 3);
	assert_true(dump[4] && dump[5] && dump[6]);
	for (p = 0; p < t->ports.n; p++)
		assert_int_equal(view[p],
				 t->ports.v[p].node < 4 ? SAMPLE_VIEW_NONE : SAMPLE_VIEW_OWN);
	topo_free(t);
}

/* A direct network, a ring of five endpoints: no stubs, so the greedy cover alone. */
static void test_plan_ring(void **state)
{
	struct topo *t = topo_new();
	struct diag d = {0};
	bool dump[5];
	uint8_t view[10];
	uint32_t i, n;
	char name[8];

	(void)state;
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "a%u", i);
		t_node(t, TOPO_ENDPOINT, TOPO_ROLE_ACCEL, name, i);
	}
	for (i = 0; i < 5; i++)
		assert_true(topo_link_add(t, i, (i + 1) % 5, 1000, 1000, TOPO_TIER_DIRECT) >= 0);
	assert_int_equal(topo_finalize(t, &d), 0);
	n = sample_plan_watch(t, true, dump, view);
	assert_true(n >= 3 && n < 5); /* a cover of a 5-cycle needs 3 */
	t_covered(t, dump, view);
	topo_free(t);
}

static void test_plan_read(void **state)
{
	struct sample_dir_state idle = {.watched = true, .have_last = true}, s;

	(void)state;
	assert_false(sample_plan_read(&idle)); /* the one case its last reading holds */
	s = idle;
	s.watched = false; /* no dump saw it: no news */
	assert_true(sample_plan_read(&s));
	s = idle;
	s.moved = true;
	assert_true(sample_plan_read(&s));
	s = idle;
	s.have_last = false; /* never read, or the last read failed */
	assert_true(sample_plan_read(&s));
	s = idle;
	s.backlogged = true; /* a queue drains without a new frame */
	assert_true(sample_plan_read(&s));
	s = idle;
	s.refresh = true;
	assert_true(sample_plan_read(&s));
}

static void test_plan_tcp(void **state)
{
	(void)state;
	/* quiet since its last reading, read less than 10 s ago: its counters held */
	assert_false(sample_plan_tcp(false, false, 0));
	assert_false(sample_plan_tcp(false, false, SAMPLE_TCP_QUIET_NS - 1));
	assert_true(sample_plan_tcp(false, false, SAMPLE_TCP_QUIET_NS)); /* the periodic one */
	assert_true(sample_plan_tcp(false, true, 0)); /* a direction of it moved */
	assert_true(sample_plan_tcp(true, false, 0)); /* the run's first and last */
}

static void test_plan_rounds(void **state)
{
	uint32_t i, r, due;

	(void)state;
	for (i = 0; i < 25; i++) { /* each namespace once in SAMPLE_REFRESH_ROUNDS rounds */
		for (due = 0, r = 1; r <= SAMPLE_REFRESH_ROUNDS; r++)
			due += sample_plan_refresh(i, r);
		assert_int_equal(due, 1);
	}
	for (due = 0, i = 0; i < 100; i++) /* ... and spread over them */
		due += sample_plan_refresh(i, 7);
	assert_int_equal(due, 100 / SAMPLE_REFRESH_ROUNDS);
	assert_true(sample_plan_dump_next(true, 0, 100));
	assert_true(sample_plan_dump_next(true, 60, 100));
	assert_false(sample_plan_dump_next(true, 61, 100)); /* most are busy: read them all */
	assert_false(sample_plan_dump_next(false, 40, 100)); /* not back before it is quiet */
	assert_true(sample_plan_dump_next(false, 39, 100));
	assert_false(sample_plan_dump_next(true, 0, 0)); /* nothing to watch */
}

static void test_cpu(void **state)
{
	struct col_cpu_times a, b;
	struct rec_cpu c;

	(void)state;
	assert_int_equal(col_cpu_parse("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3\n", &a), 0);
	assert_int_equal(a.total, 1000);
	assert_int_equal(col_cpu_parse("cpu  200 0 100 850 100 0 50 0 40 0\n", &b), 0);
	assert_int_equal(b.total, 1300); /* guest (40) is in user already */
	assert_int_equal(col_cpu_share(&a, &b, 123, &c), 0);
	assert_int_equal(c.t, 123);
	assert_float_equal(c.busy, 1 - 100.0 / 300, 1e-12); /* idle + iowait: 50 + 50 of 300 */
	assert_float_equal(c.softirq, 50.0 / 300, 1e-12);
	assert_true(isnan(c.self)); /* neither reading knew the testbed's own time */
	a.self = 10;
	b.self = 40;
	assert_int_equal(col_cpu_share(&a, &b, 123, &c), 0);
	assert_float_equal(c.self, 30.0 / 300, 1e-12); /* its jiffies over all CPUs' */
	assert_int_equal(col_cpu_share(&a, &a, 1, &c), -EAGAIN);
	assert_int_equal(col_cpu_parse("cpu0 1 2 3 4 5\n", &a), -EINVAL);
	assert_int_equal(col_cpu_parse("cpu  1 2 3\n", &a), -EINVAL); /* no iowait */
	assert_int_equal(col_cpu_parse("cpu  1 2 3 4 5\n", &a), 0); /* an old kernel */
	assert_int_equal(a.backlog_drops, REC_NEVER);
}

/* /proc/net/softnet_stat as kernel 6.18 prints it on 2 CPUs (this machine, 2026-11-29):
 * processed, dropped, time_squeeze, ... in hex; the drops summed over the CPUs, and the
 * interval's drops in its cpu.csv record. */
static void test_softnet(void **state)
{
	const char *two = "0eb87762 00003b99 00000c11 00000000 00000000 00000000 00000000 "
			  "00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
			  "00000000\n"
			  "0eb7bed7 00002d19 00000bed 00000000 00000000 00000000 00000000 "
			  "00000000 00000000 00000000 00000000 00000000 00000001 00000000 "
			  "00000000\n";
	struct col_cpu_times a, b;
	struct rec_cpu c;
	int64_t v = -1;

	(void)state;
	assert_int_equal(col_softnet_parse(two, &v), 0);
	assert_int_equal(v, 0x3b99 + 0x2d19);
	assert_int_equal(col_softnet_parse("00000001 00000002\n", &v), 0); /* an old kernel */
	assert_int_equal(v, 2);
	assert_int_equal(col_softnet_parse("", &v), -EINVAL);
	assert_int_equal(col_softnet_parse("0000000a\n", &v), -EINVAL); /* no drops column */
	assert_int_equal(col_softnet_parse("0000000a 00000001", &v), -EINVAL); /* cut short */
	assert_int_equal(col_softnet_parse("cpu  1 2 3\n", &v), -EINVAL);
	assert_int_equal(col_cpu_parse("cpu  100 0 50 800 50 0 0 0 0 0\n", &a), 0);
	assert_int_equal(col_cpu_parse("cpu  200 0 100 850 100 0 50 0 40 0\n", &b), 0);
	a.backlog_drops = 100;
	b.backlog_drops = 130;
	assert_int_equal(col_cpu_share(&a, &b, 5, &c), 0);
	assert_int_equal(c.backlog_drops, 30);
	a.backlog_drops = REC_NEVER; /* a reading that failed leaves the interval unknown */
	assert_int_equal(col_cpu_share(&a, &b, 5, &c), 0);
	assert_int_equal(c.backlog_drops, REC_NEVER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_dump_request),
		cmocka_unit_test(test_replies),
		cmocka_unit_test(test_dump_reply),
		cmocka_unit_test(test_error_and_other),
		cmocka_unit_test(test_plan_leafspine), /* sample_plan.c */
		cmocka_unit_test(test_plan_ring),
		cmocka_unit_test(test_plan_read),
		cmocka_unit_test(test_plan_tcp),
		cmocka_unit_test(test_plan_rounds),
		cmocka_unit_test(test_cpu), /* collect/cpu.c */
		cmocka_unit_test(test_softnet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
