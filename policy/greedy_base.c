// SPDX-License-Identifier: MIT
/* The greedy routing paper's baselines (see greedy_base.h): Edge-Coloring by alternating paths
 * (Kempe chains), exact with the maximum degree's colors, and Hedera-style Simulated Annealing
 * over a spine per destination, its energy kept incrementally. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "policy/greedy_base.h"

#define BASE_NONE UINT32_MAX

/* An id and the index (edge, commodity, destination) it belongs to, for dense numbering. */
struct base_key {
	uint32_t id, i;
};

static int base_key_cmp(const void *a, const void *b)
{
	const struct base_key *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Sorts k[0..n) and numbers its distinct ids densely in ascending order: idx[k[j].i] is the
 * number of k[j].id. Returns how many distinct ids there are. */
static uint32_t base_dense(struct base_key *k, uint32_t n, uint32_t *idx)
{
	uint32_t j, m = 0;

	qsort(k, n, sizeof(*k), base_key_cmp);
	for (j = 0; j < n; j++) {
		m += j && k[j].id != k[j - 1].id;
		idx[k[j].i] = m;
	}
	return n ? m + 1 : 0;
}

/* ---- Edge-Coloring: greedy routing §5.2 (a §5.1 baseline), EdgeColoringRoutingStrategy ---- */

struct ec {
	uint32_t n; /* edges: the commodities with candidates, in input order */
	uint32_t nl, nv, k; /* left vertices (then the right ones), all vertices, colors */
	uint32_t *comm; /* edge -> commodity */
	uint32_t *end; /* edge e joins left vertex end[2e] and right vertex end[2e + 1] */
	uint32_t *color; /* per edge, BASE_NONE until colored */
	uint32_t *at; /* at[v * k + color]: the edge of that color at v, or BASE_NONE */
	uint32_t *path; /* scratch: an alternating path's edges */
	uint32_t *deg; /* per vertex */
	struct base_key *keys;
};

static int ec_init(struct ec *x, const struct greedy_in *in)
{
	uint32_t c, n = 0;

	memset(x, 0, sizeof(*x));
	for (c = 0; c < in->ncomm; c++)
		n += in->comms[c].cand_n > 0;
	x->n = n;
	x->comm = calloc(n + 1, sizeof(*x->comm));
	x->end = calloc(2 * (size_t)n + 1, sizeof(*x->end));
	x->color = calloc(n + 1, sizeof(*x->color));
	x->path = calloc(n + 1, sizeof(*x->path));
	x->deg = calloc(2 * (size_t)n + 1, sizeof(*x->deg));
	x->keys = calloc(n + 1, sizeof(*x->keys));
	if (!x->comm || !x->end || !x->color || !x->path || !x->deg || !x->keys)
		return -ENOMEM;
	for (c = 0, n = 0; c < in->ncomm; c++) {
		if (in->comms[c].cand_n)
			x->comm[n++] = c;
	}
	return 0;
}

static void ec_done(struct ec *x)
{
	free(x->comm);
	free(x->end);
	free(x->color);
	free(x->at);
	free(x->path);
	free(x->deg);
	free(x->keys);
}

/* Numbers one side's groups (0: the source groups, 1: the destination ones) densely from
 * base, so the two sides stay apart even where a ToR id is on both; returns how many. */
static uint32_t ec_side(struct ec *x, const struct greedy_in *in, uint32_t side, uint32_t base)
{
	uint32_t e, n, *idx = x->color; /* scratch until coloring starts */

	for (e = 0; e < x->n; e++) {
		const struct greedy_comm *cm = &in->comms[x->comm[e]];

		x->keys[e] = (struct base_key){side ? cm->dst_grp : cm->src_grp, e};
	}
	n = base_dense(x->keys, x->n, idx);
	for (e = 0; e < x->n; e++)
		x->end[2 * e + side] = base + idx[e];
	return n;
}

/* The vertices, their degrees and the maximum degree k: the colors Koenig needs. */
static void ec_vertices(struct ec *x, const struct greedy_in *in)
{
	uint32_t e;

	x->nl = ec_side(x, in, 0, 0);
	x->nv = x->nl + ec_side(x, in, 1, x->nl);
	for (e = 0; e < 2 * x->n; e++) {
		if (++x->deg[x->end[e]] > x->k)
			x->k = x->deg[x->end[e]];
	}
	for (e = 0; e < x->n; e++)
		x->color[e] = BASE_NONE;
}

static int ec_table(struct ec *x)
{
	size_t n = (size_t)x->nv * x->k;

	if (x->k && x->nv > SIZE_MAX / sizeof(*x->at) / x->k)
		return -ENOMEM;
	x->at = malloc((n ? n : 1) * sizeof(*x->at));
	if (!x->at)
		return -ENOMEM;
	memset(x->at, 0xff, n * sizeof(*x->at)); /* BASE_NONE everywhere */
	return 0;
}

static uint32_t *ec_slot(struct ec *x, uint32_t v, uint32_t color)
{
	return &x->at[(size_t)v * x->k + color];
}

/* The lowest color with no edge at v; one exists while v has an uncolored edge. */
static uint32_t ec_free(struct ec *x, uint32_t v)
{
	uint32_t c = 0;

	while (*ec_slot(x, v, c) != BASE_NONE)
		c++;
	return c;
}

static void ec_set(struct ec *x, uint32_t e, uint32_t color)
{
	x->color[e] = color;
	*ec_slot(x, x->end[2 * e], color) = e;
	*ec_slot(x, x->end[2 * e + 1], color) = e;
}

static void ec_unset(struct ec *x, uint32_t e)
{
	*ec_slot(x, x->end[2 * e], x->color[e]) = BASE_NONE;
	*ec_slot(x, x->end[2 * e + 1], x->color[e]) = BASE_NONE;
}

/* Swaps colors a and b along the a/b path that starts at v with v's a-edge (v has no b-edge,
 * so the path ends rather than closing a cycle); afterwards a is free at v. */
static void ec_flip(struct ec *x, uint32_t v, uint32_t a, uint32_t b)
{
	uint32_t e, n = 0, c = a, i;

	for (e = *ec_slot(x, v, a); e != BASE_NONE; e = *ec_slot(x, v, c)) {
		x->path[n++] = e;
		v = x->end[2 * e] == v ? x->end[2 * e + 1] : x->end[2 * e];
		c = c == a ? b : a;
	}
	for (i = 0; i < n; i++)
		ec_unset(x, x->path[i]);
	for (i = 0; i < n; i++)
		ec_set(x, x->path[i], x->color[x->path[i]] == a ? b : a);
}

/* Koenig's theorem by alternating paths: take a color a free at the left end u and b free at
 * the right end v; if a is taken at v, flip v's a/b path. In a bipartite graph that path
 * enters left vertices by a-edges only, and u has none, so it never reaches u: a ends free at
 * both ends, and no edge ever needs a color beyond the maximum degree. */
static void ec_color(struct ec *x, uint32_t e)
{
	uint32_t u = x->end[2 * e], v = x->end[2 * e + 1], a, b;

	a = ec_free(x, u);
	if (*ec_slot(x, v, a) != BASE_NONE) {
		b = ec_free(x, v);
		ec_flip(x, v, a, b);
	}
	ec_set(x, e, a);
}

int greedy_edge_colors(const struct greedy_in *in, uint32_t *color)
{
	struct ec x;
	uint32_t e, c;
	int ret;

	ret = greedy_check(in);
	if (ret)
		return ret;
	ret = ec_init(&x, in);
	if (ret)
		goto out;
	ec_vertices(&x, in);
	ret = ec_table(&x);
	if (ret)
		goto out;
	for (e = 0; e < x.n; e++)
		ec_color(&x, e);
	for (c = 0; c < in->ncomm; c++)
		color[c] = BASE_NONE;
	for (e = 0; e < x.n; e++)
		color[x.comm[e]] = x.color[e];
	ret = (int)x.k;
out:
	ec_done(&x);
	return ret;
}

/* Greedy routing §5.2: the authors' code takes spine alive_spines[color mod |alive|]; a
 * commodity's candidates are its alive spines in order, so that is candidate color mod cand_n. */
int greedy_edge_color(const struct greedy_in *in, uint32_t *choice)
{
	uint32_t c, n;
	int ret;

	ret = greedy_edge_colors(in, choice);
	if (ret < 0)
		return ret;
	for (c = 0; c < in->ncomm; c++) {
		n = in->comms[c].cand_n;
		choice[c] = n ? choice[c] % n : 0;
	}
	return greedy_max_load(in, choice);
}

/* ---- Simulated Annealing: greedy routing §5.1 (Hedera), SimulatedAnnealingRoutingStrategy ---- */

#define SA_T0 1000.0
#define SA_COOL 0.99
#define SA_TMIN 0.1

struct sa {
	const struct greedy_in *in;
	uint32_t ndst, s; /* destinations, spines (the most candidates) */
	uint32_t *dst; /* per commodity: its destination, BASE_NONE without candidates */
	uint32_t *first; /* destination d's commodities: member[first[d] .. first[d + 1]) */
	uint32_t *member;
	uint32_t *bytor; /* the destinations by ToR (dst_grp), then key */
	uint32_t *tpos, *tstart, *tn; /* per destination: its place in bytor, its ToR's run */
	uint32_t *spine, *best; /* per destination: the state, the best state seen */
	uint32_t *load; /* per link */
	uint32_t *hist; /* links per load, loads 0..ncomm */
	uint32_t top; /* the maximum load */
	uint64_t rng;
	struct base_key *keys;
	uint32_t *block; /* holds first, member and the other per-destination arrays */
};

static uint32_t sa_below(uint64_t *x, uint32_t n)
{
	return (uint32_t)(((rng_next(x) >> 32) * n) >> 32);
}

static int sa_init(struct sa *x, const struct greedy_in *in, uint64_t seed)
{
	uint32_t **arr[] = {&x->member, &x->tpos,  &x->tstart, &x->tn,
			    &x->bytor,	&x->spine, &x->best};
	uint32_t c, n = 1; /* a destination per commodity with candidates at most, + first's end */
	size_t i, narr = sizeof(arr) / sizeof(arr[0]);

	memset(x, 0, sizeof(*x));
	x->in = in;
	x->rng = seed;
	for (c = 0; c < in->ncomm; c++) {
		n += in->comms[c].cand_n > 0;
		x->s = in->comms[c].cand_n > x->s ? in->comms[c].cand_n : x->s;
	}
	x->block = calloc((narr + 1) * (size_t)n, sizeof(*x->block));
	x->dst = calloc(in->ncomm + 1, sizeof(*x->dst));
	x->load = calloc(in->nlinks + 1, sizeof(*x->load));
	x->hist = calloc(in->ncomm + 1, sizeof(*x->hist));
	x->keys = calloc(n, sizeof(*x->keys));
	if (!x->block || !x->dst || !x->load || !x->hist || !x->keys)
		return -ENOMEM;
	x->first = x->block;
	for (i = 0; i < narr; i++)
		*arr[i] = x->block + (i + 1) * n;
	return 0;
}

static void sa_done(struct sa *x)
{
	free(x->block);
	free(x->dst);
	free(x->load);
	free(x->hist);
	free(x->keys);
}

/* Numbers the destinations by key and lists each one's commodities (ascending, so the first
 * is its first commodity); commodities without candidates belong to none. */
static void sa_dests(struct sa *x, const uint32_t *dst_key)
{
	const struct greedy_in *in = x->in;
	uint32_t c, j, n = 0;

	for (c = 0; c < in->ncomm; c++) {
		x->dst[c] = BASE_NONE;
		if (in->comms[c].cand_n)
			x->keys[n++] = (struct base_key){dst_key[c], c};
	}
	x->ndst = base_dense(x->keys, n, x->dst);
	for (j = 0; j < n; j++) {
		x->member[j] = x->keys[j].i;
		if (!j || x->keys[j].id != x->keys[j - 1].id)
			x->first[x->dst[x->keys[j].i]] = j;
	}
	x->first[x->ndst] = n;
}

/* The destinations grouped by ToR, the dst_grp of each one's first commodity: bytor lists
 * them, each knows its place there and its ToR's run [tstart, tstart + tn). */
static void sa_tors(struct sa *x)
{
	uint32_t d, i, j, end;

	for (d = 0; d < x->ndst; d++)
		x->keys[d] = (struct base_key){x->in->comms[x->member[x->first[d]]].dst_grp, d};
	qsort(x->keys, x->ndst, sizeof(*x->keys), base_key_cmp);
	for (j = 0; j < x->ndst; j = end) {
		for (end = j + 1; end < x->ndst && x->keys[end].id == x->keys[j].id; end++)
			;
		for (i = j; i < end; i++) {
			d = x->keys[i].i;
			x->bytor[i] = d;
			x->tpos[d] = i;
			x->tstart[d] = j;
			x->tn[d] = end - j;
		}
	}
}

/* Whether links[i] already appeared in links[0..i): a commodity loads a link once. */
static bool sa_link_dup(const uint32_t *links, uint32_t i)
{
	uint32_t j;

	for (j = 0; j < i; j++) {
		if (links[j] == links[i])
			return true;
	}
	return false;
}

/* Adds (delta +1) or removes (-1) commodity c's candidate k on its links, keeping the
 * histogram of loads; the maximum only rises here (sa_swap lowers it). */
static void sa_cand(struct sa *x, uint32_t c, uint32_t k, int delta)
{
	const struct greedy_cand *cd = &x->in->cands[x->in->comms[c].cand_off + k];
	const uint32_t *links = x->in->links + cd->link_off;
	uint32_t i, *l;

	for (i = 0; i < cd->link_n; i++) {
		if (sa_link_dup(links, i))
			continue;
		l = &x->load[links[i]];
		x->hist[*l]--;
		*l += (uint32_t)delta;
		x->hist[*l]++;
		x->top = *l > x->top ? *l : x->top;
	}
}

/* Moves destination d onto spine sp: each of its commodities to candidate sp mod cand_n. */
static void sa_put(struct sa *x, uint32_t d, uint32_t sp)
{
	uint32_t j, c, n;

	for (j = x->first[d]; j < x->first[d + 1]; j++) {
		c = x->member[j];
		n = x->in->comms[c].cand_n;
		if (x->spine[d] % n == sp % n)
			continue;
		sa_cand(x, c, x->spine[d] % n, -1);
		sa_cand(x, c, sp % n, 1);
	}
	x->spine[d] = sp;
}

/* Swaps the spines of two destinations; a second call undoes it. */
static void sa_swap(struct sa *x, uint32_t d1, uint32_t d2)
{
	uint32_t s1 = x->spine[d1];

	sa_put(x, d1, x->spine[d2]);
	sa_put(x, d2, s1);
	while (x->top && !x->hist[x->top])
		x->top--;
}

/* The authors' energy: the sum of the loads of the links at the maximum load. It ranks one
 * link at load L + 1 below two at L (say 6 < 2 x 5), so at low temperature the walk can settle
 * above the best maximum load it passed: hence sa_run keeps the best by maximum load. */
static uint64_t sa_energy(const struct sa *x)
{
	return (uint64_t)x->top * (x->top ? x->hist[x->top] : 0);
}

/* The initial state: each destination on its index among its ToR's hosts, mod S. */
static void sa_start(struct sa *x, const uint32_t *dst_slot)
{
	uint32_t d, j, c;

	x->hist[0] = x->in->nlinks;
	for (d = 0; d < x->ndst; d++) {
		c = x->member[x->first[d]];
		x->spine[d] = dst_slot[c] % x->s;
		for (j = x->first[d]; j < x->first[d + 1]; j++) {
			c = x->member[j];
			sa_cand(x, c, x->spine[d] % x->in->comms[c].cand_n, 1);
		}
	}
	memcpy(x->best, x->spine, x->ndst * sizeof(*x->spine));
}

/* Hedera's neighbour, each with probability 1/2: any two destinations, or two under the same
 * ToR. A destination alone under its ToR has no partner there: it swaps with any other. */
static void sa_pick(struct sa *x, uint32_t *d1, uint32_t *d2)
{
	uint32_t a = sa_below(&x->rng, x->ndst), j;
	bool tor = rng_next(&x->rng) >> 63;

	if (tor && x->tn[a] > 1) {
		j = sa_below(&x->rng, x->tn[a] - 1);
		j += j >= x->tpos[a] - x->tstart[a];
		*d2 = x->bytor[x->tstart[a] + j];
	} else {
		j = sa_below(&x->rng, x->ndst - 1);
		*d2 = j + (j >= a);
	}
	*d1 = a;
}

/* The annealing schedule of the authors' code: T from 1000, times 0.99 per step, while above
 * 0.1 (917 steps); a worse neighbour is kept with probability exp((E_cur - E_new) / T).
 * Whether their code returns the last state or the best one is not known: this keeps the
 * best by the compared metric, the maximum load, ties broken by the energy. */
static void sa_run(struct sa *x)
{
	uint64_t e, cur = sa_energy(x), best_e = cur;
	uint32_t d1, d2, best_top = x->top;
	double t;

	for (t = SA_T0; t > SA_TMIN && x->ndst > 1; t *= SA_COOL) {
		sa_pick(x, &d1, &d2);
		sa_swap(x, d1, d2);
		e = sa_energy(x);
		if (e > cur && rng_unit(&x->rng) >= exp(((double)cur - (double)e) / t)) {
			sa_swap(x, d1, d2); /* rejected */
			continue;
		}
		cur = e;
		if (x->top < best_top || (x->top == best_top && e < best_e)) {
			best_top = x->top;
			best_e = e;
			memcpy(x->best, x->spine, x->ndst * sizeof(*x->spine));
		}
	}
}

int greedy_anneal(const struct greedy_in *in, const uint32_t *dst_key, const uint32_t *dst_slot,
		  uint64_t seed, uint32_t *choice)
{
	struct sa x;
	uint32_t c;
	int ret;

	if (!in->ncomm)
		return 0;
	if (!dst_key || !dst_slot)
		return -EINVAL;
	ret = greedy_check(in);
	if (ret)
		return ret;
	memset(choice, 0, in->ncomm * sizeof(*choice)); /* 0 for those without candidates */
	ret = sa_init(&x, in, seed);
	if (ret)
		goto out;
	sa_dests(&x, dst_key);
	if (x.ndst) {
		sa_tors(&x);
		sa_start(&x, dst_slot);
		sa_run(&x);
	}
	for (c = 0; c < in->ncomm; c++) {
		if (x.dst[c] != BASE_NONE)
			choice[c] = x.best[x.dst[c]] % in->comms[c].cand_n;
	}
	ret = greedy_max_load(in, choice);
out:
	sa_done(&x);
	return ret;
}
