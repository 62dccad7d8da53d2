/* SPDX-License-Identifier: MIT */
/* Batched rtnetlink: requests built by libnl-route-3 are copied into one buffer, sent with
 * one sendmsg per chunk, and every ack is matched to its request by sequence number, so an
 * error names the object that failed with the kernel's own (extack) message. */
#ifndef ORCH_NLK_H
#define ORCH_NLK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"

struct nl_msg;

#define NLK_WHAT_MAX 96

struct nlk_batch {
	int fd; /* NETLINK_ROUTE socket (borrowed) */
	char *buf;
	size_t len, cap;
	uint32_t seq0; /* sequence number of the first queued request */
	uint32_t n; /* queued requests */
	uint32_t sent; /* total requests acked so far, for progress */
	VEC(char) what; /* n * NLK_WHAT_MAX labels */
	int tolerate; /* an -errno that counts as success (e.g. -EEXIST), 0 for none */
};

/* Opens a NETLINK_ROUTE socket asking for extended acks; returns fd or -errno. */
int nlk_socket(void);
/* Same inside namespace nsfd (the thread returns to root_fd). */
int nlk_socket_in(int nsfd, int root_fd);

void nlk_batch_init(struct nlk_batch *b, int fd);
void nlk_batch_done(struct nlk_batch *b);

/* Queues a copy of msg (asking for an ack) labelled for error messages; msg stays the
 * caller's. Sends the queue first when it is full. 0 or -errno (with d set). */
int nlk_batch_add(struct nlk_batch *b, struct nl_msg *msg, struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Sends what is queued and waits for every ack. Returns 0, or the first error as -errno
 * with d saying which request failed and why. The batch is empty afterwards either way. */
int nlk_batch_flush(struct nlk_batch *b, struct diag *d) __attribute__((warn_unused_result));

#endif
