// SPDX-License-Identifier: MIT
/* OCS-vClos stage 3's fallback (ocs_vclos_find.h): a leaf set's circuits as an edge colouring.
 * A spine's ports form P lanes of one port per OCS; an edge joins a virtual leaf to a lane of
 * its virtual spine's spine, and its colour is the OCS. A leaf and a lane take each colour
 * once, so valid circuits are a proper edge colouring of a bipartite multigraph, which exists
 * with K colours when no vertex has more than K edges (König): built edge by edge, swapping a
 * Kempe chain of two colours where no colour is free at both ends. Running jobs' circuits are
 * fixed colours a chain may not cross; with none (no job running) it always succeeds. */
#include <string.h>

#include "policy/ocs_vclos_find.h"

#define CL_EMPTY UINT32_MAX
#define CL_FIXED (UINT32_MAX - 1)

/* P lanes for spine m; running jobs' circuits on OCS k fix colour k on lanes k, k + 1, ... */
static uint32_t color_lanes(struct ocs_vclos_find *f, uint32_t m)
{
	uint32_t K = f->K, P = f->P, first = f->nlanes, p, k, q, lane;

	for (p = 0; p < P; p++) {
		lane = first + p;
		f->lane_m[lane] = m;
		f->lane_room[lane] = K;
		memset(f->cl_lane + (size_t)lane * K, 0xff, K * sizeof(*f->cl_lane));
	}
	for (k = 0; k < K; k++) {
		for (q = 0; q < P - f->cap[m * K + k]; q++) {
			lane = first + (k + q) % P;
			f->cl_lane[lane * K + k] = CL_FIXED;
			f->lane_room[lane]--;
		}
	}
	f->nlanes += P;
	return first;
}

/* v virtual spines on spine m: each leaf gets v edges, each to the lane with most room. */
static void color_edges(struct ocs_vclos_find *f, uint32_t m, uint32_t v)
{
	uint32_t first = color_lanes(f, m), i, t, p, best;

	for (i = 0; i < f->l; i++) {
		for (t = 0; t < v; t++) {
			for (p = 1, best = first; p < f->P; p++)
				best = f->lane_room[first + p] > f->lane_room[best] ? first + p
										    : best;
			f->lane_room[best]--;
			f->e_leaf[f->nedges] = i;
			f->e_lane[f->nedges] = best;
			f->e_col[f->nedges++] = CL_EMPTY;
		}
	}
}

/* Virtual spines on the spines of least RPN (ILP A.3's objective), each taking as many as its
 * free ports allow (l a virtual spine); 1 if all s found a spine. */
static int color_host(struct ocs_vclos_find *f)
{
	uint32_t i, k, m, cap, v, rem = f->s, nv = 0;

	f->nlanes = f->nedges = 0;
	for (i = 0; i < f->S && rem; i++) {
		m = f->sorder[i];
		for (k = 0, cap = 0; k < f->K; k++)
			cap += f->cap[m * f->K + k];
		v = cap / f->l < rem ? cap / f->l : rem;
		if (!v)
			continue;
		rem -= v;
		color_edges(f, m, v);
		while (v--)
			f->vs[nv++] = m;
	}
	return !rem;
}

static void color_set(struct ocs_vclos_find *f, uint32_t e, uint32_t k)
{
	f->e_col[e] = k;
	f->cl_leaf[f->e_leaf[e] * f->K + k] = e;
	f->cl_lane[f->e_lane[e] * f->K + k] = e;
}

/* Swaps colours a and b on the chain from lane v that starts with colour a; 0 if it meets
 * a fixed colour. Afterwards a is free at v (v has no b). */
static int color_kempe(struct ocs_vclos_find *f, uint32_t v, uint32_t a, uint32_t b)
{
	uint32_t K = f->K, x = v, c = a, len = 0, t, i, e;
	bool lane = true;

	while (len < f->nedges) {
		t = lane ? f->cl_lane[x * K + c] : f->cl_leaf[x * K + c];
		if (t == CL_EMPTY)
			break;
		if (t == CL_FIXED)
			return 0;
		f->path[len++] = t;
		x = lane ? f->e_leaf[t] : f->e_lane[t];
		lane = !lane;
		c = c == a ? b : a;
	}
	for (i = 0; i < len; i++) {
		e = f->path[i];
		f->cl_leaf[f->e_leaf[e] * K + f->e_col[e]] = CL_EMPTY;
		f->cl_lane[f->e_lane[e] * K + f->e_col[e]] = CL_EMPTY;
	}
	for (i = 0; i < len; i++) {
		e = f->path[i];
		color_set(f, e, f->e_col[e] == a ? b : a);
	}
	return 1;
}

/* A colour free at both ends, one that keeps a circuit in place first; else a Kempe swap. */
static int color_edge(struct ocs_vclos_find *f, uint32_t e)
{
	uint32_t K = f->K, u = f->e_leaf[e], v = f->e_lane[e], n = f->cur[u], a, b;
	uint32_t best = CL_EMPTY;

	for (a = 0; a < K; a++) {
		if (f->cl_leaf[u * K + a] != CL_EMPTY || f->cl_lane[v * K + a] != CL_EMPTY)
			continue;
		if (f->circ[n * K + a] == f->lane_m[v]) {
			best = a;
			break;
		}
		best = best == CL_EMPTY ? a : best;
	}
	if (best != CL_EMPTY) {
		color_set(f, e, best);
		return 1;
	}
	for (a = 0; a < K; a++) {
		for (b = 0; f->cl_leaf[u * K + a] == CL_EMPTY && b < K; b++) {
			if (f->cl_lane[v * K + b] == CL_EMPTY && color_kempe(f, v, a, b)) {
				color_set(f, e, a);
				return 1;
			}
		}
	}
	return 0;
}

/* The colouring as planned joins; a leaf's circuits to one spine serve that spine's virtual
 * spines in ascending OCS order. */
static void color_plan(struct ocs_vclos_find *f)
{
	uint32_t e, i, j, k, n;
	uint64_t taken;

	for (e = 0; e < f->nedges; e++)
		ocs_vclos_plan_join(f, f->cur[f->e_leaf[e]], f->e_col[e], f->lane_m[f->e_lane[e]]);
	for (i = 0; i < f->l; i++) {
		n = f->cur[i];
		for (j = 0, taken = 0; j < f->s; j++) {
			for (k = 0; k < f->K; k++) {
				if (!(taken >> k & 1) && f->use[n * f->K + k] == f->vs[j])
					break;
			}
			taken |= 1ULL << k;
			f->pk[i * f->s + j] = k;
		}
	}
}

int ocs_vclos_color(struct ocs_vclos_find *f)
{
	uint32_t i, k, e;

	if (!color_host(f))
		return 0;
	for (i = 0; i < f->l; i++) {
		for (k = 0; k < f->K; k++)
			f->cl_leaf[i * f->K + k] =
				f->owner[f->cur[i] * f->K + k] == VCLOS_FREE ? CL_EMPTY : CL_FIXED;
	}
	for (e = 0; e < f->nedges; e++) {
		if (!color_edge(f, e))
			return 0;
	}
	color_plan(f);
	return 1;
}
