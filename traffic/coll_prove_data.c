// SPDX-License-Identifier: MIT
/* The data side of the schedule prover (coll_prove_int.h): the buffer cut into segments that
 * every step moves whole, symbolic values per rank and segment, the steps run in one order
 * the happens-before graph allows, and the result checked against the kind (coll.h, "Kinds").
 * A reduction's value is the sum of its contributors' random keys and their count, so a
 * contribution counted twice, one missing, or unfinished data copied on is seen whatever the
 * number of ranks. A rank's scratch (coll.h) follows its buffer: bytes M .. M + scratch of
 * the same segments, holding nothing at the start and no part of the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/coll_prove_int.h"

/* A rank's key: splitmix64 of its number, so sums of distinct sets differ but by chance. */
static uint64_t pv_key(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull * (x + 1);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int pv_cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A MULTIDIM reduce-scatter or all-gather: the shares are coll_md_owners's (coll.h). */
static bool pv_md_shares(const struct pv *m)
{
	return m->p->algo == COLL_MULTIDIM && m->p->kind != COLL_ALLREDUCE;
}

/* Where the owner of elements changes (multidim shares), appended to cut from *k on. */
static int pv_md_cuts(struct pv *m, uint32_t **owner, size_t *k)
{
	uint64_t e, elems = m->p->bytes / m->p->elem;
	struct diag d = {0};

	*owner = malloc((elems + 1) * sizeof(**owner));
	if (!*owner)
		return pv_fail(m, "out of memory");
	if (coll_md_owners(m->p, *owner, &d))
		return pv_fail(m, "the shares of the platform: %s", d.msg);
	for (e = 1; e < elems; e++)
		if ((*owner)[e] != (*owner)[e - 1])
			m->cut[(*k)++] = e * m->p->elem;
	return 0;
}

static uint64_t pv_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b, b = t;
	}
	return a;
}

/* Where step g reads (its send's or local step's source) and writes, counted in the buffer
 * followed by scratch. */
static uint64_t pv_rd_at(const struct pv *m, uint32_t g)
{
	const struct coll_step *st = pv_step(m, g);
	uint64_t o = st->op == COLL_LOCAL ? st->src : st->off;

	return (st->flags & COLL_F_SRC_SCRATCH ? m->p->bytes : 0) + o;
}

static uint64_t pv_wr_at(const struct pv *m, uint32_t g)
{
	const struct coll_step *st = pv_step(m, g);

	return (st->flags & COLL_F_DST_SCRATCH ? m->p->bytes : 0) + st->off;
}

/* Whether data moves from one place to another (all-to-all, a local step, scratch): a
 * receive's bytes are not its send's, so both must be cut alike. */
static bool pv_moves(const struct pv *m)
{
	uint32_t g;

	if (m->p->kind == COLL_ALLTOALL || m->p->scratch)
		return true;
	for (g = 0; g < m->ns; g++)
		if (pv_step(m, g)->op == COLL_LOCAL || (pv_step(m, g)->flags & COLL_F_SCRATCH))
			return true;
	return false;
}

/* Cut every g bytes, g dividing every cut found (cut[0 .. k)). */
static int pv_even_cut(struct pv *m, size_t k)
{
	uint64_t g = 0, i, all = m->p->bytes + m->p->scratch;

	for (i = 0; i < k; i++)
		g = pv_gcd(g, m->cut[i]);
	if (!g || all / g > UINT32_MAX / 2 || all / g > 64ull * 1024 * 1024)
		return pv_fail(m, "a buffer cut into more than 2^26 parts: too fine to prove");
	free(m->cut);
	m->cut = malloc((all / g + 1) * sizeof(*m->cut));
	if (!m->cut)
		return pv_fail(m, "out of memory");
	for (i = 0; i <= all / g; i++)
		m->cut[i] = i * g;
	m->segs = (uint32_t)(all / g);
	return 0;
}

/* Every step's ends and every part's edges, sorted and unique: the segments; where data
 * moves (pv_moves), every g bytes. */
static int pv_cut(struct pv *m, uint32_t **owner)
{
	size_t k = 0, i, j, cap = 4 * (size_t)m->ns + m->n + 3;
	uint64_t elems = m->p->bytes / m->p->elem;

	if (pv_md_shares(m))
		cap += elems;
	m->cut = malloc(cap * sizeof(*m->cut));
	if (!m->cut)
		return pv_fail(m, "out of memory");
	if (!m->p->bytes) /* no segments (and no steps: a step has bytes) */
		return 0;
	m->cut[k++] = 0;
	m->cut[k++] = m->p->bytes;
	m->cut[k++] = m->p->bytes + m->p->scratch;
	for (i = 0; i < m->ns; i++) {
		const struct coll_step *st = pv_step(m, (uint32_t)i);

		if (st->op != COLL_RECV) {
			m->cut[k++] = pv_rd_at(m, (uint32_t)i);
			m->cut[k++] = pv_rd_at(m, (uint32_t)i) + st->len;
		}
		if (st->op != COLL_SEND) {
			m->cut[k++] = pv_wr_at(m, (uint32_t)i);
			m->cut[k++] = pv_wr_at(m, (uint32_t)i) + st->len;
		}
	}
	for (i = 1; i < m->n && !pv_md_shares(m); i++)
		m->cut[k++] = coll_chunk_off(m->p->bytes, m->p->elem, m->n, (uint32_t)i);
	if (pv_md_shares(m) && pv_md_cuts(m, owner, &k))
		return -1;
	if (pv_moves(m))
		return pv_even_cut(m, k);
	qsort(m->cut, k, sizeof(*m->cut), pv_cmp64);
	for (i = j = 0; i < k; i++)
		if (!j || m->cut[i] != m->cut[j - 1])
			m->cut[j++] = m->cut[i];
	m->segs = (uint32_t)(j - 1); /* bytes > 0: at least one segment */
	return 0;
}

/* The segment that starts at byte off (a cut). */
static uint32_t pv_seg(const struct pv *m, uint64_t off)
{
	uint32_t lo = 0, hi = m->segs;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->cut[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The part (of n, coll_chunk_off's cut) that holds byte off. */
static uint32_t pv_part(const struct pv *m, uint64_t off)
{
	uint32_t lo = 0, hi = m->n;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (coll_chunk_off(m->p->bytes, m->p->elem, m->n, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The ranks an all-reduce result holds: all, or with shard rings the members of r's ring. */
static struct pv_val pv_full(const struct pv *m, uint32_t r)
{
	struct pv_val v = {0, 0};
	uint32_t j, step = m->p->algo == COLL_SHARD_RINGS ? m->p->group : 1;

	for (j = step > 1 ? r % step : 0; j < m->n; j += step)
		v.h += pv_key(j), v.n++;
	return v;
}

/* What segment k of rank r must end as; {0, 0} where the kind leaves it unspecified. */
static struct pv_val pv_target(const struct pv *m, uint32_t r, uint32_t k)
{
	struct pv_val none = {0, 0};

	if (m->cut[k] >= m->p->bytes) /* scratch */
		return none;
	switch (m->p->kind) {
	case COLL_ALLREDUCE:
		return pv_full(m, r);
	case COLL_REDUCESCATTER:
		return m->chunk[k] == r ? pv_full(m, r) : none;
	case COLL_ALLGATHER:
		return (struct pv_val){pv_key(m->chunk[k]), 1};
	case COLL_ALLTOALL:
		return (struct pv_val){pv_key((uint64_t)m->chunk[k] * m->n + r + COLL_MAX_RANKS),
				       1};
	}
	return none;
}

static struct pv_val pv_initial(const struct pv *m, uint32_t r, uint32_t k)
{
	struct pv_val none = {0, 0};

	if (m->cut[k] >= m->p->bytes) /* scratch */
		return none;
	switch (m->p->kind) {
	case COLL_ALLGATHER:
		return m->chunk[k] == r ? (struct pv_val){pv_key(r), 1} : none;
	case COLL_ALLTOALL:
		return (struct pv_val){pv_key((uint64_t)r * m->n + m->chunk[k] + COLL_MAX_RANKS),
				       1};
	default:
		return (struct pv_val){pv_key(r), 1};
	}
}

int pv_data_init(struct pv *m)
{
	uint32_t *owner = NULL, r, k;
	size_t vals;
	int err = pv_cut(m, &owner);

	vals = (size_t)m->n * m->segs;
	m->buf = err ? NULL : calloc(vals + 1, sizeof(*m->buf));
	m->in = err ? NULL : calloc(vals + 1, sizeof(*m->in));
	m->chunk = err ? NULL : calloc(m->segs + 1, sizeof(*m->chunk));
	if (!err && (!m->buf || !m->in || !m->chunk))
		err = pv_fail(m, "out of memory");
	for (k = 0; !err && k < m->segs; k++) /* the part of n, or the owner, of its start */
		m->chunk[k] = m->cut[k] >= m->p->bytes ? m->n
			      : owner		       ? owner[m->cut[k] / m->p->elem]
						       : pv_part(m, m->cut[k]);
	for (r = 0; !err && r < m->n; r++)
		for (k = 0; k < m->segs; k++)
			m->buf[r * m->segs + k] = m->in[r * m->segs + k] = pv_initial(m, r, k);
	free(owner);
	return err;
}

static bool pv_eq(struct pv_val a, struct pv_val b)
{
	return a.h == b.h && a.n == b.n;
}

/* A send or local step reads its segments as they are when it starts. */
static int pv_read(struct pv *m, uint32_t g)
{
	const struct coll_step *st = pv_step(m, g);
	bool in = m->p->kind == COLL_ALLTOALL && !(st->flags & COLL_F_SRC_SCRATCH);
	const struct pv_val *src = in ? m->in : m->buf;
	uint64_t at = pv_rd_at(m, g);
	uint32_t a = pv_seg(m, at), z = pv_seg(m, at + st->len - 1) + 1;

	m->payload[g] = malloc((z - a) * sizeof(**m->payload));
	if (!m->payload[g])
		return pv_fail(m, "out of memory");
	memcpy(m->payload[g], src + (size_t)m->rank_of[g] * m->segs + a,
	       (z - a) * sizeof(**m->payload));
	return 0;
}

static int pv_put(struct pv *m, uint32_t g, uint32_t k, struct pv_val v)
{
	const struct coll_step *st = pv_step(m, g);
	uint32_t r = m->rank_of[g];
	struct pv_val *cur = &m->buf[(size_t)r * m->segs + k], tgt = pv_target(m, r, k);
	unsigned long long e = m->cut[k] / m->p->elem;
	char d[128];

	if (tgt.n && pv_eq(*cur, tgt) && st->op != COLL_LOCAL)
		return pv_fail_at(m, g, "%s: element %llu was already final (delivered twice)",
				  pv_desc(m, g, d, 128), e);
	if ((st->flags & COLL_F_REDUCE) && cur->n + v.n > pv_full(m, r).n)
		return pv_fail_at(m, g,
				  "%s: element %llu adds up %u contributions of %u ranks: "
				  "one is counted twice",
				  pv_desc(m, g, d, 128), e, cur->n + v.n, pv_full(m, r).n);
	if ((st->flags & COLL_F_COPY) && tgt.n && !pv_eq(v, tgt))
		return pv_fail_at(m, g, "%s: element %llu copies data that is not the final result",
				  pv_desc(m, g, d, 128), e);
	if (st->flags & COLL_F_REDUCE)
		cur->h += v.h, cur->n += v.n;
	else
		*cur = v;
	return 0;
}

/* A receive writes its segments as the matching send read them, a local step as it read
 * them itself. */
static int pv_write(struct pv *m, uint32_t g)
{
	const struct coll_step *st = pv_step(m, g);
	uint32_t from = st->op == COLL_LOCAL ? g : m->match[g];
	uint64_t at = pv_wr_at(m, g), rd = pv_rd_at(m, from);
	uint32_t a = pv_seg(m, at), z = pv_seg(m, at + st->len - 1) + 1, k;
	uint32_t sa = pv_seg(m, rd);
	struct pv_val *v = m->payload[from];

	if (pv_seg(m, rd + st->len - 1) + 1 - sa != z - a)
		return pv_fail_at(m, g, "%s cut unlike what it reads", /* all-to-all offsets */
				  st->op == COLL_LOCAL ? "a local step" : "a receive");
	for (k = a; k < z; k++)
		if (pv_put(m, g, k, v[k - a]))
			return -1;
	free(v);
	m->payload[from] = NULL;
	return 0;
}

int pv_execute(struct pv *m)
{
	uint32_t i, e, g;
	int err = 0;

	for (i = 0; !err && i < 3 * m->ns; i++) {
		e = m->order[i];
		g = e / 3;
		if (e % 3 == PV_EV_S && pv_step(m, g)->op != COLL_RECV)
			err = pv_read(m, g);
		else if (e % 3 == PV_EV_E && pv_step(m, g)->op != COLL_SEND)
			err = pv_write(m, g);
	}
	return err;
}

/* What a rank's part holds, in words: "the sum of 5 of 8 ranks", "rank 3's chunk". */
static const char *pv_says(const struct pv *m, struct pv_val v, uint32_t r, char *b, size_t len)
{
	uint32_t all = pv_full(m, r).n;

	if (!v.n)
		snprintf(b, len, "nothing");
	else if (m->p->kind == COLL_ALLREDUCE || m->p->kind == COLL_REDUCESCATTER)
		snprintf(b, len, "%u contributions of %u ranks%s", v.n, all,
			 v.n == all ? ", one counted twice and one missing" : "");
	else
		snprintf(b, len, "another part");
	return b;
}

int pv_final(struct pv *m)
{
	struct pv_val tgt, v;
	char got[96];
	uint32_t r, k;

	for (r = 0; r < m->n; r++) {
		for (k = 0; k < m->segs; k++) {
			tgt = pv_target(m, r, k);
			v = m->buf[(size_t)r * m->segs + k];
			if (tgt.n && !pv_eq(v, tgt))
				return pv_fail(
					m,
					"rank %u element %llu (chunk %u) ends with %s, not its "
					"result",
					r, (unsigned long long)(m->cut[k] / m->p->elem),
					m->chunk[k], pv_says(m, v, r, got, sizeof(got)));
		}
	}
	return 0;
}

void pv_data_done(struct pv *m)
{
	free(m->cut);
	free(m->buf);
	free(m->in);
	free(m->chunk);
}
