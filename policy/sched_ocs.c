// SPDX-License-Identifier: MIT
/* SCHED_OCS_VCLOS (vClos §7): OCS-vClos placement (ocs_vclos.h) on a built leaf-spine with an
 * OCS layer: its leaves, spines and OCSes by index, each leaf's port on each OCS, the circuits
 * at `up`, and each placement's circuit changes as the node ids model/ocs.h rewires by. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/sched_ocs.h"

struct sched_ocs {
	struct ocs_vclos c;
	VEC(struct ocs_vclos_alloc) allocs; /* by job id, while running */
	uint32_t L, S, K;
	uint32_t *leaf, *spine, *ocs; /* node ids by index */
	uint32_t *port; /* [L*K] leaf n's port cabled to OCS k (the same id in every view) */
	VEC(struct ocs_change) ch; /* sched_ocs_changes' answer */
};

/* Node ids of role's nodes by their index; *n how many. NULL on ENOMEM or a gap. */
static uint32_t *by_index(const struct topo *t, enum topo_role role, uint32_t *n)
{
	uint32_t i, k = 0, *v;

	for (i = 0; i < t->nodes.n; i++)
		k += t->nodes.v[i].role == role;
	v = calloc(k + 1, sizeof(*v));
	for (i = 0; v && i < k; i++)
		v[i] = TOPO_NONE;
	for (i = 0; v && i < t->nodes.n; i++)
		if (t->nodes.v[i].role == role && t->nodes.v[i].index < k)
			v[t->nodes.v[i].index] = i;
	for (i = 0; v && i < k; i++)
		if (v[i] == TOPO_NONE) {
			free(v);
			return NULL;
		}
	*n = k;
	return v;
}

/* Each leaf's port cabled to each OCS (physical view), and the spines' ports per OCS (P, the
 * same for all, else -EINVAL). */
static int find_ports(struct sched_ocs *o, const struct topo *p, uint32_t *P)
{
	uint32_t n, i, q, peer, per = 0;

	for (n = 0; n < o->L * o->K; n++)
		o->port[n] = TOPO_NONE;
	for (n = 0; n < o->L; n++) {
		for (i = 0; i < p->nodes.v[o->leaf[n]].nports; i++) {
			q = topo_node_port(p, o->leaf[n], i);
			peer = topo_port_peer_node(p, q);
			if (p->nodes.v[peer].role == TOPO_ROLE_OCS && p->nodes.v[peer].index < o->K)
				o->port[n * o->K + p->nodes.v[peer].index] = q;
		}
	}
	for (n = 0; n < o->L * o->K; n++)
		if (o->port[n] == TOPO_NONE)
			return -EINVAL; /* a leaf without a port on every OCS */
	for (i = 0; i < p->nodes.v[o->spine[0]].nports; i++) {
		q = topo_node_port(p, o->spine[0], i);
		per += topo_port_peer_node(p, q) == o->ocs[0];
	}
	*P = per;
	return per ? 0 : -EINVAL;
}

/* The spine index leaf port q reaches in logical view t, or OCS_VCLOS_NONE. */
static uint32_t circuit_spine(const struct topo *t, uint32_t q)
{
	uint32_t l = t->ports.v[q].link, peer;

	if (l == TOPO_NONE || !t->links.v[l].up)
		return OCS_VCLOS_NONE;
	peer = topo_port_peer_node(t, q);
	return t->nodes.v[peer].role == TOPO_ROLE_SPINE ? t->nodes.v[peer].index : OCS_VCLOS_NONE;
}

static int ocs_cluster(struct sched_ocs *o, const struct topo *t, uint32_t T, uint32_t *circ)
{
	uint32_t H, P, k;
	int err;

	if (t->endpoints.n % o->L)
		return -EINVAL;
	H = (uint32_t)t->endpoints.n / o->L;
	if (H % T)
		return -EINVAL;
	for (k = 0; k < t->endpoints.n; k++)
		if (t->nodes.v[t->endpoints.v[k]].group != k / H)
			return -EINVAL;
	err = find_ports(o, t->phys, &P);
	for (k = 0; !err && k < o->L * o->K; k++)
		circ[k] = circuit_spine(t, o->port[k]);
	return err ? err : ocs_vclos_init(&o->c, o->L, o->S, H / T, T, o->K, P, circ);
}

int sched_ocs_init(struct sched *s, const struct topo *t, uint32_t gpus)
{
	uint32_t T = gpus > 1 ? gpus : 1, *circ = NULL;
	struct sched_ocs *o;
	int err = -ENOMEM;

	if (!t->phys)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	s->ocs = o;
	o->leaf = by_index(t, TOPO_ROLE_LEAF, &o->L);
	o->spine = by_index(t, TOPO_ROLE_SPINE, &o->S);
	o->ocs = by_index(t, TOPO_ROLE_OCS, &o->K);
	if (!o->leaf || !o->spine || !o->ocs || !o->L || !o->S || !o->K)
		return -EINVAL;
	o->port = calloc((size_t)o->L * o->K, sizeof(*o->port));
	circ = calloc((size_t)o->L * o->K, sizeof(*circ));
	if (o->port && circ)
		err = ocs_cluster(o, t, T, circ);
	free(circ);
	return err;
}

void sched_ocs_done(struct sched *s)
{
	struct sched_ocs *o = s->ocs;
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->allocs.n; i++)
		ocs_vclos_alloc_done(&o->allocs.v[i]);
	vec_free(&o->allocs);
	vec_free(&o->ch);
	ocs_vclos_done(&o->c);
	free(o->leaf);
	free(o->spine);
	free(o->ocs);
	free(o->port);
	free(o);
	s->ocs = NULL;
}

int sched_ocs_place(struct sched *s, uint32_t job, uint32_t n, uint32_t *out)
{
	struct sched_ocs *o = s->ocs;
	struct ocs_vclos_alloc a = {0};
	int err = ocs_vclos_place(&o->c, job, n, &a);

	if (err)
		return err;
	while (o->allocs.n <= job) {
		if (!vec_grow(&o->allocs)) {
			ocs_vclos_release(&o->c, job);
			ocs_vclos_alloc_done(&a);
			return -ENOMEM;
		}
	}
	memcpy(out, a.a.eps, n * sizeof(*out));
	o->allocs.v[job] = a;
	return 0;
}

void sched_ocs_release(struct sched *s, uint32_t job)
{
	struct sched_ocs *o = s->ocs;

	if (!o || job >= o->allocs.n)
		return;
	ocs_vclos_release(&o->c, job);
	ocs_vclos_alloc_done(&o->allocs.v[job]);
}

int sched_ocs_size_check(const struct sched *s, uint32_t n, struct diag *d)
{
	return ocs_vclos_size_check(&s->ocs->c, n, d);
}

static const struct ocs_vclos_alloc *running(const struct sched *s, uint32_t job)
{
	const struct sched_ocs *o = s->ocs;

	if (!o || job >= o->allocs.n || job >= s->jobs.n || !s->jobs.v[job].running)
		return NULL;
	return &o->allocs.v[job];
}

const struct vclos_alloc *sched_ocs_alloc(const struct sched *s, uint32_t job)
{
	const struct ocs_vclos_alloc *a = running(s, job);

	return a ? &a->a : NULL;
}

void sched_ocs_changes(struct sched *s, uint32_t job, const struct ocs_change **ch, size_t *n)
{
	const struct ocs_vclos_alloc *a = running(s, job);
	struct sched_ocs *o = s->ocs;
	uint32_t i;

	*ch = NULL;
	*n = 0;
	if (!a || vec_reserve(&o->ch, a->nch))
		return;
	for (i = 0; i < a->nch; i++)
		o->ch.v[i] = (struct ocs_change){.ocs = o->ocs[a->ch[i].ocs],
						 .a = o->leaf[a->ch[i].leaf],
						 .b = o->spine[a->ch[i].spine],
						 .off = a->ch[i].off};
	*ch = o->ch.v;
	*n = a->nch;
}

int sched_ocs_route(const struct sched *s, uint32_t job, uint32_t src, uint32_t dst,
		    uint32_t *up_port, uint32_t *down_port)
{
	const struct ocs_vclos_alloc *a = running(s, job);
	const struct sched_ocs *o = s->ocs;
	uint32_t up, down;
	int r;

	if (!a)
		return 0;
	r = ocs_vclos_route(a, src, dst, &up, &down);
	if (r != 1)
		return r;
	*up_port = o->port[a->a.eps[src] / a->a.leaf_gpus * o->K + up];
	*down_port = o->port[a->a.eps[dst] / a->a.leaf_gpus * o->K + down];
	return 1;
}

int sched_ocs_busy(const struct sched *s, const struct topo *view, uint32_t *job1)
{
	const struct sched_ocs *o = s->ocs;
	uint32_t i, l;

	/* a port a job holds whose circuit still goes elsewhere is being rewired for it: the
	 * old circuit is idle */
	for (i = 0; o && i < o->L * o->K; i++) {
		l = view->ports.v[o->port[i]].link;
		if (o->c.owner[i] != VCLOS_FREE && circuit_spine(view, o->port[i]) == o->c.circ[i])
			job1[l] = o->c.owner[i] + 1;
	}
	return 0;
}
