/* SPDX-License-Identifier: MIT */
/* The sampler's netlink messages (sample.h): a request for the root qdisc of one interface
 * (RTM_GETQDISC, parent TC_H_ROOT) or for its 64-bit counters (RTM_GETSTATS,
 * IFLA_STATS_LINK_64), a dump of every interface's 64-bit counters in a namespace, built
 * into a caller buffer, and the replies parsed into counters. No syscalls. */
#ifndef ORCH_SAMPLE_MSG_H
#define ORCH_SAMPLE_MSG_H

#include <stddef.h>
#include <stdint.h>

enum sample_kind {
	SAMPLE_QDISC, /* bytes and packets as the shaper counted them, drops, backlog */
	SAMPLE_LINK, /* the device's tx bytes, packets, drops (and rx packets, drops) */
};

enum sample_msg_type {
	SAMPLE_MSG_COUNTERS, /* a qdisc's or an interface's counters */
	SAMPLE_MSG_DONE, /* the dump's end */
	SAMPLE_MSG_ERROR, /* the kernel refused the request: error */
	SAMPLE_MSG_OTHER, /* anything else: skipped */
};

/* One message of a reply: which request it answers (its sequence number) and what it says. */
struct sample_reply {
	uint32_t seq;
	enum sample_msg_type type;
	enum sample_kind kind;
	int error; /* SAMPLE_MSG_ERROR: -errno */
	uint32_t ifindex;
	uint32_t parent; /* qdiscs: TC_H_ROOT for a root qdisc */
	uint64_t bytes, packets, drops, backlog;
	uint64_t rx_packets, rx_drops; /* SAMPLE_LINK */
};

/* A request of kind k about interface ifindex with sequence number seq into buf (len bytes);
 * returns the bytes used, or 0 if it does not fit. */
size_t sample_req_build(char *buf, size_t len, enum sample_kind k, uint32_t ifindex, uint32_t seq);

/* A dump of the 64-bit counters of every interface in the namespace (RTM_GETSTATS,
 * NLM_F_DUMP) with sequence number seq into buf (len bytes); the bytes used, or 0. */
size_t sample_dump_build(char *buf, size_t len, uint32_t seq);

/* Parses the message at the start of buf (len bytes left in what recvmsg returned) and
 * returns its aligned length, so the next one starts there; 0 when none is left (or the rest
 * is truncated). */
size_t sample_reply_parse(const void *buf, size_t len, struct sample_reply *out);

#endif
