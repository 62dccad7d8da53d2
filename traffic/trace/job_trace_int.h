/* SPDX-License-Identifier: MIT */
/* Internal to the trace reader (job_trace.c: lines and rows; job_trace_cols.c: the header;
 * job_trace_val.c: the fields' values): its state and what the three files share. */
#ifndef TRAFFIC_JOB_TRACE_INT_H
#define TRAFFIC_JOB_TRACE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/vec.h"
#include "traffic/trace/job_trace.h"

#define TR_SHOW "%.48s" /* how much of a bad field a message quotes */

enum tr_time_kind {
	TR_TIME_UNSEEN,
	TR_TIME_SECONDS,
	TR_TIME_DATE,
};

/* Where a role's column is: its field index (-1: the header has none) and its header. */
struct tr_col {
	int idx;
	char name[JOB_TRACE_NAME_MAX];
};

struct tr_ctx {
	const char *file;
	const struct job_trace_opts *o;
	unsigned line;
	bool have_header;
	size_t nfields; /* fields of the header */
	struct tr_col col[JT_ROLES];
	enum tr_time_kind time_kind; /* of every time column, once one is read */
	size_t n0; /* jobs in out before this trace */
	job_list *out;
	struct job_trace_left left;
	struct diag *d;
	VEC(char) buf; /* the current line's fields, unquoted, each NUL-terminated */
	VEC(size_t) off; /* where each field starts in buf */
};

/* Field i of the current line, or NULL if the line is shorter. */
const char *tr_get(const struct tr_ctx *c, int i);

/* The header row (the current line's fields): each role's column found, the roles a trace
 * needs checked. 0 or -EINVAL with a message (job_trace_cols.c). */
int tr_header(struct tr_ctx *c);

/* Whether role r has a column. */
static inline bool tr_has(const struct tr_ctx *c, enum job_trace_role r)
{
	return c->col[r].idx >= 0;
}

/* Role r's field of the current row into *s; an error naming it when the row is short. */
int tr_value(struct tr_ctx *c, enum job_trace_role r, const char **s);
/* An error "file:line:col: header: <message>" at role r's field; returns -EINVAL. */
int tr_fail(struct tr_ctx *c, enum job_trace_role r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An empty field or one that says none (None, NaN): a time or length the trace lacks. */
bool tr_missing(const char *s);

/* The fields' values (job_trace_val.c), each 0 or -EINVAL with a message naming the field. */
/* GPUs of the row, from the count or the percent column (rounded up). */
int tr_gpus(struct tr_ctx *c, uint32_t *gpus);
/* Role r's time (submit, start or end), ns since the epoch of its kind (seconds as written,
 * or UTC date-times); every time column of a file of one kind. */
int tr_time(struct tr_ctx *c, enum job_trace_role r, uint64_t *ns);
/* The row's length: its duration, else end - start; *none when the trace gives none for it
 * (no such columns: 0 and not *none). */
int tr_duration(struct tr_ctx *c, uint64_t *ns, bool *none);
/* The deadline, seconds after the submit time (0: none). */
int tr_deadline(struct tr_ctx *c, uint64_t *ns);

#endif
