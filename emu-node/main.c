// SPDX-License-Identifier: MIT
/* emu-node: the per-endpoint agent. Started by the runner inside an endpoint's namespace
 * with one end of a control socketpair; runs its rank's part of collectives over TCP. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "emu-node/node.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: emu-node --ctl FD\n       emu-node --probe\n\n"
		   "The per-endpoint agent of testbed: speaks the control protocol of\n"
		   "emu-node/ctl.h on FD (a SOCK_SEQPACKET socket from the runner) and runs\n"
		   "collective schedules over TCP. Started by the runner, not by hand.\n"
		   "--probe sets up its io_uring as a run does and says whether the kernel\n"
		   "has everything it uses (exit 0) or what it lacks (exit 1).\n");
}

static int parse_fd(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -EINVAL;
	return (int)v;
}

/* All-to-all over N ranks keeps N - 1 connections open: take every descriptor allowed. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &r);
	}
}

/* The ring could not be set up, so the one report goes out by a direct, non-blocking send. */
static void report_early(int fd, const struct diag *d)
{
	struct ctl_error e = {
		.h = {.type = CTL_ERROR, .version = CTL_VERSION, .len = sizeof(e)},
		.err = d->err,
	};

	snprintf(e.reason, sizeof(e.reason), "emu-node: %.*s", (int)sizeof(e.reason) - 11, d->msg);
	(void)send(fd, &e, sizeof(e), MSG_DONTWAIT | MSG_NOSIGNAL);
}

int main(int argc, char **argv)
{
	struct diag d = {0};
	struct ctx c;
	int fd, code;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--probe"))
		return probe_main();
	if (argc != 3 || strcmp(argv[1], "--ctl") || (fd = parse_fd(argv[2])) < 0) {
		usage(stderr);
		return 2;
	}
	/* peers and the runner may vanish; their sockets then fail, which is reported */
	signal(SIGPIPE, SIG_IGN);
	raise_nofile();
	if (loop_init(&c, fd, &d)) {
		report_early(fd, &d);
		fprintf(stderr, "emu-node: %s\n", d.msg);
		loop_done(&c);
		return 1;
	}
	code = loop_run(&c);
	loop_done(&c);
	return code;
}
