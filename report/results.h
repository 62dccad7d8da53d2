/* SPDX-License-Identifier: MIT */
/* report/ owns a results folder's files and reports: records, summary, plots (gnuplot), sweeps'
 * comparisons, the reproduction report. May include: scenario/, kernel/ (the writer) and the pure
 * layers. */
/* A results folder (docs/results.md): the raw records as CSV files, topology.json, and the
 * reports made from them (summary.json, summary.txt, plots). `testbed up` and `testbed
 * report` make the reports with the same code from the same records (the run takes its
 * flows from memory, report from flows.csv), so a copied folder reproduces them exactly. */
#ifndef ORCH_RESULTS_H
#define ORCH_RESULTS_H

#include <jansson.h>
#include <stdint.h>

#include "collect/metrics.h"
#include "collect/records.h"
#include "collect/summary.h"
#include "collect/topo_json.h"
#include "lib/diag.h"
#include "model/scenario.h"
#include "model/topo.h"
#include "kernel/wdir.h"

/* What summary.json says about the run beyond its records. */
struct res_info {
	char scenario[64];
	char run_id[128];
	char backend[16]; /* "emulation" or "sim"; empty reads as emulation */
	double dilation;
	int64_t t_end; /* when the run ended, emulated ns */
	struct col_sched_counts sched; /* summary.json's scheduler object */
	bool trace_known; /* the run replayed a trace: summary.json counts its rows left out */
	struct job_trace_left trace_left;
};

/* Rounds the dilation as summary.json prints it, so a report read back from the file gives
 * the same numbers as the run that wrote it. */
void res_info_normalize(struct res_info *info);

/* Reads the run object and names of dir/summary.json. 0 or -errno with d set. */
int res_info_read(const struct wdir *dir, struct res_info *info, struct diag *d);

/* Writes jobs.csv, iterations.csv, flows.csv, links.csv, cpu.csv and tcp.csv (if it has
 * readings) of rec into dir (over earlier ones of ours: wdir.h). 0 or -errno with d naming
 * the file. */
int res_records_write(const struct wdir *dir, const struct rec_run *rec, struct diag *d);

/* topology.json of t into dir, with each direction's shaping as cfg makes it. 0 or -errno with
 * d set. */
int res_write_topology(const struct wdir *dir, const struct topo *t, const struct scn_shaping *cfg,
		       struct diag *d);

/* Reads them back into rec (emptied first; rec_run_done releases it either way). */
int res_records_read(const struct wdir *dir, struct rec_run *rec, struct diag *d);

/* name in dir parsed as JSON into *out (release with json_decref): -ENOENT quietly when there
 * is no such file, else 0 or -errno with d set. */
int res_json_read(const struct wdir *dir, const char *name, json_t **out, struct diag *d);

/* A run as the reports see it: its records, topology and metrics. */
struct res_run {
	struct res_info info;
	struct rec_run rec;
	struct col_topo_info ti;
	struct col_metrics m;
	col_md_results md; /* from schedule.json, when the run has one */
};

/* Reads dir's records and topology.json (a folder without one has no rates) and computes the
 * metrics, with info's dilation and end. wrote: NULL, or the records the run that just wrote
 * dir holds: their flows and link samples are moved into out (wrote's left empty) instead of
 * read back from flows.csv and links.csv, which hold them exactly (integers only), and are the
 * largest files of a run. 0 or -errno with d set; res_run_done either way. */
int res_load(const struct wdir *dir, const struct res_info *info, struct rec_run *wrote,
	     struct res_run *out, struct diag *d);
void res_run_done(struct res_run *x);

/* Makes the reports of dir from its files (res_load, with wrote's flows when not NULL: the
 * same reports): summary.json, summary.txt and the plots, replacing those there. A plot that could
 * not be made (no gnuplot) is reported in warn, not as a failure. The loaded run goes into out if
 * out is not NULL (release with res_run_done), the summary text into *txt if txt is not NULL
 * (malloc'd). 0 or -errno with d set. */
int res_report(const struct wdir *dir, const struct res_info *info, struct rec_run *wrote,
	       struct res_run *out, char **txt, struct diag *warn, struct diag *d);

#endif
