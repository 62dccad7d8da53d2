// SPDX-License-Identifier: MIT
/* Scenario files: libyaml's document tree read against one field table per section (the
 * schema, docs/scenario.md); the field types are in scenario_yaml_types.c. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/scenario_sweep.h"
#include "scenario/input.h"
#include "scenario/scenario_yaml.h"
#include "scenario/scenario_yaml_types.h"
#include "policy/shape.h"
#include "traffic/plan.h"

#define HOSTS_MAX 65536u /* the addressing plan's limit (model/gen_leafspine.c) */

/* ---- mappings ---- */

/* "in 'topology'" or "at the top level", for the mapping being read. */
static const char *where(const struct scn_yaml_ctx *c, char *buf, size_t len)
{
	if (!c->path[0])
		return "at the top level";
	snprintf(buf, len, "in '%s'", c->path);
	return buf;
}

static yaml_node_t *node(struct scn_yaml_ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

static bool key_is(const yaml_node_t *k, const char *name)
{
	const char *v = scn_yaml_text(k);

	return v && !strcmp(v, name);
}

/* One "switch: seed" pair of routing.seeds; keys before p are checked for duplicates. */
static int read_seed(struct scn_yaml_ctx *c, yaml_node_t *map, yaml_node_pair_t *p)
{
	yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
	const char *name = scn_yaml_text(k), *why = "";
	yaml_node_pair_t *q;
	char buf[32];
	struct scn_seed *sd;
	uint64_t x;
	size_t old;
	int r;

	if (name)
		why = scn_yaml_name_why(name, SCN_NAME_MAX - 1, buf, sizeof(buf));
	if (why)
		return scn_yaml_fail_value(c, k, "a switch name such as l0", why);
	for (q = map->data.mapping.pairs.start; q < p; q++)
		if (key_is(node(c, q->key), name))
			return scn_yaml_fail_at(c, &k->start_mark,
						"duplicate switch '%s' in '%s' (first at line %zu)",
						name, c->path,
						node(c, q->key)->start_mark.line + 1);
	old = scn_yaml_path_push(c, name);
	r = scn_yaml_read_uint(c, v, 0, UINT32_MAX, &x);
	c->path[old] = '\0';
	if (r)
		return r;
	sd = vec_grow(&c->e->s.routing.seeds);
	if (!sd)
		return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
	snprintf(sd->node, sizeof(sd->node), "%s", name);
	sd->seed = (uint32_t)x;
	return 0;
}

/* routing.seeds: a mapping of switch names to seeds (f->off is unused: one such field). */
static int set_seeds(struct scn_yaml_ctx *c, yaml_node_t *n,
		     __attribute__((unused)) const struct scn_yaml_field *f)
{
	yaml_node_pair_t *p;
	int r = 0;

	if (scn_yaml_is_empty(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return scn_yaml_fail_value(c, n, "a mapping of switch names to seeds", "");
	for (p = n->data.mapping.pairs.start; !r && p < n->data.mapping.pairs.top; p++)
		r = read_seed(c, n, p);
	return r;
}

static int unknown_field(struct scn_yaml_ctx *c, const yaml_node_t *k, const struct section *sec)
{
	char names[512], w[160], q[64];
	size_t i, o = 0;

	for (i = 0; i < sec->n && o < sizeof(names); i++)
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", i ? ", " : "",
				      sec->fields[i].name);
	return scn_yaml_fail_at(c, &k->start_mark, "unknown field %s %s (expected one of: %s)",
				scn_yaml_found(q, sizeof(q), k), where(c, w, sizeof(w)), names);
}

/* One "key: value" pair of a table-driven mapping. */
static int read_pair(struct scn_yaml_ctx *c, struct map_read *m, const yaml_node_pair_t *p)
{
	yaml_node_t *k = node(c, p->key), *v = node(c, p->value);
	const struct scn_yaml_field *f = NULL;
	char w[160], q[64];
	size_t i, old;
	int r;

	if (k->type != YAML_SCALAR_NODE)
		return scn_yaml_fail_at(c, &k->start_mark, "expected a field name %s, found %s",
					where(c, w, sizeof(w)), scn_yaml_found(q, sizeof(q), k));
	for (i = 0; !f && i < m->sec->n; i++)
		if (key_is(k, m->sec->fields[i].name))
			f = &m->sec->fields[i];
	if (!f)
		return unknown_field(c, k, m->sec);
	i = (size_t)(f - m->sec->fields);
	if (m->key[i])
		return scn_yaml_fail_at(c, &k->start_mark,
					"duplicate field '%s' %s (first at line %zu)", f->name,
					where(c, w, sizeof(w)), m->key[i]->start_mark.line + 1);
	m->key[i] = k;
	m->val[i] = v;
	old = scn_yaml_path_push(c, f->name);
	r = f->type(c, v, f);
	c->path[old] = '\0';
	return r;
}

/* Reads mapping n by sec's table; an empty value (`shaping:`) is an empty mapping. */
static int read_map(struct scn_yaml_ctx *c, yaml_node_t *n, const struct section *sec)
{
	struct map_read m = {.node = n, .sec = sec};
	yaml_node_pair_t *p;
	char w[160];
	size_t i;
	int r = 0;

	assert(sec->n <= SCN_YAML_FIELDS_MAX);
	if (n->type == YAML_MAPPING_NODE)
		for (p = n->data.mapping.pairs.start; !r && p < n->data.mapping.pairs.top; p++)
			r = read_pair(c, &m, p);
	else if (!scn_yaml_is_empty(n))
		return scn_yaml_fail_value(c, n, "a mapping", "");
	for (i = 0; !r && i < sec->n; i++)
		if (sec->fields[i].required && !m.val[i])
			r = scn_yaml_fail_at(c, &n->start_mark, "missing required field '%s' %s",
					     sec->fields[i].name, where(c, w, sizeof(w)));
	if (!r && sec->check)
		r = sec->check(c, &m);
	return r;
}

int scn_yaml_read_map(struct scn_yaml_ctx *c, yaml_node_t *n, const struct section *sec)
{
	return read_map(c, n, sec);
}

int scn_yaml_section(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return read_map(c, n, f->arg);
}

/* The value node of field `name` in m, or NULL if the file does not give it. */
static yaml_node_t *given(const struct map_read *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->sec->n; i++)
		if (!strcmp(m->sec->fields[i].name, name))
			return m->val[i];
	return NULL;
}

yaml_node_t *scn_yaml_given(const struct map_read *m, const char *name)
{
	return given(m, name);
}

struct scn_at scn_yaml_at(const struct map_read *m, const char *name)
{
	struct scn_at at = {0, 0};
	size_t i;

	for (i = 0; i < m->sec->n; i++)
		if (m->key[i] && !strcmp(m->sec->fields[i].name, name)) {
			at.line = (uint32_t)m->key[i]->start_mark.line + 1;
			at.col = (uint32_t)m->key[i]->start_mark.column + 1;
		}
	return at;
}

/* workload.generate.sizes: a mapping of GPU counts to weights. */
static int set_sizes(struct scn_yaml_ctx *c, yaml_node_t *n,
		     __attribute__((unused)) const struct scn_yaml_field *f)
{
	const struct scn_yaml_field wf = {.type = scn_yaml_number};
	struct job_size_weight *sw;
	yaml_node_pair_t *p;
	void *base = c->base;
	uint64_t g;
	int r = 0;

	if (n->type != YAML_MAPPING_NODE || !n->data.mapping.pairs.top ||
	    n->data.mapping.pairs.start == n->data.mapping.pairs.top)
		return scn_yaml_fail_value(c, n, "a mapping of GPU counts to weights", "");
	for (p = n->data.mapping.pairs.start; !r && p < n->data.mapping.pairs.top; p++) {
		r = scn_yaml_read_uint(c, node(c, p->key), 1, HOSTS_MAX, &g);
		sw = r ? NULL : vec_grow(&c->e->w.gen.sizes);
		if (!r && !sw)
			r = diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
		if (r)
			break;
		sw->gpus = (uint32_t)g;
		c->base = &sw->weight;
		r = wf.type(c, node(c, p->value), &wf);
		c->base = base;
	}
	return r;
}

/* "expected a catalogue model (one of: bloom, gpt3, ...), found 'x'" */
static int unknown_model(struct scn_yaml_ctx *c, const yaml_node_t *n)
{
	char what[640];
	size_t i, o;

	o = (size_t)snprintf(what, sizeof(what), "a catalogue model (one of: ");
	for (i = 0; i < job_models_n && o < sizeof(what); i++)
		o += (size_t)snprintf(what + o, sizeof(what) - o, "%s%s", i ? ", " : "",
				      job_models[i].name);
	if (o < sizeof(what))
		snprintf(what + o, sizeof(what) - o, ")");
	return scn_yaml_fail_value(c, n, what, "");
}

/* workload.generate.models: a sequence of catalogue names. */
static int set_models(struct scn_yaml_ctx *c, yaml_node_t *n,
		      __attribute__((unused)) const struct scn_yaml_field *f)
{
	yaml_node_item_t *it;
	const char *v;
	char *copy;

	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return scn_yaml_fail_value(c, n, "a list of model names", "");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		v = scn_yaml_text(node(c, *it));
		if (!v || !job_model_find(v))
			return unknown_model(c, node(c, *it));
		copy = strdup(v);
		if (!copy || vec_push(&c->e->w.gen.models, copy)) {
			free(copy);
			return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
		}
	}
	return 0;
}

static const struct section job_sec;

/* One entry of workload.jobs, read into a new struct exp_job. */
static int read_job(struct scn_yaml_ctx *c, yaml_node_t *n, size_t i)
{
	struct exp_job *j = vec_grow(&c->e->w.jobs);
	size_t old = strlen(c->path);
	void *base = c->base;
	int r;

	if (!j)
		return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
	j->kind = -1;
	j->algo = -1;
	j->md.sched = j->md.intra = j->md.sw = -1;
	j->bytes_per_param = 4;
	j->line = (uint32_t)n->start_mark.line + 1;
	j->col = (uint32_t)n->start_mark.column + 1;
	snprintf(c->path + old, sizeof(c->path) - old, "[%zu]", i);
	c->base = j;
	r = read_map(c, n, &job_sec);
	c->base = base;
	c->path[old] = '\0';
	return r;
}

static int set_jobs(struct scn_yaml_ctx *c, yaml_node_t *n,
		    __attribute__((unused)) const struct scn_yaml_field *f)
{
	yaml_node_item_t *it;
	int r = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return scn_yaml_fail_value(c, n, "a list of jobs", "");
	for (it = n->data.sequence.items.start; !r && it < n->data.sequence.items.top; it++)
		r = read_job(c, node(c, *it), (size_t)(it - n->data.sequence.items.start));
	return r;
}

/* ---- the schema: one table per section, one line per field ---- */

/* the table macros (FIELD, UINT, ...) are in scenario_yaml_types.h */
#define BASE struct experiment

/* scn_yaml_enum stores an int */
_Static_assert(sizeof(enum scn_gen) == sizeof(int) && sizeof(enum scn_qdisc) == sizeof(int) &&
		       sizeof(enum scn_policy) == sizeof(int) &&
		       sizeof(enum scn_cc) == sizeof(int) &&
		       sizeof(enum coll_kind) == sizeof(int) &&
		       sizeof(enum coll_algo) == sizeof(int) &&
		       sizeof(enum sched_queue) == sizeof(int) &&
		       sizeof(enum sched_place) == sizeof(int) &&
		       sizeof(enum scn_greedy_order) == sizeof(int),
	       "enums are int-sized");

static const struct keyword qdisc_names[] = {
	{"tbf", SCN_QDISC_TBF},
	{"htb", SCN_QDISC_HTB},
	{"none", SCN_QDISC_NONE},
	{NULL, 0},
};

static const struct keyword greedy_order_names[] = {
	{"busiest-tor", SCN_GREEDY_BUSIEST_TOR},
	{"input", SCN_GREEDY_INPUT},
	{NULL, 0},
};

static const struct keyword trigger_names[] = {
	{"job", SCN_TRIGGER_JOB},
	{"phase", SCN_TRIGGER_PHASE},
	{NULL, 0},
};

static const struct keyword enforce_names[] = {
	{"tag", SCN_ENFORCE_TAG},
	{"sport", SCN_ENFORCE_SPORT},
	{NULL, 0},
};

static const struct scn_yaml_field shaping_fields[] = {
	ENUM("qdisc", s.shaping.qdisc, enum scn_qdisc, false, qdisc_names),
	FIELD("burst", scn_yaml_size_auto, s.shaping.burst_bytes, uint64_t, false),
	FIELD("queue", scn_yaml_size_auto, s.shaping.queue_bytes, uint64_t, false),
	FIELD("ack_priority", scn_yaml_bool, s.shaping.ack_priority, bool, false),
	UINT("mtu", s.shaping.mtu, false, 68, 65535), /* veth's range */
};

/* A bucket or a queue smaller than one frame passes nothing: tbf drops every full frame. */
static int shaping_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	static const char *const names[] = {"burst", "queue"};
	struct scn_shaping *sh = &c->e->s.shaping;
	const uint64_t v[] = {sh->burst_bytes, sh->queue_bytes};
	yaml_node_t *n;
	size_t i;

	sh->qdisc_at = scn_yaml_at(m, "qdisc");
	sh->ack_at = scn_yaml_at(m, "ack_priority");
	for (i = 0; i < 2; i++)
		if (v[i] && v[i] < shape_frame(sh) && (n = given(m, names[i])))
			return scn_yaml_fail_at(
				c, &n->start_mark,
				"shaping.%s: expected at least one frame (%u bytes at "
				"mtu %u), found %llu bytes",
				names[i], shape_frame(sh), sh->mtu, (unsigned long long)v[i]);
	return 0;
}

static const struct scn_yaml_field routing_fields[] = {
	ENUM("policy", s.routing.policy, enum scn_policy, false, scn_policy_names),
	UINT("seed", s.routing.seed, false, 0, UINT32_MAX),
	FIELD("seeds", set_seeds, s.routing.seeds, __typeof__(((BASE *)0)->s.routing.seeds), false),
	FIELD("spray", scn_yaml_bool, s.routing.spray, bool, false),
	ENUM("order", s.routing.order, enum scn_greedy_order, false, greedy_order_names),
	FIELD("optimal_limit", scn_yaml_u64, s.routing.optimal_limit, uint64_t, false),
	ENUM("enforce", s.routing.enforce, enum scn_enforce, false, enforce_names),
	ENUM("trigger", s.routing.trigger, enum scn_trigger, false, trigger_names),
};

/* A source port picks a path only where the switches hash per flow: spraying hashes none. */
static int routing_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	struct scn_routing *rt = &c->e->s.routing;
	yaml_node_t *n = given(m, "policy");

	rt->spray_at = scn_yaml_at(m, "spray");
	if (n) {
		rt->line = (uint32_t)n->start_mark.line + 1;
		rt->col = (uint32_t)n->start_mark.column + 1;
	}
	n = given(m, "enforce");
	if (rt->enforce == SCN_ENFORCE_SPORT && rt->spray && n)
		return scn_yaml_fail_at(c, &n->start_mark,
					"routing.enforce: sport pins a path through the switches' "
					"per-flow hash, which routing.spray: true turns off; use "
					"enforce: tag, or spray: false");
	return 0;
}

static const struct scn_yaml_field addressing_fields[] = {
	FIELD("prefix", scn_yaml_prefix, s.addressing, struct scn_addressing, false),
};

static const struct scn_yaml_field transport_fields[] = {
	ENUM("cc", s.transport.cc, enum scn_cc, false, scn_cc_names),
	FIELD("window", scn_yaml_size, s.transport.window_bytes, uint64_t, false),
};

/* tcp_rmem's least buffer is one page */
static int transport_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	yaml_node_t *w = given(m, "window");

	if (w && c->e->s.transport.window_bytes < 4096)
		return scn_yaml_fail_at(
			c, &w->start_mark,
			"transport.window: expected at least 4KiB, found %llu bytes",
			(unsigned long long)c->e->s.transport.window_bytes);
	return 0;
}

static const struct scn_yaml_field emulation_fields[] = {
	FIELD("rate_scale", scn_yaml_scale_auto, s.emulation.rate_scale, double, false),
	FIELD("size_scale", scn_yaml_scale, s.emulation.size_scale, double, false),
	FIELD("rto_min", scn_yaml_rto, s.emulation.rto_min, struct scn_rto, false),
};

static const struct keyword algo_names[] = {
	{"ring", COLL_RING},
	{"hd", COLL_HD},
	{"pairwise", COLL_PAIRWISE},
	{"hier-ring", COLL_HIER_RING},
	{"shard-rings", COLL_SHARD_RINGS},
	{"direct", COLL_DIRECT},
	{"tacos", COLL_TACOS},
	{"hx-rings", COLL_HX_RINGS},
	{"torus2d", COLL_TORUS2D},
	{"msccl", COLL_MSCCL},
	{NULL, 0},
};

/* workload.generate.algorithms: a non-empty list of algorithm names. */
static int set_algos(struct scn_yaml_ctx *c, yaml_node_t *n,
		     __attribute__((unused)) const struct scn_yaml_field *f)
{
	const struct keyword *kw;
	yaml_node_item_t *it;
	const char *v;

	if (n->type != YAML_SEQUENCE_NODE ||
	    n->data.sequence.items.start == n->data.sequence.items.top)
		return scn_yaml_fail_value(c, n, "a list of algorithm names", "");
	for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
		v = scn_yaml_text(node(c, *it));
		for (kw = algo_names; v && kw->name && strcmp(v, kw->name); kw++)
			;
		if (!v || !kw->name)
			return scn_yaml_fail_value(c, node(c, *it),
						   "ring, hd, pairwise, hier-ring, shard-rings, "
						   "direct, tacos, hx-rings, torus2d or msccl",
						   "");
		if (vec_push(&c->e->w.gen.algos, (enum coll_algo)kw->value))
			return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
	}
	return 0;
}

static const struct keyword queue_names[] = {
	{"fifo", SCHED_FIFO},
	{"backfill", SCHED_BACKFILL},
	{"smallest-first", SCHED_SMALLEST_FIRST},
	{"edf", SCHED_EDF},
	{NULL, 0},
};

static const struct keyword place_names[] = {
	{"first-fit", SCHED_FIRST_FIT},
	{"random", SCHED_RANDOM},
	{"vclos", SCHED_VCLOS},
	{"ocs-vclos", SCHED_OCS_VCLOS},
	{"locality", SCHED_LOCALITY},
	{"server-first-fit", SCHED_SERVER_FIRST_FIT},
	{NULL, 0},
};

static const struct keyword share_names[] = {
	{"max-min", EXP_SHARE_MAXMIN},
	{"equal-split", EXP_SHARE_EQUAL},
	{"equal-split-since-start", EXP_SHARE_EQUAL_SINCE_START},
	{NULL, 0},
};

static const struct keyword md_sched_names[] = {
	{"baseline", COLL_MD_BASELINE},
	{"themis", COLL_MD_THEMIS},
	{NULL, 0},
};

static const struct keyword md_intra_names[] = {
	{"fifo", COLL_MD_FIFO},
	{"scf", COLL_MD_SCF},
	{NULL, 0},
};

static const struct keyword md_switch_names[] = {
	{"direct", COLL_MD_DIRECT},
	{"hd", COLL_MD_HD},
	{NULL, 0},
};

static const struct keyword order_names[] = {
	{"leaf-major", EXP_RANK_LEAF_MAJOR},
	{"placement", EXP_RANK_PLACEMENT},
	{NULL, 0},
};

/* The chunked multi-dimensional collective's options, in workload and in a job (Themis §4). */
#define MD_FIELDS(m)                                                                          \
	ENUM("schedule", m.sched, int32_t, false, md_sched_names),                            \
		ENUM("intra", m.intra, int32_t, false, md_intra_names),                       \
		ENUM("switch", m.sw, int32_t, false, md_switch_names),                        \
		UINT("chunks", m.chunks, false, 1, 4096),                                     \
		FIELD("active_chunks", set_md_active, m.active, struct exp_md_active, false), \
		UINT("threshold", m.thr_div, false, 1, 1048576)

/* active_chunks: one integer for every dimension, or a list of one per dimension (Themis §4.3,
 * ASTRA-sim's active-chunks-per-dimension), each 1..255. */
static int set_md_active(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	struct exp_md_active *a = scn_yaml_field_ptr(c, f);
	yaml_node_item_t *it, *first;
	uint64_t x;
	size_t k;
	int r = 0;

	a->line = (uint32_t)n->start_mark.line + 1;
	a->col = (uint32_t)n->start_mark.column + 1;
	if (n->type == YAML_SCALAR_NODE) {
		r = scn_yaml_read_uint(c, n, 1, 255, &x);
		a->v[0] = (uint32_t)x;
		a->n = 1;
		return r;
	}
	first = n->type == YAML_SEQUENCE_NODE ? n->data.sequence.items.start : NULL;
	k = first ? (size_t)(n->data.sequence.items.top - first) : 0;
	if (!k || k > COLL_MD_DIMS)
		return scn_yaml_fail_value(c, n, "an integer or a list of 1 to 4 integers", "");
	for (it = first; !r && it < n->data.sequence.items.top; it++) {
		r = scn_yaml_read_uint(c, yaml_document_get_node(c->doc, *it), 1, 255, &x);
		a->v[it - first] = (uint32_t)x;
	}
	a->n = (uint32_t)k;
	return r;
}

/* Where key is given in m (line and column from 1), for a message a later check or the run
 * gives about it; 0:0 when it is not. */
static void key_at(const struct map_read *m, const char *key, uint32_t *line, uint32_t *col)
{
	const yaml_node_t *n = given(m, key);

	*line = n ? (uint32_t)n->start_mark.line + 1 : 0;
	*col = n ? (uint32_t)n->start_mark.column + 1 : 0;
}

/* Where mapping m gives `schedule`, else where m is, and where it gives `switch`, into md. */
static void md_where(const struct map_read *m, struct exp_md *md)
{
	const yaml_node_t *n = given(m, "schedule");

	n = n ? n : m->node;
	md->line = (uint32_t)n->start_mark.line + 1;
	md->col = (uint32_t)n->start_mark.column + 1;
	key_at(m, "switch", &md->sw_line, &md->sw_col);
}

static const struct scn_yaml_field generate_fields[] = {
	UINT("count", w.gen.count, true, 1, 1000000),
	FIELD("mean_interarrival", scn_yaml_time, w.gen.mean_interarrival_ns, uint64_t, true),
	FIELD("seed", scn_yaml_u64, w.gen.seed, uint64_t, false),
	FIELD("sizes", set_sizes, w.gen.sizes, __typeof__(((BASE *)0)->w.gen.sizes), true),
	FIELD("models", set_models, w.gen.models, __typeof__(((BASE *)0)->w.gen.models), true),
	ENUM("algorithm", w.gen.algo, enum coll_algo, false, algo_names),
	FIELD("algorithms", set_algos, w.gen.algos, __typeof__(((BASE *)0)->w.gen.algos), false),
	UINT("iterations", w.gen.iterations, false, 1, 1000000),
	FIELD("duration_mean", scn_yaml_time, w.gen.dur_mean_ns, uint64_t, false),
	FIELD("duration_min", scn_yaml_time, w.gen.dur_min_ns, uint64_t, false),
	FIELD("duration_max", scn_yaml_time, w.gen.dur_max_ns, uint64_t, false),
	FIELD("deadline_slack", scn_yaml_number, w.gen.deadline_slack, double, false),
};

static const struct scn_yaml_field scheduler_fields[] = {
	ENUM("queue", sched.queue, enum sched_queue, false, queue_names),
	ENUM("placement", sched.place, enum sched_place, false, place_names),
	FIELD("seed", scn_yaml_u64, sched.seed, uint64_t, false),
};

static const struct scn_yaml_field run_fields[] = {
	{.name = "results", .type = scn_yaml_word, .off = AT(run.results, char[256]), .max = 255},
	FIELD("progress_timeout", scn_yaml_time_auto, run.progress_ns, uint64_t, false),
	FIELD("capacity", scn_yaml_rate, run.capacity_bps, uint64_t, false),
	FIELD("sample_interval", scn_yaml_time, run.sample_ns, uint64_t, false),
	FIELD("max_wall", scn_yaml_time, run.max_wall_ns, uint64_t, false),
	FIELD("sim_quantum", scn_yaml_time, run.sim_quantum_ns, uint64_t, false),
	ENUM("sim_share", run.sim_share, enum exp_share, false, share_names),
	FIELD("strict", scn_yaml_bool, run.strict, bool, false),
};

static int generate_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	c->e->w.generate = true;
	c->e->w.gen_algo_given = given(m, "algorithm") != NULL;
	return 0;
}

static const struct section generate_sec = TABLE(generate_fields, generate_check);
static const struct scn_yaml_field tacos_fields[] = {
	UINT("chunks", w.tacos.k, false, 1, 64),
	UINT("runs", w.tacos.runs, false, 1, 10000),
	FIELD("seed", scn_yaml_u64, w.tacos.seed, uint64_t, false),
	FIELD("alpha", scn_yaml_time, w.tacos.alpha_ns, uint64_t, false),
};

static const struct section tacos_sec = TABLE(tacos_fields, NULL);

static int set_msccl_file(struct scn_yaml_ctx *c, yaml_node_t *n,
			  __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_workload *w = &c->e->w;
	int r = scn_yaml_path_to(c, n, &w->msccl[0]);

	w->msccl_n = !r;
	return r;
}

/* workload.msccl.files: algorithms to choose from per job, in order, as MSCCL's executor does. */
static int set_msccl_files(struct scn_yaml_ctx *c, yaml_node_t *n,
			   __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_workload *w = &c->e->w;
	yaml_node_item_t *it;
	size_t k;
	int r = 0;

	k = scn_yaml_seq_n(n);
	if (!k || k > EXP_MSCCL_MAX)
		return scn_yaml_fail_value(c, n, "a list of 1 to 32 algorithm XML files", "");
	for (it = n->data.sequence.items.start; !r && it < n->data.sequence.items.top; it++) {
		r = scn_yaml_path_to(c, yaml_document_get_node(c->doc, *it), &w->msccl[w->msccl_n]);
		w->msccl_n += !r;
	}
	return r;
}

static const struct scn_yaml_field msccl_fields[] = {
	{.name = "file", .type = set_msccl_file},
	{.name = "files", .type = set_msccl_files},
};

/* One of file and files, where named: reading or parsing one fails there (jobs_fit.c). */
static int msccl_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	const char *k = given(m, "files") ? "files" : "file";

	if (given(m, "file") && given(m, "files"))
		return scn_yaml_fail_value(c, given(m, "files"),
					   "file or files, not both (file is a list of one)", "");
	if (!given(m, k))
		return scn_yaml_fail_value(c, m->node, "file: FILE or files: [FILE, ...]", "");
	key_at(m, k, &c->e->w.msccl_line, &c->e->w.msccl_col);
	c->e->w.msccl_files = given(m, "files") != NULL;
	return 0;
}

static const struct section msccl_sec = TABLE(msccl_fields, msccl_check);

/* A prefix of Chakra traces (workload.chakra, workload.jobs[i].chakra) kept as
 * w.chakra_job's next: its 1-based index, or 0 with the error set. */
static uint32_t add_chakra(struct scn_yaml_ctx *c, yaml_node_t *n)
{
	struct exp_workload *w = &c->e->w;

	if (w->chakra_job_n == EXP_CHAKRA_JOBS_MAX) {
		scn_yaml_fail_value(c, n, "a trace prefix", ": more than 256 Chakra jobs");
		return 0;
	}
	if (scn_yaml_path_to(c, n, &w->chakra_job[w->chakra_job_n]))
		return 0;
	return ++w->chakra_job_n;
}

/* workload.chakra: PREFIX, a workload of one job, the trace's, arriving at 0. */
static int set_workload_chakra(struct scn_yaml_ctx *c, yaml_node_t *n,
			       __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_job *j;
	uint32_t k = add_chakra(c, n);

	if (!k)
		return -EINVAL;
	j = vec_grow(&c->e->w.jobs);
	if (!j)
		return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
	j->kind = j->algo = -1;
	j->md.sched = j->md.intra = j->md.sw = -1;
	j->bytes_per_param = 4;
	j->line = (uint32_t)n->start_mark.line + 1;
	j->col = (uint32_t)n->start_mark.column + 1;
	j->chakra = k;
	return 0;
}

static const struct scn_yaml_field workload_fields[] = {
	FIELD("jobs", set_jobs, w.jobs, __typeof__(((BASE *)0)->w.jobs), false),
	{.name = "chakra", .type = set_workload_chakra},
	FIELD("chakra_flops", scn_yaml_number, w.chakra_flops, double, false),
	SECTION("generate", generate_sec, false),
	SECTION("trace", scn_yaml_trace_sec, false), /* scenario_yaml_trace.c */
	ENUM("algorithm", w.algo, enum coll_algo, false, algo_names),
	UINT("iterations", w.iterations, false, 1, 1000000),
	FIELD("verify", scn_yaml_bool, w.verify, bool, false),
	ENUM("rank_order", w.rank_order, int32_t, false, order_names),
	MD_FIELDS(w.md),
	UINT("channels", w.channels, false, 1, COLL_CHANNELS_MAX),
	SECTION("tacos", tacos_sec, false),
	SECTION("msccl", msccl_sec, false),
};

static int workload_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	struct exp_workload *w = &c->e->w;

	md_where(m, &w->md);
	key_at(m, "channels", &w->chan_line, &w->chan_col); /* top_check's look with routing */
	key_at(m, "verify", &w->verify_line, &w->verify_col); /* `testbed sim` refuses it */
	if (given(m, "chakra") && (given(m, "jobs") || w->generate || w->trace))
		return scn_yaml_fail_at(c, &given(m, "chakra")->start_mark,
					"%s.chakra: the trace of a one-job workload, but the "
					"workload also has jobs, generate or trace (a job names "
					"its own trace as jobs[i].chakra)",
					c->path);
	if (!w->jobs.n && !w->generate && !w->trace)
		return scn_yaml_fail_at(c, &m->node->start_mark,
					"'workload' needs jobs, generate, trace or chakra");
	if (w->generate && !w->gen.iterations)
		w->gen.iterations = w->iterations;
	if (w->generate && !w->gen_algo_given)
		w->gen.algo = w->algo;
	return 0;
}

#undef BASE
#define BASE struct exp_job

/* workload.jobs[i].msccl: the job's own algorithm XML, which it runs with algorithm msccl. */
static int set_job_msccl(struct scn_yaml_ctx *c, yaml_node_t *n,
			 __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_workload *w = &c->e->w;
	struct exp_job *j = c->base;
	int r;

	if (w->msccl_job_n == EXP_MSCCL_JOBS_MAX)
		return scn_yaml_fail_value(c, n, "a file path",
					   ": more than 256 jobs with their own algorithm");
	r = scn_yaml_path_to(c, n, &w->msccl_job[w->msccl_job_n]);
	if (!r)
		j->msccl = ++w->msccl_job_n;
	return r;
}

/* workload.jobs[i].chakra: the job is a Chakra trace's, PREFIX.<rank>.et. */
static int set_job_chakra(struct scn_yaml_ctx *c, yaml_node_t *n,
			  __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_job *j = c->base;

	j->chakra = add_chakra(c, n);
	return j->chakra ? 0 : -EINVAL;
}

static const struct scn_yaml_field job_fields[] = {
	{.name = "model",
	 .type = scn_yaml_word,
	 .off = AT(model, char[JOB_NAME_MAX]),
	 .max = JOB_NAME_MAX - 1},
	UINT("gpus", gpus, false, 1, HOSTS_MAX),
	ENUM("collective", kind, int32_t, false, coll_kind_names),
	ENUM("algorithm", algo, int32_t, false, algo_names),
	UINT("group", group, false, 1, HOSTS_MAX),
	UINT("iterations", iterations, false, 1, 1000000),
	FIELD("arrival", scn_yaml_time, arrival_ns, uint64_t, false),
	FIELD("deadline", scn_yaml_time, deadline_ns, uint64_t, false),
	FIELD("params", scn_yaml_number, params, double, false),
	UINT("bytes_per_param", bytes_per_param, false, 1, 16),
	FIELD("bytes", scn_yaml_size, bytes, uint64_t, false),
	FIELD("compute", scn_yaml_time, compute_ns, uint64_t, false),
	FIELD("comm_fraction", scn_yaml_fraction, comm_fraction, double, false),
	MD_FIELDS(md),
	UINT("channels", channels, false, 1, COLL_CHANNELS_MAX),
	{.name = "msccl", .type = set_job_msccl},
	{.name = "chakra", .type = set_job_chakra},
};

#undef BASE
#define BASE struct experiment

/* A job's algorithm that cannot build its collective, at the algorithm's place, with the
 * ones a scenario can name that can. */
static int bad_algo(struct scn_yaml_ctx *c, yaml_node_t *at, enum coll_algo a, enum coll_kind k)
{
	const struct keyword *kw;
	char can[128];
	size_t o = 0;

	can[0] = '\0';
	for (kw = algo_names; kw->name && o < sizeof(can); kw++)
		if (coll_algo_builds((enum coll_algo)kw->value, k))
			o += (size_t)snprintf(can + o, sizeof(can) - o, "%s%s", o ? ", " : "",
					      kw->name);
	return scn_yaml_fail_at(c, &at->start_mark, "%s.algorithm: %s does not build %s (%s do)",
				c->path, coll_algo_name(a), coll_kind_name(k), can);
}

/* A Chakra trace's job: the trace gives its operations (so no model, size, compute,
 * collective or iterations), and its collectives run with an algorithm the project builds
 * from parameters (not tacos or msccl, whose schedules come from elsewhere). */
static int chakra_job_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	static const char *const not [] = {"model",	      "collective", "params",
					   "bytes_per_param", "bytes",	    "compute",
					   "comm_fraction",   "iterations", "msccl"};
	struct exp_job *j = c->base;
	size_t i;

	for (i = 0; i < sizeof(not ) / sizeof(not [0]); i++)
		if (given(m, not [i]))
			return scn_yaml_fail_at(c, &given(m, not [i])->start_mark,
						"%s.%s: a Chakra job's trace gives its operations; "
						"drop %s or chakra",
						c->path, not [i], not [i]);
	if (j->algo == COLL_TACOS || j->algo == COLL_MSCCL)
		return scn_yaml_fail_at(c, &given(m, "algorithm")->start_mark,
					"%s.algorithm: %s, but a Chakra job's collectives run with "
					"an algorithm built from their parameters (ring, hd, "
					"pairwise, hier-ring, direct, ...)",
					c->path, coll_algo_name((enum coll_algo)j->algo));
	return 0;
}

/* A catalogue model, or a custom one that says its size and its compute, and an algorithm
 * that builds its collective. */
static int job_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	struct exp_job *j = c->base;
	char w[160];
	size_t old;
	int r;

	md_where(m, &j->md);
	key_at(m, "channels", &j->chan_line, &j->chan_col);
	if (j->chakra)
		return chakra_job_check(c, m);
	if (!j->gpus)
		return scn_yaml_fail_at(c, &m->node->start_mark, "missing required field 'gpus' %s",
					where(c, w, sizeof(w)));
	if (j->model[0] && !job_model_find(j->model)) {
		old = scn_yaml_path_push(c, "model");
		r = unknown_model(c, given(m, "model"));
		c->path[old] = '\0';
		return r;
	}
	if (j->msccl && j->algo >= 0 && j->algo != COLL_MSCCL)
		return scn_yaml_fail_at(
			c, &given(m, "algorithm")->start_mark,
			"%s.algorithm: %s, but the job names its own MSCCL algorithm "
			"(msccl), which runs with algorithm msccl",
			c->path, coll_algo_name((enum coll_algo)j->algo));
	if (j->msccl)
		j->algo = COLL_MSCCL;
	if (j->kind >= 0 && j->algo >= 0 &&
	    !coll_algo_builds((enum coll_algo)j->algo, (enum coll_kind)j->kind))
		return bad_algo(c, given(m, "algorithm"), (enum coll_algo)j->algo,
				(enum coll_kind)j->kind);
	if (!j->model[0] && !j->params && !j->bytes)
		return scn_yaml_fail_at(c, &m->node->start_mark,
					"%s: a job without 'model' needs 'params' or 'bytes'",
					c->path);
	if (!j->model[0] && !j->compute_ns && !j->comm_fraction)
		return scn_yaml_fail_at(
			c, &m->node->start_mark,
			"%s: a job without 'model' needs 'compute' or 'comm_fraction'", c->path);
	return 0;
}

static const struct section job_sec = TABLE(job_fields, job_check);
static const struct section workload_sec = TABLE(workload_fields, workload_check);
/* Where placement is given, for top_check's look at it with the topology. */
static int scheduler_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	yaml_node_t *n = given(m, "placement"), *q = given(m, "queue");

	if (n) {
		c->e->sched.line = (uint32_t)n->start_mark.line + 1;
		c->e->sched.col = (uint32_t)n->start_mark.column + 1;
	}
	if (q) {
		c->e->sched.qline = (uint32_t)q->start_mark.line + 1;
		c->e->sched.qcol = (uint32_t)q->start_mark.column + 1;
	}
	return 0;
}

static const struct section scheduler_sec = TABLE(scheduler_fields, scheduler_check);
/* Root writes the results: a scenario keeps them under the working directory (the command
 * line's --results may put them anywhere). */
static int run_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	const yaml_node_t *n = given(m, "results");
	const char *p = c->e->run.results;
	size_t k;

	c->e->run.sample_given = given(m, "sample_interval") != NULL;
	if (!n)
		return 0;
	if (p[0] == '/')
		return scn_yaml_fail_at(c, &n->start_mark,
					"run.results: expected a path relative to the working "
					"directory, found '%s' (the command line's --results DIR "
					"takes any)",
					p);
	for (k = 0; p[k]; k += strcspn(p + k, "/"), k += p[k] == '/')
		if (!strncmp(p + k, "..", 2) && (p[k + 2] == '/' || !p[k + 2]))
			return scn_yaml_fail_at(
				c, &n->start_mark,
				"run.results: '..' may not appear in the path, found "
				"'%s' (the command line's --results DIR takes any)",
				p);
	return 0;
}

static const struct section run_sec = TABLE(run_fields, run_check);

static const struct section shaping_sec = TABLE(shaping_fields, shaping_check);
static const struct section routing_sec = TABLE(routing_fields, routing_check);
static const struct section addressing_sec = TABLE(addressing_fields, NULL);
static const struct section transport_sec = TABLE(transport_fields, transport_check);
static const struct section emulation_sec = TABLE(emulation_fields, NULL);

static void name_from_file(char *out, const char *file);

/* vClos §6 builds virtual Clos networks out of a two-tier leaf-spine's single links;
 * OCS-vClos (§7) out of the circuits of its OCS layer, routed over them by source routing. */
static const char *vclos_needs(const struct experiment *e)
{
	const struct scn_topology *t = &e->s.topology;
	bool ocs = e->sched.place == SCHED_OCS_VCLOS;

	if (t->gen != SCN_GEN_LEAFSPINE)
		return "a leaf-spine topology (topology.kind: leafspine)";
	if (t->ls.links_per_pair != 1 && e->sched.place != SCHED_LOCALITY)
		return "one link between each leaf and each spine (topology.links_per_pair: 1)";
	if (!ocs && t->ls.ocs.count && e->sched.place == SCHED_VCLOS)
		return "leaves and spines cabled directly, not through topology.ocs (use "
		       "placement: ocs-vclos)";
	if (ocs && !t->ls.ocs.count)
		return "an OCS layer between the leaves and the spines (topology.ocs.count, one "
		       "OCS per leaf uplink)";
	for (size_t i = 0; ocs && i < e->failures.v.n; i++)
		if (e->failures.v.v[i].kind == EXP_EVENT_REWIRE)
			return "no rewires under `failures:` (its placements own the circuits)";
	if (ocs && e->s.routing.policy != SCN_POLICY_SOURCE)
		return "routing.policy: source (each job's traffic goes over the circuits it "
		       "was given)";
	return NULL;
}

static int vclos_check(struct scn_yaml_ctx *c)
{
	yaml_mark_t at = {.line = c->e->sched.line ? c->e->sched.line - 1 : 0,
			  .column = c->e->sched.col ? c->e->sched.col - 1 : 0};
	const char *why;

	enum sched_place p = c->e->sched.place;

	if (p != SCHED_VCLOS && p != SCHED_OCS_VCLOS && p != SCHED_LOCALITY)
		return 0;
	why = vclos_needs(c->e);
	if (!why)
		return 0;
	return scn_yaml_fail_at(c, &at, "scheduler.placement: %s needs %s",
				p == SCHED_VCLOS      ? "vclos"
				: p == SCHED_LOCALITY ? "locality"
						      : "ocs-vclos",
				why);
}

/* More than one connection per pair (channels) spreads a pair over the paths per-flow ECMP
 * hashes its connections to; a routing policy decides one path per pair instead. */
static int chan_level_check(struct scn_yaml_ctx *c, uint32_t channels, uint32_t line, uint32_t col,
			    const char *where)
{
	yaml_mark_t at = {.line = line ? line - 1 : 0, .column = col ? col - 1 : 0};
	const struct keyword *kw;

	if (channels <= 1 || c->e->s.routing.policy == SCN_POLICY_ECMP)
		return 0;
	for (kw = scn_policy_names; kw->name && kw->value != (int)c->e->s.routing.policy; kw++)
		;
	return scn_yaml_fail_at(c, &at,
				"%s.channels: %u connections per pair spread a pair over the paths "
				"per-flow ECMP hashes them to, but routing.policy: %s pins one "
				"path per pair; use channels: 1, or routing.policy: ecmp",
				where, channels, kw->name ? kw->name : "?");
}

static int chan_check(struct scn_yaml_ctx *c)
{
	const struct exp_workload *w = &c->e->w;
	char where[64];
	size_t i;
	int r;

	r = chan_level_check(c, w->channels, w->chan_line, w->chan_col, "workload");
	for (i = 0; !r && i < w->jobs.n; i++) {
		const struct exp_job *j = &w->jobs.v[i];

		snprintf(where, sizeof(where), "workload.jobs[%zu]", i);
		r = chan_level_check(c, j->channels, j->chan_line, j->chan_col, where);
	}
	return r;
}

/* `switch: hd`: halving-doubling pairs the members of a switch dimension by their bits. */
static int md_hd_check(struct scn_yaml_ctx *c, const struct exp_md *md, const char *where)
{
	const struct gen_multidim_params *t = &c->e->s.topology.md;
	yaml_mark_t at = {.line = md->sw_line - 1, .column = md->sw_col - 1};
	uint32_t k, n;

	for (k = 0; k < t->ndims; k++) {
		n = t->dim[k].size;
		if (t->dim[k].type == GEN_DIM_SWITCH && (n & (n - 1)))
			return scn_yaml_fail_at(
				c, &at,
				"%s.switch: halving-doubling needs a power-of-two "
				"number of nodes per switch, and dimension %u has "
				"%u; give `switch: direct` (any size, the same bytes)",
				where, k, n);
	}
	return 0;
}

/* One level's chunked-collective options (where, "workload" or "workload.jobs[0]"): a schedule
 * needs a multidim topology's dimensions (Themis §2.3), and the options need a schedule
 * (sched: the one in force there, -1 for none). */
static int md_level_check(struct scn_yaml_ctx *c, const struct exp_md *md, int32_t sched,
			  const char *where)
{
	yaml_mark_t at = {.line = md->line - 1, .column = md->col - 1};

	if (md->sched >= 0 && c->e->s.topology.gen != SCN_GEN_MULTIDIM)
		return scn_yaml_fail_at(
			c, &at,
			"%s.schedule: the chunked multi-dimensional collective runs "
			"over the dimensions of a multidim topology (Themis §2.3); "
			"this topology has none (give topology.kind: multidim)",
			where);
	if (sched < 0 &&
	    (md->intra >= 0 || md->sw >= 0 || md->chunks || md->active.n || md->thr_div))
		return scn_yaml_fail_at(
			c, &at,
			"%s: intra, switch, chunks, active_chunks and threshold are "
			"options of the chunked multi-dimensional collective; give "
			"`schedule: baseline` or `schedule: themis` to run it",
			where);
	if (md->sw == COLL_MD_HD)
		return md_hd_check(c, md, where);
	if (md->active.n > 1 && md->active.n != c->e->s.topology.md.ndims) {
		at = (yaml_mark_t){.line = md->active.line - 1, .column = md->active.col - 1};
		return scn_yaml_fail_at(c, &at,
					"%s.active_chunks: %u values for the topology's %u "
					"dimensions; give one value for all, or one per dimension",
					where, md->active.n, c->e->s.topology.md.ndims);
	}
	return 0;
}

static int md_check(struct scn_yaml_ctx *c)
{
	const struct exp_workload *w = &c->e->w;
	char where[48];
	size_t i;
	int r = md_level_check(c, &w->md, w->md.sched, "workload");

	for (i = 0; !r && i < w->jobs.n; i++) {
		const struct exp_job *j = &w->jobs.v[i];

		snprintf(where, sizeof(where), "workload.jobs[%zu]", i);
		r = md_level_check(c, &j->md, j->md.sched >= 0 ? j->md.sched : w->md.sched, where);
	}
	return r;
}

static int top_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	int r;

	if (!given(m, "name"))
		name_from_file(c->e->s.name, c->file);
	c->e->sched.gpus_per_server = c->e->s.topology.ls.gpus_per_server;
	r = vclos_check(c);
	r = r ? r : chan_check(c);
	return r ? r : md_check(c);
}

static const struct scn_yaml_field top_fields[] = {
	FIELD("name", scn_yaml_name, s.name, char[SCN_NAME_MAX], false),
	SECTION("topology", scn_yaml_topology_sec, true),
	SECTION("shaping", shaping_sec, false),
	SECTION("routing", routing_sec, false),
	SECTION("addressing", addressing_sec, false),
	SECTION("transport", transport_sec, false),
	SECTION("emulation", emulation_sec, false),
	SECTION("workload", workload_sec, false),
	SECTION("scheduler", scheduler_sec, false),
	SECTION("run", run_sec, false),
	FIELD("sweep", scn_sweep_field, sweep, struct exp_sweep, false), /* scenario_sweep.c */
	FIELD("failures", scn_yaml_failures, failures, struct exp_failures, false),
};

static const struct section top_sec = TABLE(top_fields, top_check);

/* ---- documents ---- */

/* The default name: the file's basename without extension, lower-cased, other characters
 * replaced by '-', at most SCN_YAML_NAME_LEN, no '-' at either end; "scenario" if nothing. */
static void name_from_file(char *out, const char *file)
{
	const char *b = strrchr(file, '/'), *end;
	size_t n = 0;
	char ch;

	b = b ? b + 1 : file;
	end = strrchr(b, '.');
	if (!end || end == b)
		end = b + strlen(b);
	for (; b < end && n < SCN_YAML_NAME_LEN; b++) {
		ch = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
		if (!(ch >= '0' && ch <= '9') && !(ch >= 'a' && ch <= 'z'))
			ch = '-';
		if (ch != '-' || n)
			out[n++] = ch;
	}
	while (n && out[n - 1] == '-')
		n--;
	out[n] = '\0';
	if (!n)
		snprintf(out, SCN_NAME_MAX, "scenario");
}

/* The position of byte `off`, for reader errors (bad UTF-8), which carry no mark. */
static yaml_mark_t mark_of(const struct scn_yaml_ctx *c, size_t off)
{
	yaml_mark_t m = {0, 0, 0};
	size_t i;

	for (i = 0; i < off && i < c->len; i++) {
		if (c->buf[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if ((c->buf[i] & 0xc0) != 0x80) {
			m.column++;
		}
	}
	m.index = off;
	return m;
}

/* Whether a tab stands at mark m: libyaml's message for it does not always say so. */
static bool tab_at(const struct scn_yaml_ctx *c, const yaml_mark_t *m)
{
	size_t i = 0, line = 0, col = 0;

	for (; i < c->len && line < m->line; i++)
		line += c->buf[i] == '\n';
	for (; i < c->len && c->buf[i] != '\n' && col < m->column; i++)
		col += (c->buf[i] & 0xc0) != 0x80;
	while (i < c->len && (c->buf[i] & 0xc0) == 0x80)
		i++;
	return i < c->len && c->buf[i] == '\t';
}

static int syntax_error(struct scn_yaml_ctx *c, const yaml_parser_t *p)
{
	yaml_mark_t m = p->problem_mark;
	const char *problem;
	char ctxt[160] = "";

	if (p->error == YAML_MEMORY_ERROR)
		return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
	if (p->error == YAML_READER_ERROR)
		m = mark_of(c, p->problem_offset);
	if (p->context && (p->context_mark.line != m.line || p->context_mark.column != m.column))
		snprintf(ctxt, sizeof(ctxt), " (%s at %zu:%zu)", p->context,
			 p->context_mark.line + 1, p->context_mark.column + 1);
	else if (p->context)
		snprintf(ctxt, sizeof(ctxt), " (%s)", p->context);
	problem = p->problem ? p->problem : "unknown error";
	return scn_yaml_fail_at(
		c, &m, "YAML syntax: %s%s%s", problem, ctxt,
		tab_at(c, &m) && !strstr(problem, "tab") ? "; indent with spaces, not tabs" : "");
}

/* Loads the one document of the stream into *doc; a second document is an error. */
/* Nesting deeper than any scenario needs is refused as the events arrive: libyaml would
 * otherwise spend quadratic time composing it. A syntax error ends the scan; load reports it. */
static int check_depth(struct scn_yaml_ctx *c)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, r = 0;
	bool more = true;

	if (!yaml_parser_initialize(&p))
		return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
	yaml_parser_set_input_string(&p, (const unsigned char *)c->buf, c->len);
	while (!r && more && yaml_parser_parse(&p, &ev)) {
		if (ev.type == YAML_MAPPING_START_EVENT || ev.type == YAML_SEQUENCE_START_EVENT)
			depth++;
		else if (ev.type == YAML_MAPPING_END_EVENT || ev.type == YAML_SEQUENCE_END_EVENT)
			depth--;
		if (depth > SCN_YAML_DEPTH_MAX)
			r = scn_yaml_fail_at(
				c, &ev.start_mark,
				"nesting deeper than %d levels (no scenario field nests so deep)",
				SCN_YAML_DEPTH_MAX);
		more = ev.type != YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return r;
}

static int load(struct scn_yaml_ctx *c, yaml_parser_t *p, yaml_document_t *doc)
{
	yaml_document_t next;
	yaml_node_t *root;
	int r = 0;

	if (!yaml_parser_load(p, doc))
		return syntax_error(c, p); /* libyaml has freed doc */
	if (!yaml_document_get_root_node(doc))
		return 0;
	if (!yaml_parser_load(p, &next)) {
		r = syntax_error(c, p);
	} else {
		root = yaml_document_get_root_node(&next);
		if (root)
			r = scn_yaml_fail_at(c, &root->start_mark,
					     "expected one YAML document, found a second");
		yaml_document_delete(&next);
	}
	if (r)
		yaml_document_delete(doc);
	return r;
}

static int read_doc(struct scn_yaml_ctx *c, yaml_document_t *doc)
{
	yaml_node_t *root = yaml_document_get_root_node(doc);
	yaml_mark_t start = {0, 0, 0};
	int r;

	if (!root)
		return scn_yaml_fail_at(
			c, &start, "expected a mapping at the top level, found an empty document");
	c->doc = doc;
	r = scn_sweep_apply(c); /* a sweep's variant rewrites nodes, so fetch the root again */
	return r ? r : read_map(c, yaml_document_get_root_node(doc), &top_sec);
}

int exp_parse_buffer(const char *name, const char *buf, size_t len, struct experiment *e,
		     struct diag *d)
{
	return exp_parse_buffer_variant(name, buf, len, NULL, e, d);
}

int exp_parse_buffer_variant(const char *name, const char *buf, size_t len, const uint32_t *choice,
			     struct experiment *e, struct diag *d)
{
	struct scn_yaml_ctx c = {
		.file = name, .buf = buf, .len = len, .e = e, .base = e, .d = d, .choice = choice};
	struct scenario *s = &e->s;
	yaml_document_t doc;
	yaml_parser_t p;
	int r = -ENOMEM;

	exp_init(e);
	s->path = strdup(name);
	if (!s->path || !yaml_parser_initialize(&p)) {
		diag_set(d, r, "%s: out of memory", name);
		goto out;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	r = check_depth(&c);
	r = r ? r : load(&c, &p, &doc);
	if (!r) {
		r = read_doc(&c, &doc);
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&p);
out:
	if (r) {
		exp_done(e);
		exp_init(e);
	}
	return r;
}

int exp_parse_file(const char *path, struct experiment *e, struct diag *d)
{
	return exp_parse_file_variant(path, NULL, e, d);
}

int exp_parse_file_variant(const char *path, const uint32_t *choice, struct experiment *e,
			   struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = input_read(path, SCN_YAML_FILE_MAX, "not a scenario", &buf, &len, d);
	if (r) {
		exp_init(e);
		return r;
	}
	r = exp_parse_buffer_variant(path, buf, len, choice, e, d);
	free(buf);
	return r;
}
