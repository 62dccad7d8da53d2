// SPDX-License-Identifier: MIT
/* emu-node processes: fork into an endpoint's namespace, pin, exec; and the runner's send,
 * receive and check of control packets (see emu_spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run/emu/emu_spawn.h"

void emu_msg_init(void *msg, enum ctl_type type, uint32_t len)
{
	struct ctl_hdr *h = msg;

	h->type = (uint16_t)type;
	h->version = CTL_VERSION;
	h->len = len;
}

/* After fork: tell the runner what failed, through the protocol it already reads. */
static __attribute__((noreturn)) void emu_child_fail(int fd, const char *what, int err)
{
	struct ctl_error e = {.err = -err};

	emu_msg_init(&e, CTL_ERROR, sizeof(e));
	snprintf(e.reason, sizeof(e.reason), "starting emu-node: %s", what);
	(void)send(fd, &e, sizeof(e), MSG_NOSIGNAL | MSG_DONTWAIT);
	_exit(127);
}

static int emu_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Sanitizer builds keep the runner's stderr for the sanitizers' reports. */
#if defined(__SANITIZE_ADDRESS__)
#define EMU_NULL_FDS 2
#else
#define EMU_NULL_FDS 3
#endif

/* Only the control socket crosses exec, as EMU_CTL_FD: no descriptor of the caller's (a log
 * file it had open, say) reaches a node that runs as nobody. stdin, stdout and stderr are
 * /dev/null; a node reports over the socket. */
static int emu_fds(int fd)
{
	int null = open("/dev/null", O_RDWR), i;

	if (null < 0)
		return -1;
	if (fd < 3 && (fd = fcntl(fd, F_DUPFD, 3)) < 0)
		return -1;
	for (i = 0; i < EMU_NULL_FDS; i++)
		if (dup2(null, i) < 0)
			return -1;
	if (null > 2 && null != fd)
		close(null);
	if (fd != EMU_CTL_FD ? dup2(fd, EMU_CTL_FD) < 0 : fcntl(fd, F_SETFD, 0) < 0)
		return -1;
	return close_range(EMU_CTL_FD + 1, ~0U, 0);
}

/* Runs in the child; never returns. Only plain syscalls between fork and exec. */
static __attribute__((noreturn)) void emu_child(int fd, int netns_fd, int cpu, pid_t parent,
						char *const argv[])
{
	sigset_t none;

	sigemptyset(&none);
	/* the runner's blocked signals (say, for a signalfd) are not the node's */
	if (sigprocmask(SIG_SETMASK, &none, NULL))
		emu_child_fail(fd, "sigprocmask", errno);
	if (setns(netns_fd, CLONE_NEWNET))
		emu_child_fail(fd, "setns", errno);
	if (emu_pin(cpu))
		emu_child_fail(fd, "sched_setaffinity", errno);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL))
		emu_child_fail(fd, "PR_SET_PDEATHSIG", errno);
	if (getppid() != parent)
		_exit(1); /* the runner died before the death signal was set */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		emu_child_fail(fd, "PR_SET_NO_NEW_PRIVS", errno);
	if (emu_fds(fd))
		emu_child_fail(fd, "closing the runner's descriptors", errno);
	execv(argv[0], argv);
	emu_child_fail(EMU_CTL_FD, argv[0], errno);
}

int emu_spawn(const char *bin, int netns_fd, int cpu, pid_t *pid, int *fd)
{
	char fdarg[16];
	char *argv[] = {(char *)bin, "--ctl", fdarg, NULL};
	pid_t parent = getpid(), child;
	int sv[2], r;

	*pid = -1;
	*fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	snprintf(fdarg, sizeof(fdarg), "%d", EMU_CTL_FD);
	child = fork();
	if (child < 0) {
		r = -errno;
		close(sv[0]);
		close(sv[1]);
		return r;
	}
	if (!child) {
		close(sv[0]);
		emu_child(sv[1], netns_fd, cpu, parent, argv);
	}
	close(sv[1]);
	*pid = child;
	*fd = sv[0];
	return 0;
}

int emu_reap(pid_t pid, int fd)
{
	int st;

	if (fd >= 0)
		close(fd);
	if (pid <= 0)
		return 0;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int emu_send(int fd, const void *msg, size_t len)
{
	ssize_t n = send(fd, msg, len, MSG_NOSIGNAL);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

ssize_t emu_recv(int fd, void *buf, size_t cap)
{
	/* MSG_TRUNC: the real length of a packet too big for buf, so it is refused */
	ssize_t n = recv(fd, buf, cap, MSG_TRUNC);
	int r;

	if (n < 0)
		return -errno;
	if (!n)
		return 0;
	if ((size_t)n > cap)
		return -EMSGSIZE;
	r = emu_msg_check(buf, (size_t)n, NULL);
	return r < 0 ? r : n;
}

static uint32_t emu_fixed_len(uint16_t type)
{
	switch (type) {
	case CTL_READY:
		return sizeof(struct ctl_ready);
	case CTL_REC_ITER:
		return sizeof(struct ctl_rec_iter);
	case CTL_PHASE:
		return sizeof(struct ctl_phase);
	case CTL_DONE:
		return sizeof(struct ctl_done);
	case CTL_ERROR:
		return sizeof(struct ctl_error);
	default:
		return 0;
	}
}

static int emu_check_flows(const struct ctl_rec_flows *m, size_t n, struct diag *d)
{
	if (n < sizeof(*m))
		return diag_set(d, -EBADMSG, "CTL_REC_FLOWS of %zu bytes, shorter than its header",
				n);
	if (m->n > CTL_FLOWS_MAX)
		return diag_set(d, -EBADMSG, "CTL_REC_FLOWS with %u records, more than %u", m->n,
				CTL_FLOWS_MAX);
	if (n != sizeof(*m) + m->n * sizeof(m->flows[0]))
		return diag_set(d, -EBADMSG, "CTL_REC_FLOWS of %zu bytes for %u records", n, m->n);
	return CTL_REC_FLOWS;
}

/* The reasons are printed with %s: they must end inside their field. */
static int emu_check_reason(const void *buf, uint16_t type, struct diag *d)
{
	const char *r = type == CTL_DONE ? ((const struct ctl_done *)buf)->reason
					 : ((const struct ctl_error *)buf)->reason;

	if (!memchr(r, '\0', CTL_REASON_MAX))
		return diag_set(d, -EBADMSG, "control message type %u: reason not terminated",
				type);
	return type;
}

int emu_msg_check(const void *buf, size_t n, struct diag *d)
{
	const struct ctl_hdr *h = buf;
	uint32_t want;
	int r = ctl_check_hdr(buf, n, d);

	if (r)
		return r;
	if (h->type == CTL_REC_FLOWS)
		return emu_check_flows(buf, n, d);
	want = emu_fixed_len(h->type);
	if (!want)
		return diag_set(d, -EBADMSG, "control message type %u is not one a node sends",
				h->type);
	if (n != want)
		return diag_set(d, -EBADMSG, "control message type %u of %zu bytes, expected %u",
				h->type, n, want);
	if (h->type == CTL_DONE || h->type == CTL_ERROR)
		return emu_check_reason(buf, h->type, d);
	return h->type;
}
