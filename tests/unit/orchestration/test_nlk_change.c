// SPDX-License-Identifier: MIT
/* Run-time change requests (kernel/nlk_change.h): build each, parse it back, compare. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include <linux/fib_rules.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/neighbour.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/route/tc.h>

#include "kernel/nlk_change.h"

static struct nlmsghdr *t_hdr(struct nl_msg *m)
{
	return nlmsg_hdr(m);
}

static uint32_t t_addr(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, nla_data(a), 4);
	return ntohl(v);
}

static void test_route_set_replaces(void **state)
{
	struct nlk_nexthop nh[2] = {{4, 0xc6130001u, true}, {5, 0xc6130003u, true}};
	struct nlk_route rt = {254, 0xc6120000u, 28, 0, nh, 2, 0};
	struct nlattr *tb[RTA_MAX + 1];
	struct rtnexthop *rtnh;
	struct nl_msg *m = NULL;
	int len, n = 0;

	(void)state;
	assert_int_equal(nlk_build_route_set(&rt, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWROUTE);
	assert_true(t_hdr(m)->nlmsg_flags & NLM_F_REPLACE);
	assert_true(t_hdr(m)->nlmsg_flags & NLM_F_CREATE);
	assert_false(t_hdr(m)->nlmsg_flags & NLM_F_EXCL);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(struct rtmsg), tb, RTA_MAX, NULL), 0);
	assert_int_equal(t_addr(tb[RTA_DST]), 0xc6120000u);
	rtnh = nla_data(tb[RTA_MULTIPATH]);
	len = nla_len(tb[RTA_MULTIPATH]);
	for (; RTNH_OK(rtnh, len); len -= NLMSG_ALIGN(rtnh->rtnh_len), rtnh = RTNH_NEXT(rtnh)) {
		/* gateways off the port's subnet: the kernel needs onlink (model/ocs.h) */
		assert_true(rtnh->rtnh_flags & RTNH_F_ONLINK);
		assert_int_equal(rtnh->rtnh_ifindex, nh[n++].ifindex);
	}
	assert_int_equal(n, 2);
	nlmsg_free(m);
}

static void test_route_del(void **state)
{
	struct nlk_route rt = {103, 0xc6120010u, 29, 0, NULL, 0, 0};
	struct nlattr *tb[RTA_MAX + 1];
	struct nl_msg *m = NULL;
	struct rtmsg *rtm;

	(void)state;
	assert_int_equal(nlk_build_route_del(&rt, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_DELROUTE);
	rtm = nlmsg_data(t_hdr(m));
	assert_int_equal(rtm->rtm_family, AF_INET);
	assert_int_equal(rtm->rtm_dst_len, 29);
	assert_int_equal(rtm->rtm_scope, RT_SCOPE_NOWHERE);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*rtm), tb, RTA_MAX, NULL), 0);
	assert_int_equal(t_addr(tb[RTA_DST]), 0xc6120010u);
	assert_int_equal(tb[RTA_TABLE] ? nla_get_u32(tb[RTA_TABLE]) : rtm->rtm_table, 103);
	assert_null(tb[RTA_GATEWAY]);
	nlmsg_free(m);
}

static void test_rule_del(void **state)
{
	struct nlattr *tb[FRA_MAX + 1];
	struct fib_rule_hdr *frh;
	struct nl_msg *m = NULL;

	(void)state;
	assert_int_equal(nlk_build_rule_del(1003, 103, 103, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_DELRULE);
	frh = nlmsg_data(t_hdr(m));
	assert_int_equal(frh->family, AF_INET);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*frh), tb, FRA_MAX, NULL), 0);
	assert_int_equal(nla_get_u32(tb[FRA_PRIORITY]), 1003);
	assert_int_equal(nla_get_u32(tb[FRA_FWMARK]), 103);
	assert_int_equal(tb[FRA_TABLE] ? nla_get_u32(tb[FRA_TABLE]) : frh->table, 103);
	nlmsg_free(m);
}

static void test_neigh_del(void **state)
{
	struct nlattr *tb[NDA_MAX + 1];
	struct nl_msg *m = NULL;
	struct ndmsg *nd;

	(void)state;
	assert_int_equal(nlk_build_neigh_del(6, 0xc6130007u, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_DELNEIGH);
	nd = nlmsg_data(t_hdr(m));
	assert_int_equal(nd->ndm_ifindex, 6);
	assert_int_equal(nd->ndm_family, AF_INET);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*nd), tb, NDA_MAX, NULL), 0);
	assert_int_equal(t_addr(tb[NDA_DST]), 0xc6130007u);
	nlmsg_free(m);
}

static void test_neigh_add(void **state)
{
	const uint8_t mac[6] = {0x02, 0x74, 0, 0, 0x06, 0xc2};
	struct nlattr *tb[NDA_MAX + 1];
	struct nl_msg *m = NULL;
	struct ndmsg *nd;

	(void)state;
	assert_int_equal(nlk_build_neigh_add(4, 0xc61306c2u, mac, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWNEIGH);
	/* replaces what is there: a repaired link's entry is added again */
	assert_true(t_hdr(m)->nlmsg_flags & NLM_F_CREATE);
	assert_true(t_hdr(m)->nlmsg_flags & NLM_F_REPLACE);
	nd = nlmsg_data(t_hdr(m));
	assert_int_equal(nd->ndm_ifindex, 4);
	assert_int_equal(nd->ndm_family, AF_INET);
	assert_int_equal(nd->ndm_state, NUD_PERMANENT);
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*nd), tb, NDA_MAX, NULL), 0);
	assert_int_equal(t_addr(tb[NDA_DST]), 0xc61306c2u);
	assert_int_equal(nla_len(tb[NDA_LLADDR]), 6);
	assert_memory_equal(nla_data(tb[NDA_LLADDR]), mac, 6);
	nlmsg_free(m);
}

static void test_link_state(void **state)
{
	struct nl_msg *m = NULL;
	struct ifinfomsg *ifi;

	(void)state;
	assert_int_equal(nlk_build_link_state(3, false, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWLINK);
	assert_false(t_hdr(m)->nlmsg_flags & NLM_F_CREATE);
	ifi = nlmsg_data(t_hdr(m));
	assert_int_equal(ifi->ifi_index, 3);
	assert_true(ifi->ifi_change & IFF_UP);
	assert_false(ifi->ifi_flags & IFF_UP);
	nlmsg_free(m);
	m = NULL;
	assert_int_equal(nlk_build_link_state(3, true, &m), 0);
	ifi = nlmsg_data(t_hdr(m));
	assert_true(ifi->ifi_flags & ifi->ifi_change & IFF_UP);
	nlmsg_free(m);
}

static void test_ingress(void **state)
{
	struct nlattr *tb[TCA_MAX + 1];
	struct nl_msg *m = NULL;
	struct tcmsg *tcm;

	(void)state;
	assert_int_equal(nlk_build_ingress(4, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWQDISC);
	tcm = nlmsg_data(t_hdr(m));
	assert_int_equal(tcm->tcm_ifindex, 4);
	assert_int_equal(tcm->tcm_parent, TC_H_INGRESS);
	assert_int_equal(tcm->tcm_handle, TC_HANDLE(0xffffU, 0));
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "ingress");
	nlmsg_free(m);
}

/* The action list of a u32 filter: its first action's kind and mirred parameters. */
static void t_mirred(struct nlattr *acts, struct tc_mirred *out)
{
	struct nlattr *list[TCA_ACT_MAX_PRIO + 1], *act[TCA_ACT_MAX + 1], *opt[TCA_MIRRED_MAX + 1];

	assert_int_equal(nla_parse_nested(list, TCA_ACT_MAX_PRIO, acts, NULL), 0);
	assert_non_null(list[1]);
	assert_null(list[2]);
	assert_int_equal(nla_parse_nested(act, TCA_ACT_MAX, list[1], NULL), 0);
	assert_string_equal(nla_get_string(act[TCA_ACT_KIND]), "mirred");
	assert_int_equal(nla_parse_nested(opt, TCA_MIRRED_MAX, act[TCA_ACT_OPTIONS], NULL), 0);
	memcpy(out, nla_data(opt[TCA_MIRRED_PARMS]), sizeof(*out));
}

static void test_circuit(void **state)
{
	struct nlattr *tb[TCA_MAX + 1], *opt[TCA_U32_MAX + 1];
	struct tc_u32_sel *sel;
	struct tc_mirred mir;
	struct nl_msg *m = NULL;
	struct tcmsg *tcm;

	(void)state;
	assert_int_equal(nlk_build_circuit(2, 7, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_NEWTFILTER);
	tcm = nlmsg_data(t_hdr(m));
	assert_int_equal(tcm->tcm_ifindex, 2);
	assert_int_equal(tcm->tcm_parent, TC_HANDLE(0xffffU, 0));
	assert_int_equal(TC_H_MAJ(tcm->tcm_info) >> 16, NLK_CIRCUIT_PRIO);
	assert_int_equal(TC_H_MIN(tcm->tcm_info), htons(ETH_P_ALL));
	assert_int_equal(nlmsg_parse(t_hdr(m), sizeof(*tcm), tb, TCA_MAX, NULL), 0);
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "u32");
	assert_int_equal(nla_parse_nested(opt, TCA_U32_MAX, tb[TCA_OPTIONS], NULL), 0);
	sel = nla_data(opt[TCA_U32_SEL]);
	assert_int_equal(sel->nkeys, 1); /* match u32 0 0: every frame */
	assert_int_equal(sel->keys[0].mask, 0);
	assert_int_equal(sel->keys[0].val, 0);
	assert_true(sel->flags & TC_U32_TERMINAL);
	t_mirred(opt[TCA_U32_ACT], &mir);
	assert_int_equal(mir.eaction, TCA_EGRESS_REDIR);
	assert_int_equal(mir.action, TC_ACT_STOLEN);
	assert_int_equal(mir.ifindex, 7);
	nlmsg_free(m);
	m = NULL;
	assert_int_equal(nlk_build_circuit_del(2, &m), 0);
	assert_int_equal(t_hdr(m)->nlmsg_type, RTM_DELTFILTER);
	tcm = nlmsg_data(t_hdr(m));
	assert_int_equal(tcm->tcm_parent, TC_HANDLE(0xffffU, 0));
	assert_int_equal(TC_H_MAJ(tcm->tcm_info) >> 16, NLK_CIRCUIT_PRIO);
	nlmsg_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_set_replaces),
		cmocka_unit_test(test_route_del),
		cmocka_unit_test(test_rule_del),
		cmocka_unit_test(test_neigh_del),
		cmocka_unit_test(test_neigh_add),
		cmocka_unit_test(test_link_state),
		cmocka_unit_test(test_ingress),
		cmocka_unit_test(test_circuit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
