// SPDX-License-Identifier: MIT
/* gnuplot on the plots of collect/plot.h (plot_run.h): files written, one gnuplot process
 * per script, run in the plots folder with its output in gnuplot.log. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "orchestrator/plot_run.h"

#define GNUPLOT "gnuplot"

/* Runs gnuplot on script in dir, appending its output to log_fd. Its exit status, 127 if
 * it could not be started, or -errno. Spawned, not forked: a large run's page tables are
 * not copied for it. */
static int gnuplot(const char *dir, const char *script, int log_fd)
{
	char *argv[] = {GNUPLOT, (char *)script, NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, r;

	r = posix_spawn_file_actions_init(&fa);
	if (r)
		return -r;
	r = posix_spawn_file_actions_addchdir_np(&fa, dir);
	r = r ? r : posix_spawn_file_actions_adddup2(&fa, log_fd, STDOUT_FILENO);
	r = r ? r : posix_spawn_file_actions_adddup2(&fa, log_fd, STDERR_FILENO);
	r = r ? r : posix_spawnp(&pid, GNUPLOT, &fa, NULL, argv, environ);
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

static int run_scripts(const char *pdir, const struct col_plots *p, struct diag *d)
{
	char log[1200];
	int fd, st, err = 0;
	size_t i, n;

	snprintf(log, sizeof(log), "%s/gnuplot.log", pdir);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return diag_set(d, -errno, "%s: %s", log, strerror(errno));
	for (i = 0; !err && i < p->files.n; i++) {
		n = strlen(p->files.v[i].name);
		if (n < 3 || strcmp(p->files.v[i].name + n - 3, ".gp"))
			continue;
		st = gnuplot(pdir, p->files.v[i].name, fd);
		if (st == 127)
			err = diag_set(d, -ENOENT,
				       "gnuplot is not installed (make deps installs it); the "
				       "scripts are in %s",
				       pdir);
		else if (st)
			err = diag_set(d, st < 0 ? st : -EIO, "gnuplot failed on %s/%s (see %s)",
				       pdir, p->files.v[i].name, log);
	}
	close(fd);
	return err;
}

int plot_write(const char *dir, const struct col_plots *p, struct diag *d)
{
	char pdir[1100];
	size_t i;
	int r;

	snprintf(pdir, sizeof(pdir), "%s/%s", dir, PLOT_DIR);
	r = res_mkdirs(pdir);
	for (i = 0; !r && i < p->files.n; i++)
		r = res_write_file(pdir, p->files.v[i].name, p->files.v[i].text, p->files.v[i].len);
	if (r)
		return diag_set(d, r, "writing plots to %s: %s", pdir, strerror(-r));
	return p->files.n ? run_scripts(pdir, p, d) : 0;
}

int plot_run_render(const char *dir, const struct rec_run *r, const struct col_metrics *m,
		    const struct col_topo_info *ti, const struct res_info *info, struct diag *d)
{
	struct col_plots p = {0};
	char title[200];
	int err;

	snprintf(title, sizeof(title), "%s %s", info->scenario, info->run_id);
	err = col_plot_run(&p, r, m, ti, title);
	if (err)
		diag_set(d, err, "plots: out of memory");
	else
		err = plot_write(dir, &p, d);
	col_plots_done(&p);
	return err;
}
