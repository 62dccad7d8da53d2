// SPDX-License-Identifier: MIT
/* nsbare N PREFIX: the kernel's own cost of N named network namespaces, the floor under any
 * build (make bench): each made as `ip netns add` makes it, one after another (a file under
 * /run/netns created exclusively, unshare(CLONE_NEWNET), a bind mount of the new namespace on
 * it), with nothing inside. Prints the seconds they took, then removes them all (also those
 * made before a failure). Needs root. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "kernel/netns.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One namespace at path; the calling thread returns to root. 0 or -errno; *made says whether
 * the file at path is ours (created here), to be removed. */
static int make_one(const char *path, int root, int *made)
{
	int f = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0);
	int r = 0;

	*made = f >= 0;
	if (f < 0)
		return -errno;
	close(f);
	if (unshare(CLONE_NEWNET))
		return -errno;
	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND, NULL))
		r = -errno;
	if (setns(root, CLONE_NEWNET) && !r)
		r = -errno;
	return r;
}

int main(int argc, char **argv)
{
	char path[256];
	double t0, t1;
	long n, i, made = 0;
	struct diag d = {0};
	int root, r = 0, ours = 0;

	if (argc != 3 || (n = strtol(argv[1], NULL, 10)) < 1 || strlen(argv[2]) > 64) {
		fprintf(stderr, "usage: nsbare N PREFIX\n");
		return 2;
	}
	root = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (root < 0 || netns_prepare_dir(&d)) {
		fprintf(stderr, "nsbare: %s\n", d.msg[0] ? d.msg : strerror(errno));
		return 1;
	}
	t0 = now_s();
	for (i = 0; !r && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s%ld", NETNS_RUN_DIR, argv[2], i);
		r = make_one(path, root, &ours);
		made += ours; /* a file it made, mounted or not */
	}
	t1 = now_s();
	for (i = 0; i < made; i++) {
		snprintf(path, sizeof(path), "%s%ld", argv[2], i);
		(void)netns_delete(path);
	}
	if (r) {
		fprintf(stderr, "nsbare: namespace %ld: %s\n", i - 1, strerror(-r));
		return 1;
	}
	printf("%.3f\n", t1 - t0);
	return 0;
}
