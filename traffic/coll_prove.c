// SPDX-License-Identifier: MIT
/* The schedule prover (coll.h, coll_prove): checks each step, matches sends with receives,
 * finds deadlocks and races through the happens-before graph (coll_prove_hb.c), and runs the
 * steps in one order it allows on symbolic values (coll_prove_data.c). Pure. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/coll_prove_int.h"

/* Events are 3 a step, indexed in 32 bits. */
#define PV_MAX_STEPS (UINT32_MAX / 4)

static int pv_vfail(struct pv *m, uint32_t g, const char *fmt, va_list ap)
{
	char msg[sizeof(((struct diag *)0)->msg)];
	bool oom = !strcmp(fmt, "out of memory");

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (m->first_bad == PV_NONE)
		m->first_bad = g;
	diag_set(m->d, oom ? -ENOMEM : -EINVAL, "%s", msg);
	return -1;
}

int pv_fail(struct pv *m, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pv_vfail(m, PV_NONE, fmt, ap);
	va_end(ap);
	return r;
}

int pv_fail_at(struct pv *m, uint32_t g, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pv_vfail(m, g, fmt, ap);
	va_end(ap);
	return r;
}

const char *pv_desc(const struct pv *m, uint32_t g, char *b, size_t len)
{
	const struct coll_step *st = pv_step(m, g);
	uint32_t r = m->rank_of[g];

	if (st->op == COLL_LOCAL) {
		snprintf(b, len, "rank %u step %u (%s %s[%llu+%llu) onto %s[%llu+%llu), phase %u)",
			 r, g - m->s->ranks.v[r].step_off,
			 st->flags & COLL_F_REDUCE ? "add" : "copy",
			 st->flags & COLL_F_SRC_SCRATCH ? "scratch " : "",
			 (unsigned long long)st->src, (unsigned long long)st->len,
			 st->flags & COLL_F_DST_SCRATCH ? "scratch " : "",
			 (unsigned long long)st->off, (unsigned long long)st->len, st->phase);
		return b;
	}
	snprintf(b, len, "rank %u step %u (%s %s %u, [%llu+%llu), phase %u)", r,
		 g - m->s->ranks.v[r].step_off, st->op == COLL_SEND ? "send" : "recv",
		 st->op == COLL_SEND ? "to" : "from", st->peer, (unsigned long long)st->off,
		 (unsigned long long)st->len, st->phase);
	return b;
}

/* The flag rules of the kinds hold for what lands in the buffer itself: scratch, and a local
 * step's copy or addition, are an algorithm's own business (the result says if it is wrong). */
static int pv_check_flags(struct pv *m, uint32_t g)
{
	const struct coll_step *st = pv_step(m, g);
	enum coll_kind k = m->p->kind;
	uint8_t f = st->flags & (uint8_t)~COLL_F_SCRATCH, sc = st->flags & COLL_F_SCRATCH;
	char d[128];

	if (st->op > COLL_LOCAL)
		return pv_fail_at(m, g, "step %u: bad op %u", g, st->op);
	if (sc && !m->p->scratch)
		return pv_fail_at(m, g, "%s: uses scratch, and the ranks have none",
				  pv_desc(m, g, d, 128));
	if (st->op == COLL_SEND)
		return f || (sc & COLL_F_DST_SCRATCH)
			       ? pv_fail_at(m, g, "%s: a send has flags", pv_desc(m, g, d, 128))
			       : 0;
	if (f != COLL_F_COPY && f != COLL_F_REDUCE)
		return pv_fail_at(m, g, "%s: flags %#x", pv_desc(m, g, d, 128), st->flags);
	if (st->op == COLL_RECV && (sc & COLL_F_SRC_SCRATCH))
		return pv_fail_at(m, g, "%s: a receive reads scratch", pv_desc(m, g, d, 128));
	if (k == COLL_ALLTOALL && f != COLL_F_COPY)
		return pv_fail_at(m, g, "%s: alltoall reduces", pv_desc(m, g, d, 128));
	if (st->op == COLL_LOCAL || (sc & COLL_F_DST_SCRATCH))
		return 0;
	if (k == COLL_REDUCESCATTER && f != COLL_F_REDUCE)
		return pv_fail_at(m, g, "%s: reduce-scatter copies", pv_desc(m, g, d, 128));
	if (k == COLL_ALLGATHER && f != COLL_F_COPY)
		return pv_fail_at(m, g, "%s: %s reduces", pv_desc(m, g, d, 128), coll_kind_name(k));
	return 0;
}

/* Whether [off, off + len) lies in the buffer (M bytes) or, with the flag, in scratch. */
static bool pv_in_range(const struct pv *m, uint64_t off, uint64_t len, bool scratch)
{
	uint64_t lim = scratch ? m->p->scratch : m->p->bytes;

	return off <= lim && len <= lim - off;
}

static int pv_check_step(struct pv *m, uint32_t g, uint32_t i)
{
	const struct coll_step *st = pv_step(m, g);
	uint64_t e = m->p->elem, M = m->p->bytes;
	uint32_t j;
	char d[128];

	if (pv_check_flags(m, g))
		return -1;
	pv_desc(m, g, d, sizeof(d));
	if (st->op == COLL_LOCAL ? st->peer != m->rank_of[g]
				 : st->peer >= m->n || st->peer == m->rank_of[g])
		return pv_fail_at(m, g, "%s: bad peer", d);
	if (!st->len || st->off % e || st->len % e || st->src % e ||
	    !pv_in_range(m, st->off, st->len,
			 st->flags &
				 (st->op == COLL_SEND ? COLL_F_SRC_SCRATCH : COLL_F_DST_SCRATCH)) ||
	    (st->op == COLL_LOCAL
		     ? !pv_in_range(m, st->src, st->len, st->flags & COLL_F_SRC_SCRATCH)
		     : st->src != 0))
		return pv_fail_at(m, g,
				  "%s: bad range for %llu bytes (%llu of scratch) of %llu-byte "
				  "elements",
				  d, (unsigned long long)M, (unsigned long long)m->p->scratch,
				  (unsigned long long)e);
	if ((uint64_t)st->dep_off + st->dep_n > m->s->deps.n)
		return pv_fail_at(m, g, "%s: dependencies out of the array", d);
	for (j = 0; j < st->dep_n; j++)
		if (m->s->deps.v[st->dep_off + j] >= i)
			return pv_fail_at(m, g, "%s: depends on a later step %u", d,
					  m->s->deps.v[st->dep_off + j]);
	return 0;
}

static int pv_check_layout(struct pv *m)
{
	uint32_t r, i, next = 0;

	if (m->s->ranks.n != m->n)
		return pv_fail(m, "%zu ranks, params say %u", m->s->ranks.n, m->n);
	for (r = 0; r < m->n; r++) {
		if (m->s->ranks.v[r].step_off != next || m->s->ranks.v[r].step_n > m->ns - next)
			return pv_fail(m, "rank %u: steps [%u+%u) do not follow at %u of %u", r,
				       m->s->ranks.v[r].step_off, m->s->ranks.v[r].step_n, next,
				       m->ns);
		for (i = 0; i < m->s->ranks.v[r].step_n; i++)
			m->rank_of[next + i] = r;
		for (i = 0; i < m->s->ranks.v[r].step_n; i++)
			if (pv_check_step(m, next + i, i))
				return -1;
		next += m->s->ranks.v[r].step_n;
	}
	return next == m->ns ? 0 : pv_fail(m, "%u steps, ranks cover %u", m->ns, next);
}

/* Channel a -> b lists a's sends to b and b's receives from a, in list order. */
static uint32_t pv_chan(const struct pv *m, uint32_t g)
{
	const struct coll_step *st = pv_step(m, g);
	uint32_t r = m->rank_of[g];

	return st->op == COLL_SEND ? r * m->n + st->peer : st->peer * m->n + r;
}

static int pv_fill_lists(struct pv *m, uint32_t *start, uint32_t *list)
{
	uint32_t nc = m->n * m->n, c, g, *fill;

	/* start[op * (nc + 1) + c]: CSR per direction; local steps have no channel */
	for (g = 0; g < m->ns; g++)
		if (pv_step(m, g)->op != COLL_LOCAL)
			start[pv_step(m, g)->op * (nc + 1) + pv_chan(m, g) + 1]++;
	for (c = 0; c < nc; c++) {
		start[c + 1] += start[c];
		start[nc + 1 + c + 1] += start[nc + 1 + c];
	}
	fill = calloc(2 * (size_t)nc, sizeof(*fill));
	if (!fill)
		return pv_fail(m, "out of memory");
	for (g = 0; g < m->ns; g++) {
		uint32_t o = pv_step(m, g)->op, ch;

		if (o == COLL_LOCAL)
			continue;
		ch = pv_chan(m, g);
		list[o * m->ns + start[o * (nc + 1) + ch] + fill[o * nc + ch]++] = g;
	}
	free(fill);
	return 0;
}

static int pv_pair(struct pv *m, uint32_t snd, uint32_t rcv)
{
	const struct coll_step *a = pv_step(m, snd), *b = pv_step(m, rcv);
	char d1[128], d2[128];

	/* the same place at both ends, but where the kind or scratch moves data elsewhere */
	if (a->len != b->len || (m->p->kind != COLL_ALLTOALL && a->off != b->off &&
				 !((a->flags | b->flags) & COLL_F_SCRATCH)))
		return pv_fail_at(m, rcv, "%s is matched by %s (%s)", pv_desc(m, snd, d1, 128),
				  pv_desc(m, rcv, d2, 128),
				  a->len != b->len ? "lengths differ"
						   : "the data lands elsewhere than it was read");
	m->match[snd] = rcv;
	m->match[rcv] = snd;
	return 0;
}

static int pv_match_chan(struct pv *m, const uint32_t *start, const uint32_t *list, uint32_t c)
{
	uint32_t nc = m->n * m->n, ns = start[c + 1] - start[c];
	uint32_t nr = start[nc + 1 + c + 1] - start[nc + 1 + c];
	const uint32_t *sl = list + start[c], *rl = list + m->ns + start[nc + 1 + c];
	uint32_t j;

	if (ns != nr)
		return pv_fail_at(m, ns > nr ? sl[nr] : rl[ns],
				  "rank %u sends %u messages to rank %u, which receives %u",
				  c / m->n, ns, c % m->n, nr);
	for (j = 0; j < ns; j++) {
		if (pv_pair(m, sl[j], rl[j]))
			return -1;
		m->fifo_prev[sl[j]] = j ? sl[j - 1] : PV_NONE;
		m->fifo_prev[rl[j]] = j ? rl[j - 1] : PV_NONE;
	}
	return 0;
}

static int pv_match(struct pv *m)
{
	uint32_t nc = m->n * m->n, c;
	uint32_t *start = calloc(2 * ((size_t)nc + 1), sizeof(*start));
	uint32_t *list = calloc(2 * (size_t)m->ns + 1, sizeof(*list));
	int err = 0;

	if (!start || !list)
		err = pv_fail(m, "out of memory");
	if (!err)
		err = pv_fill_lists(m, start, list);
	for (c = 0; !err && c < nc; c++)
		err = pv_match_chan(m, start, list, c);
	free(start);
	free(list);
	return err;
}

static int pv_alloc(struct pv *m)
{
	size_t nev = 3 * (size_t)m->ns;

	m->rank_of = calloc(m->ns + 1, sizeof(uint32_t));
	m->match = calloc(m->ns + 1, sizeof(uint32_t));
	m->fifo_prev = calloc(m->ns + 1, sizeof(uint32_t));
	m->order = calloc(nev + 1, sizeof(uint32_t));
	m->payload = calloc(m->ns + 1, sizeof(*m->payload));
	if (!m->rank_of || !m->match || !m->fifo_prev || !m->order || !m->payload)
		return pv_fail(m, "out of memory");
	return 0;
}

static void pv_free(struct pv *m)
{
	uint32_t g;

	for (g = 0; m->payload && g < m->ns; g++)
		free(m->payload[g]);
	free(m->payload);
	free(m->rank_of);
	free(m->match);
	free(m->fifo_prev);
	free(m->order);
	free(m->reach);
	free(m->pred_start);
	free(m->pred);
	pv_data_done(m);
	vec_free(&m->edges);
}

static int pv_size(struct pv *m)
{
	if (m->n < 1 || m->n > COLL_MAX_RANKS)
		return pv_fail(m, "a schedule of %u ranks: the prover takes 1 to %d", m->n,
			       COLL_MAX_RANKS);
	if (!m->p->elem || m->p->bytes % m->p->elem)
		return pv_fail(m, "%llu bytes are not whole %u-byte elements",
			       (unsigned long long)m->p->bytes, m->p->elem);
	if (m->s->steps.n > PV_MAX_STEPS)
		return pv_fail(m, "a schedule of %zu steps: the prover takes up to %d",
			       m->s->steps.n, PV_MAX_STEPS);
	return 0;
}

int coll_prove(const struct coll_sched *s, uint32_t *where, struct diag *d)
{
	struct pv m = {
		.s = s,
		.p = &s->params,
		.n = s->params.nranks,
		.ns = (uint32_t)s->steps.n,
		.first_bad = PV_NONE,
		.d = d,
	};
	int err = pv_size(&m);

	if (!err)
		err = pv_alloc(&m);
	if (!err)
		err = pv_check_layout(&m);
	if (!err)
		err = pv_match(&m);
	if (!err)
		err = pv_graph(&m);
	if (!err)
		err = pv_races(&m);
	if (!err)
		err = pv_data_init(&m);
	if (!err)
		err = pv_execute(&m);
	if (!err)
		err = pv_final(&m);
	pv_free(&m);
	if (where)
		*where = err ? m.first_bad : UINT32_MAX;
	return err ? (d && d->err ? d->err : -EINVAL) : 0;
}
