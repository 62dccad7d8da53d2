// SPDX-License-Identifier: MIT
/* Scenario files, workload.trace: the trace file and how its rows become jobs (its columns
 * mapped by hand, the states kept, the scales of arrivals and lengths). docs/scenario.md,
 * "workload.trace"; the reader itself is traffic/trace/job_trace.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "scenario/scenario_yaml_types.h"

#define NAME_WHAT "a column header or state of 1 to 63 characters"

static const struct keyword oversize_names[] = {
	{"refuse", EXP_OVERSIZE_REFUSE},
	{"skip", EXP_OVERSIZE_SKIP},
	{NULL, 0},
};

/* A header or state name: 1..JOB_TRACE_NAME_MAX - 1 bytes, no control characters. */
static int read_name(struct scn_yaml_ctx *c, yaml_node_t *n, char *out)
{
	const char *v = scn_yaml_text(n);
	size_t i, len = v ? strlen(v) : 0;

	for (i = 0; i < len; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return scn_yaml_fail_value(c, n, NAME_WHAT, " (a control character)");
	if (!len || len >= JOB_TRACE_NAME_MAX)
		return scn_yaml_fail_value(c, n, NAME_WHAT, len ? " (too long)" : "");
	memcpy(out, v, len + 1);
	return 0;
}

/* workload.trace.columns.<role>: the header of the column that gives it. */
static int set_header(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return read_name(c, n, scn_yaml_field_ptr(c, f));
}

/* workload.trace.states: the states a replay keeps. */
static int set_states(struct scn_yaml_ctx *c, yaml_node_t *n,
		      __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_workload *w = &c->e->w;
	yaml_node_item_t *it;
	size_t k;
	int r = 0;

	k = scn_yaml_seq_n(n);
	if (!k || k > JOB_TRACE_STATES_MAX)
		return scn_yaml_fail_value(c, n, "a list of 1 to 16 states such as [COMPLETED]",
					   "");
	w->trace_states_n = 0;
	for (it = n->data.sequence.items.start; !r && it < n->data.sequence.items.top; it++)
		r = read_name(c, yaml_document_get_node(c->doc, *it),
			      w->trace_states[w->trace_states_n++]);
	return r;
}

#define BASE struct experiment

/* One field per role (traffic/trace/job_trace.h), named by its key there. */
static const struct scn_yaml_field column_fields[] = {
	FIELD("submit", set_header, w.trace_columns[JT_SUBMIT], char[JOB_TRACE_NAME_MAX], false),
	FIELD("start", set_header, w.trace_columns[JT_START], char[JOB_TRACE_NAME_MAX], false),
	FIELD("end", set_header, w.trace_columns[JT_END], char[JOB_TRACE_NAME_MAX], false),
	FIELD("duration", set_header, w.trace_columns[JT_DURATION], char[JOB_TRACE_NAME_MAX],
	      false),
	FIELD("gpus", set_header, w.trace_columns[JT_GPUS], char[JOB_TRACE_NAME_MAX], false),
	FIELD("gpu_percent", set_header, w.trace_columns[JT_GPU_PCT], char[JOB_TRACE_NAME_MAX],
	      false),
	FIELD("state", set_header, w.trace_columns[JT_STATE], char[JOB_TRACE_NAME_MAX], false),
	FIELD("model", set_header, w.trace_columns[JT_MODEL], char[JOB_TRACE_NAME_MAX], false),
	FIELD("deadline", set_header, w.trace_columns[JT_DEADLINE], char[JOB_TRACE_NAME_MAX],
	      false),
};

_Static_assert(ARRAY_SIZE(column_fields) == JT_ROLES, "one field per trace column role");

static const struct section columns_sec = TABLE(column_fields, NULL);

static const struct scn_yaml_field trace_fields[] = {
	FIELD("file", scn_yaml_path, w.trace, char *, true),
	{.name = "model",
	 .type = scn_yaml_word,
	 .off = AT(w.trace_model, char[JOB_NAME_MAX]),
	 .max = JOB_NAME_MAX - 1},
	UINT("limit", w.trace_limit, false, 1, 1000000),
	ENUM("oversize", w.trace_oversize, enum exp_oversize, false, oversize_names),
	FIELD("time_scale", scn_yaml_number, w.trace_time_scale, double, false),
	FIELD("duration_scale", scn_yaml_number, w.trace_duration_scale, double, false),
	SECTION("columns", columns_sec, false),
	{.name = "states", .type = set_states},
};

#undef BASE

/* Where the trace's file is named: its reading fails there (scenario/jobs.c). */
static int trace_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	const yaml_node_t *n = scn_yaml_given(m, "file"); /* required: given */

	c->e->w.trace_line = (uint32_t)n->start_mark.line + 1;
	c->e->w.trace_col = (uint32_t)n->start_mark.column + 1;
	return 0;
}

const struct section scn_yaml_trace_sec = TABLE(trace_fields, trace_check);
