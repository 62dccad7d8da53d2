// SPDX-License-Identifier: MIT
/* The workload as jobs: explicit jobs, generated ones and a trace's, resolved against the
 * catalogue and scaled to the emulation (sizes times size_scale, times times the dilation
 * D = size_scale / rate_scale). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario/input.h"
#include "run/run_int.h"
#include "traffic/msccl.h"
#include "policy/torus_order.h"
#include "traffic/tacos.h"

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
	if (x->algo < 0)
		fit_algo(&j);
	fit_torus(e, &j);
	apply_md(e, &x->md, &j);
	j.channels = x->channels ? x->channels : e->w.channels ? e->w.channels : 1;
	j.line = x->line;
	j.col = x->col;
	return vec_push(out, j) ? diag_set(d, -ENOMEM, "out of memory") : 0;
}

static int trace_jobs(const struct experiment *e, job_list *out, struct diag *d)
{
	const char *model = e->w.trace_model[0] ? e->w.trace_model : "resnet50";
	size_t len = 0, before = out->n;
	char *text = NULL;
	int r;

	r = input_read(e->w.trace, JOB_TRACE_MAX, "not a trace", &text, &len, d);
	if (r)
		return diag_wrap(d, r == -ENOMEM ? r : -EINVAL,
				 "%s:%u:%u: workload.trace.file: ", e->s.path, e->w.trace_line,
				 e->w.trace_col);
	r = workload_trace_parse(e->w.trace, text, len, model, e->w.algo, e->w.iterations, out, d);
	free(text);
	if (!r && e->w.trace_limit && out->n - before > e->w.trace_limit)
		out->n = before + e->w.trace_limit;
	for (; !r && before < out->n; before++) /* replays compress a trace's days into minutes */
		out->v[before].arrival_ns =
			(uint64_t)((double)out->v[before].arrival_ns * e->w.trace_time_scale);
	return r;
}

static int cmp_arrival(const void *a, const void *b)
{
	const struct job_spec *x = a, *y = b;

	if (x->arrival_ns != y->arrival_ns)
		return x->arrival_ns < y->arrival_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int run_resolve_jobs(const struct experiment *e, job_list *out, struct diag *d)
{
	size_t i;
	int r = 0;

	for (i = 0; !r && i < e->w.jobs.n; i++)
		r = explicit_job(e, &e->w.jobs.v[i], out, d);
	if (!r && e->w.generate)
		r = workload_generate(&e->w.gen, out, d);
	if (!r && e->w.trace)
		r = trace_jobs(e, out, d);
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

/* Where a job comes from, for its messages. */
static void job_where(const struct experiment *e, const struct job_spec *j, char *buf, size_t len)
{
	if (j->line && j->col)
		snprintf(buf, len, "%s:%u:%u: workload.jobs", e->s.path, j->line, j->col);
	else if (j->line)
		snprintf(buf, len, "%s:%u: a trace row", e->w.trace, j->line);
	else
		snprintf(buf, len, "%s: workload.generate", e->s.path);
}

/* A trace row that trace.oversize lets go. */
static bool skippable(const struct experiment *e, const struct job_spec *j)
{
	return e->w.trace_oversize == EXP_OVERSIZE_SKIP && j->line && !j->col;
}

/* vClos §9.7's EDF orders jobs by deadline: every job needs one. */
static int run_jobs_due(const struct experiment *e, const job_list *jobs, struct diag *d)
{
	char where[600];
	size_t i;

	for (i = 0; e->sched.queue == SCHED_EDF && i < jobs->n; i++) {
		if (jobs->v[i].deadline_ns)
			continue;
		job_where(e, &jobs->v[i], where, sizeof(where));
		return diag_set(d, -EINVAL,
				"%s: job %zu has no deadline, but scheduler.queue: edf (%s:%u:%u) "
				"starts jobs by deadline; give every job one (a jobs entry's "
				"`deadline`, a trace's `deadline` column, or "
				"workload.generate.deadline_slack)",
				where, i, e->s.path, e->sched.qline, e->sched.qcol);
	}
	return 0;
}

/* A chunked multi-dimensional collective spans the whole platform, rank i on node i, and
 * must build at the size it runs at (each chunk's smallest piece at least one element). */
static int md_fit(const struct experiment *e, const struct job_spec *j, uint32_t n_ep,
		  struct diag *d)
{
	double scale = e->s.emulation.size_scale > 0 ? e->s.emulation.size_scale : 1.0;
	uint64_t elem = j->elem ? j->elem : 4, bytes = (uint64_t)((double)j->bytes * scale);
	struct coll_params p = job_coll(j, bytes < elem ? elem : bytes / elem * elem);
	struct coll_sched s = {0};
	char where[600];
	int r = 0;

	if (j->algo != COLL_MULTIDIM)
		return 0;
	job_where(e, j, where, sizeof(where));
	if (j->kind == COLL_ALLTOALL)
		return diag_set(d, -EINVAL,
				"%s: a chunked multi-dimensional collective (schedule) is an "
				"all-reduce, reduce-scatter or all-gather, not alltoall",
				where);
	if (j->gpus != n_ep)
		return diag_set(d, -EINVAL,
				"%s: a chunked multi-dimensional collective spans every node of "
				"the platform (%u), but this job has %u GPUs",
				where, n_ep, j->gpus);
	r = coll_sched_build_rank(&p, 0, &s, d);
	coll_sched_done(&s);
	return r ? diag_wrap(d, r, "%s: ", where) : 0;
}

/* The HammingMesh all-reduces span the topology's logical torus: a HammingMesh, or a direct
 * 2D torus, all of it; the shape must suit the algorithm (hx-rings: HammingMesh Appendix A-D's
 * condition). */
static int torus_fit(const struct experiment *e, const struct job_spec *j, const struct topo *t,
		     struct diag *d)
{
	const struct scn_topology *s = &e->s.topology;
	struct coll_params p = job_coll(j, (uint64_t)j->gpus * 4 * (j->elem ? j->elem : 4));
	struct coll_sched sc = {0};
	char where[600];
	int r;

	if (j->algo != COLL_HX_RINGS && j->algo != COLL_TORUS2D)
		return 0;
	job_where(e, j, where, sizeof(where));
	if (s->gen != SCN_GEN_HAMMINGMESH &&
	    !(s->gen == SCN_GEN_DIRECT && s->dr.kind == GEN_DIRECT_TORUS2D))
		return diag_set(
			d, -EINVAL,
			"%s: algorithm %s runs over the logical torus of a HammingMesh or a "
			"direct torus2d topology",
			where, coll_algo_name(j->algo));
	if (j->gpus != t->endpoints.n)
		return diag_set(
			d, -EINVAL,
			"%s: algorithm %s spans the whole torus (%zu accelerators), but this "
			"job has %u GPUs",
			where, coll_algo_name(j->algo), t->endpoints.n, j->gpus);
	r = coll_sched_build_rank(&p, 0, &sc, d);
	coll_sched_done(&sc);
	return r ? diag_wrap(d, r, "%s: ", where) : 0;
}

/* On a direct topology, whether endpoints a and b are joined by a link. */
static bool direct_link(const struct topo *t, uint32_t a, uint32_t b)
{
	uint32_t na = t->endpoints.v[a], nb = t->endpoints.v[b], i;

	for (i = 0; i < t->nodes.v[na].nports; i++)
		if (topo_port_peer_node(t, topo_node_port(t, na, i)) == nb)
			return true;
	return false;
}

/* The first send of s between ranks (on endpoints 0..) that no link joins, as "a -> b"; 0 if
 * every send has its link. */
static int msccl_missing_link(const struct topo *t, const struct coll_sched *s, char *buf,
			      size_t len)
{
	const struct coll_step *st;
	uint32_t r, i;

	for (r = 0; r < s->ranks.n; r++)
		for (i = 0; i < s->ranks.v[r].step_n; i++) {
			st = &s->steps.v[s->ranks.v[r].step_off + i];
			if (st->op == COLL_SEND && !direct_link(t, r, st->peer)) {
				snprintf(buf, len, "%u -> %u", r, st->peer);
				return -EINVAL;
			}
		}
	return 0;
}

/* An imported MSCCL algorithm must read for the job at the size it runs at, and on a direct
 * topology send only over links the topology has. */
static int msccl_fit(const struct experiment *e, const struct job_spec *j, const struct topo *t,
		     struct diag *d)
{
	double scale = e->s.emulation.size_scale > 0 ? e->s.emulation.size_scale : 1.0;
	uint64_t elem = j->elem ? j->elem : 4, bytes = (uint64_t)((double)j->bytes * scale);
	struct coll_params p = job_coll(j, bytes < elem ? elem : bytes / elem * elem);
	struct coll_ext x = {0};
	struct coll_sched s = {0};
	char where[600], pair[48];
	int r;

	if (j->algo != COLL_MSCCL)
		return 0;
	job_where(e, j, where, sizeof(where));
	if (!e->w.msccl)
		return diag_set(d, -EINVAL,
				"%s: algorithm msccl runs the algorithm XML workload.msccl.file "
				"names, and the workload names none",
				where);
	r = input_read(e->w.msccl, RUN_MSCCL_MAX, "not an MSCCL algorithm", (char **)&x.msccl,
		       &x.msccl_len, d);
	/* proven here, before anything is built: a schedule that is not the collective it says it
	 * is, or races, would run to numbers that mean nothing */
	r = r ? r : msccl_parse_proven(x.msccl, x.msccl_len, &p, &s, d);
	if (!r && e->s.topology.gen == SCN_GEN_DIRECT &&
	    msccl_missing_link(t, &s, pair, sizeof(pair)))
		r = diag_set(d, -EINVAL, "ranks %s send where the topology has no link", pair);
	free((char *)x.msccl);
	coll_sched_done(&s);
	if (r && !strncmp(d->msg, e->w.msccl, strlen(e->w.msccl))) /* reading: names the file */
		return diag_wrap(d, r, "%s:%u:%u: workload.msccl.file (job %u): ", e->s.path,
				 e->w.msccl_line, e->w.msccl_col, j->id);
	return r ? diag_wrap(d, r, "%s:%u:%u: workload.msccl.file (job %u): %s: ", e->s.path,
			     e->w.msccl_line, e->w.msccl_col, j->id, e->w.msccl)
		 : 0;
}

/* TACOS's graph for the NPUs in endpoint order, checked (every NPU reaches every other). */
static int tacos_graph_fits(const struct experiment *e, const struct topo *t, struct diag *d)
{
	uint32_t n = (uint32_t)t->endpoints.n, *eps = malloc((n + 1) * sizeof(*eps)), i, nl = 0;
	struct tacos_topo_in in = {t, &e->s.topology.dr, eps, n, 0, 1.0};
	struct tacos_link *links = NULL;
	int err;

	if (!eps)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		eps[i] = i;
	in.rate_scale = e->s.emulation.rate_scale > 0 ? e->s.emulation.rate_scale : 1.0;
	err = tacos_topo_graph(&in, &links, &nl, d);
	if (!err)
		err = tacos_graph_check(&(struct tacos_graph){n, nl, links}, d);
	free(links);
	free(eps);
	return err;
}

/* TACOS synthesizes over the links between a direct topology's NPUs (TACOS §IV): the job
 * spans every NPU, each send crosses one link between neighbours, and an all-gather of k
 * chunks per NPU splits into whole elements. */
static int tacos_fit(const struct experiment *e, const struct job_spec *j, const struct topo *t,
		     struct diag *d)
{
	double scale = e->s.emulation.size_scale > 0 ? e->s.emulation.size_scale : 1.0;
	uint64_t elem = j->elem ? j->elem : 4, elems = (uint64_t)((double)j->bytes * scale) / elem;
	uint64_t parts = (uint64_t)j->gpus * e->w.tacos.k;
	char where[600];
	int r;

	if (j->algo != COLL_TACOS)
		return 0;
	job_where(e, j, where, sizeof(where));
	if (e->s.topology.gen != SCN_GEN_DIRECT)
		return diag_set(
			d, -EINVAL,
			"%s: algorithm tacos synthesizes over the links between a direct "
			"topology's NPUs (topology.kind: direct); this topology has switches",
			where);
	if (j->gpus != t->endpoints.n)
		return diag_set(
			d, -EINVAL,
			"%s: algorithm tacos spans every NPU of the topology (%zu), but this "
			"job has %u GPUs",
			where, t->endpoints.n, j->gpus);
	if (e->s.routing.policy != SCN_POLICY_ECMP)
		return diag_set(
			d, -EINVAL,
			"%s: algorithm tacos sends only between neighbours, each over its one "
			"link, so there is nothing to route: give routing.policy ecmp",
			where);
	if (elems < parts || (j->kind != COLL_ALLREDUCE && e->w.tacos.k > 1 && elems % parts))
		return diag_set(
			d, -EINVAL,
			"%s: algorithm tacos cuts the collective's %llu elements into %llu "
			"chunks (%u per NPU), which needs %s",
			where, (unsigned long long)elems, (unsigned long long)parts, e->w.tacos.k,
			elems < parts ? "at least one element per chunk"
				      : "a multiple of the chunk count for an all-gather or "
					"reduce-scatter");
	r = tacos_graph_fits(e, t, d);
	r = r ? r : run_tacos_prove(e, j, t, elems * elem, d);
	return r ? diag_wrap(d, r, "%s: ", where) : 0;
}

int run_jobs_fit(const struct experiment *e, job_list *jobs, const struct topo *t,
		 uint32_t *skipped, struct diag *d)
{
	uint32_t n_ep = (uint32_t)t->endpoints.n;
	char where[600];
	size_t i, k = 0;

	*skipped = 0;
	for (i = 0; i < jobs->n; i++) {
		if (sched_gpus_fit(n_ep, jobs->v[i].gpus)) {
			jobs->v[k] = jobs->v[i];
			jobs->v[k].id = (uint32_t)k;
			k++;
		} else if (skippable(e, &jobs->v[i])) {
			++*skipped;
		} else {
			job_where(e, &jobs->v[i], where, sizeof(where));
			return diag_set(
				d, -EINVAL, "%s: a job of %u GPUs, but the topology has %u%s",
				where, jobs->v[i].gpus, n_ep,
				jobs->v[i].line && !jobs->v[i].col
					? " (workload.trace.oversize: skip leaves such rows out)"
					: "");
		}
	}
	jobs->n = k;
	for (i = 0; i < k; i++) {
		int r = md_fit(e, &jobs->v[i], n_ep, d);

		r = r ? r : tacos_fit(e, &jobs->v[i], t, d);
		r = r ? r : torus_fit(e, &jobs->v[i], t, d);
		r = r ? r : msccl_fit(e, &jobs->v[i], t, d);

		if (r)
			return r;
	}
	return run_jobs_due(e, jobs, d);
}

/* The slowest endpoint NIC, emulated: what a contention-free collective runs at. */
static uint64_t nic_rate(const struct topo *t)
{
	uint64_t slowest = 0;
	size_t i;

	for (i = 0; i < t->ports.n; i++) {
		const struct topo_port *p = &t->ports.v[i];
		uint64_t rate = topo_port_rate(t, (uint32_t)i);

		if (t->nodes.v[p->node].kind != TOPO_ENDPOINT ||
		    t->links.v[p->link].tier == TOPO_TIER_SERVER || !rate)
			continue;
		if (!slowest || rate < slowest)
			slowest = rate;
	}
	return slowest ? slowest : 1000000000ULL;
}

/* Contention-free time of one collective: bytes on the wire per rank over the NIC rate. */
static uint64_t comm_ns(const struct job_spec *j, uint64_t bytes, uint64_t rate)
{
	double wire = coll_busbw_factor(j->kind, j->gpus) * (double)bytes * 8.0;

	return (uint64_t)(wire / (double)rate * 1e9);
}

uint64_t run_emu_wall_ns(const struct experiment *e, const job_list *jobs, const struct topo *t)
{
	const struct scenario *s = &e->s;
	double scale = s->emulation.rate_scale > 0 ? s->emulation.rate_scale : 1.0;
	double dil = scn_dilation(s), end = 0;
	uint64_t rate = nic_rate(t), paper_rate = (uint64_t)((double)rate / scale);
	const struct job_spec *j;

	vec_for_each (jobs, j) {
		struct job_spec f = *j;
		uint64_t bytes;
		double one, done;

		job_fit_duration(&f, paper_rate);
		bytes = (uint64_t)((double)f.bytes * s->emulation.size_scale);
		one = (double)job_compute_ns(&f, paper_rate) * dil +
		      (double)comm_ns(&f, bytes, rate);
		done = (double)f.arrival_ns * dil + (double)f.iterations * one;

		if (done > end)
			end = done;
	}
	return end >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)end;
}

void run_scale_job(const struct run *r, struct run_job *rj)
{
	const struct scenario *s = &r->e->s;
	double scale = s->emulation.rate_scale > 0 ? s->emulation.rate_scale : 1.0;
	uint64_t rate = nic_rate(r->t), paper_rate = (uint64_t)((double)rate / scale);
	uint64_t elem = rj->spec.elem ? rj->spec.elem : 4, bytes;
	uint32_t k;

	job_fit_duration(&rj->spec, paper_rate);
	bytes = (uint64_t)((double)rj->spec.bytes * s->emulation.size_scale);

	bytes = bytes / elem * elem;
	rj->bytes = bytes ? bytes : elem;
	for (k = 0; k < rj->spec.md.ndims && k < COLL_MD_DIMS; k++) { /* as the links run */
		double br = (double)rj->spec.md.dim[k].rate * scale;

		rj->spec.md.dim[k].rate = br >= 1.0 ? (uint64_t)llround(br) : 1;
	}
	rj->compute_ns = (uint64_t)((double)job_compute_ns(&rj->spec, paper_rate) * r->dilation);
	rj->arrival = (int64_t)((double)rj->spec.arrival_ns * r->dilation);
	rj->progress_ns = r->e->run.progress_ns;
	if (!rj->progress_ns) /* a generous multiple of what one iteration should take */
		rj->progress_ns =
			rj->compute_ns + 20 * comm_ns(&rj->spec, rj->bytes, rate) + 10000000000ULL;
	rj->start = rj->finish = REC_NEVER;
	rj->status = REC_NOT_STARTED;
}

struct coll_params run_job_coll(const struct run_job *rj)
{
	return job_coll(&rj->spec, rj->bytes);
}
