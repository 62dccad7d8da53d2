// SPDX-License-Identifier: MIT
/* The runner's event loop (run.h): arrivals on the backend's clock, placements, the
 * backend's own work, and a clean stop on Ctrl-C. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/run_int.h"

#define REPORT_NS 1000000000LL /* progress lines at most this often, in wall-clock time */

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void arrivals(struct run *r, int64_t now)
{
	struct diag d = {0};

	while (r->next_arrival < r->njobs && r->jobs[r->next_arrival].arrival <= now) {
		struct run_job *rj = &r->jobs[r->next_arrival];

		rj->submitted = true;
		if (sched_submit(&r->sched, rj->spec.id, rj->spec.gpus, job_due_ns(&rj->spec),
				 &d)) {
			rj->status = REC_FAILED;
			snprintf(rj->reason, sizeof(rj->reason), "%.*s",
				 (int)sizeof(rj->reason) - 1, d.msg);
			r->finished++;
			d.msg[0] = '\0';
		}
		r->next_arrival++;
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

/* The next instant the runner itself has work: an arrival, or the backend's deadline. */
static int64_t next_due(const struct run *r)
{
	int64_t next = r->be->next(r);

	if (!r->stopping && r->next_arrival < r->njobs && r->jobs[r->next_arrival].arrival < next)
		next = r->jobs[r->next_arrival].arrival;
	return next;
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
	int64_t now, last_report = wall_ns();
	int err = 0;

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
		r->be->tick(r, now);
		err = err ? err : run_route_update(r, d);
		if (!err && !all_ended(r)) /* a stop's last jobs just ended: the run ends now */
			err = r->be->wait(r, next_due(r), d);
		if (r->progress && wall_ns() - last_report >= REPORT_NS) {
			r->progress(r->progress_arg, r);
			last_report = wall_ns();
		}
	}
	r->be->finish(r);
	if (r->progress)
		r->progress(r->progress_arg, r);
	return err;
}
