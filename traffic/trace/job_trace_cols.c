// SPDX-License-Identifier: MIT
/* A trace's header row: which column plays which role, by the published traces' own header
 * names (the aliases below, docs/scenario.md) or by workload.trace.columns, and whether the
 * columns a replay needs are there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "traffic/trace/job_trace_int.h"

/* Helios cluster_log.csv: job_id, user, vc, gpu_num, cpu_num, node_num, state, submit_time,
 * start_time, end_time, duration, queue. Philly's cluster_job_log, one row per job: jobid,
 * status, submitted_time, start_time, end_time and its GPUs. Alibaba PAI's pai_job_table:
 * job_name, inst_id, user, status, start_time (the submission), end_time; pai_task_table's
 * plan_gpu. ElasticFlow's raw traces: job_id, submission_time, duration, num_gpu. */
static const char *const submit_names[] = {"submit_time", "submitted_time", "submission_time",
					   "arrival", NULL};
static const char *const start_names[] = {"start_time", NULL};
static const char *const end_names[] = {"end_time", NULL};
static const char *const duration_names[] = {"duration", NULL};
static const char *const gpu_names[] = {"gpu_num", "num_gpus", "num_gpu", "gpus", NULL};
static const char *const gpu_pct_names[] = {"plan_gpu", NULL};
static const char *const state_names[] = {"state", "status", NULL};
static const char *const model_names[] = {"model", NULL};
static const char *const deadline_names[] = {"deadline", NULL};

const struct job_trace_role_info job_trace_roles[JT_ROLES] = {
	[JT_SUBMIT] = {"submit", "submit time", submit_names},
	[JT_START] = {"start", "start time", start_names},
	[JT_END] = {"end", "end time", end_names},
	[JT_DURATION] = {"duration", "duration", duration_names},
	[JT_GPUS] = {"gpus", "GPU count", gpu_names},
	[JT_GPU_PCT] = {"gpu_percent", "GPU percent", gpu_pct_names},
	[JT_STATE] = {"state", "state", state_names},
	[JT_MODEL] = {"model", "model", model_names},
	[JT_DEADLINE] = {"deadline", "deadline", deadline_names},
};

/* The header name workload.trace.columns gives role r, or NULL. */
static const char *mapped(const struct tr_ctx *c, enum job_trace_role r)
{
	const char *m = c->o->columns[r];

	return m && *m ? m : NULL;
}

static bool is_alias(enum job_trace_role r, const char *f)
{
	const char *const *n;

	for (n = job_trace_roles[r].aliases; *n; n++)
		if (!strcasecmp(f, *n))
			return true;
	return false;
}

/* Whether header f is the column workload.trace.columns gives some role: no alias takes it. */
static bool mapped_any(const struct tr_ctx *c, const char *f)
{
	int r;

	for (r = 0; r < JT_ROLES; r++)
		if (mapped(c, r) && !strcasecmp(f, mapped(c, r)))
			return true;
	return false;
}

static bool plays(const struct tr_ctx *c, enum job_trace_role r, const char *f)
{
	if (mapped(c, r))
		return !strcasecmp(f, mapped(c, r));
	return is_alias(r, f) && !mapped_any(c, f);
}

/* Field i, header f, for role r if it plays it. */
static int match(struct tr_ctx *c, enum job_trace_role r, const char *f, int i)
{
	struct tr_col *col = &c->col[r];

	if (!plays(c, r, f))
		return 0;
	if (col->idx >= 0)
		return diag_set(c->d, -EINVAL,
				"%s:%u:%d: both %s (column %d) and %s (column %d) name the %s "
				"column",
				c->file, c->line, i + 1, col->name, col->idx + 1, f, i + 1,
				job_trace_roles[r].what);
	col->idx = i;
	snprintf(col->name, sizeof(col->name), "%s", f);
	return 0;
}

/* The separator before alias n of a list starting at first: "a, b or c". */
static const char *sep(const char *const *n, const char *const *first)
{
	if (n == first)
		return "";
	return n[1] ? ", " : " or ";
}

/* "a, b or c" of role r's aliases into buf. */
static const char *alias_list(enum job_trace_role r, char *buf, size_t len)
{
	const char *const *first = job_trace_roles[r].aliases, *const * n;
	size_t k = 0;

	buf[0] = '\0';
	for (n = first; *n && k < len; n++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", sep(n, first), *n);
	return buf;
}

static int no_mapped(struct tr_ctx *c)
{
	int r;

	for (r = 0; r < JT_ROLES; r++)
		if (mapped(c, r) && !tr_has(c, r))
			return diag_set(c->d, -EINVAL,
					"%s:%u: the header has no column '" TR_SHOW
					"' (workload.trace.columns.%s)",
					c->file, c->line, mapped(c, r), job_trace_roles[r].key);
	return 0;
}

/* An arrival: the submit time, else the start time (PAI's job table starts jobs as they are
 * submitted: its start_time is the submission). */
static int need_arrival(struct tr_ctx *c)
{
	char a[160];

	if (tr_has(c, JT_SUBMIT) || tr_has(c, JT_START))
		return 0;
	return diag_set(c->d, -EINVAL,
			"%s:%u: the header has no submit time column (expected %s, or start_time "
			"when the trace has no submit time; or map one with "
			"workload.trace.columns)",
			c->file, c->line, alias_list(JT_SUBMIT, a, sizeof(a)));
}

static int need_gpus(struct tr_ctx *c)
{
	const struct tr_col *n = &c->col[JT_GPUS], *p = &c->col[JT_GPU_PCT];
	char a[160];

	if (n->idx >= 0 && p->idx >= 0)
		return diag_set(c->d, -EINVAL,
				"%s:%u:%d: both %s (column %d) and %s (column %d) give the GPUs",
				c->file, c->line, (n->idx > p->idx ? n->idx : p->idx) + 1, n->name,
				n->idx + 1, p->name, p->idx + 1);
	if (n->idx >= 0 || p->idx >= 0)
		return 0;
	return diag_set(c->d, -EINVAL,
			"%s:%u: the header has no GPU count column (expected %s, or plan_gpu in "
			"percent of a GPU; or map one with workload.trace.columns)",
			c->file, c->line, alias_list(JT_GPUS, a, sizeof(a)));
}

static int need_others(struct tr_ctx *c)
{
	if (c->o->states_n && !tr_has(c, JT_STATE))
		return diag_set(c->d, -EINVAL,
				"%s:%u: workload.trace.states keeps only some states, but the "
				"header has no state column (expected state or status)",
				c->file, c->line);
	if (!tr_has(c, JT_MODEL) && !c->o->default_model)
		return diag_set(c->d, -EINVAL,
				"%s:%u: the header has no model column and no default model is set",
				c->file, c->line);
	return 0;
}

int tr_header(struct tr_ctx *c)
{
	size_t i;
	int r, err = 0;

	for (i = 0; !err && i < c->off.n; i++)
		for (r = 0; !err && r < JT_ROLES; r++)
			err = match(c, r, tr_get(c, (int)i), (int)i);
	err = err ? err : no_mapped(c);
	err = err ? err : need_arrival(c);
	err = err ? err : need_gpus(c);
	err = err ? err : need_others(c);
	c->nfields = c->off.n;
	c->have_header = true;
	return err;
}
