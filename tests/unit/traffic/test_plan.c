// SPDX-License-Identifier: MIT
/* The executor's step tracking (traffic/plan.c): channels, FIFO sequence numbers, readiness
 * on a hand-made schedule; piece splitting; and every algorithm run on real floats by all
 * ranks at once through plan_run, with messages matched per ordered pair in FIFO order and
 * sends completing at pseudo-random times, every step handed out only after what it waits
 * for, ending in verify.c's check of every rank's result. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu-node/ctl.h"
#include "traffic/plan.h"
#include "emu-node/verify.h"

static void t_step(struct coll_sched *s, uint8_t op, uint32_t peer, uint32_t ndep,
		   const uint32_t *deps)
{
	struct coll_step st = {.op = op, .peer = peer, .len = 4, .dep_n = ndep};
	uint32_t i;

	st.dep_off = (uint32_t)s->deps.n;
	for (i = 0; i < ndep; i++)
		assert_int_equal(vec_push(&s->deps, deps[i]), 0);
	assert_int_equal(vec_push(&s->steps, st), 0);
}

/* Rank 0 of a made-up schedule:
 *   0 SEND to 2       1 SEND to 2 (FIFO behind 0)   2 RECV from 1
 *   3 SEND to 1 after 2   4 RECV from 2 after 0     5 RECV from 1 (FIFO behind 2) */
static void t_made_up(struct coll_sched *s)
{
	static const uint32_t d2 = 2, d0 = 0;
	struct coll_rank r = {0, 6};

	memset(s, 0, sizeof(*s));
	s->params.nranks = 3;
	t_step(s, COLL_SEND, 2, 0, NULL);
	t_step(s, COLL_SEND, 2, 0, NULL);
	t_step(s, COLL_RECV, 1, 0, NULL);
	t_step(s, COLL_SEND, 1, 1, &d2);
	t_step(s, COLL_RECV, 2, 1, &d0);
	t_step(s, COLL_RECV, 1, 0, NULL);
	assert_int_equal(vec_push(&s->ranks, r), 0);
}

static void test_channels(void **state)
{
	static const uint32_t seq[] = {0, 1, 0, 0, 0, 1};
	struct coll_sched s;
	struct coll_plan p;
	uint32_t i;

	(void)state;
	t_made_up(&s);
	assert_int_equal(coll_plan_init(&p, &s, 0), 0);
	assert_int_equal(p.npeers, 2);
	assert_int_equal(p.peers[0], 1);
	assert_int_equal(p.peers[1], 2);
	assert_int_equal(coll_plan_peer(&p, 2), 1);
	assert_int_equal(coll_plan_peer(&p, 0), -ENOENT);
	for (i = 0; i < 6; i++)
		assert_int_equal(p.node[i].seq, seq[i]);
	assert_int_equal(p.node[0].chan, 2 * 1 + COLL_SEND);
	assert_int_equal(p.node[5].chan, 2 * 0 + COLL_RECV);
	/* step 0 unblocks 4, step 2 unblocks 3 */
	assert_int_equal(p.node[1].succ_off - p.node[0].succ_off, 1);
	assert_int_equal(p.succ[p.node[0].succ_off], 4);
	assert_int_equal(p.succ[p.node[2].succ_off], 3);
	coll_plan_done(&p);
	coll_sched_done(&s);
}

static void t_take(struct coll_plan_run *r, uint32_t a, uint32_t b)
{
	uint32_t x = coll_plan_run_take(r), y = coll_plan_run_take(r);

	/* the order within one batch does not matter */
	assert_true((x == a && y == b) || (x == b && y == a));
	assert_int_equal(coll_plan_run_take(r), COLL_PLAN_NONE);
}

static void test_readiness(void **state)
{
	struct coll_sched s;
	struct coll_plan_run r;
	struct coll_plan p;
	int it;

	(void)state;
	t_made_up(&s);
	assert_int_equal(coll_plan_init(&p, &s, 0), 0);
	assert_int_equal(coll_plan_run_init(&r, &p), 0);
	for (it = 0; it < 2; it++) { /* twice: reset starts over */
		coll_plan_run_reset(&r);
		t_take(&r, 0, 2); /* 1 waits behind 0, 5 behind 2, 3 and 4 on dependencies */
		coll_plan_run_complete(&r, 0);
		t_take(&r, 1, 4);
		coll_plan_run_complete(&r, 2);
		t_take(&r, 3, 5);
		coll_plan_run_complete(&r, 4);
		coll_plan_run_complete(&r, 1);
		assert_false(coll_plan_run_finished(&r));
		assert_int_equal(coll_plan_run_take(&r), COLL_PLAN_NONE);
		coll_plan_run_complete(&r, 5);
		coll_plan_run_complete(&r, 3);
		assert_true(coll_plan_run_finished(&r));
	}
	coll_plan_run_done(&r);
	coll_plan_done(&p);
	coll_sched_done(&s);
}

/* A dependency that a later step of its channel in the same list implies is not waited for
 * separately: rank 0 of
 *   0 RECV from 1   1 RECV from 1 (FIFO behind 0)   2 SEND to 2   3 SEND to 1 after 0, 1, 2
 *   4 RECV from 2 after 2, 1
 * waits in 3 for 1 and 2 only (1's completion implies 0's), in 4 for both. */
static void test_implied(void **state)
{
	static const uint32_t d3[] = {0, 1, 2}, d4[] = {2, 1};
	struct coll_rank rk = {0, 5};
	struct coll_sched s = {0};
	struct coll_plan_run r;
	struct coll_plan p;
	uint32_t i;

	(void)state;
	s.params.nranks = 3;
	t_step(&s, COLL_RECV, 1, 0, NULL);
	t_step(&s, COLL_RECV, 1, 0, NULL);
	t_step(&s, COLL_SEND, 2, 0, NULL);
	t_step(&s, COLL_SEND, 1, 3, d3);
	t_step(&s, COLL_RECV, 2, 2, d4);
	assert_int_equal(vec_push(&s.ranks, rk), 0);
	assert_int_equal(coll_plan_init(&p, &s, 0), 0);
	assert_int_equal(p.need[3], 2);
	assert_int_equal(p.need[4], 2);
	for (i = p.node[0].succ_off; i < p.node[1].succ_off; i++)
		assert_int_not_equal(p.succ[i], 3); /* 0 does not count down 3 */
	assert_int_equal(p.node[2].succ_off - p.node[1].succ_off, 2); /* 1 counts down 3 and 4 */
	assert_int_equal(coll_plan_run_init(&r, &p), 0);
	coll_plan_run_reset(&r);
	t_take(&r, 0, 2);
	coll_plan_run_complete(&r, 0);
	assert_int_equal(coll_plan_run_take(&r), 1);
	assert_int_equal(coll_plan_run_take(&r), COLL_PLAN_NONE);
	coll_plan_run_complete(&r, 2);
	assert_int_equal(coll_plan_run_take(&r), COLL_PLAN_NONE); /* 3 and 4 wait for 1 */
	coll_plan_run_complete(&r, 1);
	t_take(&r, 3, 4);
	coll_plan_run_complete(&r, 3);
	coll_plan_run_complete(&r, 4);
	assert_true(coll_plan_run_finished(&r));
	coll_plan_run_done(&r);
	coll_plan_done(&p);
	coll_sched_done(&s);
}

/* Nor one that the step before it in its channel waits for: a channel runs one step at a time,
 * so that step completed after it. Rank 0 of
 *   0 RECV from 1   1 SEND to 2 after 0   2 SEND to 2 after 0   3 RECV from 2 after 1
 * waits in 2 for nothing of its own (it follows 1, which follows 0), in 3 for 1. */
static void test_implied_by_prev(void **state)
{
	static const uint32_t d0 = 0, d1 = 1;
	struct coll_rank rk = {0, 4};
	struct coll_sched s = {0};
	struct coll_plan_run r;
	struct coll_plan p;

	(void)state;
	s.params.nranks = 3;
	t_step(&s, COLL_RECV, 1, 0, NULL);
	t_step(&s, COLL_SEND, 2, 1, &d0);
	t_step(&s, COLL_SEND, 2, 1, &d0);
	t_step(&s, COLL_RECV, 2, 1, &d1);
	assert_int_equal(vec_push(&s.ranks, rk), 0);
	assert_int_equal(coll_plan_init(&p, &s, 0), 0);
	assert_int_equal(p.need[1], 1);
	assert_int_equal(p.need[2], 0);
	assert_int_equal(p.need[3], 1);
	assert_int_equal(p.node[1].succ_off - p.node[0].succ_off, 1); /* 0 counts down 1 only */
	assert_int_equal(p.succ[p.node[0].succ_off], 1);
	assert_int_equal(coll_plan_run_init(&r, &p), 0);
	coll_plan_run_reset(&r);
	assert_int_equal(coll_plan_run_take(&r), 0);
	assert_int_equal(coll_plan_run_take(&r), COLL_PLAN_NONE); /* 2 behind 1, behind 0 */
	coll_plan_run_complete(&r, 0);
	assert_int_equal(coll_plan_run_take(&r), 1);
	assert_int_equal(coll_plan_run_take(&r), COLL_PLAN_NONE);
	coll_plan_run_complete(&r, 1);
	t_take(&r, 2, 3);
	coll_plan_run_complete(&r, 2);
	coll_plan_run_complete(&r, 3);
	assert_true(coll_plan_run_finished(&r));
	coll_plan_run_done(&r);
	coll_plan_done(&p);
	coll_sched_done(&s);
}

static void test_pieces(void **state)
{
	static const uint64_t lens[] = {0, 4, 4096, 10u << 20, (10u << 20) + 12};
	static const uint64_t maxes[] = {4u << 20, 30, 4, 1};
	static const uint32_t elems[] = {1, 4, 8};
	uint64_t done, k, n;
	uint32_t a, b, c;

	(void)state;
	assert_int_equal(coll_plan_piece(10u << 20, 0, 4u << 20, 4), 4u << 20);
	assert_int_equal(coll_plan_piece(10u << 20, 8u << 20, 4u << 20, 4), 2u << 20);
	assert_int_equal(coll_plan_piece(100, 0, 30, 8), 24); /* cut on an element */
	assert_int_equal(coll_plan_piece(96, 0, 4, 8), 8); /* at least one element */
	for (a = 0; a < 5; a++)
		for (b = 0; b < 4; b++)
			for (c = 0; c < 3; c++) {
				n = lens[a] - lens[a] % elems[c];
				for (done = 0, k = 0; done < n && k < (1u << 24); k++) {
					done += coll_plan_piece(n, done, maxes[b], elems[c]);
					assert_int_equal(done % elems[c], 0);
					assert_true(done <= n);
				}
				assert_int_equal(done, n);
			}
}

/* Channels: a step's parts are contiguous, in order, cover it exactly, cut on elements (the
 * last takes a tail), and none is empty but the one part of an empty step; there are K of
 * them, or one per element when the step has fewer. */
static void test_parts(void **state)
{
	static const uint64_t lens[] = {0, 3, 4, 12, 20, 4096, 40028, (9u << 20) + 12};
	static const uint32_t elems[] = {1, 4, 8};
	uint64_t off, len, at, n;
	uint32_t a, b, k, m, c;

	(void)state;
	assert_int_equal(coll_plan_parts(1u << 20, 4, 16), 16);
	assert_int_equal(coll_plan_parts(12, 4, 16), 3); /* 3 floats: 3 parts */
	assert_int_equal(coll_plan_parts(0, 4, 16), 1);
	assert_int_equal(coll_plan_parts(3, 4, 16), 1); /* a tail only */
	assert_int_equal(coll_plan_part(40, 4, 4, 1, &off), 12); /* 10 floats: 2, 3, 2, 3 */
	assert_int_equal(off, 8);
	assert_int_equal(coll_plan_part(40, 4, 4, 3, &off), 12);
	assert_int_equal(off, 28);
	for (a = 0; a < sizeof(lens) / sizeof(lens[0]); a++)
		for (b = 0; b < 3; b++)
			for (k = 1; k <= COLL_CHANNELS_MAX; k++) {
				m = coll_plan_parts(lens[a], elems[b], k);
				n = lens[a] / elems[b];
				assert_int_equal(m, n >= k ? k : n ? n : 1);
				for (c = 0, at = 0; c < m; c++) {
					len = coll_plan_part(lens[a], elems[b], m, c, &off);
					assert_int_equal(off, at);
					assert_int_equal(off % elems[b], 0);
					assert_true(len > 0 || lens[a] == 0);
					assert_true(c + 1 == m || len % elems[b] == 0);
					at += len;
				}
				assert_int_equal(at, lens[a]);
			}
}

/* A message in flight from one rank to another: the sender's bytes when it sent them. */
struct t_msg {
	uint32_t seq;
	uint64_t len;
	float *data;
};

struct t_rank {
	struct coll_sched s;
	struct coll_plan p;
	struct coll_plan_run r;
	float *buf, *out; /* out: ALLTOALL only */
	uint32_t *pending; /* receives taken, waiting for their message */
	uint32_t npending;
	uint32_t *sending; /* sends taken, their bytes queued, not yet completed */
	uint32_t nsending;
	uint8_t *done; /* per step: completed */
};

struct t_sim {
	const struct coll_params *par;
	struct t_rank *rk;
	VEC(struct t_msg) * q; /* q[src * n + dst], consumed from head[] */
	size_t *head;
	uint32_t lcg; /* when sends complete */
};

/* What the plan promises of a step it hands out: every step in its dependency list, and the
 * steps before it in its channel, have completed. */
static void t_check_taken(const struct t_rank *rk, uint32_t s)
{
	const uint32_t *d;
	uint32_t m, j;

	d = coll_plan_deps(&rk->p, s, &m);
	for (j = 0; j < m; j++)
		if (!rk->done[d[j]])
			fail_msg("step %u taken before its dependency %u completed", s, d[j]);
	for (j = 0; j < s; j++)
		if (rk->p.node[j].chan == rk->p.node[s].chan && !rk->done[j])
			fail_msg("step %u taken before %u of its channel completed", s, j);
}

static void t_complete(struct t_rank *rk, uint32_t s)
{
	rk->done[s] = 1;
	coll_plan_run_complete(&rk->r, s);
}

/* A send's bytes leave at once; the send completes some sweeps later, at a pseudo-random
 * one, so that steps become ready in many orders: the schedules are race-free and the plan
 * must hold every step back until what it waits for has completed, under any timing. */
static void t_send(struct t_sim *sm, uint32_t r, uint32_t s)
{
	struct t_rank *rk = &sm->rk[r];
	const struct coll_step *st = &rk->p.steps[s];
	struct t_msg m = {.seq = rk->p.node[s].seq, .len = st->len, .data = malloc(st->len + 1)};

	assert_non_null(m.data);
	memcpy(m.data, rk->buf + st->off / 4, st->len);
	assert_int_equal(vec_push(&sm->q[r * sm->par->nranks + st->peer], m), 0);
	rk->sending[rk->nsending++] = s;
}

/* Completes each of rank r's sends in flight with probability 1/2. */
static bool t_sends_done(struct t_sim *sm, uint32_t r)
{
	struct t_rank *rk = &sm->rk[r];
	bool moved = false;
	uint32_t k;

	for (k = 0; k < rk->nsending;) {
		sm->lcg = sm->lcg * 1103515245u + 12345u;
		if (sm->lcg >> 31) {
			k++;
			continue;
		}
		t_complete(rk, rk->sending[k]);
		rk->sending[k] = rk->sending[--rk->nsending];
		moved = true;
	}
	return moved;
}

/* Delivers the next message from the step's peer, if there is one; FIFO order must make it
 * the message with the receive's sequence number and length. */
static bool t_recv(struct t_sim *sm, uint32_t r, uint32_t s)
{
	struct t_rank *rk = &sm->rk[r];
	const struct coll_step *st = &rk->p.steps[s];
	size_t qi = st->peer * sm->par->nranks + r;
	float *dst = (sm->par->kind == COLL_ALLTOALL ? rk->out : rk->buf) + st->off / 4;
	struct t_msg *m;
	uint64_t i;

	if (sm->head[qi] == sm->q[qi].n)
		return false;
	m = &sm->q[qi].v[sm->head[qi]++];
	assert_int_equal(m->seq, rk->p.node[s].seq);
	assert_int_equal(m->len, st->len);
	for (i = 0; i < st->len / 4; i++)
		dst[i] = st->flags & COLL_F_REDUCE ? dst[i] + m->data[i] : m->data[i];
	free(m->data);
	t_complete(rk, s);
	return true;
}

static bool t_sim_rank(struct t_sim *sm, uint32_t r)
{
	struct t_rank *rk = &sm->rk[r];
	bool moved = false;
	uint32_t s, k;

	while ((s = coll_plan_run_take(&rk->r)) != COLL_PLAN_NONE) {
		moved = true;
		t_check_taken(rk, s);
		if (rk->p.steps[s].op == COLL_SEND)
			t_send(sm, r, s);
		else
			rk->pending[rk->npending++] = s;
	}
	for (k = 0; k < rk->npending;) {
		if (t_recv(sm, r, rk->pending[k])) {
			rk->pending[k] = rk->pending[--rk->npending];
			moved = true;
		} else {
			k++;
		}
	}
	return t_sends_done(sm, r) || moved;
}

static void t_rank_init(const struct coll_params *par, struct t_rank *rk, uint32_t r)
{
	struct diag d = {0};
	uint64_t e = par->bytes / 4;

	assert_int_equal(coll_sched_build_rank(par, r, &rk->s, &d), 0);
	assert_int_equal(coll_plan_init(&rk->p, &rk->s, r), 0);
	assert_int_equal(coll_plan_run_init(&rk->r, &rk->p), 0);
	rk->buf = malloc(par->bytes + 4);
	rk->out = malloc(par->bytes + 4);
	rk->pending = calloc(rk->p.n + 1, sizeof(*rk->pending));
	rk->sending = calloc(rk->p.n + 1, sizeof(*rk->sending));
	rk->done = calloc(rk->p.n + 1, 1);
	assert_true(rk->pending && rk->sending && rk->done);
	verify_fill(rk->buf, e, r);
	memcpy(rk->out, rk->buf, par->bytes);
	coll_plan_run_reset(&rk->r);
}

/* Checks rank r's result and frees it. */
static void t_rank_done(const struct coll_params *par, struct t_rank *rk, uint32_t r)
{
	struct verify_sums vs;
	char why[160] = "";

	assert_true(coll_plan_run_finished(&rk->r));
	verify_sums_init(&vs, par, r);
	if (verify_check(par, &vs, r, par->kind == COLL_ALLTOALL ? rk->out : rk->buf, why,
			 sizeof(why)))
		fail_msg("%s %s n=%u group=%u rank %u: %s", coll_algo_name(par->algo),
			 coll_kind_name(par->kind), par->nranks, par->group, r, why);
	coll_plan_run_done(&rk->r);
	coll_plan_done(&rk->p);
	coll_sched_done(&rk->s);
	free(rk->buf);
	free(rk->out);
	free(rk->pending);
	free(rk->sending);
	free(rk->done);
}

static void t_sim(const struct coll_params *par)
{
	uint32_t n = par->nranks, r;
	struct t_sim sm = {.par = par, .lcg = par->nranks};
	bool moved = true;

	sm.rk = calloc(n, sizeof(*sm.rk));
	sm.q = calloc((size_t)n * n, sizeof(*sm.q));
	sm.head = calloc((size_t)n * n, sizeof(*sm.head));
	for (r = 0; r < n; r++)
		t_rank_init(par, &sm.rk[r], r);
	while (moved)
		for (moved = false, r = 0; r < n; r++)
			moved |= t_sim_rank(&sm, r) || sm.rk[r].nsending;
	for (r = 0; r < n; r++)
		t_rank_done(par, &sm.rk[r], r);
	for (r = 0; r < n * n; r++) {
		assert_int_equal(sm.head[r], sm.q[r].n); /* every message taken */
		vec_free(&sm.q[r]);
	}
	free(sm.rk);
	free(sm.q);
	free(sm.head);
}

static void test_all_algorithms(void **state)
{
	static const uint32_t ns[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16};
	struct coll_params p = {.elem = 4};
	uint32_t i, g;

	(void)state;
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		p = (struct coll_params){.nranks = ns[i], .elem = 4, .bytes = 4 * 1003};
		for (p.kind = COLL_ALLREDUCE; p.kind <= COLL_REDUCESCATTER; p.kind++)
			t_sim(&p);
		p.kind = COLL_ALLREDUCE;
		p.algo = COLL_HD;
		t_sim(&p);
		for (g = 1; g <= 4; g++) {
			p.group = g;
			if (ns[i] % g)
				continue;
			p.algo = COLL_HIER_RING;
			t_sim(&p);
			p.algo = COLL_SHARD_RINGS;
			t_sim(&p);
		}
		p = (struct coll_params){
			COLL_ALLTOALL, COLL_PAIRWISE, ns[i], 4 * 37 * ns[i], 4, 0, {0}, 0};
		t_sim(&p);
	}
}

/* Multidim all-reduce (Themis's chunk schedules), ring and direct dimensions, on the plan. */
static void test_multidim(void **state)
{
	struct coll_params p = {.kind = COLL_ALLREDUCE,
				.algo = COLL_MULTIDIM,
				.nranks = 16,
				.bytes = 4 * 1003,
				.elem = 4};

	(void)state;
	p.md = (struct coll_md){.ndims = 3, .sched = COLL_MD_THEMIS, .intra = COLL_MD_SCF};
	p.md.chunks = 8;
	p.md.thr_div = 16;
	p.md.dim[0] = (struct coll_md_dim){.size = 4, .algo = COLL_MD_RING, .active = 2};
	p.md.dim[1] = (struct coll_md_dim){.size = 2, .algo = COLL_MD_DIRECT, .active = 1};
	p.md.dim[2] = (struct coll_md_dim){.size = 2, .algo = COLL_MD_RING, .active = 3};
	p.md.dim[0].rate = 2000000000;
	p.md.dim[1].rate = 1000000000;
	p.md.dim[2].rate = 500000000;
	t_sim(&p);
	p.md.sched = COLL_MD_BASELINE;
	p.md.intra = COLL_MD_FIFO;
	t_sim(&p);
}

/* Source ports: in range, a fixed function of (job, rank, peer), spread so that the pairs
 * of one job rarely share a first candidate, and the attempts walk every port in turn. */
static void test_sport(void **state)
{
	static uint8_t seen[65536];
	uint32_t job, r, p, same = 0, pairs = 0;
	uint16_t a, b;

	(void)state;
	for (job = 0; job < 4; job++) {
		memset(seen, 0, sizeof(seen));
		for (r = 0; r < 64; r++) {
			for (p = r + 1; p < 64; p++) {
				a = flow_sport(job, r, p, 0);
				assert_true(a >= FLOW_SPORT_LO && a < FLOW_SPORT_LO + FLOW_SPORT_N);
				assert_int_equal(a, flow_sport(job, r, p, 0));
				same += seen[a];
				seen[a] = 1;
				pairs++;
			}
		}
	}
	/* 2,016 pairs over 22,768 ports: about 85 repeats per job expected by chance */
	assert_true(same < pairs / 10);
	assert_int_not_equal(flow_sport(0, 1, 2, 0), flow_sport(1, 1, 2, 0));
	assert_int_not_equal(flow_sport(0, 1, 2, 0), flow_sport(0, 2, 1, 0));
	/* channels: channel 0 is the one connection's port; a pair's channels differ */
	for (r = 0; r < 64; r++) {
		memset(seen, 0, sizeof(seen));
		for (p = 0; p < COLL_CHANNELS_MAX; p++) {
			a = flow_sport_chan(3, r, r + 1, p, 0);
			assert_true(a >= FLOW_SPORT_LO && a < FLOW_SPORT_LO + FLOW_SPORT_N);
			assert_int_equal(seen[a], 0);
			seen[a] = 1;
		}
		assert_int_equal(flow_sport_chan(3, r, r + 1, 0, 5), flow_sport(3, r, r + 1, 5));
	}
	memset(seen, 0, sizeof(seen));
	for (r = 0; r < FLOW_SPORT_N; r++) {
		a = flow_sport(7, 3, 5, r);
		b = flow_sport(7, 3, 5, r + 1);
		assert_int_equal(seen[a], 0);
		seen[a] = 1;
		assert_true(b == a + 1 ||
			    (a == FLOW_SPORT_LO + FLOW_SPORT_N - 1 && b == FLOW_SPORT_LO));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_channels),	cmocka_unit_test(test_sport),
		cmocka_unit_test(test_readiness),	cmocka_unit_test(test_implied),
		cmocka_unit_test(test_implied_by_prev), cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_parts),		cmocka_unit_test(test_all_algorithms),
		cmocka_unit_test(test_multidim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
