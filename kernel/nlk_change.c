// SPDX-License-Identifier: MIT
/* rtnetlink request builders for run-time changes (see nlk_change.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/fib_rules.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_act/tc_mirred.h>

#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/route/act/mirred.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/link.h>
#include <netlink/route/neighbour.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/route.h>

#include "kernel/nlk_change.h"
#include "kernel/nlk_int.h"

int nlk_build_route_set(const struct nlk_route *rt, struct nl_msg **out)
{
	int r = nlk_build_route(rt, out);

	/* the same request as at `up`, but replacing what is there (or creating it) */
	if (!r)
		nlmsg_hdr(*out)->nlmsg_flags =
			(uint16_t)((nlmsg_hdr(*out)->nlmsg_flags & ~NLM_F_EXCL) | NLM_F_REPLACE);
	return r;
}

int nlk_build_route_del(const struct nlk_route *in, struct nl_msg **out)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct nl_addr *dst = v4(in->dst, in->plen);
	int r = -ENOMEM;

	if (!rt || !dst)
		goto out;
	rtnl_route_set_family(rt, AF_INET);
	rtnl_route_set_table(rt, in->table);
	rtnl_route_set_scope(rt, RT_SCOPE_NOWHERE); /* any scope */
	r = nle(rtnl_route_set_dst(rt, dst));
	if (!r)
		r = nle(rtnl_route_build_del_request(rt, 0, out));
out:
	nl_addr_put(dst);
	rtnl_route_put(rt);
	return r;
}

int nlk_build_neigh_add(int ifindex, uint32_t addr, const uint8_t mac[6], struct nl_msg **out)
{
	struct rtnl_neigh *n = rtnl_neigh_alloc();
	struct nl_addr *a = v4(addr, 32), *ll = nl_addr_build(AF_LLC, mac, 6);
	int r = -ENOMEM;

	if (n && a && ll) {
		rtnl_neigh_set_ifindex(n, ifindex);
		rtnl_neigh_set_family(n, AF_INET);
		rtnl_neigh_set_state(n, NUD_PERMANENT);
		rtnl_neigh_set_lladdr(n, ll);
		r = nle(rtnl_neigh_set_dst(n, a));
		r = r ? r : nle(rtnl_neigh_build_add_request(n, NLM_F_CREATE | NLM_F_REPLACE, out));
	}
	nl_addr_put(ll);
	nl_addr_put(a);
	rtnl_neigh_put(n);
	return r;
}

int nlk_build_neigh_del(int ifindex, uint32_t addr, struct nl_msg **out)
{
	struct rtnl_neigh *n = rtnl_neigh_alloc();
	struct nl_addr *a = v4(addr, 32);
	int r = -ENOMEM;

	if (n && a) {
		rtnl_neigh_set_ifindex(n, ifindex);
		rtnl_neigh_set_family(n, AF_INET);
		r = nle(rtnl_neigh_set_dst(n, a));
		r = r ? r : nle(rtnl_neigh_build_delete_request(n, 0, out));
	}
	nl_addr_put(a);
	rtnl_neigh_put(n);
	return r;
}

int nlk_build_link_state(int ifindex, bool up, struct nl_msg **out)
{
	struct rtnl_link *l = rtnl_link_alloc();
	int r;

	if (!l)
		return -ENOMEM;
	rtnl_link_set_ifindex(l, ifindex);
	if (up)
		rtnl_link_set_flags(l, IFF_UP);
	else
		rtnl_link_unset_flags(l, IFF_UP);
	r = nle(rtnl_link_build_add_request(l, 0, out));
	rtnl_link_put(l);
	return r;
}

int nlk_build_ingress(int ifindex, struct nl_msg **out)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	int r;

	if (!q)
		return -ENOMEM;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_INGRESS);
	rtnl_tc_set_handle(TC_CAST(q), TC_HANDLE(0xffffU, 0));
	r = nle(rtnl_tc_set_kind(TC_CAST(q), "ingress"));
	r = r ? r : nle(rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_EXCL, out));
	rtnl_qdisc_put(q);
	return r;
}

static struct rtnl_cls *circuit_cls(int ifindex)
{
	struct rtnl_cls *c = rtnl_cls_alloc();

	if (!c)
		return NULL;
	rtnl_tc_set_ifindex(TC_CAST(c), ifindex);
	rtnl_tc_set_parent(TC_CAST(c), TC_HANDLE(0xffffU, 0));
	rtnl_cls_set_prio(c, NLK_CIRCUIT_PRIO);
	rtnl_cls_set_protocol(c, ETH_P_ALL);
	if (rtnl_tc_set_kind(TC_CAST(c), "u32")) {
		rtnl_cls_put(c);
		return NULL;
	}
	return c;
}

int nlk_build_circuit(int ifindex, int to_ifindex, struct nl_msg **out)
{
	struct rtnl_cls *c = circuit_cls(ifindex);
	struct rtnl_act *a = rtnl_act_alloc();
	int r = c && a ? 0 : -ENOMEM;

	r = r ? r : nle(rtnl_tc_set_kind(TC_CAST(a), "mirred"));
	r = r ? r : nle(rtnl_mirred_set_action(a, TCA_EGRESS_REDIR));
	r = r ? r : nle(rtnl_mirred_set_policy(a, TC_ACT_STOLEN));
	r = r ? r : nle(rtnl_mirred_set_ifindex(a, (uint32_t)to_ifindex));
	/* match u32 0 0 at 0: every frame */
	r = r ? r : nle(rtnl_u32_add_key_uint32(c, 0, 0, 0, 0));
	r = r ? r : nle(rtnl_u32_set_cls_terminal(c));
	r = r ? r : nle(rtnl_u32_add_action(c, a));
	if (!r)
		r = nle(rtnl_cls_build_add_request(c, NLM_F_CREATE | NLM_F_EXCL, out));
	rtnl_act_put(a);
	rtnl_cls_put(c);
	return r;
}

int nlk_build_circuit_del(int ifindex, struct nl_msg **out)
{
	struct rtnl_cls *c = circuit_cls(ifindex);
	int r;

	if (!c)
		return -ENOMEM;
	r = nle(rtnl_cls_build_delete_request(c, 0, out));
	rtnl_cls_put(c);
	return r;
}
