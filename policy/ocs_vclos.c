// SPDX-License-Identifier: MIT
/* OCS-vClos placement (see ocs_vclos.h): circuits and port ownership, the stages of vClos §7
 * Algorithm 2 (stages 0 and 1 from vclos.c, 2 and 3 from ocs_vclos_plan.c and
 * ocs_vclos_find.c), a placed job's ranks and circuits, the sizes the empty cluster takes, and
 * routing inside a job. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/ocs_vclos.h"
#include "policy/ocs_vclos_find.h"

static uint32_t ovc_n_ep(const struct ocs_vclos *c)
{
	return c->vc.leaves * c->vc.servers * c->vc.gpus;
}

/* Spines in range, at most P circuits per (spine, OCS). */
static int ovc_circ_check(uint32_t leaves, uint32_t spines, uint32_t ocs, uint32_t ports,
			  const uint32_t *circ)
{
	uint32_t *cnt, i, m;
	int err = 0;

	if (!circ)
		return 0;
	cnt = calloc((size_t)spines * ocs, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (i = 0; !err && i < leaves * ocs; i++) {
		m = circ[i];
		if (m != OCS_VCLOS_NONE && (m >= spines || ++cnt[m * ocs + i % ocs] > ports))
			err = -EINVAL;
	}
	free(cnt);
	return err;
}

/* The cluster without its table of sizes. */
static int ovc_init_bare(struct ocs_vclos *c, uint32_t leaves, uint32_t spines, uint32_t servers,
			 uint32_t gpus, uint32_t ocs, uint32_t ports, const uint32_t *circ)
{
	size_t lk = (size_t)leaves * ocs;
	int err;

	memset(c, 0, sizeof(*c));
	if (!ocs || ocs > OCS_VCLOS_MAX_OCS || !ports || ports > OCS_VCLOS_MAX_PORTS)
		return -EINVAL;
	err = vclos_init(&c->vc, leaves, spines, servers, gpus);
	if (!err)
		err = ovc_circ_check(leaves, spines, ocs, ports, circ);
	if (err)
		return err;
	c->ocs = ocs;
	c->spine_ports = ports;
	c->search_nodes = OCS_VCLOS_SEARCH_NODES;
	c->circ = malloc(lk * sizeof(*c->circ));
	c->owner = malloc(lk * sizeof(*c->owner));
	c->find = ocs_vclos_find_new(c);
	if (!c->circ || !c->owner || !c->find)
		return -ENOMEM;
	if (circ)
		memcpy(c->circ, circ, lk * sizeof(*c->circ));
	else
		memset(c->circ, 0xff, lk * sizeof(*c->circ));
	memset(c->owner, 0xff, lk * sizeof(*c->owner));
	return 0;
}

/* Which sizes fit: each placed alone on a copy of the empty cluster with no circuits. With no
 * job running, idle circuits change which circuits a placement picks, never whether it
 * succeeds: stage 2's matching is a maximum flow, stage 3's colouring cannot fail. */
static int ovc_fits_make(struct ocs_vclos *c)
{
	struct ocs_vclos_alloc a;
	struct ocs_vclos e;
	uint32_t n;
	int err;

	c->fits = calloc(ovc_n_ep(c) + 1, 1);
	if (!c->fits)
		return -ENOMEM;
	err = ovc_init_bare(&e, c->vc.leaves, c->vc.spines, c->vc.servers, c->vc.gpus, c->ocs,
			    c->spine_ports, NULL);
	for (n = 1; !err && n <= ovc_n_ep(c); n++) {
		err = ocs_vclos_place(&e, 0, n, &a);
		if (err == -EAGAIN) {
			err = 0;
			continue;
		}
		c->fits[n] = !err;
		ocs_vclos_release(&e, 0);
		ocs_vclos_alloc_done(&a);
		memset(e.circ, 0xff, (size_t)c->vc.leaves * c->ocs * sizeof(*e.circ));
	}
	ocs_vclos_done(&e);
	return err;
}

int ocs_vclos_init(struct ocs_vclos *c, uint32_t leaves, uint32_t spines, uint32_t servers,
		   uint32_t gpus, uint32_t ocs, uint32_t spine_ports, const uint32_t *circ)
{
	int err = ovc_init_bare(c, leaves, spines, servers, gpus, ocs, spine_ports, circ);

	if (!err)
		err = ovc_fits_make(c);
	if (err)
		ocs_vclos_done(c);
	return err;
}

void ocs_vclos_done(struct ocs_vclos *c)
{
	vclos_done(&c->vc);
	free(c->circ);
	free(c->owner);
	free(c->fits);
	ocs_vclos_find_free(c->find);
	memset(c, 0, sizeof(*c));
}

uint32_t ocs_vclos_size_round(const struct ocs_vclos *c, uint32_t n)
{
	uint32_t m;

	for (m = n; n && m <= ovc_n_ep(c); m++) {
		if (c->fits[m])
			return m;
	}
	return 0;
}

static bool ovc_has_shape(const struct ocs_vclos *c, uint32_t n)
{
	uint32_t l;

	for (l = 2; l <= c->vc.leaves; l++) {
		if (ocs_vclos_shape_ok(c, n, l))
			return true;
	}
	return false;
}

int ocs_vclos_size_check(const struct ocs_vclos *c, uint32_t n, struct diag *d)
{
	uint32_t s_max = c->vc.servers * c->vc.gpus, kp = c->ocs * c->spine_ports, up;

	if (!n)
		return diag_set(d, -EINVAL, "a job needs at least one GPU");
	if (n > ovc_n_ep(c))
		return diag_set(d, -EINVAL, "%u GPUs: the cluster has %u", n, ovc_n_ep(c));
	if (c->fits[n])
		return 0;
	if (!d)
		return -EINVAL;
	s_max = s_max < c->ocs ? s_max : c->ocs;
	up = ocs_vclos_size_round(c, n);
	return diag_set(d, -EINVAL,
			"%u GPUs: more than one leaf's %u servers of %u; %s %u ports (%u OCSes x "
			"%u); %s l x s with 2 <= l <= %u leaves of s GPUs, s a multiple of %u and "
			"at most %u (vClos §7); %s %u",
			n, c->vc.servers, c->vc.gpus,
			n > kp ? "more than a spine's" : "not under one spine of", kp, c->ocs,
			c->spine_ports, ovc_has_shape(c, n) ? "no circuits found for any" : "not",
			c->vc.leaves, c->vc.gpus, s_max,
			up ? "the next size that fits is" : "no larger size fits, up to",
			up ? up : ovc_n_ep(c));
}

static bool ovc_holds(const struct ocs_vclos *c, uint32_t job)
{
	uint32_t i;

	for (i = 0; i < ovc_n_ep(c); i++) {
		if (c->vc.gpu_owner[i] == job)
			return true;
	}
	for (i = 0; i < c->vc.leaves * c->ocs; i++) {
		if (c->owner[i] == job)
			return true;
	}
	return false;
}

void ocs_vclos_alloc_done(struct ocs_vclos_alloc *a)
{
	if (!a)
		return;
	vclos_alloc_done(&a->a);
	free(a->up);
	free(a->ch);
	memset(a, 0, sizeof(*a));
}

/* vClos §7, Alg. 2 lines 1-11: stages 0 and 1, exactly as vClos's. */
static int ovc_local(struct ocs_vclos *c, uint32_t job, uint32_t n, struct ocs_vclos_alloc *out)
{
	uint32_t i;
	int err = vclos_place_local(&c->vc, job, n, &out->a);

	if (err)
		return err;
	out->up = malloc(n * sizeof(*out->up));
	if (!out->up) {
		vclos_release(&c->vc, job);
		ocs_vclos_alloc_done(out);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		out->up[i] = OCS_VCLOS_NONE;
	return 0;
}

/* Stage 2: each leaf's ranks take its planned OCSes in ascending order. */
static void ovc_ranks_spine(struct ocs_vclos *c, struct ocs_vclos_alloc *out)
{
	const struct ocs_vclos_find *f = c->find;
	struct vclos_alloc *a = &out->a;
	uint32_t T = c->vc.gpus, i, j, k, leaf, cnt, r = 0;

	for (i = 0; i < f->l; i++) {
		leaf = f->leaf[i];
		cnt = f->srv[i] * T - (leaf == f->part_leaf ? T - f->part_gpus : 0);
		vclos_take_servers(&c->vc, a->job, leaf, f->srv[i], a->eps + r, cnt);
		for (j = 0, k = 0; j < cnt; j++, k++) {
			while (f->use[leaf * c->ocs + k] == OCS_VCLOS_NONE)
				k++;
			out->up[r + j] = k;
			a->uplink[r + j] = f->spine[0];
		}
		r += cnt;
	}
}

/* Stage 3: rank i*s + j goes up to spine[j]; a leaf's circuits to one spine serve that
 * spine's virtual spines in ascending OCS order. */
static void ovc_ranks_clos(struct ocs_vclos *c, struct ocs_vclos_alloc *out)
{
	const struct ocs_vclos_find *f = c->find;
	struct vclos_alloc *a = &out->a;
	uint32_t s = f->s, i, j, t, k, m, leaf;

	for (i = 0; i < f->l; i++) {
		leaf = f->leaf[i];
		vclos_take_servers(&c->vc, a->job, leaf, f->srv[i], a->eps + i * s, s);
		for (t = 0, j = 0; t < s; t = j) {
			m = f->spine[t];
			for (k = 0; k < c->ocs; k++) {
				if (f->use[leaf * c->ocs + k] != m)
					continue;
				out->up[i * s + j] = k;
				a->uplink[i * s + j++] = m;
			}
		}
	}
}

/* One block for eps and uplink (n each), leaf (L) and spine (max(S, K)), as vclos_alloc_done
 * frees it; up and ch apart. */
static int ovc_alloc_new(const struct ocs_vclos *c, uint32_t job, uint32_t n,
			 struct ocs_vclos_alloc *out)
{
	uint32_t sp = c->vc.spines > c->ocs ? c->vc.spines : c->ocs;
	struct vclos_alloc *a = &out->a;

	a->eps = malloc(((size_t)2 * n + c->vc.leaves + sp) * sizeof(*a->eps));
	out->up = malloc(n * sizeof(*out->up));
	out->ch = calloc((size_t)3 * n, sizeof(*out->ch));
	if (!a->eps || !out->up || !out->ch) {
		ocs_vclos_alloc_done(out);
		return -ENOMEM;
	}
	a->uplink = a->eps + n;
	a->leaf = a->uplink + n;
	a->spine = a->leaf + c->vc.leaves;
	a->job = job;
	a->n = n;
	a->leaf_gpus = c->vc.servers * c->vc.gpus;
	return 0;
}

/* Carries out the plan of stage 2 or 3: the alloc, its changes, the servers, the circuits. */
static int ovc_take(struct ocs_vclos *c, uint32_t job, uint32_t n, uint32_t stage,
		    struct ocs_vclos_alloc *out)
{
	struct ocs_vclos_find *f = c->find;
	struct vclos_alloc *a = &out->a;
	uint32_t i;

	if (ovc_alloc_new(c, job, n, out)) {
		ocs_vclos_plan_undo(f, 0);
		return -ENOMEM;
	}
	a->stage = stage;
	a->l = f->l;
	a->s = f->s;
	a->exact = f->exact;
	memcpy(a->leaf, f->leaf, f->l * sizeof(*a->leaf));
	memcpy(a->spine, f->spine, f->s * sizeof(*a->spine));
	out->nch = ocs_vclos_find_changes(f, out->ch);
	if (stage == 2)
		ovc_ranks_spine(c, out);
	else
		ovc_ranks_clos(c, out);
	memcpy(c->circ, f->wcirc, (size_t)c->vc.leaves * c->ocs * sizeof(*c->circ));
	for (i = 0; i < c->vc.leaves * c->ocs; i++) {
		if (f->use[i] != OCS_VCLOS_NONE)
			c->owner[i] = job;
	}
	return 0;
}

int ocs_vclos_place(struct ocs_vclos *c, uint32_t job, uint32_t n, struct ocs_vclos_alloc *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (job == VCLOS_FREE || !n || n > ovc_n_ep(c) || (c->fits && !c->fits[n]))
		return -EINVAL;
	if (ovc_holds(c, job))
		return -EEXIST;
	err = ovc_local(c, job, n, out);
	if (err != -EAGAIN || n <= c->vc.gpus)
		return err;
	/* vClos §7's two-leaf case (direct leaf-leaf circuits) is left out: it would change
	 * the shortest paths other jobs' traffic sees. */
	ocs_vclos_find_prep(c);
	if (ocs_vclos_find_spine(c, n))
		return ovc_take(c, job, n, 2, out);
	if (ocs_vclos_find_clos(c, n))
		return ovc_take(c, job, n, 3, out);
	return -EAGAIN;
}

void ocs_vclos_release(struct ocs_vclos *c, uint32_t job)
{
	uint32_t i;

	if (job == VCLOS_FREE)
		return;
	vclos_release(&c->vc, job);
	for (i = 0; i < c->vc.leaves * c->ocs; i++) {
		if (c->owner[i] == job)
			c->owner[i] = VCLOS_FREE;
	}
}

int ocs_vclos_route(const struct ocs_vclos_alloc *a, uint32_t src, uint32_t dst, uint32_t *up_k,
		    uint32_t *down_k)
{
	const struct vclos_alloc *v = &a->a;

	if (src >= v->n || dst >= v->n)
		return -EINVAL;
	if (v->eps[src] / v->leaf_gpus == v->eps[dst] / v->leaf_gpus)
		return 0;
	if (v->stage < 2)
		return -EINVAL; /* stages 0 and 1 never cross leaves */
	*up_k = a->up[src];
	/* stage 2: down over dst's own circuit; stage 3: over (dst's virtual leaf, src's j) */
	*down_k = v->stage == 2 ? a->up[dst] : a->up[dst / v->s * v->s + src % v->s];
	return 1;
}
