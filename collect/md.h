/* SPDX-License-Identifier: MIT */
/* The chunked multi-dimensional collective as measured (Themis, Rashidi et al., ISCA 2022):
 * per job, its all-reduce time against the ideal one (every dimension busy all the time), the
 * bytes and utilization of each dimension, and each dimension's "frontend activity" (Themis
 * §6.1, Fig. 10: the share of time it has a chunk operation queued or running). Read from the
 * flows (whose phase is chunk * 2D + stage, traffic/coll.h) and the iterations. Pure. */
#ifndef COLLECT_MD_H
#define COLLECT_MD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/records.h"
#include "lib/diag.h"
#include "lib/vec.h"
#include "traffic/coll.h"

/* One job's chunked collective as it ran: the parameters its ranks got (rates as emulated)
 * and the per-node size. */
struct col_md_job {
	uint32_t job;
	uint64_t bytes; /* per node, emulated */
	struct coll_md md; /* dim[k].rate: emulated bit/s */
};

typedef VEC(struct col_md_job) col_md_jobs;

struct col_md_result {
	uint32_t job;
	uint8_t ndims;
	uint8_t kind; /* enum coll_kind: the collective */
	uint32_t iters; /* complete iterations measured */
	double t_s; /* mean collective time: first rank starting to last rank finishing, s */
	double t_ideal_s; /* 2 S (N-1)/N / sum_k B_k, half that without all-reduce (Themis §6.1) */
	double util; /* t_ideal / t: the average bandwidth utilization */
	double dim_bytes[COLL_MD_DIMS]; /* per node and collective, sent on dimension k */
	double dim_util[COLL_MD_DIMS]; /* dim_bytes / (t B_k) */
	double dim_active[COLL_MD_DIMS]; /* frontend activity, mean over nodes and iterations */
};

typedef VEC(struct col_md_result) col_md_results;

/* The results of every job of jobs[0..n) that has complete iterations in r, into out. 0, or
 * -ENOMEM. */
int col_md_measure(const struct rec_run *r, const struct col_md_job *jobs, size_t n,
		   col_md_results *out);

/* schedule.json (docs/results.md): per job its parameters, each chunk's order of dimensions,
 * each dimension's order of chunk operations and the predicted times, as a new object; NULL on
 * ENOMEM or when a job's plan cannot be built (d says why). */
json_t *col_md_schedule_json(const struct col_md_job *jobs, size_t n, struct diag *d);

/* The jobs of schedule.json back (appended to *out). 0, or -EINVAL with d set. */
int col_md_schedule_parse(const json_t *j, col_md_jobs *out, struct diag *d);

/* summary.json's "multidim" array of res; times in paper seconds (emulated over dilation). */
json_t *col_md_results_json(const struct col_md_result *res, size_t n, double dilation);

#endif
