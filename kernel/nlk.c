// SPDX-License-Identifier: MIT
/* Batched rtnetlink requests with per-request acks (see nlk.h). */
#include <errno.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/msg.h>

#include "kernel/netns.h"
#include "kernel/nlk.h"

/* Acks for a chunk must fit the socket's receive buffer; small chunks keep it safe. */
#define NLK_CHUNK 128
#define NLK_RCVBUF (4 << 20)

int nlk_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	int one = 1, sz = NLK_RCVBUF;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return fd;
}

int nlk_socket_in(int nsfd, int root_fd)
{
	int r, fd;

	r = netns_enter(nsfd);
	if (r)
		return r;
	fd = nlk_socket();
	r = netns_enter(root_fd);
	if (r) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	return fd;
}

void nlk_batch_init(struct nlk_batch *b, int fd)
{
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->seq0 = 1;
}

void nlk_batch_done(struct nlk_batch *b)
{
	free(b->buf);
	b->buf = NULL;
	vec_free(&b->what);
}

int nlk_batch_add(struct nlk_batch *b, struct nl_msg *msg, struct diag *d, const char *fmt, ...)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	size_t len = NLMSG_ALIGN(h->nlmsg_len);
	va_list ap;
	int r;

	if (b->n == NLK_CHUNK) {
		r = nlk_batch_flush(b, d);
		if (r)
			return r;
	}
	if (vec_reserve_raw((void **)&b->buf, &b->cap, b->len + len, 1) ||
	    vec_reserve(&b->what, (size_t)(b->n + 1) * NLK_WHAT_MAX))
		return diag_set(d, -ENOMEM, "out of memory");
	memcpy(b->buf + b->len, h, h->nlmsg_len);
	memset(b->buf + b->len + h->nlmsg_len, 0, len - h->nlmsg_len);
	h = (struct nlmsghdr *)(b->buf + b->len);
	h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = b->seq0 + b->n;
	h->nlmsg_pid = 0;
	va_start(ap, fmt);
	vsnprintf(b->what.v + (size_t)b->n * NLK_WHAT_MAX, NLK_WHAT_MAX, fmt, ap);
	va_end(ap);
	b->len += len;
	b->n++;
	return 0;
}

/* The kernel's extack text of an error ack, if it sent one. */
static const char *ack_msg(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	const struct nlattr *a;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		a = (const struct nlattr *)((const char *)h + off);
		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
			return (const char *)a + NLA_HDRLEN;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static int ack_one(struct nlk_batch *b, const struct nlmsghdr *h, struct diag *d)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	uint32_t i = h->nlmsg_seq - b->seq0;
	const char *km;

	if (h->nlmsg_type != NLMSG_ERROR || i >= b->n)
		return 0;
	if (!e->error || e->error == b->tolerate)
		return 1;
	km = ack_msg(h);
	diag_set(d, e->error, "%s: %s%s%s", b->what.v + (size_t)i * NLK_WHAT_MAX,
		 strerror(-e->error), km ? ": " : "", km ? km : "");
	return e->error;
}

/* Reads acks until all n arrived; returns the first error. */
static int read_acks(struct nlk_batch *b, struct diag *d)
{
	char rbuf[8192];
	uint32_t got = 0;
	int first = 0, r;

	while (got < b->n) {
		ssize_t len = recv(b->fd, rbuf, sizeof(rbuf), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			return diag_set(d, -errno, "reading netlink acks: %s", strerror(errno));
		}
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			r = ack_one(b, h, d);
			if (r)
				got++;
			if (r < 0 && !first)
				first = r;
		}
	}
	return first;
}

int nlk_batch_flush(struct nlk_batch *b, struct diag *d)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	int r = 0;

	if (!b->n)
		return 0;
	if (sendto(b->fd, b->buf, b->len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		r = diag_set(d, -errno, "sending %u netlink requests: %s", b->n, strerror(errno));
	else
		r = read_acks(b, d);
	b->sent += b->n;
	b->seq0 += b->n;
	b->n = 0;
	b->len = 0;
	return r;
}
