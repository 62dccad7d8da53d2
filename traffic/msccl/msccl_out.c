// SPDX-License-Identifier: MIT
/* Collective schedules written as MSCCL algorithm XML (msccl.h, msccl_format): the format and
 * how our steps map onto it are msccl.c's opening comment. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sbuf.h"
#include "lib/vec.h"
#include "traffic/msccl/msccl.h"
#include "traffic/msccl/msccl_int.h"

#define TBS_PER_CHAN 32 /* MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL */
#define NAME_MAX_LEN 63 /* MSCCL_MAX_ALGO_NAME */

/* Whether p's all-gather or reduce-scatter shares are MSCCL's: chunk r of N equal ones. */
static bool equal_shares(const struct coll_params *p)
{
	return p->algo != COLL_MULTIDIM && (p->bytes / p->elem) % p->nranks == 0;
}

static enum bufmap export_map(const struct coll_params *p)
{
	if (p->kind == COLL_ALLTOALL)
		return BM_A2A;
	if (p->kind == COLL_ALLGATHER && equal_shares(p))
		return BM_AG;
	if (p->kind == COLL_REDUCESCATTER && equal_shares(p))
		return BM_RS;
	return BM_SAME;
}

static const char *export_coll(const struct coll_params *p, enum bufmap m)
{
	static const char *const names[] = {
		[BM_AG] = "allgather", [BM_RS] = "reducescatter", [BM_A2A] = "alltoall"};

	if (m == BM_SAME)
		return p->kind == COLL_ALLREDUCE ? "allreduce" : "custom";
	return names[m];
}

/* The buffer a step of op names on its own rank. */
static char own_buf(const struct coll_params *p, uint8_t op)
{
	if (p->kind == COLL_ALLTOALL)
		return op == COLL_SEND ? 'i' : 'o';
	return p->kind == COLL_ALLGATHER ? 'o' : 'i';
}

/* A rank's step i, sorted into threadblocks by key: receives before sends, then by peer. */
struct ex_ent {
	uint64_t key;
	uint32_t i;
};

/* Where global step g went: threadblock id, MSCCL step s, index among its threadblock's
 * steps without nops, whether some step depends on it. */
struct ex_step {
	uint32_t tb, s, ord;
	uint8_t hasdep;
};

struct ex {
	const struct coll_sched *sc;
	const struct coll_params *p;
	struct ex_ent *ent; /* rank r's at ranks.v[r].step_off, sorted */
	struct ex_step *st; /* by global step index */
	enum bufmap map;
	uint64_t chunk; /* bytes */
	uint64_t n; /* chunks in a buffer */
	uint32_t nchan;
	bool a2a_copy; /* each gpu starts with the all-to-all's own-block cpy threadblock */
};

static uint64_t ex_key(uint8_t op, uint32_t peer)
{
	return ((uint64_t)(op == COLL_SEND) << 32) | peer;
}

static int ex_cmp(const void *a, const void *b)
{
	const struct ex_ent *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Chunk size in elements: every cut point of the buffer is a multiple. */
static uint64_t ex_chunk_elems(const struct coll_sched *s, enum bufmap m)
{
	const struct coll_params *p = &s->params;
	uint64_t e = p->elem, g = p->bytes / e;
	size_t i;

	if (m != BM_SAME) /* shares and blocks are whole chunks */
		g = msccl_gcd(g, p->bytes / e / p->nranks);
	for (i = 0; i < s->steps.n; i++)
		g = msccl_gcd(msccl_gcd(g, s->steps.v[i].off / e), s->steps.v[i].len / e);
	return g ? g : 1;
}

/* The channel of the connection sender -> receiver (see the threadblock notes above). */
static uint32_t ex_chan(const struct ex *x, uint32_t sender, uint32_t receiver)
{
	uint32_t n = x->p->nranks;

	return (uint32_t)(((uint64_t)receiver + n - sender) % n / TBS_PER_CHAN);
}

static void ex_index_rank(struct ex *x, uint32_t r)
{
	const struct coll_rank *rk = &x->sc->ranks.v[r];
	const struct coll_step *v = x->sc->steps.v + rk->step_off;
	struct ex_ent *ent = x->ent + rk->step_off;
	struct ex_step *st = x->st + rk->step_off;
	uint32_t i, j, next_tb = x->a2a_copy, tb = 0, s = 0, ord = 0, k, c;

	for (i = 0; i < rk->step_n; i++)
		ent[i] = (struct ex_ent){ex_key(v[i].op, v[i].peer), i};
	qsort(ent, rk->step_n, sizeof(*ent), ex_cmp);
	for (j = 0; j < rk->step_n; j++) {
		i = ent[j].i;
		if (!j || ent[j].key != ent[j - 1].key) {
			tb = next_tb++, s = 0, ord = 0;
			c = v[i].op == COLL_SEND ? ex_chan(x, r, v[i].peer)
						 : ex_chan(x, v[i].peer, r);
			x->nchan = c + 1 > x->nchan ? c + 1 : x->nchan;
		}
		k = v[i].dep_n ? v[i].dep_n : 1; /* k - 1 nops, then the step */
		st[i].tb = tb, st[i].s = s + k - 1, st[i].ord = ord++;
		s += k;
		for (k = 0; k < v[i].dep_n; k++)
			if (x->sc->deps.v[v[i].dep_off + k] < rk->step_n)
				st[x->sc->deps.v[v[i].dep_off + k]].hasdep = 1;
	}
}

static void ex_done(struct ex *x)
{
	free(x->ent);
	free(x->st);
}

static int ex_init(struct ex *x, const struct coll_sched *s)
{
	uint32_t r;

	memset(x, 0, sizeof(*x));
	x->sc = s, x->p = &s->params, x->nchan = 1;
	if (!x->p->elem || !x->p->nranks || s->ranks.n < x->p->nranks)
		return -EINVAL;
	x->map = export_map(x->p);
	x->chunk = ex_chunk_elems(s, x->map) * x->p->elem;
	x->n = x->p->bytes / x->chunk;
	x->a2a_copy = x->map == BM_A2A && x->n;
	x->ent = calloc(s->steps.n + 1, sizeof(*x->ent));
	x->st = calloc(s->steps.n + 1, sizeof(*x->st));
	if (!x->ent || !x->st) {
		ex_done(x);
		return -ENOMEM;
	}
	for (r = 0; r < x->p->nranks; r++)
		ex_index_rank(x, r);
	return 0;
}

/* The step that rank r's step st (ord-th of its threadblock) matches at its peer: the peer's
 * ord-th step of the other direction with r, by FIFO; NULL if there is none. */
static const struct coll_step *ex_match(const struct ex *x, uint32_t r, const struct coll_step *st,
					uint32_t ord)
{
	const struct coll_rank *pk;
	const struct ex_ent *ent;
	uint64_t key = ex_key(st->op == COLL_SEND ? COLL_RECV : COLL_SEND, r);
	size_t lo = 0, hi, mid;

	if (st->peer >= x->p->nranks)
		return NULL;
	pk = &x->sc->ranks.v[st->peer];
	ent = x->ent + pk->step_off;
	hi = pk->step_n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ent[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo + ord >= pk->step_n || ent[lo + ord].key != key)
		return NULL;
	return &x->sc->steps.v[pk->step_off + ent[lo + ord].i];
}

static void put_name(struct sbuf *o, const struct coll_params *p, const char *name)
{
	char b[NAME_MAX_LEN + 1];
	size_t i;

	if (!name || !*name) {
		snprintf(b, sizeof(b), "%s_%s", coll_algo_name(p->algo), coll_kind_name(p->kind));
		name = b;
	}
	for (i = 0; name[i] && i < NAME_MAX_LEN; i++) {
		char c = name[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-';

		sbuf_put(o, "%c", ok ? c : '_');
	}
}

static void put_algo(struct sbuf *o, const struct ex *x, const char *name)
{
	const struct coll_params *p = x->p;
	bool a2a = x->map == BM_A2A;

	/* no "--" may appear in a comment: the names have single hyphens */
	sbuf_put(o,
		 "<!-- testbed: %s %s over %u ranks, %" PRIu64 " bytes of %u-byte elements, "
		 "chunks of %" PRIu64
		 " bytes; seq and phase are testbed attributes -->\n<algo name=\"",
		 coll_algo_name(p->algo), coll_kind_name(p->kind), p->nranks, p->bytes, p->elem,
		 x->chunk);
	put_name(o, p, name);
	sbuf_put(o,
		 "\" proto=\"Simple\" nchannels=\"%u\" nchunksperloop=\"%" PRIu64
		 "\" ngpus=\"%u\" coll=\"%s\" inplace=\"%d\" outofplace=\"%d\" minBytes=\"0\" "
		 "maxBytes=\"0\">\n",
		 x->nchan, x->n, p->nranks, export_coll(p, x->map), !a2a, a2a);
}

/* The all-to-all's own block, which our out holds from the start and MSCCL's must copy. */
static void put_a2a_copy(struct sbuf *o, const struct ex *x, uint32_t r)
{
	uint64_t b = x->n / x->p->nranks;

	sbuf_put(o,
		 "    <tb id=\"0\" send=\"-1\" recv=\"-1\" chan=\"0\">\n"
		 "      <step s=\"0\" type=\"cpy\" srcbuf=\"i\" srcoff=\"%" PRIu64
		 "\" dstbuf=\"o\" dstoff=\"%" PRIu64 "\" cnt=\"%" PRIu64
		 "\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>\n"
		 "    </tb>\n",
		 r * b, r * b, b);
}

static void put_tb(struct sbuf *o, const struct ex *x, uint32_t r, const struct coll_step *st,
		   uint32_t tb)
{
	bool send = st->op == COLL_SEND;

	sbuf_put(o, "    <tb id=\"%u\" send=\"%d\" recv=\"%d\" chan=\"%u\">\n", tb,
		 send ? (int)st->peer : -1, send ? -1 : (int)st->peer,
		 send ? ex_chan(x, r, st->peer) : ex_chan(x, st->peer, r));
}

static const char *step_type(const struct coll_step *st)
{
	if (st->op == COLL_SEND)
		return "s";
	return st->flags == COLL_F_REDUCE ? "rrc" : "r";
}

/* Step i of rank r: its extra dependencies as nops, then the step with its last. */
static void put_step(struct sbuf *o, const struct ex *x, uint32_t r, uint32_t i)
{
	const struct coll_rank *rk = &x->sc->ranks.v[r];
	const struct coll_step *st = &x->sc->steps.v[rk->step_off + i];
	const struct ex_step *es = &x->st[rk->step_off + i];
	const uint32_t *dv = st->dep_n ? x->sc->deps.v + st->dep_off : NULL;
	const struct coll_step *m = ex_match(x, r, st, es->ord);
	uint64_t own = st->off / x->chunk, peer = (m ? m->off : st->off) / x->chunk;
	bool send = st->op == COLL_SEND;
	/* rrc adds src into dst, both its own: the sender's chunks only where they are not read */
	uint64_t src = send || st->flags == COLL_F_REDUCE ? own : peer;
	int depid = -1, deps = -1;
	uint32_t k;

	for (k = 0; k < st->dep_n; k++) {
		const struct ex_step *t = &x->st[rk->step_off + (dv[k] < rk->step_n ? dv[k] : 0)];

		if (k + 1 == st->dep_n) {
			depid = (int)t->tb, deps = (int)t->s;
			break;
		}
		sbuf_put(
			o,
			"      <step s=\"%u\" type=\"nop\" srcbuf=\"i\" srcoff=\"-1\" dstbuf=\"o\" "
			"dstoff=\"-1\" cnt=\"0\" depid=\"%u\" deps=\"%u\" hasdep=\"0\"/>\n",
			es->s - (st->dep_n - 1) + k, t->tb, t->s);
	}
	sbuf_put(o,
		 "      <step s=\"%u\" type=\"%s\" srcbuf=\"%c\" srcoff=\"%" PRIu64
		 "\" dstbuf=\"%c\" dstoff=\"%" PRIu64 "\" cnt=\"%" PRIu64
		 "\" depid=\"%d\" deps=\"%d\" hasdep=\"%u\" seq=\"%u\" phase=\"%u\"/>\n",
		 es->s, step_type(st), own_buf(x->p, COLL_SEND), src, own_buf(x->p, COLL_RECV),
		 send ? peer : own, st->len / x->chunk, depid, deps, es->hasdep, i, st->phase);
}

static void put_gpu(struct sbuf *o, const struct ex *x, uint32_t r)
{
	const struct coll_rank *rk = &x->sc->ranks.v[r];
	const struct ex_ent *ent = x->ent + rk->step_off;
	uint64_t share = x->n / x->p->nranks;
	uint32_t j;

	sbuf_put(o,
		 "  <gpu id=\"%u\" i_chunks=\"%" PRIu64 "\" o_chunks=\"%" PRIu64
		 "\" s_chunks=\"0\"",
		 r, x->map == BM_AG ? share : x->n, x->map == BM_RS ? share : x->n);
	if (!rk->step_n && !x->a2a_copy) {
		sbuf_put(o, "/>\n");
		return;
	}
	sbuf_put(o, ">\n");
	if (x->a2a_copy)
		put_a2a_copy(o, x, r);
	for (j = 0; j < rk->step_n; j++) {
		uint32_t i = ent[j].i;

		if (!j || ent[j].key != ent[j - 1].key) {
			if (j)
				sbuf_put(o, "    </tb>\n");
			put_tb(o, x, r, &x->sc->steps.v[rk->step_off + i],
			       x->st[rk->step_off + i].tb);
		}
		put_step(o, x, r, i);
	}
	if (rk->step_n)
		sbuf_put(o, "    </tb>\n");
	sbuf_put(o, "  </gpu>\n");
}

bool msccl_local(const struct coll_sched *s)
{
	size_t i;

	for (i = 0; i < s->steps.n; i++)
		if (s->steps.v[i].op == COLL_LOCAL || (s->steps.v[i].flags & COLL_F_SCRATCH))
			return true;
	return s->params.scratch != 0;
}

size_t msccl_format(const struct coll_sched *s, const char *name, char *buf, size_t size)
{
	struct sbuf o = {buf, size, 0};
	struct ex x;
	uint32_t r;

	if (buf && size)
		buf[0] = '\0';
	if (msccl_local(s) || ex_init(&x, s))
		return 0;
	put_algo(&o, &x, name);
	for (r = 0; r < x.p->nranks; r++)
		put_gpu(&o, &x, r);
	sbuf_put(&o, "</algo>\n");
	ex_done(&x);
	return o.len;
}
