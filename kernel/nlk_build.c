// SPDX-License-Identifier: MIT
/* rtnetlink request builders on libnl-route-3 (see nlk_build.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <linux/fib_rules.h>
#include <linux/if_ether.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <netlink/attr.h>
#include <netlink/errno.h>
#include <netlink/route/addr.h>
#include <netlink/route/class.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/u32.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/fifo.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>

#include "kernel/nlk_build.h"
#include "kernel/nlk_int.h"

static int veth_end(struct rtnl_link *l, const char *name, int ifindex, int nsfd, uint32_t mtu,
		    const uint8_t *mac)
{
	struct nl_addr *a = mac ? nl_addr_build(AF_LLC, mac, ETH_ALEN) : NULL;

	rtnl_link_set_name(l, name);
	rtnl_link_set_ifindex(l, ifindex);
	rtnl_link_set_ns_fd(l, nsfd);
	if (mtu)
		rtnl_link_set_mtu(l, mtu);
	if (a)
		rtnl_link_set_addr(l, a);
	nl_addr_put(a);
	return mac && !a ? -ENOMEM : 0;
}

/* Both ends start down: the veth driver cannot open the peer before the pair is linked
 * (veth_open returns -ENOTCONN), so links are brought up afterwards, per namespace. */
int nlk_build_veth(const struct nlk_veth *v, struct nl_msg **out)
{
	struct rtnl_link *l = rtnl_link_veth_alloc(), *p;
	int r;

	if (!l)
		return -ENOMEM;
	p = rtnl_link_veth_get_peer(l);
	r = veth_end(l, v->name, v->ifindex, v->nsfd, v->mtu, v->mac);
	r = r ? r : veth_end(p, v->peer, v->peer_ifindex, v->peer_nsfd, v->mtu, v->peer_mac);
	if (v->txqueues)
		rtnl_link_set_num_tx_queues(l, v->txqueues);
	r = r ? r : nle(rtnl_link_build_add_request(l, NLM_F_CREATE | NLM_F_EXCL, out));
	rtnl_link_put(p);
	rtnl_link_veth_release(l);
	return r;
}

int nlk_build_link_up(int ifindex, uint32_t gso_max_segs, struct nl_msg **out)
{
	struct rtnl_link *l = rtnl_link_alloc();
	int r;

	if (!l)
		return -ENOMEM;
	rtnl_link_set_ifindex(l, ifindex);
	rtnl_link_set_flags(l, IFF_UP);
	/* RTM_NEWLINK without NLM_F_CREATE changes the existing link */
	r = nle(rtnl_link_build_add_request(l, 0, out));
	rtnl_link_put(l);
	/* libnl reads IFLA_GSO_MAX_SEGS but cannot set it */
	if (!r && gso_max_segs && nla_put_u32(*out, IFLA_GSO_MAX_SEGS, gso_max_segs)) {
		nlmsg_free(*out);
		*out = NULL;
		r = -ENOMEM;
	}
	return r;
}

int nlk_build_addr(int ifindex, uint32_t addr, uint8_t plen, struct nl_msg **out)
{
	struct rtnl_addr *a = rtnl_addr_alloc();
	struct nl_addr *la = v4(addr, plen);
	int r = -ENOMEM;

	if (!a || !la)
		goto out;
	rtnl_addr_set_ifindex(a, ifindex);
	r = nle(rtnl_addr_set_local(a, la));
	rtnl_addr_set_prefixlen(a, plen);
	if (!r)
		r = nle(rtnl_addr_build_add_request(a, NLM_F_CREATE | NLM_F_EXCL, out));
out:
	nl_addr_put(la);
	rtnl_addr_put(a);
	return r;
}

static int route_nexthops(struct rtnl_route *rt, const struct nlk_route *in)
{
	int i;

	for (i = 0; i < in->nh_n; i++) {
		struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
		struct nl_addr *gw = v4(in->nh[i].gw, 32);

		if (!nh || !gw) {
			rtnl_route_nh_free(nh);
			nl_addr_put(gw);
			return -ENOMEM;
		}
		rtnl_route_nh_set_ifindex(nh, in->nh[i].ifindex);
		rtnl_route_nh_set_gateway(nh, gw);
		if (in->nh[i].onlink)
			rtnl_route_nh_set_flags(nh, RTNH_F_ONLINK);
		nl_addr_put(gw);
		rtnl_route_add_nexthop(rt, nh);
	}
	return 0;
}

/* tcp_rto_min() takes the route's value only if the metric is locked. */
static int route_rto_min(struct rtnl_route *rt, uint32_t ms)
{
	int r = nle(rtnl_route_set_metric(rt, RTAX_RTO_MIN, ms));

	return r ? r : nle(rtnl_route_set_metric(rt, RTAX_LOCK, 1u << RTAX_RTO_MIN));
}

int nlk_build_route(const struct nlk_route *in, struct nl_msg **out)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct nl_addr *dst = v4(in->dst, in->plen), *src = NULL;
	int r = -ENOMEM;

	if (!rt || !dst || (in->src && !(src = v4(in->src, 32))))
		goto out;
	rtnl_route_set_family(rt, AF_INET);
	rtnl_route_set_table(rt, in->table);
	rtnl_route_set_protocol(rt, RTPROT_STATIC);
	rtnl_route_set_scope(rt, RT_SCOPE_UNIVERSE);
	rtnl_route_set_type(rt, RTN_UNICAST);
	r = nle(rtnl_route_set_dst(rt, dst));
	if (!r && src)
		r = nle(rtnl_route_set_pref_src(rt, src));
	if (!r)
		r = route_nexthops(rt, in);
	if (!r && in->rto_min_ms)
		r = route_rto_min(rt, in->rto_min_ms);
	if (!r)
		r = nle(rtnl_route_build_add_request(rt, NLM_F_CREATE | NLM_F_EXCL, out));
out:
	nl_addr_put(dst);
	nl_addr_put(src);
	rtnl_route_put(rt);
	return r;
}

/* `fwmark mark lookup table` at priority prio: its add or delete request. */
static int rule_msg(uint32_t prio, uint32_t mark, uint32_t table, bool add, struct nl_msg **out)
{
	struct rtnl_rule *ru = rtnl_rule_alloc();
	int r;

	if (!ru)
		return -ENOMEM;
	rtnl_rule_set_family(ru, AF_INET);
	rtnl_rule_set_prio(ru, prio);
	rtnl_rule_set_mark(ru, mark);
	rtnl_rule_set_mask(ru, 0xffffffffu);
	rtnl_rule_set_table(ru, table);
	rtnl_rule_set_action(ru, FR_ACT_TO_TBL);
	r = nle(add ? rtnl_rule_build_add_request(ru, NLM_F_CREATE | NLM_F_EXCL, out)
		    : rtnl_rule_build_delete_request(ru, 0, out));
	rtnl_rule_put(ru);
	return r;
}

int nlk_build_rule(uint32_t prio, uint32_t mark, uint32_t table, struct nl_msg **out)
{
	return rule_msg(prio, mark, table, true, out);
}

int nlk_build_rule_del(uint32_t prio, uint32_t mark, uint32_t table, struct nl_msg **out)
{
	return rule_msg(prio, mark, table, false, out);
}

static struct rtnl_qdisc *qdisc_new(int ifindex, uint32_t parent, uint32_t handle, const char *kind)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();

	if (!q)
		return NULL;
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), parent);
	rtnl_tc_set_handle(TC_CAST(q), handle);
	if (rtnl_tc_set_kind(TC_CAST(q), kind)) {
		rtnl_qdisc_put(q);
		return NULL;
	}
	return q;
}

static int qdisc_finish(struct rtnl_qdisc *q, struct nl_msg **out)
{
	int r = nle(rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_EXCL, out));

	rtnl_qdisc_put(q);
	return r;
}

int nlk_build_tbf(int ifindex, const struct shape_params *sp, struct nl_msg **out)
{
	struct rtnl_qdisc *q = qdisc_new(ifindex, TC_H_ROOT, TC_HANDLE(1, 0), "tbf");

	if (!q)
		return -ENOMEM;
	rtnl_qdisc_tbf_set_limit(q, (int)sp->limit);
	rtnl_qdisc_tbf_set_rate(q, (int)(sp->rate_bps / 8), (int)sp->burst, 0);
	return qdisc_finish(q, out);
}

int nlk_build_htb_qdisc(int ifindex, uint32_t defcls, struct nl_msg **out)
{
	struct rtnl_qdisc *q = qdisc_new(ifindex, TC_H_ROOT, TC_HANDLE(1, 0), "htb");
	int r;

	if (!q)
		return -ENOMEM;
	r = nle(rtnl_htb_set_defcls(q, TC_HANDLE(1, defcls)));
	if (r) {
		rtnl_qdisc_put(q);
		return r;
	}
	return qdisc_finish(q, out);
}

int nlk_build_htb_class(int ifindex, const struct nlk_htb_class *in, struct nl_msg **out)
{
	struct rtnl_class *c = rtnl_class_alloc();
	int r = -ENOMEM;

	if (!c)
		return r;
	rtnl_tc_set_ifindex(TC_CAST(c), ifindex);
	rtnl_tc_set_parent(TC_CAST(c), in->parent);
	rtnl_tc_set_handle(TC_CAST(c), in->classid);
	r = nle(rtnl_tc_set_kind(TC_CAST(c), "htb"));
	r = r ? r : nle(rtnl_htb_set_rate64(c, in->rate_bps / 8));
	r = r ? r : nle(rtnl_htb_set_ceil64(c, in->ceil_bps / 8));
	r = r ? r : nle(rtnl_htb_set_rbuffer(c, in->burst));
	r = r ? r : nle(rtnl_htb_set_cbuffer(c, in->burst));
	r = r ? r : nle(rtnl_htb_set_prio(c, in->prio));
	/* one frame per round: ACKs and data alternate finely when both wait */
	r = r ? r : nle(rtnl_htb_set_quantum(c, in->quantum ? in->quantum : SHAPE_FRAME));
	if (!r)
		r = nle(rtnl_class_build_add_request(c, NLM_F_CREATE | NLM_F_EXCL, out));
	rtnl_class_put(c);
	return r;
}

int nlk_build_u32_short(int ifindex, uint32_t max_len, uint32_t classid, struct nl_msg **out)
{
	struct rtnl_cls *c = rtnl_cls_alloc();
	int r;

	if (!c)
		return -ENOMEM;
	rtnl_tc_set_ifindex(TC_CAST(c), ifindex);
	rtnl_tc_set_parent(TC_CAST(c), TC_HANDLE(1, 0));
	rtnl_cls_set_prio(c, 1);
	rtnl_cls_set_protocol(c, ETH_P_IP);
	r = nle(rtnl_tc_set_kind(TC_CAST(c), "u32"));
	/* the IP header's total length (offset 2) has no bit at or above max_len set */
	r = r ? r : nle(rtnl_u32_add_key_uint16(c, 0, (uint16_t) ~(max_len - 1), 2, 0));
	r = r ? r : nle(rtnl_u32_set_classid(c, classid));
	r = r ? r : nle(rtnl_u32_set_cls_terminal(c));
	if (!r)
		r = nle(rtnl_cls_build_add_request(c, NLM_F_CREATE | NLM_F_EXCL, out));
	rtnl_cls_put(c);
	return r;
}

static int fifo(int ifindex, uint32_t parent, uint32_t handle, const char *kind, uint32_t limit,
		struct nl_msg **out)
{
	struct rtnl_qdisc *q = qdisc_new(ifindex, parent, handle, kind);

	if (!q)
		return -ENOMEM;
	if (rtnl_qdisc_fifo_set_limit(q, (int)limit)) {
		rtnl_qdisc_put(q);
		return -EINVAL;
	}
	return qdisc_finish(q, out);
}

int nlk_build_bfifo(int ifindex, uint32_t parent, uint32_t handle, uint32_t limit,
		    struct nl_msg **out)
{
	return fifo(ifindex, parent, handle, "bfifo", limit, out);
}

int nlk_build_pfifo(int ifindex, uint32_t parent, uint32_t handle, uint32_t limit,
		    struct nl_msg **out)
{
	return fifo(ifindex, parent, handle, "pfifo", limit, out);
}

int nlk_build_qdisc(int ifindex, const char *kind, struct nl_msg **out)
{
	struct rtnl_qdisc *q = qdisc_new(ifindex, TC_H_ROOT, TC_HANDLE(1, 0), kind);

	return q ? qdisc_finish(q, out) : -ENOMEM;
}

int nlk_build_netem(int ifindex, uint32_t parent, uint32_t handle, uint64_t delay_ns,
		    uint32_t limit_pkts, struct nl_msg **out)
{
	struct rtnl_qdisc *q = qdisc_new(ifindex, parent, handle, "netem");

	if (!q)
		return -ENOMEM;
	/* libnl takes the delay in microseconds */
	rtnl_netem_set_delay(q, (int)(delay_ns / 1000));
	rtnl_netem_set_limit(q, (int)limit_pkts);
	return qdisc_finish(q, out);
}
