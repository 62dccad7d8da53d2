// SPDX-License-Identifier: MIT
/* vClos stage 2 (vclos_find.h): the vClos ILP (A.2) for one shape, solved by branch and
 * bound over sets of leaves. For a fixed set of leaves the best spines are the s cheapest
 * that have a free link to all of them, so only leaf sets are enumerated. */
#include <stdlib.h>
#include <string.h>

#include "policy/vclos_find.h"

struct vclos_find {
	uint32_t nw; /* 64-bit words in a set of spines */
	uint32_t *rsn; /* [L] idle servers per leaf (RSN) */
	uint32_t *rpn; /* [S] free links per spine (RPN) */
	uint32_t *sorder; /* [S] spines by (RPN, index): cheapest first */
	uint64_t *free; /* [L * nw] spines with a free link to each leaf */
	uint32_t *cand; /* [L] leaves that may take part, by (RSN, index) */
	uint64_t *keys; /* [max(L, S)] sort keys */
	uint64_t *inter; /* [(L + 1) * nw] spines common to the first k leaves on the path */
	uint32_t *cur, *best; /* [L] leaves on the path, and of the best set so far */
	uint64_t *best_in; /* [nw] spines common to the best set */
	uint32_t ncand, l, s, t;
	uint64_t best_cost; /* UINT64_MAX: none yet */
	uint32_t nodes, limit;
	bool cut; /* the budget ran out */
};

struct vclos_find *vclos_find_new(uint32_t leaves, uint32_t spines)
{
	struct vclos_find *f = calloc(1, sizeof(*f));
	uint32_t nw = (spines + 63) / 64, nk = leaves > spines ? leaves : spines;

	if (!f)
		return NULL;
	f->nw = nw;
	f->rsn = calloc(leaves, sizeof(*f->rsn));
	f->rpn = calloc(spines, sizeof(*f->rpn));
	f->sorder = calloc(spines, sizeof(*f->sorder));
	f->free = calloc((size_t)leaves * nw, sizeof(*f->free));
	f->cand = calloc(leaves, sizeof(*f->cand));
	f->keys = calloc(nk, sizeof(*f->keys));
	f->inter = calloc((size_t)(leaves + 1) * nw, sizeof(*f->inter));
	f->cur = calloc(leaves, sizeof(*f->cur));
	f->best = calloc(leaves, sizeof(*f->best));
	f->best_in = calloc(nw, sizeof(*f->best_in));
	if (!f->rsn || !f->rpn || !f->sorder || !f->free || !f->cand || !f->keys || !f->inter ||
	    !f->cur || !f->best || !f->best_in) {
		vclos_find_free(f);
		return NULL;
	}
	return f;
}

void vclos_find_free(struct vclos_find *f)
{
	if (!f)
		return;
	free(f->rsn);
	free(f->rpn);
	free(f->sorder);
	free(f->free);
	free(f->cand);
	free(f->keys);
	free(f->inter);
	free(f->cur);
	free(f->best);
	free(f->best_in);
	free(f);
}

int vclos_find_key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void vclos_find_sort(uint64_t *keys, uint32_t *idx, uint32_t n, const uint32_t *wt)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		keys[i] = (uint64_t)wt[idx[i]] << 32 | idx[i];
	qsort(keys, n, sizeof(*keys), vclos_find_key_cmp);
	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)keys[i];
}

void vclos_find_prep(struct vclos *c)
{
	struct vclos_find *f = c->find;
	uint32_t n, m, r, S = c->spines;

	memset(f->rpn, 0, S * sizeof(*f->rpn));
	memset(f->free, 0, (size_t)c->leaves * f->nw * sizeof(*f->free));
	for (n = 0; n < c->leaves; n++) {
		f->rsn[n] = 0;
		for (r = 0; r < c->servers; r++)
			f->rsn[n] += c->srv_free[n * c->servers + r] == c->gpus;
		for (m = 0; m < S; m++) {
			if (c->link_owner[n * S + m] != VCLOS_FREE)
				continue;
			f->free[n * f->nw + m / 64] |= 1ULL << (m % 64);
			f->rpn[m]++;
		}
	}
	for (m = 0; m < S; m++)
		f->sorder[m] = m;
	vclos_find_sort(f->keys, f->sorder, S, f->rpn);
}

/* out = a & the free spines of leaf; returns how many. */
static uint32_t find_and(const struct vclos_find *f, const uint64_t *a, uint32_t leaf,
			 uint64_t *out)
{
	const uint64_t *b = f->free + (size_t)leaf * f->nw;
	uint32_t w, k = 0;

	for (w = 0; w < f->nw; w++) {
		out[w] = a[w] & b[w];
		k += (uint32_t)__builtin_popcountll(out[w]);
	}
	return k;
}

static uint32_t find_common(const struct vclos_find *f, const uint64_t *a, uint32_t leaf)
{
	const uint64_t *b = f->free + (size_t)leaf * f->nw;
	uint32_t w, k = 0;

	for (w = 0; w < f->nw; w++)
		k += (uint32_t)__builtin_popcountll(a[w] & b[w]);
	return k;
}

static bool find_has(const uint64_t *set, uint32_t m)
{
	return set[m / 64] >> (m % 64) & 1;
}

/* The RPN of the s cheapest spines in set, or UINT64_MAX if it has fewer than s. As leaves
 * join, set shrinks and this grows: a lower bound for the spine part of the objective. */
static uint64_t find_spine_cost(const struct vclos_find *f, const uint64_t *set, uint32_t S)
{
	uint64_t sum = 0;
	uint32_t i, k = 0;

	for (i = 0; i < S && k < f->s; i++) {
		if (find_has(set, f->sorder[i])) {
			sum += f->rpn[f->sorder[i]];
			k++;
		}
	}
	return k == f->s ? sum : UINT64_MAX;
}

/* Whether the path (k leaves chosen, the next candidate d) may still beat the best: the
 * l-k cheapest remaining candidates that each share >= s spines with the path exist, and
 * they and the cheapest s common spines cost less than the best. */
static bool find_bound_ok(const struct vclos_find *f, uint32_t d, uint32_t k, uint64_t leafcost,
			  uint32_t S)
{
	const uint64_t *in = f->inter + (size_t)k * f->nw;
	uint64_t sum = leafcost, sc;
	uint32_t i, got = 0;

	for (i = d; i < f->ncand && got < f->l - k; i++) {
		if (find_common(f, in, f->cand[i]) >= f->s) {
			sum += f->rsn[f->cand[i]];
			got++;
		}
	}
	if (got < f->l - k)
		return false;
	sc = find_spine_cost(f, in, S);
	return sc != UINT64_MAX && sum * f->t + sc < f->best_cost;
}

static void find_leaf_set(struct vclos_find *f, const uint64_t *in, uint64_t leafcost, uint32_t S)
{
	uint64_t cost = find_spine_cost(f, in, S);

	if (cost == UINT64_MAX)
		return;
	cost += leafcost * f->t;
	if (cost < f->best_cost) {
		f->best_cost = cost;
		memcpy(f->best, f->cur, f->l * sizeof(*f->best));
		memcpy(f->best_in, in, f->nw * sizeof(*in));
	}
}

/* Include-first depth-first search over the candidates: the first leaf set it completes is
 * the greedy one (fewest idle servers first). Equal costs keep the first found. */
static void find_dfs(struct vclos_find *f, uint32_t d, uint32_t k, uint64_t leafcost, uint32_t S)
{
	uint64_t *in = f->inter + (size_t)k * f->nw, *out = in + f->nw;
	uint32_t leaf;

	if (k == f->l) {
		find_leaf_set(f, in, leafcost, S);
		return;
	}
	if (f->limit && f->nodes >= f->limit) {
		f->cut = true;
		return;
	}
	f->nodes++;
	if (!find_bound_ok(f, d, k, leafcost, S))
		return;
	leaf = f->cand[d];
	if (find_and(f, in, leaf, out) >= f->s) {
		f->cur[k] = leaf;
		find_dfs(f, d + 1, k + 1, leafcost + f->rsn[leaf], S);
	}
	find_dfs(f, d + 1, k, leafcost, S);
}

/* The root: spines with at least l free links, leaves with enough idle servers and at least
 * s of those spines, by (RSN, index). */
static void find_root(struct vclos_find *f, const struct vclos *c)
{
	uint64_t *root = f->inter;
	uint32_t n, m;

	memset(root, 0, f->nw * sizeof(*root));
	for (m = 0; m < c->spines; m++) {
		if (f->rpn[m] >= f->l)
			root[m / 64] |= 1ULL << (m % 64);
	}
	f->ncand = 0;
	for (n = 0; n < c->leaves; n++) {
		if (f->rsn[n] * c->gpus >= f->s && find_common(f, root, n) >= f->s)
			f->cand[f->ncand++] = n;
	}
	vclos_find_sort(f->keys, f->cand, f->ncand, f->rsn);
}

static int find_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Writes the best set's leaves and its s cheapest common spines, both ascending. */
static void find_result(struct vclos_find *f, uint32_t S, uint32_t *leaf, uint32_t *spine)
{
	uint32_t i, k = 0;

	memcpy(leaf, f->best, f->l * sizeof(*leaf));
	for (i = 0; i < S && k < f->s; i++) {
		if (find_has(f->best_in, f->sorder[i]))
			spine[k++] = f->sorder[i];
	}
	qsort(leaf, f->l, sizeof(*leaf), find_u32_cmp);
	qsort(spine, f->s, sizeof(*spine), find_u32_cmp);
}

int vclos_find_shape(struct vclos *c, uint32_t l, uint32_t s, uint32_t *leaf, uint32_t *spine,
		     bool *exact)
{
	struct vclos_find *f = c->find;

	f->l = l;
	f->s = s;
	f->t = c->gpus;
	f->best_cost = UINT64_MAX;
	f->nodes = 0;
	f->cut = false;
	find_root(f, c);
	/* the first descent (the greedy choice) takes at most ncand + 1 nodes: always done */
	f->limit = c->search_nodes ? c->search_nodes + f->ncand + 1 : 0;
	find_dfs(f, 0, 0, 0, c->spines);
	*exact = !f->cut;
	if (f->best_cost == UINT64_MAX)
		return 0;
	find_result(f, c->spines, leaf, spine);
	return 1;
}
