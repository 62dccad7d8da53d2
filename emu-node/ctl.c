// SPDX-License-Identifier: MIT
/* The control channel: packets from the runner, checked and dispatched, and the queue of
 * packets to it, sent in order one at a time through the ring. */
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <signal.h>

#include "emu-node/msg.h"
#include "emu-node/node.h"
#include "emu-node/sandbox.h"

void ctl_arm(struct ctx *c)
{
	struct io_uring_sqe *sqe = loop_sqe(c, &c->ctl_rx);

	/* MSG_TRUNC: a packet longer than the buffer reports its real length, so it is caught
	 * instead of read cut short */
	io_uring_prep_recv(sqe, c->ctl_fd, c->ctl_buf, CTL_MAX_MSG, MSG_TRUNC);
}

static void ctl_tx_next(struct ctx *c)
{
	struct io_uring_sqe *sqe;

	if (!c->txq || c->ctl_tx.busy)
		return;
	sqe = loop_sqe(c, &c->ctl_tx);
	io_uring_prep_send(sqe, c->ctl_fd, c->txq->buf, c->txq->len, MSG_NOSIGNAL);
}

/* Drops the packets not yet handed to the kernel. */
static void ctl_txq_drop(struct ctx *c)
{
	struct ctl_out *o, **pp = c->ctl_tx.busy && c->txq ? &c->txq->next : &c->txq;

	while ((o = *pp)) {
		*pp = o->next;
		free(o);
	}
	c->txq_tail = c->txq;
}

void ctl_quit(struct ctx *c, int code)
{
	c->quit = true;
	c->exit_code = code;
	ctl_txq_drop(c);
}

void ctl_on_tx(struct ctx *c, int res)
{
	struct ctl_out *o = c->txq;

	c->txq = o->next;
	if (!c->txq)
		c->txq_tail = NULL;
	free(o);
	if (res < 0) {
		/* the runner is gone: nobody is left to tell */
		ctl_quit(c, c->exit_code);
		return;
	}
	ctl_tx_next(c);
}

void *ctl_new(struct ctx *c, uint16_t type, uint32_t len)
{
	struct ctl_out *o = calloc(1, sizeof(*o) + len);
	struct ctl_hdr *h;

	if (!o) {
		ctl_quit(c, 1);
		return NULL;
	}
	o->len = len;
	h = (struct ctl_hdr *)o->buf;
	h->type = type;
	h->version = CTL_VERSION;
	h->len = len;
	return h;
}

void ctl_send(struct ctx *c, void *msg)
{
	struct ctl_out *o = node_container_of(msg, struct ctl_out, buf);

	if (c->txq_tail)
		c->txq_tail->next = o;
	else
		c->txq = o;
	c->txq_tail = o;
	ctl_tx_next(c);
}

void ctl_fatal(struct ctx *c, int err, const char *fmt, ...)
{
	struct ctl_error *e = ctl_new(c, CTL_ERROR, sizeof(*e));
	va_list ap;

	if (!e)
		return;
	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->reason, sizeof(e->reason), fmt, ap);
	va_end(ap);
	ctl_send(c, e);
	c->quit = true;
	c->exit_code = 1;
}

/* setuid clears the parent-death signal, so it is set again: without the runner this
 * process has nothing to do. */
static int ctl_drop_privileges(const struct ctl_hello *h, struct diag *d)
{
	if (!h->uid && !h->gid)
		return 0;
	if (setgroups(0, NULL))
		return diag_set(d, -errno, "setgroups: %s", strerror(errno));
	if (h->gid && setgid(h->gid))
		return diag_set(d, -errno, "setgid %u: %s", h->gid, strerror(errno));
	if (h->uid && setuid(h->uid))
		return diag_set(d, -errno, "setuid %u: %s", h->uid, strerror(errno));
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		return diag_set(d, -errno, "PR_SET_PDEATHSIG: %s", strerror(errno));
	return 0;
}

static void ctl_on_hello(struct ctx *c, const struct ctl_hello *h)
{
	struct ctl_ready *rd;
	struct diag d = {0};

	if (c->hello_done) {
		ctl_fatal(c, -EPROTO, "CTL_HELLO twice");
		return;
	}
	c->hello = *h;
	c->hello.name[sizeof(c->hello.name) - 1] = '\0';
	c->hello_done = true;
	if (conn_listen(c, &d) || ctl_drop_privileges(h, &d) || sandbox_enter(&d)) {
		ctl_fatal(c, d.err, "%s: %s", c->hello.name, d.msg);
		return;
	}
	rd = ctl_new(c, CTL_READY, sizeof(*rd));
	if (!rd)
		return;
	rd->node = h->node;
	ctl_send(c, rd);
}

/* A node runs one job at a time: a second one is refused on its own, the first goes on. */
static void ctl_on_job(struct ctx *c, const struct ctl_job *m)
{
	struct ctl_done *dn;

	if (!c->cur) {
		rank_start(c, m);
		return;
	}
	dn = ctl_new(c, CTL_DONE, sizeof(*dn));
	if (!dn)
		return;
	dn->job = m->job;
	dn->rank = m->rank;
	dn->status = -EBUSY;
	dn->t_end = loop_now();
	snprintf(dn->reason, sizeof(dn->reason), "%s is still running job %u", c->hello.name,
		 c->cur->spec.job);
	ctl_send(c, dn);
}

static void ctl_dispatch(struct ctx *c, int type)
{
	const void *m = c->ctl_buf;
	const struct ctl_tag *t = m;
	const struct ctl_abort *a = m;

	if (type != CTL_HELLO && type != CTL_STOP && !c->hello_done) {
		ctl_fatal(c, -EPROTO, "control message type %d before CTL_HELLO", type);
		return;
	}
	switch (type) {
	case CTL_HELLO:
		ctl_on_hello(c, m);
		break;
	case CTL_JOB:
		ctl_on_job(c, m);
		break;
	case CTL_TAG:
		if (c->cur && c->cur->spec.job == t->job)
			rank_set_path(c->cur, t->peer, t->tag, t->sport);
		break;
	case CTL_ABORT:
		/* a job that already finished has sent its CTL_DONE: nothing to abort */
		if (c->cur && c->cur->spec.job == a->job)
			rank_finish(c->cur, -ECANCELED, "aborted by the runner");
		break;
	case CTL_STOP:
		ctl_quit(c, 0);
		break;
	}
}

void ctl_on_rx(struct ctx *c, int res)
{
	struct diag d = {0};
	int type;

	if (!res || res == -ECONNRESET) {
		ctl_quit(c, 0); /* the runner closed its end: it died or is done with us */
		return;
	}
	if (res == -EINTR || res == -EAGAIN) {
		ctl_arm(c);
		return;
	}
	if (res < 0)
		type = diag_set(&d, res, "control socket: %s", strerror(-res));
	else if (res > CTL_MAX_MSG)
		type = diag_set(&d, -EMSGSIZE, "control packet of %d bytes, more than %d", res,
				CTL_MAX_MSG);
	else
		type = msg_check(c->ctl_buf, (size_t)res, &d);
	if (type < 0) {
		ctl_fatal(c, type, "%s", d.msg);
		return;
	}
	ctl_dispatch(c, type);
	if (!c->quit)
		ctl_arm(c);
}
