// SPDX-License-Identifier: MIT
/* The happens-before side of the schedule prover (coll_prove_int.h). Every
 * step is three events in a graph; a topological order of it (plus rendezvous edges) is an
 * execution, a cycle is a deadlock, and its transitive closure tells which accesses to a
 * rank's buffer are ordered whatever the timing. */
#include <stdlib.h>
#include <string.h>

#include "traffic/coll_prove_int.h"

static uint32_t pv_ev(uint32_t g, int k)
{
	return 3 * g + (uint32_t)k;
}

static void pv_add_edge(struct pv *m, uint32_t from, uint32_t to, bool hb)
{
	struct pv_edge e = {from, to, hb};

	if (vec_push(&m->edges, e))
		m->oom = true;
}

/* Happens-before: start < middle < end; a dependency's end < start; a send's start < the
 * data arriving, and its read done < the receive's end; FIFO: sends of one connection start
 * and end in order, a receive's data arrives after the previous receive ended. Rendezvous (deadlock
 * only): a send ends after its receive. */
static void pv_step_edges(struct pv *m, uint32_t g)
{
	const struct coll_step *st = pv_step(m, g);
	uint32_t base = m->s->ranks.v[m->rank_of[g]].step_off, j, o = m->match[g];

	pv_add_edge(m, pv_ev(g, PV_EV_S), pv_ev(g, PV_EV_X), true);
	pv_add_edge(m, pv_ev(g, PV_EV_X), pv_ev(g, PV_EV_E), true);
	for (j = 0; j < st->dep_n; j++)
		pv_add_edge(m, pv_ev(base + m->s->deps.v[st->dep_off + j], PV_EV_E),
			    pv_ev(g, PV_EV_S), true);
	if (st->op == COLL_LOCAL) /* no message: it reads, then writes */
		return;
	if (st->op == COLL_SEND) {
		pv_add_edge(m, pv_ev(g, PV_EV_S), pv_ev(o, PV_EV_X), true);
		pv_add_edge(m, pv_ev(g, PV_EV_X), pv_ev(o, PV_EV_E), true);
		pv_add_edge(m, pv_ev(o, PV_EV_E), pv_ev(g, PV_EV_E), false);
		if (m->fifo_prev[g] != PV_NONE) {
			pv_add_edge(m, pv_ev(m->fifo_prev[g], PV_EV_S), pv_ev(g, PV_EV_S), true);
			pv_add_edge(m, pv_ev(m->fifo_prev[g], PV_EV_E), pv_ev(g, PV_EV_E), true);
		}
	} else if (m->fifo_prev[g] != PV_NONE) {
		pv_add_edge(m, pv_ev(m->fifo_prev[g], PV_EV_E), pv_ev(g, PV_EV_X), true);
	}
}

static int pv_deadlock(struct pv *m, const uint8_t *done)
{
	char d[128];
	uint32_t g;

	for (g = 0; g < m->ns; g++)
		if (!done[pv_ev(g, PV_EV_E)])
			return pv_fail_at(m, g, "deadlock: %s never completes",
					  pv_desc(m, g, d, 128));
	return pv_fail(m, "deadlock");
}

/* Kahn's algorithm over all edges; a leftover event means a cycle: a deadlock. */
static int pv_sort(struct pv *m, const uint32_t *succ_start, const uint32_t *succ)
{
	uint32_t nev = 3 * m->ns, *indeg = calloc(nev, sizeof(*indeg));
	uint8_t *done = calloc(nev, 1);
	uint32_t head = 0, tail = 0, e, j;
	int err = 0;

	if (!indeg || !done) {
		err = pv_fail(m, "out of memory");
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
		err = pv_deadlock(m, done);
out:
	free(indeg);
	free(done);
	return err;
}

static void pv_set(uint64_t *row, uint32_t bit)
{
	row[bit / 64] |= 1ull << (bit % 64);
}

/* Event e's index among the events of its rank. */
static uint32_t pv_local(const struct pv *m, uint32_t e)
{
	return e - 3 * m->s->ranks.v[m->rank_of[e / 3]].step_off;
}

/* Whether a happens before b, both events of the rank whose closure m->reach holds. */
static bool pv_before(const struct pv *m, uint32_t a, uint32_t b)
{
	uint32_t la = pv_local(m, a);

	return m->reach[(size_t)b * m->words + la / 64] >> (la % 64) & 1;
}

/* In topological order, each event inherits which of rank r's events happen before its HB
 * predecessors: the closure restricted to r's events, one rank at a time, so memory is the
 * events times one rank's (not all) events. */
static void pv_closure(struct pv *m, uint32_t r)
{
	uint32_t i, j, e, p, lo = 3 * m->s->ranks.v[r].step_off;
	uint32_t hi = lo + 3 * m->s->ranks.v[r].step_n;
	size_t w, W = m->words;

	memset(m->reach, 0, (size_t)3 * m->ns * W * sizeof(*m->reach));
	for (i = 0; i < 3 * m->ns; i++) {
		e = m->order[i];
		for (j = m->pred_start[e]; j < m->pred_start[e + 1]; j++) {
			p = m->pred[j];
			for (w = 0; w < W; w++)
				m->reach[(size_t)e * W + w] |= m->reach[(size_t)p * W + w];
			if (p >= lo && p < hi)
				pv_set(&m->reach[(size_t)e * W], p - lo);
		}
	}
}

/* CSR adjacency of the edges: by source (all edges) or by target (HB edges only). */
static uint32_t *pv_csr(const struct pv *m, uint32_t **adj, bool by_to)
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
		const struct pv_edge *e = &m->edges.v[j];

		if (!by_to || e->hb)
			(*adj)[start[(by_to ? e->to : e->from) + 1]++] = by_to ? e->from : e->to;
	}
	return start;
}

int pv_graph(struct pv *m)
{
	uint32_t *ss, *sa = NULL, g;
	int err = -1;

	for (g = 0; g < m->ns; g++)
		pv_step_edges(m, g);
	if (m->oom)
		return pv_fail(m, "out of memory");
	ss = pv_csr(m, &sa, false);
	if (ss)
		m->pred_start = pv_csr(m, &m->pred, true);
	if (!ss || !m->pred_start)
		pv_fail(m, "out of memory");
	else if (!pv_sort(m, ss, sa))
		err = 0;
	free(ss);
	free(sa);
	return err;
}

/* One access of a step to its rank's memory: a region (all-to-all's in, the buffer (its out),
 * scratch), bytes [lo, hi), whether it writes and whether by adding, and the events it lasts
 * between: a read from the step's start to its read being done, a write from the data being
 * there (a local step's read done) to the step's end. */
struct pv_acc {
	uint8_t region, write, add;
	uint64_t lo, hi;
	uint32_t from, to;
};

enum { PV_R_IN, PV_R_BUF, PV_R_SCRATCH };

/* Step g's accesses into a (at most two: a local step reads and writes); how many. */
static unsigned pv_accs(const struct pv *m, uint32_t g, struct pv_acc *a)
{
	const struct coll_step *st = pv_step(m, g);
	bool a2a = m->p->kind == COLL_ALLTOALL, reads = st->op != COLL_RECV;
	uint64_t roff = st->op == COLL_LOCAL ? st->src : st->off;
	unsigned n = 0;

	if (reads)
		a[n++] = (struct pv_acc){st->flags & COLL_F_SRC_SCRATCH ? PV_R_SCRATCH
					 : a2a				? PV_R_IN
									: PV_R_BUF,
					 0,
					 0,
					 roff,
					 roff + st->len,
					 pv_ev(g, PV_EV_S),
					 pv_ev(g, PV_EV_X)};
	if (st->op != COLL_SEND)
		a[n++] = (struct pv_acc){st->flags & COLL_F_DST_SCRATCH ? PV_R_SCRATCH : PV_R_BUF,
					 1,
					 (st->flags & COLL_F_REDUCE) != 0,
					 st->off,
					 st->off + st->len,
					 pv_ev(g, PV_EV_X),
					 pv_ev(g, PV_EV_E)};
	return n;
}

/* Two accesses to the same bytes conflict unless both read, or both add (additions commute);
 * conflicting ones must be ordered by happens-before, one ending before the other begins. */
static bool pv_acc_ordered(const struct pv *m, const struct pv_acc *a, const struct pv_acc *b)
{
	if (a->region != b->region || a->hi <= b->lo || b->hi <= a->lo)
		return true;
	if ((!a->write && !b->write) || (a->add && b->add))
		return true;
	return pv_before(m, a->to, b->from) || pv_before(m, b->to, a->from);
}

/* Whether every pair of x's and y's accesses is ordered where it must be. */
static bool pv_ordered(const struct pv *m, uint32_t x, uint32_t y)
{
	struct pv_acc a[2], b[2];
	unsigned na = pv_accs(m, x, a), nb = pv_accs(m, y, b), i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (!pv_acc_ordered(m, &a[i], &b[j]))
				return false;
	return true;
}

/* The largest rank's events in 64-bit words: the closure's row. */
static size_t pv_row_words(const struct pv *m)
{
	uint32_t r, most = 0;

	for (r = 0; r < m->n; r++)
		if (m->s->ranks.v[r].step_n > most)
			most = m->s->ranks.v[r].step_n;
	return (3 * (size_t)most + 63) / 64;
}

/* Rank r's conflicting accesses to the same bytes that nothing orders, if any. */
static int pv_rank_races(struct pv *m, uint32_t r)
{
	uint32_t x, y, lo = m->s->ranks.v[r].step_off, hi = lo + m->s->ranks.v[r].step_n;
	char d1[128], d2[128];

	m->words = (3 * (size_t)(hi - lo) + 63) / 64;
	pv_closure(m, r);
	for (x = lo; x < hi; x++)
		for (y = x + 1; y < hi; y++)
			if (!pv_ordered(m, x, y))
				return pv_fail_at(m, y, "race: %s and %s", pv_desc(m, x, d1, 128),
						  pv_desc(m, y, d2, 128));
	return 0;
}

int pv_races(struct pv *m)
{
	size_t row = pv_row_words(m);
	double work = (double)m->edges.n * (double)row * m->n;
	uint32_t r;

	if (work > PV_MAX_WORK)
		return pv_fail(m,
			       "a schedule of %u steps over %u ranks: too large to prove "
			       "(%.2g word operations, the prover takes up to %.2g)",
			       m->ns, m->n, work, (double)PV_MAX_WORK);
	m->reach = calloc((size_t)3 * m->ns * row + 1, sizeof(*m->reach));
	if (!m->reach)
		return pv_fail(m, "out of memory");
	for (r = 0; r < m->n; r++)
		if (m->s->ranks.v[r].step_n > 1 && pv_rank_races(m, r))
			return -1;
	return 0;
}
