// SPDX-License-Identifier: MIT
/* testbed reproduce [--quick] [--sim] [--results DIR] [--scenarios DIR] [PAPER...]: runs each
 * paper's reproduction scenarios (orchestrator/repro.c's catalogue) one after another, each
 * as its own `testbed up` or `testbed sim` with its output in a log, reads the comparison
 * each sweep wrote, and writes report.md: the paper's figures beside the measured ones. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "orchestrator/cmd.h"
#include "orchestrator/repro.h"

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
		"Usage: testbed reproduce [--quick] [--sim] [--results DIR] [--scenarios DIR] "
		"[PAPER...]\n\n"
		"Runs each paper's reproduction scenarios (PAPER: greedy, vclos, tacos, themis,\n"
		"hammingmesh; all by default): the emulated ones with `testbed up` (root), the\n"
		"paper-scale ones with `testbed sim`, one after another, and writes report.md "
		"with\n"
		"the paper's figures beside the measured ones, each run's fidelity verdict and\n"
		"links to its plots. --quick runs one or two small scenarios per paper (about ten\n"
		"minutes); --sim runs every scenario in virtual time (no root). Results go to\n"
		"DIR (default results/reproduce/<date>-<time>); scenarios are read from "
		"--scenarios\n"
		"(default ./scenarios, else the installed ones). Exit 0 if every scenario ran, 1\n"
		"if one failed, 2 for bad arguments.\n");
}

struct opts {
	bool quick, sim;
	const char *results, *scenarios;
	const char *papers[8];
	size_t np;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			o->quick = true;
		} else if (!strcmp(argv[i], "--sim")) {
			o->sim = true;
		} else if ((!strcmp(argv[i], "--results") || !strcmp(argv[i], "--scenarios")) &&
			   i + 1 < argc) {
			*(argv[i][2] == 'r' ? &o->results : &o->scenarios) = argv[i + 1];
			i++;
		} else if (argv[i][0] == '-' || o->np == sizeof(o->papers) / sizeof(o->papers[0])) {
			return -EINVAL;
		} else {
			o->papers[o->np++] = argv[i];
		}
	}
	return 0;
}

/* Runs `testbed up|sim --results dir file` with its output into log; its exit code. The
 * child is this very executable (/proc/self/exe), also if a rebuild replaced its file. */
static int run_child(enum repro_backend be, const char *dir, const char *file, const char *log)
{
	pid_t pid;
	int st, fd;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl("/proc/self/exe", "testbed", be == REPRO_SIM ? "sim" : "up", "--results", dir,
		      file, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The folder the child named last in its log: "comparison: DIR/comparison.txt" for a sweep,
 * "results: DIR" for one run. */
static bool child_dir(const char *log, char *out, size_t len, bool *sweep)
{
	FILE *f = fopen(log, "r");
	char line[1024], *p;
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
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
	fclose(f);
	return found;
}

/* The runs of a sweep and their verdicts (sweep.json, each run's summary.json). */
static void read_runs(const char *dir, struct repro_result *r)
{
	char path[PATH_MAX];
	json_t *sw, *runs, *run, *sum;
	const char *verdict;
	size_t i;

	if (join(path, sizeof(path), dir, "sweep.json"))
		return;
	sw = json_load_file(path, 0, NULL);
	runs = json_object_get(sw, "runs");
	json_array_foreach(runs, i, run)
	{
		r->runs++;
		r->ok += !strcmp(json_string_value(json_object_get(run, "status")) ?: "", "ok");
		if (join(path, sizeof(path), dir,
			 json_string_value(json_object_get(run, "dir")) ?: "") ||
		    join(path + strlen(path), sizeof(path) - strlen(path), "", "summary.json"))
			continue;
		sum = json_load_file(path, 0, NULL);
		verdict = json_string_value(
			json_object_get(json_object_get(sum, "fidelity"), "verdict"));
		r->degraded += verdict && !strcmp(verdict, "degraded");
		json_decref(sum);
	}
	json_decref(sw);
}

/* One run's verdict (no sweep): its summary.json. */
static void read_one(const char *dir, struct repro_result *r)
{
	char path[PATH_MAX];
	json_t *sum, *tot;
	const char *verdict;

	if (join(path, sizeof(path), dir, "summary.json"))
		return;
	sum = json_load_file(path, 0, NULL);
	tot = json_object_get(sum, "totals");
	if (!sum)
		return;
	r->runs = 1;
	r->ok = json_integer_value(json_object_get(tot, "ok")) ==
		json_integer_value(json_object_get(tot, "jobs"));
	verdict = json_string_value(json_object_get(json_object_get(sum, "fidelity"), "verdict"));
	r->degraded = verdict && !strcmp(verdict, "degraded");
	json_decref(sum);
}

static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The comparison's figures the report lists (repro_row_wanted). */
static int read_rows(const char *dir, struct repro_result *r)
{
	char path[PATH_MAX];
	json_t *cmp, *vars, *v, *cell;
	const char *metric;
	size_t i;
	int err = 0;

	if (join(path, sizeof(path), dir, "comparison.json"))
		return 0;
	cmp = json_load_file(path, 0, NULL);
	vars = json_object_get(cmp, "variants");
	json_array_foreach(vars, i, v)
	{
		json_object_foreach(json_object_get(v, "metrics"), metric, cell)
		{
			struct repro_row *w;
			double paper = num(json_object_get(cell, "paper"));

			if (!repro_row_wanted(r->it, metric, paper))
				continue;
			w = vec_grow(&r->rows);
			if (!w) {
				err = -ENOMEM;
				break;
			}
			snprintf(w->variant, sizeof(w->variant), "%s",
				 json_string_value(json_object_get(v, "name")) ?: "?");
			snprintf(w->metric, sizeof(w->metric), "%s", metric);
			w->measured = num(json_object_get(cell, "ratio"));
			w->paper = paper;
		}
	}
	json_decref(cmp);
	return err;
}

/* dir relative to the report's folder root, when it is inside it. */
static void relative(const char *root, const char *dir, char *out, size_t len)
{
	size_t n = strlen(root);

	if (!strncmp(dir, root, n) && dir[n] == '/')
		dir += n + 1;
	snprintf(out, len, "%s", dir);
}

static int run_item(const char *root, const char *scen, struct repro_result *r, uint32_t k,
		    uint32_t n)
{
	char dir[PATH_MAX], file[PATH_MAX], log[PATH_MAX], out[PATH_MAX], name[64];
	struct timespec t0, t1;
	bool sweep = false;

	snprintf(name, sizeof(name), "%s-%u.log", r->it->paper, k + 1);
	if (join(dir, sizeof(dir), root, r->it->paper) ||
	    join(file, sizeof(file), scen, r->it->file) || join(log, sizeof(log), root, name))
		return -ENAMETOOLONG;
	relative(root, log, r->log, sizeof(r->log));
	relative(root, file, r->file, sizeof(r->file));
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	printf("[%u/%u] %s: testbed %s %s ...", k + 1, n, r->it->paper,
	       r->be == REPRO_SIM ? "sim" : "up", file);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r->status = run_child(r->be, dir, file, log);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (r->status < 0)
		return r->status;
	if (child_dir(log, out, sizeof(out), &sweep)) {
		relative(root, out, r->dir, sizeof(r->dir));
		if (sweep) {
			read_runs(out, r);
			if (read_rows(out, r))
				return -ENOMEM;
		} else {
			read_one(out, r);
		}
	}
	repro_verdict(r, out, sizeof(out));
	printf(" %s, %.0f s (log %s)\n", out, r->secs, log);
	return 0;
}

static void header(char *buf, size_t len, const struct opts *o, const char *root)
{
	struct utsname u;
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&now));
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	snprintf(buf, len,
		 "`testbed reproduce%s%s`, %s, into `%s`: %ld cores, kernel %s. Emulated runs "
		 "carry the fidelity verdict of the machine they ran on; a degraded one measured "
		 "the machine, not the network.",
		 o->quick ? " --quick" : "", o->sim ? " --sim" : "", when, root,
		 sysconf(_SC_NPROCESSORS_ONLN), u.release);
}

static int write_report(const char *root, const struct opts *o, const struct repro_result *res,
			size_t n, char *path, size_t len)
{
	char head[PATH_MAX + 1024];
	FILE *f;

	if (join(path, len, root, "report.md"))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	header(head, sizeof(head), o, root);
	repro_report(f, head, res, n);
	return fclose(f) ? -errno : 0;
}

static int default_root(char *out, size_t len)
{
	time_t now = time(NULL);
	char stamp[32];

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime(&now));
	if (mkdir("results", 0755) && errno != EEXIST)
		return -errno;
	if (mkdir("results/reproduce", 0755) && errno != EEXIST)
		return -errno;
	snprintf(out, len, "results/reproduce/%s", stamp);
	return 0;
}

static int prepare(const struct opts *o, const uint32_t *idx, size_t n, char *scen, size_t slen,
		   char *root, size_t rlen, struct diag *d)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (repro_backend_of(&repro_items[idx[i]], o->quick, o->sim) == REPRO_UP &&
		    geteuid())
			return diag_set(d, -EPERM,
					"%s is emulated, which needs root: run as root, or pass "
					"--sim to run every scenario in virtual time",
					repro_items[idx[i]].file);
	if (cmd_scenarios_dir(o->scenarios, scen, slen))
		return diag_set(d, -ENOENT, "no scenarios folder: %s (give --scenarios DIR)",
				o->scenarios ? o->scenarios
					     : "neither ./scenarios nor the installed one");
	if (o->results)
		snprintf(root, rlen, "%s", o->results);
	else if (default_root(root, rlen))
		return diag_set(d, -errno, "results/reproduce: %s", strerror(errno));
	if (mkdir(root, 0755) && errno != EEXIST)
		return diag_set(d, -errno, "%s: %s", root, strerror(errno));
	return 0;
}

int cmd_reproduce(int argc, char **argv)
{
	struct opts o = {0};
	struct diag d = {0};
	uint32_t idx[REPRO_ITEMS_MAX];
	struct repro_result res[REPRO_ITEMS_MAX];
	char scen[PATH_MAX], root[PATH_MAX], report[PATH_MAX];
	size_t n = 0, i;
	int r, err, failed = 0;

	if (cmd_wants_help(argc, argv)) {
		usage(stdout);
		return CMD_OK;
	}
	if (parse(argc, argv, &o)) {
		usage(stderr);
		return CMD_USAGE;
	}
	r = repro_select(o.papers, o.np, o.quick, idx, &n, &d);
	r = r ? r : prepare(&o, idx, n, scen, sizeof(scen), root, sizeof(root), &d);
	if (r)
		return cmd_fail("reproduce", r, &d);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	memset(res, 0, sizeof(res));
	printf("testbed reproduce: %zu scenarios into %s\n", n, root);
	for (i = 0; i < n; i++) {
		res[i].it = &repro_items[idx[i]];
		res[i].be = repro_backend_of(res[i].it, o.quick, o.sim);
		res[i].status = -1;
		if (repro_stop)
			continue;
		r = run_item(root, scen, &res[i], (uint32_t)i, (uint32_t)n);
		if (r) {
			printf("\n");
			diag_set(&d, r, "%s: %s", res[i].it->file, strerror(-r));
			break;
		}
		failed += res[i].status != 0 || res[i].ok < res[i].runs;
	}
	/* what ran is reported, also when the rest could not run */
	err = write_report(root, &o, res, n, report, sizeof(report));
	for (i = 0; i < n; i++)
		vec_free(&res[i].rows);
	if (err)
		diag_set(&d, err, "%s/report.md: %s", root, strerror(-err));
	if (r || err)
		return cmd_fail("reproduce", r ? r : err, &d);
	printf("report: %s%s\n", report, repro_stop ? " (interrupted: the rest not run)" : "");
	return failed || repro_stop ? CMD_FAIL : CMD_OK;
}
