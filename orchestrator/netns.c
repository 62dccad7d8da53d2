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

#include "orchestrator/netns.h"

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

int netns_create(const char *name, int root_fd, const struct netns_sysctl *sysctls, int nsysctl,
		 int *fd, struct diag *d)
{
	char path[256];
	int f, r;

	ns_path(path, sizeof(path), name);
	f = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (f < 0)
		return diag_set(d, -errno, "creating %s: %s", path,
				errno == EEXIST ? "a namespace of that name already exists"
						: strerror(errno));
	close(f);
	*fd = -1;
	if (unshare(CLONE_NEWNET)) {
		r = diag_set(d, -errno, "unshare(CLONE_NEWNET): %s", strerror(errno));
		(void)unlink(path);
		return r;
	}
	r = populate(path, sysctls, nsysctl, fd, d);
	if (setns(root_fd, CLONE_NEWNET) && !r)
		r = diag_set(d, -errno, "returning to the root namespace: %s", strerror(errno));
	if (r) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		(void)netns_delete(name);
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
