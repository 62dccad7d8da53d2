/* SPDX-License-Identifier: MIT */
/* A run's summary: summary.json, built with jansson (schema docs/summary.schema.json, every
 * field described in docs/results.md), and the human table summary.txt; a sweep's comparison
 * table. Pure: everything is rendered in memory; the caller writes the files. */
#ifndef COLLECT_SUMMARY_H
#define COLLECT_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "collect/md.h"
#include "collect/metrics.h"
#include "collect/plot.h"
#include "collect/records.h"
#include "traffic/trace/job_trace.h"

#define COL_SUMMARY_SCHEMA "testbed-summary/1"
/* 15 significant digits: any value with at most 15 reads back exactly, and 0.1 prints as 0.1 */
#define COL_SUMMARY_DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(15))

/* What the job scheduler counted (vClos §7, Table 2): jobs that waited although enough GPUs
 * were free (the placement found no servers or network for them: fragmentation), the
 * attempts to start them so, the attempts that failed for want of GPUs, and the OCS
 * reconfigurations its placements made. */
struct col_sched_counts {
	bool known; /* false: a folder from before these counts */
	uint32_t frag_jobs, frag_tries, rewires;
	uint32_t gpu_tries; /* attempts that failed for want of free GPUs (Table 2's "GPU") */
};

/* Names the summary carries; borrowed, each may be NULL. */
struct col_summary_meta {
	const char *scenario;
	const char *run_id;
	const char *backend; /* "emulation" (also for NULL) or "sim": no fidelity verdict then */
	const struct col_sched_counts *sched;
	/* the chunked multi-dimensional collectives measured (collect/md.h), md_n of them */
	const struct col_md_result *md;
	size_t md_n;
	/* the plots left out, and why (collect/plot.h), skipped_n of them */
	const struct col_plot_skip *skipped;
	size_t skipped_n;
	/* the trace's rows left out, by reason; NULL: the workload has no trace */
	const struct job_trace_left *trace_left;
};

/* The summary of r (whose metrics m are) as a new JSON object, NULL on ENOMEM. */
json_t *col_summary_json(const struct rec_run *r, const struct col_metrics *m,
			 const struct col_summary_meta *meta);

/* summary.json's trace_rows_left_out (in j, the whole summary) into *l: 0, or -ENOENT when
 * it has none (no trace, or a folder from before these counts). */
int col_summary_trace_left_from(const json_t *j, struct job_trace_left *l);

/* The same as indented text ending in a newline, malloc'd (free it), NULL on ENOMEM. */
char *col_summary_dumps(const struct rec_run *r, const struct col_metrics *m,
			const struct col_summary_meta *meta);

/* summary.txt into buf (at most len bytes, NUL-terminated); returns the length it needed, as
 * snprintf does. */
int col_summary_txt(char *buf, size_t len, const struct rec_run *r, const struct col_metrics *m,
		    const struct col_summary_meta *meta);

#define COL_SWEEP_SCHEMA "testbed-comparison/1"

/* What the comparison is measured against (borrowed): each variant's own baseline
 * (sweep.baseline: the variant with one value of one axis, its first or the case named, and the
 * same values on the others) and the paper's figures (sweep.paper). */
struct col_sweep_base {
	const char *label; /* that axis's value, "spines=4", "kind=best"; NULL: variant 0 for all */
	const uint32_t *variant; /* [v]: variant v's baseline, for every variant (with label) */
	/* [v * COL_M_N + k]: the paper's ratio for variant v's metric k, NAN where it gives none;
	 * NULL if it gives none at all */
	const double *paper;
	/* with label: the variants by baseline (col_sweep_groups_make over variant), the table
	 * split into one block each; [v]: what variant v shares with its baseline
	 * ("mean_interarrival=100s", "" if nothing) and its own value on the baseline's axis
	 * ("kind=leafspine policy=ecmp"), exp_sweep_group_label and exp_sweep_own_label */
	const struct col_sweep_groups *groups;
	const char *const *group, *const *own;
};

/* comparison.json of s as a new object (NULL on ENOMEM); names[v] labels variant v (names may
 * be NULL). */
json_t *col_sweep_json(const struct col_sweep *s, const char *const *names);
/* The same with each variant's baseline and the paper's figures b (NULL: variant 0 for all,
 * as col_sweep_json). */
json_t *col_sweep_json_base(const struct col_sweep *s, const char *const *names,
			    const struct col_sweep_base *b);

/* The unit of a metric in the tables ("paper s", "B/s", "share"). */
const char *col_metric_unit(enum col_metric k);

/* The sweep table into buf, as col_summary_txt; names[v] labels variant v (NULL: "v<v>"). */
int col_sweep_txt(char *buf, size_t len, const struct col_sweep *s, const char *const *names);
/* The same, saying the ratios are to each variant's baseline b, and with the paper's figures
 * in a column of their own and again below the table with measured / paper (b NULL: as
 * col_sweep_txt). */
int col_sweep_txt_base(char *buf, size_t len, const struct col_sweep *s, const char *const *names,
		       const struct col_sweep_base *b);

#endif
