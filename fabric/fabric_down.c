// SPDX-License-Identifier: MIT
/* Teardown from the journal alone (fabric.h): works after `up` was killed at any point, stops
 * an `up` that is still running first, and removes only namespaces whose identity the journal
 * recorded as they were made. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fabric/fabric.h"
#include "kernel/netns.h"
#include "kernel/wdir.h"

#define DOWN_GRACE_MS 1500 /* a running `up` gets this long to stop and roll back */

/* What the journal proves of a namespace path as it is now. */
enum ns_proof {
	NS_GONE,
	NS_MOUNTED, /* the namespace `up` made, mounted where it put it */
	NS_FILE, /* only the mount point `up` made (killed before mounting) */
	NS_FOREIGN, /* something else by that name: never touched */
};

struct ns_id {
	dev_t dev;
	ino_t ino;
};

static bool same(const struct stat *st, dev_t dev, ino_t ino)
{
	return st->st_dev == dev && st->st_ino == ino;
}

static void ns_file(char *buf, size_t len, const struct state_ns *e)
{
	snprintf(buf, len, "%s/%s", NETNS_RUN_DIR, e->name);
}

/* The host's own namespaces are never a testbed's, whatever a journal says. */
static bool is_host_ns(const struct stat *st)
{
	struct stat h;

	return (!stat("/proc/1/ns/net", &h) && same(st, h.st_dev, h.st_ino)) ||
	       (!stat("/proc/self/ns/net", &h) && same(st, h.st_dev, h.st_ino));
}

/* A plain file of /run/netns itself, nothing mounted on it. */
static bool unmounted_file(const struct stat *st)
{
	struct stat dir;

	return S_ISREG(st->st_mode) && !stat(NETNS_RUN_DIR, &dir) && st->st_dev == dir.st_dev;
}

static enum ns_proof ns_prove(const struct state_ns *e)
{
	char path[512];
	struct stat st;

	ns_file(path, sizeof(path), e);
	if (lstat(path, &st))
		return errno == ENOENT ? NS_GONE : NS_FOREIGN;
	if (is_host_ns(&st))
		return NS_FOREIGN;
	if (e->have_ns && same(&st, e->ns_dev, e->ns_ino))
		return NS_MOUNTED;
	if (e->have_file && same(&st, e->file_dev, e->file_ino) && unmounted_file(&st))
		return NS_FILE;
	return NS_FOREIGN;
}

static int cmp_id(const void *a, const void *b)
{
	const struct ns_id *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Whether process pid lives in one of the namespaces (sorted). */
static bool pid_inside(const char *pid, const struct ns_id *ids, size_t n)
{
	struct ns_id key;
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/net", pid);
	if (stat(path, &st))
		return false;
	key = (struct ns_id){st.st_dev, st.st_ino};
	return bsearch(&key, ids, n, sizeof(*ids), cmp_id) != NULL;
}

/* Signals every process inside the namespaces; returns how many were found. */
static int signal_inside(const struct ns_id *ids, size_t n, int sig)
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
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || atoi(e->d_name) == getpid() ||
		    !pid_inside(e->d_name, ids, n))
			continue;
		found++;
		(void)kill(atoi(e->d_name), sig);
	}
	closedir(dir);
	return found;
}

/* SIGTERM to the processes in the proven namespaces, up to 1 s of grace, then SIGKILL. */
static void kill_inside(const struct state_journal *j, const enum ns_proof *proof)
{
	struct timespec ts = {0, 20 * 1000 * 1000};
	struct ns_id *ids = malloc((j->netns.n + 1) * sizeof(*ids));
	size_t i, n = 0;
	int k;

	if (!ids)
		return;
	for (i = 0; i < j->netns.n; i++)
		if (proof[i] == NS_MOUNTED)
			ids[n++] = (struct ns_id){j->netns.v[i].ns_dev, j->netns.v[i].ns_ino};
	qsort(ids, n, sizeof(*ids), cmp_id);
	if (signal_inside(ids, n, SIGTERM)) {
		for (k = 0; k < 50 && signal_inside(ids, n, 0); k++)
			nanosleep(&ts, NULL);
		(void)signal_inside(ids, n, SIGKILL);
	}
	free(ids);
}

/* Unmounts a proven namespace and removes the mount point `up` made under it. */
static int ns_remove(const struct state_ns *e, enum ns_proof p, struct diag *d)
{
	char path[512];
	struct stat st;

	ns_file(path, sizeof(path), e);
	if (p == NS_MOUNTED && umount2(path, MNT_DETACH) && errno != EINVAL && errno != ENOENT)
		return diag_set(d, -errno, "unmounting %s: %s", path, strerror(errno));
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : diag_set(d, -errno, "%s: %s", path, strerror(errno));
	if (!e->have_file || !same(&st, e->file_dev, e->file_ino))
		return diag_set(d, -EEXIST, "%s: not the mount point 'up' made; left alone", path);
	if (unlink(path) && errno != ENOENT)
		return diag_set(d, -errno, "removing %s: %s", path, strerror(errno));
	return 0;
}

static bool wait_runner_gone(const struct state_journal *j, int ms)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	int k;

	for (k = 0; k < ms / 10; k++) {
		if (!state_runner_alive(j))
			return true;
		nanosleep(&ts, NULL);
	}
	return !state_runner_alive(j);
}

/* An `up` still running for this testbed is stopped first: it would otherwise go on and
 * restart its emu-nodes in what down removes. Told by sigqueue's value that `down` asks, it
 * abandons the run and rolls back itself; if it has not within the grace, it is killed. */
static void stop_runner(const struct state_journal *j, struct fabric_down_info *info)
{
	union sigval v = {.sival_int = STATE_DOWN_SIGVAL};

	if (j->runner == getpid() || j->detached || !state_runner_alive(j))
		return;
	info->runner = j->runner;
	if (sigqueue(j->runner, SIGTERM, v))
		return;
	if (wait_runner_gone(j, DOWN_GRACE_MS))
		return;
	info->runner_killed = true;
	(void)kill(j->runner, SIGKILL);
	(void)wait_runner_gone(j, 500);
}

/* Removes the namespaces the journal proves were made by this testbed, last made first. */
static int remove_namespaces(const struct state_journal *j, struct fabric_down_info *info,
			     struct diag *d)
{
	enum ns_proof *proof = calloc(j->netns.n + 1, sizeof(*proof));
	char tag[48], tmp[300];
	size_t i;
	int r, first = 0;

	if (!proof)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < j->netns.n; i++) {
		proof[i] = ns_prove(&j->netns.v[i]);
		if (proof[i] == NS_FOREIGN && !info->foreign++)
			snprintf(info->first_foreign, sizeof(info->first_foreign), "%s",
				 j->netns.v[i].name);
	}
	kill_inside(j, proof);
	state_journal_tag(j, tag, sizeof(tag));
	for (i = j->netns.n; i-- > 0;) {
		if (tag[0]) { /* a mount point not yet named: the tag makes it the runner's */
			netns_tmp_path(tmp, sizeof(tmp), j->netns.v[i].name, tag);
			(void)unlink(tmp);
		}
		if (proof[i] != NS_MOUNTED && proof[i] != NS_FILE)
			continue;
		r = ns_remove(&j->netns.v[i], proof[i], d);
		info->removed += !r;
		first = first ? first : r;
	}
	free(proof);
	return first;
}

/* The results folders a killed run made and left empty go, innermost first; one written
 * into, or no longer the one made, stays. */
static void prune_folders(const struct state_journal *j)
{
	size_t i;

	for (i = j->folders.n; i-- > 0;)
		(void)wdir_prune_path(j->folders.v[i].path, j->folders.v[i].dev,
				      j->folders.v[i].ino);
}

/* One `down` at a time: the journal's lock, then the journal read afresh and the testbed's
 * running `up` stopped. 0 with *fd held; -EALREADY when the `down` waited for removed it. */
static int claim(const char *name, struct fabric_down_info *info, int *fd, struct diag *d)
{
	struct state_journal j;
	bool waited;
	int r = state_lock(name, "journal", fd, &waited);

	if (!waited)
		info->waited_for = 0;
	else if (!info->waited_for)
		info->waited_for = -1; /* one that began after the journal was first read */
	if (r == -ENOENT)
		return -EALREADY;
	if (r)
		return diag_set(d, r, "locking the journal of '%s': %s", name, strerror(-r));
	r = state_journal_read(name, &j, d);
	if (!r)
		stop_runner(&j, info);
	state_journal_done(&j);
	return r == -ENOENT ? -EALREADY : r;
}

/* Removes what the journal lists, holding the remover's lock (which a stopped `up` holds
 * while it rolls back: 0 once it has, and nothing is left to do). */
static int remove_all(const char *name, struct fabric_down_info *info, struct diag *d)
{
	struct state_journal j;
	bool waited;
	int fd, r = state_lock(name, NULL, &fd, &waited);

	if (r == -ENOENT)
		return info->runner ? 0 : -EALREADY;
	if (r)
		return diag_set(d, r, "locking the state of '%s': %s", name, strerror(-r));
	(void)state_record_down(name); /* from here on a kill leaves it incomplete */
	r = state_journal_read(name, &j, d); /* what is left now */
	r = r ? r : remove_namespaces(&j, info, d);
	if (!r)
		prune_folders(&j);
	state_journal_done(&j);
	r = r ? r : state_remove(name);
	close(fd);
	if (r && !d->msg[0])
		diag_set(d, r, "removing the state of '%s': %s", name, strerror(-r));
	return r;
}

int fabric_down(const char *name, struct fabric_down_info *info, struct diag *d)
{
	struct fabric_down_info none;
	struct state_journal j;
	int r, fd = -1;
	bool runner;

	info = info ? info : &none;
	memset(info, 0, sizeof(*info));
	r = state_journal_read(name, &j, d);
	if (r == -ENOENT && state_exists(name)) { /* a `down` killed as it removed the folder */
		diag_clear(d);
		r = state_remove(name);
		return r ? diag_set(d, r, "removing the state of '%s': %s", name, strerror(-r)) : 0;
	}
	if (r)
		return r;
	runner = j.runner == getpid(); /* `up` rolling back or tearing down its own */
	info->waited_for = state_down_alive(&j) ? j.down : 0;
	state_journal_done(&j);
	r = runner ? 0 : claim(name, info, &fd, d);
	r = r ? r : remove_all(name, info, d);
	if (fd >= 0)
		close(fd);
	return r;
}
