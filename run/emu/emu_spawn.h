/* SPDX-License-Identifier: MIT */
/* Starting emu-node processes inside endpoint namespaces, and the runner's end of their
 * control protocol (emu-node/ctl.h): one packet per call, checked before anyone reads it. */
#ifndef ORCH_EMU_SPAWN_H
#define ORCH_EMU_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu-node/ctl.h"
#include "lib/diag.h"

#define EMU_CTL_FD 3 /* the one descriptor a node inherits: its control socket */

/* Starts `bin --ctl 3` inside the network namespace netns_fd, pinned to CPU cpu (-1: not
 * pinned), with SIGKILL as its parent-death signal (it follows the calling *thread*: spawn
 * from the thread that outlives the nodes), no_new_privs, stdio on /dev/null and no other
 * descriptor than the control socket. Stores its pid and the runner's end of the
 * control socketpair (close-on-exec, blocking) and returns 0, or -errno. A failure in the
 * child after fork (setns, exec) arrives as CTL_ERROR on *fd. */
int emu_spawn(const char *bin, int netns_fd, int cpu, pid_t *pid, int *fd);

/* Closes fd (if >= 0), which makes a node exit, and waits for pid. Returns its exit status
 * (0..255), 128 + signal if it was killed, or -errno. */
int emu_reap(pid_t pid, int fd);

/* Fills the header of a message of `len` bytes and type `type` (the body is the caller's). */
void emu_msg_init(void *msg, enum ctl_type type, uint32_t len);

/* Sends one packet of len bytes (MSG_NOSIGNAL). Returns 0 or -errno. */
int emu_send(int fd, const void *msg, size_t len);

/* Receives one packet into buf (cap bytes; CTL_MAX_MSG holds any) and checks it with
 * emu_msg_check. Returns its length, 0 when the node closed its end, or -errno: -EAGAIN and
 * -EINTR as recv(2) gives them, -EBADMSG / -EPROTO for a malformed packet. */
ssize_t emu_recv(int fd, void *buf, size_t cap);

/* Checks a packet of n bytes from a node: header, version, length field, a type a node
 * sends, and that type's exact size (CTL_REC_FLOWS: n <= CTL_FLOWS_MAX records). Returns the
 * type, or -EBADMSG / -EPROTO with the reason in d. Pure. */
int emu_msg_check(const void *buf, size_t n, struct diag *d);

#endif
