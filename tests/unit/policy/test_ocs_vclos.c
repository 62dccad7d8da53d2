// SPDX-License-Identifier: MIT
/* OCS-vClos placement: hand-worked stages (0 and 1 as vClos, 2 on the spine with the least
 * but enough free ports, reuse of circuits in place, tear-downs before joins, 3 with
 * Algorithm 4's shapes), -EAGAIN behind busy circuits, sizes and their messages; random job
 * mixes checked after every event (ports of running jobs untouched, P per (spine, OCS), routes
 * on the job's own circuits, ring, HD and pairwise all-to-all of all running jobs at most one
 * flow per directed circuit, GPUs given once, change lists that replay); determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/rng.h"
#include "policy/ocs_vclos.h"
#include "traffic/coll.h"
#include "tests/unit/coll_pat.h"

#define T_FAKE 0x7fff0000u /* owner of GPUs and ports taken by hand */
#define T_MAX_JOBS 48
#define T_NONE UINT32_MAX
#define T_MAX_EP 64

static void t_init(struct ocs_vclos *c, uint32_t l, uint32_t s, uint32_t r, uint32_t t, uint32_t k,
		   uint32_t p, const uint32_t *circ)
{
	assert_int_equal(ocs_vclos_init(c, l, s, r, t, k, p, circ), 0);
}

/* model/ocs.h's default circuits: on OCS k, leaf n goes to spine (k + n / P) mod S. */
static void t_default_circ(uint32_t *circ, uint32_t l, uint32_t s, uint32_t k, uint32_t p)
{
	uint32_t n, o;

	for (n = 0; n < l; n++) {
		for (o = 0; o < k; o++)
			circ[n * k + o] = (o + n / p) % s;
	}
}

static void t_place(struct ocs_vclos *c, uint32_t job, uint32_t n, struct ocs_vclos_alloc *a)
{
	assert_int_equal(ocs_vclos_place(c, job, n, a), 0);
	assert_int_equal(a->a.job, job);
	assert_int_equal(a->a.n, n);
}

static void t_u32s(const uint32_t *got, const uint32_t *want, uint32_t n)
{
	assert_memory_equal(got, want, n * sizeof(*want));
}

/* A running job's circuit, by hand: port (leaf, k) joined to spine m and held. */
static void t_busy(struct ocs_vclos *c, uint32_t leaf, uint32_t k, uint32_t m)
{
	c->circ[leaf * c->ocs + k] = m;
	c->owner[leaf * c->ocs + k] = T_FAKE;
}

static void t_take_server(struct ocs_vclos *c, uint32_t srv)
{
	uint32_t g;

	for (g = 0; g < c->vc.gpus; g++)
		c->vc.gpu_owner[srv * c->vc.gpus + g] = T_FAKE;
	c->vc.srv_free[srv] = 0;
}

static void t_change(const struct ocs_vclos_change *ch, uint32_t ocs, uint32_t leaf, uint32_t spine,
		     bool off)
{
	assert_int_equal(ch->ocs, ocs);
	assert_int_equal(ch->leaf, leaf);
	assert_int_equal(ch->spine, spine);
	assert_int_equal(ch->off, off);
}

/* Stages 0 and 1 choose what vClos chooses: both clusters run the same random jobs that fit
 * a leaf; a job either places beyond stage 1 is released from both at once. */
static void test_local_as_vclos(void **state)
{
	struct ocs_vclos_alloc oa[16];
	struct vclos_alloc va[16];
	uint32_t e, j, n, local = 0;
	struct ocs_vclos c;
	uint64_t rng = 5;
	struct vclos v;
	bool run[16] = {0};
	int eo, ev;

	(void)state;
	t_init(&c, 3, 4, 4, 2, 4, 2, NULL);
	assert_int_equal(vclos_init(&v, 3, 4, 4, 2), 0);
	for (e = 0; e < 2000; e++) {
		j = (uint32_t)(rng_next(&rng) % 16);
		if (run[j]) {
			ocs_vclos_release(&c, j);
			vclos_release(&v, j);
			ocs_vclos_alloc_done(&oa[j]);
			vclos_alloc_done(&va[j]);
			run[j] = false;
			continue;
		}
		n = 1 + (uint32_t)(rng_next(&rng) % 8);
		eo = ocs_vclos_place(&c, j, n, &oa[j]);
		ev = vclos_place(&v, j, n, &va[j]);
		if (!ev && va[j].stage < 2) {
			assert_int_equal(eo, 0);
			assert_int_equal(oa[j].a.stage, va[j].stage);
			assert_int_equal(oa[j].a.leaf[0], va[j].leaf[0]);
			t_u32s(oa[j].a.eps, va[j].eps, n);
			assert_int_equal(oa[j].up[0], OCS_VCLOS_NONE);
			assert_int_equal(oa[j].nch, 0);
			run[j] = true;
			local++;
			continue;
		}
		assert_true(eo == -EAGAIN || (!eo && oa[j].a.stage >= 2));
		if (!eo)
			ocs_vclos_release(&c, j);
		if (!ev)
			vclos_release(&v, j);
		ocs_vclos_alloc_done(&oa[j]);
		vclos_alloc_done(&va[j]);
	}
	assert_true(local > 500);
	for (j = 0; j < 16; j++) {
		ocs_vclos_alloc_done(&oa[j]);
		vclos_alloc_done(&va[j]);
	}
	ocs_vclos_done(&c);
	vclos_done(&v);
}

/* L=4, S=3, R=1, T=2, K=4, P=2. Leaves 0 and 1 and all their ports are held by hand: spine
 * 0 has 3 free ports (of 8), spine 1 5, spine 2 8. */
static void t_stage2_setup(struct ocs_vclos *c)
{
	t_init(c, 4, 3, 1, 2, 4, 2, NULL);
	t_take_server(c, 0);
	t_take_server(c, 1);
	t_busy(c, 0, 0, 0);
	t_busy(c, 1, 0, 0);
	t_busy(c, 0, 1, 0);
	t_busy(c, 1, 1, 0);
	t_busy(c, 0, 2, 0);
	t_busy(c, 1, 2, 1);
	t_busy(c, 0, 3, 1);
	t_busy(c, 1, 3, 1);
}

static void test_stage2_least_enough(void **state)
{
	struct ocs_vclos_alloc a;
	struct ocs_vclos c;
	uint32_t u, d;

	(void)state;
	t_stage2_setup(&c);
	t_place(&c, 1, 4, &a); /* 2 servers, one leaf each: spine 1, not 0 (too few) nor 2 */
	assert_int_equal(a.a.stage, 2);
	assert_int_equal(a.a.s, 1);
	assert_int_equal(a.a.spine[0], 1);
	assert_int_equal(a.a.l, 2);
	t_u32s(a.a.leaf, (uint32_t[]){2, 3}, 2);
	t_u32s(a.a.eps, (uint32_t[]){4, 5, 6, 7}, 4);
	t_u32s(a.up, (uint32_t[]){0, 1, 0, 1}, 4); /* (1, o3) is full, (1, o2) has one port */
	t_u32s(a.a.uplink, (uint32_t[]){1, 1, 1, 1}, 4);
	assert_int_equal(a.nch, 4);
	t_change(&a.ch[0], 0, 2, 1, false);
	t_change(&a.ch[1], 1, 2, 1, false);
	t_change(&a.ch[2], 0, 3, 1, false);
	t_change(&a.ch[3], 1, 3, 1, false);
	assert_int_equal(c.circ[2 * 4 + 1], 1);
	assert_int_equal(c.owner[3 * 4 + 0], 1);
	assert_int_equal(c.owner[3 * 4 + 2], VCLOS_FREE);
	assert_int_equal(ocs_vclos_route(&a, 0, 2, &u, &d), 1); /* up 2's o0, down 3's o0 */
	assert_int_equal(u, 0);
	assert_int_equal(d, 0);
	assert_int_equal(ocs_vclos_route(&a, 3, 0, &u, &d), 1);
	assert_int_equal(u, 1);
	assert_int_equal(d, 0);
	assert_int_equal(ocs_vclos_route(&a, 0, 1, &u, &d), 0);
	assert_int_equal(ocs_vclos_route(&a, 0, 4, &u, &d), -EINVAL);
	ocs_vclos_release(&c, 1);
	assert_int_equal(c.owner[3 * 4 + 0], VCLOS_FREE);
	assert_int_equal(c.circ[3 * 4 + 0], 1); /* the circuit stays, idle */
	ocs_vclos_alloc_done(&a);
	ocs_vclos_done(&c);
}

/* An idle circuit that already joins leaf 2 to spine 1 (on o2) is used as it is. */
static void test_stage2_reuse(void **state)
{
	struct ocs_vclos_alloc a;
	struct ocs_vclos c;
	uint32_t i;

	(void)state;
	t_stage2_setup(&c);
	c.circ[2 * 4 + 2] = 1;
	t_place(&c, 1, 4, &a);
	assert_int_equal(a.a.spine[0], 1);
	t_u32s(a.up, (uint32_t[]){0, 2, 0, 1}, 4);
	assert_int_equal(a.nch, 3);
	t_change(&a.ch[0], 0, 2, 1, false);
	t_change(&a.ch[1], 0, 3, 1, false);
	t_change(&a.ch[2], 1, 3, 1, false);
	for (i = 0; i < a.nch; i++)
		assert_false(a.ch[i].leaf == 2 && a.ch[i].ocs == 2);
	assert_int_equal(c.owner[2 * 4 + 2], 1);
	ocs_vclos_alloc_done(&a);
	ocs_vclos_done(&c);
}

/* L=3, S=2, R=1, T=1, K=2, P=1: leaf 2's idle circuits fill spine 0 on both OCSes; a job on
 * leaves 0 and 1 gets spine 0 (free ports count idle circuits) and tears them down first. */
static void test_stage2_teardown(void **state)
{
	struct ocs_vclos_alloc a;
	struct ocs_vclos c;

	(void)state;
	t_init(&c, 3, 2, 1, 1, 2, 1, (uint32_t[]){T_NONE, T_NONE, T_NONE, T_NONE, 0, 0});
	t_take_server(&c, 2);
	t_place(&c, 1, 2, &a);
	assert_int_equal(a.a.stage, 2);
	assert_int_equal(a.a.spine[0], 0);
	t_u32s(a.up, (uint32_t[]){0, 1}, 2);
	assert_int_equal(a.nch, 4);
	t_change(&a.ch[0], 0, 2, 0, true);
	t_change(&a.ch[1], 1, 2, 0, true);
	t_change(&a.ch[2], 0, 0, 0, false);
	t_change(&a.ch[3], 1, 1, 0, false);
	t_u32s(c.circ, (uint32_t[]){0, T_NONE, T_NONE, 0, T_NONE, T_NONE}, 6);
	ocs_vclos_alloc_done(&a);
	ocs_vclos_done(&c);
}

/* L=4, S=1, R=1, T=1, K=2, P=1: a job holds both ports of the only spine; another waits
 * though two leaves are idle, and once the first is gone reuses its circuits as they are. */
static void test_busy_circuits_wait(void **state)
{
	struct ocs_vclos_alloc a, b;
	struct ocs_vclos c;

	(void)state;
	t_init(&c, 4, 1, 1, 1, 2, 1, NULL);
	t_place(&c, 1, 2, &a);
	assert_int_equal(a.nch, 2);
	assert_int_equal(ocs_vclos_place(&c, 2, 2, &b), -EAGAIN);
	assert_null(b.a.eps);
	assert_int_equal(c.vc.srv_free[2] + c.vc.srv_free[3], 2);
	ocs_vclos_release(&c, 1);
	t_place(&c, 2, 2, &b);
	t_u32s(b.a.eps, (uint32_t[]){0, 1}, 2);
	t_u32s(b.up, (uint32_t[]){0, 1}, 2);
	assert_int_equal(b.nch, 0);
	ocs_vclos_alloc_done(&a);
	ocs_vclos_alloc_done(&b);
	ocs_vclos_done(&c);
}

/* The paper's testbed (A) with an OCS per leaf uplink: L=4, S=8, R=2, T=4, K=8, P=1, default
 * circuits. 16 GPUs exceed a leaf and a spine's 8 ports: stage 3, l = 2 x s = 8 on the
 * circuits in place; with one idle server per leaf, l = 4 x s = 4. */
static void test_stage3_shapes(void **state)
{
	uint32_t circ[32], want[16], i, u, d;
	struct ocs_vclos_alloc a, b;
	struct ocs_vclos c;

	(void)state;
	t_default_circ(circ, 4, 8, 8, 1);
	t_init(&c, 4, 8, 2, 4, 8, 1, circ);
	t_place(&c, 1, 16, &a);
	assert_int_equal(a.a.stage, 3);
	assert_int_equal(a.a.l, 2);
	assert_int_equal(a.a.s, 8);
	t_u32s(a.a.leaf, (uint32_t[]){0, 1}, 2);
	t_u32s(a.a.spine, (uint32_t[]){0, 1, 2, 3, 4, 5, 6, 7}, 8);
	assert_int_equal(a.nch, 0); /* virtual spine j on spine j: leaf 0 via o_j, 1 via o_j-1 */
	for (i = 0; i < 16; i++) {
		assert_int_equal(a.a.eps[i], i);
		assert_int_equal(a.up[i], i < 8 ? i : (i + 7) % 8);
		assert_int_equal(a.a.uplink[i], i % 8);
	}
	assert_int_equal(ocs_vclos_route(&a, 0, 9, &u, &d), 1); /* (0, 0) -> (1, 1): spine 0 */
	assert_int_equal(u, 0);
	assert_int_equal(d, 7);
	assert_int_equal(c.circ[1 * 8 + 7], 0);
	ocs_vclos_release(&c, 1);
	for (i = 0; i < 4; i++)
		t_take_server(&c, 2 * i);
	t_place(&c, 2, 16, &b);
	assert_int_equal(b.a.stage, 3);
	assert_int_equal(b.a.l, 4);
	assert_int_equal(b.a.s, 4);
	t_u32s(b.a.spine, (uint32_t[]){0, 1, 2, 3}, 4);
	for (i = 0; i < 16; i++)
		want[i] = (i / 4) * 8 + 4 + i % 4;
	t_u32s(b.a.eps, want, 16);
	assert_int_equal(b.nch, 0);
	ocs_vclos_alloc_done(&a);
	ocs_vclos_alloc_done(&b);
	ocs_vclos_done(&c);
}

static void test_errors(void **state)
{
	struct ocs_vclos_alloc a, b;
	struct diag d = {0};
	struct ocs_vclos c;

	(void)state;
	assert_int_equal(ocs_vclos_init(&c, 4, 8, 2, 4, 0, 1, NULL), -EINVAL);
	assert_int_equal(ocs_vclos_init(&c, 4, 8, 2, 4, 65, 1, NULL), -EINVAL);
	assert_int_equal(ocs_vclos_init(&c, 4, 8, 2, 4, 8, 0, NULL), -EINVAL);
	assert_int_equal(ocs_vclos_init(&c, 0, 8, 2, 4, 8, 1, NULL), -EINVAL);
	assert_int_equal(ocs_vclos_init(&c, 2, 2, 1, 1, 1, 1, (uint32_t[]){2, T_NONE}), -EINVAL);
	assert_int_equal(ocs_vclos_init(&c, 2, 2, 1, 1, 1, 1, (uint32_t[]){1, 1}), -EINVAL);
	ocs_vclos_done(&c);
	t_init(&c, 4, 8, 2, 4, 8, 1, NULL);
	assert_int_equal(ocs_vclos_place(&c, 1, 0, &a), -EINVAL);
	assert_int_equal(ocs_vclos_place(&c, 1, 33, &a), -EINVAL);
	assert_int_equal(ocs_vclos_place(&c, VCLOS_FREE, 4, &a), -EINVAL);
	assert_int_equal(ocs_vclos_place(&c, 1, 9, &a), -EINVAL);
	assert_null(a.a.eps);
	assert_int_equal(ocs_vclos_size_check(&c, 33, &d), -EINVAL);
	assert_string_equal(d.msg, "33 GPUs: the cluster has 32");
	diag_clear(&d);
	assert_int_equal(ocs_vclos_size_check(&c, 9, &d), -EINVAL);
	assert_string_equal(d.msg, "9 GPUs: more than one leaf's 2 servers of 4; more than a "
				   "spine's 8 ports (8 OCSes x 1); not l x s with 2 <= l <= 4 "
				   "leaves of s GPUs, s a multiple of 4 and at most 8 (vClos §7); "
				   "the next size that fits is 12");
	assert_int_equal(ocs_vclos_size_check(&c, 12, NULL), 0); /* 3 x 4 */
	assert_int_equal(ocs_vclos_size_check(&c, 7, NULL), 0);
	assert_int_equal(ocs_vclos_size_round(&c, 17), 24); /* 20 = 5 x 4 needs 5 leaves */
	assert_int_equal(ocs_vclos_size_round(&c, 32), 32);
	assert_int_equal(ocs_vclos_size_round(&c, 0), 0);
	t_place(&c, 1, 12, &a);
	assert_int_equal(a.a.l, 3);
	assert_int_equal(ocs_vclos_place(&c, 1, 1, &b), -EEXIST);
	ocs_vclos_release(&c, 1);
	ocs_vclos_release(&c, 1); /* nothing left: no-op */
	ocs_vclos_alloc_done(&a);
	ocs_vclos_alloc_done(NULL);
	ocs_vclos_done(&c);

	/* one spine of 4 ports: shapes of 8 exist, their circuits never fit */
	t_init(&c, 4, 1, 2, 2, 4, 1, NULL);
	diag_clear(&d);
	assert_int_equal(ocs_vclos_size_check(&c, 8, &d), -EINVAL);
	assert_string_equal(d.msg, "8 GPUs: more than one leaf's 2 servers of 2; more than a "
				   "spine's 4 ports (4 OCSes x 1); no circuits found for any l x s "
				   "with 2 <= l <= 4 leaves of s GPUs, s a multiple of 2 and at "
				   "most 4 (vClos §7); no larger size fits, up to 16");
	assert_int_equal(ocs_vclos_size_round(&c, 5), 0);
	ocs_vclos_done(&c);
}

static const enum coll_algo t_algos[] = {COLL_RING, COLL_HD, COLL_PAIRWISE};
#define T_N_ALGOS 3

struct t_job {
	bool running;
	struct ocs_vclos_alloc a;
};

struct t_mix {
	struct ocs_vclos c;
	struct t_job jobs[T_MAX_JOBS];
	struct t_pat pats[T_N_ALGOS][T_MAX_EP + 1];
	uint32_t *shadow; /* [L*K] circuits replayed from the change lists */
	uint32_t *load; /* [2*L*K] flows per directed circuit: up, then down */
	uint32_t *gpu, *port; /* [L*R*T], [L*K] owners rebuilt from the allocations */
	uint64_t hash;
	uint32_t placed[4], changes, moved, hd_skipped;
};

static const struct t_pat *t_pat_get(struct t_mix *m, uint32_t algo, uint32_t n)
{
	assert_true(n <= T_MAX_EP);
	if (!m->pats[algo][n].dst)
		t_pat_build(&m->pats[algo][n], t_algos[algo], n);
	return &m->pats[algo][n];
}

static uint32_t t_n_ep(const struct ocs_vclos *c)
{
	return c->vc.leaves * c->vc.servers * c->vc.gpus;
}

/* (c) One flow of a running job: 1 and its two circuits' ports if it crosses leaves. Both
 * circuits are the job's and join the two leaves to the spine of the source's uplink. */
static int t_flow(const struct ocs_vclos *c, const struct ocs_vclos_alloc *a, uint32_t r,
		  uint32_t d, uint32_t *pu, uint32_t *pd)
{
	uint32_t per = a->a.leaf_gpus, K = c->ocs, u, w;
	int rc = ocs_vclos_route(a, r, d, &u, &w);

	assert_true(rc == 0 || rc == 1);
	if (!rc) {
		assert_int_equal(a->a.eps[r] / per, a->a.eps[d] / per);
		return 0;
	}
	*pu = a->a.eps[r] / per * K + u;
	*pd = a->a.eps[d] / per * K + w;
	assert_int_equal(c->owner[*pu], a->a.job);
	assert_int_equal(c->owner[*pd], a->a.job);
	assert_int_equal(c->circ[*pu], a->a.uplink[r]);
	assert_int_equal(c->circ[*pd], a->a.uplink[r]);
	return 1;
}

/* HD's partners are leaf-wise for virtual leaves of a power-of-two size (vClos §5.3); other
 * stage-3 shapes run ring and all-to-all only. A single spine (stage 2) takes any step. */
static bool t_algo_applies(const struct ocs_vclos_alloc *a, uint32_t algo)
{
	return t_algos[algo] != COLL_HD || a->a.stage != 3 || !(a->a.s & (a->a.s - 1));
}

/* (d) For each collective, phase p of every running job at once loads no directed circuit
 * twice (vClos Lemma 5.1 on each job's virtual Clos, and isolation between jobs). */
static void t_check_traffic(struct t_mix *m)
{
	uint32_t LK = m->c.vc.leaves * m->c.ocs, algo, p, j, r, d, pu, pd;
	const struct ocs_vclos_alloc *a;
	const struct t_pat *pt;
	bool more;

	for (algo = 0; algo < T_N_ALGOS; algo++) {
		for (p = 0, more = true; more; p++) {
			more = false;
			memset(m->load, 0, 2 * LK * sizeof(*m->load));
			for (j = 0; j < T_MAX_JOBS; j++) {
				a = &m->jobs[j].a;
				if (!m->jobs[j].running || a->a.n < 2)
					continue;
				if (!t_algo_applies(a, algo)) {
					m->hd_skipped++;
					continue;
				}
				pt = t_pat_get(m, algo, a->a.n);
				more = more || p + 1 < pt->np;
				for (r = 0; p < pt->np && r < pt->n; r++) {
					d = pt->dst[p * pt->n + r];
					if (d == T_PAT_NONE || !t_flow(&m->c, a, r, d, &pu, &pd))
						continue;
					assert_int_equal(++m->load[pu], 1);
					assert_int_equal(++m->load[LK + pd], 1);
				}
			}
		}
	}
}

/* (b) at most P circuits per (spine, OCS); (e) GPUs and ports owned as the running jobs'
 * allocations say, none twice; (f) the replayed circuits are the cluster's. */
static void t_check_state(struct t_mix *m)
{
	const struct ocs_vclos *c = &m->c;
	uint32_t K = c->ocs, LK = c->vc.leaves * K, T = c->vc.gpus, cnt[64 * 64] = {0};
	uint32_t j, i, g, ep, pt;
	const struct ocs_vclos_alloc *a;

	for (i = 0; i < LK; i++) {
		if (c->circ[i] != OCS_VCLOS_NONE)
			assert_true(++cnt[c->circ[i] * K + i % K] <= c->spine_ports);
	}
	memset(m->gpu, 0xff, t_n_ep(c) * sizeof(*m->gpu));
	memset(m->port, 0xff, LK * sizeof(*m->port));
	for (j = 0; j < T_MAX_JOBS; j++) {
		a = &m->jobs[j].a;
		for (i = 0; m->jobs[j].running && i < a->a.n; i++) {
			for (g = 0; g < (a->a.stage ? T : 1); g++) {
				ep = a->a.stage ? a->a.eps[i] / T * T + g : a->a.eps[i];
				assert_true(m->gpu[ep] == VCLOS_FREE || m->gpu[ep] == j);
				m->gpu[ep] = j;
			}
			if (a->a.stage < 2)
				continue;
			pt = a->a.eps[i] / a->a.leaf_gpus * K + a->up[i];
			assert_int_equal(m->port[pt], VCLOS_FREE);
			m->port[pt] = j;
		}
	}
	t_u32s(c->vc.gpu_owner, m->gpu, t_n_ep(c));
	t_u32s(c->owner, m->port, LK);
	t_u32s(c->circ, m->shadow, LK);
}

/* (a) and (f): replays a placement's changes on the shadow circuits, one by one, tear-downs
 * first; none names a port a running job held before. */
static void t_replay(struct t_mix *m, const uint32_t *owner_before, const struct ocs_vclos_alloc *a)
{
	uint32_t K = m->c.ocs, LK = m->c.vc.leaves * K, i, q, x, cnt;
	const struct ocs_vclos_change *ch;
	bool joined = false;

	for (i = 0; i < a->nch; i++) {
		ch = &a->ch[i];
		assert_true(ch->leaf < m->c.vc.leaves && ch->ocs < K && ch->spine < m->c.vc.spines);
		q = ch->leaf * K + ch->ocs;
		assert_int_equal(owner_before[q], VCLOS_FREE);
		if (ch->off) {
			assert_false(joined);
			assert_int_equal(m->shadow[q], ch->spine);
			m->shadow[q] = OCS_VCLOS_NONE;
			for (x = i + 1; x < a->nch;
			     x++) /* an off that makes room: the port moves */
				m->moved += !a->ch[x].off && a->ch[x].leaf * K + a->ch[x].ocs == q;
			continue;
		}
		joined = true;
		assert_int_not_equal(m->shadow[q], ch->spine);
		m->shadow[q] = OCS_VCLOS_NONE; /* a join releases the leaf port's circuit */
		for (x = ch->ocs, cnt = 0; x < LK; x += K)
			cnt += m->shadow[x] == ch->spine;
		assert_true(cnt < m->c.spine_ports);
		m->shadow[q] = ch->spine;
	}
	m->changes += a->nch;
}

static uint64_t t_hash(uint64_t h, const void *v, size_t len)
{
	const uint8_t *p = v;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* The placement's own shape: ascending endpoints; stage 2: one spine, a distinct OCS per
 * rank of a leaf; stage 3: s ranks per leaf, rank i*s + j up to spine[j], distinct OCSes. */
static void t_check_alloc(const struct ocs_vclos *c, const struct ocs_vclos_alloc *a)
{
	uint32_t per = a->a.leaf_gpus, i, j, K = c->ocs;
	uint64_t seen[T_MAX_EP] = {0};

	for (i = 0; i < a->a.n; i++) {
		if (i)
			assert_true(a->a.eps[i - 1] < a->a.eps[i]);
		if (a->a.stage < 2) {
			assert_int_equal(a->up[i], OCS_VCLOS_NONE);
			continue;
		}
		j = a->a.eps[i] / per;
		assert_true(a->up[i] < K);
		assert_false(seen[j] >> a->up[i] & 1);
		seen[j] |= 1ULL << a->up[i];
		assert_int_equal(c->circ[j * K + a->up[i]], a->a.uplink[i]);
		if (a->a.stage == 2)
			assert_int_equal(a->a.uplink[i], a->a.spine[0]);
		else
			assert_int_equal(a->a.uplink[i], a->a.spine[i % a->a.s]);
		if (a->a.stage == 3)
			assert_int_equal(j, a->a.leaf[i / a->a.s]);
	}
	if (a->a.stage == 3)
		assert_int_equal(a->a.l * a->a.s, a->a.n);
}

/* (c) every pair of the new job's ranks routes on its own circuits. */
static void t_check_routes(const struct ocs_vclos *c, const struct ocs_vclos_alloc *a)
{
	uint32_t r, d, pu, pd;

	for (r = 0; r < a->a.n; r++) {
		for (d = 0; d < a->a.n; d++)
			t_flow(c, a, r, d, &pu, &pd);
	}
}

static void t_arrive(struct t_mix *m, uint32_t job, uint32_t n)
{
	struct ocs_vclos_alloc *a = &m->jobs[job].a;
	uint32_t LK = m->c.vc.leaves * m->c.ocs, before[T_MAX_EP * 64];
	int err;

	memcpy(before, m->c.owner, LK * sizeof(*before));
	err = ocs_vclos_place(&m->c, job, n, a);
	m->hash = t_hash(m->hash, &err, sizeof(err));
	if (n > t_n_ep(&m->c) || !m->c.fits[n]) {
		assert_int_equal(err, -EINVAL);
		return;
	}
	assert_true(err == 0 || err == -EAGAIN);
	if (err)
		return;
	t_replay(m, before, a);
	t_check_alloc(&m->c, a);
	t_check_routes(&m->c, a);
	m->jobs[job].running = true;
	m->placed[a->a.stage]++;
	m->hash = t_hash(m->hash, a->a.eps, n * sizeof(*a->a.eps));
	m->hash = t_hash(m->hash, a->up, n * sizeof(*a->up));
	m->hash = t_hash(m->hash, a->ch, a->nch * sizeof(*a->ch));
}

static void t_depart(struct t_mix *m, uint32_t job)
{
	ocs_vclos_release(&m->c, job);
	ocs_vclos_alloc_done(&m->jobs[job].a);
	m->jobs[job].running = false;
}

/* A random size: a power of two up to the cluster, or uniform up to a quarter beyond it. */
static uint32_t t_size(uint64_t *rng, uint32_t n_ep)
{
	uint32_t lg = 0;

	while (2u << lg <= n_ep)
		lg++;
	if (rng_next(rng) % 2)
		return 1u << rng_next(rng) % (lg + 1);
	return 1 + (uint32_t)(rng_next(rng) % (n_ep + n_ep / 4));
}

static void t_mix_run(struct t_mix *m, uint64_t seed, uint32_t events)
{
	uint64_t rng = seed;
	uint32_t e, j;

	for (e = 0; e < events; e++) {
		j = (uint32_t)(rng_next(&rng) % T_MAX_JOBS);
		if (m->jobs[j].running)
			t_depart(m, j);
		else
			t_arrive(m, j, t_size(&rng, t_n_ep(&m->c)));
		t_check_state(m);
		t_check_traffic(m);
	}
	for (j = 0; j < T_MAX_JOBS; j++) {
		if (m->jobs[j].running)
			t_depart(m, j);
	}
}

struct t_shape {
	uint32_t l, s, r, t, k, p;
	bool circ; /* start with the default circuits */
};

static const struct t_shape t_shapes[] = {
	{4, 8, 2, 4, 8, 1, true}, /* the testbed (A) with an OCS per uplink */
	{8, 4, 2, 4, 8, 2, true},  {4, 4, 2, 4, 4, 2, true}, /* oversubscribed: K = 4 < R*T = 8 */
	{6, 3, 2, 2, 4, 2, false}, {4, 3, 3, 2, 6, 2, false},
};
#define T_N_SHAPES (sizeof(t_shapes) / sizeof(t_shapes[0]))
#define T_MIXES 1000
#define T_EVENTS 40

static struct t_mix *t_mix_new(const struct t_shape *sh)
{
	struct t_mix *m = calloc(1, sizeof(*m));
	uint32_t LK = sh->l * sh->k, circ[T_MAX_EP * 64];

	assert_non_null(m);
	assert_true(sh->l * sh->r * sh->t <= T_MAX_EP && LK <= T_MAX_EP * 64);
	if (sh->circ)
		t_default_circ(circ, sh->l, sh->s, sh->k, sh->p);
	t_init(&m->c, sh->l, sh->s, sh->r, sh->t, sh->k, sh->p, sh->circ ? circ : NULL);
	m->shadow = malloc(LK * sizeof(*m->shadow));
	m->load = malloc(2 * LK * sizeof(*m->load));
	m->gpu = malloc(T_MAX_EP * sizeof(*m->gpu));
	m->port = malloc(LK * sizeof(*m->port));
	assert_true(m->shadow && m->load && m->gpu && m->port);
	memcpy(m->shadow, m->c.circ, LK * sizeof(*m->shadow));
	m->hash = 0xcbf29ce484222325ULL;
	return m;
}

static void t_mix_free(struct t_mix *m)
{
	uint32_t a, k;

	for (a = 0; a < T_N_ALGOS; a++) {
		for (k = 0; k <= T_MAX_EP; k++)
			free(m->pats[a][k].dst);
	}
	free(m->shadow);
	free(m->load);
	free(m->gpu);
	free(m->port);
	ocs_vclos_done(&m->c);
	free(m);
}

static uint64_t t_mixes(const struct t_shape *sh, uint64_t seed, uint32_t mixes, struct t_mix **out)
{
	struct t_mix *m = t_mix_new(sh);
	uint64_t h;
	uint32_t i;

	for (i = 0; i < mixes; i++)
		t_mix_run(m, seed + i, T_EVENTS);
	h = m->hash;
	if (out)
		*out = m;
	else
		t_mix_free(m);
	return h;
}

static void test_random_mixes(void **state)
{
	const struct t_shape *sh;
	struct t_mix *m;
	uint32_t s;

	(void)state;
	for (s = 0; s < T_N_SHAPES; s++) {
		sh = &t_shapes[s];
		t_mixes(sh, 1000 * s, T_MIXES, &m);
		/* every stage ran, circuits were rewired, some ports moved between spines */
		assert_true(m->placed[0] > 0 && m->placed[1] > 0);
		assert_true(m->placed[2] > 0 && m->placed[3] > 0);
		assert_true(m->changes > 0 && m->moved > 0);
		printf("ocs-vclos mixes L=%u S=%u R=%u T=%u K=%u P=%u: placed %u/%u/%u/%u "
		       "(stages 0-3), %u changes (%u ports moved), HD skipped %u\n",
		       sh->l, sh->s, sh->r, sh->t, sh->k, sh->p, m->placed[0], m->placed[1],
		       m->placed[2], m->placed[3], m->changes, m->moved, m->hd_skipped);
		t_mix_free(m);
	}
}

static void test_deterministic(void **state)
{
	uint64_t a, b, c;

	(void)state;
	a = t_mixes(&t_shapes[1], 42, 20, NULL);
	b = t_mixes(&t_shapes[1], 42, 20, NULL);
	c = t_mixes(&t_shapes[1], 43, 20, NULL);
	assert_true(a == b);
	assert_true(a != c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_as_vclos),
		cmocka_unit_test(test_stage2_least_enough),
		cmocka_unit_test(test_stage2_reuse),
		cmocka_unit_test(test_stage2_teardown),
		cmocka_unit_test(test_busy_circuits_wait),
		cmocka_unit_test(test_stage3_shapes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_random_mixes),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
