// SPDX-License-Identifier: MIT
/* Path assignment by the greedy routing paper's Algorithm 1 (see greedy.h), in input order or
 * the authors' busiest-ToR-first order, and the exact min-max assignment by branch and bound. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "policy/greedy.h"

static const struct greedy_cand *greedy_cand_of(const struct greedy_in *in, uint32_t c, uint32_t k)
{
	return &in->cands[in->comms[c].cand_off + k];
}

/* Whether links[i] already appeared in links[0..i): a commodity loads a link once however often
 * its candidate lists it ("the number of commodities" on a link). */
static bool greedy_link_dup(const uint32_t *links, uint32_t i)
{
	uint32_t j;

	for (j = 0; j < i; j++) {
		if (links[j] == links[i])
			return true;
	}
	return false;
}

static int greedy_cand_check(const struct greedy_in *in, const struct greedy_cand *k)
{
	uint32_t i;

	if (k->link_off > UINT32_MAX - k->link_n)
		return -EINVAL;
	for (i = 0; i < k->link_n; i++) {
		if (in->links[k->link_off + i] >= in->nlinks)
			return -EINVAL;
	}
	return 0;
}

int greedy_check(const struct greedy_in *in)
{
	const struct greedy_comm *cm;
	uint32_t c, k;
	int err;

	if (in->ncomm > INT_MAX)
		return -EINVAL;
	for (c = 0; c < in->ncomm; c++) {
		cm = &in->comms[c];
		if (cm->cand_off > UINT32_MAX - cm->cand_n)
			return -EINVAL;
		for (k = 0; k < cm->cand_n; k++) {
			err = greedy_cand_check(in, greedy_cand_of(in, c, k));
			if (err)
				return err;
		}
	}
	return 0;
}

static uint32_t *greedy_loads_new(const struct greedy_in *in)
{
	return calloc(in->nlinks ? in->nlinks : 1, sizeof(uint32_t));
}

/* The load of the candidate's busiest link before it is taken. */
static uint32_t greedy_cand_peak(const struct greedy_in *in, const uint32_t *load,
				 const struct greedy_cand *k)
{
	uint32_t i, l, peak = 0;

	for (i = 0; i < k->link_n; i++) {
		l = load[in->links[k->link_off + i]];
		peak = l > peak ? l : peak;
	}
	return peak;
}

/* Adds delta (+1 or -1) to each distinct link of the candidate; returns the largest new load. */
static uint32_t greedy_cand_add(const struct greedy_in *in, uint32_t *load,
				const struct greedy_cand *k, int delta)
{
	const uint32_t *links = in->links + k->link_off;
	uint32_t i, peak = 0;

	for (i = 0; i < k->link_n; i++) {
		if (greedy_link_dup(links, i))
			continue;
		load[links[i]] += (uint32_t)delta;
		peak = load[links[i]] > peak ? load[links[i]] : peak;
	}
	return peak;
}

/* Greedy routing §3.4.1, Alg. 1 lines 2-9: start from P_uv(0), the lowest spine, and move only
 * to a candidate whose busiest link is strictly less loaded (ties keep the lowest index). */
static uint32_t greedy_pick(const struct greedy_in *in, const uint32_t *load, uint32_t c)
{
	uint32_t k, best = 0, l, bestl;

	bestl = greedy_cand_peak(in, load, greedy_cand_of(in, c, 0));
	for (k = 1; k < in->comms[c].cand_n; k++) {
		l = greedy_cand_peak(in, load, greedy_cand_of(in, c, k));
		if (l < bestl) {
			bestl = l;
			best = k;
		}
	}
	return best;
}

/* ---- the authors' order: busiest ToR first (the authors' code, sortTorConnections) ---- */

struct greedy_member {
	uint32_t grp, c;
};

struct greedy_group {
	uint32_t size, kind, grp, first; /* kind 0: source ToR, 1: destination ToR */
};

struct greedy_sort {
	struct greedy_member *mem; /* source memberships [0, n), destination ones [n, 2n) */
	struct greedy_group *grp;
	uint8_t *seen;
	uint32_t n, ngrp;
};

static int greedy_member_cmp(const void *a, const void *b)
{
	const struct greedy_member *x = a, *y = b;

	if (x->grp != y->grp)
		return x->grp < y->grp ? -1 : 1;
	return x->c < y->c ? -1 : x->c > y->c;
}

/* Larger first; ties: source before destination, then the lower ToR id. */
static int greedy_group_cmp(const void *a, const void *b)
{
	const struct greedy_group *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->grp < y->grp ? -1 : x->grp > y->grp;
}

static int greedy_sort_init(struct greedy_sort *s, const struct greedy_in *in)
{
	uint32_t c, n = 0;

	memset(s, 0, sizeof(*s));
	for (c = 0; c < in->ncomm; c++)
		n += in->comms[c].cand_n > 0;
	s->n = n;
	s->mem = calloc(2 * (size_t)n + 1, sizeof(*s->mem));
	s->grp = calloc(2 * (size_t)n + 1, sizeof(*s->grp));
	s->seen = calloc(in->ncomm + 1, 1);
	if (!s->mem || !s->grp || !s->seen)
		return -ENOMEM;
	for (c = 0, n = 0; c < in->ncomm; c++) {
		if (!in->comms[c].cand_n)
			continue;
		s->mem[n] = (struct greedy_member){.grp = in->comms[c].src_grp, .c = c};
		s->mem[s->n + n++] = (struct greedy_member){.grp = in->comms[c].dst_grp, .c = c};
	}
	return 0;
}

static void greedy_sort_done(struct greedy_sort *s)
{
	free(s->mem);
	free(s->grp);
	free(s->seen);
}

/* Runs of equal group id in mem[first, first + n), sorted, become groups of this kind. */
static void greedy_sort_groups(struct greedy_sort *s, uint32_t first, uint32_t kind)
{
	struct greedy_member *m = s->mem + first;
	uint32_t i, start = 0;

	qsort(m, s->n, sizeof(*m), greedy_member_cmp);
	for (i = 1; i <= s->n; i++) {
		if (i < s->n && m[i].grp == m[start].grp)
			continue;
		s->grp[s->ngrp++] = (struct greedy_group){.size = i - start,
							  .kind = kind,
							  .grp = m[start].grp,
							  .first = first + start};
		start = i;
	}
}

/* The commodities with candidates in visiting order: each in its first group, input order
 * within a group (members are sorted by commodity index inside a run). */
static void greedy_sort_walk(struct greedy_sort *s, uint32_t *order)
{
	const struct greedy_group *g;
	uint32_t i, j, n = 0, c;

	for (i = 0; i < s->ngrp; i++) {
		g = &s->grp[i];
		for (j = 0; j < g->size; j++) {
			c = s->mem[g->first + j].c;
			if (!s->seen[c]) {
				s->seen[c] = 1;
				order[n++] = c;
			}
		}
	}
}

/* Writes the visiting order into order[] and returns how many commodities it holds. */
static int greedy_order_busiest(const struct greedy_in *in, uint32_t *order)
{
	struct greedy_sort s;
	int ret;

	ret = greedy_sort_init(&s, in);
	if (ret)
		goto out;
	if (s.n) {
		greedy_sort_groups(&s, 0, 0);
		greedy_sort_groups(&s, s.n, 1);
	}
	qsort(s.grp, s.ngrp, sizeof(*s.grp), greedy_group_cmp);
	greedy_sort_walk(&s, order);
	ret = (int)s.n;
out:
	greedy_sort_done(&s);
	return ret;
}

static int greedy_order_input(const struct greedy_in *in, uint32_t *order)
{
	uint32_t c, n = 0;

	for (c = 0; c < in->ncomm; c++) {
		if (in->comms[c].cand_n)
			order[n++] = c;
	}
	return (int)n;
}

/* Greedy routing §3.4.1, Alg. 1: each commodity in order takes its least loaded candidate and
 * loads its links (line 10); loads start from zero, every run reassigns everything. */
static uint32_t greedy_run(const struct greedy_in *in, const uint32_t *order, uint32_t n,
			   uint32_t *load, uint32_t *choice)
{
	uint32_t i, c, l, top = 0;

	for (i = 0; i < n; i++) {
		c = order[i];
		choice[c] = greedy_pick(in, load, c);
		l = greedy_cand_add(in, load, greedy_cand_of(in, c, choice[c]), 1);
		top = l > top ? l : top;
	}
	return top;
}

int greedy_assign(const struct greedy_in *in, enum greedy_order order, uint32_t *choice)
{
	uint32_t *load = NULL, *seq = NULL;
	int n, ret;

	ret = greedy_check(in);
	if (ret)
		return ret;
	load = greedy_loads_new(in);
	seq = calloc(in->ncomm + 1, sizeof(*seq));
	ret = -ENOMEM;
	if (!load || !seq)
		goto out;
	n = order == GREEDY_ORDER_BUSIEST_TOR ? greedy_order_busiest(in, seq)
					      : greedy_order_input(in, seq);
	ret = n;
	if (n < 0)
		goto out;
	if (in->ncomm)
		memset(choice, 0, in->ncomm * sizeof(*choice));
	ret = (int)greedy_run(in, seq, (uint32_t)n, load, choice);
out:
	free(load);
	free(seq);
	return ret;
}

int greedy_max_load(const struct greedy_in *in, const uint32_t *choice)
{
	uint32_t *load, c, l, top = 0;
	int ret;

	ret = greedy_check(in);
	if (ret)
		return ret;
	for (c = 0; c < in->ncomm; c++) {
		if (in->comms[c].cand_n && choice[c] >= in->comms[c].cand_n)
			return -EINVAL;
	}
	load = greedy_loads_new(in);
	if (!load)
		return -ENOMEM;
	for (c = 0; c < in->ncomm; c++) {
		if (!in->comms[c].cand_n)
			continue;
		l = greedy_cand_add(in, load, greedy_cand_of(in, c, choice[c]), 1);
		top = l > top ? l : top;
	}
	free(load);
	return (int)top;
}

/* ---- exact: depth-first branch and bound ---- */

struct greedy_bb {
	const struct greedy_in *in;
	uint32_t *load; /* per link, of the commodities fixed so far */
	uint32_t *free; /* the commodities with a choice to make, in input order */
	uint32_t nfree;
	uint32_t *cur; /* choice being tried, per commodity */
	uint32_t *best_choice;
	uint32_t best; /* the best maximum load found; only strictly smaller ones are kept */
	uint32_t floor; /* the lower bound: a solution there ends the search */
};

uint64_t greedy_assignments(const struct greedy_in *in)
{
	uint64_t p = 1, n;
	uint32_t c;

	for (c = 0; c < in->ncomm; c++) {
		n = in->comms[c].cand_n;
		if (n > 1 && p > UINT64_MAX / n)
			return UINT64_MAX;
		p *= n ? n : 1;
	}
	return p;
}

/* Visits the choices of commodity free[d] in ascending order, so the solutions found come in
 * lexicographic order and the first of the optimal load is the one kept. */
static void greedy_bb_dfs(struct greedy_bb *b, uint32_t d, uint32_t top)
{
	const struct greedy_cand *k;
	uint32_t c, i, l;

	if (d == b->nfree) {
		b->best = top;
		if (b->in->ncomm)
			memcpy(b->best_choice, b->cur, b->in->ncomm * sizeof(*b->cur));
		return;
	}
	c = b->free[d];
	for (i = 0; i < b->in->comms[c].cand_n && top < b->best && b->best > b->floor; i++) {
		k = greedy_cand_of(b->in, c, i);
		l = k->link_n ? greedy_cand_peak(b->in, b->load, k) + 1 : 0;
		if (l >= b->best)
			continue; /* cannot beat the best found */
		b->cur[c] = i;
		l = greedy_cand_add(b->in, b->load, k, 1);
		greedy_bb_dfs(b, d + 1, l > top ? l : top);
		greedy_cand_add(b->in, b->load, k, -1);
	}
	b->cur[c] = 0;
}

/* Fixes the commodities with one candidate (loaded once, for good) and lists the others, so
 * the recursion is at most log2(limit) deep; returns the maximum load of the fixed ones. */
static uint32_t greedy_bb_fix(struct greedy_bb *b)
{
	const struct greedy_in *in = b->in;
	uint32_t c, l, top = 0;

	for (c = 0; c < in->ncomm; c++) {
		if (in->comms[c].cand_n > 1)
			b->free[b->nfree++] = c;
		if (in->comms[c].cand_n != 1)
			continue;
		l = greedy_cand_add(in, b->load, greedy_cand_of(in, c, 0), 1);
		top = l > top ? l : top;
	}
	return top;
}

static int greedy_bb_init(struct greedy_bb *b, const struct greedy_in *in, uint32_t *choice)
{
	size_t n = in->ncomm + 1;

	memset(b, 0, sizeof(*b));
	b->in = in;
	b->best_choice = choice;
	b->load = greedy_loads_new(in);
	b->free = calloc(n, sizeof(*b->free));
	b->cur = calloc(n, sizeof(*b->cur));
	return b->load && b->free && b->cur ? 0 : -ENOMEM;
}

static void greedy_bb_done(struct greedy_bb *b)
{
	free(b->load);
	free(b->free);
	free(b->cur);
}

int greedy_optimal(const struct greedy_in *in, uint64_t limit, uint32_t *choice)
{
	struct greedy_bb b;
	uint32_t top;
	int g, ret;

	ret = greedy_check(in);
	if (ret)
		return ret;
	if (greedy_assignments(in) > limit)
		return -E2BIG;
	/* greedy's load is an upper bound (it is an assignment); starting one above it keeps the
	 * lexicographically first optimum, even when greedy's own choice is optimal too */
	g = greedy_assign(in, GREEDY_ORDER_INPUT, choice);
	if (g < 0)
		return g;
	ret = greedy_bb_init(&b, in, choice);
	if (ret)
		goto out;
	/* solutions come in lexicographic order with falling loads: the first to reach the
	 * lower bound is the lexicographically first optimum, and nothing is left to find */
	ret = greedy_lower_bound(in);
	if (ret < 0)
		goto out;
	b.floor = (uint32_t)ret;
	b.best = (uint32_t)g + 1;
	top = greedy_bb_fix(&b);
	greedy_bb_dfs(&b, 0, top);
	ret = (int)b.best;
out:
	greedy_bb_done(&b);
	return ret;
}

/* The link a candidate leaves its source ToR by (dst: enters its destination ToR by). */
static uint32_t greedy_end_link(const struct greedy_in *in, const struct greedy_cand *k, bool dst)
{
	return in->links[k->link_off + (dst ? k->link_n - 1 : 0)];
}

static int greedy_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Group `grp`'s bound: its commodities with candidates, over the distinct links their
 * candidates leave (enter) the ToR by, rounded up. links has room for every candidate. */
static uint32_t greedy_group_bound(const struct greedy_in *in, uint32_t grp, bool dst,
				   uint32_t *links)
{
	uint32_t c, k, n = 0, m = 0, u = 0;

	for (c = 0; c < in->ncomm; c++) {
		const struct greedy_comm *cm = &in->comms[c];

		if (!cm->cand_n || (dst ? cm->dst_grp : cm->src_grp) != grp)
			continue;
		n++;
		for (k = 0; k < cm->cand_n; k++) {
			if (!in->cands[cm->cand_off + k].link_n)
				return 0; /* it can load nothing: no bound from this group */
			links[m++] = greedy_end_link(in, &in->cands[cm->cand_off + k], dst);
		}
	}
	qsort(links, m, sizeof(*links), greedy_u32_cmp);
	for (k = 0; k < m; k++)
		u += !k || links[k] != links[k - 1];
	return u ? n / u + (n % u != 0) : 0;
}

/* Greedy routing §4 (Theorem 2's setting): every commodity of a source ToR leaves it by the
 * first link of the candidate it takes, so one of those links carries at least the group's
 * commodities over their count; the same for the last links into a destination ToR. Without
 * failures this is ceil(ToR degree / spines), the optimum (Koenig). */
int greedy_lower_bound(const struct greedy_in *in)
{
	uint32_t c, l, top = 0, total = 0, *links, *done;
	int dst;

	for (c = 0; c < in->ncomm; c++)
		total += in->comms[c].cand_n;
	links = malloc((total + 1) * sizeof(*links));
	done = calloc(in->ncomm + 1, sizeof(*done)); /* bit 0: source group done; bit 1: dest */
	if (!links || !done) {
		free(links);
		free(done);
		return -ENOMEM;
	}
	for (c = 0; c < in->ncomm; c++)
		for (dst = 0; in->comms[c].cand_n && dst <= 1; dst++) {
			uint32_t grp = dst ? in->comms[c].dst_grp : in->comms[c].src_grp, i;

			if (done[c] & (1u << dst))
				continue;
			for (i = c; i < in->ncomm; i++) /* mark the group's members done */
				if ((dst ? in->comms[i].dst_grp : in->comms[i].src_grp) == grp)
					done[i] |= 1u << dst;
			l = greedy_group_bound(in, grp, dst, links);
			top = l > top ? l : top;
		}
	free(links);
	free(done);
	return top > INT_MAX ? INT_MAX : (int)top;
}
