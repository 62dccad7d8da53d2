// SPDX-License-Identifier: MIT
/* testbed schedule [--job N] FILE: the collective schedule each job of a scenario would run,
 * at the paper's sizes (as `testbed sim` runs them), with its step counts and alpha-beta time.
 * Needs no root and touches no kernel state. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "cli/cmd.h"
#include "kernel/wdir.h"
#include "scenario/jobs.h"
#include "scenario/scenario_sweep.h"
#include "policy/torus_order.h"
#include "traffic/chakra/chakra_out.h"
#include "traffic/msccl/msccl.h"
#include "traffic/tacos.h"
#include "traffic/themis.h"

static void schedule_usage(FILE *f)
{
	fprintf(f, "%s",
		"Usage: testbed schedule [--job N] [--msccl DIR] [--chakra DIR] FILE\n\n"
		"Prints the collective schedule each job of FILE would run (or job N only), for\n"
		"each variant of its sweep, at the paper's sizes: its algorithm, ranks, steps,\n"
		"messages and bytes per rank, and its alpha-beta time: every rank pair on its own\n"
		"link at the rate of the first endpoint's link, alpha workload.tacos.alpha (0.5 "
		"us\n"
		"unless given), a pair's messages one after another. TACOS jobs are synthesized\n"
		"over the topology as the runner would, their synthesized time printed beside.\n"
		"Chunked multi-dimensional jobs (workload.schedule) also print the time their\n"
		"schedule predicts, bandwidth only, against the ideal one (the average\n"
		"bandwidth utilization Themis reports).\n"
		"--msccl DIR also writes each schedule as an MSCCL algorithm XML,\n"
		"DIR/<scenario>[-v<variant>]-job<N>.xml, which `algorithm: msccl` reads back.\n"
		"--chakra DIR also writes each job as a Chakra execution trace, the files\n"
		"DIR/<scenario>[-v<variant>]-job<N>.<rank>.et, which ASTRA-sim reads and\n"
		"`workload.jobs[i].chakra` runs: per iteration its compute (to the microsecond)\n"
		"then its collective. A job of a Chakra trace prints its lowered schedule and\n"
		"its critical path instead.\n"
		"Exit 0, or 2 for bad input.\n");
}

/* The rate of the first endpoint's first link (paper bit/s). */
static double first_rate(const struct topo *t)
{
	uint32_t n = t->endpoints.n ? t->endpoints.v[0] : 0;

	if (!t->endpoints.n || !t->nodes.v[n].nports)
		return 0;
	return (double)topo_port_rate(t, topo_node_port(t, n, 0));
}

/* Ranks on endpoints 0..n-1 (the runner's placement changes no schedule but these two). */
static void job_eps(const struct world *w, const struct job_spec *j, uint32_t *eps)
{
	const struct scn_topology *t = &w->e.s.topology;
	uint32_t i;

	for (i = 0; i < j->gpus; i++)
		eps[i] = i;
	if (j->algo == COLL_HX_RINGS || j->algo == COLL_TORUS2D)
		torus_order(w->t, t->gen == SCN_GEN_HAMMINGMESH ? &t->hx : NULL, eps, j->gpus);
}

static int job_tacos(const struct world *w, const struct job_spec *j, const uint32_t *eps,
		     struct tacos_result *r, struct diag *d)
{
	const struct exp_tacos *x = &w->e.w.tacos;
	uint64_t parts = (uint64_t)j->gpus * x->k;
	struct tacos_topo_in in = {w->t,    &w->e.s.topology.dr,	eps,
				   j->gpus, (double)x->alpha_ns * 1e-9, 1.0};
	struct tacos_cfg cfg = {.chunk_bytes = j->bytes / parts ? j->bytes / parts : 1,
				.k = x->k,
				.runs = x->runs,
				.seed = x->seed};

	return tacos_topo_synth(&in, j->kind, &cfg, r, d);
}

static void print_counts(const struct coll_sched *s)
{
	uint32_t r, lo = UINT32_MAX, hi = 0, msgs = 0, i;
	uint64_t most = 0, b;
	char sz[32];

	for (r = 0; r < s->ranks.n; r++) {
		lo = s->ranks.v[r].step_n < lo ? s->ranks.v[r].step_n : lo;
		hi = s->ranks.v[r].step_n > hi ? s->ranks.v[r].step_n : hi;
		b = coll_sched_bytes_sent(s, r);
		most = b > most ? b : most;
		for (i = 0; i < s->ranks.v[r].step_n; i++)
			msgs += s->steps.v[s->ranks.v[r].step_off + i].op == COLL_SEND;
	}
	printf("  steps      %zu (%u to %u per rank), %u messages\n", s->steps.n, lo, hi, msgs);
	printf("  bytes      %s sent by a rank at most\n", units_fmt_size(sz, sizeof(sz), most));
}

/* A chunked multi-dimensional collective: the time its own schedule predicts (the offline
 * simulation that fixes each dimension's order, Themis §4.6; bandwidth only) against the
 * ideal one, their ratio the paper's average bandwidth utilization (Themis §6.1). */
static int print_md(const struct coll_params *p, struct diag *d)
{
	struct themis_plan pl = {0};
	int err = themis_plan_build(&p->md, (double)p->bytes, &pl, d);

	if (err)
		return err;
	printf("  predicted  %.6g s, ideal %.6g s: utilization %.1f%% (%u chunks; bandwidth "
	       "only)\n",
	       pl.makespan, pl.t_ideal, 100 * pl.t_ideal / pl.makespan, pl.chunks);
	themis_plan_done(&pl);
	return 0;
}

/* Options: the job to print (-1: all), the directory for MSCCL files (NULL: none), and the
 * variant being printed (-1: the file has no sweep). */
struct sched_opts {
	long job;
	const char *msccl;
	long variant;
	const char *chakra;
};

/* The file names of job j's export: <scenario>[-v<variant>]-job<N> into buf. */
static void export_name(const struct world *w, const struct sched_opts *o, uint32_t job, char *buf,
			size_t len)
{
	char v[24] = "";

	if (o->variant >= 0)
		snprintf(v, sizeof(v), "-v%ld", o->variant);
	snprintf(buf, len, "%s%s-job%u", w->e.s.name, v, job);
}

/* The Chakra collective of a job's kind. */
static uint8_t chakra_coll_of(enum coll_kind k)
{
	return k == COLL_ALLGATHER	 ? CHAKRA_ALL_GATHER
	       : k == COLL_REDUCESCATTER ? CHAKRA_REDUCE_SCATTER
	       : k == COLL_ALLTOALL	 ? CHAKRA_ALL_TO_ALL
					 : CHAKRA_ALL_REDUCE;
}

/* Job j as DIR/<name>.<rank>.et, in paper units: its iterations, each its compute (as the
 * runner derives it at the slowest NIC's rate) then its collective of p.bytes. */
static int write_chakra(const struct world *w, const struct sched_opts *o, const struct job_spec *j,
			uint64_t bytes, struct diag *d)
{
	struct job_spec js = *j;
	uint64_t rate = topo_nic_rate_min(w->t);
	char name[160], file[200];
	chakra_out_bytes out = {0};
	struct chakra_out_job cj;
	struct wdir dir;
	uint32_t r;
	int err;

	job_fit_duration(&js, rate);
	export_name(w, o, j->id, name, sizeof(name));
	cj = (struct chakra_out_job){.nranks = js.gpus,
				     .iterations = js.iterations,
				     .compute_ns = job_compute_ns(&js, rate),
				     .coll = chakra_coll_of(js.kind),
				     .bytes = bytes,
				     .name = name};
	err = wdir_open(&dir, o->chakra, WDIR_CREATE | WDIR_GIVE, d);
	for (r = 0; !err && r < js.gpus; r++) {
		out.n = 0;
		snprintf(file, sizeof(file), "%s.%u.et", name, r);
		err = chakra_out_rank(&cj, r, &out, d);
		err = err ? err : wdir_write(&dir, file, out.v, out.n, WDIR_REPLACE, d);
	}
	wdir_close(&dir);
	vec_free(&out);
	if (!err)
		printf("  chakra     %s/%s.{0..%u}.et\n", o->chakra, name, js.gpus - 1);
	return err;
}

/* s as DIR/<scenario>[-v<variant>]-job<N>.xml. */
static int write_msccl(const struct world *w, const struct sched_opts *o, uint32_t job,
		       const struct coll_sched *s, struct diag *d)
{
	size_t len = msccl_format(s, NULL, NULL, 0);
	char *text = malloc(len + 1), name[160];
	struct wdir dir;
	int err;

	if (!text || !len) {
		free(text);
		return diag_set(d, -ENOMEM, "out of memory for the MSCCL text");
	}
	msccl_format(s, NULL, text, len + 1);
	export_name(w, o, job, name, sizeof(name) - 4);
	strcat(name, ".xml");
	err = wdir_open(&dir, o->msccl, WDIR_CREATE | WDIR_GIVE, d);
	err = err ? err : wdir_write(&dir, name, text, len, WDIR_REPLACE, d);
	wdir_close(&dir);
	free(text);
	if (err)
		return err;
	printf("  msccl      %s/%s\n", o->msccl, name);
	return 0;
}

static int one_job(const struct world *w, const struct sched_opts *o, const struct job_spec *j,
		   struct diag *d)
{
	uint64_t elem = j->elem ? j->elem : 4;
	struct coll_params p = job_coll(j, j->bytes < elem ? elem : j->bytes / elem * elem);
	double alpha = (double)w->e.w.tacos.alpha_ns * 1e-9;
	double bps = first_rate(w->t), t;
	uint32_t *eps = calloc(j->gpus + 1, sizeof(*eps));
	struct tacos_result tr = {0};
	struct coll_ext x = {0};
	struct coll_sched s = {0};
	struct jobs_chakra ch = {0};
	struct chakra_job cj;
	char sz[32], rate[32];
	int err = eps ? 0 : diag_set(d, -ENOMEM, "out of memory");

	if (!err) {
		job_eps(w, j, eps);
		if (j->algo == COLL_TACOS && !(err = job_tacos(w, j, eps, &tr, d)))
			x.tacos = &tr;
	}
	if (!err && j->chakra) {
		err = jobs_chakra_open(&w->e, j, 1.0, 1.0, &ch, &cj, d);
		x.chakra = &cj;
	}
	err = err ? err : coll_sched_build_ext(&p, &x, &s, d);
	if (!err) {
		if (j->chakra)
			printf("job %u: Chakra trace %s, %u ranks, its collectives with algorithm "
			       "%s (%s largest)\n",
			       j->id, w->e.w.chakra_job[j->chakra - 1], j->gpus,
			       coll_algo_name(j->chakra_algo),
			       units_fmt_size(sz, sizeof(sz), p.bytes));
		else
			printf("job %u: %s of %s per rank, algorithm %s, %u ranks\n", j->id,
			       coll_kind_name(j->kind), units_fmt_size(sz, sizeof(sz), p.bytes),
			       coll_algo_name(j->algo), j->gpus);
		print_counts(&s);
		t = coll_sched_alpha_beta(&s, alpha, bps);
		printf("  alpha-beta %.6g s (alpha %.3g us, %s per pair)", t, alpha * 1e6,
		       units_fmt_rate(rate, sizeof(rate), (uint64_t)bps));
		if (x.tacos)
			printf("; synthesized over the topology's links: %.6g s",
			       tr.t_rs + tr.t_ag);
		printf("\n");
		if (j->algo == COLL_MULTIDIM)
			err = print_md(&p, d);
		if (j->chakra) {
			printf("  critical path ");
			err = cmd_chakra_path(stdout, &cj, alpha, bps, d);
		}
		if (!err && o->msccl)
			err = write_msccl(w, o, j->id, &s, d);
		if (!err && o->chakra && !j->chakra)
			err = write_chakra(w, o, j, p.bytes, d);
	}
	jobs_chakra_done(&ch);
	coll_sched_done(&s);
	tacos_result_done(&tr);
	free(eps);
	return err;
}

/* The jobs of one run of the file: choice NULL for a file without a sweep. */
static int schedule_run(const char *path, const uint32_t *choice, const struct sched_opts *o,
			struct diag *d)
{
	struct world w;
	size_t i;
	int err = world_load(path, (struct world_ask){.choice = choice, .sim = true}, &w, d);

	if (!err && o->job >= 0 && (size_t)o->job >= w.jobs.n)
		err = diag_set(d, -EINVAL, "--job %ld: the scenario has %zu jobs", o->job,
			       w.jobs.n);
	for (i = 0; !err && i < w.jobs.n; i++)
		if (o->job < 0 || (size_t)o->job == i)
			err = one_job(&w, o, &w.jobs.v[i], d);
	world_done(&w);
	return err;
}

/* A sweep's variants one after another, each with its first seed combination. */
static int schedule_file(const char *path, struct sched_opts *o, struct diag *d)
{
	uint32_t *choice = NULL, v;
	struct world w;
	char label[256];
	int err = world_load(path, (struct world_ask){.sim = true}, &w, d);

	if (!err && !w.e.sweep.axes.n)
		err = schedule_run(path, NULL, o, d);
	else if (!err && !(choice = calloc(w.e.sweep.axes.n, sizeof(*choice))))
		err = diag_set(d, -ENOMEM, "out of memory");
	for (v = 0; !err && choice && v < w.e.sweep.variants; v++) {
		exp_sweep_choice(&w.e.sweep, v * w.e.sweep.seeds, choice);
		exp_sweep_label(&w.e.sweep, choice, false, label, sizeof(label));
		printf("%sv%u %s\n", v ? "\n" : "", v, label);
		o->variant = v;
		err = schedule_run(path, choice, o, d);
	}
	free(choice);
	world_done(&w);
	return err;
}

int cmd_schedule(int argc, char **argv)
{
	struct sched_opts o = {-1, NULL, -1, NULL};
	const char *job = NULL;
	const struct cmd_opt opts[] = {{"job", &job, NULL},
				       {"msccl", &o.msccl, NULL},
				       {"chakra", &o.chakra, NULL},
				       {NULL, NULL, NULL}};
	struct diag d = {0};
	char *end;
	bool help;
	int r = cmd_opts_parse("schedule", argc, argv, opts, false, &help);

	if (help) {
		schedule_usage(stdout);
		return CMD_OK;
	}
	if (r != 1) {
		schedule_usage(stderr);
		return CMD_USAGE;
	}
	if (job) {
		errno = 0;
		o.job = strtol(job, &end, 10);
		if (errno || !*job || *end || o.job < 0) {
			fprintf(stderr,
				"testbed schedule: --job: expected a job number, found '%s'\n",
				job);
			return CMD_USAGE;
		}
	}
	r = schedule_file(argv[1], &o, &d);
	return r ? cmd_fail("schedule", r, &d) : CMD_OK;
}
