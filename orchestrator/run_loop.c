// SPDX-License-Identifier: MIT
/* The runner's event loop (run.h): arrivals in emulated time, placements, control messages,
 * progress deadlines, and a clean stop on Ctrl-C. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/run_int.h"
#include "orchestrator/run_net.h"

#define TICK_NS 100000000LL /* deadlines are checked at least this often */

static void arrivals(struct run *r, int64_t now)
{
	struct diag d = {0};

	while (r->next_arrival < r->njobs && r->jobs[r->next_arrival].arrival <= now) {
		struct run_job *rj = &r->jobs[r->next_arrival];

		rj->submitted = true;
		if (sched_submit(&r->sched, rj->spec.id, rj->spec.gpus, &d)) {
			rj->status = REC_FAILED;
			snprintf(rj->reason, sizeof(rj->reason), "%.*s",
				 (int)sizeof(rj->reason) - 1, d.msg);
			r->finished++;
			d.msg[0] = '\0';
		}
		r->next_arrival++;
	}
}

/* A running job that stopped making progress fails; one whose abort is not confirmed in
 * time ends anyway (its emu-nodes are replaced). */
static void deadlines(struct run *r, int64_t now)
{
	char why[128], links[160];
	uint32_t j, k;

	for (j = 0; j < r->njobs; j++) {
		struct run_job *rj = &r->jobs[j];

		if (!rj->running)
			continue;
		if (!rj->aborting && now - rj->last_progress > (int64_t)rj->progress_ns)
			run_fail_job(r, j, "%sno progress for %.1f s (limit %.1f s)",
				     run_job_why(r, j, rj->last_progress, why, sizeof(why), links,
						 sizeof(links)),
				     (double)(now - rj->last_progress) / 1e9,
				     (double)rj->progress_ns / 1e9);
		if (!rj->aborting || now - rj->last_progress < RUN_ABORT_NS)
			continue;
		for (k = 0; k < rj->spec.gpus; k++)
			if (r->nodes[rj->eps[k]].job == (int32_t)j)
				run_node_lost(r, rj->eps[k], "did not confirm an abort");
		run_end_job(r, j, REC_FAILED, NULL);
	}
}

/* Ctrl-C: running jobs are aborted (cancelled), waiting ones stay not started. */
static void begin_stop(struct run *r)
{
	uint32_t j;

	r->stopping = true;
	for (j = 0; j < r->njobs; j++)
		if (r->jobs[j].running)
			run_fail_job(r, j, "stopped by the user");
}

static int poll_nodes(struct run *r, struct pollfd *p, int timeout_ms, struct diag *d)
{
	uint32_t i;
	int n, err = 0;

	for (i = 0; i < r->nnodes; i++)
		p[i] = (struct pollfd){.fd = r->nodes[i].fd, .events = POLLIN};
	n = poll(p, r->nnodes, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : diag_set(d, -errno, "poll: %s", strerror(errno));
	for (i = 0; !err && n > 0 && i < r->nnodes; i++)
		if (p[i].revents && r->nodes[i].fd >= 0)
			err = run_node_input(r, i, d);
	return err;
}

static int timeout_ms(const struct run *r, int64_t now)
{
	int64_t wait = TICK_NS;

	if (r->next_arrival < r->njobs && r->jobs[r->next_arrival].arrival - now < wait)
		wait = r->jobs[r->next_arrival].arrival - now;
	if (r->sampler && sampler_next(r->sampler) - now < wait)
		wait = sampler_next(r->sampler) - now;
	if (run_net_next(r) - now < wait)
		wait = run_net_next(r) - now;
	return wait > 0 ? (int)(wait / 1000000) + 1 : 0;
}

static bool all_ended(const struct run *r)
{
	uint32_t j;

	if (!r->stopping)
		return r->finished == r->njobs;
	for (j = 0; j < r->njobs; j++)
		if (r->jobs[j].running)
			return false;
	return true;
}

int run_loop(struct run *r, struct diag *d)
{
	struct pollfd *p = calloc(r->nnodes, sizeof(*p));
	int64_t now, last_report = 0;
	int err = p ? 0 : diag_set(d, -ENOMEM, "out of memory");

	while (!err && !all_ended(r)) {
		if (r->stop && *r->stop == RUN_STOP_DOWN) {
			err = diag_set(d, -ECANCELED, "taken down by 'testbed down'");
			break; /* its namespaces are going: no job can finish, none is waited for */
		}
		now = run_now(r);
		if (r->stop && *r->stop && !r->stopping)
			begin_stop(r);
		if (!r->stopping)
			arrivals(r, now);
		err = run_start_jobs(r, d);
		deadlines(r, now);
		run_net_tick(r, now); /* failures, OCS reconfigurations (run_net.h) */
		if (r->sampler) /* a failed round only leaves a gap (sampler_failures) */
			(void)sampler_poll(r->sampler, now, r->t0, &r->rec, NULL);
		if (!err)
			err = poll_nodes(r, p, timeout_ms(r, now), d);
		if (r->progress && now - last_report >= 1000000000LL) {
			r->progress(r->progress_arg, r);
			last_report = now;
		}
	}
	if (r->progress)
		r->progress(r->progress_arg, r);
	free(p);
	return err;
}
