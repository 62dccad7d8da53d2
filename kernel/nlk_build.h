/* SPDX-License-Identifier: MIT */
/* rtnetlink request builders: one request per kernel object, built with libnl-route-3 into a
 * new nl_msg the caller frees (nlmsg_free). No I/O: unit-tested by parsing the message back. */
#ifndef ORCH_NLK_BUILD_H
#define ORCH_NLK_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/shape.h"

struct nl_msg;

struct nlk_veth {
	const char *name, *peer;
	int ifindex, peer_ifindex; /* chosen indexes: the namespaces are ours and fresh */
	int nsfd, peer_nsfd; /* namespace of each end */
	uint32_t mtu; /* of both ends, 0 = the kernel's default (1500) */
	uint32_t txqueues; /* of the first end, 0 = the kernel's default (1) */
	const uint8_t *mac, *peer_mac; /* 6 bytes each, NULL = the kernel's random one */
};

struct nlk_nexthop {
	int ifindex;
	uint32_t gw; /* host byte order */
	bool onlink; /* gw is not on the port's subnet (ports toward an OCS, model/ocs.h) */
};

struct nlk_route {
	uint32_t table;
	uint32_t dst; /* host byte order */
	uint8_t plen;
	uint32_t src; /* preferred source, 0 for none */
	const struct nlk_nexthop *nh;
	int nh_n;
	uint32_t rto_min_ms; /* locked RTAX_RTO_MIN (`rto_min`), 0 for none */
};

/* A veth pair (down), each end directly in its namespace with its index and MTU. */
int nlk_build_veth(const struct nlk_veth *v, struct nl_msg **out);
/* Brings an existing link (e.g. lo, index 1) up; a non-zero gso_max_segs also caps the
 * frames per GSO packet it sends. */
int nlk_build_link_up(int ifindex, uint32_t gso_max_segs, struct nl_msg **out);
/* Adds addr/plen (host byte order) to a link. */
int nlk_build_addr(int ifindex, uint32_t addr, uint8_t plen, struct nl_msg **out);
/* Adds a unicast route with one or more gateways (and rto_min, as iproute2 sets it: locked,
 * which TCP needs before it reads the metric). */
int nlk_build_route(const struct nlk_route *rt, struct nl_msg **out);
/* Adds `fwmark mark lookup table` at priority prio. */
int nlk_build_rule(uint32_t prio, uint32_t mark, uint32_t table, struct nl_msg **out);
/* Deletes that rule. */
int nlk_build_rule_del(uint32_t prio, uint32_t mark, uint32_t table, struct nl_msg **out);

/* Root tbf (handle 1:) for sp. */
int nlk_build_tbf(int ifindex, const struct shape_params *sp, struct nl_msg **out);
/* Root htb, handle 1:, unclassified packets to class 1:defcls. */
int nlk_build_htb_qdisc(int ifindex, uint32_t defcls, struct nl_msg **out);

/* An htb class. */
struct nlk_htb_class {
	uint32_t parent, classid; /* full handles */
	uint64_t rate_bps, ceil_bps;
	uint32_t burst; /* bytes, for rate and ceil */
	uint32_t prio; /* 0 is served first */
	uint32_t quantum; /* bytes a class may send per round, at least a frame; 0 = SHAPE_FRAME */
};
int nlk_build_htb_class(int ifindex, const struct nlk_htb_class *c, struct nl_msg **out);

/* A u32 filter on the root (1:) sending IPv4 packets shorter than max_len bytes (a power of
 * two) to classid: "match ip total length < max_len". */
int nlk_build_u32_short(int ifindex, uint32_t max_len, uint32_t classid, struct nl_msg **out);
int nlk_build_bfifo(int ifindex, uint32_t parent, uint32_t handle, uint32_t limit,
		    struct nl_msg **out);
/* The same counting packets. */
int nlk_build_pfifo(int ifindex, uint32_t parent, uint32_t handle, uint32_t limit,
		    struct nl_msg **out);
/* A root qdisc of kind (mq) with the kernel's defaults: no options. */
int nlk_build_qdisc(int ifindex, const char *kind, struct nl_msg **out);
/* netem delay under parent (TC_H_ROOT for none) with handle, queue limit in packets. */
int nlk_build_netem(int ifindex, uint32_t parent, uint32_t handle, uint64_t delay_ns,
		    uint32_t limit_pkts, struct nl_msg **out);

#endif
