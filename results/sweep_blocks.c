// SPDX-License-Identifier: MIT
/* The names of sweep.baseline's blocks in a comparison (sweep_report.h): each variant's values
 * on the other compared axes and its own on the baseline's, from sweep.json's axes, so that a
 * sweep folder is compared again from its files alone. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "results/sweep_report.h"
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
