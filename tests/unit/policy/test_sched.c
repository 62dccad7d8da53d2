// SPDX-License-Identifier: MIT
/* Scheduler tests: strict FIFO vs backfill, first-fit and random placement, leaf-major rank
 * order, and properties under random arrivals and finishes (no endpoint assigned twice,
 * consistent free counts, queue discipline, positive waits when the head does not fit). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/gen.h"
#include "policy/sched.h"

#define T_MAX_JOBS 4096

struct t_world {
	struct scenario scn;
	struct topo *t;
	struct sched s;
};

static void t_load(struct t_world *w, uint32_t hpl, uint32_t leaves, enum sched_queue q,
		   enum sched_place p, uint64_t seed)
{
	struct sched_cfg cfg = {.queue = q, .place = p, .seed = seed};
	struct diag d = {0};

	memset(w, 0, sizeof(*w));
	scn_init(&w->scn);
	strcpy(w->scn.name, "t");
	w->scn.topology.gen = SCN_GEN_LEAFSPINE;
	w->scn.topology.ls.hosts_per_leaf = hpl;
	w->scn.topology.ls.leaves = leaves;
	w->scn.topology.ls.spines = 2;
	w->scn.topology.ls.links_per_pair = 1;
	w->scn.topology.ls.host_rate = 1000000000ULL;
	w->scn.topology.ls.fabric_rate = 1000000000ULL;
	assert_int_equal(topo_build(&w->scn, &w->t, &d), 0);
	assert_int_equal(sched_init(&w->s, w->t, &cfg), 0);
}

/* The same world with the scheduler made from cfg (servers, placements t_load does not take). */
static void t_load_cfg(struct t_world *w, uint32_t hpl, uint32_t leaves,
		       const struct sched_cfg *cfg)
{
	t_load(w, hpl, leaves, SCHED_FIFO, SCHED_FIRST_FIT, 1);
	sched_done(&w->s);
	assert_int_equal(sched_init(&w->s, w->t, cfg), 0);
}

static void t_free(struct t_world *w)
{
	sched_done(&w->s);
	topo_free(w->t);
	scn_done(&w->scn);
}

static uint64_t t_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t t_group(const struct sched *s, uint32_t ep)
{
	return s->t->nodes.v[s->t->endpoints.v[ep]].group;
}

/* Leaf-major: by group, then endpoint index, strictly increasing. */
static void t_check_rank_order(const struct sched *s, const uint32_t *eps, uint32_t n)
{
	uint32_t i;

	for (i = 1; i < n; i++) {
		assert_true(t_group(s, eps[i - 1]) <= t_group(s, eps[i]));
		if (t_group(s, eps[i - 1]) == t_group(s, eps[i]))
			assert_true(eps[i - 1] < eps[i]);
	}
}

/* No endpoint is held by two running jobs; busy[] and free_n agree with the jobs. */
static void t_check(const struct sched *s)
{
	static uint8_t held[65536];
	const struct sched_job *j;
	uint32_t used = 0, i, ep;

	memset(held, 0, s->n_ep);
	vec_for_each (&s->jobs, j) {
		if (!j->running)
			continue;
		for (i = 0; i < j->gpus; i++) {
			ep = s->assign.v[j->first + i];
			assert_true(ep < s->n_ep);
			assert_int_equal(held[ep], 0);
			held[ep] = 1;
		}
		used += j->gpus;
		if (!s->cfg.placement_order)
			t_check_rank_order(s, s->assign.v + j->first, j->gpus);
	}
	for (ep = 0; ep < s->n_ep; ep++)
		assert_int_equal(s->busy[ep], held[ep]);
	assert_int_equal(s->free_n, s->n_ep - used);
}

/* server-first-fit (the vClos paper's simulator's baselines): 2 leaves of 8 GPUs, servers of
 * 4 (servers 0-1 under leaf 0, 2-3 under leaf 1).
 * - 2 GPUs: every server idle, the first: server 0 (GPUs 0, 1).
 * - 1 GPU: the fullest server with room: server 0 again (GPU 2).
 * - 8 GPUs: two idle servers, the lowest-numbered: 1 and 2, across the leaves (4-11).
 * - 3 GPUs: server 3 (idle, 4 free) is the only one with 3 free: 12-14.
 * - 2 GPUs: 2 GPUs are free (3 and 15) but on two servers: it waits, a fragmentation try.
 * - job 0 ends: server 0 has 3 free (0, 1, 3): the 2 GPUs go there. */
static void test_server_first_fit(void **state)
{
	struct sched_cfg cfg = {
		.queue = SCHED_FIFO, .place = SCHED_SERVER_FIRST_FIT, .gpus_per_server = 4};
	const uint32_t *eps;
	struct diag d = {0};
	struct t_world w;
	uint32_t i;

	(void)state;
	t_load_cfg(&w, 8, 2, &cfg);
	assert_int_equal(sched_submit(&w.s, 0, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0);
	assert_true(eps[0] == 0 && eps[1] == 1);
	assert_int_equal(sched_submit(&w.s, 1, 1, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 1);
	assert_int_equal(eps[0], 2);
	assert_int_equal(sched_submit(&w.s, 2, 8, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 2);
	for (i = 0; i < 8; i++)
		assert_int_equal(eps[i], 4 + i);
	assert_int_equal(sched_submit(&w.s, 3, 3, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 3);
	assert_true(eps[0] == 12 && eps[1] == 13 && eps[2] == 14);
	assert_int_equal(sched_submit(&w.s, 4, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN);
	assert_true(w.s.frag_tries == 1 && w.s.gpu_tries == 0);
	sched_finish(&w.s, 0);
	assert_int_equal(sched_next(&w.s, &eps), 4);
	assert_true(eps[0] == 0 && eps[1] == 1);
	t_check(&w.s);
	t_free(&w);
}

static void test_fifo_head_blocks(void **state)
{
	const uint32_t *eps;
	struct t_world w;
	struct diag d = {0};

	(void)state;
	t_load(&w, 4, 4, SCHED_FIFO, SCHED_FIRST_FIT, 1);
	assert_int_equal(sched_submit(&w.s, 0, 12, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0);
	assert_int_equal(eps[0], 0);
	assert_int_equal(eps[11], 11);
	assert_int_equal(sched_submit(&w.s, 1, 8, UINT64_MAX, &d), 0);
	assert_int_equal(sched_submit(&w.s, 2, 2, UINT64_MAX, &d), 0);
	/* 4 GPUs free: job 2 would fit, but strict FIFO keeps it behind job 1 */
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN);
	assert_int_equal(sched_waiting(&w.s), 2);
	assert_int_equal(w.s.gpu_tries, 1); /* job 1 tried, for want of GPUs (vClos Table 2) */
	assert_int_equal(w.s.frag_tries, 0);
	sched_finish(&w.s, 0);
	assert_int_equal(sched_next(&w.s, &eps), 1);
	assert_int_equal(eps[0], 0);
	assert_int_equal(eps[7], 7);
	assert_int_equal(sched_next(&w.s, &eps), 2);
	assert_int_equal(eps[0], 8);
	assert_int_equal(eps[1], 9);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN);
	assert_int_equal(sched_waiting(&w.s), 0);
	assert_int_equal(w.s.free_n, 6);
	assert_int_equal(w.s.gpu_tries, 1); /* an empty queue tries nothing */
	t_check(&w.s);
	t_free(&w);
}

static void test_backfill_overtakes(void **state)
{
	const uint32_t *eps;
	struct t_world w;
	struct diag d = {0};

	(void)state;
	t_load(&w, 4, 4, SCHED_BACKFILL, SCHED_FIRST_FIT, 1);
	assert_int_equal(sched_submit(&w.s, 0, 12, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0);
	assert_int_equal(sched_submit(&w.s, 1, 8, UINT64_MAX, &d), 0);
	assert_int_equal(sched_submit(&w.s, 2, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 2);
	assert_int_equal(eps[0], 12);
	assert_int_equal(eps[1], 13);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN);
	assert_int_equal(sched_waiting(&w.s), 1);
	/* a job that never started can leave the queue */
	sched_finish(&w.s, 1);
	assert_int_equal(sched_waiting(&w.s), 0);
	t_check(&w.s);
	t_free(&w);
}

static void test_submit_errors(void **state)
{
	struct t_world w;
	struct diag d = {0};

	(void)state;
	t_load(&w, 4, 4, SCHED_FIFO, SCHED_FIRST_FIT, 1);
	assert_int_equal(sched_submit(&w.s, 5, 17, UINT64_MAX, &d), -EINVAL);
	assert_string_equal(d.msg, "job 5 needs 17 GPUs but the cluster has 16");
	diag_clear(&d);
	assert_int_equal(sched_submit(&w.s, 5, 0, UINT64_MAX, &d), -EINVAL);
	assert_string_equal(d.msg, "job 5 needs no GPUs");
	diag_clear(&d);
	assert_int_equal(sched_submit(&w.s, 5, 16, UINT64_MAX, &d), 0);
	assert_int_equal(sched_submit(&w.s, 5, 1, UINT64_MAX, &d), -EEXIST);
	assert_string_equal(d.msg, "job 5 was already submitted");
	assert_int_equal(sched_waiting(&w.s), 1);
	t_free(&w);
}

/* A placement policy that hands back a busy endpoint is caught, and nothing is claimed. */
static int t_place_bad(struct sched *s, uint32_t job, uint32_t n, uint32_t *out)
{
	uint32_t i;

	(void)s;
	(void)job;
	for (i = 0; i < n; i++)
		out[i] = i;
	return 0;
}

static void test_place_checked(void **state)
{
	const uint32_t *eps;
	struct t_world w;
	struct diag d = {0};

	(void)state;
	t_load(&w, 4, 4, SCHED_FIFO, SCHED_FIRST_FIT, 1);
	assert_int_equal(sched_submit(&w.s, 0, 4, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0);
	w.s.place = t_place_bad;
	assert_int_equal(sched_submit(&w.s, 1, 4, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), -EINVAL);
	assert_int_equal(w.s.free_n, 12);
	t_check(&w.s);
	t_free(&w);
}

/* Endpoint indexes that are not leaf-major: ranks still come out grouped by leaf. */
static void test_rank_order(void **state)
{
	struct sched_cfg cfg = {.queue = SCHED_FIFO, .place = SCHED_FIRST_FIT};
	const uint32_t *eps;
	struct diag d = {0};
	struct topo *t = topo_new();
	struct sched s;
	uint32_t i;
	char name[8];
	int id;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "h%u", i);
		id = topo_node_add(t, TOPO_ENDPOINT, TOPO_ROLE_HOST, name, i);
		assert_true(id >= 0);
		t->nodes.v[id].group = i % 2;
	}
	assert_int_equal(topo_finalize(t, &d), 0);
	assert_int_equal(sched_init(&s, t, &cfg), 0);
	assert_int_equal(sched_submit(&s, 0, 4, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&s, &eps), 0);
	assert_int_equal(eps[0], 0);
	assert_int_equal(eps[1], 2);
	assert_int_equal(eps[2], 1);
	assert_int_equal(eps[3], 3);
	sched_done(&s);
	cfg.place = SCHED_RANDOM;
	for (cfg.seed = 0; cfg.seed < 50; cfg.seed++) {
		assert_int_equal(sched_init(&s, t, &cfg), 0);
		assert_int_equal(sched_submit(&s, 0, 5, UINT64_MAX, &d), 0);
		assert_int_equal(sched_next(&s, &eps), 0);
		t_check_rank_order(&s, eps, 5);
		t_check(&s);
		sched_done(&s);
	}
	/* rank_order: placement keeps the endpoints in the order first-fit took them */
	cfg = (struct sched_cfg){
		.queue = SCHED_FIFO, .place = SCHED_FIRST_FIT, .placement_order = true};
	assert_int_equal(sched_init(&s, t, &cfg), 0);
	assert_int_equal(sched_submit(&s, 0, 4, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&s, &eps), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(eps[i], i);
	t_check(&s);
	sched_done(&s);
	topo_free(t);
}

static void test_random_uniform(void **state)
{
	uint32_t hits[16] = {0}, i;
	const uint32_t *eps;
	struct t_world w;
	struct diag d = {0};

	(void)state;
	t_load(&w, 4, 4, SCHED_FIFO, SCHED_RANDOM, 9);
	assert_int_equal(sched_submit(&w.s, 0, 8, UINT64_MAX, &d), 0); /* half the cluster held */
	assert_int_equal(sched_next(&w.s, &eps), 0);
	for (i = 1; i <= 16000; i++) {
		assert_int_equal(sched_submit(&w.s, i, 1, UINT64_MAX, &d), 0);
		assert_int_equal(sched_next(&w.s, &eps), (int)i);
		hits[eps[0]]++;
		sched_finish(&w.s, i);
	}
	for (i = 0; i < 16; i++) {
		if (w.s.busy[i])
			assert_int_equal(hits[i], 0);
		else
			assert_true(hits[i] > 1800 && hits[i] < 2200); /* 2000 expected */
	}
	t_free(&w);
}

/* ---- properties under random arrivals and finishes ---- */

struct t_run {
	uint8_t state[T_MAX_JOBS]; /* 0 unseen, 1 waiting, 2 running, 3 done */
	uint32_t n; /* jobs submitted */
	uint32_t overtakes; /* starts ahead of an earlier waiting job */
	uint64_t rng;
};

static uint32_t t_min_waiting(const struct t_run *r)
{
	uint32_t i;

	for (i = 0; i < r->n && r->state[i] != 1; i++)
		;
	return i;
}

/* Starts whatever can start and checks the queue discipline. */
static void t_drain(struct sched *s, struct t_run *r)
{
	const uint32_t *eps;
	uint32_t head;
	int id;

	while ((id = sched_next(s, &eps)) >= 0) {
		head = t_min_waiting(r);
		assert_int_equal(r->state[id], 1);
		if (s->cfg.queue == SCHED_FIFO)
			assert_int_equal(id, head);
		r->overtakes += (uint32_t)id != head;
		r->state[id] = 2;
	}
	assert_int_equal(id, -EAGAIN);
	/* what still waits does not fit: the head (FIFO) or every job (backfill) */
	for (head = 0; head < r->n; head++) {
		if (r->state[head] != 1)
			continue;
		assert_true(s->jobs.v[head].gpus > s->free_n);
		if (s->cfg.queue == SCHED_FIFO)
			break;
	}
	t_check(s);
}

static void t_event(struct sched *s, struct t_run *r)
{
	static const uint32_t sizes[] = {1, 2, 3, 4, 8, 12, 16, 32};
	struct diag d = {0};
	uint32_t i, k, running = 0;

	for (i = 0; i < r->n; i++)
		running += r->state[i] == 2;
	if (r->n < T_MAX_JOBS && (t_rand(&r->rng) % 2 || !running)) {
		assert_int_equal(sched_submit(s, r->n, sizes[t_rand(&r->rng) % 8], UINT64_MAX, &d),
				 0);
		r->state[r->n++] = 1;
		return;
	}
	k = (uint32_t)(t_rand(&r->rng) % running);
	for (i = 0; r->state[i] != 2 || k--; i++)
		;
	sched_finish(s, i);
	r->state[i] = 3;
}

static void t_random_run(struct t_world *w, uint64_t seed, uint32_t events, struct t_run *r)
{
	uint32_t e;

	memset(r, 0, sizeof(*r));
	r->rng = seed;
	for (e = 0; e < events; e++) {
		t_event(&w->s, r);
		t_drain(&w->s, r);
	}
}

static void test_random_events(void **state)
{
	static struct t_run r;
	struct t_world w;
	uint64_t seed;
	int q, p;

	(void)state;
	for (q = SCHED_FIFO; q <= SCHED_BACKFILL; q++) {
		for (p = SCHED_FIRST_FIT; p <= SCHED_RANDOM; p++) {
			for (seed = 1; seed <= 4; seed++) {
				t_load(&w, 8, 4, (enum sched_queue)q, (enum sched_place)p, seed);
				t_random_run(&w, seed, 3000, &r);
				assert_true(r.n > 1000);
				if (q == SCHED_FIFO)
					assert_int_equal(r.overtakes, 0);
				else
					assert_true(r.overtakes > 0);
				t_free(&w);
			}
		}
	}
}

static void test_random_deterministic(void **state)
{
	static struct t_run r;
	struct t_world a, b, c;

	(void)state;
	t_load(&a, 8, 4, SCHED_BACKFILL, SCHED_RANDOM, 5);
	t_load(&b, 8, 4, SCHED_BACKFILL, SCHED_RANDOM, 5);
	t_load(&c, 8, 4, SCHED_BACKFILL, SCHED_RANDOM, 6);
	t_random_run(&a, 77, 2000, &r);
	t_random_run(&b, 77, 2000, &r);
	t_random_run(&c, 77, 2000, &r);
	assert_int_equal(a.s.assign.n, b.s.assign.n);
	assert_memory_equal(a.s.assign.v, b.s.assign.v, a.s.assign.n * sizeof(uint32_t));
	assert_true(a.s.assign.n != c.s.assign.n ||
		    memcmp(a.s.assign.v, c.s.assign.v, a.s.assign.n * sizeof(uint32_t)));
	t_free(&a);
	t_free(&b);
	t_free(&c);
}

/* Virtual time: a job that cannot start on arrival starts later, never earlier. */
static void test_waits(void **state)
{
	static uint64_t arrive[400], start[400], end[400];
	static bool behind[400];
	struct diag d = {0};
	const uint32_t *eps;
	struct t_world w;
	uint64_t rng = 3, now;
	uint32_t i, next = 0, waited = 0;
	int q, id;

	(void)state;
	for (q = SCHED_FIFO; q <= SCHED_BACKFILL; q++) {
		t_load(&w, 4, 4, (enum sched_queue)q, SCHED_FIRST_FIT, 1);
		for (i = 0; i < 400; i++) {
			arrive[i] = (i ? arrive[i - 1] : 0) + t_rand(&rng) % 100;
			end[i] = UINT64_MAX;
		}
		while (next < 400 || w.s.free_n < w.s.n_ep) {
			now = next < 400 ? arrive[next] : UINT64_MAX;
			for (i = 0; i < next; i++)
				now = end[i] < now ? end[i] : now;
			for (i = 0; i < next; i++) {
				if (end[i] == now) {
					sched_finish(&w.s, i);
					end[i] = UINT64_MAX - 1; /* done */
				}
			}
			if (next < 400 && arrive[next] == now) {
				behind[next] = sched_waiting(&w.s) > 0;
				assert_int_equal(sched_submit(&w.s, next, 1 + t_rand(&rng) % 12,
							      UINT64_MAX, &d),
						 0);
				next++;
			}
			while ((id = sched_next(&w.s, &eps)) >= 0) {
				start[id] = now;
				end[id] = now + 1 + t_rand(&rng) % 300;
			}
		}
		for (i = 0; i < 400; i++) {
			assert_true(start[i] >= arrive[i]);
			/* strict FIFO: arriving behind a waiting job means waiting too */
			if (q == SCHED_FIFO && behind[i])
				assert_true(start[i] > arrive[i]);
			waited += start[i] > arrive[i];
		}
		assert_true(waited > 0);
		assert_int_equal(sched_waiting(&w.s), 0);
		t_free(&w);
		next = 0;
		waited = 0;
	}
}

/* Smallest-first: the waiting job with the fewest GPUs starts first (ties: the earliest), and
 * while it cannot start it blocks the rest, even ones that would fit. */
static void test_smallest_first(void **state)
{
	const uint32_t *eps;
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_load(&w, 4, 2, SCHED_SMALLEST_FIRST, SCHED_FIRST_FIT, 1); /* 8 GPUs */
	assert_int_equal(sched_submit(&w.s, 0, 6, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0); /* 2 left */
	assert_int_equal(sched_submit(&w.s, 1, 4, UINT64_MAX, &d), 0);
	assert_int_equal(sched_submit(&w.s, 2, 3, UINT64_MAX, &d), 0);
	assert_int_equal(sched_submit(&w.s, 3, 3, UINT64_MAX, &d), 0);
	assert_int_equal(sched_submit(&w.s, 4, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 4); /* the smallest fits */
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN); /* job 2 (3 GPUs) blocks */
	sched_finish(&w.s, 0); /* 6 free */
	assert_int_equal(sched_next(&w.s, &eps), 2); /* 3 before 3: the earlier */
	assert_int_equal(sched_next(&w.s, &eps), 3);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN); /* job 1 (4) waits for 4 */
	sched_finish(&w.s, 4);
	sched_finish(&w.s, 2);
	assert_int_equal(sched_next(&w.s, &eps), 1);
	t_free(&w);
}

/* scheduler.placement vclos on a built leaf-spine (4 leaves x 4 hosts, 2 spines, servers of
 * 2): a virtual Clos of 4 leaves x 2 spines takes every leaf-spine link, so the next job that
 * needs a leaf's two idle servers or links waits; finishing frees them; then one leaf, one
 * server; a size no vClos can take is refused at submit; the allocation is there while the
 * job runs. */
static void test_vclos(void **state)
{
	struct sched_cfg cfg = {.queue = SCHED_FIFO, .place = SCHED_VCLOS, .gpus_per_server = 2};
	const struct vclos_alloc *a;
	const uint32_t *eps;
	struct diag d = {0};
	struct t_world w;
	uint32_t i;

	(void)state;
	t_load_cfg(&w, 4, 4, &cfg);
	assert_int_equal(sched_submit(&w.s, 0, 8, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0);
	a = sched_vclos(&w.s, 0);
	assert_int_equal(a->stage, 2);
	assert_true(a->l == 4 && a->s == 2);
	for (i = 0; i < 8; i++) /* leaf-major: two GPUs (one server) on each leaf */
		assert_int_equal(eps[i] / 4, i / 2);
	assert_int_equal(sched_submit(&w.s, 1, 4, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN); /* no leaf has 2 idle servers */
	assert_true(w.s.frag_tries == 1 && w.s.frag_jobs == 1); /* 8 GPUs free: fragmentation */
	/* nothing finished, the head the same: asked again, it does not try again (an attempt
	 * per change, as vClos's simulator counts them for Table 2), nor when a job queues
	 * behind the head of a strict FIFO queue */
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN);
	assert_int_equal(sched_submit(&w.s, 9, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN);
	assert_true(w.s.frag_tries == 1 && w.s.frag_jobs == 1);
	assert_int_equal(w.s.gpu_tries, 0);
	sched_finish(&w.s, 9); /* withdrawn while it waits */
	sched_finish(&w.s, 0);
	assert_null(sched_vclos(&w.s, 0));
	assert_int_equal(sched_next(&w.s, &eps), 1);
	assert_int_equal(sched_vclos(&w.s, 1)->stage, 1);
	for (i = 0; i < 4; i++)
		assert_int_equal(eps[i] / 4, eps[0] / 4);
	assert_int_equal(sched_submit(&w.s, 2, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 2);
	assert_int_equal(sched_vclos(&w.s, 2)->stage, 0);
	assert_int_equal(sched_submit(&w.s, 3, 12, UINT64_MAX, &d),
			 -EINVAL); /* 6 leaves x 2, or 3 x 4 */
	assert_non_null(strstr(d.msg, "job 3"));
	t_free(&w);
	/* servers of 3 under leaves of 4 hosts: not whole servers per leaf, refused */
	t_load(&w, 4, 4, SCHED_FIFO, SCHED_FIRST_FIT, 1);
	sched_done(&w.s);
	cfg.gpus_per_server = 3;
	assert_int_equal(sched_init(&w.s, w.t, &cfg), -EINVAL);
	sched_done(&w.s);
	t_free(&w);
}

/* vClos §9.7 EDF: the waiting job due first goes first, strict: it blocks later-due ones
 * that would fit; no deadline (UINT64_MAX) sorts last; equal due dates keep arrival order.
 * First-fit never leaves a job waiting with enough GPUs free: no fragmentation counted. */
static void test_edf(void **state)
{
	const uint32_t *eps;
	struct diag d = {0};
	struct t_world w;

	(void)state;
	t_load(&w, 4, 2, SCHED_EDF, SCHED_FIRST_FIT, 1); /* 8 GPUs */
	assert_int_equal(sched_submit(&w.s, 0, 6, 100, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0); /* 2 left */
	assert_int_equal(sched_submit(&w.s, 1, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_submit(&w.s, 2, 4, 50, &d), 0);
	assert_int_equal(sched_submit(&w.s, 3, 2, 60, &d), 0);
	assert_int_equal(sched_submit(&w.s, 4, 2, 50, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN); /* job 2 (due 50) blocks 3 and 4 */
	sched_finish(&w.s, 0); /* 8 free */
	assert_int_equal(sched_next(&w.s, &eps), 2);
	assert_int_equal(sched_next(&w.s, &eps), 4); /* due 50 too, arrived later */
	assert_int_equal(sched_next(&w.s, &eps), 3);
	assert_int_equal(sched_next(&w.s, &eps), -EAGAIN); /* job 1 (none) waits for 2 */
	sched_finish(&w.s, 3);
	assert_int_equal(sched_next(&w.s, &eps), 1);
	assert_true(w.s.frag_tries == 0 && w.s.frag_jobs == 0);
	t_free(&w);
}

/* The changes' node ids: an OCS, a leaf, a spine of t's physical view. */
static void t_changes_named(const struct topo *p, const struct ocs_change *ch, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		assert_int_equal(p->nodes.v[ch[i].ocs].role, TOPO_ROLE_OCS);
		assert_int_equal(p->nodes.v[ch[i].a].role, TOPO_ROLE_LEAF);
		assert_int_equal(p->nodes.v[ch[i].b].role, TOPO_ROLE_SPINE);
	}
}

/* Every cross-leaf flow of the job's ring goes up its leaf port and down the destination's
 * to one spine in view v, over circuits the job holds (sched_ocs_busy marks them). */
static void t_ocs_routes(const struct sched *s, const struct topo *v, uint32_t job, uint32_t n)
{
	uint32_t *job1 = calloc(v->links.n + 1, sizeof(*job1)), i, up, down, su, sd;

	assert_int_equal(sched_ocs_busy(s, v, job1), 0);
	for (i = 0; i < n; i++) {
		if (sched_ocs_route(s, job, i, (i + 1) % n, &up, &down) != 1)
			continue;
		assert_int_equal(v->nodes.v[v->ports.v[up].node].role, TOPO_ROLE_LEAF);
		su = topo_port_peer_node(v, up);
		sd = topo_port_peer_node(v, down);
		assert_int_equal(v->nodes.v[su].role, TOPO_ROLE_SPINE);
		assert_int_equal(su, sd);
		assert_int_equal(job1[v->ports.v[up].link], job + 1);
		assert_int_equal(job1[v->ports.v[down].link], job + 1);
	}
	free(job1);
}

/* scheduler.placement ocs-vclos on a built leaf-spine of 4 leaves x 4 hosts (servers of 2), 2
 * spines and 4 OCSes (each leaf two circuits to each spine at `up`): an 8-GPU job gets one
 * spine and circuits rewired for it, as changes of the physical view that model/ocs.h
 * accepts with nothing busy; in the view after them its flows run over its own circuits.
 * A 2-GPU job needs none; the first job's allocation is there while it runs. */
static void test_ocs_vclos(void **state)
{
	struct sched_cfg cfg = {
		.queue = SCHED_FIFO, .place = SCHED_OCS_VCLOS, .gpus_per_server = 2};
	const struct ocs_change *ch;
	const uint32_t *eps;
	struct diag d = {0};
	struct t_world w;
	struct topo *v;
	uint32_t *xc;
	size_t n;

	(void)state;
	memset(&w, 0, sizeof(w));
	scn_init(&w.scn);
	strcpy(w.scn.name, "t");
	w.scn.topology.gen = SCN_GEN_LEAFSPINE;
	w.scn.topology.ls.hosts_per_leaf = 4;
	w.scn.topology.ls.leaves = 4;
	w.scn.topology.ls.spines = 2;
	w.scn.topology.ls.links_per_pair = 1;
	w.scn.topology.ls.gpus_per_server = 2;
	w.scn.topology.ls.host_rate = w.scn.topology.ls.fabric_rate = 1000000000ULL;
	w.scn.topology.ls.ocs.count = 4;
	assert_int_equal(topo_build(&w.scn, &w.t, &d), 0);
	assert_non_null(w.t->phys);
	assert_int_equal(sched_init(&w.s, w.t, &cfg), 0);
	assert_int_equal(sched_submit(&w.s, 0, 8, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 0);
	assert_int_equal(sched_vclos(&w.s, 0)->stage, 2);
	sched_ocs_changes(&w.s, 0, &ch, &n);
	assert_true(n > 0);
	t_changes_named(w.t->phys, ch, n);
	xc = calloc(w.t->phys->ports.n + 1, sizeof(*xc));
	ocs_circuits_of(w.t, xc);
	assert_int_equal(ocs_rewire(w.t->phys, xc, ch, n, NULL, false, &d), 0);
	v = ocs_apply(w.t->phys, xc);
	assert_non_null(v);
	t_ocs_routes(&w.s, v, 0, 8);
	assert_int_equal(sched_submit(&w.s, 1, 2, UINT64_MAX, &d), 0);
	assert_int_equal(sched_next(&w.s, &eps), 1);
	sched_ocs_changes(&w.s, 1, &ch, &n);
	assert_int_equal(n, 0);
	sched_finish(&w.s, 0);
	assert_null(sched_vclos(&w.s, 0));
	topo_free(v);
	free(xc);
	t_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_head_blocks),
		cmocka_unit_test(test_server_first_fit),
		cmocka_unit_test(test_backfill_overtakes),
		cmocka_unit_test(test_submit_errors),
		cmocka_unit_test(test_place_checked),
		cmocka_unit_test(test_rank_order),
		cmocka_unit_test(test_random_uniform),
		cmocka_unit_test(test_random_events),
		cmocka_unit_test(test_random_deterministic),
		cmocka_unit_test(test_waits),
		cmocka_unit_test(test_vclos),
		cmocka_unit_test(test_smallest_first),
		cmocka_unit_test(test_edf),
		cmocka_unit_test(test_ocs_vclos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
