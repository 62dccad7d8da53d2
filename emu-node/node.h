/* SPDX-License-Identifier: MIT */
/* emu-node internals: one process, one io_uring, one struct ctx. Every operation in flight
 * is a struct op embedded in the object it belongs to; its address is the SQE's user_data,
 * and the object lives until every op it holds has completed. */
#ifndef EMU_NODE_H
#define EMU_NODE_H

#include <liburing.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emu-node/ctl.h"
#include "traffic/plan.h"
#include "emu-node/verify.h"
#include "lib/diag.h"

#define NODE_PIECE (4u << 20) /* bytes per send or receive operation */

#define node_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))

enum op_kind {
	OP_CTL_RX = 1,
	OP_CTL_TX,
	OP_ACCEPT,
	OP_CONN_TX, /* connect, hello, data sends */
	OP_CONN_RX, /* hello, data receives */
	OP_TIMER, /* start instant, compute phase, a wait step (a Chakra compute) */
	OP_WATCHDOG,
	OP_CONN_MOVE, /* connect and hello of a connection's next socket (emu-node/move.c) */
};

struct op {
	uint8_t kind; /* enum op_kind */
	bool busy; /* submitted, its last completion not yet seen */
};

enum conn_state {
	CONN_CONNECTING, /* connect in flight (we are the lower rank) */
	CONN_HELLO, /* hello being sent (lower rank) or received (higher rank) */
	CONN_UP, /* carries data */
};

#define CONN_SOCKS 8 /* sockets a connection may span while it moves (move.c) */

enum move_state {
	MOVE_NONE,
	MOVE_CONNECTING,
	MOVE_HELLO,
};

/* A data connection. Accepted ones wait in ctx->lobby until their hello names the job.
 * It starts as one socket; under routing.enforce sport it may move to new ones (move.c),
 * each direction on its own: sock[txs] sends, sock[rxs] receives, oldest first. */
struct conn {
	struct op tx, rx; /* at most one send and one receive in flight */
	int sock[CONN_SOCKS]; /* -1: closed, or not here yet */
	uint8_t nsock, txs, rxs;
	bool rx_eof; /* sock[rxs] ended and the next socket is not here yet */
	uint32_t gen0; /* the move that made sock[0] (0: the first connection) */
	uint16_t sport; /* lower rank: the source port of the newest socket */
	struct op mv; /* lower rank: the next socket's connect and hello */
	enum move_state mv_state;
	int mv_fd;
	uint16_t mv_port;
	struct ctl_conn_hello mv_hello;
	enum conn_state state;
	bool dead; /* being torn down: completions are only counted */
	uint8_t tag; /* DSCP path tag the socket carries */
	uint32_t rank; /* the peer, once known */
	uint32_t pi; /* its index in the job's plan */
	uint32_t ch; /* which of the pair's channels (rank.conns[pi * channels + ch]) */
	struct rank *owner; /* NULL in the lobby */
	struct conn *next; /* lobby list */
	struct sockaddr_in sa;
	struct ctl_conn_hello hello;
	uint32_t tx_step, rx_step; /* the step in flight per direction, COLL_PLAN_NONE if none */
	uint64_t tx_off, rx_off; /* where its part over this connection starts in the step */
	uint64_t tx_len, rx_len; /* the part's bytes (traffic/plan.h, coll_plan_part) */
	uint64_t tx_done, rx_done; /* bytes of the part through */
	uint64_t rx_piece, rx_got; /* the receive piece in flight and bytes of it in */
	float *rx_tmp; /* verify: a reduce's piece lands here before the add */
};

enum rank_state {
	RANK_CONNECTING,
	RANK_WAITING, /* for start_ns */
	RANK_COMPUTING,
	RANK_RUNNING, /* the collective */
	RANK_CLOSING, /* done; waiting for its ops to complete before it is freed */
};

/* This node's rank of one job: what CTL_JOB gave it, and how far it got. */
struct rank {
	struct ctx *ctx;
	struct ctl_job spec; /* the CTL_JOB header; peers[] copied separately */
	struct ctl_peer *peers; /* spec.coll.nranks, by rank */
	struct coll_sched sched; /* this rank's steps only */
	struct coll_plan plan;
	struct coll_plan_run run;
	struct conn **conns; /* nconn: spec.channels per peer, by peer index, then channel */
	uint32_t nconn;
	uint32_t nup; /* connections up */
	uint8_t *left; /* per step: its parts still in flight (traffic/plan.h) */
	enum rank_state state;
	struct op timer, watchdog;
	struct __kernel_timespec ts_timer, ts_watchdog; /* read by the kernel at submission */
	uint32_t iter;
	uint64_t t_start, t_compute_end;
	uint64_t t_progress; /* the last time a piece moved or a connection came up */
	uint32_t wait_step; /* the wait step the timer times, or COLL_PLAN_NONE */
	struct ctl_flow *flows; /* one per step, this iteration */
	float *buf; /* verify: the buffer (ALLTOALL: `in`) */
	float *out; /* verify, ALLTOALL: the `out` buffer */
	char *scr; /* verify: the scratch an imported MSCCL algorithm uses (coll.scratch bytes) */
	struct verify_sums *sums;
	struct verify_regions vr; /* a Chakra job's regions (verify), in vr_mem */
	void *vr_mem;
	bool verified; /* every iteration checked so far was right */
	char why[CTL_REASON_MAX]; /* the first wrong element, if one was */
	struct rank *next; /* ctx->dying list */
};

/* An outgoing control packet, queued until the socket takes it. */
struct ctl_out {
	struct ctl_out *next;
	size_t len; /* also keeps buf 8-byte aligned for the records' 64-bit fields */
	char buf[];
};

struct ctx {
	struct io_uring ring;
	int ctl_fd, listen_fd;
	struct op ctl_rx, ctl_tx, accept;
	char *ctl_buf; /* CTL_MAX_MSG bytes for the packet being received */
	struct ctl_out *txq, *txq_tail; /* the head is in flight when ctl_tx.busy */
	bool hello_done;
	struct ctl_hello hello;
	struct conn *lobby;
	struct rank *cur; /* the job this node runs now, or NULL */
	struct rank *dying;
	char *scratch_tx, *scratch_rx; /* payload of unverified transfers, NODE_PIECE each */
	uint32_t inflight; /* ops submitted and not yet completed */
	bool quit; /* leave the loop once the control queue is flushed */
	bool draining; /* exiting: completions are counted, not handled */
	int exit_code;
};

/* loop.c */
int loop_init(struct ctx *c, int ctl_fd, struct diag *d);
/* The ring as a run sets it up: disabled until sandbox_ring restricts it. 0 or -errno. */
int loop_ring_init(struct io_uring *ring);
int loop_run(struct ctx *c);
void loop_done(struct ctx *c);
/* An SQE whose completion goes to op (marked busy); op NULL for a request whose completion
 * is ignored (cancels). Never NULL: submits what is queued when the SQ is full. */
struct io_uring_sqe *loop_sqe(struct ctx *c, struct op *op);
uint64_t loop_now(void);

/* probe.c: `emu-node --probe`, what `testbed doctor` asks of io_uring; prints one line. */
int probe_main(void);

/* ctl.c */
void ctl_quit(struct ctx *c, int code);
void ctl_arm(struct ctx *c);
void ctl_on_rx(struct ctx *c, int res);
void ctl_on_tx(struct ctx *c, int res);
/* A zeroed packet of type and len in the send queue's memory; pass it to ctl_send. NULL
 * only if out of memory, which ends the process through ctl_fatal. */
void *ctl_new(struct ctx *c, uint16_t type, uint32_t len);
void ctl_send(struct ctx *c, void *msg);
/* A failure outside a job: CTL_ERROR, then exit(1) once it is sent. */
void ctl_fatal(struct ctx *c, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* conn.c */
int conn_listen(struct ctx *c, struct diag *d);
void conn_on_accept(struct ctx *c, int res, bool more);
void conn_on_tx(struct conn *cn, int res);
void conn_on_rx(struct ctx *c, struct conn *cn, int res);
/* Opens connection ch to the peer of index pi (this rank is the lower one). 0 or -errno. */
int conn_connect(struct rank *rk, uint32_t pi, uint32_t ch);
void conn_adopt_lobby(struct ctx *c, struct rank *rk);
void conn_set_tag(struct conn *cn, uint8_t tag);
/* Binds fd to port, over a TIME_WAIT socket of an earlier connection if need be. 0 or -errno. */
int conn_bind_port(int fd, uint16_t port);
/* TCP_NODELAY and the DSCP tag on a data socket. */
void conn_sock_opts(int fd, uint8_t tag);
/* Starts tearing cn down: cancels its ops; its rank frees it once none is busy. */
void conn_kill(struct ctx *c, struct conn *cn);
void conn_free(struct conn *cn);
/* "rank 3 (198.18.0.5)" */
const char *conn_peer_name(const struct rank *rk, uint32_t rank, char *buf, size_t len);

/* rank.c: this node's part of one job */
void rank_start(struct ctx *c, const struct ctl_job *msg);
void rank_conn_up(struct rank *rk);
void rank_on_timer(struct rank *rk, int res);
/* The rank's timer, free while its collective runs, fires in ns (a wait step). */
void rank_arm_timer(struct rank *rk, uint64_t ns);
/* The runner's path for the connection to peer: a DSCP tag, and (the lower rank, routing.enforce
 * sport) a source port, 0 for none. */
void rank_set_path(struct rank *rk, uint32_t peer, uint8_t tag, uint16_t sport);
void rank_on_watchdog(struct rank *rk, int res);
void rank_fail(struct rank *rk, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rank_finish(struct rank *rk, int status, const char *reason);
/* Frees the closing jobs none of whose ops is in flight. Called between completion batches
 * only, so no handler ever sees its job freed under it. */
void rank_reap_dying(struct ctx *c);
void rank_free(struct rank *rk);
void rank_iter_end(struct rank *rk);

/* move.c: routing.enforce sport moves a connection to a socket on a new source port */
/* The lower rank: starts moving cn to the port its peer entry names, if it differs and no
 * move is under way. */
void move_want(struct rank *rk, struct conn *cn);
void move_on_op(struct conn *cn, int res);
/* The higher rank: cn, a lobby connection whose hello names generation > 0, becomes the
 * next socket of rk's connection `head`. */
void move_attach(struct rank *rk, struct conn *head, struct conn *cn);
/* Between two sends: the sending side goes to the newest socket. */
void move_tx_idle(struct rank *rk, struct conn *cn);
/* A receive met the end of sock[rxs]: true when it went on to the next socket (post the
 * receive again), false while that socket is not here yet (move_* posts it when it comes),
 * or when the job does not move connections (the peer closed it: an error). */
bool move_rx_end(struct rank *rk, struct conn *cn);

/* exec.c */
/* Posts the receive in flight on cn again (it moved to another socket). */
void exec_rx_resume(struct rank *rk, struct conn *cn);
void exec_begin(struct rank *rk);
/* The wait step in flight has taken its time. */
void exec_on_wait(struct rank *rk);
void exec_on_tx(struct rank *rk, struct conn *cn, int res);
void exec_on_rx(struct rank *rk, struct conn *cn, int res);
/* The step the watchdog names when it fires: "recv from rank 3 (...) step 7 ...". */
void exec_describe_stall(const struct rank *rk, char *buf, size_t len);

#endif
