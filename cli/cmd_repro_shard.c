// SPDX-License-Identifier: MIT
/* `testbed reproduce --shard I/N` (cmd_repro.h): the selection every shard shares
 * (reproduce-shards.json), each shard's record of the scenarios it ran, and their merge by
 * `testbed report` into the report.md one whole reproduction writes. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_repro.h"
#include "report/results.h"
#include "report/sweep_report.h"
#include "scenario/scenario_yaml.h"

#define REPRO_SHARDS_SCHEMA "testbed-reproduce-shards/1"

static void shard_file(char *buf, size_t len, uint32_t i, uint32_t n)
{
	snprintf(buf, len, "reproduce-shard-%u-of-%u.json", i, n);
}

/* {schema, shards, quick, sim, papers}: what every shard runs. */
static json_t *shards_json(const struct repro_opts *o)
{
	json_t *p = json_array();
	size_t i;

	for (i = 0; p && i < o->np; i++)
		json_array_append_new(p, json_string(o->papers[i]));
	return json_pack("{s:s, s:I, s:b, s:b, s:o}", "schema", REPRO_SHARDS_SCHEMA, "shards",
			 (json_int_t)o->shard.n, "quick", o->quick, "sim", o->sim, "papers", p);
}

int repro_shards_begin(const struct wdir *root, const struct repro_opts *o, struct diag *d)
{
	json_t *mine = shards_json(o), *there = NULL;
	char *text = NULL;
	int err = mine ? 0 : diag_set(d, -ENOMEM, "out of memory");

	if (!err && wdir_has(root, REPRO_SHARDS_FILE)) {
		err = res_json_read(root, REPRO_SHARDS_FILE, &there, d);
		if (!err && !json_equal(there, mine))
			err = diag_set(
				d, -EEXIST,
				"%s/%s: the folder holds a reproduction cut otherwise (other "
				"papers, shards, --quick or --sim): give --results another "
				"folder",
				root->path, REPRO_SHARDS_FILE);
	} else if (!err && wdir_has(root, "report.md")) {
		err = diag_set(d, -EEXIST,
			       "%s holds a reproduction that was not sharded: give --results "
			       "another folder",
			       root->path);
	}
	text = err ? NULL : json_dumps(mine, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!err && !text)
		err = diag_set(d, -ENOMEM, "out of memory");
	err = err ? err : wdir_write(root, REPRO_SHARDS_FILE, text, strlen(text), WDIR_REPLACE, d);
	free(text);
	json_decref(mine);
	json_decref(there);
	return err;
}

int repro_shard_dir(const char *file, struct repro_result *r, struct diag *d)
{
	struct experiment e;
	int err = exp_parse_file(file, &e, d);

	if (!err)
		snprintf(r->dir, sizeof(r->dir), "%s/%s/%s", r->it->paper, e.s.name,
			 e.sweep.axes.n ? SWEEP_SHARD_DIR : SWEEP_SHARD_RUN_DIR);
	exp_done(&e);
	return err;
}

int repro_shard_write(const struct wdir *root, const struct repro_opts *o,
		      const struct repro_result *res, size_t n, struct diag *d)
{
	json_t *items = json_array(), *j;
	char name[96], *text;
	size_t i;
	int err;

	for (i = 0; items && i < n; i++)
		json_array_append_new(items, json_pack("{s:s, s:s, s:s, s:s, s:i, s:f, s:s}",
						       "paper", res[i].it->paper, "scenario",
						       res[i].it->file, "file", res[i].file, "dir",
						       res[i].dir, "status", res[i].status, "secs",
						       res[i].secs, "log", res[i].log));
	j = json_pack("{s:s, s:I, s:I, s:o}", "schema", REPRO_SHARDS_SCHEMA, "shard",
		      (json_int_t)o->shard.i, "shards", (json_int_t)o->shard.n, "items", items);
	text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	shard_file(name, sizeof(name), o->shard.i, o->shard.n);
	err = text ? wdir_write(root, name, text, strlen(text), WDIR_REPLACE, d)
		   : diag_set(d, -ENOMEM, "out of memory for %s", name);
	if (!err)
		printf("testbed reproduce: shard %u/%u done (%s/%s); once every shard has run, "
		       "'testbed report %s' writes report.md\n",
		       o->shard.i, o->shard.n, root->path, name, root->path);
	free(text);
	json_decref(j);
	return err;
}

/* ---- the merge ---- */

/* reproduce-shards.json into o (papers: strings owned by j, kept until o is done). */
static int read_selection(const struct wdir *root, json_t **j, struct repro_opts *o, struct diag *d)
{
	json_t *p, *e;
	json_int_t n;
	size_t i;
	int err = res_json_read(root, REPRO_SHARDS_FILE, j, d);

	if (err)
		return err;
	p = json_object_get(*j, "papers");
	n = json_integer_value(json_object_get(*j, "shards"));
	if (strcmp(json_string_value(json_object_get(*j, "schema")) ?: "", REPRO_SHARDS_SCHEMA) ||
	    n < 1 || n > SWEEP_SHARDS_MAX || !json_is_array(p) ||
	    json_array_size(p) > sizeof(o->papers) / sizeof(o->papers[0]))
		return diag_set(d, -EINVAL, "%s/%s: not a %s file", root->path, REPRO_SHARDS_FILE,
				REPRO_SHARDS_SCHEMA);
	o->quick = json_is_true(json_object_get(*j, "quick"));
	o->sim = json_is_true(json_object_get(*j, "sim"));
	o->shard = (struct cmd_shard){0, (uint32_t)n};
	json_array_foreach(p, i, e)
	{
		if (!json_is_string(e))
			return diag_set(d, -EINVAL, "%s/%s: papers: not a list of names",
					root->path, REPRO_SHARDS_FILE);
		o->papers[o->np++] = json_string_value(e);
	}
	return 0;
}

/* Shard s's record into res (n items, in selection order): the worst exit of the shards that
 * ran an item, and its longest time (the shards run side by side). */
static int merge_record(const struct wdir *root, uint32_t s, uint32_t shards,
			struct repro_result *res, size_t n, struct diag *d)
{
	char name[96];
	json_t *j, *items, *it;
	size_t i;
	int err;

	shard_file(name, sizeof(name), s, shards);
	err = res_json_read(root, name, &j, d);
	if (err)
		return err;
	items = json_object_get(j, "items");
	if (json_array_size(items) != n)
		err = diag_set(d, -EINVAL, "%s/%s: %zu scenarios, not the %zu of %s", root->path,
			       name, json_array_size(items), n, REPRO_SHARDS_FILE);
	json_array_foreach(items, i, it)
	{
		const char *sc = json_string_value(json_object_get(it, "scenario"));
		const char *dir = json_string_value(json_object_get(it, "dir"));
		const char *file = json_string_value(json_object_get(it, "file"));
		const char *log = json_string_value(json_object_get(it, "log"));
		int st = (int)json_integer_value(json_object_get(it, "status"));
		double secs = json_number_value(json_object_get(it, "secs"));

		if (err || !sc || strcmp(sc, res[i].it->file) || !dir || !log || !file) {
			err = err ? err
				  : diag_set(d, -EINVAL, "%s/%s: scenario %zu is not %s",
					     root->path, name, i + 1, res[i].it->file);
			break;
		}
		/* the first shard's word, then the first failure */
		if (res[i].status < 0 || (res[i].status == 0 && st != 0)) {
			res[i].status = st;
			snprintf(res[i].log, sizeof(res[i].log), "%s", log);
		}
		snprintf(res[i].file, sizeof(res[i].file), "%s", file);
		snprintf(res[i].dir, sizeof(res[i].dir), "%s", dir);
		res[i].secs = secs > res[i].secs ? secs : res[i].secs;
	}
	json_decref(j);
	return err;
}

/* What item r's shards left: a sweep's shards merged and compared, or its one run read. */
static int merge_item(const struct wdir *root, struct repro_result *r, struct diag *d)
{
	char path[PATH_MAX];
	struct sweep_missing m = {0};
	struct diag warn = {0};
	struct wdir w;
	char *txt = NULL;
	int err;

	if (!r->dir[0] ||
	    snprintf(path, sizeof(path), "%s/%s", root->path, r->dir) >= (int)sizeof(path))
		return 0;
	if (wdir_open(&w, path, 0, NULL)) /* not made: its shard has not run */
		return 0;
	if (wdir_has(&w, SWEEP_SHARDS_FILE)) {
		struct diag dc = {0};

		err = sweep_shards_merge(&w, &m, d);
		/* with runs missing, a comparison may lack what it needs (a baseline's run) */
		if (!err && sweep_report(&w, false, &txt, &warn, m.runs ? &dc : d) && !m.runs)
			err = d->err ? d->err : -EIO;
		free(txt);
		wdir_close(&w);
		if (err == -ENOENT) /* no shard of it has written yet */
			return 0;
		if (err)
			return err;
		repro_read_runs(path, r);
		r->missing = m.runs;
		if (m.runs)
			fprintf(stderr, "testbed report: %s: %u runs missing: %s%s%s\n", r->dir,
				m.runs, m.text, dc.msg[0] ? "; no comparison yet: " : "", dc.msg);
		return repro_read_rows(path, r) ? diag_set(d, -ENOMEM, "out of memory") : 0;
	}
	wdir_close(&w);
	repro_read_one(path, r);
	return 0;
}

int repro_shards_merge(const struct wdir *root, struct diag *d)
{
	struct repro_opts o = {0};
	struct repro_result res[REPRO_ITEMS_MAX];
	uint32_t idx[REPRO_ITEMS_MAX], s, absent = 0, failed = 0;
	char name[96];
	json_t *sel = NULL;
	size_t n = 0, i;
	int err = read_selection(root, &sel, &o, d);

	memset(res, 0, sizeof(res));
	err = err ? err : repro_select(o.papers, o.np, o.quick, idx, &n, d);
	for (i = 0; !err && i < n; i++) {
		res[i].it = &repro_items[idx[i]];
		res[i].be = repro_backend_of(res[i].it, o.quick, o.sim);
		res[i].status = -1;
	}
	for (s = 1; !err && s <= o.shard.n; s++) {
		shard_file(name, sizeof(name), s, o.shard.n);
		if (!wdir_has(root, name)) {
			fprintf(stderr, "testbed report: shard %u/%u wrote no %s\n", s, o.shard.n,
				name);
			absent++;
			continue;
		}
		err = merge_record(root, s, o.shard.n, res, n, d);
	}
	for (i = 0; !err && i < n; i++) {
		err = merge_item(root, &res[i], d);
		if (res[i].status >= 0 && !res[i].runs &&
		    absent) /* its one run's shard is absent */
			res[i].status = -1;
		failed += res[i].status > 0 && res[i].status != CMD_DEGRADED;
		failed += res[i].status >= 0 && res[i].ok + res[i].missing < res[i].runs;
	}
	err = err ? err : repro_write_report(root, &o, res, n, d);
	if (!err)
		printf("report: %s/report.md (%u of %u shards merged)\n", root->path,
		       o.shard.n - absent, o.shard.n);
	for (i = 0; i < n; i++)
		vec_free(&res[i].rows);
	json_decref(sel);
	if (!err && absent)
		err = diag_set(d, -ENODATA,
			       "%u of %u shards have not run: the report lacks their runs", absent,
			       o.shard.n);
	if (!err && failed)
		err = diag_set(d, -EIO,
			       "%u scenarios did not end well (see report.md and their logs)",
			       failed);
	return err;
}
