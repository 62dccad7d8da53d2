// SPDX-License-Identifier: MIT
/* The sampler's netlink messages (orchestrator/sample_msg.c): requests parsed back, and
 * replies made here as the kernel makes them (qdiscs with TCA_STATS2, interfaces' 64-bit
 * counters, a dump's end, an error) read into counters, several to a buffer. And the CPU
 * shares from /proc/stat text (collect/cpu.c). */
#include <errno.h>
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
#include "orchestrator/sample_msg.h"

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

static size_t t_stats(char *buf, uint32_t seq, uint32_t ifindex)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(buf);
	struct if_stats_msg *s = mnl_nlmsg_put_extra_header(h, sizeof(*s));
	struct rtnl_link_stats64 st = {.tx_bytes = 5000000000ULL, .tx_packets = 9, .tx_dropped = 3};

	h->nlmsg_type = RTM_NEWSTATS;
	h->nlmsg_seq = seq;
	s->ifindex = ifindex;
	mnl_attr_put(h, IFLA_STATS_LINK_64, sizeof(st), &st);
	return NLMSG_ALIGN(h->nlmsg_len);
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
	assert_int_equal(col_cpu_share(&a, &a, 1, &c), -EAGAIN);
	assert_int_equal(col_cpu_parse("cpu0 1 2 3 4 5\n", &a), -EINVAL);
	assert_int_equal(col_cpu_parse("cpu  1 2 3\n", &a), -EINVAL); /* no iowait */
	assert_int_equal(col_cpu_parse("cpu  1 2 3 4 5\n", &a), 0); /* an old kernel */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_replies),
		cmocka_unit_test(test_error_and_other),
		cmocka_unit_test(test_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
