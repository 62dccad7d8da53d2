// SPDX-License-Identifier: MIT
/* nftables effector, I/O: opens a namespace's netfilter socket, sends its batch and reads the
 * kernel's acks, naming the object behind the first error and keeping the kernel's extack
 * text (see nftr.h). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>

#include "kernel/netns.h"
#include "kernel/nftr_priv.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* The kernel answers a batch while sendmsg() runs, so acks are queued by the time we read;
 * the wait only guards against a kernel that never answers. */
#define ACK_WAIT_MS 5000
/* Receive buffer per queued ack (its skb's true size, rounded up), as nft budgets it. */
#define ACK_TRUESIZE 1024

struct acks {
	struct mnl_nlmsg_batch *b;
	uint32_t seq0, seq_end;
	uint32_t got; /* acks and errors read for messages of the batch */
	bool whole; /* the kernel refused the batch as a whole: no more answers come */
	int err; /* the first error */
	struct diag *d;
};

static const struct nlmsghdr *batch_msg(struct mnl_nlmsg_batch *b, uint32_t seq)
{
	const struct nlmsghdr *nlh = mnl_nlmsg_batch_head(b);
	int len = (int)mnl_nlmsg_batch_size(b);

	for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len))
		if (nlh->nlmsg_seq == seq)
			return nlh;
	return NULL;
}

#define ATTR_MAX 31 /* above every NFTA_*_MAX and NLMSGERR_ATTR_MAX we look at */

static int attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_type_valid(a, ATTR_MAX) > 0)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

/* The NUL-terminated string attribute type among those at offset off of nlh's payload. */
static const char *attr_str(const struct nlmsghdr *nlh, size_t off, uint16_t type)
{
	const struct nlattr *tb[ATTR_MAX + 1] = {0};

	if (off > mnl_nlmsg_get_payload_len(nlh) ||
	    mnl_attr_parse(nlh, (unsigned)off, attr_cb, tb) < 0 || !tb[type] ||
	    mnl_attr_validate(tb[type], MNL_TYPE_NUL_STRING) < 0)
		return NULL;
	return mnl_attr_get_str(tb[type]);
}

/* A string attribute of an nftables message, or "?". */
static const char *msg_str(const struct nlmsghdr *nlh, uint16_t type)
{
	const char *s = attr_str(nlh, sizeof(struct nfgenmsg), type);

	return s ? s : "?";
}

/* 1-based position of rule message nlh among the batch's rules for the same chain. */
static unsigned rule_pos(struct mnl_nlmsg_batch *b, const struct nlmsghdr *nlh)
{
	const char *chain = msg_str(nlh, NFTA_RULE_CHAIN);
	const struct nlmsghdr *m = mnl_nlmsg_batch_head(b);
	int len = (int)mnl_nlmsg_batch_size(b);
	unsigned n = 0;

	for (; mnl_nlmsg_ok(m, len) && m != nlh; m = mnl_nlmsg_next(m, &len))
		if (NFNL_MSG_TYPE(m->nlmsg_type) == NFT_MSG_NEWRULE &&
		    NFNL_SUBSYS_ID(m->nlmsg_type) == NFNL_SUBSYS_NFTABLES &&
		    !strcmp(msg_str(m, NFTA_RULE_CHAIN), chain))
			n++;
	return n + 1;
}

/* What the message with sequence number seq was doing, for the user. */
static void describe(struct mnl_nlmsg_batch *b, uint32_t seq, char *buf, size_t len)
{
	const struct nlmsghdr *nlh = batch_msg(b, seq);

	if (!nlh || NFNL_SUBSYS_ID(nlh->nlmsg_type) != NFNL_SUBSYS_NFTABLES) {
		snprintf(buf, len, "the batch (message %u)", seq);
		return;
	}
	switch (NFNL_MSG_TYPE(nlh->nlmsg_type)) {
	case NFT_MSG_NEWTABLE:
		snprintf(buf, len, "adding table %s", msg_str(nlh, NFTA_TABLE_NAME));
		break;
	case NFT_MSG_DELTABLE:
		snprintf(buf, len, "deleting table %s", msg_str(nlh, NFTA_TABLE_NAME));
		break;
	case NFT_MSG_NEWCHAIN:
		snprintf(buf, len, "adding chain %s", msg_str(nlh, NFTA_CHAIN_NAME));
		break;
	case NFT_MSG_NEWSET:
		snprintf(buf, len, "adding set %s", msg_str(nlh, NFTA_SET_NAME));
		break;
	case NFT_MSG_NEWSETELEM:
		snprintf(buf, len, "adding elements to set %s",
			 msg_str(nlh, NFTA_SET_ELEM_LIST_SET));
		break;
	case NFT_MSG_NEWRULE:
		snprintf(buf, len, "adding rule %u of chain %s", rule_pos(b, nlh),
			 msg_str(nlh, NFTA_RULE_CHAIN));
		break;
	default:
		snprintf(buf, len, "message %u (type %u)", seq, NFNL_MSG_TYPE(nlh->nlmsg_type));
	}
}

/* The kernel's extack text in an error message, or NULL. */
static const char *extack_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	/* uncapped errors echo the failed message before the TLVs */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	return attr_str(nlh, off, NLMSGERR_ATTR_MSG);
}

static void on_error(struct acks *a, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	uint32_t seq = e->msg.nlmsg_seq;
	const char *ext;
	char what[128];

	if (seq < a->seq0 || seq > a->seq_end)
		return; /* not ours */
	if (seq == a->seq0 || seq == a->seq_end)
		a->whole = true;
	else
		a->got++;
	if (!e->error || a->err)
		return;
	a->err = e->error < 0 ? e->error : -EPROTO;
	describe(a->b, seq, what, sizeof(what));
	ext = extack_msg(nlh);
	diag_set(a->d, a->err, "nftables: %s: %s%s%s%s", what, strerror(-a->err), ext ? " (" : "",
		 ext ? ext : "", ext ? ")" : "");
}

static int on_data(struct acks *a, const void *buf, int len)
{
	const struct nlmsghdr *nlh = buf;

	for (; mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_type != NLMSG_ERROR)
			continue;
		if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct nlmsgerr))
			return -EBADMSG;
		on_error(a, nlh);
	}
	return 0;
}

static int wait_readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/* r from reading; a kernel error read before it is the cause and wins. */
static int read_fail(struct acks *a, int r, const char *doing)
{
	if (a->err)
		return a->err;
	return diag_set(a->d, r, "nftables: %s: %s", doing, strerror(-r));
}

static int read_acks(struct mnl_socket *nl, struct acks *a)
{
	uint32_t want = a->seq_end - a->seq0 - 1;
	char buf[8192]; /* acks are capped to headers: small */
	ssize_t n;
	int r;

	while (a->got < want && !a->whole) {
		/* after an error the kernel may stop answering: take only what is queued */
		r = wait_readable(mnl_socket_get_fd(nl), a->err ? 0 : ACK_WAIT_MS);
		if (r < 0)
			return read_fail(a, r, "waiting for acks");
		if (!r)
			break;
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return read_fail(a, -errno, "reading acks");
		r = on_data(a, buf, (int)n);
		if (r)
			return read_fail(a, r, "reading acks");
	}
	if (a->err)
		return a->err;
	if (a->got < want)
		return diag_set(a->d, -ETIMEDOUT, "nftables: %u of %u messages not answered",
				want - a->got, want);
	return 0;
}

/* Makes a socket buffer hold at least bytes: the forced option (CAP_NET_ADMIN) passes the
 * rmem_max/wmem_max cap; without the capability, the plain one gets what it can. */
static void grow_buf(int fd, int opt, int force_opt, size_t bytes)
{
	int cur = 0, want = bytes > INT_MAX / 2 ? INT_MAX / 2 : (int)bytes;
	socklen_t len = sizeof(cur);

	if (!getsockopt(fd, SOL_SOCKET, opt, &cur, &len) && cur >= want)
		return;
	if (setsockopt(fd, SOL_SOCKET, force_opt, &want, sizeof(want)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, opt, &want, sizeof(want));
}

int nftr_batch_send(struct mnl_socket *nl, struct mnl_nlmsg_batch *b, uint32_t seq0,
		    uint32_t seq_end, struct diag *d)
{
	struct acks a = {.b = b, .seq0 = seq0, .seq_end = seq_end, .d = d};
	int one = 1, fd = mnl_socket_get_fd(nl);

	if (seq_end <= seq0)
		return diag_set(d, -EINVAL, "nftables: empty batch");
	/* extack text, and errors without the echoed request (we still have it) */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	/* one sendmsg for the whole batch, and room for every ack it queues at once */
	grow_buf(fd, SO_SNDBUF, SO_SNDBUFFORCE, mnl_nlmsg_batch_size(b) + 4096);
	grow_buf(fd, SO_RCVBUF, SO_RCVBUFFORCE, (size_t)(seq_end - seq0) * ACK_TRUESIZE);
	if (mnl_socket_sendto(nl, mnl_nlmsg_batch_head(b), mnl_nlmsg_batch_size(b)) < 0)
		return diag_set(d, -errno, "nftables: sending the batch: %s", strerror(errno));
	return read_acks(nl, &a);
}

/* Builds node n's whole ruleset into one batch, doubling the buffer until it fits. */
static int build_node_batch(char **buf, struct mnl_nlmsg_batch **bp, uint32_t *seq,
			    const struct topo *t, const struct route_plan *plan, uint32_t node)
{
	size_t limit;
	int r = -EMSGSIZE;

	for (limit = 1 << 16; r == -EMSGSIZE && limit <= (64u << 20); limit *= 2) {
		free(*buf);
		*buf = malloc(limit + NFTR_MSG_MAX);
		if (!*buf)
			return -ENOMEM;
		*bp = mnl_nlmsg_batch_start(*buf, limit);
		if (!*bp)
			return -ENOMEM;
		*seq = 1;
		r = nftr_batch_begin(*bp, seq);
		r = r < 0 ? r : nftr_node_build(*bp, seq, t, plan, node);
		r = r < 0 ? r : nftr_batch_end(*bp, seq);
		if (r == -EMSGSIZE)
			mnl_nlmsg_batch_stop(*bp);
	}
	return r < 0 ? r : 0;
}

int nftr_node_install(struct mnl_socket *nl, const struct topo *t, const struct route_plan *plan,
		      uint32_t node, struct diag *d)
{
	struct mnl_nlmsg_batch *b = NULL;
	char *buf = NULL;
	uint32_t seq = 1;
	int r;

	r = build_node_batch(&buf, &b, &seq, t, plan, node);
	if (r)
		diag_set(d, r, "building the nftables batch of %s: %s", t->nodes.v[node].name,
			 strerror(-r));
	else
		r = nftr_batch_send(nl, b, 1, seq - 1, d);
	if (b)
		mnl_nlmsg_batch_stop(b);
	free(buf);
	return r;
}

struct mnl_socket *nftr_socket_in(int nsfd, int root_fd, int *err)
{
	struct mnl_socket *nl = NULL;

	*err = netns_enter(nsfd);
	if (*err)
		return NULL;
	nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
	*err = nl ? 0 : -errno;
	if (nl && mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID)) {
		*err = -errno;
		mnl_socket_close(nl);
		nl = NULL;
	}
	if (netns_enter(root_fd) && !*err)
		*err = -errno;
	return nl;
}
