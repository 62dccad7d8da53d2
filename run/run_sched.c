// SPDX-License-Identifier: MIT
/* Jobs through their life in the runner (run.h), whatever the backend: placed by the
 * scheduler and handed to the backend, failed with a reason, ended when every rank has. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_int.h"
#include "policy/reroute.h"

/* Hands a placed job to the backend, after the routing policy decided: it starts on its
 * paths. Its JWT ends here (after any OCS rewire it waited for). */
static int launch(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	int err;

	rj->start = rj->last_progress = run_now(r);
	run_torus_order(r, j);
	err = run_tacos_synth(r, j, d);
	err = err ? err : run_msccl_load(r, j, d);
	err = err ? err : run_chakra_load(r, j, d);
	err = err ? err : run_route_job(r, j, d);
	err = err ? err : run_route_update(r, d);
	err = err ? err : r->be->start(r, j, d);
	rj->launched = !err;
	return err;
}

/* The circuits a running job's traffic may cross, marked in job1 per link of view (job + 1). */
static int ocs_busy(const struct run *r, const struct topo *view, const struct topo_paths *paths,
		    uint32_t *job1)
{
	uint32_t j;
	int err = 0;

	if (r->e->sched.place == SCHED_OCS_VCLOS) /* each job on its own circuits only */
		return sched_ocs_busy(&r->sched, view, job1);
	for (j = 0; !err && j < r->njobs; j++)
		if (r->jobs[j].running && r->jobs[j].eps)
			err = route_links_used(view, paths, r->jobs[j].eps, r->jobs[j].spec.gpus,
					       j + 1, job1);
	return err;
}

int run_ocs_next(const struct run *r, const struct topo *view, const struct topo_paths *paths,
		 const uint32_t *xc, const struct ocs_change *ch, size_t n, uint32_t **next,
		 struct diag *d)
{
	const struct topo *p = view->phys;
	uint32_t *job1 = calloc(view->links.n + 1, sizeof(*job1));
	struct ocs_busy busy = {job1};
	int err = job1 ? ocs_busy(r, view, paths, job1) : -ENOMEM;

	*next = err ? NULL : malloc((p->ports.n + 1) * sizeof(**next));
	if (err || !*next)
		err = diag_set(d, -ENOMEM, "out of memory");
	if (!err) {
		memcpy(*next, xc, p->ports.n * sizeof(**next));
		err = ocs_rewire(p, *next, ch, n, &busy, false, d);
	}
	free(job1);
	if (err) {
		free(*next);
		*next = NULL;
	}
	return err;
}

void run_ocs_target(const struct topo *phys, int64_t j, const struct ocs_change *ch, size_t n,
		    char *buf, size_t len)
{
	size_t o = 0;

	if (j >= 0)
		o = (size_t)snprintf(buf, len, "job %lld: ", (long long)j);
	if (o >= len)
		return;
	if (!o)
		buf[0] = '\0';
	ocs_changes_text(buf + o, len - o, phys, ch, n);
}

/* vClos §7: the next placed job's circuits, one reconfiguration at a time. */
static void wire_next(struct run *r)
{
	const struct ocs_change *ch;
	struct diag d = {0};
	size_t n;
	uint32_t j;
	int err;

	while (r->wiring < 0 && r->wire_q.n) {
		j = r->wire_q.v[0];
		memmove(r->wire_q.v, r->wire_q.v + 1, --r->wire_q.n * sizeof(*r->wire_q.v));
		if (!r->jobs[j].running || r->jobs[j].aborting)
			continue;
		sched_ocs_changes(&r->sched, j, &ch, &n);
		r->wiring = j;
		err = r->be->circuits ? r->be->circuits(r, j, ch, n, &d)
				      : diag_set(&d, -EOPNOTSUPP, "this backend has no OCS");
		if (err)
			run_circuits_ready(r, j, err, &d);
	}
}

void run_circuits_ready(struct run *r, uint32_t j, int err, const struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	struct diag e = {0};

	if (r->wiring == (int64_t)j)
		r->wiring = -1;
	if (!err && rj->running && !rj->aborting) {
		r->rewires++;
		err = launch(r, j, &e);
		d = &e;
	}
	if (err && rj->running) {
		snprintf(rj->reason, sizeof(rj->reason), "OCS circuits: %.*s",
			 (int)sizeof(rj->reason) - 16, d && d->msg[0] ? d->msg : strerror(-err));
		rj->status = REC_FAILED;
		run_end_job(r, j, REC_FAILED, NULL);
	}
	wire_next(r);
}

static int start_job(struct run *r, uint32_t j, const uint32_t *eps, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	const struct ocs_change *ch;
	size_t n;

	rj->eps = malloc(rj->spec.gpus * sizeof(*eps));
	if (!rj->eps)
		return diag_set(d, -ENOMEM, "out of memory");
	memcpy(rj->eps, eps, rj->spec.gpus * sizeof(*eps));
	rj->running = true;
	sched_ocs_changes(&r->sched, j, &ch, &n);
	if (!n) /* the routing policy decides first, so the job starts on its paths */
		return launch(r, j, d);
	rj->last_progress = run_now(r);
	if (vec_push(&r->wire_q, j))
		return diag_set(d, -ENOMEM, "out of memory");
	wire_next(r);
	return 0;
}

int run_start_jobs(struct run *r, struct diag *d)
{
	const uint32_t *eps;
	int j, err = 0;

	while (!err && !r->stopping && (j = sched_next(&r->sched, &eps)) >= 0)
		err = start_job(r, (uint32_t)j, eps, d);
	return err;
}

void run_end_job(struct run *r, uint32_t j, enum rec_status st, const char *why)
{
	struct run_job *rj = &r->jobs[j];

	if (!rj->running)
		return;
	rj->running = false;
	rj->finish = run_now(r);
	if (rj->status == REC_NOT_STARTED)
		rj->status = st;
	if (why && !rj->reason[0])
		snprintf(rj->reason, sizeof(rj->reason), "%s", why);
	sched_finish(&r->sched, j);
	r->finished++;
	if (run_chakra_end(r, j) && rj->status == REC_OK) { /* a result never better than it is */
		rj->status = REC_FAILED;
		snprintf(rj->reason, sizeof(rj->reason), "out of memory for its ops.csv rows");
	}
	free(rj->conns);
	rj->conns = NULL;
	rj->nconns = 0;
	if (r->e->s.routing.trigger != SCN_TRIGGER_PHASE || rj->in_coll)
		run_route_trigger(r, "end", -1);
	rj->in_coll = 0;
}

void run_fail_job(struct run *r, uint32_t j, const char *fmt, ...)
{
	struct run_job *rj = &r->jobs[j];
	va_list ap;

	if (!rj->running || rj->aborting)
		return;
	va_start(ap, fmt);
	vsnprintf(rj->reason, sizeof(rj->reason), fmt, ap);
	va_end(ap);
	rj->status = r->stopping ? REC_CANCELLED : REC_FAILED;
	if (!rj->launched) { /* waiting for its circuits: no rank to stop */
		run_end_job(r, j, rj->status, NULL);
		return;
	}
	rj->aborting = true;
	rj->last_progress = run_now(r); /* the abort deadline counts from here */
	r->be->abort(r, j);
}

/* A rank whose peer closed the connection under it reports a consequence of the peer's end. */
static bool run_consequence(int err)
{
	return err == -ECONNRESET || err == -EPIPE;
}

void run_rank_ended(struct run *r, uint32_t j, int status, bool verified, const char *reason)
{
	struct run_job *rj = &r->jobs[j];
	const char *why = reason && reason[0] ? reason : strerror(status < 0 ? -status : status);

	rj->done++;
	rj->verified += verified;
	rj->last_progress = run_now(r);
	if (status && status != -ECANCELED && !rj->aborting) {
		run_fail_job(r, j, "%s", why);
		rj->rank_err = status;
	} else if (status && status != -ECANCELED && run_consequence(rj->rank_err) &&
		   !run_consequence(status)) {
		/* the cause came after its consequence: a peer that failed closed its sockets */
		snprintf(rj->reason, sizeof(rj->reason), "%s", why);
		rj->rank_err = status;
	}
	if (rj->done == rj->spec.gpus)
		run_end_job(r, j, REC_OK, NULL);
}
