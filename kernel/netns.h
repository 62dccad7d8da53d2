/* SPDX-License-Identifier: MIT */
/* kernel/ owns the kernel and filesystem effectors: namespaces, rtnetlink, nftables, tc filters,
 * the one file writer (wdir), the monotonic clock, threads. May include: the pure layers (lib,
 * model, policy); nothing of the orchestration above. */
/* Network namespaces bind-mounted under /run/netns (as iproute2 does, so `ip netns exec`
 * works for users), created and entered by the calling thread. */
#ifndef ORCH_NETNS_H
#define ORCH_NETNS_H

#include <sys/stat.h>

#include "lib/diag.h"

#define NETNS_RUN_DIR "/run/netns"

/* A sysctl to write inside a new namespace: path under /proc/sys, value. */
struct netns_sysctl {
	const char *path;
	const char *value;
};

/* Told by netns_create of each thing it made, as soon as it exists and before it is used:
 * kind "nsfile" (the mount point, created exclusively, so ours) and "nsid" (the new
 * namespace, before it is mounted there). A non-zero return abandons the creation. Recording
 * both lets `down` prove a namespace is its own (state.h). The mount point is first made as
 * netns_tmp_path(name, tag), a name no one else uses, and renamed into place only after fn
 * recorded it, so a kill at any moment leaves nothing unrecorded under the real name. */
struct netns_claim {
	int (*fn)(void *arg, const char *kind, const char *name, const struct stat *st);
	void *arg;
	const char *tag; /* unique to the creating process, e.g. ".<pid>.<start time>" */
};

/* "/run/netns/.<name><tag>": where a mount point is made before it gets its name. */
void netns_tmp_path(char *buf, size_t len, const char *name, const char *tag);

/* Makes /run/netns exist and be a shared mount point. 0 or -errno with a message. */
int netns_prepare_dir(struct diag *d) __attribute__((warn_unused_result));

/* Creates namespace `name`, telling claim (may be NULL) what it made, writes the sysctls
 * inside it, and returns an open fd to it in *fd. The calling thread returns to the namespace
 * given by root_fd. Fails with -EEXIST if the name is taken (never adopts, and on failure
 * never removes, a namespace it did not create). */
int netns_create(const char *name, int root_fd, const struct netns_claim *claim,
		 const struct netns_sysctl *sysctls, int nsysctl, int *fd, struct diag *d)
	__attribute__((warn_unused_result));

/* Unmounts and removes /run/netns/<name>; 0 if it is gone (already gone is fine). */
int netns_delete(const char *name);

/* Opens /run/netns/<name>; returns the fd or -errno. */
int netns_open(const char *name);

/* Moves the calling thread into namespace fd; 0 or -errno. */
int netns_enter(int fd);

/* Gives the calling process its own mount namespace with a /sys of the current network
 * namespace, as `ip netns exec` does, so tools reading /sys/class/net see the node. */
int netns_remount_sys(void);

/* Opens path read-only inside namespace fd, returning to root_fd: a file under
 * /proc/thread-self/net/ goes on showing that namespace's counters wherever it is read from.
 * The fd or -errno. */
int netns_open_in(int fd, int root_fd, const char *path);

/* Opens a socket of the given family/protocol inside namespace fd, returning to root_fd. */
int netns_socket(int fd, int root_fd, int domain, int type, int protocol);

#endif
