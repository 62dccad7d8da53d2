// SPDX-License-Identifier: MIT
/* The `sweep:` section (scenario_sweep.h): read from the document before the tables, and one
 * variant's values set by rewriting the document's nodes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/metrics.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"

#define COMP_MAX 64

static yaml_node_t *node(struct scn_yaml_ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static int node_id(const struct scn_yaml_ctx *c, const yaml_node_t *n)
{
	return (int)(n - c->doc->nodes.start) + 1;
}

static int oom(struct scn_yaml_ctx *c)
{
	return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
}

/* ---- reading the section ---- */

/* Paths are field names joined by dots, a list entry written name[i]: workload.jobs[0].gpus.
 * The testbed's name and the sweep itself are not swept. */
static bool path_ok(const char *p)
{
	size_t n;

	if (!strcmp(p, "name") || !strcmp(p, "sweep") || !strncmp(p, "sweep.", 6))
		return false;
	for (;;) {
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_-");
		if (!n)
			return false;
		p += n;
		if (*p == '[') {
			n = strspn(p + 1, "0123456789");
			if (!n || p[1 + n] != ']')
				return false;
			p += n + 2;
		}
		if (!*p)
			return true;
		if (*p++ != '.')
			return false;
	}
}

static int add_values(struct scn_yaml_ctx *c, struct exp_sweep_axis *a, yaml_node_t *list)
{
	yaml_node_item_t *it;
	const char *v;
	char *copy;

	if (list->type != YAML_SEQUENCE_NODE ||
	    list->data.sequence.items.start == list->data.sequence.items.top)
		return scn_yaml_fail_value(c, list, "a list of values such as [1, 2]", "");
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		v = scn_yaml_text(node(c, *it));
		if (!v)
			return scn_yaml_fail_value(c, node(c, *it), "a scalar value", "");
		copy = strdup(v);
		if (!copy || vec_push(&a->values, copy)) {
			free(copy);
			return oom(c);
		}
	}
	return 0;
}

/* The label of one case: "last=value" for each of its paths, in file order. */
static int case_label(struct scn_yaml_ctx *c, yaml_node_t *m, char *buf, size_t len)
{
	yaml_node_pair_t *p;
	size_t o = 0;

	buf[0] = '\0';
	for (p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
		const char *k = scn_yaml_text(node(c, p->key)),
			   *v = scn_yaml_text(node(c, p->value));
		const char *dot;

		if (!k || !path_ok(k) || !strcmp(k, "cases") || strlen(k) >= 128)
			return scn_yaml_fail_value(c, node(c, p->key),
						   "a field path such as routing.policy", "");
		if (!v)
			return scn_yaml_fail_value(c, node(c, p->value), "a scalar value", "");
		dot = strrchr(k, '.');
		o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%s%s=%s", o ? " " : "",
				      dot ? dot + 1 : k, v);
	}
	return 0;
}

/* sweep.cases: a list of mappings, each a variant of its own. */
static int add_cases(struct scn_yaml_ctx *c, struct exp_sweep_axis *a, yaml_node_t *list)
{
	yaml_node_item_t *it;
	char label[256], *copy;
	int r;

	if (list->type != YAML_SEQUENCE_NODE ||
	    list->data.sequence.items.start == list->data.sequence.items.top)
		return scn_yaml_fail_value(
			c, list, "a list of cases such as [{routing.policy: greedy}]", "");
	for (it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
		yaml_node_t *m = node(c, *it);

		if (m->type != YAML_MAPPING_NODE ||
		    m->data.mapping.pairs.start == m->data.mapping.pairs.top)
			return scn_yaml_fail_value(c, m,
						   "a mapping of field paths to values such as "
						   "{routing.policy: greedy}",
						   "");
		r = case_label(c, m, label, sizeof(label));
		if (r)
			return r;
		copy = strdup(label);
		if (!copy || vec_push(&a->values, copy)) {
			free(copy);
			return oom(c);
		}
	}
	return 0;
}

/* Node ids of each axis's key and list, in axis order, and of sweep.baseline's and
 * sweep.paper's key and value (0: not given), for scn_sweep_apply. */
struct ids {
	VEC(int) key, list;
	int base_key, base_value, paper_key, paper_value;
};

static int add_axis(struct scn_yaml_ctx *c, yaml_node_t *k, yaml_node_t *v, bool seed,
		    struct ids *ids)
{
	struct exp_sweep *s = &c->e->sweep;
	const char *p = scn_yaml_text(k);
	struct exp_sweep_axis *a;
	size_t i, old;
	int r;

	if (!p || (!path_ok(p) && (seed || strcmp(p, "cases"))) || strlen(p) >= sizeof(a->path))
		return scn_yaml_fail_value(c, k, "a field path such as routing.seed", "");
	for (i = 0; i < s->axes.n; i++)
		if (!strcmp(s->axes.v[i].path, p))
			return scn_yaml_fail_at(c, &k->start_mark,
						"sweep: %s is swept twice (first at line %u)", p,
						s->axes.v[i].line);
	a = vec_grow(&s->axes);
	if (!a)
		return oom(c);
	snprintf(a->path, sizeof(a->path), "%s", p);
	a->seed = seed;
	a->cases = !seed && !strcmp(p, "cases");
	a->line = (uint32_t)k->start_mark.line + 1;
	a->col = (uint32_t)k->start_mark.column + 1;
	if (vec_push(&ids->key, node_id(c, k)) || vec_push(&ids->list, node_id(c, v)))
		return oom(c);
	old = scn_yaml_path_push(c, p);
	r = a->cases ? add_cases(c, a, v) : add_values(c, a, v);
	c->path[old] = '\0';
	return r;
}

/* A mapping of paths to lists (the sweep, or its seeds). */
static int read_axes(struct scn_yaml_ctx *c, yaml_node_t *m, bool seeds, struct ids *ids)
{
	yaml_node_pair_t *p;
	yaml_node_t *k;
	size_t old;
	int r = 0;

	if (m->type != YAML_MAPPING_NODE ||
	    m->data.mapping.pairs.start == m->data.mapping.pairs.top)
		return scn_yaml_fail_value(c, m, "a mapping of field paths to lists of values", "");
	for (p = m->data.mapping.pairs.start; !r && p < m->data.mapping.pairs.top; p++) {
		k = node(c, p->key);
		if (!seeds && scn_yaml_text(k) && !strcmp(scn_yaml_text(k), "seeds")) {
			old = scn_yaml_path_push(c, "seeds");
			r = read_axes(c, node(c, p->value), true, ids);
			c->path[old] = '\0';
		} else if (!seeds && scn_yaml_text(k) && !strcmp(scn_yaml_text(k), "baseline")) {
			ids->base_key = p->key; /* read once every axis is known */
			ids->base_value = p->value;
		} else if (!seeds && scn_yaml_text(k) && !strcmp(scn_yaml_text(k), "paper")) {
			ids->paper_key = p->key; /* read once the variants are known */
			ids->paper_value = p->value;
		} else {
			r = add_axis(c, k, node(c, p->value), seeds, ids);
		}
	}
	return r;
}

/* Variants and seed combinations; their product is bounded. */
static int count(struct scn_yaml_ctx *c, const yaml_node_t *sweep)
{
	struct exp_sweep *s = &c->e->sweep;
	uint64_t v = 1, sd = 1;
	size_t i;

	for (i = 0; i < s->axes.n; i++) {
		if (s->axes.v[i].seed)
			sd *= s->axes.v[i].values.n;
		else
			v *= s->axes.v[i].values.n;
		if (v * sd > SWEEP_RUNS_MAX)
			return scn_yaml_fail_at(c, &sweep->start_mark,
						"sweep: more than %u runs (variants x seeds)",
						SWEEP_RUNS_MAX);
	}
	s->variants = (uint32_t)v;
	s->seeds = (uint32_t)sd;
	return 0;
}

/* The compared axes' paths, "a, b, c", or "none". */
static void compared_paths(const struct exp_sweep *s, char *buf, size_t len)
{
	size_t i, o = 0;

	snprintf(buf, len, "none");
	for (i = 0; i < s->axes.n && o < len; i++)
		if (!s->axes.v[i].seed)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "",
					      s->axes.v[i].path);
}

/* sweep.baseline as a value's label (it has an '='): the one case or axis value it names;
 * refused at the value if it names none or several, with their labels. */
static int read_base_value(struct scn_yaml_ctx *c, yaml_node_t *v)
{
	struct exp_sweep *s = &c->e->sweep;
	char labels[640], q[64];
	uint32_t n = exp_sweep_find(s, scn_yaml_text(v), &s->base_axis, &s->base_value, labels,
				    sizeof(labels));

	scn_yaml_found(q, sizeof(q), v);
	if (!labels[0])
		snprintf(labels, sizeof(labels), "none");
	if (!n)
		return scn_yaml_fail_at(c, &v->start_mark,
					"%s.baseline: no case or axis value is labelled %s (the "
					"compared ones: %s)",
					c->path, q, labels);
	if (n > 1)
		return scn_yaml_fail_at(c, &v->start_mark,
					"%s.baseline: %s names %u cases or axis values (%s): give "
					"more of one's label",
					c->path, q, n, labels);
	s->base_given = true;
	return 0;
}

/* " or a value's label (such as kind=best)", the first compared axis's first value, for
 * messages; "" if there is none. */
static void label_example(const struct exp_sweep *s, char *buf, size_t len)
{
	char label[128];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < s->axes.n && s->axes.v[i].seed; i++)
		;
	if (i == s->axes.n)
		return;
	exp_sweep_value_label(s, i, 0, label, sizeof(label));
	snprintf(buf, len, " or a value's label (such as %s)", label);
}

/* sweep.baseline: the path of a compared axis (its first value is the baseline's) or a value's
 * label (read_base_value); refused at its key otherwise. */
static int read_baseline(struct scn_yaml_ctx *c, const struct ids *ids)
{
	struct exp_sweep *s = &c->e->sweep;
	char paths[512], q[64], eg[192];
	const char *p;
	size_t i;

	if (!ids->base_key)
		return 0;
	p = scn_yaml_text(node(c, ids->base_value));
	if (p && strchr(p, '='))
		return read_base_value(c, node(c, ids->base_value));
	for (i = 0; p && i < s->axes.n; i++) {
		if (s->axes.v[i].seed || strcmp(s->axes.v[i].path, p))
			continue;
		s->base_given = true;
		s->base_axis = (uint32_t)i;
		return 0;
	}
	compared_paths(s, paths, sizeof(paths));
	label_example(s, eg, sizeof(eg));
	return scn_yaml_fail_at(
		c, &node(c, ids->base_key)->start_mark,
		"%s.baseline: expected the path of a compared axis (%s)%s, found %s", c->path,
		paths, eg, scn_yaml_found(q, sizeof(q), node(c, ids->base_value)));
}

/* The variant a sweep.paper key names: "v<index>" or its label as the comparison prints it;
 * s->variants if none. */
static uint32_t paper_variant(const struct exp_sweep *s, const char *key, uint32_t *choice)
{
	char label[256], *end;
	unsigned long v;

	if (key[0] == 'v' && key[1] >= '0' && key[1] <= '9') {
		v = strtoul(key + 1, &end, 10);
		return !*end && v < s->variants ? (uint32_t)v : s->variants;
	}
	for (v = 0; v < s->variants; v++) {
		exp_sweep_choice(s, (uint32_t)v * s->seeds, choice);
		exp_sweep_label(s, choice, false, label, sizeof(label));
		if (!strcmp(label, key))
			break;
	}
	return (uint32_t)v;
}

/* One metric name and ratio of a sweep.paper entry. */
static int paper_figure(struct scn_yaml_ctx *c, uint32_t v, yaml_node_t *k, yaml_node_t *val)
{
	const char *name = scn_yaml_text(k);
	struct exp_sweep_paper *f;
	char names[256];
	size_t old, o = 0;
	unsigned m;
	double x;
	int r;

	for (m = 0; name && m < COL_M_N; m++)
		if (!strcmp(name, col_metric_name((enum col_metric)m)))
			break;
	if (!name || m == COL_M_N) {
		o = (size_t)snprintf(names, sizeof(names), "a metric (");
		for (m = 0; m < COL_M_N; m++)
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", m ? ", " : "",
					      col_metric_name((enum col_metric)m));
		snprintf(names + o, sizeof(names) - o, ")");
		return scn_yaml_fail_value(c, k, names, "");
	}
	for (f = c->e->sweep.paper.v; f && f < c->e->sweep.paper.v + c->e->sweep.paper.n; f++)
		if (f->variant == v && f->metric == m)
			return scn_yaml_fail_at(c, &k->start_mark, "%s: %s is given twice", c->path,
						name);
	old = scn_yaml_path_push(c, name);
	r = scn_yaml_read_positive(c, val, &x);
	c->path[old] = '\0';
	f = r ? NULL : vec_grow(&c->e->sweep.paper);
	if (!r && !f)
		return oom(c);
	if (f)
		*f = (struct exp_sweep_paper){.variant = v, .metric = m, .ratio = x};
	return r;
}

/* One entry of sweep.paper: key names a variant, value maps metrics to ratios. */
static int paper_entry(struct scn_yaml_ctx *c, yaml_node_t *key, yaml_node_t *fm, uint32_t *choice)
{
	const struct exp_sweep *s = &c->e->sweep;
	const char *k = scn_yaml_text(key);
	uint32_t v = k ? paper_variant(s, k, choice) : s->variants;
	yaml_node_pair_t *q;
	char what[96];
	size_t old;
	int r = 0;

	if (v == s->variants) {
		snprintf(what, sizeof(what),
			 "a variant (v0 to v%u, or its label as comparison.txt lists it)",
			 s->variants - 1);
		return scn_yaml_fail_value(c, key, what, "");
	}
	old = scn_yaml_path_push(c, k);
	if (fm->type != YAML_MAPPING_NODE ||
	    fm->data.mapping.pairs.start == fm->data.mapping.pairs.top)
		r = scn_yaml_fail_value(
			c, fm, "a mapping of metrics to ratios such as {avg_jrt: 1.27}", "");
	for (q = r ? NULL : fm->data.mapping.pairs.start; q && !r && q < fm->data.mapping.pairs.top;
	     q++)
		r = paper_figure(c, v, node(c, q->key), node(c, q->value));
	c->path[old] = '\0';
	return r;
}

/* sweep.paper: {variant: {metric: ratio}}, a variant named "v4" or by its label; refused at
 * the key that names no variant or metric. */
static int read_paper(struct scn_yaml_ctx *c, const struct ids *ids)
{
	yaml_node_t *m = ids->paper_key ? node(c, ids->paper_value) : NULL;
	uint32_t *choice;
	yaml_node_pair_t *p;
	size_t old;
	int r = 0;

	if (!m)
		return 0;
	old = scn_yaml_path_push(c, "paper");
	if (m->type != YAML_MAPPING_NODE ||
	    m->data.mapping.pairs.start == m->data.mapping.pairs.top)
		r = scn_yaml_fail_value(c, m, "a mapping of variants to {metric: ratio}", "");
	choice = calloc(c->e->sweep.axes.n + 1, sizeof(*choice));
	if (!r && !choice)
		r = oom(c);
	for (p = r ? NULL : m->data.mapping.pairs.start; p && !r && p < m->data.mapping.pairs.top;
	     p++)
		r = paper_entry(c, node(c, p->key), node(c, p->value), choice);
	c->path[old] = '\0';
	free(choice);
	return r;
}

/* ---- one variant ---- */

/* The next component of *p into comp, its list index into *idx (-1 if none). */
static void next_comp(const char **p, char comp[COMP_MAX], long *idx)
{
	size_t n = strcspn(*p, ".[");
	char *end;

	snprintf(comp, COMP_MAX, "%.*s", (int)n, *p);
	*p += n;
	*idx = -1;
	if (**p == '[') {
		*idx = strtol(*p + 1, &end, 10);
		*p = end + 1;
	}
	if (**p == '.')
		(*p)++;
}

static size_t pairs_of(const yaml_node_t *m)
{
	return (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
}

/* Position of key k in mapping m, or -1. */
static int find_key(struct scn_yaml_ctx *c, int m, const char *k)
{
	yaml_node_t *n = node(c, m);
	yaml_node_pair_t *p;
	const char *t;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		t = scn_yaml_text(node(c, p->key));
		if (t && !strcmp(t, k))
			return (int)(p - n->data.mapping.pairs.start);
	}
	return -1;
}

/* A new scalar (or, with NULL, an empty mapping) placed at mark m; its id or 0. */
static int new_node(struct scn_yaml_ctx *c, const char *scalar, const yaml_mark_t *m)
{
	int id = scalar ? yaml_document_add_scalar(c->doc, NULL, (yaml_char_t *)scalar,
						   (int)strlen(scalar), YAML_PLAIN_SCALAR_STYLE)
			: yaml_document_add_mapping(c->doc, NULL, YAML_BLOCK_MAPPING_STYLE);

	if (id) {
		node(c, id)->start_mark = *m;
		node(c, id)->end_mark = *m;
	}
	return id;
}

/* Adds `comp: child` to mapping cur, child being vid (last) or a new section; its id or 0. */
static int add_key(struct scn_yaml_ctx *c, int cur, const char *comp, int vid, const yaml_mark_t *m)
{
	int key = new_node(c, comp, m), child = vid ? vid : new_node(c, NULL, m);

	if (!key || !child || !yaml_document_append_mapping_pair(c->doc, cur, key, child))
		return 0;
	return child;
}

/* The slot of entry idx of the list in *slot, or NULL. */
static yaml_node_item_t *entry(struct scn_yaml_ctx *c, int *slot, long idx)
{
	yaml_node_t *seq = node(c, *slot);

	if (seq->type != YAML_SEQUENCE_NODE ||
	    idx >= seq->data.sequence.items.top - seq->data.sequence.items.start)
		return NULL;
	return &seq->data.sequence.items.start[idx];
}

/* Puts value node vid where the axis's path points, creating what is missing; a field the
 * schema does not have is then refused by the tables, at the sweep's line. */
static int set_path(struct scn_yaml_ctx *c, const struct exp_sweep_axis *a, int vid,
		    const yaml_mark_t *km)
{
	int cur = node_id(c, yaml_document_get_root_node(c->doc)), k, *slot, sec;
	const char *p = a->path;
	char comp[COMP_MAX];
	long idx;

	while (*p) {
		next_comp(&p, comp, &idx);
		if (node(c, cur)->type != YAML_MAPPING_NODE)
			return scn_yaml_fail_at(c, km, "sweep: %s: '%s' is not inside a section",
						a->path, comp);
		k = find_key(c, cur, comp);
		if (k < 0 && idx >= 0)
			return scn_yaml_fail_at(c, km, "sweep: %s: there is no list '%s'", a->path,
						comp);
		if (k < 0) {
			cur = add_key(c, cur, comp, *p ? 0 : vid, km);
			if (!cur)
				return oom(c);
			continue;
		}
		slot = &node(c, cur)->data.mapping.pairs.start[k].value;
		if (idx >= 0 && !(slot = entry(c, slot, idx)))
			return scn_yaml_fail_at(c, km, "sweep: %s: '%s' has no entry %ld", a->path,
						comp, idx);
		if (!*p && node(c, *slot)->type != YAML_SCALAR_NODE)
			return scn_yaml_fail_at(
				c, km, "sweep: %s is a section or a list, not a value", a->path);
		if (!*p) {
			*slot = vid;
			return 0;
		}
		if (scn_yaml_is_empty(node(c, *slot))) { /* `shaping:` with nothing after it */
			sec = new_node(c, NULL, km);
			if (!sec)
				return oom(c);
			*slot = sec; /* pair arrays do not move when nodes are added */
		}
		cur = *slot;
	}
	return 0;
}

/* One case's paths (mapping mid), each set as an axis of its own would be, at the case's keys;
 * a path the sweep also has as an axis is refused (which would win?). Setting a path adds
 * nodes, which may move every node: each is found again by its id, its mark copied. */
static int set_case(struct scn_yaml_ctx *c, int mid)
{
	size_t i, j;
	int r = 0;

	for (i = 0; !r && i < pairs_of(node(c, mid)); i++) {
		yaml_node_pair_t p = node(c, mid)->data.mapping.pairs.start[i];
		struct exp_sweep_axis a = {0};
		yaml_mark_t km = node(c, p.key)->start_mark;

		snprintf(a.path, sizeof(a.path), "%s", scn_yaml_text(node(c, p.key)));
		for (j = 0; j < c->e->sweep.axes.n; j++)
			if (!strcmp(c->e->sweep.axes.v[j].path, a.path))
				return scn_yaml_fail_at(
					c, &km, "sweep: %s is swept twice (first at line %u)",
					a.path, c->e->sweep.axes.v[j].line);
		r = set_path(c, &a, p.value, &km);
	}
	return r;
}

static int sweep_node(struct scn_yaml_ctx *c)
{
	yaml_node_t *root = yaml_document_get_root_node(c->doc);
	int k;

	if (!root || root->type != YAML_MAPPING_NODE)
		return 0;
	k = find_key(c, node_id(c, root), "sweep");
	return k < 0 ? 0 : root->data.mapping.pairs.start[k].value;
}

int scn_sweep_apply(struct scn_yaml_ctx *c)
{
	struct ids ids = {0};
	int sw = sweep_node(c), r;
	size_t i, old;

	if (!sw)
		return 0;
	old = scn_yaml_path_push(c, "sweep");
	r = read_axes(c, node(c, sw), false, &ids);
	r = r ? r : count(c, node(c, sw));
	r = r ? r : read_baseline(c, &ids);
	r = r ? r : read_paper(c, &ids);
	c->path[old] = '\0';
	for (i = 0; !r && i < c->e->sweep.axes.n; i++) {
		const struct exp_sweep_axis *a = &c->e->sweep.axes.v[i];
		uint32_t v = c->choice ? c->choice[i] : 0;
		yaml_mark_t km = node(c, ids.key.v[i])->start_mark;

		if (v >= a->values.n)
			r = diag_set(c->d, -EINVAL, "%s: sweep: %s has no value %u", c->file,
				     a->path, v);
		else if (a->cases)
			r = set_case(c, node(c, ids.list.v[i])->data.sequence.items.start[v]);
		else
			r = set_path(c, a, node(c, ids.list.v[i])->data.sequence.items.start[v],
				     &km);
	}
	vec_free(&ids.key);
	vec_free(&ids.list);
	return r;
}

int scn_sweep_field(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	(void)c;
	(void)n;
	(void)f;
	return 0;
}
