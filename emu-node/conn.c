// SPDX-License-Identifier: MIT
/* Data connections: the listening socket, accepted connections matched to the job by their
 * hello, connections to higher ranks, DSCP path tags, and teardown through the ring. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu-node/node.h"

void conn_sock_opts(int fd, uint8_t tag)
{
	int one = 1, tos = tag << 2; /* the tag is the DSCP, the upper six bits of the TOS */

	/* collectives end in sub-MSS tails: Nagle would hold them for an ACK, and with
	 * delayed ACKs that costs up to 40 ms per message */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
}

static struct conn *conn_new(int fd)
{
	struct conn *cn = calloc(1, sizeof(*cn));
	uint32_t i;

	if (!cn)
		return NULL;
	for (i = 0; i < CONN_SOCKS; i++)
		cn->sock[i] = -1;
	cn->sock[0] = fd;
	cn->nsock = 1;
	cn->mv_fd = -1;
	cn->tx.kind = OP_CONN_TX;
	cn->rx.kind = OP_CONN_RX;
	cn->mv.kind = OP_CONN_MOVE;
	cn->tx_step = cn->rx_step = COLL_PLAN_NONE;
	conn_sock_opts(fd, 0);
	return cn;
}

void conn_free(struct conn *cn)
{
	uint32_t i;

	if (!cn)
		return;
	for (i = 0; i < cn->nsock; i++)
		if (cn->sock[i] >= 0)
			close(cn->sock[i]);
	if (cn->mv_fd >= 0)
		close(cn->mv_fd);
	free(cn->rx_tmp);
	free(cn);
}

const char *conn_peer_name(const struct rank *rk, uint32_t rank, char *buf, size_t len)
{
	struct in_addr a = {.s_addr = htonl(rk->peers[rank].addr)};
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	snprintf(buf, len, "rank %u (%s)", rank, ip);
	return buf;
}

void conn_set_tag(struct conn *cn, uint8_t tag)
{
	int tos = tag << 2; /* the tag is the DSCP, the upper six bits of the TOS byte */
	uint32_t i;

	for (i = 0; i < cn->nsock; i++)
		if (cn->sock[i] >= 0)
			(void)setsockopt(cn->sock[i], IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	if (cn->mv_fd >= 0)
		(void)setsockopt(cn->mv_fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
	cn->tag = tag;
}

static void conn_arm_accept(struct ctx *c)
{
	struct io_uring_sqe *sqe = loop_sqe(c, &c->accept);

	io_uring_prep_multishot_accept(sqe, c->listen_fd, NULL, NULL, SOCK_CLOEXEC);
}

int conn_listen(struct ctx *c, struct diag *d)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(c->hello.port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int one = 1;

	c->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->listen_fd < 0)
		return diag_set(d, -errno, "socket: %s", strerror(errno));
	(void)setsockopt(c->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(c->listen_fd, (struct sockaddr *)&sa, sizeof(sa)))
		return diag_set(d, -errno, "bind to port %u: %s", c->hello.port, strerror(errno));
	if (listen(c->listen_fd, SOMAXCONN))
		return diag_set(d, -errno, "listen: %s", strerror(errno));
	conn_arm_accept(c);
	return 0;
}

static void conn_lobby_unlink(struct ctx *c, struct conn *cn)
{
	struct conn **pp;

	for (pp = &c->lobby; *pp; pp = &(*pp)->next) {
		if (*pp == cn) {
			*pp = cn->next;
			return;
		}
	}
}

/* A new connection waits in the lobby for its hello, which says whose it is. */
static void conn_accepted(struct ctx *c, int fd)
{
	struct conn *cn = conn_new(fd);

	if (!cn) {
		close(fd);
		return;
	}
	cn->state = CONN_HELLO;
	cn->next = c->lobby;
	c->lobby = cn;
	io_uring_prep_recv(loop_sqe(c, &cn->rx), cn->sock[0], &cn->hello, sizeof(cn->hello),
			   MSG_WAITALL);
}

void conn_on_accept(struct ctx *c, int res, bool more)
{
	if (res >= 0) {
		conn_accepted(c, res);
	} else if (res != -ECONNABORTED && res != -EINTR && res != -EAGAIN) {
		/* out of descriptors or memory: re-arming would only spin */
		ctl_fatal(c, res, "%s: accept: %s", c->hello.name, strerror(-res));
		return;
	}
	if (!more && !c->quit)
		conn_arm_accept(c);
}

/* An accepted connection joins rk's job as the peer its hello names: a lower rank of the
 * schedule not yet connected, or (a move) the next socket of one that is. Anything else is a
 * stray and is closed. */
static void conn_adopt_moves(struct ctx *c, struct rank *rk, uint32_t from);

static void conn_attach(struct ctx *c, struct rank *rk, struct conn *cn)
{
	int pi = coll_plan_peer(&rk->plan, cn->hello.rank);
	uint32_t ch = cn->hello.chan, at = pi >= 0 ? (uint32_t)pi * rk->spec.channels + ch : 0;
	bool known = pi >= 0 && ch < rk->spec.channels;
	struct conn *head = known ? rk->conns[at] : NULL;

	conn_lobby_unlink(c, cn);
	if (known && cn->hello.gen && rk->spec.moves && !(head && head->dead)) {
		if (head && head->state == CONN_UP) {
			move_attach(rk, head, cn);
		} else { /* its first socket's hello is still on the way */
			cn->next = c->lobby;
			c->lobby = cn;
		}
		return;
	}
	if (!known || cn->hello.rank >= rk->spec.rank || head || cn->hello.gen) {
		conn_free(cn);
		return;
	}
	cn->rank = cn->hello.rank;
	cn->pi = (uint32_t)pi;
	cn->ch = ch;
	cn->owner = rk;
	cn->state = CONN_UP;
	rk->conns[at] = cn;
	conn_set_tag(cn, rk->peers[cn->rank].tag);
	rank_conn_up(rk);
	conn_adopt_moves(c, rk, cn->rank);
}

/* The sockets of later moves from rank `from` that came before its first one. */
static void conn_adopt_moves(struct ctx *c, struct rank *rk, uint32_t from)
{
	struct conn *cn, *next;

	for (cn = c->lobby; cn; cn = next) {
		next = cn->next;
		if (!cn->rx.busy && cn->hello.gen && cn->hello.job == rk->spec.job &&
		    cn->hello.rank == from)
			conn_attach(c, rk, cn);
	}
}

/* A hello for a job this node has not been given yet waits in the lobby: the runner sends
 * CTL_JOB to the ranks one after another, so a peer may connect first. */
static void conn_on_hello(struct ctx *c, struct conn *cn, int res)
{
	struct rank *rk = c->cur;

	if (res != (int)sizeof(cn->hello) || cn->hello.magic != CTL_CONN_MAGIC) {
		conn_lobby_unlink(c, cn);
		conn_free(cn);
		return;
	}
	if (rk && rk->spec.job == cn->hello.job && (rk->state == RANK_CONNECTING || cn->hello.gen))
		conn_attach(c, rk, cn);
}

void conn_adopt_lobby(struct ctx *c, struct rank *rk)
{
	struct conn *cn, *next;

	for (cn = c->lobby; cn; cn = next) {
		next = cn->next;
		if (cn->rx.busy)
			continue; /* its hello is still on the way */
		if (cn->hello.job == rk->spec.job) {
			conn_attach(c, rk, cn);
		} else {
			/* for a job that is over: its peers gave up on it */
			conn_lobby_unlink(c, cn);
			conn_free(cn);
		}
	}
}

int conn_bind_port(int fd, uint16_t port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_ANY)};
	int one = 1;

	/* a port the runner chose: a TIME_WAIT socket of an earlier connection on it is no
	 * reason to take another (connect still refuses the very same 4-tuple) */
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	return bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
}

/* Binds fd to the port the runner chose, or else to the first free candidate of
 * flow_sport_chan() for this connection. No SO_REUSEADDR there: a port held by a TIME_WAIT
 * socket then fails here, synchronously, and the next is tried. */
static int conn_bind_sport(struct rank *rk, int fd, uint32_t peer, uint32_t ch)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	uint32_t i;
	uint16_t port = ch ? 0 : rk->peers[peer].sport; /* the runner pins one-channel pairs */

	if (port)
		return conn_bind_port(fd, port);
	for (i = 0; i < FLOW_SPORT_N; i++) {
		port = flow_sport_chan(rk->spec.job, rk->spec.rank, peer, ch, i);
		if (port == rk->ctx->hello.port)
			continue;
		sa.sin_port = htons(port);
		if (!bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return 0;
		if (errno != EADDRINUSE)
			return -errno;
	}
	return -EADDRINUSE;
}

int conn_connect(struct rank *rk, uint32_t pi, uint32_t ch)
{
	uint32_t rank = rk->plan.peers[pi];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct conn *cn;
	int r;

	if (fd < 0)
		return -errno;
	r = conn_bind_sport(rk, fd, rank, ch);
	if (r) {
		close(fd);
		return r;
	}
	cn = conn_new(fd);
	if (!cn) {
		close(fd);
		return -ENOMEM;
	}
	cn->sport = ch ? 0 : rk->peers[rank].sport;
	cn->owner = rk;
	cn->pi = pi;
	cn->ch = ch;
	cn->rank = rank;
	cn->state = CONN_CONNECTING;
	cn->sa.sin_family = AF_INET;
	cn->sa.sin_port = htons(rk->ctx->hello.port);
	cn->sa.sin_addr.s_addr = htonl(rk->peers[rank].addr);
	rk->conns[pi * rk->spec.channels + ch] = cn;
	/* before connect, so the handshake already takes the pinned path */
	conn_set_tag(cn, rk->peers[rank].tag);
	io_uring_prep_connect(loop_sqe(rk->ctx, &cn->tx), fd, (struct sockaddr *)&cn->sa,
			      sizeof(cn->sa));
	return 0;
}

static void conn_on_connected(struct rank *rk, struct conn *cn, int res)
{
	char who[64];

	if (res < 0) {
		rank_fail(rk, res, "connect to %s: %s",
			  conn_peer_name(rk, cn->rank, who, sizeof(who)), strerror(-res));
		return;
	}
	cn->hello = (struct ctl_conn_hello){
		.magic = CTL_CONN_MAGIC,
		.job = rk->spec.job,
		.rank = rk->spec.rank,
		.chan = cn->ch,
	};
	cn->state = CONN_HELLO;
	io_uring_prep_send(loop_sqe(rk->ctx, &cn->tx), cn->sock[0], &cn->hello, sizeof(cn->hello),
			   MSG_NOSIGNAL | MSG_WAITALL);
}

static void conn_on_hello_sent(struct rank *rk, struct conn *cn, int res)
{
	char who[64];

	if (res != (int)sizeof(cn->hello)) {
		rank_fail(rk, res < 0 ? res : -EIO, "hello to %s: %s",
			  conn_peer_name(rk, cn->rank, who, sizeof(who)),
			  res < 0 ? strerror(-res) : "short send");
		return;
	}
	cn->state = CONN_UP;
	rank_conn_up(rk);
	move_want(rk, cn); /* a new port came while it was connecting */
}

/* A dead connection's completions only clear its ops' busy flags, which rank_reap_dying
 * waits for. */
void conn_on_tx(struct conn *cn, int res)
{
	if (cn->dead)
		return;
	if (cn->state == CONN_CONNECTING)
		conn_on_connected(cn->owner, cn, res);
	else if (cn->state == CONN_HELLO)
		conn_on_hello_sent(cn->owner, cn, res);
	else
		exec_on_tx(cn->owner, cn, res);
}

void conn_on_rx(struct ctx *c, struct conn *cn, int res)
{
	if (cn->dead)
		return;
	if (cn->state == CONN_HELLO)
		conn_on_hello(c, cn, res);
	else
		exec_on_rx(cn->owner, cn, res);
}

void conn_kill(struct ctx *c, struct conn *cn)
{
	uint32_t i;

	if (cn->dead)
		return;
	cn->dead = true;
	if (!cn->tx.busy && !cn->rx.busy && !cn->mv.busy)
		return;
	for (i = 0; i < cn->nsock; i++)
		if (cn->sock[i] >= 0)
			io_uring_prep_cancel_fd(loop_sqe(c, NULL), cn->sock[i],
						IORING_ASYNC_CANCEL_ALL);
	if (cn->mv_fd >= 0)
		io_uring_prep_cancel_fd(loop_sqe(c, NULL), cn->mv_fd, IORING_ASYNC_CANCEL_ALL);
}
