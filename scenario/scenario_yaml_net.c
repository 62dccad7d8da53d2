// SPDX-License-Identifier: MIT
/* Scenario files, the network's changes: topology.ocs (an OCS layer between leaves and
 * spines, model/ocs.h) and the top-level `failures:` list of timed events (cables and nodes
 * going down and up, OCS reconfigurations). docs/scenario.md describes both. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/ocs.h"
#include "scenario/scenario_yaml_types.h"

#define NODE_NAME_MAX 15 /* a node or port name: IFNAMSIZ - 1 */

static yaml_node_t *node(struct scn_yaml_ctx *c, int id)
{
	return yaml_document_get_node(c->doc, id);
}

/* A node name into out (NODE_NAME_MAX + 1 bytes or more). */
static int read_name(struct scn_yaml_ctx *c, yaml_node_t *n, char *out)
{
	const struct scn_yaml_field f = {.type = scn_yaml_word, .max = NODE_NAME_MAX};
	void *base = c->base;
	int r;

	c->base = out;
	r = scn_yaml_word(c, n, &f);
	c->base = base;
	return r;
}

static size_t seq_len(const yaml_node_t *n)
{
	if (n->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

/* One circuit: [ocs, a, b]. */
static int read_circuit(struct scn_yaml_ctx *c, yaml_node_t *n, struct scn_ocs_circuit *out)
{
	yaml_node_item_t *it;
	char *dst[3] = {out->ocs, out->a, out->b};
	int r = 0, k = 0;

	if (seq_len(n) != 3)
		return scn_yaml_fail_value(c, n, "a circuit [ocs, node, node] such as [o0, l0, s1]",
					   "");
	for (it = n->data.sequence.items.start; !r && it < n->data.sequence.items.top; it++)
		r = read_name(c, node(c, *it), dst[k++]);
	out->line = (uint32_t)n->start_mark.line + 1;
	return r;
}

/* A list of circuits, appended to v. */
static int read_circuits(struct scn_yaml_ctx *c, yaml_node_t *n, void *v_)
{
	VEC(struct scn_ocs_circuit) *v = v_;
	size_t old = strlen(c->path), i = 0;
	yaml_node_item_t *it;
	struct scn_ocs_circuit *sc;
	int r = 0;

	if (n->type != YAML_SEQUENCE_NODE)
		return scn_yaml_fail_value(c, n, "a list of circuits [ocs, node, node]", "");
	for (it = n->data.sequence.items.start; !r && it < n->data.sequence.items.top; it++) {
		sc = vec_grow(v);
		if (!sc)
			return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
		snprintf(c->path + old, sizeof(c->path) - old, "[%zu]", i++);
		r = read_circuit(c, node(c, *it), sc);
		c->path[old] = '\0';
	}
	return r;
}

/* topology.ocs.circuits */
static int set_ocs_circuits(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return read_circuits(c, n, scn_yaml_field_ptr(c, f));
}

#define BASE struct experiment

static const struct scn_yaml_field ocs_fields[] = {
	UINT("count", s.topology.ls.ocs.count, true, 1, OCS_MAX),
	UINT("spine_ports", s.topology.ls.ocs.spine_ports, false, 1, 65536),
	FIELD("delay", scn_yaml_time, s.topology.ls.ocs.delay_ns, uint64_t, false),
	FIELD("circuits", set_ocs_circuits, s.topology.ls.ocs.circuits,
	      __typeof__(((BASE *)0)->s.topology.ls.ocs.circuits), false),
};

const struct section scn_yaml_ocs_sec = TABLE(ocs_fields, NULL);

#undef BASE
#define BASE struct exp_failure

/* failures[i].state: down or up, into a bool (scn_yaml_enum writes an int). */
static int set_state(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);

	if (!v || (strcmp(v, "down") && strcmp(v, "up")))
		return scn_yaml_fail_value(c, n, "down or up", "");
	*(bool *)scn_yaml_field_ptr(c, f) = !strcmp(v, "up");
	return 0;
}

/* failures[i].link: [a, b], two nodes, or a node and one of its ports ([l0, s1.1]). */
static int set_link(struct scn_yaml_ctx *c, yaml_node_t *n,
		    __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_failure *ev = c->base;
	int r;

	if (seq_len(n) != 2)
		return scn_yaml_fail_value(c, n, "[node, node] or [node, port] such as [l0, s1]",
					   "");
	r = read_name(c, node(c, n->data.sequence.items.start[0]), ev->a);
	r = r ? r : read_name(c, node(c, n->data.sequence.items.start[1]), ev->b);
	ev->kind = EXP_EVENT_LINK;
	return r;
}

static int set_node(struct scn_yaml_ctx *c, yaml_node_t *n,
		    __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_failure *ev = c->base;

	ev->kind = EXP_EVENT_NODE;
	return read_name(c, n, ev->a);
}

static int set_rewire(struct scn_yaml_ctx *c, yaml_node_t *n,
		      __attribute__((unused)) const struct scn_yaml_field *f)
{
	struct exp_failure *ev = c->base;
	size_t before = c->e->failures.circuits.n;
	int r;

	ev->kind = EXP_EVENT_REWIRE;
	r = read_circuits(c, n, &c->e->failures.circuits);
	ev->rewire_off = (uint32_t)before;
	ev->rewire_n = (uint32_t)(c->e->failures.circuits.n - before);
	if (!r && !ev->rewire_n)
		r = scn_yaml_fail_value(c, n, "a list of circuits [ocs, node, node]", "");
	return r;
}

static const struct scn_yaml_field failure_fields[] = {
	FIELD("at", scn_yaml_time, at_ns, uint64_t, true),
	FIELD("link", set_link, a, char[SCN_NAME_MAX], false),
	FIELD("node", set_node, a, char[SCN_NAME_MAX], false),
	FIELD("rewire", set_rewire, rewire_n, uint32_t, false),
	FIELD("state", set_state, up, bool, false),
	FIELD("for", scn_yaml_time, for_ns, uint64_t, false),
};

/* Exactly one of link, node and rewire; `state` and `for` only where they mean something. */
static int failure_check(struct scn_yaml_ctx *c, const struct map_read *m)
{
	const struct exp_failure *ev = c->base;
	int what = !!scn_yaml_given(m, "link") + !!scn_yaml_given(m, "node") +
		   !!scn_yaml_given(m, "rewire");

	if (what != 1)
		return scn_yaml_fail_at(c, &m->node->start_mark,
					"%s: an event names exactly one of 'link', 'node' and "
					"'rewire'",
					c->path);
	if (ev->kind == EXP_EVENT_REWIRE && (scn_yaml_given(m, "state") || ev->for_ns))
		return scn_yaml_fail_at(c, &m->node->start_mark,
					"%s: a rewire has no 'state' or 'for'", c->path);
	if (ev->up && ev->for_ns)
		return scn_yaml_fail_at(c, &scn_yaml_given(m, "for")->start_mark,
					"%s.for: only a 'down' event comes back up by itself",
					c->path);
	return 0;
}

static const struct section failure_sec = TABLE(failure_fields, failure_check);

int scn_yaml_failures(struct scn_yaml_ctx *c, yaml_node_t *n,
		      __attribute__((unused)) const struct scn_yaml_field *f)
{
	size_t old = strlen(c->path), i = 0;
	struct exp_failure *ev;
	yaml_node_item_t *it;
	void *base = c->base;
	int r = 0;

	if (scn_yaml_is_empty(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return scn_yaml_fail_value(c, n, "a list of events", "");
	for (it = n->data.sequence.items.start; !r && it < n->data.sequence.items.top; it++) {
		ev = vec_grow(&c->e->failures.v);
		if (!ev)
			return diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
		ev->line = (uint32_t)node(c, *it)->start_mark.line + 1;
		ev->col = (uint32_t)node(c, *it)->start_mark.column + 1;
		snprintf(c->path + old, sizeof(c->path) - old, "[%zu]", i++);
		c->base = ev;
		r = scn_yaml_read_map(c, node(c, *it), &failure_sec);
		c->base = base;
		c->path[old] = '\0';
	}
	return r;
}
