// SPDX-License-Identifier: MIT
/* sweep.json, and a sweep's comparison and plots made from its runs' folders
 * (sweep_report.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/plot.h"
#include "collect/summary.h"
#include "collect/text.h"
#include "report/plot_run.h"
#include "report/results.h"
#include "scenario/scenario_sweep.h"
#include "report/sweep_report.h"

static const char *const statuses[] = {"pending", "ok", "failed"};

const char *sweep_status_name(enum sweep_status st)
{
	return (unsigned)st < 3 ? statuses[st] : "?";
}

static int push_str(void *vec, const char *s)
{
	VEC(char *) *v = vec;
	char *c = strdup(s);

	if (!c || vec_push(v, c)) {
		free(c);
		return -ENOMEM;
	}
	return 0;
}

static json_t *axes_json(const struct exp_sweep *s)
{
	json_t *a = json_array(), *vals;
	size_t i, k;

	for (i = 0; a && i < s->axes.n; i++) {
		vals = json_array();
		for (k = 0; vals && k < s->axes.v[i].values.n; k++)
			json_array_append_new(vals, json_string(s->axes.v[i].values.v[k]));
		json_array_append_new(a, json_pack("{s:s, s:b, s:o}", "path", s->axes.v[i].path,
						   "seed", (int)s->axes.v[i].seed, "values", vals));
	}
	return a;
}

/* Labels of every variant and every seed combination, and the runs. */
static int plan_runs(const struct exp_sweep *s, struct sweep_plan *p)
{
	uint32_t *choice = calloc(s->axes.n + 1, sizeof(*choice)), k;
	char label[256];
	int err = choice ? 0 : -ENOMEM;

	for (k = 0; !err && k < s->variants * s->seeds; k++) {
		struct sweep_run *r = vec_grow(&p->runs);

		exp_sweep_choice(s, k, choice);
		if (!r) {
			err = -ENOMEM;
			break;
		}
		r->variant = k / s->seeds;
		r->seed = k % s->seeds;
		r->baseline = exp_sweep_baseline(s, r->variant);
		snprintf(r->dir, sizeof(r->dir), "v%u-s%u", r->variant, r->seed);
		exp_sweep_label(s, choice, false, label, sizeof(label));
		if (!r->seed)
			err = push_str(&p->variants, label);
		exp_sweep_label(s, choice, true, label, sizeof(label));
		if (!err && !r->variant)
			err = push_str(&p->seeds, label);
	}
	free(choice);
	return err;
}

static int copy_paper(const struct exp_sweep *s, struct sweep_plan *p)
{
	size_t i;

	for (i = 0; i < s->paper.n; i++)
		if (vec_push(&p->paper, s->paper.v[i]))
			return -ENOMEM;
	return 0;
}

int sweep_plan_make(const struct experiment *e, struct sweep_plan *p)
{
	json_t *axes = axes_json(&e->sweep);

	memset(p, 0, sizeof(*p));
	snprintf(p->scenario, sizeof(p->scenario), "%.63s", e->s.name);
	p->axes = axes ? json_dumps(axes, JSON_COMPACT) : NULL;
	json_decref(axes);
	if (e->sweep.base_given)
		snprintf(p->base_path, sizeof(p->base_path), "%s",
			 e->sweep.axes.v[e->sweep.base_axis].path);
	p->base_value = e->sweep.base_value;
	exp_sweep_base_label(&e->sweep, p->base_label, sizeof(p->base_label));
	if (!p->axes || copy_paper(&e->sweep, p) || plan_runs(&e->sweep, p)) {
		sweep_plan_done(p);
		return -ENOMEM;
	}
	return 0;
}

void sweep_plan_done(struct sweep_plan *p)
{
	size_t i;

	for (i = 0; i < p->variants.n; i++)
		free(p->variants.v[i]);
	for (i = 0; i < p->seeds.n; i++)
		free(p->seeds.v[i]);
	vec_free(&p->variants);
	vec_free(&p->seeds);
	vec_free(&p->runs);
	vec_free(&p->paper);
	free(p->axes);
	p->axes = NULL;
}

static json_t *strs(char **v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* {dir, variant, seed, status, error}, and its baseline with sweep.baseline. */
static json_t *run_json(const struct sweep_plan *p, const struct sweep_run *r)
{
	json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:s}", "dir", r->dir, "variant",
			      (json_int_t)r->variant, "seed", (json_int_t)r->seed, "status",
			      statuses[r->status], "error", r->error);

	if (o && p->base_label[0] &&
	    json_object_set_new(o, "baseline", json_integer((json_int_t)r->baseline))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *runs_json(const struct sweep_plan *p)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < p->runs.n; i++)
		json_array_append_new(a, run_json(p, &p->runs.v[i]));
	return a;
}

/* sweep.paper's figures: [{variant, metric, ratio}]. */
static json_t *paper_json(const struct sweep_plan *p)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < p->paper.n; i++)
		if (json_array_append_new(
			    a, json_pack("{s:I, s:s, s:f}", "variant",
					 (json_int_t)p->paper.v[i].variant, "metric",
					 col_metric_name((enum col_metric)p->paper.v[i].metric),
					 "ratio", p->paper.v[i].ratio))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* sweep.json: {schema, scenario, axes, baseline (with sweep.baseline), paper (with
 * sweep.paper), variants, seeds, runs}. */
static json_t *plan_json(const struct sweep_plan *p)
{
	json_t *j = json_pack("{s:s, s:s, s:o}", "schema", SWEEP_SCHEMA, "scenario", p->scenario,
			      "axes", json_loads(p->axes, 0, NULL));
	int err = j ? 0 : -1;

	if (!err && p->base_label[0])
		err = json_object_set_new(j, "baseline",
					  json_pack("{s:s, s:s, s:I}", "path", p->base_path,
						    "label", p->base_label, "value",
						    (json_int_t)p->base_value));
	if (!err && p->paper.n)
		err = json_object_set_new(j, "paper", paper_json(p));
	err = err ? err : json_object_set_new(j, "variants", strs(p->variants.v, p->variants.n));
	err = err ? err : json_object_set_new(j, "seeds", strs(p->seeds.v, p->seeds.n));
	err = err ? err : json_object_set_new(j, "runs", runs_json(p));
	if (err) {
		json_decref(j);
		return NULL;
	}
	return j;
}

int sweep_plan_write(const struct wdir *dir, const struct sweep_plan *p, struct diag *d)
{
	return sweep_plan_write_as(dir, SWEEP_FILE, p, d);
}

int sweep_plan_write_as(const struct wdir *dir, const char *name, const struct sweep_plan *p,
			struct diag *d)
{
	json_t *j = plan_json(p);
	char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	int r = text ? wdir_write(dir, name, text, strlen(text), WDIR_REPLACE, d)
		     : diag_set(d, -ENOMEM, "out of memory for %s", name);

	free(text);
	json_decref(j);
	return r;
}

static int read_strs(const json_t *a, void *vec)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(a))
		return -EINVAL;
	json_array_foreach(a, i, e)
	{
		if (!json_is_string(e))
			return -EINVAL;
		if (push_str(vec, json_string_value(e)))
			return -ENOMEM;
	}
	return 0;
}

static int read_run(const json_t *o, const struct sweep_plan *p, struct sweep_run *r)
{
	const char *dir = json_string_value(json_object_get(o, "dir"));
	const char *st = json_string_value(json_object_get(o, "status"));
	const char *err = json_string_value(json_object_get(o, "error"));
	json_int_t v = json_integer_value(json_object_get(o, "variant"));
	json_int_t s = json_integer_value(json_object_get(o, "seed"));
	json_int_t b = json_integer_value(json_object_get(o, "baseline")); /* none: 0 */
	unsigned k;

	if (!dir || !st || strlen(dir) >= sizeof(r->dir) || strchr(dir, '/') || v < 0 ||
	    (size_t)v >= p->variants.n || s < 0 || (size_t)s >= p->seeds.n || b < 0 ||
	    (size_t)b >= p->variants.n)
		return -EINVAL;
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	snprintf(r->error, sizeof(r->error), "%s", err ? err : "");
	r->variant = (uint32_t)v;
	r->seed = (uint32_t)s;
	r->baseline = (uint32_t)b;
	for (k = 0; k < 3 && strcmp(st, statuses[k]); k++)
		;
	r->status = k < 3 ? (enum sweep_status)k : SWEEP_FAILED;
	return 0;
}

/* sweep.json's baseline, if any: {path, label, value} (value 0 in a file written before it). */
static int read_base(const json_t *b, struct sweep_plan *p)
{
	const char *path = json_string_value(json_object_get(b, "path"));
	const char *label = json_string_value(json_object_get(b, "label"));
	const json_t *value = json_object_get(b, "value");
	json_int_t k = json_integer_value(value);

	if (!b)
		return 0;
	if (!path || !label || !label[0] || strlen(path) >= sizeof(p->base_path) ||
	    strlen(label) >= sizeof(p->base_label) || (value && !json_is_integer(value)) || k < 0 ||
	    k > UINT32_MAX)
		return -EINVAL;
	p->base_value = (uint32_t)k;
	snprintf(p->base_path, sizeof(p->base_path), "%s", path);
	snprintf(p->base_label, sizeof(p->base_label), "%s", label);
	return 0;
}

/* sweep.json's paper figures, if any (after the variants). */
static int read_paper(const json_t *a, struct sweep_plan *p)
{
	struct exp_sweep_paper *f;
	const json_t *o;
	const char *m;
	json_int_t v;
	unsigned k;
	size_t i;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return -EINVAL;
	json_array_foreach(a, i, o)
	{
		m = json_string_value(json_object_get(o, "metric"));
		v = json_integer_value(json_object_get(o, "variant"));
		for (k = 0; m && k < COL_M_N && strcmp(m, col_metric_name((enum col_metric)k)); k++)
			;
		if (!m || k == COL_M_N || v < 0 || (size_t)v >= p->variants.n ||
		    !json_is_number(json_object_get(o, "ratio")))
			return -EINVAL;
		f = vec_grow(&p->paper);
		if (!f)
			return -ENOMEM;
		*f = (struct exp_sweep_paper){(uint32_t)v, k,
					      json_number_value(json_object_get(o, "ratio"))};
	}
	return 0;
}

static int plan_from(const json_t *j, struct sweep_plan *p)
{
	const char *sc = json_string_value(json_object_get(j, "scenario"));
	const json_t *runs = json_object_get(j, "runs"), *o;
	struct sweep_run *r;
	size_t i;
	int err;

	snprintf(p->scenario, sizeof(p->scenario), "%s", sc ? sc : "");
	err = read_base(json_object_get(j, "baseline"), p);
	if (err)
		return err;
	p->axes = json_dumps(json_object_get(j, "axes"), JSON_COMPACT | JSON_ENCODE_ANY);
	err = p->axes ? 0 : -ENOMEM;
	err = err ? err : read_strs(json_object_get(j, "variants"), &p->variants);
	err = err ? err : read_strs(json_object_get(j, "seeds"), &p->seeds);
	err = err ? err : read_paper(json_object_get(j, "paper"), p);
	if (!err && (!json_is_array(runs) || !p->variants.n || !p->seeds.n))
		err = -EINVAL;
	json_array_foreach(runs, i, o)
	{
		r = err ? NULL : vec_grow(&p->runs);
		err = err ? err : !r ? -ENOMEM : read_run(o, p, r);
	}
	return err;
}

int sweep_plan_read(const struct wdir *dir, struct sweep_plan *p, struct diag *d)
{
	return sweep_plan_read_as(dir, SWEEP_FILE, p, d);
}

int sweep_plan_read_as(const struct wdir *dir, const char *name, struct sweep_plan *p,
		       struct diag *d)
{
	char path[WDIR_PATH_MAX + 32];
	json_t *j;
	int err;

	memset(p, 0, sizeof(*p));
	wdir_join(path, sizeof(path), dir, name);
	err = res_json_read(dir, name, &j, d);
	if (err == -ENOENT)
		return diag_set(d, err, "%s: %s", path, strerror(-err));
	if (err)
		return err;
	if (strcmp(json_string_value(json_object_get(j, "schema")) ?: "", SWEEP_SCHEMA))
		err = -EINVAL;
	else
		err = plan_from(j, p);
	json_decref(j);
	if (err)
		sweep_plan_done(p);
	if (err == -EINVAL)
		return diag_set(d, err, "%s: not a %s file", path, SWEEP_SCHEMA);
	return err ? diag_set(d, err, "%s: %s", path, strerror(-err)) : 0;
}

/* ---- the comparison ---- */

int sweep_acc_init(struct sweep_acc *a, const struct sweep_plan *p)
{
	a->nruns = p->runs.n;
	a->nvariants = p->variants.n;
	a->runs = calloc(a->nruns + 1, sizeof(*a->runs));
	a->fct = calloc(a->nvariants + 1, sizeof(*a->fct));
	a->have = calloc(a->nruns + 1, sizeof(*a->have));
	if (a->runs && a->fct && a->have)
		return 0;
	sweep_acc_done(a);
	return -ENOMEM;
}

void sweep_acc_done(struct sweep_acc *a)
{
	size_t i;

	for (i = 0; a->runs && i < a->nruns; i++)
		res_run_done(&a->runs[i]);
	for (i = 0; a->fct && i < a->nvariants; i++)
		vec_free(&a->fct[i]);
	free(a->runs);
	free(a->fct);
	free(a->have);
	memset(a, 0, sizeof(*a));
}

/* Loads (or reports again) run k, its metrics computed, and gathers its FCTs into fct[its
 * variant] (the curves sort them: the order runs are added in does not matter). A run's
 * records are let go once read, so that a sweep of many long runs holds one run's records at
 * a time. */
int sweep_acc_add(struct sweep_acc *a, const struct wdir *dir, const struct sweep_plan *p, size_t k,
		  bool rerender, struct diag *warn, struct diag *d)
{
	struct res_run *x = &a->runs[k];
	struct res_info info;
	struct wdir rd;
	int err;

	if (k >= a->nruns || a->nruns != p->runs.n || a->have[k])
		return k < a->nruns && a->have[k] ? 0
						  : diag_set(d, -EINVAL, "run %zu: no such run", k);
	err = wdir_sub(&rd, dir, p->runs.v[k].dir, 0, d);
	err = err ? err : res_info_read(&rd, &info, d);
	if (!err && rerender)
		err = res_report(&rd, &info, NULL, x, NULL, warn, d);
	else if (!err)
		err = res_load(&rd, &info, NULL, x, d);
	if (!err && col_fcts_add(&a->fct[p->runs.v[k].variant], &x->rec, &x->m))
		err = diag_set(d, -ENOMEM, "out of memory for the flows of %s", rd.path);
	rec_run_done(&x->rec);
	wdir_close(&rd);
	a->have[k] = !err;
	return err;
}

/* Every run that finished and a has not yet, added to it. */
static int load_runs(const struct wdir *dir, const struct sweep_plan *p, bool rerender,
		     struct sweep_acc *a, struct diag *warn, struct diag *d)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < p->runs.n; i++)
		if (p->runs.v[i].status == SWEEP_OK && !a->have[i])
			err = sweep_acc_add(a, dir, p, i, rerender, warn, d);
	return err;
}

/* The clock of the sweep's runs (its first that ran: all run on one backend). */
static enum col_clock sweep_clock(const struct sweep_plan *p, const struct res_run *runs)
{
	size_t i;

	for (i = 0; i < p->runs.n && p->runs.v[i].status != SWEEP_OK; i++)
		;
	return col_clock_of(i < p->runs.n ? runs[i].info.backend : NULL);
}

/* FCT CDF per variant (fct: each variant's FCTs, used up) and JCT per job per variant; a plot
 * left out is reported in d (after the others are written). */
static int sweep_plots(const struct wdir *dir, const struct sweep_plan *p,
		       const struct res_run *runs, col_fcts *fct, struct diag *d)
{
	struct col_plot_variant *v = calloc(p->variants.n + 1, sizeof(*v));
	const struct col_metrics **mm = calloc(p->runs.n + 1, sizeof(*mm));
	struct col_plots pl = {0};
	size_t i, k, n = 0;
	int err = v && mm ? 0 : -ENOMEM;

	for (k = 0; !err && k < p->variants.n; k++) {
		v[k] = (struct col_plot_variant){p->variants.v[k], mm + n, 0, fct[k]};
		for (i = 0; i < p->runs.n; i++) {
			if (p->runs.v[i].variant != k || p->runs.v[i].status != SWEEP_OK)
				continue;
			mm[n++] = &runs[i].m;
			v[k].n++;
		}
	}
	err = err ? err : col_plot_sweep(&pl, v, p->variants.n, p->scenario, sweep_clock(p, runs));
	if (err)
		diag_set(d, err, "plots: out of memory");
	else
		err = plot_write(dir, &pl, d);
	for (i = 0; !err && i < pl.skipped.n; i++) /* said as a run's summary says it */
		err = diag_set(d, -ENODATA, "%s left out: %s", pl.skipped.v[i].name,
			       pl.skipped.v[i].why);
	col_plots_done(&pl);
	free(v);
	free(mm);
	return err;
}

int sweep_report(const struct wdir *dir, bool rerender, char **txt, struct diag *warn,
		 struct diag *d)
{
	return sweep_report_acc(dir, NULL, rerender, txt, warn, d);
}

int sweep_report_acc(const struct wdir *dir, struct sweep_acc *acc, bool rerender, char **txt,
		     struct diag *warn, struct diag *d)
{
	struct sweep_acc mine = {0}, *a = acc ? acc : &mine;
	struct sweep_plan p;
	struct diag pw = {0};
	int err;

	*txt = NULL;
	err = sweep_plan_read(dir, &p, d);
	if (err)
		return err;
	if (!acc && sweep_acc_init(&mine, &p))
		err = diag_set(d, -ENOMEM, "out of memory");
	else if (a->nruns != p.runs.n || a->nvariants != p.variants.n)
		err = diag_set(d, -EINVAL, "%s/%s: not the sweep that ran", dir->path, SWEEP_FILE);
	err = err ? err : load_runs(dir, &p, rerender, a, warn, d);
	err = err ? err : sweep_compare_write(dir, &p, a->runs, txt, d);
	if (!err && sweep_plots(dir, &p, a->runs, a->fct, &pw) && !warn->msg[0])
		diag_set(warn, pw.err ? pw.err : -EIO, "sweep plots: %s", pw.msg);
	if (!acc)
		sweep_acc_done(&mine);
	if (err) {
		free(*txt);
		*txt = NULL;
	}
	sweep_plan_done(&p);
	return err;
}

void sweep_report_print(const struct wdir *dir, const char *txt, const struct diag *warn)
{
	if (warn->msg[0])
		fprintf(stderr, "testbed: plots: %s\n", warn->msg);
	if (txt)
		printf("\n%s\ncomparison: %s/comparison.txt\n", txt, dir->path);
}
