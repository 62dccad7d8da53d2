// SPDX-License-Identifier: MIT
/* gnuplot on the plots of collect/plot.h (plot_run.h): files written, one gnuplot process
 * per script, run in a folder of our own with its output in gnuplot.log, then moved into the
 * plots folder. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/plot_run.h"

#define GNUPLOT "gnuplot"

/* Runs gnuplot on script in the folder dir, appending its output to log_fd. Its exit status,
 * 127 if it could not be started, or -errno. Spawned, not forked: a large run's page tables are
 * not copied for it. */
static int gnuplot(int dir, const char *script, int log_fd)
{
	/* its defaults, not the caller's ~/.gnuplot, and an environment of our own: under sudo
	 * it runs as root */
	char *argv[] = {GNUPLOT, "-d", (char *)script, NULL};
	char *envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C.UTF-8", NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, r;

	r = posix_spawn_file_actions_init(&fa);
	if (r)
		return -r;
	r = posix_spawn_file_actions_addfchdir_np(&fa, dir);
	r = r ? r : posix_spawn_file_actions_adddup2(&fa, log_fd, STDOUT_FILENO);
	r = r ? r : posix_spawn_file_actions_adddup2(&fa, log_fd, STDERR_FILENO);
	r = r ? r : posix_spawnp(&pid, GNUPLOT, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (r == ENOENT)
		return 127;
	if (r)
		return -r;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static bool is_script(const char *name)
{
	size_t n = strlen(name);

	return n >= 3 && !strcmp(name + n - 3, ".gp");
}

/* gnuplot on every script of p in the render folder, its output into its gnuplot.log. */
static int run_scripts(const struct wdir *rd, const char *shown, const struct col_plots *p,
		       struct diag *d)
{
	struct wfile log;
	int st, err;
	size_t i;

	err = wfile_open(&log, rd, "gnuplot.log", 0, d);
	for (i = 0; !err && i < p->files.n; i++) {
		if (!is_script(p->files.v[i].name))
			continue;
		st = gnuplot(rd->fd, p->files.v[i].name, log.fd);
		if (st == 127)
			err = diag_set(d, -ENOENT,
				       "gnuplot is not installed (make deps installs it); the "
				       "scripts are in %s",
				       shown);
		else if (st)
			err = diag_set(d, st < 0 ? st : -EIO,
				       "gnuplot failed on %s/%s (see %s/gnuplot.log)", shown,
				       p->files.v[i].name, shown);
	}
	if (log.fd >= 0)
		(void)wfile_commit(&log, NULL); /* kept also when a script failed: it says why */
	return err;
}

static int not_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
}

/* Every file of the render folder moved into to (over an earlier report's), or removed. */
static int move_out(const struct wdir *rd, const struct wdir *to, struct diag *d)
{
	struct dirent **v;
	int i, n = scandirat(rd->fd, ".", &v, not_dots, alphasort), err = 0;

	if (n < 0)
		return diag_set(d, -errno, "%s: %s", rd->path, strerror(errno));
	for (i = 0; i < n; i++) {
		if (!err)
			err = wdir_move(rd, v[i]->d_name, to, WDIR_REPLACE, d);
		if (err && unlinkat(rd->fd, v[i]->d_name, 0) && errno == EISDIR)
			(void)unlinkat(rd->fd, v[i]->d_name, AT_REMOVEDIR);
		free(v[i]);
	}
	free(v);
	return err;
}

/* p's files, and what gnuplot makes of them, made in a folder of our own inside plots (so
 * gnuplot, which writes by name, meets no link) and then moved into it. */
static int render(const struct wdir *plots, const struct col_plots *p, struct diag *d)
{
	struct wdir rd;
	size_t i;
	int err = wdir_new(&rd, plots, ".render", "", d);

	for (i = 0; !err && i < p->files.n; i++)
		err = wdir_write(&rd, p->files.v[i].name, p->files.v[i].text, p->files.v[i].len, 0,
				 d);
	err = err ? err : run_scripts(&rd, plots->path, p, d);
	if (rd.fd >= 0) {
		int m = move_out(&rd, plots, d);

		err = err ? err : m;
		wdir_prune(&rd);
	}
	return err;
}

int plot_write(const struct wdir *dir, const struct col_plots *p, struct diag *d)
{
	struct wdir plots;
	int r;

	if (!p->files.n)
		return 0;
	r = wdir_sub(&plots, dir, PLOT_DIR, WDIR_CREATE, d);
	r = r ? r : render(&plots, p, d);
	wdir_close(&plots);
	return r;
}

int plot_run_make(struct col_plots *p, const struct rec_run *r, const struct col_metrics *m,
		  const struct col_topo_info *ti, const struct res_info *info, struct diag *d)
{
	char title[200];
	int err;

	snprintf(title, sizeof(title), "%s %s", info->scenario, info->run_id);
	err = col_plot_run(p, r, m, ti, title, col_clock_of(info->backend));
	return err ? diag_set(d, err, "plots: out of memory") : 0;
}
