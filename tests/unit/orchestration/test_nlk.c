// SPDX-License-Identifier: MIT
/* Netlink request builders: build each request, parse it back, compare (libnftnl's method). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <linux/fib_rules.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <linux/if_ether.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/route/tc.h>

#include "kernel/nlk_build.h"
#include "model/addr.h"

static struct nlmsghdr *t_hdr(struct nl_msg *m)
{
	return nlmsg_hdr(m);
}

static void test_veth(void **state)
{
	struct nlk_veth v = {"s0", "l0", 7, 3, 11, 12, 9000, 0, NULL, NULL};
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1], *data[VETH_INFO_MAX + 1];
	struct nlattr *ptb[IFLA_MAX + 1];
	struct ifinfomsg *ifi, *pifi;
	struct nl_msg *m = NULL;
	struct nlmsghdr *h;

	(void)state;
	assert_int_equal(nlk_build_veth(&v, &m), 0);
	h = t_hdr(m);
	assert_int_equal(h->nlmsg_type, RTM_NEWLINK);
	assert_true(h->nlmsg_flags & NLM_F_CREATE);
	assert_true(h->nlmsg_flags & NLM_F_EXCL);
	ifi = nlmsg_data(h);
	assert_int_equal(ifi->ifi_index, 7);
	assert_false(ifi->ifi_flags & IFF_UP);
	assert_int_equal(nlmsg_parse(h, sizeof(*ifi), tb, IFLA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[IFLA_IFNAME]), "s0");
	assert_int_equal(nla_get_u32(tb[IFLA_NET_NS_FD]), 11);
	assert_int_equal(nla_get_u32(tb[IFLA_MTU]), 9000);
	assert_int_equal(nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL), 0);
	assert_string_equal(nla_get_string(li[IFLA_INFO_KIND]), "veth");
	assert_int_equal(nla_parse_nested(data, VETH_INFO_MAX, li[IFLA_INFO_DATA], NULL), 0);
	assert_non_null(data[VETH_INFO_PEER]);
	pifi = nla_data(data[VETH_INFO_PEER]);
	assert_int_equal(pifi->ifi_index, 3);
	assert_false(pifi->ifi_flags & IFF_UP);
	assert_int_equal(nla_parse(ptb, IFLA_MAX,
				   (struct nlattr *)((char *)pifi + NLMSG_ALIGN(sizeof(*pifi))),
				   nla_len(data[VETH_INFO_PEER]) - (int)NLMSG_ALIGN(sizeof(*pifi)),
				   NULL),
			 0);
	assert_string_equal(nla_get_string(ptb[IFLA_IFNAME]), "l0");
	assert_int_equal(nla_get_u32(ptb[IFLA_NET_NS_FD]), 12);
	assert_int_equal(nla_get_u32(ptb[IFLA_MTU]), 9000); /* both ends */
	nlmsg_free(m);
	m = NULL;
	v.mtu = 0; /* the kernel's default: no IFLA_MTU at all */
	assert_int_equal(nlk_build_veth(&v, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*ifi), tb, IFLA_MAX, NULL), 0);
	assert_null(tb[IFLA_MTU]);
	assert_null(tb[IFLA_NUM_TX_QUEUES]); /* nor a queue count */
	nlmsg_free(m);
	m = NULL;
	v.txqueues = 2; /* what mq needs (testbed doctor) */
	assert_int_equal(nlk_build_veth(&v, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*ifi), tb, IFLA_MAX, NULL), 0);
	assert_int_equal(nla_get_u32(tb[IFLA_NUM_TX_QUEUES]), 2);
	assert_null(tb[IFLA_ADDRESS]); /* no MAC given: the kernel's random one */
	nlmsg_free(m);
}

/* Each end with the Ethernet address it was given (model/addr.h addr_mac). */
static void test_veth_mac(void **state)
{
	uint8_t ma[6], mz[6];
	struct nlk_veth v = {"s0", "l0", 7, 3, 11, 12, 0, 0, ma, mz};
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1], *data[VETH_INFO_MAX + 1];
	struct nlattr *ptb[IFLA_MAX + 1];
	struct ifinfomsg *ifi, *pifi;
	struct nl_msg *m = NULL;

	(void)state;
	addr_mac(0x01020304u, ma);
	addr_mac(0x01020305u, mz);
	assert_int_equal(ma[0] & 3, 2); /* locally administered, unicast */
	assert_memory_equal(ma + 2, "\x01\x02\x03\x04", 4);
	assert_memory_not_equal(ma, mz, 6);
	assert_int_equal(nlk_build_veth(&v, &m), 0);
	ifi = nlmsg_data(t_hdr(m));
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*ifi), tb, IFLA_MAX, NULL), 0);
	assert_int_equal(nla_len(tb[IFLA_ADDRESS]), 6);
	assert_memory_equal(nla_data(tb[IFLA_ADDRESS]), ma, 6);
	assert_int_equal(nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL), 0);
	assert_int_equal(nla_parse_nested(data, VETH_INFO_MAX, li[IFLA_INFO_DATA], NULL), 0);
	pifi = nla_data(data[VETH_INFO_PEER]);
	assert_int_equal(nla_parse(ptb, IFLA_MAX,
				   (struct nlattr *)((char *)pifi + NLMSG_ALIGN(sizeof(*pifi))),
				   nla_len(data[VETH_INFO_PEER]) - (int)NLMSG_ALIGN(sizeof(*pifi)),
				   NULL),
			 0);
	assert_memory_equal(nla_data(ptb[IFLA_ADDRESS]), mz, 6);
	nlmsg_free(m);
}

static void test_link_up(void **state)
{
	struct nlattr *tb[IFLA_MAX + 1];
	struct nl_msg *m = NULL;
	struct ifinfomsg *ifi;

	(void)state;
	assert_int_equal(nlk_build_link_up(1, 0, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWLINK);
	assert_false(t_hdr(m)->nlmsg_flags & NLM_F_CREATE);
	ifi = nlmsg_data(t_hdr(m));
	assert_int_equal(ifi->ifi_index, 1);
	assert_true(ifi->ifi_flags & ifi->ifi_change & IFF_UP);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*ifi), tb, IFLA_MAX, NULL), 0);
	assert_null(tb[IFLA_GSO_MAX_SEGS]);
	nlmsg_free(m);
	m = NULL;
	assert_int_equal(nlk_build_link_up(4, 8, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*ifi), tb, IFLA_MAX, NULL), 0);
	assert_int_equal(nla_get_u32(tb[IFLA_GSO_MAX_SEGS]), 8);
	nlmsg_free(m);
}

static void test_addr(void **state)
{
	struct nlattr *tb[IFA_MAX + 1];
	struct nl_msg *m = NULL;
	struct ifaddrmsg *ifa;
	uint32_t a;

	(void)state;
	assert_int_equal(nlk_build_addr(5, 0xc6130002u, 31, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWADDR);
	ifa = nlmsg_data(t_hdr(m));
	assert_int_equal(ifa->ifa_index, 5);
	assert_int_equal(ifa->ifa_prefixlen, 31);
	assert_int_equal(ifa->ifa_family, AF_INET);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*ifa), tb, IFA_MAX, NULL), 0);
	memcpy(&a, nla_data(tb[IFA_LOCAL]), 4);
	assert_int_equal(ntohl(a), 0xc6130002u);
	nlmsg_free(m);
}

static void test_route_single(void **state)
{
	struct nlk_nexthop nh = {4, 0xc6130001u, false};
	struct nlk_route rt = {254, 0xc6120000u, 28, 0xc6120005u, &nh, 1, 0};
	struct nlattr *tb[RTA_MAX + 1];
	struct nl_msg *m = NULL;
	struct rtmsg *rtm;
	uint32_t a;

	(void)state;
	assert_int_equal(nlk_build_route(&rt, &m), 0);
	rtm = nlmsg_data(t_hdr(m));
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWROUTE);
	assert_int_equal(rtm->rtm_dst_len, 28);
	assert_int_equal(rtm->rtm_type, RTN_UNICAST);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*rtm), tb, RTA_MAX, NULL), 0);
	memcpy(&a, nla_data(tb[RTA_DST]), 4);
	assert_int_equal(ntohl(a), 0xc6120000u);
	memcpy(&a, nla_data(tb[RTA_PREFSRC]), 4);
	assert_int_equal(ntohl(a), 0xc6120005u);
	memcpy(&a, nla_data(tb[RTA_GATEWAY]), 4);
	assert_int_equal(ntohl(a), 0xc6130001u);
	assert_int_equal(nla_get_u32(tb[RTA_OIF]), 4);
	assert_null(tb[RTA_METRICS]); /* no rto_min: the kernel's */
	nlmsg_free(m);
}

/* rto_min as `ip route ... rto_min 3356ms` sends it: RTAX_RTO_MIN in ms, locked (tcp_rto_min
 * reads a route's value only when it is). */
static void test_route_rto_min(void **state)
{
	struct nlk_nexthop nh = {4, 0xc6130001u, false};
	struct nlk_route rt = {254, 0xc6120000u, 28, 0, &nh, 1, 3356};
	struct nlattr *tb[RTA_MAX + 1], *mx[RTAX_MAX + 1];
	struct nl_msg *m = NULL;

	(void)state;
	assert_int_equal(nlk_build_route(&rt, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(struct rtmsg), tb, RTA_MAX, NULL), 0);
	assert_non_null(tb[RTA_METRICS]);
	assert_int_equal(nla_parse_nested(mx, RTAX_MAX, tb[RTA_METRICS], NULL), 0);
	assert_int_equal(nla_get_u32(mx[RTAX_RTO_MIN]), 3356);
	assert_int_equal(nla_get_u32(mx[RTAX_LOCK]), 1u << RTAX_RTO_MIN);
	nlmsg_free(m);
}

static void test_route_multipath_table(void **state)
{
	struct nlk_nexthop nh[3] = {
		{4, 0x0a000001u, false}, {5, 0x0a000003u, false}, {6, 0x0a000005u, false}};
	struct nlk_route rt = {1100, 0, 0, 0, nh, 3, 0};
	struct nlattr *tb[RTA_MAX + 1];
	struct rtnexthop *rtnh;
	struct nl_msg *m = NULL;
	int len, n = 0;

	(void)state;
	assert_int_equal(nlk_build_route(&rt, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(struct rtmsg), tb, RTA_MAX, NULL), 0);
	assert_int_equal(nla_get_u32(tb[RTA_TABLE]), 1100);
	assert_non_null(tb[RTA_MULTIPATH]);
	rtnh = nla_data(tb[RTA_MULTIPATH]);
	len = nla_len(tb[RTA_MULTIPATH]);
	while (RTNH_OK(rtnh, len)) {
		assert_int_equal(rtnh->rtnh_ifindex, nh[n].ifindex);
		n++;
		len -= NLMSG_ALIGN(rtnh->rtnh_len);
		rtnh = RTNH_NEXT(rtnh);
	}
	assert_int_equal(n, 3);
	nlmsg_free(m);
}

static void test_rule(void **state)
{
	struct nlattr *tb[FRA_MAX + 1];
	struct nl_msg *m = NULL;
	struct fib_rule_hdr *frh;

	(void)state;
	assert_int_equal(nlk_build_rule(1003, 103, 103, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWRULE);
	frh = nlmsg_data(t_hdr(m));
	assert_int_equal(frh->action, FR_ACT_TO_TBL);
	assert_int_equal(frh->family, AF_INET);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*frh), tb, FRA_MAX, NULL), 0);
	assert_int_equal(nla_get_u32(tb[FRA_PRIORITY]), 1003);
	assert_int_equal(nla_get_u32(tb[FRA_FWMARK]), 103);
	assert_int_equal(nla_get_u32(tb[FRA_FWMASK]), 0xffffffffu);
	assert_int_equal(tb[FRA_TABLE] ? nla_get_u32(tb[FRA_TABLE]) : frh->table, 103);
	nlmsg_free(m);
}

static void test_tbf(void **state)
{
	struct shape_params sp = {
		.kind = SHAPE_TBF, .rate_bps = 100000000ULL, .burst = 12500, .limit = 200000};
	struct nlattr *tb[TCA_MAX + 1], *opt[TCA_TBF_MAX + 1];
	struct tc_tbf_qopt *q;
	struct nl_msg *m = NULL;
	struct tcmsg *tcm;

	(void)state;
	assert_int_equal(nlk_build_tbf(3, &sp, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWQDISC);
	tcm = nlmsg_data(t_hdr(m));
	assert_int_equal(tcm->tcm_ifindex, 3);
	assert_int_equal(tcm->tcm_parent, TC_H_ROOT);
	assert_int_equal(tcm->tcm_handle, TC_HANDLE(1, 0));
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "tbf");
	assert_int_equal(nla_parse_nested(opt, TCA_TBF_MAX, tb[TCA_OPTIONS], NULL), 0);
	q = nla_data(opt[TCA_TBF_PARMS]);
	assert_int_equal(q->rate.rate, 12500000);
	assert_int_equal(q->limit, 200000);
	assert_true(q->buffer > 0);
	nlmsg_free(m);
}

static void test_htb(void **state)
{
	struct nlk_htb_class c = {
		TC_HANDLE(1, 1), TC_HANDLE(1, 0x10), 100000000ULL, 1000000000ULL, 125000, 0, 0};
	struct nlattr *tb[TCA_MAX + 1], *opt[TCA_HTB_MAX + 1];
	struct tc_htb_glob *glob;
	struct tc_htb_opt *hopt;
	struct nl_msg *m = NULL;
	struct tcmsg *tcm;

	(void)state;
	assert_int_equal(nlk_build_htb_qdisc(2, 0x20, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_int_equal(nla_parse_nested(opt, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL), 0);
	glob = nla_data(opt[TCA_HTB_INIT]);
	assert_int_equal(glob->defcls, TC_HANDLE(1, 0x20));
	nlmsg_free(m);
	m = NULL;
	assert_int_equal(nlk_build_htb_class(2, &c, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWTCLASS);
	tcm = nlmsg_data(t_hdr(m));
	assert_int_equal(tcm->tcm_handle, TC_HANDLE(1, 0x10));
	assert_int_equal(tcm->tcm_parent, TC_HANDLE(1, 1));
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_int_equal(nla_parse_nested(opt, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL), 0);
	hopt = nla_data(opt[TCA_HTB_PARMS]);
	assert_int_equal(hopt->rate.rate, 12500000);
	assert_int_equal(hopt->ceil.rate, 125000000);
	assert_int_equal(hopt->prio, 0);
	assert_int_equal(hopt->quantum, SHAPE_FRAME); /* quantum 0: a frame at MTU 1500 */
	assert_true(hopt->buffer > 0 && hopt->cbuffer > 0); /* ticks at rate and at ceil */
	nlmsg_free(m);
	m = NULL;
	c.quantum = 9014; /* one frame at MTU 9000 */
	assert_int_equal(nlk_build_htb_class(2, &c, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_int_equal(nla_parse_nested(opt, TCA_HTB_MAX, tb[TCA_OPTIONS], NULL), 0);
	assert_int_equal(((struct tc_htb_opt *)nla_data(opt[TCA_HTB_PARMS]))->quantum, 9014);
	nlmsg_free(m);
	m = NULL;
	assert_int_equal(nlk_build_bfifo(2, TC_HANDLE(1, 0x20), TC_HANDLE(0x20, 0), 500000, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "bfifo");
	assert_int_equal(((struct tc_fifo_qopt *)nla_data(tb[TCA_OPTIONS]))->limit, 500000);
	nlmsg_free(m);
}

/* The ACK filter: u32 on the root, IPv4, total length < 128 -> the ACK class. */
static void test_u32_short(void **state)
{
	struct nlattr *tb[TCA_MAX + 1], *opt[TCA_U32_MAX + 1];
	struct tc_u32_sel *sel;
	struct nl_msg *m = NULL;
	struct tcmsg *tcm;

	(void)state;
	assert_int_equal(nlk_build_u32_short(3, 128, TC_HANDLE(1, 0x10), &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWTFILTER);
	tcm = nlmsg_data(t_hdr(m));
	assert_int_equal(tcm->tcm_parent, TC_HANDLE(1, 0));
	assert_int_equal(TC_H_MIN(tcm->tcm_info), htons(ETH_P_IP));
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "u32");
	assert_int_equal(nla_parse_nested(opt, TCA_U32_MAX, tb[TCA_OPTIONS], NULL), 0);
	assert_int_equal(nla_get_u32(opt[TCA_U32_CLASSID]), TC_HANDLE(1, 0x10));
	sel = nla_data(opt[TCA_U32_SEL]);
	assert_int_equal(sel->nkeys, 1);
	assert_true(sel->flags & TC_U32_TERMINAL);
	/* a 32-bit key at offset 0 whose upper half is the total length, masked to >= 128 */
	assert_int_equal(sel->keys[0].off, 0);
	assert_int_equal(ntohl(sel->keys[0].mask), 0x0000ff80u);
	assert_int_equal(sel->keys[0].val, 0);
	nlmsg_free(m);
}

static void test_netem(void **state)
{
	struct nlattr *tb[TCA_MAX + 1];
	struct tc_netem_qopt *q;
	struct nl_msg *m = NULL;

	(void)state;
	assert_int_equal(nlk_build_netem(4, TC_HANDLE(1, 1), TC_HANDLE(10, 0), 5000000, 1000, &m),
			 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(struct tcmsg), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "netem");
	q = nla_data(tb[TCA_OPTIONS]);
	assert_int_equal(q->limit, 1000);
	assert_true(q->latency > 0);
	nlmsg_free(m);
}

/* A pfifo counts packets; a plain qdisc (mq) goes at the root with no options. */
static void test_pfifo_plain(void **state)
{
	struct nlattr *tb[TCA_MAX + 1];
	struct tc_fifo_qopt *q;
	struct nl_msg *m = NULL;
	struct tcmsg *tcm;

	(void)state;
	assert_int_equal(nlk_build_pfifo(4, TC_H_ROOT, TC_HANDLE(1, 0), 100, &m), 0);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(struct tcmsg), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "pfifo");
	q = nla_data(tb[TCA_OPTIONS]);
	assert_int_equal(q->limit, 100);
	nlmsg_free(m);
	m = NULL;
	assert_int_equal(nlk_build_qdisc(5, "mq", &m), 0);
	assert_true(t_hdr(m)->nlmsg_flags & NLM_F_EXCL);
	tcm = nlmsg_data(t_hdr(m));
	assert_int_equal(tcm->tcm_ifindex, 5);
	assert_int_equal(tcm->tcm_parent, TC_H_ROOT);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(struct tcmsg), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "mq");
	assert_null(tb[TCA_OPTIONS]);
	nlmsg_free(m);
}

/* The in-flight ratio of scenarios/hxmesh-a2a.yaml's busiest direction (testbed check): 59
 * connections with one channel, 811 with 16, a rank sending to 32 of its 63 peers at once, 8
 * KiB windows over a 500 KiB queue. */
static void test_shape_inflight(void **state)
{
	(void)state;
	assert_true(fabs(shape_inflight(59, 32.0 / 63, 8192, 512000) - 0.4796) < 1e-3);
	assert_true(fabs(shape_inflight(811, 32.0 / 63, 8192, 512000) - 6.591) < 1e-3);
	assert_true(shape_inflight(811, 32.0 / 63, 8192, 512000) > SHAPE_INFLIGHT_MAX);
	assert_true(shape_inflight(59, 32.0 / 63, 8192, 512000) <= SHAPE_INFLIGHT_MAX);
	assert_true(shape_inflight(10, 1, 8192, 0) > SHAPE_INFLIGHT_MAX); /* no queue */
	assert_true(shape_inflight(0, 1, 8192, 512000) == 0);
	/* hxmesh-a2a's 1, 4 and 16 connections per pair: 0.48, 1.77, 6.59 */
	assert_int_equal(shape_inflight_level(0.48), SHAPE_INFLIGHT_HELD);
	assert_int_equal(shape_inflight_level(1.0), SHAPE_INFLIGHT_HELD);
	assert_int_equal(shape_inflight_level(1.77), SHAPE_INFLIGHT_DROPS);
	assert_int_equal(shape_inflight_level(SHAPE_INFLIGHT_MAX), SHAPE_INFLIGHT_DROPS);
	assert_int_equal(shape_inflight_level(6.59), SHAPE_INFLIGHT_OVER);
	assert_int_equal(shape_inflight_level(INFINITY), SHAPE_INFLIGHT_OVER); /* no queue */
}

static void test_shape_derive(void **state)
{
	struct scn_shaping cfg = {.qdisc = SCN_QDISC_TBF};
	struct shape_params sp;
	struct diag d = {0};

	(void)state;
	assert_int_equal(shape_derive(100000000ULL, 0, &cfg, &sp, &d), 0);
	assert_int_equal(sp.kind, SHAPE_TBF);
	assert_int_equal(sp.burst, 50000); /* 4 ms at 100 Mbit/s */
	assert_int_equal(sp.limit, SHAPE_QUEUE_FRAMES * SHAPE_FRAME); /* the floor */
	assert_int_equal(shape_derive(1000000000ULL, 0, &cfg, &sp, &d), 0);
	assert_int_equal(sp.burst, 500000); /* 4 ms at 1 Gbit/s */
	assert_int_equal(sp.limit, 125000); /* 1 ms */
	assert_int_equal(shape_derive(1000000000ULL, 5000000, &cfg, &sp, &d), 0);
	assert_int_equal(sp.limit, 125000 + 1250000); /* plus the delay's BDP, both ways */
	assert_int_equal(shape_derive(10000000ULL, 0, &cfg, &sp, &d), 0);
	assert_int_equal(sp.burst, 2 * SHAPE_GSO_SEGS * SHAPE_FRAME); /* tbf's floor */
	assert_int_equal(shape_derive(0, 0, &cfg, &sp, &d), 0);
	assert_int_equal(sp.kind, SHAPE_NONE);
	assert_int_equal(shape_derive(20000000000ULL, 0, &cfg, &sp, &d), -ERANGE);
	assert_non_null(strstr(d.msg, "rate_scale"));
	cfg.qdisc = SCN_QDISC_HTB;
	cfg.burst_bytes = 30000;
	assert_int_equal(shape_derive(1000000000ULL, 0, &cfg, &sp, NULL), 0);
	assert_int_equal(sp.kind, SHAPE_HTB);
	assert_int_equal(sp.burst, 30000);
	assert_int_equal(sp.frame, SHAPE_FRAME); /* mtu 0 stands for 1500 */
}

/* shaping.mtu: every frame-counted floor follows the frame size, the 1 ms parts do not. */
static void test_shape_mtu(void **state)
{
	struct scn_shaping cfg = {.qdisc = SCN_QDISC_TBF, .mtu = 9000};
	struct shape_params sp;

	(void)state;
	assert_int_equal(shape_frame(&cfg), 9014);
	assert_int_equal(shape_derive(100000000ULL, 0, &cfg, &sp, NULL), 0);
	assert_int_equal(sp.frame, 9014);
	assert_int_equal(sp.burst, 2 * SHAPE_GSO_SEGS * 9014); /* two GSO packets of 9014, > 4 ms */
	assert_int_equal(sp.limit, SHAPE_QUEUE_FRAMES * 9014);
	assert_int_equal(shape_derive(10000000000ULL, 0, &cfg, &sp, NULL), 0);
	assert_int_equal(sp.burst, 5000000); /* 4 ms at 10 Gbit/s, above the floor */
	assert_int_equal(sp.limit, 1250000);
	cfg.mtu = 1500;
	assert_int_equal(shape_derive(100000000ULL, 0, &cfg, &sp, NULL), 0);
	assert_int_equal(sp.limit, SHAPE_QUEUE_FRAMES * SHAPE_FRAME); /* as without the field */
	assert_int_equal(sp.burst, 50000);
	cfg.qdisc = SCN_QDISC_HTB; /* htb: 4 ms, at least four frames */
	assert_int_equal(shape_derive(100000000ULL, 0, &cfg, &sp, NULL), 0);
	assert_int_equal(sp.burst, 50000);
	assert_int_equal(shape_derive(1000000ULL, 0, &cfg, &sp, NULL), 0);
	assert_int_equal(sp.burst, 4 * SHAPE_FRAME); /* 500 bytes: the floor */
	cfg.qdisc = SCN_QDISC_TBF;
	assert_int_equal(shape_gso_segs(&cfg), SHAPE_GSO_SEGS); /* counted in frames */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_veth),
		cmocka_unit_test(test_veth_mac),
		cmocka_unit_test(test_link_up),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_route_single),
		cmocka_unit_test(test_route_rto_min),
		cmocka_unit_test(test_route_multipath_table),
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_tbf),
		cmocka_unit_test(test_htb),
		cmocka_unit_test(test_u32_short),
		cmocka_unit_test(test_netem),
		cmocka_unit_test(test_pfifo_plain),
		cmocka_unit_test(test_shape_derive),
		cmocka_unit_test(test_shape_inflight),
		cmocka_unit_test(test_shape_mtu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
