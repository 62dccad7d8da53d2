// SPDX-License-Identifier: MIT
/* testbed sample NAME [--seconds S] [--interval T] [--out DIR] [--full] [--netlink]: samples a
 * running testbed's counters as a run would, and prints what the sampling cost (CPU time of this
 * process over the sampling, user and system, as a share of one core). Not in the help: it is the
 * bench's driver (tests/bench/sample_cost.sh) and a test's (tests/integration/t_util.sh): --out DIR
 * writes a results folder of the span (links.csv, cpu.csv, tcp.csv, topology.json, the summary and
 * plots; no jobs); --full reads every direction every round, as with every link busy
 * (sampler_set_full); --netlink reads no shaper by BPF (sampler_use_bpf), for the bench's
 * comparison. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/units.h"
#include "cli/cmd.h"
#include "fabric/fabric.h"
#include "kernel/netns.h"
#include "report/results.h"
#include "sample/sample.h"
#include "fabric/state.h"

struct sample_opts {
	const char *name, *out;
	double seconds;
	bool full, netlink;
	uint64_t interval_ns; /* 0: the scenario's */
};

static void sample_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed sample NAME [--seconds S] [--interval T] [--out DIR] [--full]\n"
		"                      [--netlink]\n\n"
		"Samples every link direction of testbed NAME (and the CPU) for S seconds\n"
		"(default 10) every T (default: the scenario's run.sample_interval), and prints\n"
		"the CPU time the sampling took. --out DIR writes a results folder of the\n"
		"span: links.csv, cpu.csv, tcp.csv, topology.json, the summary and plots.\n"
		"--full reads every direction every round, not only those that may have\n"
		"changed, and every endpoint's TCP counters every second: the cost with\n"
		"every link busy. --netlink asks for every shaper's counters by netlink, none\n"
		"by BPF.\n");
}

/* NAME and the options into o. 0, or -EINVAL (also for --help, with *help set). */
static int parse(int argc, char **argv, struct sample_opts *o, bool *help)
{
	const char *secs = NULL, *interval = NULL;
	const struct cmd_opt opts[] = {
		{"seconds", &secs, NULL}, {"interval", &interval, NULL},  {"out", &o->out, NULL},
		{"full", NULL, &o->full}, {"netlink", NULL, &o->netlink}, {NULL, NULL, NULL}};
	int n;

	*o = (struct sample_opts){.seconds = 10};
	n = cmd_opts_parse("sample", argc, argv, opts, false, help);
	if (n != 1 || *help)
		return -EINVAL;
	o->name = argv[1];
	if (secs)
		o->seconds = atof(secs);
	if (interval && units_parse_time(interval, &o->interval_ns))
		return -EINVAL;
	return o->seconds > 0 ? 0 : -EINVAL;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* This process's CPU time so far, in s: user and system. */
static void cpu_s(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* What the sampler did so far, to tell the measured span's share. */
struct sample_work {
	uint64_t rounds, reads, dumps, bpf;
	double user, sys;
};

static void work_now(const struct sampler *s, struct sample_work *w)
{
	w->rounds = sampler_rounds(s);
	sampler_work(s, &w->reads, &w->dumps, &w->bpf);
	cpu_s(&w->user, &w->sys);
}

static void print_cost(const struct sampler *s, int64_t interval, int64_t ns,
		       const struct sample_work *a, const struct sample_work *b)
{
	double secs = (double)ns / 1e9, rounds = (double)(b->rounds - a->rounds);
	double user = b->user - a->user, sys = b->sys - a->sys;
	const char *why;
	uint32_t n;

	rounds = rounds > 0 ? rounds : 1;
	printf("sample: %u directions, %.0f rounds every %.0f ms in %.2f s: CPU %.3f s = "
	       "%.2f%% of one core, %.2f ms per round\n",
	       sampler_directions(s), rounds, (double)interval / 1e6, secs, user + sys,
	       100 * (user + sys) / secs, 1e3 * (user + sys) / rounds);
	printf("sample: user %.3f s, system %.3f s; per round %.1f counter requests, %.1f "
	       "device dumps and %.1f shapers read by BPF\n",
	       user, sys, (double)(b->reads - a->reads) / rounds,
	       (double)(b->dumps - a->dumps) / rounds, (double)(b->bpf - a->bpf) / rounds);
	why = sampler_bpf(s, &n);
	if (why)
		printf("sample: no shaper read by BPF: %s\n", why);
	else
		printf("sample: %u shapers registered for BPF\n", n);
}

static int open_nodes(const char *name, const struct topo *t, int *nsfd, struct diag *d)
{
	char ns[256];
	size_t i;

	for (i = 0; i < t->nodes.n; i++) {
		fabric_ns_name(ns, sizeof(ns), name, t->nodes.v[i].name);
		nsfd[i] = netns_open(ns);
		if (nsfd[i] < 0)
			return diag_set(d, nsfd[i], "%s: %s (is testbed '%s' up?)", ns,
					strerror(-nsfd[i]), name);
	}
	return 0;
}

/* Samples until the time is up, the first and last reading of every counter included (as a
 * run takes them, sampler_take); prints the cost. */
static int sample_loop(struct sampler *s, const struct sample_opts *o, int64_t interval,
		       struct rec_run *rec, struct diag *d)
{
	struct timespec ts;
	int64_t t0 = mono_ns(), now = 0, end = (int64_t)(o->seconds * 1e9);
	struct sample_work a, b;
	int err;

	work_now(s, &a);
	err = sampler_take(s, t0, rec, d);
	while (!err && now < end) {
		now = mono_ns() - t0;
		err = sampler_poll(s, now, t0, rec, d);
		now = sampler_next(s) - (mono_ns() - t0);
		ts = (struct timespec){now / 1000000000LL, now % 1000000000LL};
		if (now > 0)
			nanosleep(&ts, NULL);
		now = mono_ns() - t0;
	}
	err = err ? err : sampler_take(s, t0, rec, d); /* the last reading, as a run's */
	work_now(s, &b);
	if (!err)
		print_cost(s, interval, now, &a, &b);
	return err;
}

/* A results folder of the sampled span: no jobs, the links' counters and the CPU, and the
 * summary and plots made from them. */
static int write_out(const struct wdir *dir, const struct world *w, struct rec_run *rec,
		     struct diag *d)
{
	struct res_info info = {.dilation = scn_dilation(&w->e.s)};
	struct diag warn = {0};
	size_t i;
	int err;

	for (i = 0; i < rec->samples.n; i++)
		info.t_end = rec->samples.v[i].t > info.t_end ? rec->samples.v[i].t : info.t_end;
	snprintf(info.scenario, sizeof(info.scenario), "%.63s", w->e.s.name);
	snprintf(info.run_id, sizeof(info.run_id), "sample");
	res_info_normalize(&info);
	err = res_records_write(dir, rec, d);
	err = err ? err : res_write_topology(dir, w->t, &w->e.s.shaping, d);
	err = err ? err : res_report(dir, &info, NULL, NULL, NULL, &warn, d);
	if (!err && warn.msg[0])
		fprintf(stderr, "testbed sample: plots: %s\n", warn.msg);
	return err;
}

static int run(const struct sample_opts *o, struct world *w, struct diag *d)
{
	int64_t interval = (int64_t)(o->interval_ns ? o->interval_ns : w->e.run.sample_ns);
	int *nsfd = calloc(w->t->nodes.n + 1, sizeof(*nsfd));
	struct sampler *s = NULL;
	struct rec_run rec = {0};
	struct wdir dir = WDIR_INIT;
	size_t i;
	int err = nsfd ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (i = 0; nsfd && i < w->t->nodes.n; i++)
		nsfd[i] = -1;
	if (!err && o->out) { /* before the span, not after it */
		err = wdir_open(&dir, o->out, WDIR_CREATE | WDIR_GIVE, d);
		err = err ? err : wdir_prove(&dir, d);
	}
	err = err ? err : open_nodes(o->name, w->t, nsfd, d);
	err = err ? err : sampler_open(&s, w->t, &w->e.s.shaping, nsfd, interval, d);
	if (!err) {
		sampler_set_full(s, o->full);
		sampler_use_bpf(s, !o->netlink);
	}
	err = err ? err : sample_loop(s, o, interval, &rec, d);
	if (!err && o->out)
		err = write_out(&dir, w, &rec, d);
	wdir_close(&dir);
	sampler_free(s);
	for (i = 0; nsfd && i < w->t->nodes.n; i++)
		if (nsfd[i] >= 0)
			close(nsfd[i]);
	free(nsfd);
	rec_run_done(&rec);
	return err;
}

int cmd_sample(int argc, char **argv)
{
	struct sample_opts o;
	struct world w;
	struct diag d = {0};
	char path[512];
	bool help;
	int r = parse(argc, argv, &o, &help);

	if (help) {
		sample_usage(stdout);
		return CMD_OK;
	}
	if (r) {
		sample_usage(stderr);
		return CMD_USAGE;
	}
	if (cmd_need_root("sample"))
		return CMD_FAIL;
	state_path(path, sizeof(path), o.name, "scenario.yaml");
	r = world_load(path, (struct world_ask){.every_variant = true}, &w, &d);
	r = r ? r : run(&o, &w, &d);
	world_done(&w);
	return r ? cmd_fail("sample", r, &d) : CMD_OK;
}
