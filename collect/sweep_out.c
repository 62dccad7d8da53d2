// SPDX-License-Identifier: MIT
/* A sweep's comparison as JSON (comparison.json, docs/results.md): per variant and metric the
 * mean value and the ratio to the baseline with its range over seeds. */
#include <errno.h>
#include <math.h>

#include "collect/summary.h"

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *cell_obj(const struct col_sweep_cell *c)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:I, s:I}", "value", num(c->value), "ratio",
			 num(c->mean), "min", num(c->min), "max", num(c->max), "runs",
			 (json_int_t)c->n, "value_runs", (json_int_t)c->nv);
}

static json_t *variant_obj(const struct col_sweep *s, uint32_t v, const char *name)
{
	json_t *m = json_object(), *o;
	unsigned k;

	for (k = 0; m && k < COL_M_N; k++) {
		if (json_object_set_new(m, col_metric_name((enum col_metric)k),
					cell_obj(col_sweep_cell(s, v, (enum col_metric)k)))) {
			json_decref(m);
			return NULL;
		}
	}
	o = json_pack("{s:I, s:s?, s:o}", "variant", (json_int_t)v, "name", name, "metrics", m);
	return o;
}

json_t *col_sweep_json(const struct col_sweep *s, const char *const *names)
{
	json_t *vs = json_array(), *units = json_object();
	uint32_t v;
	unsigned k;

	for (v = 0; vs && v < s->variants; v++)
		if (json_array_append_new(vs, variant_obj(s, v, names ? names[v] : NULL)))
			goto oom;
	for (k = 0; units && k < COL_M_N; k++)
		if (json_object_set_new(units, col_metric_name((enum col_metric)k),
					json_string(col_metric_unit((enum col_metric)k))))
			goto oom;
	return json_pack("{s:s, s:s?, s:o, s:o}", "schema", COL_SWEEP_SCHEMA, "baseline",
			 names ? names[0] : NULL, "units", units, "variants", vs);
oom:
	json_decref(vs);
	json_decref(units);
	return NULL;
}
