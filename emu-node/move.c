// SPDX-License-Identifier: MIT
/* routing.enforce sport (greedy routing §3.5.3: the controller pins a flow's path by its
 * source port): the runner gives the lower rank of a pair a new port, and the pair's
 * connection moves to a new socket bound to it. Each direction moves on its own, between two
 * messages: the sender shuts the sending side of the old socket after its last send there and
 * sends the next on the new one; the receiver reads the old socket to its end, then the new
 * one. Each direction's byte stream is the same as without the move, and no step is cut. The
 * new socket's hello names its generation, so the higher rank puts it in order whatever order
 * the hellos come in. A socket is closed once both directions left it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu-node/node.h"

/* Sockets both directions have left are closed; the rest slide down. */
static void move_reap(struct conn *cn)
{
	uint8_t low = cn->txs < cn->rxs ? cn->txs : cn->rxs;

	if (!low)
		return;
	for (uint8_t i = 0; i < low; i++)
		if (cn->sock[i] >= 0)
			close(cn->sock[i]);
	memmove(cn->sock, cn->sock + low, (size_t)(cn->nsock - low) * sizeof(cn->sock[0]));
	for (uint8_t i = cn->nsock - low; i < cn->nsock; i++)
		cn->sock[i] = -1;
	cn->nsock -= low;
	cn->txs -= low;
	cn->rxs -= low;
	cn->gen0 += low;
}

void move_tx_idle(struct rank *rk, struct conn *cn)
{
	(void)rk;
	if (cn->tx_step != COLL_PLAN_NONE || cn->tx.busy)
		return;
	while (cn->txs + 1 < cn->nsock && cn->sock[cn->txs + 1] >= 0) {
		/* the peer reads this socket to its end, then the next */
		(void)shutdown(cn->sock[cn->txs], SHUT_WR);
		cn->txs++;
	}
	move_reap(cn);
}

bool move_rx_end(struct rank *rk, struct conn *cn)
{
	if (!rk->spec.moves)
		return false;
	if (cn->rxs + 1 >= cn->nsock || cn->sock[cn->rxs + 1] < 0) {
		cn->rx_eof = true; /* the next socket is on its way */
		return false;
	}
	cn->rx_eof = false;
	cn->rxs++;
	move_reap(cn);
	return true;
}

/* A new socket is in place: either direction waiting for it goes on. */
static void move_ready(struct rank *rk, struct conn *cn)
{
	move_tx_idle(rk, cn);
	/* rx_eof: a receive step met the end of the old socket and waits for this one */
	if (cn->rx_eof && !cn->rx.busy && move_rx_end(rk, cn))
		exec_rx_resume(rk, cn);
}

static int move_slot(struct rank *rk, struct conn *cn, uint32_t gen, int fd)
{
	uint32_t slot = gen - cn->gen0;

	if (gen < cn->gen0 || slot >= CONN_SOCKS)
		return -ENOSPC;
	while (cn->nsock <= slot)
		cn->sock[cn->nsock++] = -1;
	if (cn->sock[slot] >= 0)
		return -EEXIST;
	cn->sock[slot] = fd;
	conn_sock_opts(fd, cn->tag);
	rk->t_progress = loop_now();
	return 0;
}

void move_want(struct rank *rk, struct conn *cn)
{
	uint16_t want = rk->peers[cn->rank].sport;
	char who[64];
	int fd, r;

	if (!rk->spec.moves || !want || want == cn->sport || cn->mv_state != MOVE_NONE ||
	    cn->state != CONN_UP || cn->dead || cn->rank < rk->spec.rank)
		return;
	if (cn->nsock == CONN_SOCKS)
		return; /* every slot spanned: tried again once the oldest is left */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = fd < 0 ? -errno : conn_bind_port(fd, want);
	if (r) {
		if (fd >= 0)
			close(fd);
		rank_fail(rk, r, "move the connection to %s to source port %u: %s",
			  conn_peer_name(rk, cn->rank, who, sizeof(who)), want, strerror(-r));
		return;
	}
	conn_sock_opts(fd, cn->tag);
	cn->mv_fd = fd;
	cn->mv_port = want;
	cn->mv_state = MOVE_CONNECTING;
	io_uring_prep_connect(loop_sqe(rk->ctx, &cn->mv), fd, (struct sockaddr *)&cn->sa,
			      sizeof(cn->sa));
}

static void move_hello(struct rank *rk, struct conn *cn)
{
	cn->mv_hello = (struct ctl_conn_hello){
		.magic = CTL_CONN_MAGIC,
		.job = rk->spec.job,
		.rank = rk->spec.rank,
		.gen = cn->gen0 + cn->nsock,
	};
	cn->mv_state = MOVE_HELLO;
	io_uring_prep_send(loop_sqe(rk->ctx, &cn->mv), cn->mv_fd, &cn->mv_hello,
			   sizeof(cn->mv_hello), MSG_NOSIGNAL | MSG_WAITALL);
}

void move_on_op(struct conn *cn, int res)
{
	struct rank *rk = cn->owner;
	char who[64];
	int r;

	if (cn->dead)
		return;
	if (cn->mv_state == MOVE_CONNECTING && res == 0) {
		move_hello(rk, cn);
		return;
	}
	if (cn->mv_state == MOVE_CONNECTING || res != (int)sizeof(cn->mv_hello)) {
		rank_fail(rk, res < 0 ? res : -EIO,
			  "move the connection to %s to source port %u: %s",
			  conn_peer_name(rk, cn->rank, who, sizeof(who)), cn->mv_port,
			  res < 0 ? strerror(-res) : "short hello");
		return;
	}
	r = move_slot(rk, cn, cn->mv_hello.gen, cn->mv_fd);
	if (r) {
		rank_fail(rk, r, "move the connection to %s: %s",
			  conn_peer_name(rk, cn->rank, who, sizeof(who)), strerror(-r));
		return;
	}
	cn->mv_fd = -1;
	cn->mv_state = MOVE_NONE;
	cn->sport = cn->mv_port;
	move_ready(rk, cn);
	move_want(rk, cn); /* the runner may have asked for yet another port meanwhile */
}

void move_attach(struct rank *rk, struct conn *head, struct conn *cn)
{
	int fd = cn->sock[0], r;
	uint32_t gen = cn->hello.gen;
	char who[64];

	cn->sock[0] = -1; /* the socket is head's now */
	conn_free(cn);
	r = move_slot(rk, head, gen, fd);
	if (r) {
		close(fd);
		rank_fail(rk, r, "connection from %s, move %u: %s",
			  conn_peer_name(rk, head->rank, who, sizeof(who)), gen,
			  r == -ENOSPC ? "more moves pending than a connection spans"
				       : strerror(-r));
		return;
	}
	move_ready(rk, head);
}
