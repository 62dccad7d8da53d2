// SPDX-License-Identifier: MIT
/* The virtual-time network (sim/net.h) on cases whose answers are known by hand: one flow,
 * flows sharing a link, the parking lot, capacity freed by a finishing flow, a link failing
 * under a flow (rerouted, or stalled until repaired), flows alone on their links among flows
 * that share, refilling only what a change reaches, refilling at most once per quantum,
 * determinism; and max-min fairness as a property over random instances; the other sharing
 * rules (equal split, since each flow started or not) on a hand case each and the same random
 * instances. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/rng.h"
#include "sim/net.h"

#define GBIT 1e9
#define MS 1000000LL

static uint64_t t_below(uint64_t *r, uint64_t n)
{
	return rng_next(r) % n;
}

/* Runs to the next event, which must be there. */
static struct sim_event t_next(struct sim_net *s)
{
	struct sim_event ev;

	assert_int_equal(sim_next(s, &ev), 1);
	return ev;
}

/* Sets the rates now (sim_next would before the clock moves on). */
static void t_settle_rates(struct sim_net *s)
{
	assert_int_equal(sim_net_settle(s), 0);
}

/* 1,000,000 bytes at 1 Gbit/s: 8 Mbit / 1 Gbit/s = 8 ms. */
static void test_one_flow(void **state)
{
	double cap = GBIT;
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;

	(void)state;
	assert_int_equal(sim_net_init(&s, 1, &cap), 0);
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 7), 0);
	ev = t_next(&s);
	assert_int_equal(ev.kind, SIM_EV_FLOW_DONE);
	assert_int_equal(ev.cookie, 7);
	assert_int_equal(ev.t, 8 * MS);
	assert_true(fabs(sim_link_bytes(&s, 0) - 1e6) < 1e-6);
	assert_int_equal(sim_next(&s, &ev), 0);
	sim_net_done(&s);
}

/* Four equal flows on one 1 Gbit/s link: 250 Mbit/s each, all done at 32 ms. */
static void test_equal_share(void **state)
{
	double cap = GBIT;
	uint32_t path = 0, i;
	struct sim_net s;

	(void)state;
	assert_int_equal(sim_net_init(&s, 1, &cap), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, i), (int)i);
	t_settle_rates(&s);
	for (i = 0; i < 4; i++)
		assert_true(sim_flow_rate(&s, i) == GBIT / 4);
	for (i = 0; i < 4; i++) { /* ties in time come in the order the events were made */
		struct sim_event ev = t_next(&s);

		assert_int_equal(ev.t, 32 * MS);
		assert_int_equal(ev.cookie, i);
	}
	sim_net_done(&s);
}

/* 1 MB and 2 MB on 1 Gbit/s: both at 500 Mbit/s until the first ends at 16 ms (8 Mbit at
 * 0.5 Gbit/s); the second has 1 MB left, alone at 1 Gbit/s: 8 ms more, done at 24 ms. */
static void test_freed_capacity(void **state)
{
	double cap = GBIT;
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;

	(void)state;
	assert_int_equal(sim_net_init(&s, 1, &cap), 0);
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 1), 0);
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 2000000, 2), 1);
	ev = t_next(&s);
	assert_true(ev.cookie == 1 && ev.t == 16 * MS);
	ev = t_next(&s);
	assert_true(ev.cookie == 2 && ev.t == 24 * MS);
	assert_true(fabs(sim_link_bytes(&s, 0) - 3e6) < 1e-6);
	sim_net_done(&s);
}

/* The parking lot: links 0, 1, 2 in a line, one long flow over all three and one short flow
 * per link. Equal capacities C: every link has two flows, every flow gets C/2. With link 1 at
 * 0.6 C: it is the bottleneck, its two flows get 0.3 C; links 0 and 2 have 1 - 0.3 = 0.7 C
 * left for their short flows (progressive filling). */
static void t_parking(double c1, double want_long, double want_short1, double want_short02)
{
	double cap[3] = {GBIT, c1, GBIT};
	uint32_t all[3] = {0, 1, 2}, k;
	struct sim_net s;

	assert_int_equal(sim_net_init(&s, 3, cap), 0);
	assert_int_equal(sim_flow_start(&s, all, NULL, 3, 1000000000, 0), 0);
	for (k = 0; k < 3; k++)
		assert_int_equal(sim_flow_start(&s, &all[k], NULL, 1, 1000000000, k + 1),
				 (int)k + 1);
	t_settle_rates(&s);
	assert_true(fabs(sim_flow_rate(&s, 0) - want_long) < 1e-3);
	assert_true(fabs(sim_flow_rate(&s, 2) - want_short1) < 1e-3);
	assert_true(fabs(sim_flow_rate(&s, 1) - want_short02) < 1e-3);
	assert_true(fabs(sim_flow_rate(&s, 3) - want_short02) < 1e-3);
	sim_net_done(&s);
}

static void test_parking_lot(void **state)
{
	(void)state;
	t_parking(GBIT, GBIT / 2, GBIT / 2, GBIT / 2);
	t_parking(0.6 * GBIT, 0.3 * GBIT, 0.3 * GBIT, 0.7 * GBIT);
}

/* A flow split in fixed shares (spraying): its rate r puts w x r on each of its links.
 * 1. Alone over two 1 Gbit/s links at half each: 2 Gbit/s, each link full.
 * 2. Links of 1 and 0.4 Gbit/s: the second fills first at r = 0.8 Gbit/s (0.4 on each).
 * 3. With a one-path flow on link 0: link 0 carries r/2 + r' and fills first, at
 *    r = r' = 1 / 1.5 Gbit/s; link 1 keeps 2/3 of its capacity.
 * 4. 1 MB split over three links (1/2 on link 0, 1/4 on links 1 and 2, 1 Gbit/s each): link 0
 *    fills at 2 Gbit/s, done at 4 ms; the links carried 0.5, 0.25 and 0.25 MB, and half of
 *    that at 2 ms, read in flight. */
static void test_split_flow(void **state)
{
	double cap[3] = {GBIT, GBIT, GBIT}, half[2] = {0.5, 0.5}, q[3] = {0.5, 0.25, 0.25};
	uint32_t two[2] = {0, 1}, three[3] = {0, 1, 2}, zero = 0;
	struct sim_event ev;
	struct sim_net s;

	(void)state;
	assert_int_equal(sim_net_init(&s, 3, cap), 0);
	assert_int_equal(sim_flow_start(&s, two, half, 2, 1000000000, 0), 0);
	t_settle_rates(&s);
	assert_true(fabs(sim_flow_rate(&s, 0) - 2 * GBIT) < 1e-3);
	sim_net_done(&s);

	cap[1] = 0.4 * GBIT;
	assert_int_equal(sim_net_init(&s, 3, cap), 0);
	assert_int_equal(sim_flow_start(&s, two, half, 2, 1000000000, 0), 0);
	t_settle_rates(&s);
	assert_true(fabs(sim_flow_rate(&s, 0) - 0.8 * GBIT) < 1e-3);
	sim_net_done(&s);

	cap[1] = GBIT;
	assert_int_equal(sim_net_init(&s, 3, cap), 0);
	assert_int_equal(sim_flow_start(&s, two, half, 2, 1000000000, 0), 0);
	assert_int_equal(sim_flow_start(&s, &zero, NULL, 1, 1000000000, 1), 1);
	t_settle_rates(&s);
	assert_true(fabs(sim_flow_rate(&s, 0) - GBIT / 1.5) < 1e-3);
	assert_true(fabs(sim_flow_rate(&s, 1) - GBIT / 1.5) < 1e-3);
	sim_net_done(&s);

	assert_int_equal(sim_net_init(&s, 3, cap), 0);
	assert_int_equal(sim_flow_start(&s, three, q, 3, 1000000, 7), 0);
	assert_int_equal(sim_timer(&s, 2 * MS, 9), 0); /* half way: each link its share of half */
	ev = t_next(&s);
	assert_true(ev.cookie == 9 && ev.t == 2 * MS);
	assert_true(fabs(sim_link_bytes(&s, 0) - 2.5e5) < 1e-6);
	assert_true(fabs(sim_link_bytes(&s, 1) - 1.25e5) < 1e-6);
	assert_true(fabs(sim_link_bytes(&s, 2) - 1.25e5) < 1e-6);
	ev = t_next(&s);
	assert_true(ev.cookie == 7 && ev.t == 4 * MS);
	assert_true(fabs(sim_link_bytes(&s, 0) - 5e5) < 1e-6);
	assert_true(fabs(sim_link_bytes(&s, 1) - 2.5e5) < 1e-6);
	assert_true(fabs(sim_link_bytes(&s, 2) - 2.5e5) < 1e-6);
	/* shares outside (0, 1] are refused */
	q[1] = 0;
	assert_int_equal(sim_flow_start(&s, three, q, 3, 1000000, 8), -EINVAL);
	q[1] = 1.5;
	assert_int_equal(sim_flow_start(&s, three, q, 3, 1000000, 8), -EINVAL);
	sim_net_done(&s);
}

/* A 1 MB flow on link 0 (1 Gbit/s) whose link fails at 4 ms, half sent: rerouted onto link
 * 1 (1 Gbit/s) it sends the other half in 4 ms, done at 8 ms; left stalled and repaired at
 * 10 ms, it is done at 14 ms. */
static void test_failure(void **state)
{
	double cap[2] = {GBIT, GBIT};
	uint32_t p0 = 0, p1 = 1;
	struct sim_net s;
	struct sim_event ev;
	int reroute;

	(void)state;
	for (reroute = 1; reroute >= 0; reroute--) {
		assert_int_equal(sim_net_init(&s, 2, cap), 0);
		assert_int_equal(sim_flow_start(&s, &p0, NULL, 1, 1000000, 5), 0);
		assert_int_equal(sim_timer(&s, 4 * MS, 1), 0);
		assert_int_equal(sim_timer(&s, 10 * MS, 2), 0);
		ev = t_next(&s);
		assert_true(ev.kind == SIM_EV_TIMER && ev.cookie == 1 && ev.t == 4 * MS);
		assert_int_equal(sim_link_set(&s, 0, false), 0);
		if (reroute)
			assert_int_equal(sim_flow_reroute(&s, 0, &p1, NULL, 1), 0);
		ev = t_next(&s);
		if (reroute) {
			assert_true(ev.kind == SIM_EV_FLOW_DONE && ev.t == 8 * MS);
			assert_true(fabs(sim_link_bytes(&s, 1) - 5e5) < 1e-6);
		} else { /* stalled: nothing happens until the repair */
			assert_true(ev.kind == SIM_EV_TIMER && ev.t == 10 * MS);
			assert_true(sim_flow_rate(&s, 0) == 0);
			assert_int_equal(sim_link_set(&s, 0, true), 0);
			ev = t_next(&s);
			assert_true(ev.kind == SIM_EV_FLOW_DONE && ev.t == 14 * MS);
		}
		assert_true(fabs(sim_link_bytes(&s, 0) - (reroute ? 5e5 : 1e6)) < 1e-6);
		sim_net_done(&s);
	}
}

/* Two groups sharing no link: a flow ending in one refills that group only. Group A: 3
 * flows on link 0; group B: 5 flows on link 1. The A flow that ends first (smallest) leaves
 * 2 flows to refill, not 7. Setting a link to the state it has refills nothing. */
static void test_incremental(void **state)
{
	double cap[2] = {GBIT, GBIT};
	uint32_t p0 = 0, p1 = 1, i;
	struct sim_net s;
	struct sim_event ev;
	uint64_t before;

	(void)state;
	assert_int_equal(sim_net_init(&s, 2, cap), 0);
	for (i = 0; i < 3; i++)
		assert_true(sim_flow_start(&s, &p0, NULL, 1, 1000000 * (i + 1), i) >= 0);
	for (i = 0; i < 5; i++)
		assert_true(sim_flow_start(&s, &p1, NULL, 1, 100000000, 10 + i) >= 0);
	t_settle_rates(&s);
	assert_int_equal(s.st.flows_touched, 8);
	before = s.st.flows_touched;
	ev = t_next(&s);
	assert_int_equal(ev.cookie, 0);
	t_settle_rates(&s);
	assert_int_equal(s.st.flows_touched - before, 2);
	before = s.st.recomputes; /* a link set to the state it has changes nothing */
	assert_int_equal(sim_link_set(&s, 1, true), 0);
	t_settle_rates(&s);
	assert_int_equal(s.st.recomputes, before);
	sim_net_done(&s);
}

/* A random instance: nl links of random capacity, nf flows over 1-4 distinct random links
 * each, started at random times by timers; every completion logged. */
static size_t t_random_run(uint64_t seed, struct sim_event *log, size_t max)
{
	uint64_t r;
	double cap[16];
	uint32_t path[4], nl, nf, i, h, k;
	struct sim_net s;
	struct sim_event ev;
	size_t n = 0;

	r = seed;
	nl = 2 + (uint32_t)t_below(&r, 14);
	nf = 1 + (uint32_t)t_below(&r, 30);
	for (i = 0; i < nl; i++)
		cap[i] = (double)(1 + t_below(&r, 100)) * 1e7;
	assert_int_equal(sim_net_init(&s, nl, cap), 0);
	for (i = 0; i < nf; i++)
		assert_int_equal(sim_timer(&s, (int64_t)t_below(&r, 50) * MS, i), 0);
	while (n < max && sim_next(&s, &ev) == 1) {
		log[n++] = ev;
		if (ev.kind != SIM_EV_TIMER)
			continue;
		h = 1 + (uint32_t)t_below(&r, nl < 4 ? nl : 4);
		for (k = 0; k < h; k++) /* distinct links: a shuffle's first h */
			path[k] = (uint32_t)((ev.cookie + k * 7 + t_below(&r, 2)) % nl);
		for (k = 1; k < h; k++)
			if (path[k] == path[k - 1])
				h = k;
		assert_true(sim_flow_start(&s, path, NULL, h, 1 + t_below(&r, 10000000),
					   ev.cookie) >= 0);
	}
	sim_net_done(&s);
	return n;
}

/* The same instance twice: the same events at the same times, byte for byte. */
static void test_deterministic(void **state)
{
	static struct sim_event a[200], b[200];
	size_t na, nb;
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 20; seed++) {
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		na = t_random_run(seed, a, 200);
		nb = t_random_run(seed, b, 200);
		assert_int_equal(na, nb);
		assert_memory_equal(a, b, sizeof(a));
	}
}

/* No link carries more than its capacity at the rates now. */
static void t_check_caps(const struct sim_net *s)
{
	uint32_t i;
	size_t k;

	for (i = 0; i < s->links.n; i++) {
		const struct sim_link *l = &s->links.v[i];
		double sum = 0;

		for (k = 0; k < l->flows.n; k++)
			sum += s->flows.v[l->flows.v[k]].rate;
		assert_true(!l->cap || sum <= l->cap * (1 + 1e-9));
	}
}

/* Max-min fairness of the rates now: no link over capacity, and every flow has a saturated
 * link on its path where no flow gets more than it (or it is unlimited everywhere). */
static void t_check_maxmin(const struct sim_net *s)
{
	uint32_t f, h;
	size_t k;

	t_check_caps(s);
	for (f = 0; f < s->flows.n; f++) {
		const struct sim_flow *fl = &s->flows.v[f];
		bool bottlenecked = false;

		for (h = 0; fl->active && h < fl->hops && !bottlenecked; h++) {
			const struct sim_link *l = &s->links.v[fl->path[h]];
			double sum = 0, top = 0;

			for (k = 0; k < l->flows.n; k++) {
				sum += s->flows.v[l->flows.v[k]].rate;
				top = fmax(top, s->flows.v[l->flows.v[k]].rate);
			}
			bottlenecked = sum >= l->cap * (1 - 1e-9) && fl->rate >= top * (1 - 1e-9);
		}
		assert_true(!fl->active || bottlenecked);
	}
}

/* Equal split: no link over capacity, and every flow gets the lowest of its links' capacity
 * over the flows there. */
static void t_check_equal(const struct sim_net *s)
{
	uint32_t f, h;

	t_check_caps(s);
	for (f = 0; f < s->flows.n; f++) {
		const struct sim_flow *fl = &s->flows.v[f];
		double want = INFINITY;

		for (h = 0; fl->active && h < fl->hops; h++)
			want = fmin(want, s->links.v[fl->path[h]].cap /
						  (double)s->links.v[fl->path[h]].flows.n);
		assert_true(!fl->active || fabs(fl->rate - want) <= want * 1e-12);
	}
}

/* Random instances, the rates checked after every event: `seeds` of them, each of 1 to
 * max_links links and 1 to max_flows flows over 1 to max_hops of them, a flow's links `step`
 * apart (1, or 1 to links / max_hops: scattered, never crossing a link twice). Under
 * share: max-min, or equal split (since each flow started or not); every flow ends once, and
 * never sooner than its bytes at the tightest capacity on its path. */
static void t_share_random(uint64_t seeds, uint32_t max_links, uint32_t max_flows,
			   uint32_t max_hops, bool scatter, enum sim_share share)
{
	int64_t soonest[256];
	double cap[64];
	uint32_t path[8], nl, nf, i, h, k, step;
	struct sim_net s;
	struct sim_event ev;
	uint64_t r, bytes;
	uint64_t seed;

	assert_true(max_flows <= 256);
	for (seed = 1; seed <= seeds; seed++) {
		r = seed * 7919;
		nl = 1 + (uint32_t)t_below(&r, max_links);
		nf = 1 + (uint32_t)t_below(&r, max_flows);
		for (i = 0; i < nl; i++)
			cap[i] = (double)(1 + t_below(&r, 1000)) * 1e6;
		assert_int_equal(sim_net_init(&s, nl, cap), 0);
		s.share = share;
		for (i = 0; i < nf; i++) {
			double tight = INFINITY;

			h = 1 + (uint32_t)t_below(&r, nl < max_hops ? nl : max_hops);
			step = scatter && nl / max_hops > 1
				       ? 1 + (uint32_t)t_below(&r, nl / max_hops)
				       : 1;
			path[0] = (uint32_t)t_below(&r, nl);
			for (k = 1; k < h; k++)
				path[k] = (path[k - 1] + step) % nl;
			bytes = 1 + t_below(&r, 1000000);
			for (k = 0; k < h; k++)
				tight = fmin(tight, cap[path[k]]);
			soonest[i] = (int64_t)floor((double)bytes * 8 / tight * 1e9);
			assert_true(sim_flow_start(&s, path, NULL, h, bytes, i) >= 0);
		}
		for (k = 0; sim_next(&s, &ev) == 1; k++) {
			assert_true(ev.kind == SIM_EV_FLOW_DONE && ev.t >= soonest[ev.cookie]);
			soonest[ev.cookie] = INT64_MAX; /* ends once */
			assert_int_equal(sim_net_settle(&s), 0); /* refill, then look */
			if (share == SIM_SHARE_MAXMIN)
				t_check_maxmin(&s);
			else
				t_check_equal(&s);
		}
		assert_int_equal(k, nf); /* every flow delivered exactly once */
		sim_net_done(&s);
	}
}

/* 500 small instances; then 40 of up to 64 links and 200 flows over up to 8 scattered links
 * each, where filling moves links' shares about in its heap many times per round. */
static void test_maxmin_property(void **state)
{
	(void)state;
	t_share_random(500, 12, 40, 4, false, SIM_SHARE_MAXMIN);
	t_share_random(40, 64, 200, 8, true, SIM_SHARE_MAXMIN);
}

/* The other sharing rules (run.sim_share) on the same random instances: links never over
 * capacity, every flow its tightest equal share, every flow ends once and no sooner than its
 * line rate allows. */
static void test_share_property(void **state)
{
	(void)state;
	t_share_random(300, 12, 40, 4, false, SIM_SHARE_EQUAL);
	t_share_random(20, 64, 200, 8, true, SIM_SHARE_EQUAL);
	t_share_random(300, 12, 40, 4, false, SIM_SHARE_EQUAL_SINCE_START);
	t_share_random(20, 64, 200, 8, true, SIM_SHARE_EQUAL_SINCE_START);
}

/* The parking lot with link 1 at 0.6 C under equal split: the long flow and link 1's short
 * flow get 0.3 C as under max-min, but what the long flow leaves on links 0 and 2 stays idle:
 * their short flows get C/2, not 0.7 C. */
static void test_share_equal(void **state)
{
	double cap[3] = {GBIT, 0.6 * GBIT, GBIT};
	uint32_t all[3] = {0, 1, 2}, k;
	struct sim_net s;

	(void)state;
	assert_int_equal(sim_net_init(&s, 3, cap), 0);
	s.share = SIM_SHARE_EQUAL;
	assert_int_equal(sim_flow_start(&s, all, NULL, 3, 1000000000, 0), 0);
	for (k = 0; k < 3; k++)
		assert_int_equal(sim_flow_start(&s, &all[k], NULL, 1, 1000000000, k + 1),
				 (int)k + 1);
	t_settle_rates(&s);
	assert_true(fabs(sim_flow_rate(&s, 0) - 0.3 * GBIT) < 1e-3);
	assert_true(fabs(sim_flow_rate(&s, 2) - 0.3 * GBIT) < 1e-3);
	assert_true(fabs(sim_flow_rate(&s, 1) - 0.5 * GBIT) < 1e-3);
	assert_true(fabs(sim_flow_rate(&s, 3) - 0.5 * GBIT) < 1e-3);
	sim_net_done(&s);
}

/* A (1 MB) alone on 1 Gbit/s from 0 would end at 8 ms; B (2 MB) joins at 6 ms.
 * Kept progress (max-min or equal split): A has 250 kB left at 0.5 Gbit/s, ends at 10 ms; B
 * sent 250 kB by then and ends 14 ms later, at 24 ms.
 * Since start: at 6 ms A is as far as 0.5 Gbit/s since 0 takes it (375 kB), 625 kB left: it
 * ends at 16 ms. B, alone again, is then as far as 1 Gbit/s for its 10 ms takes it (1.25 MB):
 * it ends 6 ms later, at 22 ms. */
static void t_join_late(enum sim_share share, int64_t a_end, int64_t b_end)
{
	double cap = GBIT;
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;

	assert_int_equal(sim_net_init(&s, 1, &cap), 0);
	s.share = share;
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 1), 0);
	assert_int_equal(sim_timer(&s, 6 * MS, 9), 0);
	ev = t_next(&s);
	assert_true(ev.kind == SIM_EV_TIMER && ev.t == 6 * MS);
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 2000000, 2), 1);
	ev = t_next(&s);
	assert_true(ev.cookie == 1 && ev.t == a_end);
	ev = t_next(&s);
	assert_true(ev.cookie == 2 && ev.t == b_end);
	assert_int_equal(sim_next(&s, &ev), 0);
	sim_net_done(&s);
}

static void test_share_since_start(void **state)
{
	(void)state;
	t_join_late(SIM_SHARE_MAXMIN, 10 * MS, 24 * MS);
	t_join_late(SIM_SHARE_EQUAL, 10 * MS, 24 * MS);
	t_join_late(SIM_SHARE_EQUAL_SINCE_START, 16 * MS, 22 * MS);
}

/* Flows alone on their links take the tightest one's share at once; a component mixes them
 * with flows that share. Links: 0 at 10, 1 at 4, 2 at 3, 3 at 5, 4 at 1 Gbit/s but down, 5 at
 * 2, 6 unlimited. A over 0 and 1: 4 Gbit/s. B over 2 and 3, half its bytes on 2: 2 fills at 6,
 * 3 at 5, so 5. C over 4: stalled. D over 5 and 6 and E over 5 share 5: 1 each. F over 6 (D's
 * too, unlimited): unlimited. */
static void test_alone(void **state)
{
	double cap[7] = {10 * GBIT, 4 * GBIT, 3 * GBIT, 5 * GBIT, GBIT, 2 * GBIT, 0};
	double w[2] = {0.5, 1};
	uint32_t a[2] = {0, 1}, b[2] = {2, 3}, c = 4, d[2] = {5, 6}, e = 5, f = 6;
	struct sim_net s;

	(void)state;
	assert_int_equal(sim_net_init(&s, 7, cap), 0);
	assert_int_equal(sim_link_set(&s, 4, false), 0);
	assert_int_equal(sim_flow_start(&s, a, NULL, 2, 1000000, 0), 0);
	assert_int_equal(sim_flow_start(&s, b, w, 2, 1000000, 1), 1);
	assert_int_equal(sim_flow_start(&s, &c, NULL, 1, 1000000, 2), 2);
	assert_int_equal(sim_flow_start(&s, d, NULL, 2, 1000000, 3), 3);
	assert_int_equal(sim_flow_start(&s, &e, NULL, 1, 1000000, 4), 4);
	assert_int_equal(sim_flow_start(&s, &f, NULL, 1, 1000000, 5), 5);
	t_settle_rates(&s);
	assert_true(sim_flow_rate(&s, 0) == 4 * GBIT);
	assert_true(sim_flow_rate(&s, 1) == 5 * GBIT);
	assert_true(sim_flow_rate(&s, 2) == 0);
	assert_true(sim_flow_rate(&s, 3) == GBIT && sim_flow_rate(&s, 4) == GBIT);
	assert_true(sim_flow_rate(&s, 5) > 1e17);
	sim_net_done(&s);
}

/* Refilling at most once per quantum: A (1 MB) and B (2 MB) share a 1 Gbit/s link from 0; A ends
 * at 16 ms, a timer at 17 ms starts C (1 MB). Exact: B and C share from 17 ms, B ends at 31 ms, C
 * at 32. With a 5 ms quantum (the last refill at 16 ms), C sends nothing and B keeps the link
 * until 21 ms, never more than its capacity; then they share: B ends at 27 ms (375 kB at
 * 0.5 Gbit/s), C at 32 (375 kB by 27 ms, 625 kB alone). The first refill is not deferred. */
static void t_quantum_run(int64_t quantum, int64_t b_end, int64_t c_end)
{
	double cap = GBIT;
	uint32_t path = 0;
	struct sim_net s;
	struct sim_event ev;

	assert_int_equal(sim_net_init(&s, 1, &cap), 0);
	s.quantum = quantum;
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 1), 0);
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 2000000, 2), 1);
	assert_int_equal(sim_timer(&s, 17 * MS, 9), 0);
	ev = t_next(&s);
	assert_true(ev.cookie == 1 && ev.t == 16 * MS);
	ev = t_next(&s);
	assert_true(ev.kind == SIM_EV_TIMER && ev.t == 17 * MS);
	assert_int_equal(sim_flow_start(&s, &path, NULL, 1, 1000000, 3), 0);
	ev = t_next(&s);
	assert_true(ev.cookie == 2 && ev.t == b_end);
	if (quantum)
		assert_true(sim_flow_rate(&s, 0) == GBIT / 2);
	assert_true(fabs(sim_link_bytes(&s, 0) - (3e6 + (double)(b_end - 17 * MS) / 2e9 * GBIT / 8 -
						  (quantum ? 4 * MS * GBIT / 2 / 1e9 / 8 : 0))) <
		    1);
	ev = t_next(&s);
	assert_true(ev.cookie == 3 && ev.t == c_end);
	assert_int_equal(sim_next(&s, &ev), 0);
	assert_true(fabs(sim_link_bytes(&s, 0) - 4e6) < 1e-6);
	sim_net_done(&s);
}

static void test_quantum(void **state)
{
	(void)state;
	t_quantum_run(0, 31 * MS, 32 * MS);
	t_quantum_run(5 * MS, 27 * MS, 32 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow),       cmocka_unit_test(test_equal_share),
		cmocka_unit_test(test_freed_capacity), cmocka_unit_test(test_parking_lot),
		cmocka_unit_test(test_split_flow),     cmocka_unit_test(test_alone),
		cmocka_unit_test(test_failure),	       cmocka_unit_test(test_incremental),
		cmocka_unit_test(test_deterministic),  cmocka_unit_test(test_maxmin_property),
		cmocka_unit_test(test_quantum),	       cmocka_unit_test(test_share_property),
		cmocka_unit_test(test_share_equal),    cmocka_unit_test(test_share_since_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
