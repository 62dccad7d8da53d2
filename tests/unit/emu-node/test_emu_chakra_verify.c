// SPDX-License-Identifier: MIT
/* A Chakra job under verify (traffic/chakra/chakra_lower.c's regions, emu-node/verify.c's
 * expectations): the lowered schedule run here on real floats, as an executor would (each
 * rank's steps in the order traffic/plan.h lets them start, sends eager, receives in order per
 * pair, additions whole), from verify_fill's values, leaves every rank's regions as
 * verify_regions_check expects: for every published trace under scenarios/chakra/ (each
 * collective kind on 4, 8 and 16 NPUs, broadcast, barrier, the MLP chain) under the ring and
 * halving-doubling; and a corrupted element is found. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu-node/ctl.h"
#include "emu-node/verify.h"
#include "lib/vec.h"
#include "tests/unit/chakra_t.h"
#include "traffic/plan.h"

/* ---- the reference executor ---- */

/* A message on its way from one rank to another: its bytes as the send read them. */
struct msg {
	uint32_t src, dst;
	uint64_t len;
	float *data;
	bool taken;
};

struct rank {
	struct coll_plan plan;
	struct coll_plan_run run;
	float *buf;
	VEC(uint32_t) waiting; /* receives taken, their message not yet here */
};

/* The oldest message from src to dst not yet taken, or NULL. */
static struct msg *first_msg(struct msg *v, size_t n, uint32_t src, uint32_t dst)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!v[i].taken && v[i].src == src && v[i].dst == dst)
			return &v[i];
	return NULL;
}

static void apply(float *dst, const float *src, uint64_t n, bool reduce)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		dst[i] = reduce ? dst[i] + src[i] : src[i];
}

/* Runs every rank of s to its end; the buffers' final values in rk[]. */
static void t_exec(const struct coll_sched *s, struct rank *rk)
{
	uint32_t n = s->params.nranks, r, st, k, done = 0;
	VEC(struct msg) q = {0};
	bool moved = true;

	for (r = 0; r < n; r++) {
		rk[r].buf = malloc(s->params.bytes + 4);
		assert_non_null(rk[r].buf);
		verify_fill(rk[r].buf, s->params.bytes / 4, r);
		assert_int_equal(coll_plan_init(&rk[r].plan, s, r), 0);
		assert_int_equal(coll_plan_run_init(&rk[r].run, &rk[r].plan), 0);
		coll_plan_run_reset(&rk[r].run);
	}
	while (moved) {
		moved = false;
		for (r = 0; r < n; r++) {
			struct rank *x = &rk[r];

			while ((st = coll_plan_run_take(&x->run)) != COLL_PLAN_NONE) {
				const struct coll_step *p = &x->plan.steps[st];
				struct msg m = {r, p->peer, p->len, NULL, false};

				moved = true;
				if (p->op == COLL_RECV) {
					assert_int_equal(vec_push(&x->waiting, st), 0);
					continue;
				}
				if (p->op == COLL_SEND) {
					m.data = malloc(p->len + 4);
					memcpy(m.data, (char *)x->buf + p->off, p->len);
					assert_int_equal(vec_push(&q, m), 0);
				} else if (p->op == COLL_LOCAL) {
					apply((float *)((char *)x->buf + p->off),
					      (const float *)((char *)x->buf + p->src), p->len / 4,
					      p->flags & COLL_F_REDUCE);
				}
				coll_plan_run_complete(&x->run, st);
			}
			for (k = 0; k < x->waiting.n; k++) {
				const struct coll_step *p = &x->plan.steps[x->waiting.v[k]];
				struct msg *m = first_msg(q.v, q.n, p->peer, r);

				if (!m)
					continue;
				assert_int_equal(m->len, p->len);
				apply((float *)((char *)x->buf + p->off), m->data, p->len / 4,
				      p->flags & COLL_F_REDUCE);
				m->taken = true;
				coll_plan_run_complete(&x->run, x->waiting.v[k]);
				x->waiting.v[k--] = x->waiting.v[--x->waiting.n];
				moved = true;
			}
		}
	}
	for (r = 0; r < n; r++)
		done += coll_plan_run_finished(&rk[r].run);
	assert_int_equal(done, n);
	for (k = 0; k < q.n; k++) {
		assert_true(q.v[k].taken);
		free(q.v[k].data);
	}
	vec_free(&q);
}

static void t_free(struct rank *rk, uint32_t n)
{
	uint32_t r;

	for (r = 0; r < n; r++) {
		free(rk[r].buf);
		vec_free(&rk[r].waiting);
		coll_plan_run_done(&rk[r].run);
		coll_plan_done(&rk[r].plan);
	}
}

/* Rank r's regions of m. */
static struct verify_regions t_vr(const struct chakra_maps *m, uint32_t r)
{
	return (struct verify_regions){.rg = m->regions.v + m->region_off[r],
				       .mb = m->members.v,
				       .nrg = m->region_off[r + 1] - m->region_off[r],
				       .nmb = (uint32_t)m->members.n};
}

/* The trace under algorithm a, with regions: every rank verified; a corrupted element not.
 * Returns the regions checked. */
static size_t t_verify(const char *prefix, size_t n, enum coll_algo a)
{
	struct chakra_job cj;
	struct chakra_maps m;
	struct coll_sched s;
	struct rank rk[16];
	struct diag d = {0};
	char why[256];
	struct tchk_job j;
	uint32_t r;
	uint64_t at;
	size_t checked = 0;

	tchk_read(prefix, n, &j);
	memset(rk, 0, sizeof(rk));
	cj = tchk_cj(&j, a, true);
	if (chakra_lower(&cj, &s, &m, &d))
		fail_msg("%s: %s", prefix, d.msg);
	t_exec(&s, rk);
	for (r = 0; r < n; r++) {
		struct verify_regions vr = t_vr(&m, r);

		assert_null(verify_regions_fault(&vr, s.params.bytes));
		if (verify_regions_check(&vr, r, rk[r].buf, why, sizeof(why)))
			fail_msg("%s, %s, rank %u: %s", prefix, coll_algo_name(a), r, why);
		checked += vr.nrg;
		at = verify_regions_fault_at(&vr);
		if (at == UINT64_MAX)
			continue;
		rk[r].buf[at] += 1.0f;
		assert_int_equal(verify_regions_check(&vr, r, rk[r].buf, why, sizeof(why)),
				 -EBADMSG);
		assert_non_null(strstr(why, "verify: rank "));
	}
	t_free(rk, (uint32_t)n);
	chakra_maps_done(&m);
	coll_sched_done(&s);
	tchk_done(&j);
	return checked;
}

static void test_published(void **state)
{
	static const char *const colls[] = {"all_reduce", "all_gather", "reduce_scatter",
					    "all_to_all"};
	static const size_t npus[] = {4, 8, 16};
	char prefix[128];
	size_t c, k;

	(void)state;
	for (c = 0; c < 4; c++) {
		for (k = 0; k < 3; k++) {
			snprintf(prefix, sizeof(prefix), "%s/%zunpus_1MB/%s", colls[c], npus[k],
				 colls[c]);
			/* one region per rank: the collective's */
			assert_int_equal(t_verify(prefix, npus[k], COLL_RING), npus[k]);
			assert_int_equal(t_verify(prefix, npus[k], COLL_HD), npus[k]);
		}
	}
}

static void test_generator_and_mlp(void **state)
{
	(void)state;
	assert_int_equal(t_verify("chakra_generator/4npus/BROADCAST", 4, COLL_RING), 4);
	assert_int_equal(t_verify("chakra_generator/4npus/BARRIER", 4, COLL_RING), 4);
	/* 11 collectives on each of the 8 ranks */
	assert_int_equal(t_verify("mlp_model_parallel/8npus/MLP_ModelParallel", 8, COLL_RING), 88);
	assert_int_equal(t_verify("mlp_model_parallel/8npus/MLP_ModelParallel", 8, COLL_HD), 88);
}

/* The regions of one rank never overlap, and each lies in the buffer. */
static void test_regions_apart(void **state)
{
	struct chakra_job cj;
	struct chakra_maps m;
	struct coll_sched s;
	struct diag d = {0};
	struct tchk_job j;
	uint32_t r, a, b;

	(void)state;
	tchk_read("mlp_model_parallel/8npus/MLP_ModelParallel", 8, &j);
	cj = tchk_cj(&j, COLL_RING, true);
	assert_int_equal(chakra_lower(&cj, &s, &m, &d), 0);
	for (r = 0; r < 8; r++)
		for (a = m.region_off[r]; a < m.region_off[r + 1]; a++) {
			const struct chakra_region *x = &m.regions.v[a];

			assert_true(x->base + x->len <= s.params.bytes);
			for (b = a + 1; b < m.region_off[r + 1]; b++) {
				const struct chakra_region *y = &m.regions.v[b];

				assert_true(x->base + x->len <= y->base ||
					    y->base + y->len <= x->base);
			}
		}
	chakra_maps_done(&m);
	coll_sched_done(&s);
	tchk_done(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_published),
		cmocka_unit_test(test_generator_and_mlp),
		cmocka_unit_test(test_regions_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
