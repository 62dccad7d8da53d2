// SPDX-License-Identifier: MIT
/* The sampler's requests and replies (sample_msg.h), with libmnl. */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/gen_stats.h>
#include <linux/if_link.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "sample/sample_msg.h"

static void put_stats_filter(struct nlmsghdr *h, uint32_t ifindex)
{
	struct if_stats_msg *s = mnl_nlmsg_put_extra_header(h, sizeof(*s));

	h->nlmsg_type = RTM_GETSTATS;
	s->family = AF_UNSPEC;
	s->ifindex = ifindex;
	s->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
}

/* A zeroed request in buf with room for an extra header of `extra` bytes, or NULL when
 * buf is shorter than that. */
static struct nlmsghdr *put_request(char *buf, size_t len, size_t extra, uint32_t seq,
				    uint16_t flags)
{
	size_t need = MNL_NLMSG_HDRLEN + MNL_ALIGN(extra);
	struct nlmsghdr *h;

	if (len < need)
		return NULL;
	memset(buf, 0, need);
	h = mnl_nlmsg_put_header(buf);
	h->nlmsg_seq = seq;
	h->nlmsg_flags = flags;
	return h;
}

size_t sample_req_build(char *buf, size_t len, enum sample_kind k, uint32_t ifindex, uint32_t seq)
{
	/* ECHO: kernels that answer a qdisc get with a notification send it to the asker only
	 * then; no ACK: the answer (or an error) is the one reply */
	struct nlmsghdr *h = put_request(
		buf, len, k == SAMPLE_QDISC ? sizeof(struct tcmsg) : sizeof(struct if_stats_msg),
		seq, NLM_F_REQUEST | NLM_F_ECHO);

	if (!h)
		return 0;
	if (k == SAMPLE_QDISC) {
		struct tcmsg *tc = mnl_nlmsg_put_extra_header(h, sizeof(*tc));

		h->nlmsg_type = RTM_GETQDISC;
		tc->tcm_family = AF_UNSPEC;
		tc->tcm_ifindex = (int)ifindex;
		tc->tcm_parent = TC_H_ROOT;
	} else {
		put_stats_filter(h, ifindex);
	}
	return h->nlmsg_len;
}

size_t sample_dump_build(char *buf, size_t len, uint32_t seq)
{
	struct nlmsghdr *h =
		put_request(buf, len, sizeof(struct if_stats_msg), seq, NLM_F_REQUEST | NLM_F_DUMP);

	if (!h)
		return 0;
	put_stats_filter(h, 0);
	return h->nlmsg_len;
}

/* TCA_STATS2's nest: basic (bytes, 32-bit packets), 64-bit packets, queue. */
static int stats2_attr(const struct nlattr *a, void *data)
{
	struct sample_reply *r = data;
	const void *p = mnl_attr_get_payload(a);
	uint16_t len = mnl_attr_get_payload_len(a);

	switch (mnl_attr_get_type(a)) {
	case TCA_STATS_BASIC:
		if (len >= 12) {
			struct gnet_stats_basic b;

			memcpy(&b, p, 12);
			r->bytes = b.bytes;
			if (!r->packets)
				r->packets = b.packets;
		}
		break;
	case TCA_STATS_PKT64:
		if (len >= sizeof(uint64_t))
			memcpy(&r->packets, p, sizeof(uint64_t));
		break;
	case TCA_STATS_QUEUE:
		if (len >= sizeof(struct gnet_stats_queue)) {
			struct gnet_stats_queue q;

			memcpy(&q, p, sizeof(q));
			r->drops = q.drops;
			r->backlog = q.backlog;
		}
		break;
	}
	return MNL_CB_OK;
}

static int qdisc_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == TCA_STATS2)
		mnl_attr_parse_nested(a, stats2_attr, data);
	return MNL_CB_OK;
}

static int stats_attr(const struct nlattr *a, void *data)
{
	struct sample_reply *r = data;
	struct rtnl_link_stats64 s = {0};
	size_t len = mnl_attr_get_payload_len(a);

	/* the struct grows with the kernel (rx_otherhost_dropped in 5.19); the counters read
	 * here have been in it from the start */
	if (mnl_attr_get_type(a) != IFLA_STATS_LINK_64 ||
	    len < offsetof(struct rtnl_link_stats64, multicast))
		return MNL_CB_OK;
	memcpy(&s, mnl_attr_get_payload(a), len < sizeof(s) ? len : sizeof(s));
	r->bytes = s.tx_bytes;
	r->packets = s.tx_packets;
	r->drops = s.tx_dropped;
	r->rx_packets = s.rx_packets;
	r->rx_drops = s.rx_dropped;
	return MNL_CB_OK;
}

static void parse_error(const struct nlmsghdr *h, struct sample_reply *out)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

	out->type = SAMPLE_MSG_ERROR;
	out->error =
		h->nlmsg_len >= mnl_nlmsg_size(sizeof(*e)) && e->error < 0 ? e->error : -EPROTO;
	if (!e->error && h->nlmsg_len >= mnl_nlmsg_size(sizeof(*e)))
		out->type = SAMPLE_MSG_OTHER; /* an ack */
}

static void parse_one(const struct nlmsghdr *h, struct sample_reply *out)
{
	if (h->nlmsg_type == NLMSG_DONE) {
		out->type = SAMPLE_MSG_DONE;
	} else if (h->nlmsg_type == NLMSG_ERROR) {
		parse_error(h, out);
	} else if (h->nlmsg_type == RTM_NEWQDISC &&
		   h->nlmsg_len >= mnl_nlmsg_size(sizeof(struct tcmsg))) {
		const struct tcmsg *tc = mnl_nlmsg_get_payload(h);

		out->kind = SAMPLE_QDISC;
		out->ifindex = (uint32_t)tc->tcm_ifindex;
		out->parent = tc->tcm_parent;
		mnl_attr_parse(h, sizeof(*tc), qdisc_attr, out);
	} else if (h->nlmsg_type == RTM_NEWSTATS &&
		   h->nlmsg_len >= mnl_nlmsg_size(sizeof(struct if_stats_msg))) {
		const struct if_stats_msg *s = mnl_nlmsg_get_payload(h);

		out->kind = SAMPLE_LINK;
		out->ifindex = s->ifindex;
		mnl_attr_parse(h, sizeof(*s), stats_attr, out);
	} else {
		out->type = SAMPLE_MSG_OTHER;
	}
}

size_t sample_reply_parse(const void *buf, size_t len, struct sample_reply *out)
{
	const struct nlmsghdr *h = buf;

	memset(out, 0, sizeof(*out));
	if (!mnl_nlmsg_ok(h, (int)len))
		return 0;
	out->seq = h->nlmsg_seq;
	parse_one(h, out);
	return NLMSG_ALIGN(h->nlmsg_len) < len ? NLMSG_ALIGN(h->nlmsg_len) : len;
}
