// SPDX-License-Identifier: MIT
/* The per-port gets of one namespace (sample_int.h): the requests of the ports to read go in
 * one sendmsg and their replies come back in one recvmmsg, SAMPLE_SLOTS at a time. */
#include <errno.h>

#include "kernel/mono.h"
#include "sample/sample_int.h"

/* Files a reply under its port; 1 if it answers a request of this round, else 0. */
static int take_reply(struct sampler *s, const struct sample_ns *n, const struct sample_reply *r,
		      int64_t now)
{
	uint32_t idx = (r->seq >> 1) & ((1u << SAMPLE_SEQ_IDX_BITS) - 1), k = r->seq & 1;
	uint8_t bit = (uint8_t)(1u << k);
	struct sample_port *p;

	if (r->seq >> (SAMPLE_SEQ_IDX_BITS + 1) != s->round || idx >= n->nports)
		return 0; /* a late answer to an earlier round, or a dump's */
	p = &s->ports[n->port0 + idx];
	if (!p->read || !(p->want & bit) || (p->got & bit))
		return 0;
	p->got |= bit;
	if (r->type == SAMPLE_MSG_ERROR)
		p->err |= bit;
	*(k == SAMPLE_QDISC ? &p->q : &p->l) =
		(struct sample_counts){r->bytes, r->packets, r->drops, r->backlog};
	p->t = now;
	return 1;
}

/* The replies of one recvmmsg, read by the kernel at `now`; how many answered this round's
 * requests. */
static uint32_t take_batch(struct sampler *s, const struct sample_ns *n, int k, int64_t now)
{
	struct sample_reply r;
	uint32_t got = 0;
	int i;

	for (i = 0; i < k; i++) {
		if (s->mm[i].msg_hdr.msg_flags & MSG_TRUNC)
			got++; /* lost: its port misses this sample */
		else if (sample_reply_parse(s->rbuf[i], s->mm[i].msg_len, &r) &&
			 (r.type == SAMPLE_MSG_COUNTERS || r.type == SAMPLE_MSG_ERROR))
			got += (uint32_t)take_reply(s, n, &r, now);
	}
	return got;
}

/* Sends the `want` requests built into s->req (len bytes) and reads their replies: the kernel
 * answers each get within the sendmsg, so one recvmmsg usually reads them all. The counters
 * are stamped with the time the send returned, when the kernel had read them: on a busy
 * machine the receive may come much later, and a stamp taken then would shorten or stretch
 * the interval between two samples of a port (a link "at 20 times its rate"). */
static int exchange(struct sampler *s, const struct sample_ns *n, size_t len, uint32_t want,
		    int64_t t0)
{
	uint32_t got = 0;
	int64_t at;
	int k, err = 0;

	while (send(n->fd, s->req, len, 0) < 0)
		if (errno != EINTR)
			return -errno;
	at = mono_now_ns() - t0;
	s->reads += want;
	while (!err && got < want) {
		k = recvmmsg(n->fd, s->mm, want - got, MSG_DONTWAIT, NULL);
		if (k < 0 && errno == EAGAIN)
			err = sample_wait_readable(n->fd);
		else if (k < 0 && errno != EINTR)
			err = -errno;
		else if (k > 0)
			got += take_batch(s, n, k, at);
	}
	return err;
}

/* Appends port i's requests to s->req; how many. */
static uint32_t build(struct sampler *s, struct sample_port *p, uint32_t i, size_t *len)
{
	uint32_t k, nreq = 0;

	p->got = p->err = 0;
	for (k = 0; k < 2; k++) {
		if (!(p->want & (1u << k)))
			continue;
		*len += sample_req_build(s->req + *len, sizeof(s->req) - *len, (enum sample_kind)k,
					 p->ifindex, sample_seq(s, i, k));
		nreq++;
	}
	return nreq;
}

int sample_ask_ns(struct sampler *s, const struct sample_ns *n, int64_t t0)
{
	uint32_t i, nreq = 0;
	size_t len = 0;
	int err = 0;

	for (i = 0; !err && i < n->nports; i++) {
		struct sample_port *p = &s->ports[n->port0 + i];

		if (p->read && !p->taken)
			nreq += build(s, p, i, &len);
		if (nreq > SAMPLE_SLOTS - 2 || (i + 1 == n->nports && nreq)) {
			err = exchange(s, n, len, nreq, t0);
			len = 0;
			nreq = 0;
		}
	}
	return err;
}
