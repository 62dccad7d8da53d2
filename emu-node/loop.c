// SPDX-License-Identifier: MIT
/* The event loop: one io_uring carries every socket operation and every wait of the
 * process; each completion is handed to the object its op is embedded in. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "emu-node/node.h"
#include "emu-node/sandbox.h"

#define LOOP_SQ 256
#define LOOP_CQ 8192

uint64_t loop_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Task work only on our own io_uring_enter and one submitter: completions are then handled
 * in batches on this process's CPU instead of interrupting it (kernel 6.1+; without, the
 * plain setup works the same, a little slower). */
int loop_ring_init(struct io_uring *ring)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER |
			 IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED,
		.cq_entries = LOOP_CQ,
	};
	int r = io_uring_queue_init_params(LOOP_SQ, ring, &p);

	if (r != -EINVAL)
		return r;
	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_R_DISABLED; /* disabled until restricted */
	p.cq_entries = LOOP_CQ;
	return io_uring_queue_init_params(LOOP_SQ, ring, &p);
}

int loop_init(struct ctx *c, int ctl_fd, struct diag *d)
{
	int r;

	memset(c, 0, sizeof(*c));
	c->ring.ring_fd = -1;
	c->ctl_fd = ctl_fd;
	c->listen_fd = -1;
	c->ctl_rx.kind = OP_CTL_RX;
	c->ctl_tx.kind = OP_CTL_TX;
	c->accept.kind = OP_ACCEPT;
	c->ctl_buf = malloc(CTL_MAX_MSG);
	c->scratch_tx = calloc(1, NODE_PIECE);
	c->scratch_rx = malloc(NODE_PIECE);
	if (!c->ctl_buf || !c->scratch_tx || !c->scratch_rx)
		return diag_set(d, -ENOMEM, "out of memory");
	r = loop_ring_init(&c->ring);
	if (r < 0) {
		c->ring.ring_fd = -1;
		return diag_set(d, r, "io_uring setup: %s", strerror(-r));
	}
	r = sandbox_ring(&c->ring, d);
	if (r)
		return r;
	ctl_arm(c);
	return 0;
}

struct io_uring_sqe *loop_sqe(struct ctx *c, struct op *op)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);

	while (!sqe) {
		/* the SQ is full: hand it to the kernel and take a fresh slot */
		io_uring_submit(&c->ring);
		sqe = io_uring_get_sqe(&c->ring);
	}
	io_uring_sqe_set_data(sqe, op);
	if (op) {
		op->busy = true;
		c->inflight++;
	}
	return sqe;
}

static void loop_dispatch(struct ctx *c, const struct io_uring_cqe *cqe)
{
	struct op *op = io_uring_cqe_get_data(cqe);
	bool more = cqe->flags & IORING_CQE_F_MORE;

	if (!op)
		return;
	if (!more) {
		op->busy = false;
		c->inflight--;
	}
	if (c->draining)
		return; /* the process is exiting: completions are only counted */
	switch (op->kind) {
	case OP_CTL_RX:
		ctl_on_rx(c, cqe->res);
		break;
	case OP_CTL_TX:
		ctl_on_tx(c, cqe->res);
		break;
	case OP_ACCEPT:
		conn_on_accept(c, cqe->res, more);
		break;
	case OP_CONN_TX:
		conn_on_tx(node_container_of(op, struct conn, tx), cqe->res);
		break;
	case OP_CONN_RX:
		conn_on_rx(c, node_container_of(op, struct conn, rx), cqe->res);
		break;
	case OP_CONN_MOVE:
		move_on_op(node_container_of(op, struct conn, mv), cqe->res);
		break;
	case OP_TIMER:
		rank_on_timer(node_container_of(op, struct rank, timer), cqe->res);
		break;
	case OP_WATCHDOG:
		rank_on_watchdog(node_container_of(op, struct rank, watchdog), cqe->res);
		break;
	}
}

static void loop_batch(struct ctx *c)
{
	struct io_uring_cqe *cqe;
	unsigned head, n = 0;

	io_uring_for_each_cqe(&c->ring, head, cqe)
	{
		loop_dispatch(c, cqe);
		n++;
	}
	io_uring_cq_advance(&c->ring, n);
	rank_reap_dying(c);
}

int loop_run(struct ctx *c)
{
	int r;

	while (!c->quit || c->txq) {
		r = io_uring_submit_and_wait(&c->ring, 1);
		if (r < 0 && r != -EINTR && r != -EBUSY)
			return 1; /* the ring itself failed: nothing left to report through */
		loop_batch(c);
	}
	return c->exit_code;
}

static void loop_free_all(struct ctx *c)
{
	struct ctl_out *o;
	struct conn *cn;
	struct rank *rk;

	while ((o = c->txq)) {
		c->txq = o->next;
		free(o);
	}
	while ((cn = c->lobby)) {
		c->lobby = cn->next;
		conn_free(cn);
	}
	if (c->cur)
		rank_free(c->cur);
	while ((rk = c->dying)) {
		c->dying = rk->next;
		rank_free(rk);
	}
}

/* Cancels everything in flight and waits (a little) for the completions: a request the
 * ring still holds keeps its socket alive after exit, and a listening socket held that
 * way makes the next emu-node's bind on this port fail. */
static void loop_drain(struct ctx *c)
{
	struct __kernel_timespec ts = {.tv_nsec = 100000000};
	struct io_uring_cqe *cqe;
	int i;

	io_uring_prep_cancel64(loop_sqe(c, NULL), 0,
			       IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL);
	for (i = 0; i < 10 && c->inflight; i++) {
		if (io_uring_submit_and_wait_timeout(&c->ring, &cqe, 1, &ts, NULL) < 0)
			continue;
		loop_batch(c);
	}
}

/* The ring goes first: once it is drained and closed nothing in flight points into the
 * memory freed after. */
void loop_done(struct ctx *c)
{
	if (c->listen_fd >= 0)
		shutdown(c->listen_fd,
			 SHUT_RDWR); /* stops listening even while the ring holds it */
	if (c->ring.ring_fd >= 0) {
		c->draining = true;
		loop_drain(c);
		io_uring_queue_exit(&c->ring);
	}
	loop_free_all(c);
	if (c->listen_fd >= 0)
		close(c->listen_fd);
	free(c->ctl_buf);
	free(c->scratch_tx);
	free(c->scratch_rx);
}
