// SPDX-License-Identifier: MIT
/* When the virtual-time backend samples its link counters (sim/bins.h): by default between
 * 100 and 200 bins for runs of 150 ns, 6.5 ms (Themis's all-reduce) and ten hours (vClos's
 * cluster), never more than 202 samples held, the samples kept where they were taken with
 * their own counters; a scenario's run.sample_interval wins, even with few bins; 0 samples
 * only the start and the end; a fixed interval doubles past its bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim/bins.h"

#define PORTS 3
#define US 1000LL
#define MS 1000000LL
#define HOUR (3600LL * 1000000000LL)

/* A sample at t whose counters are t * 10 + port: each row says when it was taken. */
static void t_take(struct sim_bins *b, int64_t t)
{
	uint64_t *row = sim_bins_add(b, t);
	uint32_t p;

	assert_non_null(row);
	for (p = 0; p < PORTS; p++)
		row[p] = (uint64_t)t * 10 + p;
}

/* A run of len ns as the backend runs one: the baseline, every sample when due, the end.
 * Returns the bins (intervals between samples); checks the samples on the way. */
static size_t t_run(struct sim_bins *b, int64_t len)
{
	size_t i, most = 0;
	uint32_t p;

	t_take(b, 0);
	while (b->next <= len) {
		int64_t at = b->next;

		t_take(b, at);
		sim_bins_due(b, at);
		assert_true(b->next > at);
		most = b->t.n > most ? b->t.n : most;
	}
	if (b->t.v[b->t.n - 1] != len)
		t_take(b, len);
	assert_true(most <= 2 * SIM_BINS_MIN + 1); /* bounded, whatever the length */
	for (i = 0; i < b->t.n; i++) {
		for (p = 0; p < PORTS; p++) /* halving moved each row with its time */
			assert_int_equal(sim_bins_row(b, i)[p], (uint64_t)b->t.v[i] * 10 + p);
		if (i && i + 1 < b->t.n) /* even bins but the last, which the end cuts short */
			assert_int_equal(b->t.v[i] - b->t.v[i - 1], b->width);
	}
	assert_int_equal(b->bytes.n, b->t.n * PORTS);
	return b->t.n - 1;
}

static void test_auto_any_length(void **state)
{
	static const int64_t len[] = {150, 6488 * US, 10 * HOUR, 200 * MS + 1};
	struct sim_bins b;
	size_t i, bins;

	(void)state;
	for (i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
		sim_bins_init(&b, PORTS, SIM_BINS_AUTO, 0);
		bins = t_run(&b, len[i]);
		assert_true(bins >= SIM_BINS_MIN);
		assert_true(bins <= 2 * SIM_BINS_MIN);
		assert_int_equal(b.t.v[0], 0);
		assert_int_equal(b.t.v[b.t.n - 1], len[i]);
		sim_bins_done(&b);
	}
	/* 6.488 ms: halved 15 times, at 3.28 ms last, into 32.8 us bins (2^15 ns): 197 and the
	 * rest */
	sim_bins_init(&b, PORTS, SIM_BINS_AUTO, 0);
	assert_int_equal(t_run(&b, 6488 * US), 198);
	assert_int_equal(b.width, 32768);
	sim_bins_done(&b);
}

/* run.sample_interval wins: 1 ms over 6.5 ms is 7 bins (6 of 1 ms and the rest). */
static void test_fixed_wins(void **state)
{
	struct sim_bins b;

	(void)state;
	sim_bins_init(&b, PORTS, 1 * MS, 1000 * PORTS);
	assert_int_equal(t_run(&b, 6500 * US), 7);
	assert_int_equal(b.width, 1 * MS);
	assert_int_equal(b.t.v[6], 6 * MS);
	sim_bins_done(&b);
	sim_bins_init(&b, PORTS, 100 * MS,
		      1000 * PORTS); /* longer than the run: one bin, as asked */
	assert_int_equal(t_run(&b, 6500 * US), 1);
	sim_bins_done(&b);
	sim_bins_init(&b, PORTS, 0, 1000 * PORTS); /* 0: the start and the end only */
	assert_int_equal(b.next, INT64_MAX);
	assert_int_equal(t_run(&b, HOUR), 1);
	sim_bins_done(&b);
}

/* A fixed interval past its bound (the counters of 10 samples) doubles at each sample: the
 * start and 10 at 1 ms, then 2, 4, 8 ms... */
static void test_fixed_bound(void **state)
{
	struct sim_bins b;

	(void)state;
	sim_bins_init(&b, PORTS, 1 * MS, 10 * PORTS);
	t_take(&b, 0);
	while (b.next <= HOUR) {
		int64_t at = b.next;

		t_take(&b, at);
		sim_bins_due(&b, at);
	}
	assert_true(b.t.n < 60); /* 10 + log2(1 h / 1 ms) + 1 */
	assert_int_equal(b.t.v[10], 10 * MS); /* none dropped */
	assert_int_equal(b.t.v[11] - b.t.v[10], 2 * MS);
	assert_int_equal(b.t.v[12] - b.t.v[11], 4 * MS);
	sim_bins_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_any_length),
		cmocka_unit_test(test_fixed_wins),
		cmocka_unit_test(test_fixed_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
