/* SPDX-License-Identifier: MIT */
/* The nftables effector (one mechanism under every routing policy, which only picks tags): one
 * node's ECMP hash and DSCP path-tag ruleset as libnftnl messages appended to a caller's
 * batch, the batch sent atomically inside the node's namespace, and the same ruleset
 * rendered in nft syntax. Builders and the renderer are pure; only nftr_batch_send does I/O.
 *
 * Per ECMP group gN of the node, table `ip testbed` holds map gN_hash (member index -> mark)
 * and map gN_tag (DSCP tag k -> mark of member k-1), plus set `edge` (ifindexes of the node's
 * edge ports). Chain `prerouting` (filter, mangle) marks forwarded packets, chain `output`
 * (route, mangle) locally generated ones: each looks the destination up once, in verdict map
 * dst_pre or dst_out (every group's prefixes, which are disjoint -> goto gN_pre or gN_out),
 * and the group's chain picks a member by the jhash over saddr . daddr . protocol . sport .
 * dport (a spraying group: `numgen random`, per packet); then a DSCP tag, if it came in on an
 * edge port or from the node itself, overrides it. One lookup per packet rather than one per
 * group: on the HammingMesh all-to-all, whose accelerators have four groups, the set lookups
 * took a tenth of the machine's CPU. */
#ifndef ORCHESTRATOR_NFTR_H
#define ORCHESTRATOR_NFTR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/topo.h"
#include "policy/route.h"

struct mnl_nlmsg_batch;
struct mnl_socket;

#define NFTR_TABLE "testbed"
#define NFTR_CHAIN_PRE "prerouting"
#define NFTR_CHAIN_OUT "output"
#define NFTR_SET_EDGE "edge"
#define NFTR_PRIO_MANGLE (-150)
#define NFTR_HASH_LEN 20 /* five 32-bit registers: saddr, daddr, protocol, sport, dport */
#define NFTR_ELEMS_PER_MSG 64 /* set elements per NEWSETELEM message */
#define NFTR_MSG_MAX 4096 /* no single message built here is longer */

/* How to size a batch: start it with mnl_nlmsg_batch_start(buf, limit) over a buffer of at
 * least limit + NFTR_MSG_MAX bytes, since mnl writes a message before checking the limit.
 * A builder that runs past the limit returns -EMSGSIZE; start again with a larger one. */

/* Appends a batch-begin message with sequence number *seq, then increments *seq.
 * 0 or -EMSGSIZE. */
int nftr_batch_begin(struct mnl_nlmsg_batch *b, uint32_t *seq);

/* Appends a batch-end message with sequence number *seq, then increments *seq. */
int nftr_batch_end(struct mnl_nlmsg_batch *b, uint32_t *seq);

/* Appends the messages that (re)create node n's ruleset from the plan, replacing any table
 * of that name atomically; each message takes the next *seq. Appends nothing when the node
 * has no ECMP group. Returns the number of messages appended, or -ENOMEM, -EMSGSIZE. */
int nftr_node_build(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct topo *t,
		    const struct route_plan *plan, uint32_t node);

/* Appends messages that remove the table if it exists (and succeed if it does not).
 * Returns the number of messages appended, or -EMSGSIZE. */
int nftr_node_clear(struct mnl_nlmsg_batch *b, uint32_t *seq);

/* Sends batch b, begin message seq0 through end message seq_end, on nl (a NETLINK_NETFILTER
 * socket bound inside the node's namespace; borrowed), and reads one ack per message in
 * between. 0, or the first failing message's -errno with the kernel's extack text and the
 * object it was about in d. */
int nftr_batch_send(struct mnl_socket *nl, struct mnl_nlmsg_batch *b, uint32_t seq0,
		    uint32_t seq_end, struct diag *d);

/* An mnl netfilter socket bound inside namespace nsfd (the thread returns to root_fd), or NULL
 * with -errno in *err. */
struct mnl_socket *nftr_socket_in(int nsfd, int root_fd, int *err);

/* Builds node n's ruleset into a batch of whatever size it needs and sends it on nl (a
 * NETLINK_NETFILTER socket inside n's namespace). 0, or -errno with d saying what failed. */
int nftr_node_install(struct mnl_socket *nl, const struct topo *t, const struct route_plan *plan,
		      uint32_t node, struct diag *d);

/* Renders node n's ruleset as `nft list ruleset` prints it into buf (always NUL-terminated
 * when size > 0). Returns the length the full text needs, as snprintf does (0 when the node
 * has no group), or -EINVAL when the text would pass INT_MAX. */
int nftr_node_render(char *buf, size_t size, const struct topo *t, const struct route_plan *plan,
		     uint32_t node);

#endif
