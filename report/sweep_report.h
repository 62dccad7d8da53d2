/* SPDX-License-Identifier: MIT */
/* A sweep's folder (docs/results.md): sweep.json lists the variants, the seeds and every run
 * with its folder and status; comparison.txt and comparison.json compare the variants
 * (collect/metrics.h, col_sweep_*); plots/ has the FCT CDF and the JCT per job per variant. */
#ifndef ORCH_SWEEP_REPORT_H
#define ORCH_SWEEP_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/plot.h"
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
/* The same under another name in dir (a shard's file). */
int sweep_plan_write_as(const struct wdir *dir, const char *name, const struct sweep_plan *p,
			struct diag *d);
int sweep_plan_read_as(const struct wdir *dir, const char *name, struct sweep_plan *p,
		       struct diag *d);
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
/* A sweep's runs loaded as they end, so that the comparison at its end need not load them all
 * then (a sweep's runs at once: the loading overlaps the runs still going). */
struct sweep_acc {
	struct res_run *runs; /* [run]: the metrics of those loaded */
	col_fcts *fct; /* [variant]: the FCTs of its runs loaded (the plots use them up) */
	bool *have; /* [run]: loaded */
	size_t nruns, nvariants;
};
/* For p's runs, none loaded. 0 or -ENOMEM. */
int sweep_acc_init(struct sweep_acc *a, const struct sweep_plan *p);
/* Run k of p (ended ok, in dir) loaded into a (its reports made again first if rerender). 0 or
 * -errno with d set. */
int sweep_acc_add(struct sweep_acc *a, const struct wdir *dir, const struct sweep_plan *p, size_t k,
		  bool rerender, struct diag *warn, struct diag *d);
void sweep_acc_done(struct sweep_acc *a);
/* sweep_report with the runs a has loaded already (NULL: none), the others loaded into it. */
int sweep_report_acc(const struct wdir *dir, struct sweep_acc *a, bool rerender, char **txt,
		     struct diag *warn, struct diag *d);
/* What a command prints of a sweep_report: its warning, the comparison and where it is. */
void sweep_report_print(const struct wdir *dir, const char *txt, const struct diag *warn);

/* ---- shards (sweep_shard.c): a sweep cut into parts run apart, on other machines or at
 * other times, each writing its runs into one folder that `testbed report` then compares ---- */

#define SWEEP_SHARDS_FILE "shards.json" /* {schema, scenario, shards, runs} */
#define SWEEP_SHARDS_SCHEMA "testbed-shards/1"
#define SWEEP_SHARDS_MAX 10000
#define SWEEP_SHARD_DIR "sweep" /* a sharded sweep's folder under <results>/<scenario>/ */
#define SWEEP_SHARD_RUN_DIR "run" /* a sharded single run's folder, likewise */

/* The shard (0 .. shards - 1) that runs run k of the scenario's sweep, shards >= 1. Pure and
 * fixed: the runs are dealt round, so every shard gets within one run of an even share of any
 * sweep, and the deal starts at a shard set by the scenario's name, so that the odd runs of
 * the many small sweeps of a catalogue fall on different shards. */
uint32_t sweep_shard_of(const char *scenario, uint32_t k, uint32_t shards);

/* "shard-2-of-3.json": shard i's (0-based) own copy of sweep.json, its runs' statuses set. */
void sweep_shard_file(char *buf, size_t len, uint32_t shard, uint32_t shards);

/* Before shard i of n runs anything in dir: writes shards.json, or checks that the one there is
 * this sweep's cut into n (-EEXIST with a message otherwise: the folder holds another). */
int sweep_shards_begin(const struct wdir *dir, const struct sweep_plan *p, uint32_t shards,
		       struct diag *d);

/* What a merge found missing: the shards that wrote no file, and the runs no file says ended. */
struct sweep_missing {
	uint32_t shards_absent, runs; /* counts */
	uint32_t failed; /* runs a shard says failed (their errors are in the comparison) */
	char text[1024]; /* "shard 2/3 (shard-2-of-3.json): 4 runs (v1-s0, ...); ..." */
};

/* dir's shard files merged into sweep.json (each run's status from its own shard's file; a
 * run whose shard wrote nothing stays pending), so that sweep_report compares what is there.
 * 0 or -errno with d set (a shard's file of another sweep, or unreadable). */
int sweep_shards_merge(const struct wdir *dir, struct sweep_missing *m, struct diag *d);

#endif
