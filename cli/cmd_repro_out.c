// SPDX-License-Identifier: MIT
/* `testbed reproduce`'s reading and writing (cmd_repro.h): what each scenario's run left, read
 * back from its folder (sweep.json, the runs' summary.json, comparison.json), and report.md.
 * Shared by the command and by `testbed report`'s merge of a sharded reproduction. */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd_repro.h"
#include "report/results.h"

/* path's name as JSON (NULL if it cannot be read), without following a link as root. */
static json_t *load_json(const char *dir, const char *name)
{
	struct wdir w;
	json_t *j = NULL;

	if (!wdir_open(&w, dir, 0, NULL))
		(void)res_json_read(&w, name, &j, NULL);
	wdir_close(&w);
	return j;
}

/* The runs of a sweep and their verdicts (sweep.json, each run's summary.json). */
void repro_read_runs(const char *dir, struct repro_result *r)
{
	char path[PATH_MAX];
	json_t *sw, *runs, *run, *sum;
	const char *verdict;
	size_t i;

	sw = load_json(dir, "sweep.json");
	runs = json_object_get(sw, "runs");
	json_array_foreach(runs, i, run)
	{
		r->runs++;
		r->ok += !strcmp(json_string_value(json_object_get(run, "status")) ?: "", "ok");
		if (snprintf(path, sizeof(path), "%s/%s", dir,
			     json_string_value(json_object_get(run, "dir")) ?: "") >=
		    (int)sizeof(path))
			continue;
		sum = load_json(path, "summary.json");
		verdict = json_string_value(
			json_object_get(json_object_get(sum, "fidelity"), "verdict"));
		r->degraded += verdict && !strcmp(verdict, "degraded");
		json_decref(sum);
	}
	json_decref(sw);
}

/* One run's verdict (no sweep): its summary.json. */
void repro_read_one(const char *dir, struct repro_result *r)
{
	json_t *sum, *tot;
	const char *verdict;

	sum = load_json(dir, "summary.json");
	tot = json_object_get(sum, "totals");
	if (!sum)
		return;
	r->runs = 1;
	r->ok = json_integer_value(json_object_get(tot, "ok")) ==
		json_integer_value(json_object_get(tot, "jobs"));
	verdict = json_string_value(json_object_get(json_object_get(sum, "fidelity"), "verdict"));
	r->degraded = verdict && !strcmp(verdict, "degraded");
	json_decref(sum);
}

static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The comparison's figures the report lists (repro_row_wanted). */
int repro_read_rows(const char *dir, struct repro_result *r)
{
	json_t *cmp, *vars, *v, *cell;
	const char *metric;
	size_t i;
	int err = 0;

	cmp = load_json(dir, "comparison.json");
	vars = json_object_get(cmp, "variants");
	json_array_foreach(vars, i, v)
	{
		json_object_foreach(json_object_get(v, "metrics"), metric, cell)
		{
			struct repro_row *w;
			double paper = num(json_object_get(cell, "paper"));

			if (!repro_row_wanted(r->it, metric, paper))
				continue;
			w = vec_grow(&r->rows);
			if (!w) {
				err = -ENOMEM;
				break;
			}
			snprintf(w->variant, sizeof(w->variant), "%s",
				 json_string_value(json_object_get(v, "name")) ?: "?");
			snprintf(w->metric, sizeof(w->metric), "%s", metric);
			w->measured = num(json_object_get(cell, "ratio"));
			w->paper = paper;
		}
	}
	json_decref(cmp);
	return err;
}

/* dir relative to the report's folder root, when it is inside it. */
void repro_relative(const char *root, const char *dir, char *out, size_t len)
{
	size_t n = strlen(root);

	if (!strncmp(dir, root, n) && dir[n] == '/')
		dir += n + 1;
	snprintf(out, len, "%s", dir);
}

static void header(char *buf, size_t len, const struct repro_opts *o, const char *root)
{
	struct utsname u;
	char when[64];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", localtime(&now));
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (o->shard.n && !o->shard.i) /* merged by testbed report */
		snprintf(buf, len,
			 "`testbed reproduce%s%s` in %u shards (`--shard I/%u`, each on its own "
			 "machine or at its own time), merged by `testbed report` %s, in `%s`. "
			 "Emulated runs carry the fidelity verdict of the machine they ran on; a "
			 "degraded one measured the machine, not the network.",
			 o->quick ? " --quick" : "", o->sim ? " --sim" : "", o->shard.n, o->shard.n,
			 when, root);
	else
		snprintf(buf, len,
			 "`testbed reproduce%s%s`, %s, into `%s`: %ld cores, kernel %s. Emulated "
			 "runs carry the fidelity verdict of the machine they ran on; a degraded "
			 "one measured the machine, not the network.",
			 o->quick ? " --quick" : "", o->sim ? " --sim" : "", when, root,
			 sysconf(_SC_NPROCESSORS_ONLN), u.release);
}

/* report.md in root (over an earlier one). 0 or -errno with d set. */
int repro_write_report(const struct wdir *root, const struct repro_opts *o,
		       const struct repro_result *res, size_t n, struct diag *d)
{
	char head[PATH_MAX + 1024], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err;

	if (!f)
		return diag_set(d, -ENOMEM, "out of memory for report.md");
	header(head, sizeof(head), o, root->path);
	repro_report(f, head, res, n);
	err = fclose(f) ? diag_set(d, -ENOMEM, "out of memory for report.md")
			: wdir_write(root, "report.md", text, len, WDIR_REPLACE, d);
	free(text);
	return err;
}
