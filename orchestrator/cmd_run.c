// SPDX-License-Identifier: MIT
/* The run part of `testbed up`: the workload on the built topology, its progress on the
 * terminal, the results folder and the job table. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/units.h"
#include "orchestrator/cmd_run.h"
#include "orchestrator/run.h"

static void on_progress(void *arg, const struct run *r)
{
	uint32_t done, running, waiting;
	int tty = *(int *)arg;

	run_counts(r, &done, &running, &waiting);
	fprintf(stderr, "%s  jobs %u/%u done, %u running, %u waiting  %7.1fs%s", tty ? "\r" : "",
		done, r->njobs, running, waiting, (double)run_now(r) / 1e9, tty ? "" : "\n");
}

/* The emu-node binary next to this one. */
static void emu_path(char *buf, size_t len)
{
	char self[PATH_MAX - 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	self[n > 0 ? n : 0] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, len, "%s/emu-node", n > 0 ? self : ".");
}

/* results/<scenario>/<YYYYmmdd-HHMMSS>[-k] */
static void results_dir(const struct experiment *e, char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];
	int k;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s/%s/%s", e->run.results, e->s.name, stamp);
	for (k = 2; access(buf, F_OK) == 0 && k < 100; k++)
		snprintf(buf, len, "%s/%s/%s-%d", e->run.results, e->s.name, stamp, k);
}

static void fmt_s(char *buf, size_t len, int64_t a, int64_t b)
{
	if (a == INT64_MIN || b == INT64_MIN)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f", (double)(b - a) / 1e9);
}

static void print_table(const struct run *r)
{
	char wait[32], runt[32], jct[32];
	uint32_t j;

	printf("\n%-4s %-14s %5s %-10s %10s %10s %10s  %s\n", "job", "model", "gpus", "algorithm",
	       "JWT (s)", "JRT (s)", "JCT (s)", "status");
	for (j = 0; j < r->njobs; j++) {
		const struct run_job *rj = &r->jobs[j];

		fmt_s(wait, sizeof(wait), rj->submitted ? rj->arrival : INT64_MIN, rj->start);
		fmt_s(runt, sizeof(runt), rj->start, rj->finish);
		fmt_s(jct, sizeof(jct), rj->submitted ? rj->arrival : INT64_MIN, rj->finish);
		printf("%-4u %-14s %5u %-10s %10s %10s %10s  %s%s%s\n", rj->spec.id, rj->spec.model,
		       rj->spec.gpus, coll_algo_name(rj->spec.algo), wait, runt, jct,
		       rec_status_name(rj->status), rj->reason[0] ? ": " : "", rj->reason);
	}
	printf("\ntimes are emulated seconds; paper-equivalent = emulated / %.4g (the dilation)\n",
	       r->dilation);
}

int cmd_run(struct cmd_world *w, const char *name, const int *nsfd, volatile sig_atomic_t *stop,
	    struct diag *d)
{
	int tty = isatty(STDERR_FILENO);
	struct run r = {.e = &w->e,
			.t = w->t,
			.plan = &w->plan,
			.name = name,
			.nsfd = nsfd,
			.stop = stop,
			.progress = on_progress,
			.progress_arg = &tty};
	char exe[PATH_MAX], dir[512];
	int err, werr;

	emu_path(exe, sizeof(exe));
	r.emu_path = exe;
	if (access(exe, X_OK))
		return diag_set(d, -ENOENT, "%s: %s (build it with make)", exe, strerror(errno));
	err = run_prepare(&r, d);
	if (!err) {
		fprintf(stderr, "testbed up: running %u jobs on %u emu-nodes\n", r.njobs, r.nnodes);
		err = run_loop(&r, d);
		if (tty)
			fputc('\n', stderr);
	}
	results_dir(&w->e, dir, sizeof(dir));
	werr = r.njobs ? run_write(&r, dir, err ? NULL : d) : 0;
	if (r.njobs) {
		print_table(&r);
		if (!werr)
			printf("results: %s\n", dir);
	}
	run_done(&r);
	return err ? err : werr;
}
