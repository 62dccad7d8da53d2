// SPDX-License-Identifier: MIT
/* A scenario's sweep for `testbed up` and `testbed sim` (cmd_sweep.h): the plan, each run in
 * its folder with the values it set noted in its scenario.yaml, and the comparison. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd_sweep.h"
#include "run/run.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"
#include "report/sweep_report.h"

/* Run k of the sweep in its new folder inside sdir: load its variant, run it. Its
 * scenario.yaml says which values it set (the file is copied as written). */
static int sweep_one(const struct cmd_sweep *sw, const char *path, const struct wdir *sdir,
		     struct sweep_plan *p, uint32_t k, const uint32_t *choice, const char *results,
		     struct diag *d)
{
	struct sweep_run *sr = &p->runs.v[k];
	struct cmd_run_opts ro = {.brief = true, .tally = sw->tally};
	struct cmd_run_out out = {0};
	char label[400], note[700];
	struct world w;
	struct wdir rd;
	int r;

	snprintf(label, sizeof(label), "run %u/%zu (%s, %s)", k + 1, p->runs.n,
		 p->variants.v[sr->variant], p->seeds.v[sr->seed]);
	snprintf(note, sizeof(note), "# sweep run %s: %s, %s (these values replace the file's)\n",
		 sr->dir, p->variants.v[sr->variant], p->seeds.v[sr->seed]);
	ro.label = label;
	ro.note = note;
	ro.dir = &rd;
	ro.folders[0] = &rd;
	cmd_note("\n%s: %s\n", sw->who, label);
	r = wdir_sub(&rd, sdir, sr->dir, WDIR_CREATE | WDIR_EXCL, d);
	if (!r) {
		r = world_load(path, (struct world_ask){.choice = choice, .sim = sw->sim}, &w, d);
		if (!r) /* the sweep's own, which --results may have set */
			snprintf(w.e.run.results, sizeof(w.e.run.results), "%s", results);
		r = r ? r : sw->run(sw->arg, &w, &ro, &out, d);
		world_done(&w); /* also after a failed load */
	}
	wdir_prune(&rd);
	sr->status = r ? SWEEP_FAILED : SWEEP_OK;
	if (r)
		snprintf(sr->error, sizeof(sr->error), "%.255s", d->msg[0] ? d->msg : strerror(-r));
	return r;
}

/* The runs this command runs, in order: every run of the sweep, or its shard's; and the file
 * their statuses go to (sweep.json, or the shard's own). */
struct sweep_todo {
	uint32_t *k, n;
	char file[64];
};

/* What a process running one run of the sweep tells the sweep. */
struct sweep_res {
	int32_t r;
	char error[256];
	struct cmd_run_tally tally;
};

/* In the run's own process: run k of the sweep, its result down fd, and exit. */
static void child_run(const struct cmd_sweep *sw, const char *path, struct world *w,
		      const struct wdir *sdir, struct sweep_plan *p, uint32_t k, int fd)
{
	struct sweep_res res = {0};
	struct cmd_sweep mine = *sw;
	uint32_t *choice = calloc(w->e.sweep.axes.n + 1, sizeof(*choice));
	struct diag d = {0};

	res.tally.strict = sw->tally && sw->tally->strict;
	mine.tally = sw->tally ? &res.tally : NULL;
	if (!choice) {
		res.r = -ENOMEM;
		snprintf(res.error, sizeof(res.error), "out of memory");
	} else {
		exp_sweep_choice(&w->e.sweep, k, choice);
		res.r = sweep_one(&mine, path, sdir, p, k, choice, w->e.run.results, &d);
		if (res.r)
			snprintf(res.error, sizeof(res.error), "%s", p->runs.v[k].error);
	}
	fflush(NULL);
	if (write(fd, &res, sizeof(res)) != (ssize_t)sizeof(res))
		_exit(1);
	_exit(0);
}

/* A run of the sweep going in a process of its own. */
struct sweep_slot {
	pid_t pid;
	int fd;
	uint32_t k;
};

/* Starts run k in a process of its own. 0 or -errno. */
static int slot_start(const struct cmd_sweep *sw, const char *path, struct world *w,
		      const struct wdir *sdir, struct sweep_plan *p, uint32_t k,
		      struct sweep_slot *s)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL); /* nothing buffered is written twice */
	s->pid = fork();
	if (s->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (!s->pid) {
		close(fds[0]);
		child_run(sw, path, w, sdir, p, k, fds[1]);
	}
	close(fds[1]);
	s->fd = fds[0];
	s->k = k;
	return 0;
}

/* The result of the run in s, whose process ended with status st. */
static void slot_end(struct sweep_slot *s, int st, struct sweep_res *res)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(*res) &&
	       (n = read(s->fd, (char *)res + got, sizeof(*res) - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	close(s->fd);
	s->pid = 0;
	if (got == sizeof(*res))
		return;
	memset(res, 0, sizeof(*res));
	res->r = -EIO;
	snprintf(res->error, sizeof(res->error), "its process ended (%s %d) without a result",
		 WIFSIGNALED(st) ? "signal" : "status",
		 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

/* Waits for one of the n slots' runs to end: its slot, or NULL (no child, or an error). */
static struct sweep_slot *slot_wait(struct sweep_slot *s, uint32_t n, int *st)
{
	pid_t pid;
	uint32_t i;

	do
		pid = waitpid(-1, st, 0);
	while (pid < 0 && errno == EINTR);
	for (i = 0; pid > 0 && i < n; i++)
		if (s[i].pid == pid)
			return &s[i];
	return NULL;
}

/* The sweep's runs, sw->par at once, each in a process of its own (virtual time: a run is
 * one thread, and runs share nothing but the sweep's folder). The runs' counts are added in
 * run order, whatever order they end in. 0 or -errno (the sweep's own failures). */
static int sweep_par(const struct cmd_sweep *sw, const char *path, struct world *w,
		     const struct wdir *sdir, struct sweep_plan *p, const struct sweep_todo *t,
		     struct sweep_acc *acc, uint32_t *failed, uint32_t *ran, struct diag *warn,
		     struct diag *d)
{
	uint32_t n = t->n, next = 0, active = 0, k, load = UINT32_MAX;
	struct sweep_slot *s = calloc(sw->par, sizeof(*s)), *e;
	struct sweep_res *res = calloc(p->runs.n + 1, sizeof(*res));
	int r = s && res ? 0 : diag_set(d, -ENOMEM, "out of memory"), st;

	while (!r && (next < n || active || load != UINT32_MAX)) {
		for (k = 0; k < sw->par && next < n && !*sw->stop && !r; k++)
			if (!s[k].pid) {
				r = slot_start(sw, path, w, sdir, p, t->k[next], &s[k]);
				if (r)
					r = diag_set(d, r, "a process for run %u: %s",
						     t->k[next] + 1, strerror(-r));
				else
					next++, active++;
			}
		/* the run that ended last, loaded for the comparison while the next ones go */
		if (!r && load != UINT32_MAX && acc)
			r = sweep_acc_add(acc, sdir, p, load, false, warn, d);
		load = UINT32_MAX;
		if (r || !active || !(e = slot_wait(s, sw->par, &st)))
			break;
		slot_end(e, st, &res[e->k]);
		active--;
		p->runs.v[e->k].status = res[e->k].r ? SWEEP_FAILED : SWEEP_OK;
		snprintf(p->runs.v[e->k].error, sizeof(p->runs.v[e->k].error), "%s",
			 res[e->k].error);
		if (res[e->k].r) {
			fprintf(stderr, "%s: %s: %s\n", sw->who, p->runs.v[e->k].dir,
				res[e->k].error);
			(*failed)++;
		} else {
			load = e->k;
		}
		r = sweep_plan_write_as(sdir, t->file, p, d);
	}
	while (active && (e = slot_wait(s, sw->par, &st))) /* after an error: theirs are lost */
		slot_end(e, st, &res[e->k]), active--;
	for (k = 0; sw->tally && k < next; k++)
		cmd_run_tally_add(sw->tally, &res[t->k[k]].tally);
	*ran = next;
	free(s);
	free(res);
	return r;
}

/* The runs sw runs of p, in run order. 0 or -ENOMEM. */
static int todo_make(const struct cmd_sweep *sw, const struct sweep_plan *p, struct sweep_todo *t)
{
	uint32_t k;

	t->n = 0;
	t->k = calloc(p->runs.n + 1, sizeof(*t->k));
	if (!t->k)
		return -ENOMEM;
	for (k = 0; k < p->runs.n; k++)
		if (!sw->shard.n || sweep_shard_of(p->scenario, k, sw->shard.n) == sw->shard.i - 1)
			t->k[t->n++] = k;
	if (sw->shard.n)
		sweep_shard_file(t->file, sizeof(t->file), sw->shard.i - 1, sw->shard.n);
	else
		snprintf(t->file, sizeof(t->file), "%s", SWEEP_FILE);
	return 0;
}

/* The sweep's folder: a new one named by the time, or a shard's fixed one (shared with the
 * other shards, its shards.json written or checked). */
static int sweep_folder(const struct cmd_sweep *sw, const struct world *w,
			const struct sweep_plan *p, const struct sweep_todo *t,
			struct cmd_run_folder *f, struct diag *d)
{
	char shard[96], par[48];
	int r;

	if (!sw->shard.n)
		r = cmd_run_folder_open(f, &w->e, "-sweep", d);
	else
		r = cmd_run_folder_fixed(f, &w->e, SWEEP_SHARD_DIR, 0, d);
	if (!r && sw->shard.n)
		r = sweep_shards_begin(&f->run, p, sw->shard.n, d);
	r = r ? r : sweep_plan_write_as(&f->run, t->file, p, d);
	if (r)
		return r;
	snprintf(shard, sizeof(shard), ", shard %u/%u: %u of its %zu runs", sw->shard.i,
		 sw->shard.n, t->n, p->runs.n);
	snprintf(par, sizeof(par), ", %u runs at once", sw->par);
	cmd_note("%s: sweep of %zu variants x %zu seeds into %s%s%s\n", sw->who, p->variants.n,
		 p->seeds.n, f->run.path, sw->shard.n ? shard : "", sw->par > 1 ? par : "");
	return 0;
}

/* The comparison (of the runs acc has and the others), or with a shard where the shards' runs
 * are compared once all have run. */
static int sweep_end(const struct cmd_sweep *sw, const struct cmd_run_folder *f,
		     struct sweep_acc *acc, struct diag *warn, struct diag *d)
{
	char *txt = NULL;
	int r;

	if (sw->shard.n) {
		cmd_note("%s: shard %u/%u done; once every shard has run, 'testbed report %s' "
			 "compares the runs\n",
			 sw->who, sw->shard.i, sw->shard.n, f->run.path);
		return 0;
	}
	r = sweep_report_acc(&f->run, acc, false, &txt, warn, d);
	sweep_report_print(&f->run, txt, warn);
	free(txt);
	return r;
}

int cmd_sweep_run(const struct cmd_sweep *sw, const char *path, struct world *w, struct diag *d)
{
	uint32_t *choice, k, failed = 0;
	struct cmd_run_folder f = CMD_RUN_FOLDER_INIT;
	struct sweep_todo t = {0};
	struct sweep_acc acc = {0};
	struct diag warn = {0};
	struct sweep_plan p;
	char sdir[WDIR_PATH_MAX] = "";
	int r;

	if (!exp_has_workload(&w->e))
		return diag_set(d, -EINVAL, "%s: a sweep needs a workload", path);
	r = exp_sweep_check(path, &w->e.sweep, d);
	if (r)
		return r;
	choice = calloc(w->e.sweep.axes.n + 1, sizeof(*choice));
	if (!choice || sweep_plan_make(&w->e, &p)) {
		free(choice);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	r = todo_make(sw, &p, &t) || sweep_acc_init(&acc, &p)
		    ? diag_set(d, -ENOMEM, "out of memory")
		    : 0;
	r = r ? r : sweep_folder(sw, w, &p, &t, &f, d);
	k = 0;
	if (!r && sw->par > 1)
		r = sweep_par(sw, path, w, &f.run, &p, &t, sw->shard.n ? NULL : &acc, &failed, &k,
			      &warn, d);
	for (; !r && sw->par <= 1 && k < t.n && !*sw->stop; k++) {
		struct diag dd = {0};
		uint32_t run = t.k[k];

		exp_sweep_choice(&w->e.sweep, run, choice);
		if (sweep_one(sw, path, &f.run, &p, run, choice, w->e.run.results, &dd)) {
			fprintf(stderr, "%s: %s: %s\n", sw->who, p.runs.v[run].dir, dd.msg);
			failed++;
		}
		r = sweep_plan_write_as(&f.run, t.file, &p, d);
	}
	r = r ? r : sweep_end(sw, &f, &acc, &warn, d);
	if (!r && failed)
		snprintf(sdir, sizeof(sdir), "%s", f.run.path);
	cmd_run_folder_close(&f);
	sweep_plan_done(&p);
	sweep_acc_done(&acc);
	free(choice);
	free(t.k);
	if (!r && *sw->stop == RUN_STOP_DOWN)
		r = diag_set(d, -ECANCELED,
			     "taken down by 'testbed down'; the runs so far are "
			     "compared");
	if (!r && *sw->stop)
		r = diag_set(d, -EINTR, "stopped by the user; the runs so far are compared");
	if (!r && failed)
		r = diag_set(d, -EIO, "%u of %u runs failed (see %s/%s)", failed, k, sdir, t.file);
	return r;
}
