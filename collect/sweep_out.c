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

/* {variant, name, baseline (only with sweep.baseline), metrics}. */
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
	return json_pack("{s:s, s:s?, s:o, s:o}", "schema", COL_SWEEP_SCHEMA, "baseline", base,
			 "units", units, "variants", vs);
oom:
	json_decref(vs);
	json_decref(units);
	return NULL;
}
