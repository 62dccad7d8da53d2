// SPDX-License-Identifier: MIT
/* A run's timed network events, resolved (see failure.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/failure.h"

struct resolve {
	const struct topo *p; /* the cables */
	const struct topo *t; /* what names resolve in */
	struct fail_plan *out;
	const struct exp_failure *f;
	const char *file; /* the scenario's path, for positions */
	size_t i;
	struct diag *d;
};

static int fail(struct resolve *x, const char *fmt, const char *a, const char *b)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, a, b);
	return diag_set(x->d, -EINVAL, "%s:%u:%u: failures[%zu]: %s", x->file, x->f->line,
			x->f->col, x->i, msg);
}

static int node_id(struct resolve *x, const char *name, uint32_t *id)
{
	int n = topo_node_find(x->p, name);

	if (n < 0)
		return fail(x, "no node named %s%s", name, "");
	*id = (uint32_t)n;
	return 0;
}

static int push_cable(struct resolve *x, uint32_t k)
{
	return vec_push(&x->out->cables, k) ? diag_set(x->d, -ENOMEM, "out of memory") : 0;
}

/* Every cable of node n. */
static int node_cables(struct resolve *x, struct fail_event *ev)
{
	uint32_t n = 0, i;
	int r = node_id(x, x->f->a, &n);

	for (i = 0; !r && i < x->p->nodes.v[n].nports; i++)
		r = push_cable(x, x->p->ports.v[topo_node_port(x->p, n, i)].link);
	snprintf(ev->target, sizeof(ev->target), "%s", x->f->a);
	return r;
}

/* The cables between a and b, or the one of a's port named b (parallel links: "s1.1"). */
static int link_cables(struct resolve *x, struct fail_event *ev)
{
	const struct topo *p = x->p;
	uint32_t a = 0, i, q, before = (uint32_t)x->out->cables.n;
	int b = topo_node_find(p, x->f->b), r;

	r = node_id(x, x->f->a, &a);
	for (i = 0; !r && i < p->nodes.v[a].nports; i++) {
		q = topo_node_port(p, a, i);
		if (b >= 0 ? topo_port_peer_node(p, q) == (uint32_t)b
			   : !strcmp(p->ports.v[q].ifname, x->f->b))
			r = push_cable(x, p->ports.v[q].link);
	}
	if (!r && x->out->cables.n == before)
		return fail(x,
			    "no cable between %s and %s (with an OCS layer, name a cable to "
			    "an OCS, such as [l0, o0])",
			    x->f->a, x->f->b);
	snprintf(ev->target, sizeof(ev->target), "%s-%s", x->f->a, x->f->b);
	return r;
}

static int rewire_changes(struct resolve *x, const struct experiment *e, struct fail_event *ev)
{
	uint32_t i, ids[3] = {0};
	size_t o = 0;
	int r = 0;

	if (!x->t->phys)
		return fail(x, "a rewire needs an OCS layer (topology.ocs)%s%s", "", "");
	for (i = 0; !r && i < x->f->rewire_n; i++) {
		const struct scn_ocs_circuit *c = &e->failures.circuits.v[x->f->rewire_off + i];
		struct ocs_change ch;

		r = node_id(x, c->ocs, &ids[0]);
		r = r ? r : node_id(x, c->a, &ids[1]);
		r = r ? r : node_id(x, c->b, &ids[2]);
		ch = (struct ocs_change){ids[0], ids[1], ids[2], false};
		if (!r && vec_push(&x->out->changes, ch))
			r = diag_set(x->d, -ENOMEM, "out of memory");
		if (!r && o < sizeof(ev->target))
			o += (size_t)snprintf(ev->target + o, sizeof(ev->target) - o, "%s%s:%s-%s",
					      i ? " " : "", c->ocs, c->a, c->b);
	}
	return r;
}

static int add_event(struct resolve *x, const struct experiment *e, int64_t at, bool up)
{
	struct fail_event ev = {.at = at, .kind = x->f->kind, .up = up};
	int r;

	ev.seq = (uint32_t)x->out->events.n;
	ev.cable_off = (uint32_t)x->out->cables.n;
	ev.change_off = (uint32_t)x->out->changes.n;
	if (x->f->kind == EXP_EVENT_NODE)
		r = node_cables(x, &ev);
	else if (x->f->kind == EXP_EVENT_LINK)
		r = link_cables(x, &ev);
	else
		r = rewire_changes(x, e, &ev);
	ev.cable_n = (uint32_t)x->out->cables.n - ev.cable_off;
	ev.change_n = (uint32_t)x->out->changes.n - ev.change_off;
	if (!r && vec_push(&x->out->events, ev))
		r = diag_set(x->d, -ENOMEM, "out of memory");
	return r;
}

static int cmp_event(const void *a, const void *b)
{
	const struct fail_event *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int fail_plan_build(const struct experiment *e, const struct topo *t, struct fail_plan *out,
		    struct diag *d)
{
	struct resolve x = {
		.p = t->phys ? t->phys : t, .t = t, .out = out, .file = e->s.path, .d = d};
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (x.i = 0; !r && x.i < e->failures.v.n; x.i++) {
		x.f = &e->failures.v.v[x.i];
		r = add_event(&x, e, (int64_t)x.f->at_ns, x.f->up);
		if (!r && x.f->for_ns)
			r = add_event(&x, e, (int64_t)(x.f->at_ns + x.f->for_ns), true);
	}
	if (!r && out->events.n)
		qsort(out->events.v, out->events.n, sizeof(*out->events.v), cmp_event);
	return r;
}

int fail_plan_check(const struct experiment *e, const struct topo *t, struct diag *d)
{
	struct fail_plan p;
	int r = fail_plan_build(e, t, &p, d);

	fail_plan_done(&p);
	return r;
}

void fail_plan_done(struct fail_plan *p)
{
	vec_free(&p->events);
	vec_free(&p->cables);
	vec_free(&p->changes);
}

const char *fail_state_name(const struct fail_event *ev)
{
	if (ev->kind == EXP_EVENT_REWIRE)
		return "rewire";
	return ev->up ? "up" : "down";
}

const char *fail_kind_name(enum exp_event_kind k)
{
	static const char *const names[] = {"link", "node", "rewire"};

	return k <= EXP_EVENT_REWIRE ? names[k] : "?";
}
