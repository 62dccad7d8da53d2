// SPDX-License-Identifier: MIT
/* Write-ahead journal of a testbed's runner and namespaces (see state.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario/scenario_yaml.h"
#include "scenario/scenario_yaml_types.h"
#include "fabric/state.h"

int state_name_check(const char *name, struct diag *d)
{
	const char *why;
	char buf[32];

	why = scn_yaml_name_why(name, SCN_YAML_NAME_LEN, buf, sizeof(buf));
	if (!why)
		return 0;
	return diag_set(d, -EINVAL,
			"testbed name: expected 1 to %d characters [a-z0-9-], found '%.64s'%s",
			SCN_YAML_NAME_LEN, name, why);
}

void state_path(char *buf, size_t len, const char *name, const char *file)
{
	if (file)
		snprintf(buf, len, "%s/%s/%s", STATE_DIR, name, file);
	else
		snprintf(buf, len, "%s/%s", STATE_DIR, name);
}

unsigned long long state_proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	for (i = 3, p += 2; p && i < 22; i++) { /* field 3 is the state, 22 the start time */
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	if (p)
		start = strtoull(p, NULL, 10);
	return start;
}

void state_journal_tag(const struct state_journal *j, char *buf, size_t len)
{
	if (j->runner > 1 && j->runner_start)
		snprintf(buf, len, ".%d.%llu", (int)j->runner, j->runner_start);
	else if (len)
		buf[0] = '\0';
}

/* The command name of process pid ("testbed"), or "" if it cannot be read. */
static void proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
}

/* Alive, the same process (its start time), and running this program: a pid reused by
 * anything else is not signalled. */
static bool proc_is_ours(pid_t pid, unsigned long long start)
{
	char mine[32], theirs[32];

	if (pid <= 1 || !start || state_proc_start(pid) != start)
		return false;
	proc_comm(getpid(), mine, sizeof(mine));
	proc_comm(pid, theirs, sizeof(theirs));
	return mine[0] && !strcmp(mine, theirs);
}

bool state_runner_alive(const struct state_journal *j)
{
	return proc_is_ours(j->runner, j->runner_start);
}

bool state_down_alive(const struct state_journal *j)
{
	return j->down != getpid() && proc_is_ours(j->down, j->down_start);
}

int state_record_down(const char *name)
{
	char path[512], line[64];
	int fd, n, r = 0;

	state_path(path, sizeof(path), name, "journal");
	fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "down %d %llu\n", (int)getpid(),
		     state_proc_start(getpid()));
	if (write(fd, line, (size_t)n) != n) /* one write: atomic with O_APPEND */
		r = -EIO;
	close(fd);
	return r;
}

/* Whether fd is still the file at path (not removed, nor removed and made again). */
static bool still_there(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && a.st_nlink > 0 && !lstat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int state_lock(const char *name, const char *file, int *fd, bool *waited)
{
	char path[512];

	*fd = -1;
	*waited = false;
	if (state_name_check(name, NULL))
		return -EINVAL;
	state_path(path, sizeof(path), name, file);
	*fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (file ? 0 : O_DIRECTORY));
	if (*fd < 0)
		return -errno;
	if (flock(*fd, LOCK_EX | LOCK_NB)) {
		*waited = true;
		while (flock(*fd, LOCK_EX))
			if (errno != EINTR)
				break;
	}
	if (still_there(*fd, path))
		return 0;
	close(*fd);
	*fd = -1;
	return -ENOENT;
}

/* /run/testbed/<name>/, new, into st->dir: -EEXIST saying how to remove the old one. */
static int claim(const char *name, struct state *st, struct diag *d)
{
	struct wdir top;
	struct diag dd = {0};
	int r = wdir_open(&top, STATE_DIR, WDIR_CREATE | WDIR_STRICT, d);

	r = r ? r : wdir_sub(&st->dir, &top, name, WDIR_CREATE | WDIR_EXCL | WDIR_STRICT, &dd);
	wdir_close(&top);
	if (r == -EEXIST)
		return diag_set(d, r,
				"testbed '%s' is already up (state in %s/%s); run 'testbed down "
				"%s' to remove it first",
				name, STATE_DIR, name, name);
	return r ? diag_set(d, r, "%s", dd.msg) : 0;
}

int state_create(const char *name, struct state *st, struct diag *d)
{
	int r;

	memset(st, 0, sizeof(*st));
	st->jfd = -1;
	st->dir = (struct wdir)WDIR_INIT;
	r = state_name_check(name, d);
	r = r ? r : claim(name, st, d);
	if (r)
		return r;
	snprintf(st->name, sizeof(st->name), "%s", name);
	st->jfd = wdir_create(&st->dir, "journal", O_APPEND, d);
	r = st->jfd < 0
		    ? st->jfd
		    : state_record(st, "runner %d %llu", (int)getpid(), state_proc_start(getpid()));
	snprintf(st->tag, sizeof(st->tag), ".%d.%llu", (int)getpid(), state_proc_start(getpid()));
	if (r) { /* nothing was made yet: the claim goes */
		diag_set(d, r, "writing %s/journal: %s", st->dir.path, strerror(-r));
		state_close(st);
		(void)state_remove(name);
	}
	return r;
}

/* Whether s holds a control character: a record is one line, so that a name with a newline
 * (a results path, a scenario's) cannot add a record of its own. */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

int state_record(struct state *st, const char *fmt, ...)
{
	char line[WDIR_PATH_MAX + 64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1 || has_control(line))
		return -EINVAL;
	line[n++] = '\n';
	/* one write per record: O_APPEND makes it atomic, and it survives our SIGKILL */
	return write(st->jfd, line, (size_t)n) == n ? 0 : -EIO;
}

int state_record_folder(struct state *st, const struct wdir *w)
{
	char path[WDIR_PATH_MAX];
	dev_t dev;
	ino_t ino;
	int r;

	if (!w || w->fd < 0 || !w->made)
		return 0;
	r = wdir_identify(w, path, sizeof(path), &dev, &ino);
	return r ? r
		 : state_record(st, "folder %llu %llu %s", (unsigned long long)dev,
				(unsigned long long)ino, path);
}

int state_record_claim(void *arg, const char *kind, const char *name, const struct stat *st)
{
	return state_record(arg, "%s %s %llu %llu", kind, name, (unsigned long long)st->st_dev,
			    (unsigned long long)st->st_ino);
}

void state_close(struct state *st)
{
	if (st->jfd >= 0)
		close(st->jfd);
	st->jfd = -1;
	wdir_close(&st->dir);
}

/* Whether ns is "tb-<name>-<node>" with a node name of the parser's characters: anything else
 * (a path, another testbed's namespace) is never acted on. */
static bool ns_ours(const char *name, const char *ns)
{
	size_t k = strlen(name);
	const char *p;

	if (strncmp(ns, "tb-", 3) || strncmp(ns + 3, name, k) || ns[3 + k] != '-')
		return false;
	for (p = ns + 4 + k; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return false;
	return p > ns + 4 + k && p - ns < 128;
}

static struct state_ns *ns_find(struct state_journal *j, const char *ns)
{
	size_t i;

	for (i = j->netns.n; i-- > 0;)
		if (!strcmp(j->netns.v[i].name, ns))
			return &j->netns.v[i];
	return NULL;
}

static int ns_add(struct state_journal *j, const char *ns)
{
	struct state_ns *e;

	if (ns_find(j, ns))
		return 0;
	e = vec_grow(&j->netns);
	if (!e || !(e->name = strdup(ns))) {
		if (e)
			j->netns.n--;
		return -ENOMEM;
	}
	return 0;
}

/* "nsfile NAME DEV INO" or "nsid NAME DEV INO": the identity of a namespace named before. */
static void ns_claim(struct state_journal *j, const char *kind, char *arg)
{
	unsigned long long dev, ino;
	char ns[128];
	struct state_ns *e;

	if (sscanf(arg, "%127s %llu %llu", ns, &dev, &ino) != 3 || !(e = ns_find(j, ns))) {
		j->ignored++;
		return;
	}
	if (!strcmp(kind, "nsfile")) {
		e->have_file = true;
		e->file_dev = (dev_t)dev;
		e->file_ino = (ino_t)ino;
	} else {
		e->have_ns = true;
		e->ns_dev = (dev_t)dev;
		e->ns_ino = (ino_t)ino;
	}
}

/* "folder DEV INO PATH": a results folder the run made. */
static int folder_line(struct state_journal *j, const char *arg)
{
	unsigned long long dev, ino;
	struct state_folder *f;
	int at = 0;

	if (sscanf(arg, "%llu %llu %n", &dev, &ino, &at) != 2 || !at || arg[at] != '/') {
		j->ignored++;
		return 0;
	}
	f = vec_grow(&j->folders);
	if (!f || !(f->path = strdup(arg + at))) {
		if (f)
			j->folders.n--;
		return -ENOMEM;
	}
	f->dev = (dev_t)dev;
	f->ino = (ino_t)ino;
	return 0;
}

static int journal_line(const char *name, struct state_journal *j, char *line)
{
	char *arg = strchr(line, ' ');

	if (!strcmp(line, "complete") || !strcmp(line, "detached")) {
		*(line[0] == 'c' ? &j->complete : &j->detached) = true;
		return 0;
	}
	if (!arg)
		return 0; /* a torn last line from a kill: nothing was made for it */
	*arg++ = '\0';
	if (!strcmp(line, "down")) {
		int pid = 0;

		if (sscanf(arg, "%d %llu", &pid, &j->down_start) == 2 && pid > 1)
			j->down = pid;
		return 0;
	}
	if (!strcmp(line, "runner")) {
		int pid = 0;

		if (sscanf(arg, "%d %llu", &pid, &j->runner_start) == 2 && pid > 1)
			j->runner = pid;
		return 0;
	}
	if (!strcmp(line, "ns")) {
		if (ns_ours(name, arg))
			return ns_add(j, arg);
		j->ignored++;
		return 0;
	}
	if (!strcmp(line, "folder"))
		return folder_line(j, arg);
	if (!strcmp(line, "nsfile") || !strcmp(line, "nsid"))
		ns_claim(j, line, arg);
	else if (!strcmp(line, "scenario") && !j->scenario && !(j->scenario = strdup(arg)))
		return -ENOMEM;
	return 0;
}

int state_journal_read(const char *name, struct state_journal *j, struct diag *d)
{
	char path[512], line[512];
	FILE *f;
	int r;

	memset(j, 0, sizeof(*j));
	r = state_name_check(name, d);
	if (r)
		return r;
	state_path(path, sizeof(path), name, "journal");
	f = fopen(path, "re");
	if (!f)
		return diag_set(d, -errno, "no testbed named '%s' (%s: %s)", name, path,
				strerror(errno));
	while (!r && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		r = journal_line(name, j, line);
	}
	fclose(f);
	if (r)
		diag_set(d, r, "reading %s: out of memory", path);
	return r;
}

void state_journal_done(struct state_journal *j)
{
	size_t i;

	for (i = 0; i < j->netns.n; i++)
		free(j->netns.v[i].name);
	vec_free(&j->netns);
	for (i = 0; i < j->folders.n; i++)
		free(j->folders.v[i].path);
	vec_free(&j->folders);
	free(j->scenario);
	j->scenario = NULL;
}

int state_remove(const char *name)
{
	char path[512];
	struct dirent *e;
	DIR *dir;
	int dfd;

	if (state_name_check(name, NULL))
		return -EINVAL;
	state_path(path, sizeof(path), name, NULL);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	dfd = dirfd(dir);
	while ((e = readdir(dir))) /* the journal last: killed here, the testbed is still one */
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, "journal"))
			(void)unlinkat(dfd, e->d_name, 0);
	(void)unlinkat(dfd, "journal", 0);
	closedir(dir);
	return rmdir(path) && errno != ENOENT ? -errno : 0;
}

bool state_exists(const char *name)
{
	char path[512];
	struct stat st;

	state_path(path, sizeof(path), name, NULL);
	return !state_name_check(name, NULL) && !lstat(path, &st) && S_ISDIR(st.st_mode);
}

int state_list(char ***names, size_t *n)
{
	VEC(char *) v = {0};
	struct dirent *e;
	DIR *dir;
	char *c;

	*names = NULL;
	*n = 0;
	dir = opendir(STATE_DIR);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(dir))) {
		if (state_name_check(e->d_name, NULL))
			continue; /* not a testbed's: `up` only makes valid names */
		c = strdup(e->d_name);
		if (!c || vec_push(&v, c)) {
			free(c);
			break;
		}
	}
	closedir(dir);
	*names = v.v;
	*n = v.n;
	return 0;
}
