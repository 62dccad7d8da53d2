// SPDX-License-Identifier: MIT
/* emu-node's sandbox (sandbox.h). seccomp does not see what io_uring does on the process's
 * behalf (connect, accept, send, recv are submitted, not called), so the ring's own
 * restriction list is the filter for those, and the seccomp filter refuses io_uring_setup and
 * io_uring_register: no other ring, and no change to this one. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "emu-node/sandbox.h"

/* The operations emu-node submits (conn.c, ctl.c, exec.c, loop.c, rank.c), and their names. */
static const unsigned char ring_ops[] = {
	IORING_OP_RECV,		IORING_OP_SEND,	   IORING_OP_CONNECT,	     IORING_OP_ACCEPT,
	IORING_OP_ASYNC_CANCEL, IORING_OP_TIMEOUT, IORING_OP_TIMEOUT_REMOVE,
};
static const char *const ring_op_names[] = {
	"recv", "send", "connect", "accept", "async cancel", "timeout", "timeout remove",
};

_Static_assert(sizeof(ring_ops) == sizeof(ring_op_names) / sizeof(ring_op_names[0]),
	       "a name per operation");

int sandbox_ring_check(struct io_uring *ring, struct diag *d)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	size_t i;
	int r = 0;

	if (!p)
		return diag_set(d, -EOPNOTSUPP,
				"io_uring cannot list its operations (kernel 5.6 "
				"or later has IORING_REGISTER_PROBE)");
	for (i = 0; !r && i < sizeof(ring_ops); i++)
		if (!io_uring_opcode_supported(p, ring_ops[i]))
			r = diag_set(d, -EOPNOTSUPP, "io_uring has no %s operation",
				     ring_op_names[i]);
	io_uring_free_probe(p);
	return r;
}

int sandbox_ring(struct io_uring *ring, struct diag *d)
{
	struct io_uring_restriction res[sizeof(ring_ops)];
	size_t i;
	int r;

	memset(res, 0, sizeof(res));
	for (i = 0; i < sizeof(ring_ops); i++) {
		res[i].opcode = IORING_RESTRICTION_SQE_OP;
		res[i].sqe_op = ring_ops[i];
	}
	/* by the system call: Debian's liburing 2.3 leaves these two helpers out of its .so */
	r = (int)syscall(__NR_io_uring_register, ring->ring_fd, IORING_REGISTER_RESTRICTIONS, res,
			 (unsigned int)i);
	if (r < 0)
		return diag_set(d, -errno, "io_uring restrictions: %s", strerror(errno));
	r = (int)syscall(__NR_io_uring_register, ring->ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL,
			 0);
	return r < 0 ? diag_set(d, -errno, "enabling the io_uring: %s", strerror(errno)) : 0;
}

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SANDBOX_ARCH
/* The system calls after the drop: io_uring_enter for all traffic, sockets for outgoing
 * connections (made, bound to their source port and tagged here, connected by the ring),
 * memory, time and exit. An assert's abort and stdio (to /dev/null) are allowed too. */
static const int allowed[] = {
	__NR_io_uring_enter,
	__NR_socket,
	__NR_bind,
	__NR_setsockopt,
	__NR_getsockopt,
	__NR_getsockname,
	__NR_shutdown,
	__NR_close,
	__NR_read,
	__NR_write,
	__NR_fstat,
	__NR_newfstatat,
	__NR_mmap,
	__NR_munmap,
	__NR_mremap,
	__NR_brk,
	__NR_madvise,
	__NR_mprotect,
	__NR_futex,
	__NR_clock_gettime,
	__NR_clock_nanosleep,
	__NR_nanosleep,
	__NR_getrandom,
	__NR_getpid,
	__NR_gettid,
	__NR_rt_sigprocmask,
	__NR_rt_sigreturn,
	__NR_tgkill,
	__NR_exit,
	__NR_exit_group,
	__NR_restart_syscall,
#if defined(__SANITIZE_ADDRESS__)
	/* AddressSanitizer's runtime: reports, stack traces, and LeakSanitizer's stop-the-world
	 * at exit (a thread that ptraces the others; uid nobody and no_new_privs bound it) */
	__NR_openat,
	__NR_readlinkat,
	__NR_sigaltstack,
	__NR_rt_sigaction,
	__NR_sched_yield,
	__NR_clone,
	__NR_wait4,
	__NR_ptrace,
	__NR_prctl,
	__NR_prlimit64,
	__NR_sched_getaffinity,
	__NR_set_robust_list,
	__NR_pipe2,
	__NR_dup,
	__NR_lseek,
	__NR_pread64,
	__NR_getppid,
	__NR_kill,
	__NR_uname,
	__NR_ioctl,
	__NR_getdents64,
	__NR_fcntl,
	__NR_membarrier,
	__NR_mlock,
#ifdef __NR_clone3
	__NR_clone3,
#endif
#ifdef __NR_readlink
	__NR_readlink,
#endif
#ifdef __NR_open
	__NR_open,
#endif
#ifdef __NR_getdents
	__NR_getdents,
#endif
#endif
};

#define NALLOWED (sizeof(allowed) / sizeof(allowed[0]))

/* Arch check, then one equality test per allowed call, then EPERM for the rest: a call
 * emu-node was not expected to make fails visibly (its error reaches the runner) rather than
 * killing the node without a word. */
static size_t build(struct sock_filter *f)
{
	size_t n = 0, i;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
	/* x32 system calls share the arch: refuse them outright */
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	for (i = 0; i < NALLOWED; i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						      (unsigned int)allowed[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	return n;
}

int sandbox_enter(struct diag *d)
{
	struct sock_filter f[8 + 2 * NALLOWED];
	struct sock_fprog prog = {.filter = f};

	prog.len = (unsigned short)build(f);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return diag_set(d, -errno, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return diag_set(d, -errno, "installing the seccomp filter: %s", strerror(errno));
	return 0;
}
#else
int sandbox_enter(struct diag *d)
{
	return diag_set(d, -EOPNOTSUPP, "no seccomp filter for this architecture");
}
#endif
