// SPDX-License-Identifier: MIT
/* Teardown from the journal alone (fabric.h): works after `up` was killed at any point. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "orchestrator/fabric.h"
#include "orchestrator/netns.h"

static int cmp_ino(const void *a, const void *b)
{
	ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;

	return x < y ? -1 : x > y;
}

/* Inodes of the journal's namespaces that still exist, sorted. */
static size_t ns_inodes(const struct state_journal *j, ino_t *out)
{
	char path[512];
	struct stat st;
	size_t i, n = 0;

	for (i = 0; i < j->netns.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, j->netns.v[i]);
		if (!stat(path, &st))
			out[n++] = st.st_ino;
	}
	qsort(out, n, sizeof(*out), cmp_ino);
	return n;
}

/* Whether process pid lives in one of the namespaces. */
static bool pid_inside(const char *pid, const ino_t *inos, size_t n)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/net", pid);
	if (stat(path, &st))
		return false;
	return bsearch(&st.st_ino, inos, n, sizeof(*inos), cmp_ino) != NULL;
}

/* Signals every process inside the namespaces; returns how many were found. */
static int signal_inside(const ino_t *inos, size_t n, int sig)
{
	struct dirent *e;
	int found = 0;
	DIR *dir;

	if (!n)
		return 0;
	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((e = readdir(dir))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || !pid_inside(e->d_name, inos, n))
			continue;
		found++;
		(void)kill(atoi(e->d_name), sig);
	}
	closedir(dir);
	return found;
}

/* SIGTERM, a grace period of up to 1 s, then SIGKILL for what is left. */
static void kill_inside(const struct state_journal *j)
{
	struct timespec ts = {0, 20 * 1000 * 1000};
	ino_t *inos = malloc((j->netns.n + 1) * sizeof(*inos));
	size_t n;
	int i;

	if (!inos)
		return;
	n = ns_inodes(j, inos);
	if (signal_inside(inos, n, SIGTERM)) {
		for (i = 0; i < 50 && signal_inside(inos, n, 0); i++)
			nanosleep(&ts, NULL);
		(void)signal_inside(inos, n, SIGKILL);
	}
	free(inos);
}

int fabric_down(const char *name, struct diag *d)
{
	struct state_journal j;
	size_t i;
	int r, first = 0;

	r = state_journal_read(name, &j, d);
	if (r)
		return r;
	kill_inside(&j);
	for (i = j.netns.n; i-- > 0;) {
		r = netns_delete(j.netns.v[i]);
		if (r && !first)
			first = diag_set(d, r, "deleting namespace %s: %s", j.netns.v[i],
					 strerror(-r));
	}
	state_journal_done(&j);
	if (first)
		return first;
	r = state_remove(name);
	if (r)
		return diag_set(d, r, "removing the state of '%s': %s", name, strerror(-r));
	return 0;
}
