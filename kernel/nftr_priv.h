/* SPDX-License-Identifier: MIT */
/* What the nftr_*.c files share: names of a group's sets, member marks, message framing. */
#ifndef ORCHESTRATOR_NFTR_PRIV_H
#define ORCHESTRATOR_NFTR_PRIV_H

#include <stdint.h>

#include "kernel/nftr.h"

struct nlmsghdr;

#define NFTR_NAME_MAX 32

/* nft's datatype numbers (nftables include/datatype.h), so `nft list ruleset` can print
 * the sets the kernel holds */
enum nftr_type {
	NFTR_TYPE_IPADDR = 7,
	NFTR_TYPE_MARK = 19,
	NFTR_TYPE_IFINDEX = 20,
	NFTR_TYPE_DSCP = 36,
};

/* nft's byte orders (enum byteorder), kept in a set's user data so nft prints keys right */
enum nftr_order {
	NFTR_ORDER_HOST = 1,
	NFTR_ORDER_BIG = 2,
};

/* The map of group gid holding what (NFTR_HASH, NFTR_TAG): "g0_hash". */
enum nftr_set_kind {
	NFTR_HASH,
	NFTR_TAG,
};

void nftr_set_name(char *buf, size_t len, uint32_t gid, enum nftr_set_kind kind);

/* The two hooks: their base chain, the verdict map from destination to group chain, and the
 * group chains' suffix. */
enum nftr_hook {
	NFTR_PRE,
	NFTR_OUT,
};

const char *nftr_hook_chain(enum nftr_hook h); /* "prerouting", "output" */
const char *nftr_hook_map(enum nftr_hook h); /* "dst_pre", "dst_out" */
/* Group gid's chain for hook h: "g0_pre", "g0_out". */
void nftr_group_chain(char *buf, size_t len, uint32_t gid, enum nftr_hook h);

/* The mark (= routing table) that sends a packet out of member i of group g. */
uint32_t nftr_member_mark(const struct topo *t, const struct route_plan *plan,
			  const struct route_group *g, uint32_t i);

/* How many DSCP tags group g maps: min(nh_n, ROUTE_TAG_MAX). */
uint32_t nftr_tag_count(const struct route_group *g);

/* Starts message type (an NFT_MSG_*) in b's current slot with seq *seq (then incremented),
 * flagged NLM_F_ACK plus flags. */
struct nlmsghdr *nftr_msg_start(struct mnl_nlmsg_batch *b, uint32_t *seq, uint16_t type,
				uint16_t flags);

/* Closes the message started last: 0, or -EMSGSIZE when it ran past the batch's limit. */
int nftr_msg_end(struct mnl_nlmsg_batch *b);

/* Appends the rules of node n (base and group chains). Returns the message count or -errno. */
int nftr_rules_build(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct route_plan *plan,
		     uint32_t node);

#endif
