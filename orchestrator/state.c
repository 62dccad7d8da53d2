// SPDX-License-Identifier: MIT
/* Write-ahead journal of a testbed's kernel objects (see state.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orchestrator/state.h"

void state_path(char *buf, size_t len, const char *name, const char *file)
{
	if (file)
		snprintf(buf, len, "%s/%s/%s", STATE_DIR, name, file);
	else
		snprintf(buf, len, "%s/%s", STATE_DIR, name);
}

int state_create(const char *name, struct state *st, struct diag *d)
{
	char path[512];

	memset(st, 0, sizeof(*st));
	st->jfd = -1;
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
	st->jfd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (st->jfd < 0)
		return diag_set(d, -errno, "creating %s: %s", path, strerror(errno));
	return 0;
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

void state_close(struct state *st)
{
	if (st->jfd >= 0)
		close(st->jfd);
	st->jfd = -1;
}

static int journal_line(struct state_journal *j, char *line)
{
	char *arg = strchr(line, ' '), *copy;

	if (!strcmp(line, "complete")) {
		j->complete = true;
		return 0;
	}
	if (!arg)
		return 0; /* a torn last line from a kill: nothing was made for it */
	*arg++ = '\0';
	if (!strcmp(line, "pid"))
		return vec_push(&j->pids, (pid_t)atoi(arg));
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	if (!strcmp(line, "ns") && !vec_push(&j->netns, copy))
		return 0;
	if (!strcmp(line, "scenario") && !j->scenario) {
		j->scenario = copy;
		return 0;
	}
	free(copy);
	return 0;
}

int state_journal_read(const char *name, struct state_journal *j, struct diag *d)
{
	char path[512], line[512];
	FILE *f;
	int r = 0;

	memset(j, 0, sizeof(*j));
	state_path(path, sizeof(path), name, "journal");
	f = fopen(path, "re");
	if (!f)
		return diag_set(d, -errno, "no testbed named '%s' (%s: %s)", name, path,
				strerror(errno));
	while (!r && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		r = journal_line(j, line);
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
		free(j->netns.v[i]);
	vec_free(&j->netns);
	vec_free(&j->pids);
	free(j->scenario);
	j->scenario = NULL;
}

int state_remove(const char *name)
{
	char path[512];
	struct dirent *e;
	DIR *dir;
	int dfd;

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
		if (e->d_name[0] == '.')
			continue;
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
