// SPDX-License-Identifier: MIT
/* Topology-bound collectives in the runner, whatever the backend (run_int.h). TACOS: the
 * collective is synthesized once, when the job is placed, over the links among its NPUs
 * (TACOS §VI, traffic/tacos.h); both backends run that one synthesis, and the results folder
 * keeps it. The HammingMesh all-reduces: the placed ranks put in torus order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/input.h"
#include "run/run_int.h"
#include "policy/torus_order.h"
#include "traffic/tacos.h"

/* The synthesis's inputs for job j of e over endpoints eps (rank order), on t. */
static void synth_inputs(const struct experiment *e, const struct job_spec *j, const struct topo *t,
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

int run_tacos_synth(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	struct tacos_topo_in in;
	struct tacos_cfg cfg;
	int err;

	if (rj->spec.algo != COLL_TACOS || rj->tacos)
		return 0;
	synth_inputs(r->e, &rj->spec, r->t, rj->eps, &in, &cfg);
	rj->tacos = calloc(1, sizeof(*rj->tacos));
	if (!rj->tacos)
		return diag_set(d, -ENOMEM, "out of memory");
	err = tacos_topo_synth(&in, rj->spec.kind, &cfg, rj->tacos, d);
	if (err) {
		run_tacos_done(rj);
		return diag_wrap(d, err, "job %u: ", rj->spec.id);
	}
	return 0;
}

int run_tacos_prove(const struct experiment *e, const struct job_spec *j, const struct topo *t,
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
		synth_inputs(e, j, t, eps, &in, &cfg);
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

struct coll_ext run_job_ext(const struct run_job *rj)
{
	return (struct coll_ext){
		.tacos = rj->tacos, .msccl = rj->msccl, .msccl_len = rj->msccl_len};
}

int run_msccl_load(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];

	if (rj->spec.algo != COLL_MSCCL || rj->msccl)
		return 0;
	return input_read(r->e->w.msccl, RUN_MSCCL_MAX, "not an MSCCL algorithm", &rj->msccl,
			  &rj->msccl_len, d);
}

static int write_one(const struct run_job *rj, const struct wdir *dir, struct diag *d)
{
	size_t len = tacos_result_format(rj->tacos, NULL, 0);
	char *text = malloc(len + 1), name[32];
	int err;

	if (!text)
		return diag_set(d, -ENOMEM, "out of memory");
	tacos_result_format(rj->tacos, text, len + 1);
	snprintf(name, sizeof(name), "tacos-%u.txt", rj->spec.id);
	err = wdir_write(dir, name, text, len, 0, d);
	free(text);
	return err;
}

int run_tacos_write(const struct run *r, const struct wdir *dir, struct diag *d)
{
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < r->njobs; i++)
		if (r->jobs[i].tacos)
			err = write_one(&r->jobs[i], dir, d);
	return err;
}

void run_tacos_done(struct run_job *rj)
{
	tacos_result_done(rj->tacos);
	free(rj->tacos);
	rj->tacos = NULL;
	free(rj->msccl);
	rj->msccl = NULL;
}

void run_torus_order(struct run *r, uint32_t j)
{
	struct run_job *rj = &r->jobs[j];
	const struct scn_topology *t = &r->e->s.topology;

	if (rj->spec.algo == COLL_HX_RINGS || rj->spec.algo == COLL_TORUS2D)
		torus_order(r->t, t->gen == SCN_GEN_HAMMINGMESH ? &t->hx : NULL, rj->eps,
			    rj->spec.gpus);
}
