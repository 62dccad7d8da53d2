// SPDX-License-Identifier: MIT
/* A sweep's comparison (sweep_report.h): the runs' metrics compared, comparison.txt and
 * comparison.json written; with sweep.baseline the names of its blocks, each variant's values on
 * the other compared axes and its own on the baseline's, from sweep.json's axes, so that a sweep
 * folder is compared again from its files alone. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/summary.h"
#include "collect/text.h"
#include "report/results.h"
#include "report/sweep_report.h"
#include "scenario/scenario_sweep.h"

/* One axis of sweep.json's axes ({path, seed, values}) appended to s. */
static int axis_from(const json_t *o, struct exp_sweep *s)
{
	const char *path = json_string_value(json_object_get(o, "path"));
	const json_t *vals = json_object_get(o, "values"), *v;
	struct exp_sweep_axis *a;
	char *copy;
	size_t i;

	if (!path || strlen(path) >= sizeof(a->path) || !json_is_array(vals) ||
	    !json_array_size(vals))
		return -EINVAL;
	a = vec_grow(&s->axes);
	if (!a)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	snprintf(a->path, sizeof(a->path), "%s", path);
	a->seed = json_is_true(json_object_get(o, "seed"));
	a->cases = !a->seed && !strcmp(path, "cases");
	json_array_foreach(vals, i, v)
	{
		copy = json_is_string(v) ? strdup(json_string_value(v)) : NULL;
		if (!copy || vec_push(&a->values, copy)) {
			free(copy);
			return json_is_string(v) ? -ENOMEM : -EINVAL;
		}
	}
	return 0;
}

/* s as the plan's axes and baseline describe it; -EINVAL where they disagree with its
 * variants and seeds. */
static int sweep_from(const struct sweep_plan *p, struct exp_sweep *s)
{
	json_t *axes = json_loads(p->axes, 0, NULL), *o;
	uint64_t v = 1, sd = 1;
	size_t i;
	int err = json_is_array(axes) ? 0 : -EINVAL;

	json_array_foreach(axes, i, o)
	{
		err = err ? err : axis_from(o, s);
		if (err)
			break;
		*(s->axes.v[i].seed ? &sd : &v) *= s->axes.v[i].values.n;
		if (v * sd > SWEEP_RUNS_MAX)
			err = -EINVAL;
	}
	json_decref(axes);
	for (i = 0; !err && i < s->axes.n; i++)
		if (!s->axes.v[i].seed && !strcmp(s->axes.v[i].path, p->base_path))
			break;
	if (!err && (i == s->axes.n || p->base_value >= s->axes.v[i].values.n ||
		     v != p->variants.n || sd != p->seeds.n))
		err = -EINVAL;
	s->variants = (uint32_t)v;
	s->seeds = (uint32_t)sd;
	s->base_given = true;
	s->base_axis = (uint32_t)i;
	s->base_value = p->base_value;
	return err;
}

static int push_label(void *vec, const char *label)
{
	VEC(char *) *v = vec;
	char *c = strdup(label);

	if (!c || vec_push(v, c)) {
		free(c);
		return -ENOMEM;
	}
	return 0;
}

int sweep_names_make(const struct sweep_plan *p, struct sweep_names *n)
{
	struct exp_sweep s = {0};
	uint32_t *choice = NULL, v;
	char label[256];
	int err;

	memset(n, 0, sizeof(*n));
	if (!p->base_label[0])
		return 0;
	err = sweep_from(p, &s);
	choice = err ? NULL : calloc(s.axes.n + 1, sizeof(*choice));
	if (!err && !choice)
		err = -ENOMEM;
	for (v = 0; !err && v < s.variants; v++) {
		exp_sweep_choice(&s, v * s.seeds, choice);
		exp_sweep_group_label(&s, choice, label, sizeof(label));
		err = push_label(&n->group, label);
		exp_sweep_own_label(&s, choice, label, sizeof(label));
		err = err ? err : push_label(&n->own, label);
	}
	free(choice);
	exp_sweep_done(&s);
	if (err)
		sweep_names_done(n);
	return err;
}

void sweep_names_done(struct sweep_names *n)
{
	size_t i;

	for (i = 0; i < n->group.n; i++)
		free(n->group.v[i]);
	for (i = 0; i < n->own.n; i++)
		free(n->own.v[i]);
	vec_free(&n->group);
	vec_free(&n->own);
}

/* ---- the comparison ---- */

static int compare(const struct sweep_plan *p, const struct res_run *runs, struct col_sweep *cs,
		   struct diag *d)
{
	struct col_sweep_run *sr = calloc(p->runs.n + 1, sizeof(*sr));
	size_t i, n = 0;
	int err;

	if (!sr)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < p->runs.n; i++) {
		if (p->runs.v[i].status != SWEEP_OK)
			continue;
		sr[n].variant = p->runs.v[i].variant;
		sr[n].seed = p->runs.v[i].seed;
		sr[n].baseline = p->runs.v[i].baseline;
		col_metric_values(&runs[i].m, sr[n++].v);
	}
	err = col_sweep_build(sr, n, cs, d);
	free(sr);
	return err;
}

/* The table's labels: the variants' names if they fit its column, else v0, v1, ... */
static const char *const *table_names(const struct sweep_plan *p)
{
	size_t i;

	for (i = 0; i < p->variants.n; i++)
		if (strlen(p->variants.v[i]) > 20)
			return NULL;
	return (const char *const *)p->variants.v;
}

/* Each variant's baseline, from its runs (malloc'd, p->variants.n of them); NULL on ENOMEM. */
static uint32_t *variant_bases(const struct sweep_plan *p)
{
	uint32_t *bases = calloc(p->variants.n + 1, sizeof(*bases));
	size_t i;

	for (i = 0; bases && i < p->runs.n; i++)
		bases[p->runs.v[i].variant] = p->runs.v[i].baseline;
	return bases;
}

/* comparison.txt: the variants (each baseline marked), the runs that failed or were degraded,
 * the table (with sweep.baseline's blocks, the variants' whole names for the paper's lines and
 * for rows the axes could not name). */
static char *comparison_txt(const struct sweep_plan *p, const struct res_run *runs,
			    const struct col_sweep *cs, const struct col_sweep_base *b)
{
	struct col_text t = {0};
	size_t i;
	const char *const *names = b->groups ? (const char *const *)p->variants.v : table_names(p);
	int n = col_sweep_txt_base(NULL, 0, cs, names, b);
	char *table = n >= 0 ? malloc((size_t)n + 1) : NULL;

	col_text_printf(&t, "sweep of %s: %zu variants x %zu seeds\n", p->scenario, p->variants.n,
			p->seeds.n);
	for (i = 0; i < p->variants.n; i++)
		col_text_printf(&t, "  v%zu %s%s\n", i, p->variants.v[i],
				(b->label ? b->variant[i] == i : !i) ? " (baseline)" : "");
	for (i = 0; i < p->runs.n; i++) {
		const struct sweep_run *r = &p->runs.v[i];

		if (r->status != SWEEP_OK)
			col_text_printf(&t, "  run %s (%s): %s%s%s\n", r->dir, p->seeds.v[r->seed],
					sweep_status_name(r->status), r->error[0] ? ": " : "",
					r->error);
		else if (runs[i].m.fid.degraded)
			col_text_printf(&t, "  run %s (%s): DEGRADED (see its summary.txt)\n",
					r->dir, p->seeds.v[r->seed]);
	}
	if (table)
		col_sweep_txt_base(table, (size_t)n + 1, cs, names, b);
	col_text_printf(&t, "\n%s", table ? table : "");
	if (!table)
		t.err = -ENOMEM;
	free(table);
	return col_text_take(&t, NULL);
}

/* The paper's figures as col_sweep_base.paper wants them (malloc'd), NULL if the sweep has
 * none; *err -ENOMEM if it could not be made. */
static double *paper_cells(const struct sweep_plan *p, int *err)
{
	size_t i, n = p->variants.n * COL_M_N;
	double *c = p->paper.n ? malloc(n * sizeof(*c)) : NULL;

	if (p->paper.n && !c)
		*err = -ENOMEM;
	for (i = 0; c && i < n; i++)
		c[i] = NAN;
	for (i = 0; c && i < p->paper.n; i++)
		c[(size_t)p->paper.v[i].variant * COL_M_N + p->paper.v[i].metric] =
			p->paper.v[i].ratio;
	return c;
}

/* What each variant is compared with: with sweep.baseline its own baseline (bases, from
 * variant_bases), the blocks of variants sharing one (g) and their names (nm, empty if the axes
 * could not name them). */
struct against {
	const uint32_t *bases;
	struct col_sweep_groups g;
	struct sweep_names nm;
};

/* With sweep.baseline: every variant listed (also the last ones, if they never ran), grouped
 * by baseline, the groups named from the axes (by number if these do not make the variants). */
static int group(const struct sweep_plan *p, struct col_sweep *cs, struct against *a,
		 struct diag *d)
{
	int err;

	if (!p->base_label[0])
		return 0;
	err = col_sweep_pad(cs, (uint32_t)p->variants.n);
	err = err ? err : col_sweep_groups_make(a->bases, (uint32_t)p->variants.n, &a->g);
	if (err) /* bases are below p->variants.n (read_run) */
		return diag_set(d, err, "out of memory for the comparison");
	err = sweep_names_make(p, &a->nm);
	return err == -ENOMEM ? diag_set(d, err, "out of memory for the comparison") : 0;
}

static int write_comparison(const struct wdir *dir, const struct sweep_plan *p,
			    const struct res_run *runs, const struct col_sweep *cs,
			    const struct against *a, char **txt, struct diag *d)
{
	int err = 0;
	double *paper = paper_cells(p, &err);
	const bool named = a->nm.group.n == p->variants.n;
	const struct col_sweep_base b = {
		.label = p->base_label[0] ? p->base_label : NULL,
		.variant = a->bases,
		.paper = paper,
		.groups = p->base_label[0] ? &a->g : NULL,
		.group = named ? (const char *const *)a->nm.group.v : NULL,
		.own = named ? (const char *const *)a->nm.own.v : NULL,
	};
	json_t *j = err ? NULL : col_sweep_json_base(cs, (const char *const *)p->variants.v, &b);
	char *js = j ? json_dumps(j, COL_SUMMARY_DUMP_FLAGS | JSON_PRESERVE_ORDER) : NULL;
	char *t = js ? comparison_txt(p, runs, cs, &b) : NULL;

	err = js && t ? 0 : diag_set(d, -ENOMEM, "out of memory for the comparison");
	err = err ? err : wdir_write(dir, "comparison.json", js, strlen(js), WDIR_REPLACE, d);
	err = err ? err : wdir_write(dir, "comparison.txt", t, strlen(t), WDIR_REPLACE, d);
	json_decref(j);
	free(js);
	free(paper);
	if (!err)
		*txt = t;
	else
		free(t);
	return err;
}

int sweep_compare_write(const struct wdir *dir, const struct sweep_plan *p,
			const struct res_run *runs, char **txt, struct diag *d)
{
	struct col_sweep cs = {0};
	uint32_t *bases = variant_bases(p);
	struct against a = {.bases = bases};
	int err = bases ? compare(p, runs, &cs, d) : diag_set(d, -ENOMEM, "out of memory");

	err = err ? err : group(p, &cs, &a, d);
	err = err ? err : write_comparison(dir, p, runs, &cs, &a, txt, d);
	col_sweep_groups_done(&a.g);
	sweep_names_done(&a.nm);
	col_sweep_done(&cs);
	free(bases);
	return err;
}
