// SPDX-License-Identifier: MIT
/* emu-node --probe: the io_uring a run uses, set up, checked and restricted as a run does it,
 * then one multishot accept on a socket that listens for no one, cancelled at once. No packet
 * is sent. `testbed doctor` runs it inside its throwaway namespace and reads the one line. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu-node/node.h"
#include "emu-node/sandbox.h"

#define PROBE_ACCEPT 1 /* user_data of the accept, and of its cancel */
#define PROBE_CANCEL 2

/* The accept's result, waiting at most a second for each of the two completions. */
static int probe_reap(struct io_uring *ring, int *accept_res)
{
	struct __kernel_timespec ts = {.tv_sec = 1};
	struct io_uring_cqe *cqe;
	int i, r;

	for (i = 0; i < 2; i++) {
		r = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (r < 0)
			return r;
		if (cqe->user_data == PROBE_ACCEPT)
			*accept_res = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

/* Multishot accept (kernel 5.19) answers a cancel with -ECANCELED; an older kernel refuses
 * the request itself with -EINVAL. */
static int probe_accept(struct io_uring *ring, int fd, struct diag *d)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	int res = 0, r;

	io_uring_prep_multishot_accept(sqe, fd, NULL, NULL, SOCK_CLOEXEC);
	sqe->user_data = PROBE_ACCEPT;
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_cancel64(sqe, PROBE_ACCEPT, 0);
	sqe->user_data = PROBE_CANCEL;
	r = io_uring_submit(ring);
	r = r < 0 ? r : probe_reap(ring, &res);
	if (r < 0)
		return diag_set(d, r, "io_uring: waiting for an accept: %s", strerror(-r));
	if (res == -EINVAL)
		return diag_set(d, -EOPNOTSUPP,
				"io_uring has no multishot accept (kernel 5.19 or later has it)");
	if (res != -ECANCELED)
		return diag_set(d, res < 0 ? res : -EPROTO, "io_uring: accept gave %d", res);
	return 0;
}

static int probe_listen(struct io_uring *ring, struct diag *d)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return diag_set(d, -errno, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1))
		r = diag_set(d, -errno, "listening on a TCP socket: %s", strerror(errno));
	else
		r = probe_accept(ring, fd, d);
	close(fd);
	return r;
}

int probe_main(void)
{
	struct io_uring ring;
	struct diag d = {0};
	int r;

	r = loop_ring_init(&ring);
	if (r < 0) {
		printf("io_uring setup: %s\n", strerror(-r));
		return 1;
	}
	r = sandbox_ring_check(&ring, &d);
	r = r ? r : sandbox_ring(&ring, &d);
	r = r ? r : probe_listen(&ring, &d);
	io_uring_queue_exit(&ring);
	if (r) {
		printf("%s\n", d.msg);
		return 1;
	}
	printf("recv, send, connect, multishot accept, cancel, timeout; a restricted ring\n");
	return 0;
}
