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
#include "scenario/jobs.h"
#include "run/run_int.h"
#include "policy/torus_order.h"
#include "traffic/tacos.h"

int run_tacos_synth(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	struct tacos_topo_in in;
	struct tacos_cfg cfg;
	int err;

	if (rj->spec.algo != COLL_TACOS || rj->tacos)
		return 0;
	jobs_tacos_inputs(r->e, &rj->spec, r->t, rj->eps, &in, &cfg);
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

struct coll_ext run_job_ext(const struct run_job *rj)
{
	return (struct coll_ext){.tacos = rj->tacos,
				 .msccl = rj->msccl,
				 .msccl_len = rj->msccl_len,
				 .chakra = rj->chakra ? &rj->chakra->job : NULL};
}

int run_msccl_load(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];

	const char *which;
	int err;

	if (rj->spec.algo != COLL_MSCCL || rj->msccl)
		return 0;
	err = jobs_msccl_pick(r->e, &rj->spec, rj->bytes, &rj->msccl, &rj->msccl_len, &rj->bytes,
			      &which, d);
	return err ? diag_wrap(d, err, "job %u: workload.msccl: ", rj->spec.id) : 0;
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
	run_chakra_done(rj);
}

void run_torus_order(struct run *r, uint32_t j)
{
	struct run_job *rj = &r->jobs[j];
	const struct scn_topology *t = &r->e->s.topology;

	if (rj->spec.algo == COLL_HX_RINGS || rj->spec.algo == COLL_TORUS2D)
		torus_order(r->t, t->gen == SCN_GEN_HAMMINGMESH ? &t->hx : NULL, rj->eps,
			    rj->spec.gpus);
}
