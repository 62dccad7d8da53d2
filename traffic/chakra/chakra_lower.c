// SPDX-License-Identifier: MIT
/* A Chakra job as one schedule (chakra.h, chakra_lower): the form both backends already run
 * (traffic/plan.h decides which steps may go, emu-node and sim/exec.c carry them out). The
 * operations are taken in the order chakra_run starts them when each ends as it starts, one
 * order for the whole job, so the k-th message of every pair of ranks is the same operation on
 * both ends, as the executors' FIFO per connection needs. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/chakra/chakra.h"

#define CACHE 8 /* collective schedules kept, as a trace repeats its collectives */

/* One rank's schedule in the making; step and dependency indices are the rank's own. */
struct lrank {
	VEC(struct coll_step) steps;
	VEC(uint32_t) deps;
	VEC(uint32_t) node; /* per step: the job's node it comes from */
	VEC(uint32_t) exits; /* every node's exits, concatenated */
	VEC(struct chakra_region) regions; /* under regions, with maps */
	uint64_t used; /* under regions: the buffer its operations took so far */
};

struct lower {
	const struct chakra_job *j;
	struct chakra_run x;
	struct lrank *rk;
	uint32_t *ex_off, *ex_n; /* [job node]: the steps that end it, in its rank's exits */
	VEC(uint32_t) entry; /* the node being lowered: the steps its parents end with */
	VEC(uint32_t) mr; /* a collective's member ranks, ascending */
	VEC(uint32_t) mg; /* and their nodes */
	VEC(uint64_t) mb; /* and the bases of their regions */
	VEC(uint8_t) used; /* a member's steps other steps of the operation wait for */
	struct coll_sched cache[CACHE];
	uint32_t slot;
	uint64_t bytes; /* the largest operation's */
	struct chakra_maps *maps; /* NULL: not wanted */
	struct diag *d;
};

static uint32_t elem_of(const struct chakra_job *j)
{
	return j->coll.elem ? j->coll.elem : 4;
}

uint64_t chakra_op_bytes(const struct chakra_job *j, uint64_t bytes, enum chakra_coll c, uint32_t m)
{
	uint64_t e = elem_of(j), unit = c == CHAKRA_ALL_TO_ALL ? e * (m ? m : 1) : e;
	uint64_t b = (uint64_t)((double)bytes * j->size_mul) / unit * unit;

	return b ? b : unit;
}

static const struct chakra_node *node_at(const struct lower *L, uint32_t g, uint32_t *r)
{
	*r = chakra_links_rank(L->j->l, L->j->n, g);
	return &L->j->ranks[*r].nodes.v[g - L->j->l->base[*r]];
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* L->entry: the steps that end node g's parents, each once. */
static int entry_of(struct lower *L, uint32_t g)
{
	uint32_t r, k, p, i;
	const struct chakra_node *n = node_at(L, g, &r);
	const struct chakra_rank *cr = &L->j->ranks[r];
	struct lrank *lr = &L->rk[r];

	L->entry.n = 0;
	for (k = n->dep; k < n->dep + n->ndeps; k++) {
		p = L->j->l->base[r] + cr->deps.v[k];
		for (i = 0; i < L->ex_n[p]; i++)
			if (vec_push(&L->entry, lr->exits.v[L->ex_off[p] + i]))
				return -ENOMEM;
	}
	if (L->entry.n > 1)
		qsort(L->entry.v, L->entry.n, sizeof(*L->entry.v), cmp_u32);
	for (i = k = 0; i < L->entry.n; i++)
		if (!k || L->entry.v[k - 1] != L->entry.v[i])
			L->entry.v[k++] = L->entry.v[i];
	L->entry.n = k;
	return 0;
}

/* Appends st to rank r's steps, from node g, waiting for deps[0..n): its index, or -ENOMEM. */
static int64_t add_step(struct lower *L, uint32_t r, uint32_t g, struct coll_step st,
			const uint32_t *deps, uint32_t n)
{
	struct lrank *lr = &L->rk[r];
	uint32_t i;

	st.dep_off = (uint32_t)lr->deps.n;
	st.dep_n = n;
	if (vec_reserve(&lr->deps, lr->deps.n + n) || vec_push(&lr->node, g) ||
	    vec_push(&lr->steps, st))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		lr->deps.v[lr->deps.n++] = deps[i];
	return (int64_t)lr->steps.n - 1;
}

/* Node g (of rank r) ends with the steps v[0..n). */
static int set_exits(struct lower *L, uint32_t r, uint32_t g, const uint32_t *v, uint32_t n)
{
	struct lrank *lr = &L->rk[r];
	uint32_t i;

	L->ex_off[g] = (uint32_t)lr->exits.n;
	L->ex_n[g] = n;
	if (vec_reserve(&lr->exits, lr->exits.n + n))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		lr->exits.v[lr->exits.n++] = v[i];
	return 0;
}

/* A node with no steps of its own on rank r: it ends with its parents, through a WAIT of 0
 * when there are several (so that its children wait for one step). */
static int pass(struct lower *L, uint32_t r, uint32_t g)
{
	struct coll_step w = {.op = COLL_WAIT, .peer = r};
	int64_t k;
	uint32_t s;

	if (L->entry.n <= 1)
		return set_exits(L, r, g, L->entry.v, (uint32_t)L->entry.n);
	k = add_step(L, r, g, w, L->entry.v, (uint32_t)L->entry.n);
	if (k < 0)
		return (int)k;
	s = (uint32_t)k;
	return set_exits(L, r, g, &s, 1);
}

static int node_fail(struct lower *L, uint32_t g, int err, const char *what)
{
	uint32_t r;
	const struct chakra_node *n = node_at(L, g, &r);

	return diag_set(L->d, err, "rank %u: node %" PRIu64 " (%s): %s", r, n->id,
			chakra_str(&L->j->ranks[r], n->name), what);
}

double chakra_node_ns(const struct chakra_job *j, const struct chakra_node *n)
{
	double ns = 0;

	if (n->flags & CHAKRA_F_DURATION)
		ns = (double)n->duration_us * 1e3;
	else if (n->kind == CHAKRA_COMP && n->num_ops && j->flops > 0)
		ns = (double)n->num_ops / j->flops * 1e9;
	else if (n->kind == CHAKRA_COMP && n->num_ops)
		return -1;
	return round(ns * j->time_mul);
}

/* A compute, memory or metadata node: a WAIT of its time, or none. */
static int lower_time(struct lower *L, uint32_t g)
{
	uint32_t r, s;
	const struct chakra_node *n = node_at(L, g, &r);
	double ns = chakra_node_ns(L->j, n);
	int64_t k;
	int err = entry_of(L, g);

	if (err)
		return err;
	if (ns < 0)
		return node_fail(L, g, -EINVAL,
				 "a compute given as num_ops alone, and the scenario gives no "
				 "rate to time it (workload.chakra_flops)");
	if (ns < 1)
		return pass(L, r, g);
	k = add_step(L, r, g, (struct coll_step){.op = COLL_WAIT, .peer = r, .len = (uint64_t)ns},
		     L->entry.v, (uint32_t)L->entry.n);
	if (k < 0)
		return (int)k;
	s = (uint32_t)k;
	return set_exits(L, r, g, &s, 1);
}

/* ---- regions (verify): each operation in its own bytes of each member's buffer ---- */

/* The base of a region of len bytes of rank r's buffer; 0 without regions. */
static uint64_t take(struct lower *L, uint32_t r, uint64_t len)
{
	uint64_t b = L->rk[r].used;

	if (!L->j->regions)
		return 0;
	L->rk[r].used += len;
	return b;
}

/* The operation's members (ranks v[0..n), their bases L->mb), one region on each: 0 or
 * -ENOMEM; nothing without regions or maps. */
static int add_regions(struct lower *L, const uint32_t *v, size_t n, enum chakra_rkind kind,
		       uint64_t len)
{
	uint32_t off, k;

	if (!L->j->regions || !L->maps)
		return 0;
	off = (uint32_t)L->maps->members.n;
	for (k = 0; k < n; k++)
		if (vec_push(&L->maps->members,
			     ((struct chakra_member){.rank = v[k], .base = L->mb.v[k]})))
			return -ENOMEM;
	for (k = 0; k < n; k++) {
		struct chakra_region rg = {.base = L->mb.v[k],
					   .len = len,
					   .member_off = off,
					   .nmembers = (uint32_t)n,
					   .index = k,
					   .kind = (uint8_t)kind};

		if (vec_push(&L->rk[v[k]].regions, rg))
			return -ENOMEM;
	}
	return 0;
}

/* A send and its receive: one message, a broadcast of two members' regions. */
static int lower_pair(struct lower *L, const uint32_t *m)
{
	uint32_t rs, rr, k[2], i, rank[2];
	const struct chakra_node *ns = node_at(L, m[0], &rs);
	uint64_t b = chakra_op_bytes(L->j, ns->bytes, CHAKRA_ALL_REDUCE, 1);
	int64_t v;
	int err;

	node_at(L, m[1], &rr);
	rank[0] = rs, rank[1] = rr;
	L->bytes = b > L->bytes ? b : L->bytes;
	L->mb.n = 0;
	err = vec_push(&L->mb, take(L, rs, b)) || vec_push(&L->mb, take(L, rr, b)) ? -ENOMEM : 0;
	err = err ? err : add_regions(L, rank, 2, CHAKRA_R_BROADCAST, b);
	for (i = 0; !err && i < 2; i++) {
		struct coll_step st = {.op = i ? COLL_RECV : COLL_SEND,
				       .flags = i ? COLL_F_COPY : 0,
				       .peer = i ? rs : rr,
				       .len = b,
				       .off = L->mb.v[i]};

		err = entry_of(L, m[i]);
		v = err ? 0 : add_step(L, i ? rr : rs, m[i], st, L->entry.v, (uint32_t)L->entry.n);
		err = err ? err : v < 0 ? (int)v : 0;
		k[i] = (uint32_t)v;
		err = err ? err : set_exits(L, i ? rr : rs, m[i], &k[i], 1);
	}
	return err;
}

/* The collective kind a node runs as, or -1 (BROADCAST and REDUCE: by hand). */
static int coll_kind_of(enum chakra_coll c)
{
	switch (c) {
	case CHAKRA_ALL_REDUCE:
	case CHAKRA_BARRIER:
		return COLL_ALLREDUCE;
	case CHAKRA_ALL_GATHER:
		return COLL_ALLGATHER;
	case CHAKRA_REDUCE_SCATTER:
		return COLL_REDUCESCATTER;
	case CHAKRA_ALL_TO_ALL:
		return COLL_ALLTOALL;
	default:
		return -1;
	}
}

/* The schedule of p (one of the last CACHE built, or built now into a slot). */
static int sub_sched(struct lower *L, const struct coll_params *p, const struct coll_sched **out)
{
	struct coll_sched *s;
	uint32_t i;
	int err;

	for (i = 0; i < CACHE; i++) {
		const struct coll_params *q = &L->cache[i].params;

		if (L->cache[i].ranks.n && q->kind == p->kind && q->algo == p->algo &&
		    q->nranks == p->nranks && q->bytes == p->bytes) {
			*out = &L->cache[i];
			return 0;
		}
	}
	s = &L->cache[L->slot++ % CACHE];
	coll_sched_done(s);
	err = coll_sched_build(p, s, L->d);
	*out = s;
	return err;
}

/* BROADCAST from the lowest member to the others, REDUCE onto it: one message each. */
static int by_hand(struct coll_sched *s, const struct coll_params *p, bool bcast)
{
	uint32_t k;

	memset(s, 0, sizeof(*s));
	s->params = *p;
	if (vec_reserve(&s->ranks, p->nranks) || vec_reserve(&s->steps, 2 * (size_t)p->nranks))
		return -ENOMEM;
	s->ranks.n = p->nranks;
	s->ranks.v[0] = (struct coll_rank){0, p->nranks - 1};
	for (k = 1; k < p->nranks; k++)
		s->steps.v[k - 1] = (struct coll_step){.op = bcast ? COLL_SEND : COLL_RECV,
						       .flags = bcast ? 0 : COLL_F_REDUCE,
						       .peer = k,
						       .len = p->bytes};
	for (k = 1; k < p->nranks; k++) {
		s->ranks.v[k] = (struct coll_rank){p->nranks - 2 + k, 1};
		s->steps.v[p->nranks - 2 + k] =
			(struct coll_step){.op = bcast ? COLL_RECV : COLL_SEND,
					   .flags = bcast ? COLL_F_COPY : 0,
					   .len = p->bytes};
	}
	s->steps.n = 2 * ((size_t)p->nranks - 1);
	return 0;
}

/* The members of instance m[0..n), ascending by rank, into L->mr and L->mg. */
static int members(struct lower *L, const uint32_t *m, size_t n)
{
	size_t i, k;
	uint32_t r;

	L->mr.n = L->mg.n = 0;
	if (vec_reserve(&L->mr, n) || vec_reserve(&L->mg, n))
		return -ENOMEM;
	for (i = 0; i < n; i++) { /* few members: insertion */
		node_at(L, m[i], &r);
		for (k = L->mr.n; k > 0 && L->mr.v[k - 1] > r; k--) {
			L->mr.v[k] = L->mr.v[k - 1];
			L->mg.v[k] = L->mg.v[k - 1];
		}
		L->mr.v[k] = r;
		L->mg.v[k] = m[i];
		L->mr.n++;
		L->mg.n++;
	}
	return 0;
}

/* Under regions, an all-to-all's own block copied from its `in` half to its `out` half,
 * after the node's parents: a step no other waits for (L->entry is the node's). */
static int own_block(struct lower *L, const struct coll_sched *s, uint32_t k)
{
	uint32_t r = L->mr.v[k], g = L->mg.v[k];
	uint64_t blk = s->params.bytes / s->params.nranks, base = L->mb.v[k];
	struct coll_step st = {.op = COLL_LOCAL,
			       .flags = COLL_F_COPY,
			       .peer = r,
			       .len = blk,
			       .off = base + s->params.bytes + k * blk,
			       .src = base + k * blk};
	int64_t v;

	if (!L->j->regions || s->params.kind != COLL_ALLTOALL)
		return 0;
	v = add_step(L, r, g, st, L->entry.v, (uint32_t)L->entry.n);
	if (v < 0)
		return (int)v;
	L->ex_n[g]++;
	return vec_push(&L->rk[r].exits, (uint32_t)v);
}

/* Step st of s in member k's region: its bytes from the region's base (an all-to-all's
 * receives in its `out` half). */
static void place(const struct lower *L, const struct coll_sched *s, uint32_t k,
		  struct coll_step *st)
{
	if (!L->j->regions)
		return;
	st->off += L->mb.v[k];
	if (st->op == COLL_RECV && s->params.kind == COLL_ALLTOALL)
		st->off += s->params.bytes;
	if (st->op == COLL_LOCAL)
		st->src += L->mb.v[k];
}

/* Member k's steps of s on its rank: peers made the job's ranks, the operation's own
 * dependencies kept, its first steps after the node's parents; it ends with the steps none
 * of its others waits for. */
static int lower_member(struct lower *L, const struct coll_sched *s, uint32_t k)
{
	uint32_t r = L->mr.v[k], g = L->mg.v[k], i, c, first = (uint32_t)L->rk[r].steps.n;
	const struct coll_rank *cr = &s->ranks.v[k];
	struct lrank *lr = &L->rk[r];
	int err = entry_of(L, g);

	if (err || !cr->step_n)
		return err ? err : pass(L, r, g);
	L->used.n = 0;
	if (vec_reserve(&L->used, cr->step_n))
		return -ENOMEM;
	memset(L->used.v, 0, cr->step_n);
	for (i = 0; i < cr->step_n; i++) {
		struct coll_step st = s->steps.v[cr->step_off + i];
		const uint32_t *dv = s->deps.v + st.dep_off;
		uint32_t dn = st.dep_n;
		int64_t v;

		st.peer = coll_op_local(st.op) ? r : L->mr.v[st.peer];
		place(L, s, k, &st);
		for (c = 0; c < dn; c++)
			L->used.v[dv[c]] = 1;
		if (!dn) {
			v = add_step(L, r, g, st, L->entry.v, (uint32_t)L->entry.n);
		} else {
			v = add_step(L, r, g, st, dv, dn);
			for (c = 0; v >= 0 && c < dn; c++)
				lr->deps.v[lr->deps.n - dn + c] += first;
		}
		if (v < 0)
			return (int)v;
	}
	L->ex_off[g] = (uint32_t)lr->exits.n;
	L->ex_n[g] = 0;
	for (i = 0; i < cr->step_n; i++) {
		if (L->used.v[i])
			continue;
		if (vec_push(&lr->exits, first + i))
			return -ENOMEM;
		L->ex_n[g]++;
	}
	return own_block(L, s, k);
}

struct coll_params chakra_coll_params(const struct chakra_job *j, const struct chakra_node *nd,
				      uint32_t m, int *kind)
{
	struct coll_params p = j->coll;

	*kind = coll_kind_of(nd->coll);
	p.nranks = m;
	p.kind = *kind < 0 ? COLL_ALLREDUCE : (enum coll_kind) * kind;
	p.bytes = nd->coll == CHAKRA_BARRIER ? elem_of(j)
					     : chakra_op_bytes(j, nd->bytes, nd->coll, p.nranks);
	p.elem = elem_of(j);
	if (!coll_algo_builds(p.algo, p.kind) || coll_algo_shipped(p.algo))
		p.algo = coll_algo_default(p.kind);
	if (p.algo == COLL_MULTIDIM) /* the chunked collective of this node's kind (Themis §4) */
		p.md.kind = (uint8_t)p.kind;
	return p;
}

/* What a collective of kind (coll_kind_of) leaves in its members' regions. */
static enum chakra_rkind region_kind(int kind, enum chakra_coll c)
{
	switch (kind) {
	case COLL_ALLGATHER:
		return CHAKRA_R_ALLGATHER;
	case COLL_REDUCESCATTER:
		return CHAKRA_R_REDUCESCATTER;
	case COLL_ALLTOALL:
		return CHAKRA_R_ALLTOALL;
	case COLL_ALLREDUCE:
		return CHAKRA_R_ALLREDUCE;
	default:
		return c == CHAKRA_BROADCAST ? CHAKRA_R_BROADCAST : CHAKRA_R_REDUCE;
	}
}

static int lower_coll(struct lower *L, const uint32_t *m, size_t n)
{
	uint32_t r, k;
	const struct chakra_node *nd = node_at(L, m[0], &r);
	int kind, err = members(L, m, n);
	struct coll_params p = chakra_coll_params(L->j, nd, (uint32_t)n, &kind);
	const struct coll_sched *s;
	struct coll_sched own = {0};
	uint32_t a2a = p.kind == COLL_ALLTOALL ? 2 : 1; /* `in` and `out` under regions */

	L->mb.n = 0;
	for (k = 0; !err && k < n; k++)
		err = vec_push(&L->mb, take(L, L->mr.v[k], a2a * p.bytes));
	err = err ? err : add_regions(L, L->mr.v, n, region_kind(kind, nd->coll), p.bytes);
	if (err)
		return err;
	L->bytes = p.bytes > L->bytes ? p.bytes : L->bytes;
	err = kind < 0 ? by_hand(&own, &p, nd->coll == CHAKRA_BROADCAST) : sub_sched(L, &p, &s);
	if (kind < 0)
		s = &own;
	if (err && err != -ENOMEM)
		err = diag_wrap(L->d, err, "rank %u: node %" PRIu64 " (%s): %s over %u ranks: ", r,
				nd->id, chakra_str(&L->j->ranks[r], nd->name),
				chakra_coll_name(nd->coll), p.nranks);
	for (k = 0; !err && k < n; k++)
		err = lower_member(L, s, k);
	coll_sched_done(&own);
	return err;
}

static int lower_op(struct lower *L, const struct chakra_op *op)
{
	size_t n;
	const uint32_t *m = chakra_run_members(&L->x, op, &n);

	if (op->kind == CHAKRA_COLL)
		return lower_coll(L, m, n);
	if (op->kind == CHAKRA_SEND)
		return lower_pair(L, m);
	return lower_time(L, op->node);
}

/* The ranks' regions as one list, rank after rank, into L->maps. */
static int assemble_regions(struct lower *L)
{
	struct chakra_maps *m = L->maps;
	size_t r, total = 0;

	for (r = 0; r < L->j->n; r++)
		total += L->rk[r].regions.n;
	m->region_off = malloc((L->j->n + 1) * sizeof(*m->region_off));
	if (!m->region_off || vec_reserve(&m->regions, total + 1))
		return -ENOMEM;
	for (r = 0; r < L->j->n; r++) {
		m->region_off[r] = (uint32_t)m->regions.n;
		if (L->rk[r].regions.n)
			memcpy(m->regions.v + m->regions.n, L->rk[r].regions.v,
			       L->rk[r].regions.n * sizeof(*m->regions.v));
		m->regions.n += L->rk[r].regions.n;
	}
	m->region_off[L->j->n] = (uint32_t)m->regions.n;
	return 0;
}

/* The ranks' schedules as one (coll.h's layout), and the maps. */
static int assemble(struct lower *L, struct coll_sched *s)
{
	size_t r, steps = 0, deps = 0, i;
	uint32_t *sn = NULL;

	for (r = 0; r < L->j->n; r++) {
		steps += L->rk[r].steps.n;
		deps += L->rk[r].deps.n;
	}
	if (vec_reserve(&s->ranks, L->j->n) || vec_reserve(&s->steps, steps + 1) ||
	    vec_reserve(&s->deps, deps + 1) || (L->maps && !(sn = malloc((steps + 1) * 4))))
		return -ENOMEM;
	for (r = 0; r < L->j->n; r++) {
		struct lrank *lr = &L->rk[r];

		s->ranks.v[r] = (struct coll_rank){(uint32_t)s->steps.n, (uint32_t)lr->steps.n};
		for (i = 0; i < lr->steps.n; i++) {
			lr->steps.v[i].dep_off += (uint32_t)s->deps.n;
			if (sn)
				sn[s->steps.n + i] = lr->node.v[i];
		}
		memcpy(s->steps.v + s->steps.n, lr->steps.v, lr->steps.n * sizeof(*lr->steps.v));
		if (lr->deps.n)
			memcpy(s->deps.v + s->deps.n, lr->deps.v, lr->deps.n * sizeof(*lr->deps.v));
		s->steps.n += lr->steps.n;
		s->deps.n += lr->deps.n;
	}
	s->ranks.n = L->j->n;
	if (L->maps)
		L->maps->step_node = sn;
	return L->maps ? assemble_regions(L) : 0;
}

/* The buffer: the largest operation, or the most a rank's regions took. */
static uint64_t buffer_bytes(const struct lower *L)
{
	uint64_t b = L->bytes;
	size_t r;

	for (r = 0; L->j->regions && r < L->j->n; r++)
		b = L->rk[r].used > b ? L->rk[r].used : b;
	return b ? b : elem_of(L->j);
}

static void lower_done(struct lower *L)
{
	size_t r, i;

	for (r = 0; L->rk && r < L->j->n; r++) {
		vec_free(&L->rk[r].steps);
		vec_free(&L->rk[r].deps);
		vec_free(&L->rk[r].node);
		vec_free(&L->rk[r].exits);
		vec_free(&L->rk[r].regions);
	}
	for (i = 0; i < CACHE; i++)
		coll_sched_done(&L->cache[i]);
	free(L->rk);
	free(L->ex_off);
	free(L->ex_n);
	vec_free(&L->entry);
	vec_free(&L->mr);
	vec_free(&L->mg);
	vec_free(&L->mb);
	vec_free(&L->used);
	chakra_run_done(&L->x);
}

static int lower_all(struct lower *L, struct coll_sched *s)
{
	uint32_t total = L->j->l->base[L->j->n];
	struct chakra_op op;
	int err;

	L->rk = calloc(L->j->n, sizeof(*L->rk));
	L->ex_off = calloc((size_t)total + 1, sizeof(*L->ex_off));
	L->ex_n = calloc((size_t)total + 1, sizeof(*L->ex_n));
	if (!L->rk || !L->ex_off || !L->ex_n)
		return -ENOMEM;
	err = chakra_run_init(&L->x, L->j->ranks, L->j->n, L->j->l);
	while (!err && chakra_run_next(&L->x, &op)) {
		err = lower_op(L, &op);
		err = err ? err : chakra_run_ended(&L->x, &op);
	}
	if (!err && !chakra_run_finished(&L->x))
		return diag_set(L->d, -EINVAL, "the job cannot finish (chakra_check refuses it)");
	s->params = (struct coll_params){.kind = COLL_ALLREDUCE,
					 .algo = COLL_CHAKRA,
					 .nranks = (uint32_t)L->j->n,
					 .bytes = buffer_bytes(L),
					 .elem = elem_of(L->j)};
	return err ? err : assemble(L, s);
}

void chakra_maps_done(struct chakra_maps *m)
{
	if (!m)
		return;
	free(m->step_node);
	free(m->region_off);
	vec_free(&m->regions);
	vec_free(&m->members);
	memset(m, 0, sizeof(*m));
}

int chakra_lower(const struct chakra_job *j, struct coll_sched *s, struct chakra_maps *maps,
		 struct diag *d)
{
	struct lower L = {.j = j, .maps = maps, .d = d};
	int err;

	memset(s, 0, sizeof(*s));
	if (maps)
		memset(maps, 0, sizeof(*maps));
	if (!j->n || j->n > COLL_MAX_RANKS)
		return diag_set(d, -EINVAL, "a Chakra job of %zu ranks (1 to %u run)", j->n,
				COLL_MAX_RANKS);
	err = lower_all(&L, s);
	lower_done(&L);
	if (err) {
		coll_sched_done(s);
		chakra_maps_done(maps);
		if (err == -ENOMEM)
			diag_set(d, err, "out of memory");
	}
	return err;
}
