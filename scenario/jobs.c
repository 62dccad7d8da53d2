// SPDX-License-Identifier: MIT
/* The workload as jobs (jobs.h): explicit jobs, generated ones and a trace's, resolved against
 * the model catalogue, in paper units. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/input.h"
#include "scenario/jobs.h"
#include "policy/torus_order.h"

/* Custom model: its size and compute as written. */
static void custom_job(const struct exp_job *x, struct job_spec *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->model, sizeof(out->model), "custom");
	out->gpus = x->gpus;
	out->kind = COLL_ALLREDUCE;
	out->bytes = (uint64_t)llround(x->params * x->bytes_per_param);
	out->compute_ns = x->compute_ns;
	out->comm_fraction = x->comm_fraction;
}

/* Overrides a job entry writes on top of its model. */
static void apply_overrides(const struct experiment *e, const struct exp_job *x, struct job_spec *j)
{
	if (x->kind >= 0)
		j->kind = (enum coll_kind)x->kind;
	if (x->group)
		j->group = x->group;
	if (x->bytes)
		j->bytes = x->bytes;
	if (x->compute_ns) {
		j->compute_ns = x->compute_ns;
		j->comm_fraction = 0;
	}
	j->iterations = x->iterations ? x->iterations : e->w.iterations;
	j->arrival_ns = x->arrival_ns;
	j->deadline_ns = x->deadline_ns;
}

/* A job that inherits its algorithm (workload.algorithm, generate.algorithm, a trace's) and
 * whose collective that algorithm cannot build runs the collective's default instead. */
static void fit_algo(struct job_spec *j)
{
	if (!coll_algo_builds(j->algo, j->kind))
		j->algo = coll_algo_default(j->kind);
}

/* A catalogue model's job. A model the papers give no size for (moe) takes the entry's
 * `bytes`, as its message asks. */
static int model_job(const struct exp_job *x, enum coll_algo algo, struct job_spec *j,
		     struct diag *d)
{
	const struct job_model *m = job_model_find(x->model);
	struct job_model sized;

	if (m && m->params <= 0 && x->bytes) {
		sized = *m;
		sized.params = (double)((x->bytes + m->bytes_per_param - 1) / m->bytes_per_param);
		m = &sized;
	}
	return job_from_model(m, x->gpus, algo, j, d);
}

/* A generated or traced hier-ring job's group is a server's GPUs; a job within one server,
 * or not whole servers, runs a ring instead (no second level to build). */
static void fit_group(const struct experiment *e, struct job_spec *j)
{
	uint32_t g = e->s.topology.ls.gpus_per_server;

	if (j->algo != COLL_HIER_RING || j->group)
		return;
	if (g > 1 && j->gpus > g && j->gpus % g == 0)
		j->group = g;
	else
		j->algo = COLL_RING;
}

/* The HammingMesh all-reduces run over the logical torus of the whole topology (HammingMesh
 * §V-A2): its columns are the algorithm's group, on a HammingMesh or a direct 2D torus. */
static void fit_torus(const struct experiment *e, struct job_spec *j)
{
	const struct scn_topology *t = &e->s.topology;

	if ((j->algo != COLL_HX_RINGS && j->algo != COLL_TORUS2D) || j->group)
		return;
	if (t->gen == SCN_GEN_HAMMINGMESH)
		j->group = torus_columns(&t->hx);
	else if (t->gen == SCN_GEN_DIRECT && t->dr.kind == GEN_DIRECT_TORUS2D)
		j->group = t->dr.size[0];
}

/* A chunked multi-dimensional collective (Themis §2.3, §4): the job entry's options over the
 * workload's (x NULL for generated and traced jobs), for an all-reduce, reduce-scatter or
 * all-gather (an all-to-all only if its entry asks), over the platform's dimensions: ring
 * dimensions run rings, fully-connected ones direct exchanges, switch ones direct exchanges or
 * with `switch: hd` halving-doubling (Themis Table 1, whose byte counts are the same). */
static void apply_md(const struct experiment *e, const struct exp_md *x, struct job_spec *j)
{
	const struct exp_md *w = &e->w.md;
	const struct gen_multidim_params *t = &e->s.topology.md;
	int32_t sched = x && x->sched >= 0 ? x->sched : w->sched;
	int32_t intra = x && x->intra >= 0 ? x->intra : w->intra;
	int32_t sw = x && x->sw >= 0 ? x->sw : w->sw;
	const struct exp_md_active *active = x && x->active.n ? &x->active : &w->active;
	uint32_t k;
	struct coll_md *md = &j->md;

	if (sched < 0 || e->s.topology.gen != SCN_GEN_MULTIDIM)
		return;
	/* the workload's schedule is for the kinds it builds; md_fit refuses a job's own */
	if (j->kind == COLL_ALLTOALL && !(x && x->sched >= 0))
		return;
	j->algo = COLL_MULTIDIM;
	md->kind = (uint8_t)j->kind;
	md->sched = (uint8_t)sched;
	md->intra = (uint8_t)(intra >= 0		? intra
			      : sched == COLL_MD_THEMIS ? COLL_MD_SCF
							: COLL_MD_FIFO);
	md->chunks = x && x->chunks ? x->chunks : w->chunks ? w->chunks : 64;
	md->thr_div = x && x->thr_div ? x->thr_div : w->thr_div ? w->thr_div : 16;
	md->ndims = (uint8_t)t->ndims;
	for (k = 0; k < t->ndims && k < COLL_MD_DIMS; k++) {
		md->dim[k].size = t->dim[k].size;
		md->dim[k].algo = t->dim[k].type == GEN_DIM_RING		? COLL_MD_RING
				  : t->dim[k].type == GEN_DIM_SWITCH && sw >= 0 ? (uint8_t)sw
										: COLL_MD_DIRECT;
		md->dim[k].active = (uint8_t)(!active->n       ? 1
					      : active->n == 1 ? active->v[0]
							       : active->v[k]);
		md->dim[k].rate = t->dim[k].rate;
	}
}

/* A Chakra trace's job: one run of the whole trace, its collectives with the job's
 * algorithm. */
static int chakra_spec(const struct experiment *e, const struct exp_job *x, struct job_spec *j,
		       struct diag *d)
{
	int r;

	snprintf(j->model, sizeof(j->model), "chakra");
	j->chakra = x->chakra;
	j->chakra_algo = j->algo;
	j->algo = COLL_CHAKRA;
	j->kind = COLL_ALLREDUCE;
	j->iterations = 1;
	j->compute_ns = 0;
	j->comm_fraction = 0;
	j->elem = 4;
	r = jobs_chakra_spec(e, j, x->gpus, d);
	return r ? diag_wrap(d, r, "%s:%u:%u: workload job %s: ", e->s.path, x->line, x->col,
			     e->w.chakra_job[x->chakra - 1])
		 : 0;
}

static int explicit_job(const struct experiment *e, const struct exp_job *x, job_list *out,
			struct diag *d)
{
	enum coll_algo algo = x->algo >= 0 ? (enum coll_algo)x->algo : e->w.algo;
	struct job_spec j;
	int r = 0;

	if (x->model[0])
		r = model_job(x, algo, &j, d);
	else
		custom_job(x, &j);
	if (r)
		return diag_wrap(d, r, "%s:%u: workload job: ", e->s.path, x->line);
	if (x->algo >= 0 || !x->model[0])
		j.algo = algo;
	apply_overrides(e, x, &j);
	if (x->algo < 0 && !x->chakra) /* a trace's collectives fall back kind by kind */
		fit_algo(&j);
	fit_torus(e, &j);
	apply_md(e, &x->md, &j);
	j.channels = x->channels ? x->channels : e->w.channels ? e->w.channels : 1;
	j.msccl = x->msccl;
	j.line = x->line;
	j.col = x->col;
	if (x->chakra)
		r = chakra_spec(e, x, &j, d);
	if (r)
		return r;
	return vec_push(out, j) ? diag_set(d, -ENOMEM, "out of memory") : 0;
}

/* How the scenario reads its trace: workload.trace's model, columns and states. */
static void trace_opts(const struct experiment *e, struct job_trace_opts *o, const char **states)
{
	uint32_t i;

	memset(o, 0, sizeof(*o));
	o->default_model = e->w.trace_model[0] ? e->w.trace_model : "resnet50";
	o->algo = e->w.algo;
	o->iterations = e->w.iterations;
	for (i = 0; i < JT_ROLES; i++)
		o->columns[i] = e->w.trace_columns[i];
	for (i = 0; i < e->w.trace_states_n; i++)
		states[i] = e->w.trace_states[i];
	o->states = states;
	o->states_n = e->w.trace_states_n;
}

/* A trace's jobs from v[0] on (n of them), scaled: replays compress a trace's days into
 * minutes (time_scale), or its jobs' lengths (duration_scale). A length stays above 0: 0 is
 * no length at all (traffic/job.h). */
static void trace_scale(const struct experiment *e, struct job_spec *v, size_t n)
{
	double len;
	size_t i;

	for (i = 0; i < n; i++) {
		v[i].arrival_ns = (uint64_t)((double)v[i].arrival_ns * e->w.trace_time_scale);
		len = (double)v[i].duration_ns * e->w.trace_duration_scale;
		if (v[i].duration_ns)
			v[i].duration_ns = len >= 1.8e19 ? UINT64_MAX : len < 1 ? 1 : (uint64_t)len;
	}
}

static int trace_jobs(const struct experiment *e, job_list *out, struct job_trace_left *left,
		      struct diag *d)
{
	const char *states[JOB_TRACE_STATES_MAX];
	struct job_trace_left l = {{0}};
	struct job_trace_opts o;
	size_t len = 0, before = out->n;
	char *text = NULL;
	int r, k;

	r = input_read(e->w.trace, JOB_TRACE_MAX, "not a trace", &text, &len, d);
	if (r)
		return diag_wrap(d, r == -ENOMEM ? r : -EINVAL,
				 "%s:%u:%u: workload.trace.file: ", e->s.path, e->w.trace_line,
				 e->w.trace_col);
	trace_opts(e, &o, states);
	r = workload_trace_parse(e->w.trace, text, len, &o, out, &l, d);
	free(text);
	if (r)
		return r;
	if (e->w.trace_limit && out->n - before > e->w.trace_limit) {
		l.n[JT_LEFT_LIMIT] = (uint32_t)(out->n - before - e->w.trace_limit);
		out->n = before + e->w.trace_limit;
	}
	if (out->n > before) /* else out->v may be NULL: no offset from it */
		trace_scale(e, out->v + before, out->n - before);
	for (k = 0; left && k < JT_LEFT_N; k++)
		left->n[k] += l.n[k];
	return 0;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct job_spec *x = a, *y = b;

	if (x->arrival_ns != y->arrival_ns)
		return x->arrival_ns < y->arrival_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int jobs_resolve(const struct experiment *e, job_list *out, struct job_trace_left *left,
		 struct diag *d)
{
	size_t i;
	int r = 0;

	for (i = 0; !r && i < e->w.jobs.n; i++)
		r = explicit_job(e, &e->w.jobs.v[i], out, d);
	if (!r && e->w.generate)
		r = workload_generate(&e->w.gen, out, d);
	if (!r && e->w.trace)
		r = trace_jobs(e, out, left, d);
	if (r)
		return r;
	for (i = e->w.jobs.n; i < out->n; i++) { /* generated and traced jobs inherit theirs */
		fit_algo(&out->v[i]);
		fit_group(e, &out->v[i]);
		fit_torus(e, &out->v[i]);
		apply_md(e, NULL, &out->v[i]);
		out->v[i].channels = e->w.channels ? e->w.channels : 1;
	}
	for (i = 0; i < out->n; i++)
		out->v[i].id = (uint32_t)i; /* ties keep the file's order */
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_arrival);
	for (i = 0; i < out->n; i++)
		out->v[i].id = (uint32_t)i;
	return 0;
}
