// SPDX-License-Identifier: MIT
/* The runner's life cycle (run.h): jobs resolved and scaled, the scheduler and the backend
 * prepared, and everything released at the end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_int.h"
#include "scenario/jobs.h"

int64_t run_now(const struct run *r)
{
	return r->be->now(r);
}

void run_counts(const struct run *r, struct run_tally *t)
{
	uint32_t i;

	*t = (struct run_tally){0};
	for (i = 0; i < r->njobs; i++) {
		const struct run_job *j = &r->jobs[i];

		t->running += j->running;
		t->waiting += j->submitted && !j->running && j->status == REC_NOT_STARTED;
		t->failed += !j->running && j->status != REC_NOT_STARTED && j->status != REC_OK;
	}
	t->ok = r->finished - t->failed;
}

static int make_jobs(struct run *r, struct diag *d)
{
	job_list specs = {0};
	uint32_t i;
	int err = 0;

	if (r->specs) /* check's own list: the trace is read once */
		err = vec_reserve(&specs, r->specs->n + 1) ? diag_set(d, -ENOMEM, "out of memory")
							   : 0;
	for (i = 0; !err && r->specs && i < r->specs->n; i++)
		specs.v[specs.n++] = r->specs->v[i];
	if (!r->specs)
		err = jobs_resolve(r->e, &specs, NULL, d);
	if (!err && !specs.n)
		err = diag_set(d, -EINVAL, "the workload has no jobs");
	if (!err) {
		r->jobs = calloc(specs.n, sizeof(*r->jobs));
		if (!r->jobs)
			err = diag_set(d, -ENOMEM, "out of memory");
	}
	for (i = 0; !err && i < specs.n; i++) {
		r->jobs[i].spec = specs.v[i];
		run_scale_job(r, &r->jobs[i]);
	}
	if (!err)
		r->njobs = (uint32_t)specs.n;
	vec_free(&specs);
	return err;
}

int run_prepare(struct run *r, struct diag *d)
{
	int err;

	r->dilation = scn_dilation(&r->e->s);
	r->nnodes = (uint32_t)r->t->endpoints.n;
	r->wiring = -1;
	err = make_jobs(r, d);
	if (!err) {
		struct sched_cfg cfg = r->e->sched;

		cfg.placement_order = r->e->w.rank_order == EXP_RANK_PLACEMENT;
		err = sched_init(&r->sched, r->t, &cfg);
		if (err)
			diag_set(d, err, "%s",
				 err == -EINVAL ? "scheduler.placement vclos: the topology is not "
						  "a two-tier leaf-spine of whole servers"
						: "out of memory");
	}
	return err ? err : r->be->prepare(r, d);
}

void run_done(struct run *r)
{
	uint32_t i;

	if (r->be)
		r->be->done(r);
	for (i = 0; r->jobs && i < r->njobs; i++) {
		free(r->jobs[i].eps);
		free(r->jobs[i].conns);
		run_tacos_done(&r->jobs[i]);
	}
	free(r->jobs);
	r->jobs = NULL;
	sched_done(&r->sched);
	vec_free(&r->wire_q);
	rec_run_done(&r->rec);
}
