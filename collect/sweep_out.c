// SPDX-License-Identifier: MIT
/* A sweep's comparison as JSON (comparison.json, docs/results.md): per variant and metric the
 * mean value and the ratio to its baseline with its range over seeds. */
#include <errno.h>
#include <math.h>

#include "collect/summary.h"

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* {value, ratio, min, max, runs, value_runs}, and paper where the paper gives a figure. */
static json_t *cell_obj(const struct col_sweep_cell *c, double paper)
{
	json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:I, s:I}", "value", num(c->value), "ratio",
			      num(c->mean), "min", num(c->min), "max", num(c->max), "runs",
			      (json_int_t)c->n, "value_runs", (json_int_t)c->nv);

	if (o && isfinite(paper) && json_object_set_new(o, "paper", json_real(paper))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* {variant, name, baseline, group, axis_value (these three only with sweep.baseline),
 * metrics}. */
static json_t *variant_obj(const struct col_sweep *s, uint32_t v, const char *name,
			   const struct col_sweep_base *b)
{
	json_t *m = json_object(),
	       *o = json_pack("{s:I, s:s?}", "variant", (json_int_t)v, "name", name);
	unsigned k;
	int err = m && o ? 0 : -1;

	for (k = 0; !err && k < COL_M_N; k++)
		err = json_object_set_new(
			m, col_metric_name((enum col_metric)k),
			cell_obj(col_sweep_cell(s, v, (enum col_metric)k),
				 b && b->paper ? b->paper[(size_t)v * COL_M_N + k] : NAN));
	if (!err && b && b->label)
		err = json_object_set_new(o, "baseline", json_integer(b->variant[v]));
	if (!err && b && b->label && b->group)
		err = json_object_set_new(o, "group", json_string(b->group[v]));
	if (!err && b && b->label && b->own)
		err = json_object_set_new(o, "axis_value", json_string(b->own[v]));
	if (!err) {
		err = json_object_set_new(o, "metrics", m); /* takes m, also on failure */
		m = NULL;
	}
	json_decref(m);
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *col_sweep_json(const struct col_sweep *s, const char *const *names)
{
	return col_sweep_json_base(s, names, NULL);
}

/* One group of sweep.baseline: {name, baseline, baseline_runs, variants}. */
static json_t *group_obj(const struct col_sweep *s, const struct col_sweep_base *b, uint32_t g)
{
	const struct col_sweep_groups *gs = b->groups;
	uint32_t base = gs->baseline[g], i, first = gs->order[gs->start[g]];
	json_t *vs = json_array();

	for (i = gs->start[g]; vs && i < gs->start[g + 1]; i++)
		if (json_array_append_new(vs, json_integer(gs->order[i]))) {
			json_decref(vs);
			return NULL;
		}
	return json_pack("{s:s, s:I, s:I, s:o}", "name", b->group ? b->group[first] : "",
			 "baseline", (json_int_t)base, "baseline_runs",
			 (json_int_t)(base < s->runs.n ? s->runs.v[base] : 0), "variants", vs);
}

/* sweep.baseline's groups: [group_obj], in the order of their first variants. */
static json_t *groups_arr(const struct col_sweep *s, const struct col_sweep_base *b)
{
	json_t *a = json_array();
	uint32_t g;

	for (g = 0; a && g < b->groups->n; g++)
		if (json_array_append_new(a, group_obj(s, b, g))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The top-level baseline: variant 0's name, or with b the value every baseline has. */
json_t *col_sweep_json_base(const struct col_sweep *s, const char *const *names,
			    const struct col_sweep_base *b)
{
	json_t *vs = json_array(), *units = json_object();
	const char *base = b ? b->label : NULL;
	uint32_t v;
	unsigned k;

	if (!base && names)
		base = names[0];
	for (v = 0; vs && v < s->variants; v++)
		if (json_array_append_new(vs, variant_obj(s, v, names ? names[v] : NULL, b)))
			goto oom;
	for (k = 0; units && k < COL_M_N; k++)
		if (json_object_set_new(units, col_metric_name((enum col_metric)k),
					json_string(col_metric_unit((enum col_metric)k))))
			goto oom;
	if (b && b->label && b->groups)
		return json_pack("{s:s, s:s?, s:o, s:o, s:o}", "schema", COL_SWEEP_SCHEMA,
				 "baseline", base, "groups", groups_arr(s, b), "units", units,
				 "variants", vs);
	return json_pack("{s:s, s:s?, s:o, s:o}", "schema", COL_SWEEP_SCHEMA, "baseline", base,
			 "units", units, "variants", vs);
oom:
	json_decref(vs);
	json_decref(units);
	return NULL;
}
