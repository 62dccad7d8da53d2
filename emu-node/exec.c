// SPDX-License-Identifier: MIT
/* Executes one iteration of the rank's schedule: every startable step goes in flight at once
 * (one send and one receive per connection, in list order, as plan.c decides), split over
 * the pair's channels (coll_plan_part) and moved in pieces of at most NODE_PIECE bytes. Without
 * verify the payload is scratch memory that is never touched; with it, real floats, and a reduce
 * adds each piece as it lands. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu-node/node.h"

static const struct coll_step *exec_step(const struct rank *rk, uint32_t s)
{
	return &rk->plan.steps[s];
}

/* A piece per operation: NODE_PIECE over the pair's channels, so that their receive buffers
 * together take what one connection's would. */
static uint64_t exec_piece_max(const struct rank *rk)
{
	return NODE_PIECE / rk->spec.channels;
}

static uint64_t exec_piece(const struct rank *rk, uint64_t len, uint64_t done)
{
	return coll_plan_piece(len, done, exec_piece_max(rk), rk->spec.coll.elem);
}

/* With verify: where a step reads (a send's off, a local step's src) and where it writes (a
 * receive's or local step's off), in the rank's buffer, all-to-all's out, or scratch. */
static char *exec_src(const struct rank *rk, const struct coll_step *st)
{
	uint64_t o = st->op == COLL_LOCAL ? st->src : st->off;

	return (st->flags & COLL_F_SRC_SCRATCH ? rk->scr : (char *)rk->buf) + o;
}

static char *exec_dst(const struct rank *rk, const struct coll_step *st)
{
	char *base = rk->spec.coll.kind == COLL_ALLTOALL ? (char *)rk->out : (char *)rk->buf;

	return (st->flags & COLL_F_DST_SCRATCH ? rk->scr : base) + st->off;
}

static void exec_tx_next(struct rank *rk, struct conn *cn)
{
	const struct coll_step *st = exec_step(rk, cn->tx_step);
	const char *src = rk->ctx->scratch_tx;

	if (rk->spec.verify)
		src = exec_src(rk, st) + cn->tx_off + cn->tx_done;
	/* MSG_WAITALL: the ring retries a partial send itself, one completion per piece */
	io_uring_prep_send(loop_sqe(rk->ctx, &cn->tx), cn->sock[cn->txs], src,
			   exec_piece(rk, cn->tx_len, cn->tx_done), MSG_NOSIGNAL | MSG_WAITALL);
}

static char *exec_rx_dst(struct rank *rk, const struct conn *cn, const struct coll_step *st)
{
	if (!rk->spec.verify)
		return rk->ctx->scratch_rx;
	if (st->flags & COLL_F_REDUCE)
		return (char *)cn->rx_tmp;
	return exec_dst(rk, st) + cn->rx_off + cn->rx_done;
}

static void exec_rx_next(struct rank *rk, struct conn *cn)
{
	const struct coll_step *st = exec_step(rk, cn->rx_step);
	char *dst = exec_rx_dst(rk, cn, st) + cn->rx_got;

	io_uring_prep_recv(loop_sqe(rk->ctx, &cn->rx), cn->sock[cn->rxs], dst,
			   cn->rx_piece - cn->rx_got, MSG_WAITALL);
}

void exec_rx_resume(struct rank *rk, struct conn *cn)
{
	if (cn->rx_step != COLL_PLAN_NONE)
		exec_rx_next(rk, cn);
}

/* Verify: a reduce receives into a buffer of its own, one piece at a time. */
static int exec_rx_tmp(struct rank *rk, struct conn *cn, const struct coll_step *st)
{
	if (!rk->spec.verify || !(st->flags & COLL_F_REDUCE) || cn->rx_tmp)
		return 0;
	cn->rx_tmp = malloc(exec_piece_max(rk));
	return cn->rx_tmp ? 0 : -ENOMEM;
}

/* Part c of step s (of m) over its pair's connection c. */
static int exec_start_part(struct rank *rk, uint32_t s, uint32_t m, uint32_t c)
{
	const struct coll_step *st = exec_step(rk, s);
	struct conn *cn = rk->conns[rk->plan.node[s].chan / 2 * rk->spec.channels + c];
	uint64_t off, len = coll_plan_part(st->len, rk->spec.coll.elem, m, c, &off);

	if (st->op == COLL_SEND) {
		cn->tx_step = s;
		cn->tx_off = off;
		cn->tx_len = len;
		cn->tx_done = 0;
		exec_tx_next(rk, cn);
		return 0;
	}
	if (exec_rx_tmp(rk, cn, st))
		return -ENOMEM;
	cn->rx_step = s;
	cn->rx_off = off;
	cn->rx_len = len;
	cn->rx_done = cn->rx_got = 0;
	cn->rx_piece = exec_piece(rk, len, 0);
	exec_rx_next(rk, cn);
	return 0;
}

static void exec_start(struct rank *rk, uint32_t s)
{
	const struct coll_step *st = exec_step(rk, s);
	uint32_t m = coll_plan_parts(st->len, rk->spec.coll.elem, rk->spec.channels), c;
	bool send = st->op == COLL_SEND;

	rk->flows[s] = (struct ctl_flow){
		.iter = rk->iter,
		.src = send ? rk->spec.rank : st->peer,
		.dst = send ? st->peer : rk->spec.rank,
		.seq = rk->plan.node[s].seq,
		.phase = st->phase,
		.dir = st->op,
		.tag = rk->peers[st->peer].tag,
		.bytes = st->len,
		.t_start = loop_now(),
	};
	rk->left[s] = (uint8_t)m;
	for (c = 0; c < m; c++) {
		if (exec_start_part(rk, s, m, c)) {
			rank_fail(rk, -ENOMEM, "step %u: out of memory", s);
			return;
		}
	}
}

/* A local step (an imported MSCCL algorithm's copy or addition within the rank): done at once,
 * on the data only with verify; its record says local, which the runner leaves out. */
static void exec_local(struct rank *rk, uint32_t s)
{
	const struct coll_step *st = exec_step(rk, s);
	const float *src;
	float *dst;
	uint64_t i;

	rk->flows[s] = (struct ctl_flow){.iter = rk->iter,
					 .src = rk->spec.rank,
					 .dst = rk->spec.rank,
					 .seq = rk->plan.node[s].seq,
					 .phase = st->phase,
					 .dir = COLL_LOCAL,
					 .bytes = st->len,
					 .t_start = loop_now()};
	rk->flows[s].t_end = rk->flows[s].t_start;
	if (!rk->spec.verify)
		return;
	src = (const float *)(const void *)exec_src(rk, st);
	dst = (float *)(void *)exec_dst(rk, st);
	if (st->flags & COLL_F_REDUCE)
		for (i = 0; i < st->len / sizeof(float); i++)
			dst[i] += src[i];
	else
		memmove(dst, src, st->len);
}

static void exec_step_done(struct rank *rk, uint32_t s);

/* A wait (a Chakra compute) of len ns on the rank's timer: the local channel has one step
 * in flight at a time, so one timer serves. Its record says wait, which the runner leaves
 * out of the flows. */
static void exec_wait(struct rank *rk, uint32_t s)
{
	const struct coll_step *st = exec_step(rk, s);

	rk->flows[s] = (struct ctl_flow){.iter = rk->iter,
					 .src = rk->spec.rank,
					 .dst = rk->spec.rank,
					 .seq = rk->plan.node[s].seq,
					 .phase = st->phase,
					 .dir = COLL_WAIT,
					 .bytes = 0,
					 .t_start = loop_now()};
	rk->wait_step = s;
	rank_arm_timer(rk, st->len);
}

void exec_on_wait(struct rank *rk)
{
	uint32_t s = rk->wait_step;

	rk->wait_step = COLL_PLAN_NONE;
	rk->t_progress = loop_now();
	exec_step_done(rk, s);
}

/* Starts every step that may start; local ones (and waits of no time) complete at once.
 * Whether that ended the iteration. */
static bool exec_kick(struct rank *rk)
{
	bool local = false;
	uint32_t s;

	while (rk->state == RANK_RUNNING && (s = coll_plan_run_take(&rk->run)) != COLL_PLAN_NONE) {
		if (exec_step(rk, s)->op == COLL_WAIT && exec_step(rk, s)->len) {
			exec_wait(rk, s);
			continue;
		}
		if (exec_step(rk, s)->op != COLL_LOCAL && exec_step(rk, s)->op != COLL_WAIT) {
			exec_start(rk, s);
			continue;
		}
		exec_local(rk, s);
		coll_plan_run_complete(&rk->run, s);
		local = true;
	}
	if (!local || rk->state != RANK_RUNNING || !coll_plan_run_finished(&rk->run))
		return false;
	rank_iter_end(rk);
	return true;
}

/* routing.trigger phase: the runner re-routes when a collective begins (and, from its
 * iteration record, when it ends). */
static void exec_phase(struct rank *rk)
{
	struct ctl_phase *m;

	if (!rk->spec.phases)
		return;
	m = ctl_new(rk->ctx, CTL_PHASE, sizeof(*m));
	if (!m)
		return;
	m->job = rk->spec.job;
	m->rank = rk->spec.rank;
	m->iter = rk->iter;
	ctl_send(rk->ctx, m);
}

void exec_begin(struct rank *rk)
{
	const struct coll_params *p = &rk->spec.coll;

	rk->t_compute_end = rk->t_progress = loop_now();
	rk->state = RANK_RUNNING;
	if (rk->spec.verify) {
		/* every iteration starts from the same values, so each is checked alone */
		verify_fill(rk->buf, p->bytes / sizeof(float), rk->spec.rank);
		if (rk->out)
			memcpy(rk->out, rk->buf, p->bytes);
	}
	coll_plan_run_reset(&rk->run);
	exec_phase(rk);
	if (!exec_kick(rk) && rk->state == RANK_RUNNING && coll_plan_run_finished(&rk->run))
		rank_iter_end(rk);
}

static void exec_step_done(struct rank *rk, uint32_t s)
{
	rk->flows[s].t_end = rk->t_progress;
	coll_plan_run_complete(&rk->run, s);
	if (coll_plan_run_finished(&rk->run))
		rank_iter_end(rk);
	else
		exec_kick(rk);
}

static void exec_conn_error(struct rank *rk, struct conn *cn, bool send, int res)
{
	char who[64];

	conn_peer_name(rk, cn->rank, who, sizeof(who));
	rank_fail(rk, res < 0 ? res : -ECONNRESET, "%s %s: %s", send ? "send to" : "recv from", who,
		  res < 0 ? strerror(-res) : "connection closed by the peer");
}

void exec_on_tx(struct rank *rk, struct conn *cn, int res)
{
	uint32_t s = cn->tx_step;

	if (res <= 0) {
		exec_conn_error(rk, cn, true, res);
		return;
	}
	cn->tx_done += (uint64_t)res;
	rk->t_progress = loop_now();
	if (cn->tx_done < cn->tx_len) {
		exec_tx_next(rk, cn);
		return;
	}
	cn->tx_step = COLL_PLAN_NONE;
	move_tx_idle(rk, cn); /* a message boundary: the place to change sockets */
	if (!--rk->left[s])
		exec_step_done(rk, s);
}

static void exec_reduce(struct rank *rk, const struct conn *cn, const struct coll_step *st)
{
	float *dst = (float *)(void *)(exec_dst(rk, st) + cn->rx_off + cn->rx_done);
	uint64_t i, n = cn->rx_piece / sizeof(float);

	for (i = 0; i < n; i++)
		dst[i] += cn->rx_tmp[i];
}

void exec_on_rx(struct rank *rk, struct conn *cn, int res)
{
	const struct coll_step *st = exec_step(rk, cn->rx_step);
	uint32_t s = cn->rx_step;

	if (res == 0 && move_rx_end(rk, cn)) {
		exec_rx_next(rk, cn); /* the sender moved on to the next socket */
		return;
	}
	if (res == 0 && cn->rx_eof)
		return; /* its next socket is on the way: move_attach posts the receive */
	if (res <= 0) {
		exec_conn_error(rk, cn, false, res);
		return;
	}
	cn->rx_got += (uint64_t)res;
	rk->t_progress = loop_now();
	if (cn->rx_got < cn->rx_piece) {
		exec_rx_next(rk, cn); /* cut short (a signal): the rest of the piece */
		return;
	}
	if (rk->spec.verify && (st->flags & COLL_F_REDUCE))
		exec_reduce(rk, cn, st);
	cn->rx_done += cn->rx_piece;
	cn->rx_got = 0;
	if (cn->rx_done < cn->rx_len) {
		cn->rx_piece = exec_piece(rk, cn->rx_len, cn->rx_done);
		exec_rx_next(rk, cn);
		return;
	}
	cn->rx_step = COLL_PLAN_NONE;
	if (!--rk->left[s])
		exec_step_done(rk, s);
}

static void exec_describe_conn(const struct rank *rk, const struct conn *cn, bool send, char *buf,
			       size_t len)
{
	uint32_t s = send ? cn->tx_step : cn->rx_step;
	const struct coll_step *st = exec_step(rk, s);
	char who[64], chan[32] = "";

	if (rk->spec.channels > 1)
		snprintf(chan, sizeof(chan), " (channel %u)", cn->ch);
	snprintf(buf, len, "%s %s%s, step %u (phase %u): %" PRIu64 " of %" PRIu64 " bytes",
		 send ? "send to" : "recv from", conn_peer_name(rk, cn->rank, who, sizeof(who)),
		 chan, s, st->phase, send ? cn->tx_done : cn->rx_done + cn->rx_got,
		 send ? cn->tx_len : cn->rx_len);
}

/* Names the first step in flight; a receive stalls more often than a send (it waits on a
 * peer), so receives are looked at first. */
void exec_describe_stall(const struct rank *rk, char *buf, size_t len)
{
	const struct conn *cn;
	uint32_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < rk->nconn; i++) {
			cn = rk->conns[i];
			if ((pass ? cn->tx_step : cn->rx_step) == COLL_PLAN_NONE)
				continue;
			exec_describe_conn(rk, cn, pass, buf, len);
			return;
		}
	}
	snprintf(buf, len, "%u of %u steps done, none in flight", rk->run.done, rk->plan.n);
}
