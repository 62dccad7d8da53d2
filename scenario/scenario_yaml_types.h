/* SPDX-License-Identifier: MIT */
/* Inside the scenario parser only: the reading context, field descriptors and field types
 * shared by scenario_yaml.c (mappings, schema) and scenario_yaml_types.c (scalars). */
#ifndef ORCHESTRATOR_SCENARIO_YAML_TYPES_H
#define ORCHESTRATOR_SCENARIO_YAML_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "lib/diag.h"
#include "lib/keyword.h"
#include "scenario/experiment.h"

struct scn_yaml_ctx {
	const char *file; /* name for messages (borrowed) */
	const char *buf; /* the text, for positions of reader errors and the tab hint */
	size_t len;
	yaml_document_t *doc;
	struct experiment *e; /* being filled */
	void *base; /* what field offsets are relative to: e, or a workload job */
	struct diag *d;
	char path[128]; /* dotted path of the node being read, "" at the top level */
	const uint32_t *choice; /* a sweep run's value index per axis, NULL: the first values */
};

struct scn_yaml_field;
struct section;
/* A field's type: reads node n into the scenario at f->off; 0 or -errno with a message. */
typedef int (*scn_yaml_type_fn)(struct scn_yaml_ctx *c, yaml_node_t *n,
				const struct scn_yaml_field *f);

/* One line of a section's table. */
struct scn_yaml_field {
	const char *name;
	scn_yaml_type_fn type;
	size_t off; /* offset of the value in c->base */
	bool required;
	uint32_t min, max; /* integers */
	const void *arg; /* keywords of an enum (NULL-terminated), a section's table */
};

#define SCN_YAML_FIELDS_MAX 32 /* fields in one section */

/* A mapping being read: its node, its table, and each field's key and value nodes (NULL if
 * absent). */
struct map_read {
	yaml_node_t *node;
	const struct section *sec;
	yaml_node_t *key[SCN_YAML_FIELDS_MAX];
	yaml_node_t *val[SCN_YAML_FIELDS_MAX];
};

struct section {
	const struct scn_yaml_field *fields;
	size_t n;
	/* Rules across fields and defaults derived from other fields, once all are read. */
	int (*check)(struct scn_yaml_ctx *c, const struct map_read *m);
};

/* Reads mapping n by sec's table; an empty value (`shaping:`) is an empty mapping. */
int scn_yaml_read_map(struct scn_yaml_ctx *c, yaml_node_t *n, const struct section *sec);
/* Field type of a nested mapping: f->arg is its struct section. */
int scn_yaml_section(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
/* The value node of field `name` in m, or NULL if the file does not give it. */
yaml_node_t *scn_yaml_given(const struct map_read *m, const char *name);

/* Where field `name` of m is given: its key's line and column, 0:0 if it is not. */
struct scn_at scn_yaml_at(const struct map_read *m, const char *name);

/* The topology section (scenario_yaml_topo.c). */
extern const struct section scn_yaml_topology_sec;
/* topology.ocs, and the top-level `failures:` list (scenario_yaml_net.c). */
extern const struct section scn_yaml_ocs_sec;
int scn_yaml_failures(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
/* workload.trace (scenario_yaml_trace.c). */
extern const struct section scn_yaml_trace_sec;

/* clang-format off */
/* offsetof(BASE, m), refused at compile time unless m has type T; BASE is the struct the
 * table below it reads into (struct experiment, or struct exp_job for workload.jobs) */
#define AT(m, T) (offsetof(BASE, m) + 0 * sizeof(char[ \
	__builtin_types_compatible_p(__typeof__(((BASE *)0)->m), T) ? 1 : -1]))
#define FIELD(n, fn, m, T, req) { .name = n, .type = fn, .off = AT(m, T), .required = req }
#define UINT(n, m, req, lo, hi) { .name = n, .type = scn_yaml_u32, .off = AT(m, uint32_t), \
	.required = req, .min = lo, .max = hi }
#define ENUM(n, m, T, req, kw) { .name = n, .type = scn_yaml_enum, .off = AT(m, T), \
	.required = req, .arg = kw }
#define SECTION(n, sec, req) { .name = n, .type = scn_yaml_section, .required = req, \
	.arg = &sec }
#define TABLE(tbl, fn) { .fields = tbl, .n = ARRAY_SIZE(tbl), .check = fn }
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* clang-format on */

/* Sets c->d to "file:line:col: <message>" at mark m; returns -EINVAL. */
int scn_yaml_fail_at(struct scn_yaml_ctx *c, const yaml_mark_t *m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "file:line:col: path: expected <what>, found <n><why>"; returns -EINVAL. */
int scn_yaml_fail_value(struct scn_yaml_ctx *c, const yaml_node_t *n, const char *what,
			const char *why);
/* n for "found ...": a quoted, shortened scalar, "nothing", "a sequence" or "a mapping". */
const char *scn_yaml_found(char *buf, size_t len, const yaml_node_t *n);
/* An empty plain scalar: the value of `key:` with nothing after it. */
bool scn_yaml_is_empty(const yaml_node_t *n);
/* A scalar's text (borrowed from the document), or NULL for collections and embedded NULs. */
const char *scn_yaml_text(const yaml_node_t *n);
/* Appends ".name" to c->path; returns the old length, to cut back to with c->path[old] = 0. */
size_t scn_yaml_path_push(struct scn_yaml_ctx *c, const char *name);
/* A positive decimal number into *out, or -EINVAL with a message. */
int scn_yaml_read_positive(struct scn_yaml_ctx *c, yaml_node_t *n, double *out);
/* A decimal integer in [min, max] into *out, or -EINVAL with a message. */
int scn_yaml_read_uint(struct scn_yaml_ctx *c, yaml_node_t *n, uint64_t min, uint64_t max,
		       uint64_t *out);
/* NULL if v is 1..max characters of [a-z0-9-]; else why not (" (16 characters)", or "" when
 * empty), possibly written into buf. */
const char *scn_yaml_name_why(const char *v, size_t max, char *buf, size_t len);

/* Field types (scn_yaml_type_fn); each documents its syntax in docs/scenario.md. */
int scn_yaml_u32(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_enum(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_rate(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_size_auto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_time(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_scale(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_scale_auto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_name(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_prefix(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_u64(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_bool(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_size(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_time_auto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
/* `auto`, `off` or a time of 1 ms to 120 s, into a struct scn_rto. */
int scn_yaml_rto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_number(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
int scn_yaml_fraction(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
/* A model or file name: 1..f->max characters of [A-Za-z0-9._/-] into char[f->max + 1]. */
int scn_yaml_word(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
/* The same into a malloc'd char * (owned by the experiment). */
int scn_yaml_path(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);
/* The items of a sequence node, 0 for any other node. */
size_t scn_yaml_seq_n(const yaml_node_t *n);
/* The same into *out (freed first, owned). */
int scn_yaml_path_to(struct scn_yaml_ctx *c, yaml_node_t *n, char **out);
/* A pointer to the value of f in c->base. */
void *scn_yaml_field_ptr(struct scn_yaml_ctx *c, const struct scn_yaml_field *f);

#endif
