/* SPDX-License-Identifier: MIT */
/* A sweep's folder (docs/results.md): sweep.json lists the variants, the seeds and every run
 * with its folder and status; comparison.txt and comparison.json compare the variants
 * (collect/metrics.h, col_sweep_*); plots/ has the FCT CDF and the JCT per job per variant. */
#ifndef ORCH_SWEEP_REPORT_H
#define ORCH_SWEEP_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "scenario/experiment.h"
#include "kernel/wdir.h"

#define SWEEP_FILE "sweep.json"
#define SWEEP_SCHEMA "testbed-sweep/1"

enum sweep_status {
	SWEEP_PENDING,
	SWEEP_OK,
	SWEEP_FAILED, /* error says why; its folder may hold what it recorded */
};

struct sweep_run {
	char dir[32]; /* under the sweep's folder: "v1-s0" */
	uint32_t variant, seed;
	uint32_t baseline; /* the variant it is compared with (exp_sweep_baseline) */
	enum sweep_status status;
	char error[256];
};

struct sweep_plan {
	char scenario[64];
	VEC(char *) variants; /* labels, variant 0 the baseline */
	VEC(char *) seeds; /* labels of the seed combinations */
	VEC(struct sweep_run) runs; /* variant-major */
	char *axes; /* the axes as JSON text (owned), for the record */
	/* sweep.baseline: its axis's path and the baseline's value on it, as labelled ("spines=4",
	 * "kind=best") and as an index; "" without it, when variant 0 is every run's baseline */
	char base_path[128], base_label[256];
	uint32_t base_value;
	VEC(struct exp_sweep_paper) paper; /* sweep.paper's figures */
};

/* The plan of e's sweep: every run pending. 0 or -ENOMEM. */
int sweep_plan_make(const struct experiment *e, struct sweep_plan *p);
/* dir/sweep.json, written (replacing the last) or read. 0 or -errno with d set. */
int sweep_plan_write(const struct wdir *dir, const struct sweep_plan *p, struct diag *d);
int sweep_plan_read(const struct wdir *dir, struct sweep_plan *p, struct diag *d);
void sweep_plan_done(struct sweep_plan *p);

/* "pending", "ok", "failed". */
const char *sweep_status_name(enum sweep_status st);

struct res_run;

/* comparison.txt and comparison.json in dir, from the runs that finished (runs[i] holds the
 * metrics of p's run i), the text in *txt (the caller's to print and free). 0 or -errno with
 * d set. */
int sweep_compare_write(const struct wdir *dir, const struct sweep_plan *p,
			const struct res_run *runs, char **txt, struct diag *d);

/* With sweep.baseline, the names of the comparison's blocks for each variant (sweep_compare.c):
 * its values on the other compared axes, "mean_interarrival=100s" ("" if there are none), and
 * its own on the baseline's axis, "kind=leafspine policy=ecmp" (exp_sweep_group_label and
 * exp_sweep_own_label). */
struct sweep_names {
	VEC(char *) group, own; /* [variant], owned; empty without sweep.baseline */
};

/* The names of p's variants, from its axes. 0, -EINVAL if the axes do not make p's variants
 * (or have no baseline's axis), or -ENOMEM; n empty unless 0. */
int sweep_names_make(const struct sweep_plan *p, struct sweep_names *n);
void sweep_names_done(struct sweep_names *n);

/* The comparison and the sweep's plots from the runs' folders (each run's reports made again
 * first if rerender): the comparison's text in *txt (the caller's to print and free), a plot
 * that could not be made in warn (the first; the rest were made). 0 or -errno with d set. */
int sweep_report(const struct wdir *dir, bool rerender, char **txt, struct diag *warn,
		 struct diag *d);
/* What a command prints of a sweep_report: its warning, the comparison and where it is. */
void sweep_report_print(const struct wdir *dir, const char *txt, const struct diag *warn);

#endif
