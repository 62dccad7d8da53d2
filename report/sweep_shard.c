// SPDX-License-Identifier: MIT
/* A sweep cut into shards (sweep_report.h): which shard runs which run, the folder's
 * shards.json, and the shards' own files merged into the sweep.json a whole sweep would have
 * written, naming what is missing. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/results.h"
#include "report/sweep_report.h"

/* FNV-1a: a fixed spread of names over shards, the same on every machine. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

uint32_t sweep_shard_of(const char *scenario, uint32_t k, uint32_t shards)
{
	if (shards <= 1)
		return 0;
	return (uint32_t)(((uint64_t)k + name_hash(scenario)) % shards);
}

void sweep_shard_file(char *buf, size_t len, uint32_t shard, uint32_t shards)
{
	snprintf(buf, len, "shard-%u-of-%u.json", shard + 1, shards);
}

/* ---- shards.json ---- */

struct shards_info {
	char scenario[64];
	uint32_t shards, runs;
	json_t *axes; /* owned */
};

static json_t *shards_json(const struct sweep_plan *p, uint32_t shards)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:o}", "schema", SWEEP_SHARDS_SCHEMA, "scenario",
			 p->scenario, "shards", (json_int_t)shards, "runs", (json_int_t)p->runs.n,
			 "axes", json_loads(p->axes, 0, NULL));
}

/* dir's shards.json into *s. 0, -ENOENT, -EINVAL (not ours) or -errno, with d set. */
static int shards_read(const struct wdir *dir, struct shards_info *s, struct diag *d)
{
	char path[WDIR_PATH_MAX + 32];
	const char *sc;
	json_int_t n, r;
	json_t *j;
	int err;

	memset(s, 0, sizeof(*s));
	wdir_join(path, sizeof(path), dir, SWEEP_SHARDS_FILE);
	err = res_json_read(dir, SWEEP_SHARDS_FILE, &j, d);
	if (err == -ENOENT)
		return diag_set(d, err, "%s: %s", path, strerror(-err));
	if (err)
		return err;
	sc = json_string_value(json_object_get(j, "scenario"));
	n = json_integer_value(json_object_get(j, "shards"));
	r = json_integer_value(json_object_get(j, "runs"));
	if (strcmp(json_string_value(json_object_get(j, "schema")) ?: "", SWEEP_SHARDS_SCHEMA) ||
	    !sc || strlen(sc) >= sizeof(s->scenario) || n < 1 || n > SWEEP_SHARDS_MAX || r < 1 ||
	    r > UINT32_MAX) {
		json_decref(j);
		return diag_set(d, -EINVAL, "%s: not a %s file", path, SWEEP_SHARDS_SCHEMA);
	}
	snprintf(s->scenario, sizeof(s->scenario), "%s", sc);
	s->shards = (uint32_t)n;
	s->runs = (uint32_t)r;
	s->axes = json_incref(json_object_get(j, "axes"));
	json_decref(j);
	return 0;
}

int sweep_shards_begin(const struct wdir *dir, const struct sweep_plan *p, uint32_t shards,
		       struct diag *d)
{
	struct shards_info s;
	json_t *mine = shards_json(p, shards);
	char *text;
	int err = mine ? 0 : diag_set(d, -ENOMEM, "out of memory");

	if (!err && wdir_has(dir, SWEEP_SHARDS_FILE)) {
		err = shards_read(dir, &s, d);
		if (!err &&
		    (strcmp(s.scenario, p->scenario) || s.shards != shards || s.runs != p->runs.n ||
		     !json_equal(s.axes, json_object_get(mine, "axes"))))
			err = diag_set(d, -EEXIST,
				       "%s holds the sweep of %s cut into %u shards of %u runs in "
				       "all, not this one (%s, %u shards of %zu runs): give "
				       "--results another folder",
				       dir->path, s.scenario, s.shards, s.runs, p->scenario, shards,
				       p->runs.n);
		json_decref(s.axes);
	} else if (!err && wdir_has(dir, SWEEP_FILE)) {
		err = diag_set(d, -EEXIST,
			       "%s holds a sweep that was not sharded: give --results another "
			       "folder",
			       dir->path);
	}
	text = err ? NULL : json_dumps(mine, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	if (!err && !text)
		err = diag_set(d, -ENOMEM, "out of memory");
	/* every shard writes the same text: whichever lands last, it is the same file */
	err = err ? err : wdir_write(dir, SWEEP_SHARDS_FILE, text, strlen(text), WDIR_REPLACE, d);
	free(text);
	json_decref(mine);
	return err;
}

/* ---- the merge ---- */

/* Whether b is a's sweep: the same variants, seeds and runs' folders. */
static bool same_sweep(const struct sweep_plan *a, const struct sweep_plan *b)
{
	size_t i;

	if (strcmp(a->scenario, b->scenario) || a->variants.n != b->variants.n ||
	    a->seeds.n != b->seeds.n || a->runs.n != b->runs.n || strcmp(a->axes, b->axes))
		return false;
	for (i = 0; i < a->variants.n; i++)
		if (strcmp(a->variants.v[i], b->variants.v[i]))
			return false;
	for (i = 0; i < a->runs.n; i++)
		if (strcmp(a->runs.v[i].dir, b->runs.v[i].dir))
			return false;
	return true;
}

/* Appends to m's text (cut where it is full, ending "..."). */
__attribute__((format(printf, 2, 3))) static void say(struct sweep_missing *m, const char *fmt, ...)
{
	size_t n = strlen(m->text);
	va_list ap;
	int w;

	if (n + 4 >= sizeof(m->text))
		return;
	va_start(ap, fmt);
	w = vsnprintf(m->text + n, sizeof(m->text) - n, fmt, ap);
	va_end(ap);
	if (w < 0 || (size_t)w >= sizeof(m->text) - n)
		snprintf(m->text + sizeof(m->text) - 4, 4, "...");
}

/* The runs of shard i still pending in the merged plan, listed in m. */
static void say_runs(struct sweep_missing *m, const struct sweep_plan *p, uint32_t i,
		     uint32_t shards, bool absent)
{
	char file[64];
	uint32_t k, n = 0;

	for (k = 0; k < p->runs.n; k++)
		n += sweep_shard_of(p->scenario, k, shards) == i &&
		     p->runs.v[k].status == SWEEP_PENDING;
	if (!n)
		return;
	sweep_shard_file(file, sizeof(file), i, shards);
	m->runs += n;
	say(m, "%sshard %u/%u %s %s: %u runs (", m->text[0] ? "; " : "", i + 1, shards,
	    absent ? "wrote no" : "stopped before its end, its", file, n);
	for (k = 0, n = 0; k < p->runs.n; k++)
		if (sweep_shard_of(p->scenario, k, shards) == i &&
		    p->runs.v[k].status == SWEEP_PENDING)
			say(m, "%s%s", n++ ? ", " : "", p->runs.v[k].dir);
	say(m, ")");
}

/* Shard i's file, if written, into the merged plan: the statuses of its own runs. */
static int merge_one(const struct wdir *dir, struct sweep_plan *all, bool *have, uint32_t i,
		     uint32_t shards, struct diag *d)
{
	struct sweep_plan p;
	char file[64];
	size_t k;
	int err;

	sweep_shard_file(file, sizeof(file), i, shards);
	if (!wdir_has(dir, file))
		return 0;
	err = sweep_plan_read_as(dir, file, &p, d);
	if (err)
		return err;
	if (!*have) { /* the first file read gives the plan */
		*all = p;
		*have = true;
		for (k = 0; k < all->runs.n; k++)
			if (sweep_shard_of(all->scenario, (uint32_t)k, shards) != i) {
				all->runs.v[k].status = SWEEP_PENDING;
				all->runs.v[k].error[0] = '\0';
			}
		return 0;
	}
	if (!same_sweep(all, &p))
		err = diag_set(d, -EINVAL,
			       "%s/%s: the plan of another sweep than the other shards'", dir->path,
			       file);
	for (k = 0; !err && k < all->runs.n; k++)
		if (sweep_shard_of(all->scenario, (uint32_t)k, shards) == i) {
			all->runs.v[k].status = p.runs.v[k].status;
			memcpy(all->runs.v[k].error, p.runs.v[k].error, sizeof(p.runs.v[k].error));
		}
	sweep_plan_done(&p);
	return err;
}

int sweep_shards_merge(const struct wdir *dir, struct sweep_missing *m, struct diag *d)
{
	struct sweep_plan all;
	struct shards_info s;
	bool have = false, *got = NULL;
	char file[64];
	uint32_t i;
	int err = shards_read(dir, &s, d);

	memset(m, 0, sizeof(*m));
	json_decref(s.axes);
	if (err)
		return err;
	got = calloc(s.shards, sizeof(*got));
	err = got ? 0 : diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; !err && i < s.shards; i++) {
		bool before = have;

		sweep_shard_file(file, sizeof(file), i, s.shards);
		got[i] = wdir_has(dir, file);
		err = merge_one(dir, &all, &have, i, s.shards, d);
		if (!err && have && !before &&
		    (strcmp(all.scenario, s.scenario) || all.runs.n != s.runs))
			err = diag_set(d, -EINVAL, "%s/%s: not the sweep %s names", dir->path, file,
				       SWEEP_SHARDS_FILE);
	}
	if (!err && !have)
		err = diag_set(d, -ENOENT,
			       "%s: none of its %u shards has written its file yet "
			       "(shard-1-of-%u.json ...)",
			       dir->path, s.shards, s.shards);
	for (i = 0; !err && i < s.shards; i++) {
		say_runs(m, &all, i, s.shards, !got[i]);
		m->shards_absent += !got[i];
	}
	for (i = 0; !err && i < all.runs.n; i++)
		m->failed += all.runs.v[i].status == SWEEP_FAILED;
	err = err ? err : sweep_plan_write(dir, &all, d);
	if (have)
		sweep_plan_done(&all);
	free(got);
	return err;
}
