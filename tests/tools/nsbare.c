// SPDX-License-Identifier: MIT
/* nsbare N PREFIX: the kernel's own cost of N named network namespaces, the floor under any
 * build (make bench): each made by netns_create as `up` makes it (a file under /run/netns
 * created exclusively, unshare(CLONE_NEWNET), a bind mount of the new namespace on it), one
 * after another, with nothing inside: no sysctl, no journal. Prints the seconds they took,
 * then removes those it made (netns_create removes its own on failure). Needs root. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/netns.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char name[128];
	double t0, t1;
	long n, i, made = 0;
	struct diag d = {0};
	int root, r = 0, fd;

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
		snprintf(name, sizeof(name), "%s%ld", argv[2], i);
		r = netns_create(name, root, NULL, NULL, 0, &fd, &d);
		if (!r) {
			close(fd);
			made++;
		}
	}
	t1 = now_s();
	for (i = 0; i < made; i++) {
		snprintf(name, sizeof(name), "%s%ld", argv[2], i);
		(void)netns_delete(name);
	}
	if (r) {
		fprintf(stderr, "nsbare: %s\n", d.msg[0] ? d.msg : strerror(-r));
		return 1;
	}
	printf("%.3f\n", t1 - t0);
	return 0;
}
