// SPDX-License-Identifier: MIT
/* The device counter dumps (sample_int.h, sample_plan.h): one RTM_GETSTATS dump of a
 * namespace tells, per port, whether its own egress sent or dropped a frame since the last
 * round (tx packets + tx drops) and whether its peer's did (rx packets + rx drops: a veth's
 * rx is its peer's tx, and a frame the peer could not deliver counts as an rx drop here). */
#include <errno.h>

#include "kernel/mono.h"
#include "sample/sample_int.h"
#include "sample/sample_plan.h"

/* The sampler index of the port with this ifindex in n, or TOPO_NONE. */
static uint32_t port_of(const struct sampler *s, const struct sample_ns *n, uint32_t ifindex)
{
	uint32_t i = ifindex - 2; /* topo_finalize numbers a node's ports from 2 */

	if (i < n->nports && s->ports[n->port0 + i].ifindex == ifindex)
		return n->port0 + i;
	for (i = 0; i < n->nports; i++)
		if (s->ports[n->port0 + i].ifindex == ifindex)
			return n->port0 + i;
	return TOPO_NONE;
}

static void observe(struct sampler *s, struct sample_port *p, uint64_t act, int64_t now)
{
	p->moved = !p->act_round || p->act_round + 1 != s->rounds || p->act != act;
	if (p->moved)
		p->busy_round = s->rounds;
	p->watched = true;
	p->act = act;
	p->act_round = s->rounds;
	p->t = now;
}

/* One interface's counters: its own direction's and its peer's. */
static void take_dev(struct sampler *s, const struct sample_ns *n, const struct sample_reply *r,
		     int64_t now)
{
	uint32_t i = port_of(s, n, r->ifindex);
	struct sample_port *p;

	if (i == TOPO_NONE)
		return; /* lo, or a device the topology does not know */
	p = &s->ports[i];
	if (p->view == SAMPLE_VIEW_OWN)
		observe(s, p, r->packets + r->drops, now);
	if (p->peer != TOPO_NONE && s->ports[p->peer].view == SAMPLE_VIEW_PEER)
		observe(s, &s->ports[p->peer], r->rx_packets + r->rx_drops, now);
}

/* The messages of one recv; 1 when the dump's end was among them, or -errno. */
static int take_chunk(struct sampler *s, const struct sample_ns *n, size_t len, uint32_t seq,
		      int64_t t0)
{
	int64_t now = mono_now_ns() - t0;
	struct sample_reply r;
	size_t off = 0, k;

	while ((k = sample_reply_parse(s->dbuf + off, len - off, &r))) {
		off += k;
		if (r.seq != seq)
			continue; /* a late answer to an earlier request */
		if (r.type == SAMPLE_MSG_DONE)
			return 1;
		if (r.type == SAMPLE_MSG_ERROR)
			return r.error;
		if (r.type == SAMPLE_MSG_COUNTERS && r.kind == SAMPLE_LINK)
			take_dev(s, n, &r, now);
	}
	return 0;
}

int sample_watch_ns(struct sampler *s, const struct sample_ns *n, int64_t t0)
{
	uint32_t seq = sample_seq(s, SAMPLE_SEQ_DUMP, SAMPLE_LINK);
	size_t len = sample_dump_build(s->req, sizeof(s->req), seq);
	ssize_t got;
	int err = 0;

	while (send(n->fd, s->req, len, 0) < 0)
		if (errno != EINTR)
			return -errno;
	s->dumps++;
	while (!err) {
		got = recv(n->fd, s->dbuf, sizeof(s->dbuf), MSG_DONTWAIT | MSG_TRUNC);
		if (got > (ssize_t)sizeof(s->dbuf))
			err = -EMSGSIZE; /* chunks fit our largest recv: this one */
		else if (got < 0 && errno == EAGAIN)
			err = sample_wait_readable(n->fd);
		else if (got < 0 && errno != EINTR)
			err = -errno;
		else if (got > 0)
			err = take_chunk(s, n, (size_t)got, seq, t0);
	}
	return err < 0 ? err : 0;
}
