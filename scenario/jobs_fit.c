// SPDX-License-Identifier: MIT
/* The workload's jobs fitted to the topology before anything runs (jobs.h): the sizes they
 * need, the dimensions and tori they span, imported MSCCL algorithms read and TACOS's
 * synthesis proven for the job, EDF's deadlines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/sched.h"
#include "policy/torus_order.h"
#include "scenario/input.h"
#include "scenario/jobs.h"
#include "traffic/coll.h"
#include "traffic/msccl/msccl.h"

void jobs_tacos_inputs(const struct experiment *e, const struct job_spec *j, const struct topo *t,
		       const uint32_t *eps, struct tacos_topo_in *in, struct tacos_cfg *cfg)
{
	const struct exp_tacos *x = &e->w.tacos;
	uint64_t parts = (uint64_t)j->gpus * x->k;

	*in = (struct tacos_topo_in){
		.t = t,
		.dp = &e->s.topology.dr,
		.eps = eps,
		.n = j->gpus,
		.alpha = (double)x->alpha_ns * 1e-9,
		.rate_scale = e->s.emulation.rate_scale > 0 ? e->s.emulation.rate_scale : 1.0,
	};
	/* the paper's sizes: the synthesis weighs alpha against a chunk's time on a link */
	*cfg = (struct tacos_cfg){
		.chunk_bytes = j->bytes / parts ? j->bytes / parts : 1,
		.k = x->k,
		.runs = x->runs,
		.seed = x->seed,
	};
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
static int jobs_due(const struct experiment *e, const job_list *jobs, struct diag *d)
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
	uint64_t bytes;
	struct coll_params p;
	struct coll_ext x = {0};
	struct coll_sched s = {0};
	char where[600], pair[48], at[700];
	const char *which = "";
	int r;

	if (j->algo != COLL_MSCCL)
		return 0;
	job_where(e, j, where, sizeof(where));
	if (!e->w.msccl_n && !j->msccl)
		return diag_set(
			d, -EINVAL,
			"%s: algorithm msccl runs the algorithm XML workload.msccl.file "
			"(or one of workload.msccl.files) names, and the workload names none",
			where);
	if (j->msccl) /* the job's own: where the job is */
		snprintf(at, sizeof(at), "%s.msccl", where);
	else
		snprintf(at, sizeof(at), "%s:%u:%u: workload.msccl.%s (job %u)", e->s.path,
			 e->w.msccl_line, e->w.msccl_col, e->w.msccl_files ? "files" : "file",
			 j->id);
	r = jobs_msccl_pick(e, j, jobs_scaled_bytes(e, j), (char **)&x.msccl, &x.msccl_len, &bytes,
			    &which, d);
	if (r)
		return diag_wrap(d, r, "%s: ", at);
	/* proven here, before anything is built: a schedule that is not the collective it says it
	 * is, or races, would run to numbers that mean nothing */
	p = job_coll(j, bytes);
	r = msccl_parse_proven(x.msccl, x.msccl_len, &p, &s, d);
	if (!r && e->s.topology.gen == SCN_GEN_DIRECT &&
	    msccl_missing_link(t, &s, pair, sizeof(pair)))
		r = diag_set(d, -EINVAL, "ranks %s send where the topology has no link", pair);
	free((char *)x.msccl);
	coll_sched_done(&s);
	return r ? diag_wrap(d, r, "%s: %s: ", at, which) : 0;
}

/* At check: job j's synthesis over t's NPUs in endpoint order (as the job, which spans them
 * all, is placed) for a buffer of `bytes`, proven (coll_prove) before anything runs. 0, or
 * -EIO with d saying what is wrong (a bug in testbed, not in the file), or -errno. */
static int tacos_prove(const struct experiment *e, const struct job_spec *j, const struct topo *t,
		       uint64_t bytes, struct diag *d)
{
	uint32_t *eps = malloc(((size_t)j->gpus + 1) * sizeof(*eps)), i;
	struct coll_params p = job_coll(j, bytes);
	struct tacos_result res = {0};
	struct coll_sched s = {0};
	struct tacos_topo_in in;
	struct tacos_cfg cfg;
	struct coll_ext x = {.tacos = &res};
	int err = eps ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (i = 0; eps && i < j->gpus; i++) /* the job spans every NPU (tacos_fit) */
		eps[i] = i;
	if (!err) {
		jobs_tacos_inputs(e, j, t, eps, &in, &cfg);
		err = tacos_topo_synth(&in, j->kind, &cfg, &res, d);
	}
	err = err ? err : coll_sched_build_ext(&p, &x, &s, d);
	if (!err && (err = coll_prove(&s, NULL, d)) == -EINVAL)
		diag_wrap(d, err,
			  "TACOS's synthesis is not the %s it should be (a bug in testbed): ",
			  coll_kind_name(j->kind));
	coll_sched_done(&s);
	tacos_result_done(&res);
	free(eps);
	return err == -EINVAL ? -EIO : err; /* not the file's fault */
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
	r = r ? r : tacos_prove(e, j, t, elems * elem, d);
	return r ? diag_wrap(d, r, "%s: ", where) : 0;
}

int jobs_fit(const struct experiment *e, job_list *jobs, const struct topo *t, uint32_t *skipped,
	     struct diag *d)
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
	return jobs_due(e, jobs, d);
}
