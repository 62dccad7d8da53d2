// SPDX-License-Identifier: MIT
/* Changing an OCS circuit set (see ocs.h, ocs_rewire): which ports a change names, what it
 * releases, and whether that is allowed. Only idle circuits are rewired: "OCS switching
 * requires a delay of 50ms, so occupied links can not be rewired" (vClos §7). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ocs.h"

struct rewire {
	const struct topo *p;
	const uint32_t *old; /* the set before */
	uint32_t *next; /* the set being made */
	uint8_t *claimed; /* ports joined by this reconfiguration */
	bool strict;
	struct diag *d;
};

static const char *name(const struct topo *p, uint32_t n)
{
	return p->nodes.v[n].name;
}

static uint32_t far_node(const struct topo *p, uint32_t q)
{
	return topo_port_peer_node(p, q);
}

char *ocs_circuit_name(char *buf, size_t len, const struct topo *p, uint32_t a, uint32_t b)
{
	snprintf(buf, len, "%s:%s-%s", name(p, p->ports.v[a].node), name(p, far_node(p, a)),
		 name(p, far_node(p, b)));
	return buf;
}

char *ocs_changes_text(char *buf, size_t len, const struct topo *t, const struct ocs_change *ch,
		       size_t n)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s:%s%s%s", i ? " " : "",
				      t->nodes.v[ch[i].ocs].name, t->nodes.v[ch[i].a].name,
				      ch[i].off ? "/" : "-", t->nodes.v[ch[i].b].name);
	return buf;
}

/* How many ports OCS o has toward node n; the first in *first. */
static uint32_t ports_toward(const struct topo *p, uint32_t o, uint32_t n, uint32_t *first)
{
	uint32_t i, q, cnt = 0;

	*first = TOPO_NONE;
	for (i = 0; i < p->nodes.v[o].nports; i++) {
		q = topo_node_port(p, o, i);
		if (far_node(p, q) != n)
			continue;
		if (!cnt++)
			*first = q;
	}
	return cnt;
}

/* A node above the OCS layer: a leaf-spine's spine, a HammingMesh's network switch. Two of
 * them are never joined: a circuit connects the layer's lower side to either side. */
static bool upper(const struct topo *p, uint32_t n)
{
	enum topo_role r = p->nodes.v[n].role;

	return r == TOPO_ROLE_SPINE || r == TOPO_ROLE_ROWSW || r == TOPO_ROLE_COLSW;
}

static int check_change(struct rewire *w, const struct ocs_change *c)
{
	const struct topo *p = w->p;
	uint32_t q;

	if (c->ocs >= p->nodes.n || p->nodes.v[c->ocs].kind != TOPO_OCS)
		return diag_set(w->d, -EINVAL, "%s is not an OCS",
				c->ocs < p->nodes.n ? name(p, c->ocs) : "?");
	if (c->a >= p->nodes.n || c->b >= p->nodes.n || c->a == c->b)
		return diag_set(w->d, -EINVAL, "a circuit joins two different nodes");
	if (!ports_toward(p, c->ocs, c->a, &q) || !ports_toward(p, c->ocs, c->b, &q))
		return diag_set(w->d, -EINVAL, "%s is not cabled to %s",
				name(p, ports_toward(p, c->ocs, c->a, &q) ? c->b : c->a),
				name(p, c->ocs));
	if (upper(p, c->a) && upper(p, c->b))
		return diag_set(
			w->d, -EINVAL, "%s-%s: %s", name(p, c->a), name(p, c->b),
			p->nodes.v[c->a].role == TOPO_ROLE_SPINE
				? "a circuit joins a leaf to a spine or to another leaf"
				: "a circuit joins an accelerator to a row or column switch "
				  "or to another accelerator");
	return 0;
}

static void release(struct rewire *w, uint32_t q)
{
	if (w->next[q] != TOPO_NONE)
		w->next[w->next[q]] = TOPO_NONE;
	w->next[q] = TOPO_NONE;
}

/* Tears down the circuit between a and b on o. */
static int turn_off(struct rewire *w, const struct ocs_change *c)
{
	const struct topo *p = w->p;
	uint32_t i, q;

	for (i = 0; i < p->nodes.v[c->ocs].nports; i++) {
		q = topo_node_port(p, c->ocs, i);
		if (far_node(p, q) == c->a && w->next[q] != TOPO_NONE &&
		    far_node(p, w->next[q]) == c->b) {
			release(w, q);
			return 0;
		}
	}
	return diag_set(w->d, -EINVAL, "no circuit %s-%s on %s to tear down", name(p, c->a),
			name(p, c->b), name(p, c->ocs));
}

/* A node with one port on the OCS (a leaf) gives it up for the new circuit. */
static int free_end(struct rewire *w, uint32_t o, uint32_t n)
{
	char buf[64];
	uint32_t q;

	if (ports_toward(w->p, o, n, &q) != 1 || w->next[q] == TOPO_NONE)
		return 0;
	if (w->strict)
		return diag_set(w->d, -EINVAL, "%s's port on %s is already in circuit %s",
				name(w->p, n), name(w->p, o),
				ocs_circuit_name(buf, sizeof(buf), w->p, q, w->next[q]));
	release(w, q);
	return 0;
}

/* The port of n on o for a circuit toward node other: n's only one, or the one already
 * joined to other, or the lowest free one. */
static uint32_t pick(struct rewire *w, uint32_t o, uint32_t n, uint32_t other)
{
	const struct topo *p = w->p;
	uint32_t i, q, best = TOPO_NONE;

	if (ports_toward(p, o, n, &q) == 1)
		return w->claimed[q] ? TOPO_NONE : q;
	for (i = 0; i < p->nodes.v[o].nports; i++) {
		q = topo_node_port(p, o, i);
		if (far_node(p, q) != n || w->claimed[q] || w->next[q] != TOPO_NONE)
			continue;
		if (w->old[q] != TOPO_NONE && far_node(p, w->old[q]) == other)
			return q;
		if (best == TOPO_NONE)
			best = q;
	}
	return best;
}

static int join(struct rewire *w, const struct ocs_change *c)
{
	uint32_t a = pick(w, c->ocs, c->a, c->b), b;

	b = a == TOPO_NONE ? TOPO_NONE : pick(w, c->ocs, c->b, c->a);
	if (a == TOPO_NONE || b == TOPO_NONE || a == b)
		return diag_set(w->d, -EINVAL,
				"%s has no free port on %s for %s (named twice, or all in use)",
				name(w->p, a == TOPO_NONE ? c->a : c->b), name(w->p, c->ocs),
				name(w->p, a == TOPO_NONE ? c->b : c->a));
	w->next[a] = b;
	w->next[b] = a;
	w->claimed[a] = w->claimed[b] = 1;
	return 0;
}

/* Every circuit the reconfiguration tears down must be idle. */
static int check_idle(struct rewire *w, const struct ocs_busy *busy)
{
	const struct topo *p = w->p;
	uint32_t a, job1;
	char buf[64];

	for (a = 0; busy && busy->job1 && a < p->ports.n; a++) {
		if (w->old[a] == TOPO_NONE || a > w->old[a] || w->next[a] == w->old[a])
			continue;
		job1 = busy->job1[ocs_circuit_link(p, a, w->old[a])];
		if (job1)
			return diag_set(w->d, -EBUSY,
					"circuit %s carries job %u's traffic: only idle circuits "
					"are rewired (vClos §7)",
					ocs_circuit_name(buf, sizeof(buf), p, a, w->old[a]),
					job1 - 1);
	}
	return 0;
}

int ocs_rewire(const struct topo *p, uint32_t *xc, const struct ocs_change *ch, size_t n,
	       const struct ocs_busy *busy, bool strict, struct diag *d)
{
	struct rewire w = {.p = p, .old = xc, .strict = strict, .d = d};
	size_t i;
	int r = 0;

	w.next = malloc(p->ports.n * sizeof(*w.next) + 1);
	w.claimed = calloc(p->ports.n + 1, 1);
	if (!w.next || !w.claimed)
		r = diag_set(d, -ENOMEM, "out of memory");
	if (!r)
		memcpy(w.next, xc, p->ports.n * sizeof(*w.next));
	for (i = 0; !r && i < n; i++) {
		r = check_change(&w, &ch[i]);
		if (!r && ch[i].off)
			r = turn_off(&w, &ch[i]);
		else if (!r)
			r = free_end(&w, ch[i].ocs, ch[i].a);
		if (!r && !ch[i].off)
			r = free_end(&w, ch[i].ocs, ch[i].b);
	}
	for (i = 0; !r && i < n; i++)
		r = ch[i].off ? 0 : join(&w, &ch[i]);
	r = r ? r : check_idle(&w, busy);
	if (!r)
		memcpy(xc, w.next, p->ports.n * sizeof(*xc));
	free(w.next);
	free(w.claimed);
	return r;
}
