// SPDX-License-Identifier: MIT
/* Test helper (see coll_sim.h): a symbolic executor for collective schedules. It checks the
 * steps, matches sends with receives, and runs the steps in the order coll_sim_hb.c found.
 * Buffers hold one value per element: the set of contributing ranks as bits (reductions), or
 * a block id (all-to-all). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/coll_sim_int.h"

int t_sim_fail(struct t_sim *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->msg, m->len, fmt, ap);
	va_end(ap);
	return -1;
}

const char *t_sim_desc(const struct t_sim *m, uint32_t g, char *b, size_t len)
{
	const struct coll_step *st = t_step(m, g);
	uint32_t r = m->rank_of[g];

	snprintf(b, len, "rank %u step %u (%s %s %u, [%llu+%llu), phase %u)", r,
		 g - m->s->ranks.v[r].step_off, st->op == COLL_SEND ? "send" : "recv",
		 st->op == COLL_SEND ? "to" : "from", st->peer, (unsigned long long)st->off,
		 (unsigned long long)st->len, st->phase);
	return b;
}

static int t_check_flags(struct t_sim *m, uint32_t g)
{
	const struct coll_step *st = t_step(m, g);
	enum coll_kind k = m->p->kind;
	char d[128];

	if (st->op == COLL_SEND)
		return st->flags ? t_sim_fail(m, "%s: a send has flags", t_sim_desc(m, g, d, 128))
				 : 0;
	if (st->op != COLL_RECV)
		return t_sim_fail(m, "step %u: bad op %u", g, st->op);
	if (st->flags != COLL_F_COPY && st->flags != COLL_F_REDUCE)
		return t_sim_fail(m, "%s: flags %#x", t_sim_desc(m, g, d, 128), st->flags);
	if (k == COLL_REDUCESCATTER && st->flags != COLL_F_REDUCE)
		return t_sim_fail(m, "%s: reduce-scatter copies", t_sim_desc(m, g, d, 128));
	if ((k == COLL_ALLGATHER || k == COLL_ALLTOALL) && st->flags != COLL_F_COPY)
		return t_sim_fail(m, "%s: %s reduces", t_sim_desc(m, g, d, 128), coll_kind_name(k));
	return 0;
}

static int t_check_step(struct t_sim *m, uint32_t g, uint32_t i)
{
	const struct coll_step *st = t_step(m, g);
	uint64_t e = m->p->elem, M = m->p->bytes;
	uint32_t j;
	char d[128];

	if (t_check_flags(m, g))
		return -1;
	t_sim_desc(m, g, d, sizeof(d));
	if (st->peer >= m->n || st->peer == m->rank_of[g])
		return t_sim_fail(m, "%s: bad peer", d);
	if (!st->len || st->off % e || st->len % e || st->off > M || st->len > M - st->off)
		return t_sim_fail(m, "%s: bad range for %llu bytes of %llu-byte elements", d,
				  (unsigned long long)M, (unsigned long long)e);
	if ((uint64_t)st->dep_off + st->dep_n > m->s->deps.n)
		return t_sim_fail(m, "%s: dependencies out of the array", d);
	for (j = 0; j < st->dep_n; j++)
		if (m->s->deps.v[st->dep_off + j] >= i)
			return t_sim_fail(m, "%s: depends on a later step %u", d,
					  m->s->deps.v[st->dep_off + j]);
	return 0;
}

static int t_check_layout(struct t_sim *m)
{
	uint32_t r, i, next = 0;

	if (m->s->ranks.n != m->n)
		return t_sim_fail(m, "%zu ranks, params say %u", m->s->ranks.n, m->n);
	for (r = 0; r < m->n; r++) {
		if (m->s->ranks.v[r].step_off != next || m->s->ranks.v[r].step_n > m->ns - next)
			return t_sim_fail(m, "rank %u: steps [%u+%u) do not follow at %u of %u", r,
					  m->s->ranks.v[r].step_off, m->s->ranks.v[r].step_n, next,
					  m->ns);
		for (i = 0; i < m->s->ranks.v[r].step_n; i++)
			m->rank_of[next + i] = r;
		for (i = 0; i < m->s->ranks.v[r].step_n; i++)
			if (t_check_step(m, next + i, i))
				return -1;
		next += m->s->ranks.v[r].step_n;
	}
	return next == m->ns ? 0 : t_sim_fail(m, "%u steps, ranks cover %u", m->ns, next);
}

/* Channel a -> b lists a's sends to b and b's receives from a, in list order. */
static uint32_t t_chan(const struct t_sim *m, uint32_t g)
{
	const struct coll_step *st = t_step(m, g);
	uint32_t r = m->rank_of[g];

	return st->op == COLL_SEND ? r * m->n + st->peer : st->peer * m->n + r;
}

static int t_fill_lists(struct t_sim *m, uint32_t *start, uint32_t *list)
{
	uint32_t nc = m->n * m->n, c, g, *fill;

	/* start[op * (nc + 1) + c]: CSR per direction */
	for (g = 0; g < m->ns; g++)
		start[t_step(m, g)->op * (nc + 1) + t_chan(m, g) + 1]++;
	for (c = 0; c < nc; c++) {
		start[c + 1] += start[c];
		start[nc + 1 + c + 1] += start[nc + 1 + c];
	}
	fill = calloc(2 * (size_t)nc, sizeof(*fill));
	if (!fill)
		return t_sim_fail(m, "out of memory");
	for (g = 0; g < m->ns; g++) {
		uint32_t o = t_step(m, g)->op, ch = t_chan(m, g);

		list[o * m->ns + start[o * (nc + 1) + ch] + fill[o * nc + ch]++] = g;
	}
	free(fill);
	return 0;
}

static int t_pair(struct t_sim *m, uint32_t snd, uint32_t rcv)
{
	const struct coll_step *a = t_step(m, snd), *b = t_step(m, rcv);
	char d1[128], d2[128];

	if (a->len != b->len || (m->p->kind != COLL_ALLTOALL && a->off != b->off))
		return t_sim_fail(m, "%s is matched by %s", t_sim_desc(m, snd, d1, 128),
				  t_sim_desc(m, rcv, d2, 128));
	m->match[snd] = rcv;
	m->match[rcv] = snd;
	return 0;
}

static int t_match_chan(struct t_sim *m, const uint32_t *start, const uint32_t *list, uint32_t c)
{
	uint32_t nc = m->n * m->n, ns = start[c + 1] - start[c];
	uint32_t nr = start[nc + 1 + c + 1] - start[nc + 1 + c];
	const uint32_t *sl = list + start[c], *rl = list + m->ns + start[nc + 1 + c];
	uint32_t j;

	if (ns != nr)
		return t_sim_fail(m, "rank %u sends %u messages to rank %u, which receives %u",
				  c / m->n, ns, c % m->n, nr);
	for (j = 0; j < ns; j++) {
		if (t_pair(m, sl[j], rl[j]))
			return -1;
		m->fifo_prev[sl[j]] = j ? sl[j - 1] : T_NONE;
		m->fifo_prev[rl[j]] = j ? rl[j - 1] : T_NONE;
	}
	return 0;
}

static int t_match(struct t_sim *m)
{
	uint32_t nc = m->n * m->n, c;
	uint32_t *start = calloc(2 * ((size_t)nc + 1), sizeof(*start));
	uint32_t *list = calloc(2 * (size_t)m->ns + 1, sizeof(*list));
	int err = 0;

	if (!start || !list)
		err = t_sim_fail(m, "out of memory");
	if (!err)
		err = t_fill_lists(m, start, list);
	for (c = 0; !err && c < nc; c++)
		err = t_match_chan(m, start, list, c);
	free(start);
	free(list);
	return err;
}

/* The ranks an all-reduce result holds: all, or with shard rings the members of the ring. */
static uint64_t t_full(const struct t_sim *m, uint32_t r)
{
	uint64_t all = m->n == 64 ? ~0ull : (1ull << m->n) - 1, ring = 0;
	uint32_t j;

	if (m->p->algo != COLL_SHARD_RINGS)
		return all;
	for (j = r % m->p->group; j < m->n; j += m->p->group)
		ring |= 1ull << j;
	return ring;
}

/* What element e of rank r must end as; 0 where the kind leaves it unspecified. */
static uint64_t t_target(const struct t_sim *m, uint32_t r, uint64_t e)
{
	switch (m->p->kind) {
	case COLL_ALLREDUCE:
		return t_full(m, r);
	case COLL_REDUCESCATTER:
		return m->chunk[e] == r ? t_full(m, r) : 0;
	case COLL_ALLGATHER:
		return 1ull << m->chunk[e];
	case COLL_ALLTOALL:
		return (uint64_t)m->chunk[e] * m->n + r + 1;
	}
	return 0;
}

static uint64_t t_initial(const struct t_sim *m, uint32_t r, uint64_t e)
{
	switch (m->p->kind) {
	case COLL_ALLGATHER:
		return m->chunk[e] == r ? 1ull << r : 0;
	case COLL_ALLTOALL:
		return (uint64_t)r * m->n + m->chunk[e] + 1;
	default:
		return 1ull << r;
	}
}

/* A MULTIDIM reduce-scatter or all-gather: the shares are coll_md_owners's (coll.h), which
 * test_themis checks to be each rank's part of every chunk. */
static bool t_md_shares(const struct t_sim *m)
{
	return m->p->algo == COLL_MULTIDIM && m->p->kind != COLL_ALLREDUCE;
}

static void t_init_data(struct t_sim *m)
{
	struct diag d = {0};
	uint32_t r, c;
	uint64_t e, a, z;

	if (t_md_shares(m) && coll_md_owners(m->p, m->chunk, &d))
		memset(m->chunk, 0xff, m->elems * sizeof(*m->chunk)); /* no rank: fails below */
	for (c = 0; c < m->n && !t_md_shares(m); c++) {
		a = coll_chunk_off(m->p->bytes, m->p->elem, m->n, c) / m->p->elem;
		z = coll_chunk_off(m->p->bytes, m->p->elem, m->n, c + 1) / m->p->elem;
		for (e = a; e < z; e++)
			m->chunk[e] = c;
	}
	for (r = 0; r < m->n; r++)
		for (e = 0; e < m->elems; e++)
			m->buf[r * m->elems + e] = m->in[r * m->elems + e] = t_initial(m, r, e);
}

static int t_read(struct t_sim *m, uint32_t g)
{
	const struct coll_step *st = t_step(m, g);
	const uint64_t *src = m->p->kind == COLL_ALLTOALL ? m->in : m->buf;
	uint64_t n = st->len / m->p->elem;

	m->payload[g] = malloc(n * sizeof(uint64_t));
	if (!m->payload[g])
		return t_sim_fail(m, "out of memory");
	memcpy(m->payload[g], src + m->rank_of[g] * m->elems + st->off / m->p->elem,
	       n * sizeof(uint64_t));
	return 0;
}

static int t_put(struct t_sim *m, uint32_t g, uint64_t e, uint64_t v)
{
	const struct coll_step *st = t_step(m, g);
	uint32_t r = m->rank_of[g];
	uint64_t *cur = &m->buf[r * m->elems + e], tgt = t_target(m, r, e);
	char d[128];

	if (tgt && *cur == tgt)
		return t_sim_fail(m, "%s: element %llu was already final (delivered twice)",
				  t_sim_desc(m, g, d, 128), (unsigned long long)e);
	if (st->flags == COLL_F_REDUCE && (*cur & v))
		return t_sim_fail(m, "%s: element %llu counts ranks %#llx twice",
				  t_sim_desc(m, g, d, 128), (unsigned long long)e,
				  (unsigned long long)(*cur & v));
	if (st->flags == COLL_F_COPY && tgt && v != tgt)
		return t_sim_fail(m, "%s: element %llu copies %#llx, not the final %#llx",
				  t_sim_desc(m, g, d, 128), (unsigned long long)e,
				  (unsigned long long)v, (unsigned long long)tgt);
	*cur = st->flags == COLL_F_REDUCE ? *cur | v : v;
	return 0;
}

static int t_write(struct t_sim *m, uint32_t g)
{
	const struct coll_step *st = t_step(m, g);
	uint64_t k, first = st->off / m->p->elem, n = st->len / m->p->elem;
	uint64_t *v = m->payload[m->match[g]];

	for (k = 0; k < n; k++)
		if (t_put(m, g, first + k, v[k]))
			return -1;
	free(v);
	m->payload[m->match[g]] = NULL;
	return 0;
}

static int t_execute(struct t_sim *m)
{
	uint32_t i, e, g;
	int err = 0;

	t_init_data(m);
	for (i = 0; !err && i < 3 * m->ns; i++) {
		e = m->order[i];
		g = e / 3;
		if (e % 3 == T_EV_S && t_step(m, g)->op == COLL_SEND)
			err = t_read(m, g);
		else if (e % 3 == T_EV_E && t_step(m, g)->op == COLL_RECV)
			err = t_write(m, g);
	}
	return err;
}

static int t_final(struct t_sim *m)
{
	uint64_t e, tgt;
	uint32_t r;

	for (r = 0; r < m->n; r++) {
		for (e = 0; e < m->elems; e++) {
			tgt = t_target(m, r, e);
			if (tgt && m->buf[r * m->elems + e] != tgt)
				return t_sim_fail(m,
						  "rank %u element %llu ends as %#llx, not %#llx",
						  r, (unsigned long long)e,
						  (unsigned long long)m->buf[r * m->elems + e],
						  (unsigned long long)tgt);
		}
	}
	return 0;
}

static int t_alloc(struct t_sim *m)
{
	size_t nev = 3 * (size_t)m->ns, vals = (size_t)m->n * m->elems;

	m->words = (nev + 63) / 64;
	m->rank_of = calloc(m->ns + 1, sizeof(uint32_t));
	m->match = calloc(m->ns + 1, sizeof(uint32_t));
	m->fifo_prev = calloc(m->ns + 1, sizeof(uint32_t));
	m->order = calloc(nev + 1, sizeof(uint32_t));
	m->reach = calloc(nev * m->words + 1, sizeof(uint64_t));
	m->buf = calloc(vals + 1, sizeof(uint64_t));
	m->in = calloc(vals + 1, sizeof(uint64_t));
	m->payload = calloc(m->ns + 1, sizeof(uint64_t *));
	m->chunk = calloc(m->elems + 1, sizeof(uint32_t));
	if (!m->rank_of || !m->match || !m->fifo_prev || !m->order || !m->reach || !m->buf ||
	    !m->in || !m->payload || !m->chunk)
		return t_sim_fail(m, "out of memory");
	return 0;
}

static void t_free(struct t_sim *m)
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
	free(m->buf);
	free(m->in);
	free(m->chunk);
	vec_free(&m->edges);
}

static int t_sim_size(struct t_sim *m)
{
	if (m->n < 1 || m->n > T_SIM_MAX_RANKS)
		return t_sim_fail(m, "the simulator takes 1 to %d ranks, not %u", T_SIM_MAX_RANKS,
				  m->n);
	if (!m->p->elem || m->s->steps.n > T_MAX_EVENTS / 3)
		return t_sim_fail(m, "schedule too large for the simulator (%zu steps)",
				  m->s->steps.n);
	return 0;
}

int t_sim_run(const struct coll_sched *s, char *msg, size_t len)
{
	struct t_sim m = {
		.s = s,
		.p = &s->params,
		.n = s->params.nranks,
		.ns = (uint32_t)s->steps.n,
		.msg = msg,
		.len = len,
	};
	int err;

	msg[0] = '\0';
	if (t_sim_size(&m))
		return -1;
	m.elems = m.p->bytes / m.p->elem;
	err = t_alloc(&m);
	if (!err)
		err = t_check_layout(&m);
	if (!err)
		err = t_match(&m);
	if (!err)
		err = t_sim_graph(&m);
	if (!err)
		err = t_sim_races(&m);
	if (!err)
		err = t_execute(&m);
	if (!err)
		err = t_final(&m);
	t_free(&m);
	return err ? -1 : 0;
}
