// SPDX-License-Identifier: MIT
/* Test helper: the happens-before side of the schedule executor (see coll_sim_int.h). Every
 * step is three events in a graph; a topological order of it (plus rendezvous edges) is an
 * execution, a cycle is a deadlock, and its transitive closure tells which accesses to a
 * rank's buffer are ordered whatever the timing. */
#include <stdlib.h>

#include "tests/unit/coll_sim_int.h"

static uint32_t t_ev(uint32_t g, int k)
{
	return 3 * g + (uint32_t)k;
}

static void t_add_edge(struct t_sim *m, uint32_t from, uint32_t to, bool hb)
{
	struct t_edge e = {from, to, hb};

	if (vec_push(&m->edges, e))
		m->oom = true;
}

/* Happens-before: start < middle < end; a dependency's end < start; a send's start < the
 * data arriving, and its read done < the receive's end; FIFO: sends of one connection start
 * in order, a receive's data arrives after the previous receive ended. Rendezvous (deadlock
 * only): a send ends after its receive. */
static void t_step_edges(struct t_sim *m, uint32_t g)
{
	const struct coll_step *st = t_step(m, g);
	uint32_t base = m->s->ranks.v[m->rank_of[g]].step_off, j, o = m->match[g];

	t_add_edge(m, t_ev(g, T_EV_S), t_ev(g, T_EV_X), true);
	t_add_edge(m, t_ev(g, T_EV_X), t_ev(g, T_EV_E), true);
	for (j = 0; j < st->dep_n; j++)
		t_add_edge(m, t_ev(base + m->s->deps.v[st->dep_off + j], T_EV_E), t_ev(g, T_EV_S),
			   true);
	if (st->op == COLL_SEND) {
		t_add_edge(m, t_ev(g, T_EV_S), t_ev(o, T_EV_X), true);
		t_add_edge(m, t_ev(g, T_EV_X), t_ev(o, T_EV_E), true);
		t_add_edge(m, t_ev(o, T_EV_E), t_ev(g, T_EV_E), false);
		if (m->fifo_prev[g] != T_NONE)
			t_add_edge(m, t_ev(m->fifo_prev[g], T_EV_S), t_ev(g, T_EV_S), true);
	} else if (m->fifo_prev[g] != T_NONE) {
		t_add_edge(m, t_ev(m->fifo_prev[g], T_EV_E), t_ev(g, T_EV_X), true);
	}
}

static int t_deadlock(struct t_sim *m, const uint8_t *done)
{
	char d[128];
	uint32_t g;

	for (g = 0; g < m->ns; g++)
		if (!done[t_ev(g, T_EV_E)])
			return t_sim_fail(m, "deadlock: %s never completes",
					  t_sim_desc(m, g, d, 128));
	return t_sim_fail(m, "deadlock");
}

/* Kahn's algorithm over all edges; a leftover event means a cycle: a deadlock. */
static int t_sort(struct t_sim *m, const uint32_t *succ_start, const uint32_t *succ)
{
	uint32_t nev = 3 * m->ns, *indeg = calloc(nev, sizeof(*indeg));
	uint8_t *done = calloc(nev, 1);
	uint32_t head = 0, tail = 0, e, j;
	int err = 0;

	if (!indeg || !done) {
		err = t_sim_fail(m, "out of memory");
		goto out;
	}
	for (j = 0; j < m->edges.n; j++)
		indeg[m->edges.v[j].to]++;
	for (e = 0; e < nev; e++)
		if (!indeg[e])
			m->order[tail++] = e;
	while (head < tail) {
		e = m->order[head++];
		done[e] = 1;
		for (j = succ_start[e]; j < succ_start[e + 1]; j++)
			if (!--indeg[succ[j]])
				m->order[tail++] = succ[j];
	}
	if (tail < nev)
		err = t_deadlock(m, done);
out:
	free(indeg);
	free(done);
	return err;
}

static void t_set(uint64_t *row, uint32_t bit)
{
	row[bit / 64] |= 1ull << (bit % 64);
}

static bool t_before(const struct t_sim *m, uint32_t a, uint32_t b)
{
	return m->reach[(size_t)b * m->words + a / 64] >> (a % 64) & 1;
}

/* In topological order, each event inherits what happens before its HB predecessors. */
static void t_closure(struct t_sim *m, const uint32_t *pred_start, const uint32_t *pred)
{
	uint32_t i, j, e, p;
	size_t w;

	for (i = 0; i < 3 * m->ns; i++) {
		e = m->order[i];
		for (j = pred_start[e]; j < pred_start[e + 1]; j++) {
			p = pred[j];
			for (w = 0; w < m->words; w++)
				m->reach[(size_t)e * m->words + w] |=
					m->reach[(size_t)p * m->words + w];
			t_set(&m->reach[(size_t)e * m->words], p);
		}
	}
}

/* CSR adjacency of the edges: by source (all edges) or by target (HB edges only). */
static uint32_t *t_csr(const struct t_sim *m, uint32_t **adj, bool by_to)
{
	uint32_t nev = 3 * m->ns, *start = calloc(nev + 2, sizeof(*start)), j, k;

	*adj = calloc(m->edges.n + 1, sizeof(**adj));
	if (!start || !*adj) {
		free(start);
		return NULL;
	}
	for (j = 0; j < m->edges.n; j++)
		if (!by_to || m->edges.v[j].hb)
			start[(by_to ? m->edges.v[j].to : m->edges.v[j].from) + 2]++;
	for (k = 0; k < nev; k++)
		start[k + 2] += start[k + 1];
	for (j = 0; j < m->edges.n; j++) {
		const struct t_edge *e = &m->edges.v[j];

		if (!by_to || e->hb)
			(*adj)[start[(by_to ? e->to : e->from) + 1]++] = by_to ? e->from : e->to;
	}
	return start;
}

int t_sim_graph(struct t_sim *m)
{
	uint32_t *ss, *sa = NULL, *ps = NULL, *pa = NULL, g;
	int err = -1;

	for (g = 0; g < m->ns; g++)
		t_step_edges(m, g);
	if (m->oom)
		return t_sim_fail(m, "out of memory");
	ss = t_csr(m, &sa, false);
	if (ss)
		ps = t_csr(m, &pa, true);
	if (!ss || !ps)
		t_sim_fail(m, "out of memory");
	else if (!t_sort(m, ss, sa))
		err = 0;
	if (!err)
		t_closure(m, ps, pa);
	free(ss);
	free(sa);
	free(ps);
	free(pa);
	return err;
}

static bool t_overlap(const struct coll_step *a, const struct coll_step *b)
{
	return a->off < b->off + b->len && b->off < a->off + a->len;
}

/* Two accesses to the same bytes of one rank conflict unless both read, or both reduce
 * (additions commute); in all-to-all sends read `in` and receives write `out`. A send's
 * access lasts from its start to its read done, a receive's from its data arriving to its
 * end; conflicting accesses must be ordered by happens-before. */
static bool t_ordered(const struct t_sim *m, uint32_t x, uint32_t y)
{
	const struct coll_step *a = t_step(m, x), *b = t_step(m, y);
	uint32_t s, r;

	if (a->op == COLL_SEND && b->op == COLL_SEND)
		return true;
	if (a->op == COLL_RECV && b->op == COLL_RECV) {
		if (a->flags == COLL_F_REDUCE && b->flags == COLL_F_REDUCE)
			return true;
		return t_before(m, t_ev(x, T_EV_E), t_ev(y, T_EV_X)) ||
		       t_before(m, t_ev(y, T_EV_E), t_ev(x, T_EV_X));
	}
	if (m->p->kind == COLL_ALLTOALL)
		return true;
	s = a->op == COLL_SEND ? x : y;
	r = a->op == COLL_SEND ? y : x;
	return t_before(m, t_ev(s, T_EV_X), t_ev(r, T_EV_X)) ||
	       t_before(m, t_ev(r, T_EV_E), t_ev(s, T_EV_S));
}

int t_sim_races(struct t_sim *m)
{
	uint32_t r, x, y, lo, hi;
	char d1[128], d2[128];

	for (r = 0; r < m->n; r++) {
		lo = m->s->ranks.v[r].step_off;
		hi = lo + m->s->ranks.v[r].step_n;
		for (x = lo; x < hi; x++)
			for (y = x + 1; y < hi; y++)
				if (t_overlap(t_step(m, x), t_step(m, y)) && !t_ordered(m, x, y))
					return t_sim_fail(m, "race: %s and %s",
							  t_sim_desc(m, x, d1, 128),
							  t_sim_desc(m, y, d2, 128));
	}
	return 0;
}
