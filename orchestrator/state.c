// SPDX-License-Identifier: MIT
/* Write-ahead journal of a testbed's runner and namespaces (see state.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orchestrator/scenario_yaml.h"
#include "orchestrator/scenario_yaml_types.h"
#include "orchestrator/state.h"

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
bool state_runner_alive(const struct state_journal *j)
{
	char mine[32], theirs[32];

	if (j->runner <= 1 || !j->runner_start || state_proc_start(j->runner) != j->runner_start)
		return false;
	proc_comm(getpid(), mine, sizeof(mine));
	proc_comm(j->runner, theirs, sizeof(theirs));
	return mine[0] && !strcmp(mine, theirs);
}

int state_create(const char *name, struct state *st, struct diag *d)
{
	char path[512];
	int r;

	memset(st, 0, sizeof(*st));
	st->jfd = -1;
	r = state_name_check(name, d);
	if (r)
		return r;
	snprintf(st->name, sizeof(st->name), "%s", name);
	if (mkdir(STATE_DIR, 0755) && errno != EEXIST)
		return diag_set(d, -errno, "creating %s: %s", STATE_DIR, strerror(errno));
	state_path(path, sizeof(path), name, NULL);
	if (mkdir(path, 0755)) {
		if (errno == EEXIST)
			return diag_set(
				d, -EEXIST,
				"testbed '%s' is already up (state in %s); run 'testbed down %s' "
				"to remove it first",
				name, path, name);
		return diag_set(d, -errno, "creating %s: %s", path, strerror(errno));
	}
	state_path(path, sizeof(path), name, "journal");
	st->jfd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (st->jfd < 0)
		r = diag_set(d, -errno, "creating %s: %s", path, strerror(errno));
	else
		r = state_record(st, "runner %d %llu", (int)getpid(), state_proc_start(getpid()));
	snprintf(st->tag, sizeof(st->tag), ".%d.%llu", (int)getpid(), state_proc_start(getpid()));
	if (r) { /* nothing was made yet: the claim goes */
		diag_set(d, r, "writing %s: %s", path, strerror(-r));
		state_close(st);
		(void)state_remove(name);
	}
	return r;
}

int state_record(struct state *st, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return -EINVAL;
	line[n++] = '\n';
	/* one write per record: O_APPEND makes it atomic, and it survives our SIGKILL */
	return write(st->jfd, line, (size_t)n) == n ? 0 : -EIO;
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
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			(void)unlinkat(dfd, e->d_name, 0);
	closedir(dir);
	return rmdir(path) && errno != ENOENT ? -errno : 0;
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
