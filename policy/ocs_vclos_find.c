// SPDX-License-Identifier: MIT
/* OCS-vClos stage 3 (ocs_vclos_find.h): Algorithm 4 (OCSFINDCLOS) with a search in place of
 * ILP A.3. Per shape l x s: branch and bound over leaf sets, and per leaf set the virtual
 * spines one by one, each a bipartite matching of the l leaves to OCSes at one spine, with
 * depth-first backtracking over the spines chosen; failing that, an edge colouring
 * (ocs_vclos_color.c). A heuristic: A.3 is a 3-index assignment (leaf, spine, OCS), which no
 * flow captures. */
#include <stdlib.h>
#include <string.h>

#include "policy/ocs_vclos_find.h"

static int clos_key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int clos_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

bool ocs_vclos_shape_ok(const struct ocs_vclos *c, uint32_t n, uint32_t l)
{
	uint32_t s = n / l;

	return l >= 2 && l <= c->vc.leaves && n % l == 0 && s % c->vc.gpus == 0 &&
	       s <= c->vc.servers * c->vc.gpus && s <= c->ocs;
}

/* A matching of the path's l leaves at spine m, one circuit each: 1 (left in f->mat) or 0. */
static int clos_match(struct ocs_vclos_find *f, uint32_t m)
{
	uint32_t i;

	ocs_vclos_match_begin(f, m);
	for (i = 0; i < f->l; i++)
		f->part[f->npart++] = f->cur[i];
	for (i = 0; i < f->l; i++) {
		if (!ocs_vclos_match_add(f, f->cur[i])) {
			ocs_vclos_match_clear(f);
			return 0;
		}
	}
	return 1;
}

/* Virtual spine j on spine m: the matching's circuits become planned joins. */
static void clos_commit(struct ocs_vclos_find *f, uint32_t j, uint32_t m)
{
	uint32_t i, k;

	f->vs[j] = m;
	for (i = 0; i < f->l; i++) {
		for (k = 0; k < f->K && !f->mat[f->cur[i] * f->K + k]; k++)
			;
		f->pk[i * f->s + j] = k;
	}
	ocs_vclos_match_commit(f);
}

/* The spines of one RPN group sorder[g..ge) that can take virtual spine j, into lv by
 * (changes, index); how many. */
static uint32_t clos_group(struct ocs_vclos_find *f, uint32_t g, uint32_t ge, uint64_t *lv)
{
	uint32_t i, m, cnt = 0;

	for (i = g; i < ge && f->snodes < f->slimit; i++, f->snodes++) {
		m = f->sorder[i];
		if (!clos_match(f, m))
			continue;
		lv[cnt++] = (uint64_t)ocs_vclos_match_cost(f) << 32 | m;
		ocs_vclos_match_clear(f);
	}
	qsort(lv, cnt, sizeof(*lv), clos_key_cmp);
	return cnt;
}

/* Virtual spines j.. of the path's leaf set: on the spine of least RPN (ILP A.3's objective)
 * that can take one more, then fewest changes, then lowest index; backtracking within
 * OCS_VCLOS_SPINE_MATCHES matchings beyond the first descent (at most s * S of them). 1 with
 * vs, pk and the plan made, or 0 with nothing planned. */
static int clos_spines(struct ocs_vclos_find *f, uint32_t j)
{
	uint64_t *lv = f->lvl + (size_t)j * f->S;
	uint32_t g, ge, t, cnt, mark = f->nlog;

	if (j == f->s)
		return 1;
	for (g = 0; g < f->S && f->snodes < f->slimit; g = ge) {
		for (ge = g + 1; ge < f->S && f->rpn[f->sorder[ge]] == f->rpn[f->sorder[g]]; ge++)
			;
		if (f->rpn[f->sorder[g]] < f->l)
			continue;
		cnt = clos_group(f, g, ge, lv);
		for (t = 0; t < cnt; t++) {
			clos_match(f, (uint32_t)lv[t]);
			clos_commit(f, j, (uint32_t)lv[t]);
			if (clos_spines(f, j + 1))
				return 1;
			ocs_vclos_plan_undo(f, mark);
		}
	}
	return 0;
}

/* A complete leaf set: its virtual spines one by one, else by the edge colouring (which
 * cannot fail with no job running); kept if cheaper than the best. */
static void clos_eval(struct ocs_vclos_find *f, uint64_t leafcost)
{
	uint32_t mark = f->nlog, j, ok;
	uint64_t cost = leafcost * f->T;

	f->snodes = 0;
	f->slimit = f->s * f->S + OCS_VCLOS_SPINE_MATCHES;
	ok = clos_spines(f, 0) || ocs_vclos_color(f);
	for (j = 0; ok && j < f->s; j++)
		cost += f->rpn[f->vs[j]];
	if (ok && cost < f->best_cost) {
		f->best_cost = cost;
		memcpy(f->best, f->cur, f->l * sizeof(*f->best));
		memcpy(f->best_vs, f->vs, f->s * sizeof(*f->best_vs));
		memcpy(f->best_k, f->pk, (size_t)f->l * f->s * sizeof(*f->best_k));
	}
	ocs_vclos_plan_undo(f, mark);
}

/* Whether leaves cand[d..] can complete the path (k chosen) below the best: the cheapest
 * l - k of them, and s virtual spines at the least RPN of a spine with l free ports. */
static bool clos_bound_ok(const struct ocs_vclos_find *f, uint32_t d, uint32_t k, uint64_t leafcost,
			  uint32_t rmin)
{
	uint32_t i;

	if (f->ncand - d < f->l - k)
		return false;
	for (i = d; i < d + f->l - k; i++)
		leafcost += f->rsn[f->cand[i]];
	return leafcost * f->T + (uint64_t)f->s * rmin < f->best_cost;
}

/* Include-first depth-first search over the candidates: the first leaf set it completes is
 * the greedy one (fewest idle servers first). Equal costs keep the first found. */
static void clos_dfs(struct ocs_vclos_find *f, uint32_t d, uint32_t k, uint64_t leafcost,
		     uint32_t rmin)
{
	if (k == f->l && f->sets >= OCS_VCLOS_LEAF_SETS) {
		f->cut = true;
		return;
	}
	if (k == f->l) {
		f->sets++;
		clos_eval(f, leafcost);
		return;
	}
	if (f->limit && f->nodes >= f->limit) {
		f->cut = true;
		return;
	}
	f->nodes++;
	if (!clos_bound_ok(f, d, k, leafcost, rmin))
		return;
	f->cur[k] = f->cand[d];
	clos_dfs(f, d + 1, k + 1, leafcost + f->rsn[f->cand[d]], rmin);
	clos_dfs(f, d + 1, k, leafcost, rmin);
}

/* The least RPN of a spine with at least l free ports, or UINT32_MAX if the spines cannot
 * take s virtual spines of l circuits each at all. */
static uint32_t clos_rmin(const struct ocs_vclos_find *f)
{
	uint32_t i, rmin = UINT32_MAX;
	uint64_t host = 0;

	for (i = 0; i < f->S; i++) {
		host += f->rpn[f->sorder[i]] / f->l;
		if (rmin == UINT32_MAX && f->rpn[f->sorder[i]] >= f->l)
			rmin = f->rpn[f->sorder[i]];
	}
	return host >= f->s ? rmin : UINT32_MAX;
}

/* Plans the best set found again, and writes the result: leaves and spines ascending. */
static void clos_apply(struct ocs_vclos_find *f)
{
	uint32_t i, j;

	for (j = 0; j < f->s; j++) {
		for (i = 0; i < f->l; i++)
			ocs_vclos_plan_join(f, f->best[i], f->best_k[i * f->s + j], f->best_vs[j]);
	}
	for (i = 0; i < f->l; i++) {
		f->leaf[i] = f->best[i];
		f->srv[i] = f->s / f->T;
	}
	qsort(f->leaf, f->l, sizeof(*f->leaf), clos_u32_cmp);
	memcpy(f->spine, f->best_vs, f->s * sizeof(*f->spine));
	qsort(f->spine, f->s, sizeof(*f->spine), clos_u32_cmp);
	f->part_leaf = OCS_VCLOS_NONE;
	f->part_gpus = f->T;
}

/* One shape: candidates are leaves with s/T idle servers and s free ports, by (RSN, index). */
static int clos_shape(struct ocs_vclos *c, struct ocs_vclos_find *f, uint32_t l, uint32_t s)
{
	uint32_t i, n, rmin;

	f->l = l;
	f->s = s;
	f->ncand = 0;
	for (i = 0; i < f->nlorder; i++) {
		n = f->lorder[i];
		if (f->rsn[n] * f->T >= s && f->fports[n] >= s)
			f->cand[f->ncand++] = n;
	}
	rmin = clos_rmin(f);
	f->best_cost = UINT64_MAX;
	f->nodes = f->sets = 0;
	f->cut = false;
	if (f->ncand < l || rmin == UINT32_MAX)
		return 0;
	/* the first descent (the greedy leaf set) takes at most ncand + 1 nodes: always done */
	f->limit = c->search_nodes ? c->search_nodes + f->ncand + 1 : 0;
	clos_dfs(f, 0, 0, 0, rmin);
	if (f->best_cost == UINT64_MAX)
		return 0;
	clos_apply(f);
	return 1;
}

int ocs_vclos_find_clos(struct ocs_vclos *c, uint32_t n)
{
	struct ocs_vclos_find *f = c->find;
	bool exact = true;
	uint32_t l;

	for (l = 2; l <= c->vc.leaves && n / l >= c->vc.gpus; l++) {
		if (!ocs_vclos_shape_ok(c, n, l))
			continue;
		if (clos_shape(c, f, l, n / l)) {
			f->exact = exact && !f->cut;
			return 1;
		}
		exact = exact && !f->cut; /* a cut search may have missed this shape */
	}
	f->l = f->s = 0;
	return 0;
}
