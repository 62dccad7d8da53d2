/* SPDX-License-Identifier: MIT */
/* MSCCL channels onto testbed's one FIFO per ordered pair of ranks (traffic/msccl/msccl.c's
 * reader): where an algorithm joins two ranks by several threadblocks on different `chan`s,
 * each channel is a connection of its own with its own order, and ours is one. A rendezvous
 * run of the schedule, each channel matched in its own order, fixes one order of the pair's
 * messages that both ends list alike. Pure: no syscalls. */
#ifndef TRAFFIC_MSCCL_ORDER_H
#define TRAFFIC_MSCCL_ORDER_H

#include <stdint.h>

#include "traffic/coll.h"

/* What msccl_order_channels found wrong, about step `step` (a global index into the
 * schedule's steps) and, where there is one, `other`. */
enum msccl_order_why {
	MSCCL_ORDER_NO_RECV, /* a send whose channel has no receive for it */
	MSCCL_ORDER_NO_SEND, /* a receive whose channel has no send for it */
	MSCCL_ORDER_LEN, /* step receives other lengths than its send `other` sends */
	MSCCL_ORDER_STUCK, /* step never starts: `other` is its end, also waiting (or NONE) */
};

struct msccl_order_err {
	enum msccl_order_why why;
	uint32_t step, other;
	uint32_t k; /* the message's place in its channel, from 0 */
};

/* Reorders every rank's steps of s (in list order per rank, each threadblock's in order, the
 * dependencies pointing back) so that each ordered pair's sends and receives pair up in list
 * order, channel by channel as chan[g] (the channel of global step g) says: the k-th send of
 * a to b on channel c meets the k-th receive of b from a on c (a local step has no message).
 * The order is that of a
 * rendezvous run, a message going when its send and its receive may both start (their
 * dependencies and their channel's earlier messages done), so it deadlocks no more than the
 * channels did. pos[g], a number kept per step (where it came from), is moved along with it.
 * 0; -EINVAL with *e saying which step is at fault; -ENOMEM. s is unchanged on error. */
int msccl_order_channels(struct coll_sched *s, const uint32_t *chan, size_t *pos,
			 struct msccl_order_err *e);

#endif
