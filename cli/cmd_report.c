// SPDX-License-Identifier: MIT
/* testbed report DIR: the reports of a results folder made again from its files alone
 * (records, topology.json, summary.json's run object), without root or a testbed: the
 * metrics recomputed, summary.json and summary.txt rewritten, the plots rendered. A sweep's
 * folder gets every run's reports and the comparison again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/cmd_repro.h"
#include "cli/cmd_run.h"
#include "report/results.h"
#include "scenario/scenario_yaml.h"
#include "report/sweep_report.h"

static void report_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed report DIR\n\n"
		"Recomputes the metrics of a results folder (results/<scenario>/<run>/) from its\n"
		"records, rewrites summary.json and summary.txt, renders the plots into\n"
		"DIR/plots/ and prints the summary. For a sweep's folder, every run's and the\n"
		"comparison. No root needed. A folder without summary.json takes its dilation\n"
		"from scenario.yaml and its end from the records. A sharded sweep's folder\n"
		"(testbed sim|up --shard) gets its shards' runs merged into sweep.json and\n"
		"compared, and the shards or runs still missing named (exit 1). A sharded\n"
		"reproduction's folder (testbed reproduce --shard) gets every sweep so merged\n"
		"and its report.md written.\n");
}

/* The latest time in the records: a run's end when summary.json does not say it. */
static int64_t last_time(const struct rec_run *rec)
{
	int64_t t = 0;
	size_t i;

	for (i = 0; i < rec->jobs.n; i++)
		t = rec->jobs.v[i].finish > t ? rec->jobs.v[i].finish : t;
	for (i = 0; i < rec->flows.n; i++)
		t = rec->flows.v[i].t_end > t ? rec->flows.v[i].t_end : t;
	for (i = 0; i < rec->samples.n; i++)
		t = rec->samples.v[i].t > t ? rec->samples.v[i].t : t;
	return t;
}

/* A folder written before summary.json existed: the dilation from its scenario.yaml, the end
 * from its records, the names from the scenario and the folder. */
static int info_fallback(const struct wdir *dir, struct res_info *info, struct diag *d)
{
	struct rec_run rec = {0};
	struct experiment e;
	char path[WDIR_PATH_MAX + 32], *text = NULL;
	size_t len;
	int r;

	exp_init(&e);
	wdir_join(path, sizeof(path), dir, "scenario.yaml");
	r = wdir_read(dir, "scenario.yaml", &text, &len);
	if (r)
		r = diag_set(d, r, "%s: %s", path, wdir_read_error(r));
	r = r ? r : exp_parse_buffer(path, text, len, &e, d);
	if (!r && !(e.s.emulation.rate_scale > 0))
		r = diag_set(d, -EINVAL, "%s: rate_scale auto: the dilation is unknown", path);
	r = r ? r : res_records_read(dir, &rec, d);
	if (!r) {
		memset(info, 0, sizeof(*info));
		snprintf(info->scenario, sizeof(info->scenario), "%.63s", e.s.name);
		snprintf(info->run_id, sizeof(info->run_id), "%.127s", dir->name);
		info->dilation = scn_dilation(&e.s);
		info->t_end = last_time(&rec);
		res_info_normalize(info);
	}
	free(text);
	exp_done(&e);
	rec_run_done(&rec);
	return r;
}

static int report_run(const struct wdir *dir, struct diag *d)
{
	struct diag warn = {0};
	struct res_info info;
	struct res_run x;
	char *txt = NULL;
	int r;

	r = wdir_has(dir, "summary.json") ? res_info_read(dir, &info, d)
					  : info_fallback(dir, &info, d);
	r = r ? r : res_report(dir, &info, NULL, &x, &txt, &warn, d);
	if (r)
		return r;
	if (warn.msg[0])
		fprintf(stderr, "testbed report: plots: %s\n", warn.msg);
	fputs(txt, stdout);
	fflush(stdout);
	if (col_clock_of(info.backend) != COL_CLOCK_VIRTUAL) /* no machine limits virtual time */
		cmd_run_verdict("testbed report", &x.m);
	free(txt);
	res_run_done(&x);
	return 0;
}

static int report_sweep(const struct wdir *dir, struct diag *d)
{
	char *txt = NULL;
	struct diag warn = {0};
	int r = sweep_report(dir, true, &txt, &warn, d);

	sweep_report_print(dir, txt, &warn);
	free(txt);
	return r;
}

/* A sharded sweep's folder: the shards' files merged into sweep.json, the runs there
 * compared, and what is missing named (and failing the command). */
static int report_shards(const struct wdir *dir, struct diag *d)
{
	struct sweep_missing m;
	struct diag dc = {0};
	int r = sweep_shards_merge(dir, &m, d);

	/* with runs missing, the comparison may lack what it needs (a baseline's run) */
	if (!r && report_sweep(dir, m.runs ? &dc : d) && !m.runs)
		r = d->err ? d->err : -EIO;
	if (!r && dc.msg[0])
		fprintf(stderr, "testbed report: no comparison yet: %s\n", dc.msg);
	if (!r && m.runs)
		r = diag_set(d, -ENODATA, "%u runs missing, %s: %s", m.runs,
			     dc.msg[0] ? "no comparison yet" : "compared without them", m.text);
	if (!r && m.failed)
		r = diag_set(d, -EIO, "%u runs failed (see %s/%s)", m.failed, dir->path,
			     SWEEP_FILE);
	return r;
}

int cmd_report(int argc, char **argv)
{
	struct diag d = {0};
	struct wdir dir;
	bool help;
	int r = cmd_opts_parse("report", argc, argv, NULL, false, &help);

	if (help) {
		report_usage(stdout);
		return CMD_OK;
	}
	if (r != 1) {
		report_usage(stderr);
		return CMD_USAGE;
	}
	r = wdir_open(&dir, argv[1], WDIR_GIVE, &d);
	if (!r && wdir_has(&dir, REPRO_SHARDS_FILE))
		r = repro_shards_merge(&dir, &d);
	else if (!r && wdir_has(&dir, SWEEP_SHARDS_FILE))
		r = report_shards(&dir, &d);
	else if (!r && wdir_has(&dir, SWEEP_FILE))
		r = report_sweep(&dir, &d);
	else if (!r)
		r = report_run(&dir, &d);
	wdir_close(&dir);
	return r ? cmd_fail("report", r, &d) : CMD_OK;
}
