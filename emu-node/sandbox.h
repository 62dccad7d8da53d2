/* SPDX-License-Identifier: MIT */
/* What an emu-node may still do once it runs a job: its io_uring limited to the operations it
 * submits, and a seccomp filter allowing only the system calls it makes after dropping
 * privileges. */
#ifndef EMU_SANDBOX_H
#define EMU_SANDBOX_H

#include <liburing.h>

#include "lib/diag.h"

/* Checks that the kernel knows every operation emu-node submits. 0, -EOPNOTSUPP naming the
 * first it does not know, or -errno, with d set. */
int sandbox_ring_check(struct io_uring *ring, struct diag *d);

/* Restricts ring (set up with IORING_SETUP_R_DISABLED) to the operations emu-node submits
 * and enables it. 0 or -errno with d set. */
int sandbox_ring(struct io_uring *ring, struct diag *d);

/* Sets no_new_privs and installs the seccomp filter; everything else fails with EPERM. Call
 * after the privileges are dropped and every socket that needs them is made. 0 or -errno
 * with d set; -EOPNOTSUPP on an architecture the filter does not know. */
int sandbox_enter(struct diag *d);

#endif
