// SPDX-License-Identifier: MIT
/* The run part of `testbed up` and `testbed sim`: the workload on the built topology (on
 * either backend), its progress on the terminal, the results folder with its reports, and
 * the summary. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel/mono.h"
#include "cli/cmd_run.h"
#include "report/sweep_report.h"
#include "run/emu/emu_find.h"
#include "report/results.h"
#include "run/emu/run_emu.h"

#define PLAIN_EVERY_NS 10000000000LL /* progress lines when stderr is not a terminal: wall ns */

struct progress {
	int tty;
	const char *clock; /* "elapsed", or "virtual" in virtual time */
	const char *label;
	uint32_t *done_units; /* per job: rank-iterations recorded */
	size_t seen; /* r->rec.iters consumed so far */
	uint64_t total; /* rank-iterations of the whole workload */
	struct run_tally last; /* the counts at the last plain line */
	int64_t last_line;
	int64_t wall0; /* mono_now_ns() as the run began */
};

/* Rank-iterations of running job j done: those recorded, or more by the backend's share
 * of its steps (a long collective records nothing until an iteration ends). */
static double running_units(const struct progress *pg, const struct run *r, uint32_t j,
			    uint64_t all)
{
	double s = r->be->share ? r->be->share(r, j) : -1;

	return s > 0 && s * (double)all > (double)pg->done_units[j] ? s * (double)all
								    : (double)pg->done_units[j];
}

/* Share of the workload done: rank-iterations recorded, a finished job counting whole. */
static double progress_share(struct progress *pg, const struct run *r)
{
	double done = 0;
	uint32_t j;

	for (; pg->seen < r->rec.iters.n; pg->seen++)
		if (r->rec.iters.v[pg->seen].job < r->njobs)
			pg->done_units[r->rec.iters.v[pg->seen].job]++;
	for (j = 0; j < r->njobs; j++) {
		uint64_t all = (uint64_t)r->jobs[j].spec.gpus * r->jobs[j].spec.iterations;
		bool ended = r->jobs[j].status != REC_NOT_STARTED && !r->jobs[j].running;
		double units = r->jobs[j].running ? running_units(pg, r, j, all)
						  : (double)pg->done_units[j];

		done += ended || units > (double)all ? (double)all : units;
	}
	return pg->total ? done / (double)pg->total : 0;
}

/* "~12s left" in wall time: from the share done so far over the time it took, and, when the
 * run's clock is the wall's (emulation), at least until the last arrival. Under testbed sim
 * the wall time spent counts, not the virtual clock, which says nothing of the wait. */
static void eta(char *buf, size_t len, double share, const struct run *r, int64_t now,
		int64_t wall_spent)
{
	bool virt = !r->be->machine_clock;
	double spent = (double)(virt ? wall_spent : now);
	double left = share > 0.02 ? spent * (1 - share) / share : -1;
	int64_t last = r->njobs ? r->jobs[r->njobs - 1].arrival : 0;

	if (!virt && last - now > 0 && (double)(last - now) > left)
		left = (double)(last - now);
	if (left < 0)
		snprintf(buf, len, "estimating");
	else
		snprintf(buf, len, "~%.0fs left", left / 1e9 + 0.5);
}

static void on_progress(void *arg, const struct run *r)
{
	struct progress *pg = arg;
	struct run_tally c;
	int64_t now = run_now(r), wall = mono_now_ns(); /* wall: also when virtual time crawls */
	double share = progress_share(pg, r);
	char left[32], failed[32] = "";
	bool ended;

	run_counts(r, &c);
	ended = c.ok + c.failed == r->njobs;
	if (cmd_quiet())
		return;
	if (!pg->tty && !memcmp(&c, &pg->last, sizeof(c)) &&
	    wall - pg->last_line < PLAIN_EVERY_NS && !ended)
		return;
	pg->last = c;
	pg->last_line = wall;
	eta(left, sizeof(left), share, r, now, wall - pg->wall0);
	if (c.failed)
		snprintf(failed, sizeof(failed), ", %u failed or stopped", c.failed);
	fprintf(stderr, "%s  %s%sjobs %u/%u done%s, %u running, %u waiting  %.*fs %s, %s%s",
		pg->tty ? "\r" : "", pg->label ? pg->label : "", pg->label ? ": " : "", c.ok,
		r->njobs, failed, c.running, c.waiting, now < 10000000000LL ? 4 : 1,
		(double)now / 1e9, pg->clock, ended ? (c.failed ? "ended" : "done") : left,
		pg->tty ? "\033[K" : "\n");
}

int cmd_run_folder_open(struct cmd_run_folder *f, const struct experiment *e, const char *suffix,
			struct diag *d)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];
	int r;

	*f = (struct cmd_run_folder)CMD_RUN_FOLDER_INIT;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	r = wdir_open(&f->root, e->run.results, WDIR_CREATE | WDIR_GIVE, d);
	r = r ? r : wdir_sub(&f->scen, &f->root, e->s.name, WDIR_CREATE, d);
	r = r ? r : wdir_new(&f->run, &f->scen, stamp, suffix, d);
	r = r ? r : wdir_prove(&f->run, d);
	if (!r)
		return 0;
	cmd_run_folder_close(f);
	return cmd_results_refused(d);
}

int cmd_run_folder_fixed(struct cmd_run_folder *f, const struct experiment *e, const char *name,
			 unsigned flags, struct diag *d)
{
	int r;

	*f = (struct cmd_run_folder)CMD_RUN_FOLDER_INIT;
	r = wdir_open(&f->root, e->run.results, WDIR_CREATE | WDIR_GIVE, d);
	r = r ? r : wdir_sub(&f->scen, &f->root, e->s.name, WDIR_CREATE, d);
	r = r ? r : wdir_sub(&f->run, &f->scen, name, WDIR_CREATE | flags, d);
	r = r ? r : wdir_prove(&f->run, d);
	if (!r)
		return 0;
	cmd_run_folder_close(f);
	if (r != -EEXIST)
		return cmd_results_refused(d);
	diag_clear(d);
	return diag_set(d, r,
			"%s/%s/%s is there already (this shard ran before?): give --results "
			"another folder",
			e->run.results, e->s.name, name);
}

int cmd_run_folder_shard(struct cmd_run_folder *f, const struct experiment *e,
			 const struct cmd_shard *s, const char *who, struct diag *d)
{
	uint32_t mine = sweep_shard_of(e->s.name, 0, s->n);

	*f = (struct cmd_run_folder)CMD_RUN_FOLDER_INIT;
	if (mine != s->i - 1) {
		cmd_note("%s: shard %u/%u: %s is one run, which shard %u/%u runs: nothing to do "
			 "here\n",
			 who, s->i, s->n, e->s.name, mine + 1, s->n);
		return 1;
	}
	return cmd_run_folder_fixed(f, e, SWEEP_SHARD_RUN_DIR, WDIR_EXCL, d);
}

void cmd_run_folder_close(struct cmd_run_folder *f)
{
	if (!f)
		return;
	wdir_prune(&f->run);
	wdir_prune(&f->scen);
	wdir_prune(&f->root);
}

void cmd_run_verdict(const char *who, const struct col_metrics *m)
{
	const struct col_fidelity *f = &m->fid;
	int tty = isatty(STDERR_FILENO);
	char text[256], causes[128];
	size_t i;

	if (!f->degraded && !f->cpu_samples) {
		fprintf(stderr,
			"%s: fidelity not judged: no CPU samples (run.sample_interval 0?)\n", who);
		return;
	}
	if (!f->degraded) {
		cmd_note("%s: fidelity ok (CPU busy mean %.0f%%, peak %.0f%%)\n", who,
			 100 * f->busy_mean, 100 * f->busy_peak);
		return;
	}
	col_fid_causes(causes, sizeof(causes), f);
	fprintf(stderr,
		"%s%s: *** DEGRADED (%s): %s, not the emulated network, limited this run; "
		"its numbers are not the network's ***%s\n",
		tty ? "\033[1;31m" : "", who, causes,
		col_fid_machine(f) ? "the machine" : "TCP's timeouts, which no rate_scale dilates",
		tty ? "\033[0m" : "");
	for (i = 0; i < f->reasons.n; i++) {
		col_fid_reason_text(text, sizeof(text), &f->reasons.v[i]);
		fprintf(stderr, "%s:   - %s\n", who, text);
	}
}

/* The sampler's gaps, if any, once the run ended. */
static void sample_report(const struct run *r, const char *who)
{
	const char *why = NULL;
	uint64_t rounds = 0, n = r->be->sample_gaps ? r->be->sample_gaps(r, &rounds, &why) : 0;

	if (n)
		fprintf(stderr, "%s: %llu of %llu sampling rounds incomplete (first: %s)\n", who,
			(unsigned long long)n, (unsigned long long)rounds, why);
}

/* The workload from start to end: the backend prepared, the loop. */
static int execute(struct run *r, struct progress *pg, const char *who, struct diag *d)
{
	int err = run_prepare(r, d);

	pg->done_units = r->njobs ? calloc(r->njobs, sizeof(uint32_t)) : NULL;
	for (uint32_t j = 0; j < r->njobs; j++)
		pg->total += (uint64_t)r->jobs[j].spec.gpus * r->jobs[j].spec.iterations;
	if (!err && r->njobs && !pg->done_units)
		err = diag_set(d, -ENOMEM, "out of memory");
	if (!err) {
		cmd_note("%s: %s%srunning %u jobs on %u %s\n", who, pg->label ? pg->label : "",
			 pg->label ? ": " : "", r->njobs, r->nnodes, r->be->ranks);
		err = run_loop(r, d);
		if (pg->tty)
			cmd_note("\n");
	}
	sample_report(r, who);
	r->rec.t_end = run_now(r);
	r->rec.dilation = r->dilation;
	return err;
}

/* "ok", "DEGRADED (cpu, transport)" or "n/a (virtual time)". */
static void fid_word(char *buf, size_t len, bool emu, const struct col_fidelity *f)
{
	char causes[128];

	col_fid_causes(causes, sizeof(causes), f);
	if (!emu)
		snprintf(buf, len, "n/a (virtual time)");
	else if (f->degraded)
		snprintf(buf, len, "DEGRADED (%s)", causes);
	else
		snprintf(buf, len, "ok");
}

static void print_results(const struct run *r, const struct res_run *x, const char *txt,
			  const char *dir, const struct cmd_run_opts *o, const char *who)
{
	bool emu = r->be->machine_clock;
	char fid[160];

	fid_word(fid, sizeof(fid), emu, &x->m.fid);
	if (o && o->brief)
		printf("%s: %u of %u jobs ok, Avg.JCT %.4g paper s, fidelity %s\n",
		       o->label ? o->label : "run", x->m.totals.ok, x->m.totals.jobs,
		       col_paper_s(&x->m, x->m.totals.avg_jct), fid);
	else
		printf("\n%s", txt);
	printf("results: %s\n", dir);
	fflush(stdout);
	if (emu)
		cmd_run_verdict(who, &x->m);
}

static const char *bad_words(enum rec_status s)
{
	switch (s) {
	case REC_NOT_STARTED:
		return "did not start";
	case REC_CANCELLED:
		return "was stopped";
	default:
		return "failed";
	}
}

/* Job rj, which did not end well, counted into t with its line if it fits. */
static void tally_job(struct cmd_run_tally *t, const char *label, const struct run_job *rj)
{
	size_t n = strlen(t->bad);
	char line[REC_REASON_MAX + 512];
	int k;

	t->bad_jobs++;
	k = snprintf(line, sizeof(line), "%s%sjob %u (%s, %u GPUs) %s: %s\n", label ? label : "",
		     label ? ": " : "", rj->spec.id, rj->spec.model, rj->spec.gpus,
		     bad_words(rj->status),
		     rj->reason[0]		     ? rj->reason
		     : rj->status == REC_NOT_STARTED ? "still waiting when the run ended"
						     : "no reason recorded");
	if (k > 0 && n + (size_t)k < sizeof(t->bad)) {
		memcpy(t->bad + n, line, (size_t)k + 1);
		t->listed++;
	}
}

/* r's jobs and verdict into o->tally. */
static void tally_run(const struct run *r, const struct cmd_run_opts *o, bool degraded)
{
	struct cmd_run_tally *t = o->tally;
	uint32_t j;

	if (!t)
		return;
	t->runs++;
	t->jobs += r->njobs;
	t->degraded += degraded;
	t->strict = t->strict || r->e->run.strict;
	for (j = 0; j < r->njobs; j++)
		if (r->jobs[j].status != REC_OK)
			tally_job(t, o->label, &r->jobs[j]);
}

void cmd_run_tally_add(struct cmd_run_tally *to, const struct cmd_run_tally *from)
{
	size_t n = strlen(to->bad);
	const char *p, *nl;

	to->runs += from->runs;
	to->jobs += from->jobs;
	to->bad_jobs += from->bad_jobs;
	to->degraded += from->degraded;
	to->strict = to->strict || from->strict;
	for (p = from->bad; (nl = strchr(p, '\n')); p = nl + 1) {
		if (n + (size_t)(nl + 1 - p) >= sizeof(to->bad))
			break;
		memcpy(to->bad + n, p, (size_t)(nl + 1 - p));
		n += (size_t)(nl + 1 - p);
		to->bad[n] = '\0';
		to->listed++;
	}
}

int cmd_run_tally_exit(const char *who, const struct cmd_run_tally *t)
{
	const char *p, *nl;

	if (t->bad_jobs) {
		fprintf(stderr, "%s: %u of %u jobs failed, were stopped or did not start:\n", who,
			t->bad_jobs, t->jobs);
		for (p = t->bad; (nl = strchr(p, '\n')); p = nl + 1)
			fprintf(stderr, "%s:   %.*s\n", who, (int)(nl - p), p);
		if (t->listed < t->bad_jobs)
			fprintf(stderr, "%s:   and %u more (see jobs.csv)\n", who,
				t->bad_jobs - t->listed);
		return CMD_FAIL;
	}
	if (t->strict && t->degraded) {
		fprintf(stderr, "%s: --strict: %u of %u runs degraded by the machine (exit %d)\n",
			who, t->degraded, t->runs, CMD_DEGRADED);
		return CMD_DEGRADED;
	}
	return CMD_OK;
}

/* Writes the folder and its reports, prints them. */
static int report(struct run *r, const struct cmd_run_opts *o, const char *who,
		  struct cmd_run_out *out, struct diag *d)
{
	struct res_info info = {.dilation = r->dilation, .t_end = r->rec.t_end};
	const struct wdir *dir = o->dir;
	struct diag warn = {0};
	struct res_run x;
	char *txt = NULL;
	int err;

	snprintf(info.scenario, sizeof(info.scenario), "%.63s", r->e->s.name);
	snprintf(info.run_id, sizeof(info.run_id), "%.127s", dir->name);
	snprintf(info.backend, sizeof(info.backend), "%s", r->be->name);
	info.sched = (struct col_sched_counts){.known = true,
					       .frag_jobs = r->sched.frag_jobs,
					       .frag_tries = r->sched.frag_tries,
					       .gpu_tries = r->sched.gpu_tries,
					       .rewires = r->rewires};
	if (r->trace_left) {
		info.trace_known = true;
		info.trace_left = *r->trace_left;
	}
	res_info_normalize(&info);
	err = run_write(r, dir, o->note, d);
	err = err ? err : res_report(dir, &info, &r->rec, &x, &txt, &warn, d);
	if (err)
		return err;
	if (warn.msg[0])
		fprintf(stderr, "%s: plots: %s\n", who, warn.msg);
	print_results(r, &x, txt, dir->path, o, who);
	tally_run(r, o, r->be->machine_clock && x.m.fid.degraded);
	if (r->be->netevs) {
		size_t nev;
		const struct rec_netev *v = r->be->netevs(r, &nev);
		char ev[4096];

		if (nev)
			printf("network events (failures.csv):\n%s",
			       run_netev_summary(v, nev, ev, sizeof(ev)));
	}
	if (out) {
		snprintf(out->dir, sizeof(out->dir), "%s", dir->path);
		out->degraded = x.m.fid.degraded;
	}
	free(txt);
	res_run_done(&x);
	return 0;
}

int cmd_run_on(struct run *r, const struct cmd_run_opts *o, struct cmd_run_out *out, struct diag *d)
{
	const char *who = r->be->command;
	struct progress pg = {.tty = isatty(STDERR_FILENO),
			      .clock = r->be->machine_clock ? "elapsed" : "virtual",
			      .label = o->label,
			      .wall0 = mono_now_ns()};
	int err, werr = 0;

	r->progress = on_progress;
	r->progress_arg = &pg;
	err = execute(r, &pg, who, d);
	if (r->njobs && !(r->stop && *r->stop == RUN_STOP_DOWN))
		werr = report(r, o, who, out, err ? NULL : d);
	run_done(r);
	free(pg.done_units);
	return err ? err : werr;
}

int cmd_run(struct world *w, const int *nsfd, volatile sig_atomic_t *stop,
	    const struct cmd_run_opts *o, struct cmd_run_out *out, struct diag *d)
{
	struct run r = {.e = &w->e,
			.t = w->t,
			.plan = &w->plan,
			.stop = stop,
			.specs = &w->jobs,
			.trace_left = w->e.w.trace ? &w->trace_left : NULL};
	struct run_emu x = {.nsfd = nsfd};
	char exe[PATH_MAX];
	int err = emu_find(exe, sizeof(exe), d);

	if (err)
		return err;
	x.emu_path = exe;
	run_emu_use(&r, &x);
	return cmd_run_on(&r, o, out, d);
}
