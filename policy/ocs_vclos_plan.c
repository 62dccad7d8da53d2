// SPDX-License-Identifier: MIT
/* OCS-vClos plans (ocs_vclos_find.h): the job's circuits as planned joins that can be undone,
 * the bipartite matching of leaves to OCSes at one spine both stages build on, stage 2 (one
 * spine, vClos §7 Alg. 2), and the change list a plan makes. */
#include <stdlib.h>
#include <string.h>

#include "policy/ocs_vclos_find.h"
#include "policy/vclos_find.h"

/* Lays f's arrays out from base, 8-byte aligned (base NULL: only measures); the bytes taken. */
static size_t plan_layout(struct ocs_vclos_find *f, char *base)
{
	size_t L = f->L, S = f->S, K = f->K, LK = L * K, SK = S * K, off = 0;
	size_t nk = L > S ? L : S;

#define CARVE(field, len)                               \
	(f->field = (void *)(base ? base + off : NULL), \
	 off += ((len) * sizeof(*f->field) + 7) & ~(size_t)7)
	CARVE(busy, SK);
	CARVE(cnt0, SK);
	CARVE(rsn, L);
	CARVE(rpn, S);
	CARVE(fports, L);
	CARVE(sorder, S);
	CARVE(lorder, L);
	CARVE(keys, nk);
	CARVE(use, LK);
	CARVE(wcirc, LK);
	CARVE(wcnt, SK);
	CARVE(cap, SK);
	CARVE(log, LK);
	CARVE(tmp, SK);
	CARVE(mat, LK);
	CARVE(mcnt, K);
	CARVE(visk, K);
	CARVE(visl, L);
	CARVE(part, L);
	CARVE(leaf, L);
	CARVE(srv, L);
	CARVE(spine, nk > K ? nk : K);
	CARVE(cand, L);
	CARVE(cur, L);
	CARVE(best, L);
	CARVE(vs, K);
	CARVE(best_vs, K);
	CARVE(pk, LK);
	CARVE(best_k, LK);
	CARVE(lvl, SK);
	CARVE(cl_leaf, LK);
	CARVE(cl_lane, K * f->P * K);
	CARVE(lane_m, K * f->P);
	CARVE(lane_room, K * f->P);
	CARVE(e_leaf, LK);
	CARVE(e_lane, LK);
	CARVE(e_col, LK);
	CARVE(path, LK);
#undef CARVE
	return off;
}

struct ocs_vclos_find *ocs_vclos_find_new(const struct ocs_vclos *c)
{
	struct ocs_vclos_find *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->L = c->vc.leaves;
	f->S = c->vc.spines;
	f->K = c->ocs;
	f->P = c->spine_ports;
	f->T = c->vc.gpus;
	f->block = calloc(1, plan_layout(f, NULL));
	if (!f->block) {
		free(f);
		return NULL;
	}
	plan_layout(f, f->block);
	return f;
}

void ocs_vclos_find_free(struct ocs_vclos_find *f)
{
	if (!f)
		return;
	free(f->block);
	free(f);
}

/* Circuits per (spine, OCS), all and running jobs', and free ports per leaf. */
static void plan_read_circuits(struct ocs_vclos_find *f)
{
	uint32_t n, k, m, i;

	memset(f->busy, 0, (size_t)f->S * f->K * sizeof(*f->busy));
	memset(f->cnt0, 0, (size_t)f->S * f->K * sizeof(*f->cnt0));
	for (n = 0; n < f->L; n++) {
		f->fports[n] = 0;
		for (k = 0; k < f->K; k++) {
			i = n * f->K + k;
			m = f->circ[i];
			f->fports[n] += f->owner[i] == VCLOS_FREE;
			if (m == OCS_VCLOS_NONE)
				continue;
			f->cnt0[m * f->K + k]++;
			f->busy[m * f->K + k] += f->owner[i] != VCLOS_FREE;
		}
	}
	for (m = 0; m < f->S; m++) {
		f->rpn[m] = f->K * f->P;
		for (k = 0; k < f->K; k++)
			f->rpn[m] -= f->busy[m * f->K + k];
		f->sorder[m] = m;
	}
	vclos_find_sort(f->keys, f->sorder, f->S, f->rpn);
}

void ocs_vclos_find_prep(struct ocs_vclos *c)
{
	struct ocs_vclos_find *f = c->find;
	uint32_t n, r, i;

	f->circ = c->circ;
	f->owner = c->owner;
	plan_read_circuits(f);
	f->nlorder = 0;
	for (n = 0; n < f->L; n++) {
		f->rsn[n] = 0;
		for (r = 0; r < c->vc.servers; r++)
			f->rsn[n] += c->vc.srv_free[n * c->vc.servers + r] == f->T;
		if (f->rsn[n])
			f->lorder[f->nlorder++] = n;
	}
	vclos_find_sort(f->keys, f->lorder, f->nlorder, f->rsn);
	memcpy(f->wcirc, f->circ, (size_t)f->L * f->K * sizeof(*f->wcirc));
	memcpy(f->wcnt, f->cnt0, (size_t)f->S * f->K * sizeof(*f->wcnt));
	for (i = 0; i < f->S * f->K; i++)
		f->cap[i] = f->P - f->busy[i];
	memset(f->use, 0xff, (size_t)f->L * f->K * sizeof(*f->use));
	f->nlog = 0;
	f->l = f->s = 0;
}

void ocs_vclos_plan_join(struct ocs_vclos_find *f, uint32_t leaf, uint32_t k, uint32_t m)
{
	uint32_t i = leaf * f->K + k, old = f->wcirc[i];

	f->log[f->nlog++] = (struct ocs_vclos_undo){leaf, k, old};
	f->use[i] = m;
	f->cap[m * f->K + k]--;
	if (old != OCS_VCLOS_NONE)
		f->wcnt[old * f->K + k]--;
	f->wcirc[i] = m;
	f->wcnt[m * f->K + k]++;
}

void ocs_vclos_plan_undo(struct ocs_vclos_find *f, uint32_t mark)
{
	const struct ocs_vclos_undo *e;
	uint32_t i, m;

	while (f->nlog > mark) {
		e = &f->log[--f->nlog];
		i = e->leaf * f->K + e->k;
		m = f->wcirc[i];
		f->wcnt[m * f->K + e->k]--;
		f->cap[m * f->K + e->k]++;
		f->use[i] = OCS_VCLOS_NONE;
		f->wcirc[i] = e->old;
		if (e->old != OCS_VCLOS_NONE)
			f->wcnt[e->old * f->K + e->k]++;
	}
}

void ocs_vclos_match_begin(struct ocs_vclos_find *f, uint32_t m)
{
	f->m = m;
	f->npart = 0;
	memset(f->mcnt, 0, f->K * sizeof(*f->mcnt));
}

/* Whether leaf n's port on k is free, unplanned and not in the matching. */
static bool match_ok(const struct ocs_vclos_find *f, uint32_t n, uint32_t k)
{
	uint32_t i = n * f->K + k;

	return f->owner[i] == VCLOS_FREE && f->use[i] == OCS_VCLOS_NONE && !f->mat[i];
}

/* The changes a circuit from leaf n through k to the matching's spine takes: 0, it is there
 * already; 1, a join onto a free spine port; 2, a join after a tear-down. */
static uint32_t match_class(const struct ocs_vclos_find *f, uint32_t n, uint32_t k)
{
	if (f->circ[n * f->K + k] == f->m)
		return 0;
	return f->wcnt[f->m * f->K + k] < f->P ? 1 : 2;
}

static bool match_room(const struct ocs_vclos_find *f, uint32_t k)
{
	return f->mcnt[k] < f->cap[f->m * f->K + k];
}

/* One more circuit for n where there is room, the cheapest class and lowest OCS first. */
static int match_direct(struct ocs_vclos_find *f, uint32_t n)
{
	uint32_t cls, k;

	for (cls = 0; cls < 3; cls++) {
		for (k = 0; k < f->K; k++) {
			if (match_ok(f, n, k) && match_room(f, k) && match_class(f, n, k) == cls) {
				f->mat[n * f->K + k] = 1;
				f->mcnt[k]++;
				return 1;
			}
		}
	}
	return 0;
}

static int match_path(struct ocs_vclos_find *f, uint32_t n);

/* Frees k for n by moving another leaf of the matching off it. */
static int match_steal(struct ocs_vclos_find *f, uint32_t n, uint32_t k)
{
	uint32_t i, n2;

	for (i = 0; i < f->npart; i++) {
		n2 = f->part[i];
		if (f->visl[n2] || !f->mat[n2 * f->K + k])
			continue;
		if (match_path(f, n2)) {
			f->mat[n2 * f->K + k] = 0;
			f->mat[n * f->K + k] = 1;
			return 1;
		}
	}
	return 0;
}

/* An augmenting path from n (a depth-first search in the residual graph). */
static int match_path(struct ocs_vclos_find *f, uint32_t n)
{
	uint32_t cls, k;

	f->visl[n] = 1;
	for (cls = 0; cls < 3; cls++) {
		for (k = 0; k < f->K; k++) {
			if (f->visk[k] || !match_ok(f, n, k) || match_class(f, n, k) != cls)
				continue;
			f->visk[k] = 1;
			if (match_room(f, k)) {
				f->mat[n * f->K + k] = 1;
				f->mcnt[k]++;
				return 1;
			}
			if (match_steal(f, n, k))
				return 1;
		}
	}
	return 0;
}

int ocs_vclos_match_add(struct ocs_vclos_find *f, uint32_t n)
{
	uint32_t i;

	if (match_direct(f, n))
		return 1;
	memset(f->visk, 0, f->K * sizeof(*f->visk));
	for (i = 0; i < f->npart; i++)
		f->visl[f->part[i]] = 0;
	return match_path(f, n);
}

void ocs_vclos_match_drop(struct ocs_vclos_find *f, uint32_t n, uint32_t units)
{
	uint32_t cls, k;

	for (cls = 3; cls-- > 0 && units;) {
		for (k = f->K; k-- > 0 && units;) {
			if (f->mat[n * f->K + k] && match_class(f, n, k) == cls) {
				f->mat[n * f->K + k] = 0;
				f->mcnt[k]--;
				units--;
			}
		}
	}
}

uint32_t ocs_vclos_match_cost(const struct ocs_vclos_find *f)
{
	uint32_t i, k, n, sum = 0;

	for (i = 0; i < f->npart; i++) {
		n = f->part[i];
		for (k = 0; k < f->K; k++)
			sum += f->mat[n * f->K + k] ? match_class(f, n, k) : 0;
	}
	return sum;
}

void ocs_vclos_match_clear(struct ocs_vclos_find *f)
{
	uint32_t i;

	for (i = 0; i < f->npart; i++)
		memset(f->mat + (size_t)f->part[i] * f->K, 0, f->K);
	memset(f->mcnt, 0, f->K * sizeof(*f->mcnt));
}

void ocs_vclos_match_commit(struct ocs_vclos_find *f)
{
	uint32_t i, k, n;

	for (i = 0; i < f->npart; i++) {
		n = f->part[i];
		for (k = 0; k < f->K; k++) {
			if (f->mat[n * f->K + k])
				ocs_vclos_plan_join(f, n, k, f->m);
		}
	}
	ocs_vclos_match_clear(f);
}

/* Sorts the result's leaves ascending, with their server counts. */
static void plan_sort_leaves(struct ocs_vclos_find *f)
{
	uint32_t i;

	for (i = 0; i < f->l; i++)
		f->keys[i] = (uint64_t)f->leaf[i] << 32 | f->srv[i];
	qsort(f->keys, f->l, sizeof(*f->keys), vclos_find_key_cmp);
	for (i = 0; i < f->l; i++) {
		f->leaf[i] = (uint32_t)(f->keys[i] >> 32);
		f->srv[i] = (uint32_t)f->keys[i];
	}
}

/* Takes up to rsn servers of leaf, one at a time while a circuit per rank can be matched;
 * returns how many and the ranks on the last one in *u. */
static uint32_t spine_take(struct ocs_vclos_find *f, uint32_t leaf, uint32_t *need, uint32_t *u)
{
	uint32_t take, got;

	for (take = 0; take < f->rsn[leaf] && *need; take++) {
		*u = *need < f->T ? *need : f->T;
		for (got = 0; got < *u && ocs_vclos_match_add(f, leaf); got++)
			;
		if (got < *u) {
			ocs_vclos_match_drop(f, leaf, got);
			break;
		}
		*need -= *u;
	}
	return take;
}

/* vClos §7, Alg. 2 line 19 (ChooseGpu under spine m): leaves by fewest idle servers, their
 * servers while each rank gets a circuit to m through a distinct OCS. */
static int spine_try(struct ocs_vclos_find *f, uint32_t m, uint32_t n)
{
	uint32_t i, leaf, take, need = n, u = 0;

	ocs_vclos_match_begin(f, m);
	f->l = 0;
	for (i = 0; i < f->nlorder && need; i++) {
		leaf = f->lorder[i];
		f->part[f->npart++] = leaf;
		take = spine_take(f, leaf, &need, &u);
		if (!take) {
			f->npart--;
			continue;
		}
		f->leaf[f->l] = leaf;
		f->srv[f->l++] = take;
		f->part_leaf = leaf;
		f->part_gpus = u;
	}
	if (need) {
		ocs_vclos_match_clear(f);
		f->l = 0;
		return 0;
	}
	ocs_vclos_match_commit(f);
	plan_sort_leaves(f);
	f->s = 1;
	f->spine[0] = m;
	return 1;
}

int ocs_vclos_find_spine(struct ocs_vclos *c, uint32_t n)
{
	struct ocs_vclos_find *f = c->find;
	uint64_t idle = 0;
	uint32_t i;

	for (i = 0; i < f->nlorder; i++)
		idle += f->rsn[f->lorder[i]];
	if (idle * f->T < n)
		return 0;
	f->exact = true;
	for (i = 0; i < f->S; i++) {
		if (f->rpn[f->sorder[i]] >= n && spine_try(f, f->sorder[i], n))
			return 1;
	}
	return 0;
}

/* Full (spine, OCS) pairs lose idle circuits the plan does not use, lowest leaf first. */
static void plan_tear(struct ocs_vclos_find *f)
{
	uint32_t m, k, n, i;

	for (m = 0; m < f->S; m++) {
		for (k = 0; k < f->K; k++) {
			for (n = 0; n < f->L && f->wcnt[m * f->K + k] > f->P; n++) {
				i = n * f->K + k;
				if (f->wcirc[i] != m || f->owner[i] != VCLOS_FREE ||
				    f->use[i] != OCS_VCLOS_NONE)
					continue;
				f->wcirc[i] = OCS_VCLOS_NONE;
				f->wcnt[m * f->K + k]--;
			}
		}
	}
}

/* Field by field: ch is zeroed, so its padding stays zero and lists compare byte by byte. */
static void plan_change(struct ocs_vclos_change *ch, uint32_t i, uint32_t K, uint32_t spine,
			bool off)
{
	ch->ocs = i % K;
	ch->leaf = i / K;
	ch->spine = spine;
	ch->off = off;
}

/* Tear-downs: idle circuits gone after the plan, then, where a (spine, OCS) would overflow
 * while the joins are made one by one, circuits of the job's ports that move elsewhere. */
static uint32_t plan_offs(struct ocs_vclos_find *f, struct ocs_vclos_change *ch)
{
	uint32_t i, k, old, now, nch = 0, *net = f->tmp;

	memcpy(net, f->cnt0, (size_t)f->S * f->K * sizeof(*net));
	for (i = 0; i < f->L * f->K; i++) {
		k = i % f->K;
		old = f->circ[i];
		now = f->wcirc[i];
		if (old != OCS_VCLOS_NONE && now == OCS_VCLOS_NONE) {
			plan_change(&ch[nch++], i, f->K, old, true);
			net[old * f->K + k]--;
		}
		if (now != OCS_VCLOS_NONE && now != old)
			net[now * f->K + k]++;
	}
	for (i = 0; i < f->L * f->K; i++) {
		k = i % f->K;
		old = f->circ[i];
		now = f->wcirc[i];
		if (old == OCS_VCLOS_NONE || now == OCS_VCLOS_NONE || now == old ||
		    net[old * f->K + k] <= f->P)
			continue;
		plan_change(&ch[nch++], i, f->K, old, true);
		net[old * f->K + k]--;
	}
	return nch;
}

uint32_t ocs_vclos_find_changes(struct ocs_vclos_find *f, struct ocs_vclos_change *ch)
{
	uint32_t i, nch;

	plan_tear(f);
	nch = plan_offs(f, ch);
	for (i = 0; i < f->L * f->K; i++) {
		if (f->wcirc[i] != OCS_VCLOS_NONE && f->wcirc[i] != f->circ[i])
			plan_change(&ch[nch++], i, f->K, f->wcirc[i], false);
	}
	return nch;
}
