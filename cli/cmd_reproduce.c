// SPDX-License-Identifier: MIT
/* testbed reproduce [--quick] [--sim] [--results DIR] [--scenarios DIR] [--shard I/N]
 * [PAPER...]: runs each paper's reproduction scenarios (report/repro.c's catalogue) one after
 * another, each as its own `testbed up` or `testbed sim` with its output in a log, reads the
 * comparison each sweep wrote, and writes report.md: the paper's figures beside the measured
 * ones (with --shard, a part of them, its record for `testbed report`: cmd_repro_shard.c). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/cmd_repro.h"
#include "report/repro.h"
#include "report/sweep_report.h"
#include "kernel/wdir.h"

static volatile sig_atomic_t repro_stop;

static void on_signal(int sig)
{
	(void)sig;
	repro_stop = 1;
}

/* a "/" b into out; -ENAMETOOLONG when it does not fit. */
static int join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s/%s", a, b);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed reproduce [--quick] [--sim] [--strict] [--results DIR] "
		"[--scenarios DIR] [--shard I/N] [PAPER...]\n\n"
		"Runs each paper's reproduction scenarios (PAPER: greedy, vclos, tacos, themis,\n"
		"hammingmesh; all by default): the emulated ones with `testbed up` (root), the\n"
		"paper-scale ones with `testbed sim`, one after another, and writes report.md "
		"with\n"
		"the paper's figures beside the measured ones, each run's fidelity verdict and\n"
		"links to its plots. --quick runs one or two small scenarios per paper (about ten\n"
		"minutes); --sim runs every scenario in virtual time (no root). Results go to\n"
		"DIR (default results/reproduce/<date>-<time>); scenarios are read from "
		"--scenarios\n"
		"(default ./scenarios, else the installed ones). Exit 0 if every scenario ran\n"
		"and every job of it ended well, 1 if one failed or a job failed, was stopped or\n"
		"did not start, 2 for bad arguments, 3 with --strict when a run's fidelity\n"
		"verdict is degraded.\n\n"
		"--shard I/N (with --results DIR) runs only the I-th of N fixed parts: every\n"
		"sweep's runs are dealt round the N parts, and each scenario of one run falls to\n"
		"one part. Run the parts anywhere (testbed slurm writes a Slurm job array that\n"
		"does), into the same DIR; then 'testbed report DIR' compares every sweep and\n"
		"writes report.md, naming any part that has not run.\n");
}

/* argv into o. 0, or -EINVAL (also for --help, with *help set). */
static int parse(int argc, char **argv, struct repro_opts *o, bool *help)
{
	const struct cmd_opt opts[] = {{"quick", NULL, &o->quick},
				       {"sim", NULL, &o->sim},
				       {"strict", NULL, &o->strict},
				       {"results", &o->results, NULL},
				       {"scenarios", &o->scenarios, NULL},
				       {"shard", &o->shard_arg, NULL},
				       {NULL, NULL, NULL}};
	int n = cmd_opts_parse("reproduce", argc, argv, opts, false, help), i;

	if (n < 0 || *help || (size_t)n > sizeof(o->papers) / sizeof(o->papers[0]))
		return -EINVAL;
	if (cmd_shard_parse("reproduce", o->shard_arg, &o->shard))
		return -EINVAL;
	for (i = 0; i < n; i++)
		o->papers[o->np++] = argv[1 + i];
	return 0;
}

/* Runs `testbed up|sim --results dir [--shard I/N] file` with its output into log_fd; its
 * exit code. The child is this very executable (/proc/self/exe), also if a rebuild replaced
 * its file. */
static int run_child(enum repro_backend be, const char *dir, const char *file,
		     const struct cmd_shard *sh, int log_fd)
{
	char shard[32];
	const char *argv[] = {"testbed",
			      be == REPRO_SIM ? "sim" : "up",
			      "--results",
			      dir,
			      sh->n ? "--shard" : file,
			      sh->n ? shard : NULL,
			      file,
			      NULL};
	pid_t pid;
	int st;

	snprintf(shard, sizeof(shard), "%u/%u", sh->i, sh->n);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
			_exit(126);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The folder the child named last in its log (text): "comparison: DIR/comparison.txt" for a
 * sweep, "results: DIR" for one run. */
static bool child_dir(char *text, char *out, size_t len, bool *sweep)
{
	char *line, *save = NULL, *p;
	bool found = false;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "comparison: ", 12) && (p = strrchr(line, '/'))) {
			*p = '\0';
			snprintf(out, len, "%s", line + 12);
			found = *sweep = true;
		} else if (!strncmp(line, "results: ", 9)) {
			snprintf(out, len, "%s", line + 9);
			found = true;
			*sweep = false;
		}
	}
	return found;
}

/* What the child wrote into the log it was given, read back through that very file (opened
 * again from our own descriptor: nobody else could have changed or swapped it).
 * NUL-terminated, malloc'd, or NULL. */
static char *log_text(int log_fd)
{
	char self[64], *text = NULL;
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", log_fd); /* it is write-only */
	fd = open(self, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st) && (text = malloc((size_t)st.st_size + 1)))
		for (; len < (size_t)st.st_size; len += (size_t)n)
			if ((n = read(fd, text + len, (size_t)st.st_size - len)) <= 0)
				break;
	if (text)
		text[len] = '\0';
	if (fd >= 0)
		close(fd);
	return text;
}

/* Runs item k of n with its log in root (over an earlier run's), reads what it left (a
 * shard's part of a sweep is read once every shard has run: testbed report). */
static int run_item(const struct wdir *root, const char *scen, const struct cmd_shard *sh,
		    struct repro_result *r, uint32_t k, uint32_t n, struct diag *d)
{
	char dir[PATH_MAX], file[PATH_MAX], out[PATH_MAX], name[96], *text = NULL;
	struct timespec t0, t1;
	struct wdir pd;
	struct wfile log;
	bool sweep = false;
	int err;

	if (sh->n)
		snprintf(name, sizeof(name), "%s-%u.shard-%u-of-%u.log", r->it->paper, k + 1, sh->i,
			 sh->n);
	else
		snprintf(name, sizeof(name), "%s-%u.log", r->it->paper, k + 1);
	if (join(dir, sizeof(dir), root->path, r->it->paper) ||
	    join(file, sizeof(file), scen, r->it->file))
		return diag_set(d, -ENAMETOOLONG, "%s: the name is too long", r->it->file);
	snprintf(r->log, sizeof(r->log), "%s", name);
	repro_relative(root->path, file, r->file, sizeof(r->file));
	err = sh->n ? repro_shard_dir(file, r, d) : 0;
	err = err ? err : wdir_sub(&pd, root, r->it->paper, WDIR_CREATE, d);
	wdir_close(&pd);
	err = err ? err : wfile_open(&log, root, name, WDIR_REPLACE, d);
	if (err)
		return err;
	if (!cmd_quiet()) /* progress: one line an item, on stdout beside the report's path */
		printf("[%u/%u] %s: testbed %s %s%s ...", k + 1, n, r->it->paper,
		       r->be == REPRO_SIM ? "sim" : "up", sh->n ? "--shard ... " : "", file);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->status = run_child(r->be, dir, file, sh, log.fd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	text = sh->n ? NULL : log_text(log.fd);
	err = wfile_commit(&log, d);
	if (!err && r->status < 0)
		err = diag_set(d, r->status, "%s: %s", r->it->file, strerror(-r->status));
	if (!err && text && child_dir(text, out, sizeof(out), &sweep)) {
		repro_relative(root->path, out, r->dir, sizeof(r->dir));
		if (sweep) {
			repro_read_runs(out, r);
			if (repro_read_rows(out, r))
				err = diag_set(d, -ENOMEM, "out of memory");
		} else {
			repro_read_one(out, r);
		}
	}
	free(text);
	if (err)
		return err;
	if (sh->n)
		snprintf(out, sizeof(out), "exit %d", r->status);
	else
		repro_verdict(r, out, sizeof(out));
	if (!cmd_quiet())
		printf(" %s, %.0f s (log %s/%s)\n", out, r->secs, root->path, name);
	return 0;
}

/* The last lines: each scenario that failed or whose jobs did not all end well, and the log
 * that says which jobs and why. */
static void say_failed(const struct repro_result *res, size_t n, const char *root)
{
	char v[256];
	size_t i;

	fprintf(stderr, "testbed reproduce: these did not end well (their logs list each job):\n");
	for (i = 0; i < n; i++) {
		if (res[i].status == -1 || ((res[i].status == 0 || res[i].status == CMD_DEGRADED) &&
					    res[i].ok >= res[i].runs))
			continue;
		repro_verdict(&res[i], v, sizeof(v));
		fprintf(stderr, "testbed reproduce:   %s %s: %s (exit %d; log %s/%s)\n",
			res[i].it->paper, res[i].file, v, res[i].status, root, res[i].log);
	}
}

/* The report's folder: DIR as given (made if missing), or a new results/reproduce/<date-time>;
 * proven to take files before anything runs. */
static int open_root(const struct repro_opts *o, struct wdir *root, struct diag *d)
{
	time_t now = time(NULL);
	struct wdir parent;
	char stamp[32];
	int r;

	if (o->results) {
		r = wdir_open(root, o->results, WDIR_CREATE | WDIR_GIVE, d);
	} else {
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
		r = wdir_open(&parent, "results/reproduce", WDIR_CREATE | WDIR_GIVE, d);
		r = r ? r : wdir_new(root, &parent, stamp, "", d);
		wdir_close(&parent);
	}
	r = r ? r : wdir_prove(root, d);
	if (r)
		wdir_prune(root);
	return r ? cmd_results_refused(d) : 0;
}

static int prepare(const struct repro_opts *o, const uint32_t *idx, size_t n, char *scen,
		   size_t slen, struct wdir *root, struct diag *d)
{
	size_t i;
	int r;

	for (i = 0; i < n; i++)
		if (repro_backend_of(&repro_items[idx[i]], o->quick, o->sim) == REPRO_UP &&
		    geteuid())
			return diag_set(d, -EPERM,
					"%s is emulated, which needs root: run as root, or pass "
					"--sim to run every scenario in virtual time",
					repro_items[idx[i]].file);
	if (o->shard.n && !o->results)
		return diag_set(d, -EINVAL,
				"--shard: give --results DIR, the folder every shard writes into "
				"(and 'testbed report DIR' merges)");
	if (cmd_scenarios_dir(o->scenarios, scen, slen))
		return diag_set(d, -ENOENT, "no scenarios folder: %s (give --scenarios DIR)",
				o->scenarios ? o->scenarios
					     : "neither ./scenarios nor the installed one");
	r = open_root(o, root, d);
	r = r || !o->shard.n ? r : repro_shards_begin(root, o, d);
	if (r)
		wdir_close(root);
	return r;
}

int cmd_reproduce(int argc, char **argv)
{
	struct repro_opts o = {0};
	struct diag d = {0};
	uint32_t idx[REPRO_ITEMS_MAX];
	struct repro_result res[REPRO_ITEMS_MAX];
	char scen[PATH_MAX];
	struct wdir root = WDIR_INIT;
	size_t n = 0, i;
	bool help;
	int r = parse(argc, argv, &o, &help), err, failed = 0, degraded = 0;

	if (help) {
		usage(stdout);
		return CMD_OK;
	}
	if (r) {
		usage(stderr);
		return CMD_USAGE;
	}
	r = repro_select(o.papers, o.np, o.quick, idx, &n, &d);
	r = r ? r : prepare(&o, idx, n, scen, sizeof(scen), &root, &d);
	if (r)
		return cmd_fail("reproduce", r, &d);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	memset(res, 0, sizeof(res));
	if (!cmd_quiet())
		printf("testbed reproduce: %zu scenarios into %s\n", n, root.path);
	for (i = 0; i < n; i++) {
		res[i].it = &repro_items[idx[i]];
		res[i].be = repro_backend_of(res[i].it, o.quick, o.sim);
		res[i].status = -1;
		if (repro_stop)
			continue;
		r = run_item(&root, scen, &o.shard, &res[i], (uint32_t)i, (uint32_t)n, &d);
		if (r) {
			if (!cmd_quiet())
				printf("\n");
			break;
		}
		/* a child's 3 is its run.strict over a degraded run: counted as degraded */
		failed += (res[i].status != 0 && res[i].status != CMD_DEGRADED) ||
			  res[i].ok < res[i].runs;
		degraded += res[i].degraded;
	}
	/* what ran is reported, also when the rest could not run */
	err = o.shard.n ? repro_shard_write(&root, &o, res, n, &d)
			: repro_write_report(&root, &o, res, n, &d);
	for (i = 0; i < n; i++)
		vec_free(&res[i].rows);
	if (!r && !err && !o.shard.n)
		printf("report: %s/report.md%s\n", root.path,
		       repro_stop ? " (interrupted: the rest not run)" : "");
	if (!r && !err && failed)
		say_failed(res, n, root.path);
	wdir_close(&root);
	if (r || err)
		return cmd_fail("reproduce", r ? r : err, &d);
	if (failed || repro_stop)
		return CMD_FAIL;
	if (o.strict && degraded) {
		fprintf(stderr, "testbed reproduce: --strict: %d runs degraded by the machine\n",
			degraded);
		return CMD_DEGRADED;
	}
	return CMD_OK;
}
