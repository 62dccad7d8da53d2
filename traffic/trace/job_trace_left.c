// SPDX-License-Identifier: MIT
/* The trace rows a replay leaves out, by reason: the names summary.json and the commands'
 * lines give them (`testbed check`, `sim`, `up`). */
#include <stdio.h>

#include "traffic/trace/job_trace.h"

const struct job_trace_left_info job_trace_left_why[JT_LEFT_N] = {
	[JT_LEFT_STATE] = {"state", "is in a state workload.trace.states leaves out",
			   "are in states workload.trace.states leaves out", ""},
	[JT_LEFT_NO_GPUS] = {"no_gpus", "has 0 GPUs (a CPU job)", "have 0 GPUs (CPU jobs)", ""},
	[JT_LEFT_NO_DURATION] = {"no_duration",
				 "has no length (an empty or None duration, start or end)",
				 "have no length (an empty or None duration, start or end)", ""},
	[JT_LEFT_LIMIT] = {"limit", "comes after the first workload.trace.limit jobs",
			   "come after the first workload.trace.limit jobs", ""},
	[JT_LEFT_OVERSIZE] = {"oversize", "needs more GPUs than the topology has",
			      "need more GPUs than the topology has",
			      "workload.trace.oversize: skip"},
};

uint32_t job_trace_left_total(const struct job_trace_left *l)
{
	uint32_t n = 0;
	int k;

	for (k = 0; k < JT_LEFT_N; k++)
		n += l->n[k];
	return n;
}

int job_trace_left_line(char *buf, size_t len, const struct job_trace_left *l,
			enum job_trace_left_why k)
{
	const struct job_trace_left_info *w = &job_trace_left_why[k];

	return snprintf(buf, len, "%u trace row%s %s: left out", l->n[k], l->n[k] == 1 ? "" : "s",
			l->n[k] == 1 ? w->one : w->many);
}
