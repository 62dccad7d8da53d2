// SPDX-License-Identifier: MIT
/* Network namespaces under /run/netns (see netns.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/netns.h"

int netns_prepare_dir(struct diag *d)
{
	if (mkdir(NETNS_RUN_DIR, 0755) && errno != EEXIST)
		return diag_set(d, -errno, "creating %s: %s", NETNS_RUN_DIR, strerror(errno));
	/* iproute2's dance: make the directory a shared mount point so namespace mounts
	 * propagate to other mount namespaces */
	if (!mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL))
		return 0;
	if (errno != EINVAL)
		return diag_set(d, -errno, "making %s shared: %s", NETNS_RUN_DIR, strerror(errno));
	if (mount(NETNS_RUN_DIR, NETNS_RUN_DIR, "none", MS_BIND | MS_REC, NULL))
		return diag_set(d, -errno, "bind-mounting %s: %s", NETNS_RUN_DIR, strerror(errno));
	if (mount("", NETNS_RUN_DIR, "none", MS_SHARED | MS_REC, NULL))
		return diag_set(d, -errno, "making %s shared: %s", NETNS_RUN_DIR, strerror(errno));
	return 0;
}

static void ns_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", NETNS_RUN_DIR, name);
}

static int write_sysctl(const struct netns_sysctl *s)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/%s", s->path);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, s->value, strlen(s->value));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Runs in the new namespace: mount it, open it, write its sysctls. */
static int populate(const char *path, const struct netns_sysctl *sysctls, int nsysctl, int *fd,
		    struct diag *d)
{
	int i, r;

	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL))
		return diag_set(d, -errno, "bind-mounting %s: %s", path, strerror(errno));
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return diag_set(d, -errno, "opening %s: %s", path, strerror(errno));
	for (i = 0; i < nsysctl; i++) {
		r = write_sysctl(&sysctls[i]);
		if (r)
			return diag_set(d, r, "setting %s=%s in %s: %s", sysctls[i].path,
					sysctls[i].value, path, strerror(-r));
	}
	return 0;
}

static int claim_one(const struct netns_claim *c, const char *kind, const char *name,
		     const struct stat *st, struct diag *d)
{
	int r;

	if (!c || !c->fn)
		return 0;
	r = c->fn(c->arg, kind, name, st);
	return r ? diag_set(d, r, "recording %s %s in the journal: %s", kind, name, strerror(-r))
		 : 0;
}

void netns_tmp_path(char *buf, size_t len, const char *name, const char *tag)
{
	snprintf(buf, len, "%s/.%s%s", NETNS_RUN_DIR, name, tag);
}

/* Creates the file, records it, then gives it its name unless that is taken. */
static int place_mount_point(const char *tmp, const char *path, const char *name,
			     const struct netns_claim *c, struct diag *d)
{
	struct stat st;
	int f, r = 0;

	f = open(tmp, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0);
	if (f < 0)
		return diag_set(d, -errno, "creating %s: %s", tmp, strerror(errno));
	if (fstat(f, &st))
		r = diag_set(d, -errno, "stat %s: %s", tmp, strerror(errno));
	close(f);
	r = r ? r : claim_one(c, "nsfile", name, &st, d);
	if (!r && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE))
		r = diag_set(d, -errno, "creating %s: %s", path,
			     errno == EEXIST ? "a namespace of that name already exists"
					     : strerror(errno));
	if (r)
		(void)unlink(tmp);
	return r;
}

/* The mount point, created exclusively: from here on the name is ours. */
static int make_mount_point(const char *path, const char *name, const struct netns_claim *c,
			    struct diag *d)
{
	char tmp[300];
	int f;

	if (c && c->fn) {
		netns_tmp_path(tmp, sizeof(tmp), name, c->tag ? c->tag : "");
		return place_mount_point(tmp, path, name, c, d);
	}
	f = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0);
	if (f < 0)
		return diag_set(d, -errno, "creating %s: %s", path,
				errno == EEXIST ? "a namespace of that name already exists"
						: strerror(errno));
	close(f);
	return 0;
}

/* A new namespace for the calling thread, recorded before anything refers to it. */
static int make_namespace(const char *name, const struct netns_claim *c, struct diag *d)
{
	struct stat st;

	if (unshare(CLONE_NEWNET))
		return diag_set(d, -errno, "unshare(CLONE_NEWNET): %s", strerror(errno));
	if (stat("/proc/thread-self/ns/net", &st))
		return diag_set(d, -errno, "stat of the new namespace: %s", strerror(errno));
	return claim_one(c, "nsid", name, &st, d);
}

int netns_create(const char *name, int root_fd, const struct netns_claim *claim,
		 const struct netns_sysctl *sysctls, int nsysctl, int *fd, struct diag *d)
{
	char path[256];
	int r;

	*fd = -1;
	ns_path(path, sizeof(path), name);
	r = make_mount_point(path, name, claim, d);
	if (r)
		return r;
	r = make_namespace(name, claim, d);
	if (!r)
		r = populate(path, sysctls, nsysctl, fd, d);
	if (setns(root_fd, CLONE_NEWNET) && !r)
		r = diag_set(d, -errno, "returning to the root namespace: %s", strerror(errno));
	if (r) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		(void)netns_delete(name); /* the mount point is ours: made exclusively above */
	}
	return r;
}

int netns_delete(const char *name)
{
	char path[256];

	ns_path(path, sizeof(path), name);
	if (umount2(path, MNT_DETACH) && errno != EINVAL && errno != ENOENT)
		return -errno;
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

int netns_open(const char *name)
{
	char path[256];
	int fd;

	ns_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int netns_enter(int fd)
{
	return setns(fd, CLONE_NEWNET) ? -errno : 0;
}

int netns_open_in(int fd, int root_fd, const char *path)
{
	int f, r, back;

	r = netns_enter(fd);
	if (r)
		return r;
	f = open(path, O_RDONLY | O_CLOEXEC);
	r = f < 0 ? -errno : f;
	back = netns_enter(root_fd);
	if (back && f >= 0)
		close(f);
	return back ? back : r;
}

int netns_socket(int fd, int root_fd, int domain, int type, int protocol)
{
	int s, r;

	r = netns_enter(fd);
	if (r)
		return r;
	s = socket(domain, type | SOCK_CLOEXEC, protocol);
	r = s < 0 ? -errno : s;
	if (netns_enter(root_fd)) {
		if (s >= 0)
			close(s);
		return -errno;
	}
	return r;
}

int netns_remount_sys(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	/* keep our mounts from propagating back to the host */
	if (mount("", "/", "none", MS_SLAVE | MS_REC, NULL))
		return -errno;
	(void)umount2("/sys", MNT_DETACH);
	if (mount("sysfs", "/sys", "sysfs", 0, NULL))
		return -errno;
	return 0;
}
