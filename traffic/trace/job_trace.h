/* SPDX-License-Identifier: MIT */
/* traffic/trace/ owns the CSV job-trace reader: layouts, column roles, values, rows left out.
 * May include lib/, model/ and traffic/ (job.h); pure. */
/* CSV job traces as the public GPU-cluster traces publish them (Helios, Philly, Alibaba PAI,
 * ElasticFlow; docs/scenario.md, workload.trace): the roles a column plays and their header
 * aliases, the reader's options, and the rows it leaves out, counted by reason. Pure: the
 * caller reads the file and hands over its text. */
#ifndef TRAFFIC_JOB_TRACE_H
#define TRAFFIC_JOB_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "traffic/job.h"

#define JOB_TRACE_NAME_MAX 64 /* bytes of a column header or a state name, NUL included */
#define JOB_TRACE_STATES_MAX 16 /* states workload.trace.states may keep */

/* What a column gives. */
enum job_trace_role {
	JT_SUBMIT, /* when the job was submitted: seconds or a date-time */
	JT_START, /* when it started (the arrival if there is no submit column) */
	JT_END, /* when it ended: with start, its length if there is no duration column */
	JT_DURATION, /* its length, seconds */
	JT_GPUS, /* GPUs, a whole number */
	JT_GPU_PCT, /* GPUs in percent of one GPU (PAI's plan_gpu), rounded up to whole GPUs */
	JT_STATE, /* how it ended (COMPLETED, FAILED, Pass, Killed, Terminated, ...) */
	JT_MODEL, /* a catalogue model */
	JT_DEADLINE, /* seconds after its submit time it is due */
	JT_ROLES,
};

/* A role: its key in workload.trace.columns, what messages call it, and the header names
 * that give it, NULL-terminated (matched without regard to case). */
struct job_trace_role_info {
	const char *key; /* "submit" */
	const char *what; /* "submit time" */
	const char *const *aliases; /* {"submit_time", "submitted_time", ..., NULL} */
};

extern const struct job_trace_role_info job_trace_roles[JT_ROLES];

/* Why a row was left out. A row is counted once, under the first reason that applies, in
 * this order. */
enum job_trace_left_why {
	JT_LEFT_STATE, /* its state is not one workload.trace.states keeps */
	JT_LEFT_NO_GPUS, /* 0 GPUs: a CPU job */
	JT_LEFT_NO_DURATION, /* an empty duration, start or end: not finished when taken */
	JT_LEFT_LIMIT, /* after the first workload.trace.limit jobs (scenario/jobs.c) */
	JT_LEFT_OVERSIZE, /* more GPUs than the topology has, trace.oversize: skip (jobs_fit) */
	JT_LEFT_N,
};

struct job_trace_left {
	uint32_t n[JT_LEFT_N];
};

/* A reason: its key in summary.json, and the rest of "<n> trace row(s) ..." in one and in
 * many ("has 0 GPUs (a CPU job)", "have 0 GPUs (CPU jobs)"), and the field that decides it
 * ("" if none). */
struct job_trace_left_info {
	const char *key, *one, *many, *field;
};

extern const struct job_trace_left_info job_trace_left_why[JT_LEFT_N];

/* Rows left out for any reason. */
uint32_t job_trace_left_total(const struct job_trace_left *l);

/* "<n> trace row(s) <reason>: left out" for reason k into buf (len bytes, NUL-terminated);
 * returns the length it needed, as snprintf. */
int job_trace_left_line(char *buf, size_t len, const struct job_trace_left *l,
			enum job_trace_left_why k);

/* How a trace is read. */
struct job_trace_opts {
	const char *default_model; /* of rows that name none; NULL: every row must */
	enum coll_algo algo;
	uint32_t iterations;
	/* the header name of each role (workload.trace.columns), NULL or "": by its aliases */
	const char *columns[JT_ROLES];
	/* the states kept (case-insensitive), states_n of them; 0: every state */
	const char *const *states;
	uint32_t states_n;
};

/* Reads a CSV trace (text, len bytes; `name` for messages): a header row naming columns,
 * then one job per row (docs/scenario.md: the columns, their aliases, what is refused). Fields
 * may be quoted (RFC 4180, within one line); blank lines and lines starting with `#` are
 * skipped; CRLF line ends and a UTF-8 byte order mark are read; UTF-16 and NUL bytes are
 * refused. Each job is made from its model (or o->default_model) with o->algo and
 * o->iterations, and given its length (duration_ns) when the trace has one; jobs are appended
 * in arrival order (ties in file order), arrivals relative to the earliest, ids counting on
 * from out->n. The rows left out are added to *left (which may be NULL). Messages name
 * `file:line:col` (col: the field's number, from 1) and the column's header; on error
 * (-EINVAL, -ENOMEM) nothing is appended and left is unchanged. */
int workload_trace_parse(const char *name, const char *text, size_t len,
			 const struct job_trace_opts *o, job_list *out, struct job_trace_left *left,
			 struct diag *d);

#endif
