// SPDX-License-Identifier: MIT
/* collect/metrics: every metric on hand-made records with known answers: job times and their
 * edge cases (never started, failed, cancelled), iterations and busbw, flows (zero-length,
 * incomplete), link utilization (counter restarts, backlog), totals and stability, empty
 * runs, the fidelity verdict reason by reason, and sweeps (one variant, seeds, baselines). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "collect/metrics.h"

#define S 1000000000LL /* ns per second */
#define T_EPS 1e-9

static void t_near(double got, double want)
{
	if (isnan(want) ? !isnan(got) : fabs(got - want) > T_EPS * fmax(1, fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}

static struct rec_job t_job(uint32_t id, const char *model, uint32_t gpus, int64_t arrival,
			    int64_t start, int64_t finish, enum rec_status st)
{
	struct rec_job j = {.id = id,
			    .gpus = gpus,
			    .arrival = arrival,
			    .start = start,
			    .finish = finish,
			    .status = st};

	snprintf(j.model, sizeof(j.model), "%s", model);
	return j;
}

struct t_times {
	struct rec_job j;
	int64_t jwt, jrt, jct;
	uint32_t flags;
};

static void test_job_times(void **state)
{
	const int64_t N = REC_NEVER, X = COL_NONE;
	const uint32_t C = COL_J_CENSORED, F = COL_J_FAILED;
	const struct t_times c[] = {
		{t_job(0, "m", 1, 1, 3, 10, REC_OK), 2, 7, 9, 0},
		{t_job(1, "m", 1, 5, N, N, REC_NOT_STARTED), 95, X, X, C}, /* run ends at 100 */
		{t_job(2, "m", 1, 0, 2, 6, REC_FAILED), 2, 4, 6, F},
		{t_job(3, "m", 1, 0, N, 4, REC_FAILED), 4, X, X, F},
		{t_job(4, "m", 1, 0, 1, 50, REC_CANCELLED), 1, 49, 50, C},
		{t_job(5, "m", 1, 0, 1, N, REC_CANCELLED), 1, 99, 100, C},
		{t_job(6, "m", 1, N, N, N, REC_NOT_STARTED), X, X, X, C},
		{t_job(7, "m", 1, 10, 20, N, REC_FAILED), 10, 80, 90, F | C},
		{t_job(8, "m", 1, 10, 20, N, REC_OK), 10, 80, 90, C},
		{t_job(9, "m", 1, 10, N, 30, REC_CANCELLED), 20, X, X, C},
	};
	struct col_job o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		col_job_times(&c[i].j, 100, &o);
		if (o.jwt != c[i].jwt || o.jrt != c[i].jrt || o.jct != c[i].jct ||
		    o.flags != c[i].flags || o.id != c[i].j.id)
			fail_msg("case %zu: jwt %lld jrt %lld jct %lld flags %u", i,
				 (long long)o.jwt, (long long)o.jrt, (long long)o.jct, o.flags);
	}
}

static void t_iter(struct rec_run *r, uint32_t job, uint32_t rank, uint32_t iter, int64_t a,
		   int64_t b, int64_t c)
{
	struct rec_iter i = {job, rank, iter, a, b, c};

	assert_int_equal(vec_push(&r->iters, i), 0);
}

static void t_build(struct rec_run *r, const struct col_links_cfg *lc, struct col_metrics *m)
{
	struct diag d = {0};

	if (col_metrics_build(r, lc, NULL, m, &d))
		fail_msg("build: %s", d.msg);
}

static void test_iterations(void **state)
{
	struct rec_run r = {.dilation = 1000, .t_end = 10 * S};
	struct rec_job j0 = t_job(5, "a", 2, 0, 0, 4000, REC_OK),
		       j1 = t_job(9, "b", 4, 0, 0, 1000, REC_OK);
	struct col_metrics m;
	const struct col_job *o;
	unsigned k;

	(void)state;
	j0.kind = COLL_ALLREDUCE;
	j0.bytes = 1000000000;
	j1.kind = COLL_ALLGATHER;
	j1.bytes = 4000;
	vec_push(&r.jobs, j1); /* not in id order */
	vec_push(&r.jobs, j0);
	t_iter(&r, 5, 1, 1, 2000, 2100, 3100);
	t_iter(&r, 5, 0, 0, 0, 100, 1100);
	t_iter(&r, 5, 1, 0, 0, 300, 1100);
	t_iter(&r, 5, 0, 1, 2000, 2100, 2900);
	t_iter(&r, 5, 1, 1, 2000, 2100, 3100); /* listed twice: counts once */
	t_iter(&r, 5, 0, 2, 4000, 4100, 4200); /* rank 1 missing: incomplete */
	t_iter(&r, 5, 1, 2, 4000, REC_NEVER, 4200);
	for (k = 0; k < 4; k++)
		t_iter(&r, 9, k, 0, 0, 0, 1000);
	t_iter(&r, 77, 0, 0, 0, 0, 1); /* a job without a record: a row, no job */
	t_build(&r, NULL, &m);

	assert_int_equal(m.iters.n, 5);
	assert_true(m.iters.v[0].job == 5 && m.iters.v[0].iter == 0 && m.iters.v[0].ranks == 2);
	assert_true(m.iters.v[0].iter_ns == 1100 && m.iters.v[0].compute_ns == 300);
	assert_true(m.iters.v[0].comm_ns == 800);
	t_near(m.iters.v[0].coll_ns, 900);
	assert_true(m.iters.v[1].ranks == 2 && m.iters.v[1].iter_ns == 1100);
	assert_true(m.iters.v[2].iter == 2 && m.iters.v[2].ranks == 1);
	assert_true(m.iters.v[4].job == 77);

	o = &m.jobs.v[1]; /* job 5 */
	assert_int_equal(o->iters, 2);
	t_near(o->iter_ns, 1100);
	t_near(o->compute_ns, 200);
	t_near(o->comm_ns, 900);
	t_near(o->coll_ns, 900);
	t_near(o->algbw, 1e9 / 900e-9);
	t_near(o->busbw, 1e9 / 900e-9 * 1.0); /* all-reduce, 2 ranks: 2(n-1)/n = 1 */
	o = &m.jobs.v[0]; /* job 9 */
	t_near(o->algbw, 4e9);
	t_near(o->busbw, 3e9); /* all-gather, 4 ranks: (n-1)/n */
	col_metrics_done(&m);
	/* shard-rings, 2 shards per replica: each buffer is all-reduced by a ring of 2 of the 4
	 * ranks, so n is 2 (2(n-1)/n = 1), not the job's 4 (1.5, over what the links carry) */
	r.jobs.v[0].kind = COLL_ALLREDUCE, r.jobs.v[0].algo = COLL_SHARD_RINGS;
	r.jobs.v[0].group = 2;
	t_build(&r, NULL, &m);
	t_near(m.jobs.v[0].busbw, 4e9 * 1.0);
	col_metrics_done(&m);
	rec_run_done(&r);
}

static void t_flow(struct rec_run *r, uint64_t bytes, int64_t start, int64_t end)
{
	struct rec_flow f = {.bytes = bytes, .t_start = start, .t_end = end};

	assert_int_equal(vec_push(&r->flows, f), 0);
}

static void test_flows(void **state)
{
	struct rec_run r = {.dilation = 2, .t_end = S};
	struct col_flows f;
	double tput = 0;
	int k;

	(void)state;
	for (k = 100; k >= 1; k--) {
		t_flow(&r, 1000, 5, 5 + k * 1000);
		tput += 1000 / (k * 1e-6);
	}
	assert_int_equal(col_flows_build(&r, &f), 0);
	assert_true(f.count == 100 && f.complete == 100 && f.zero_len == 0 && f.tput_count == 100);
	t_near(f.fct_p50, 50000);
	t_near(f.fct_p99, 99000);
	t_near(f.fct_mean, 50500);
	t_near(f.fct_max, 100000);
	t_near(f.tput_mean, tput / 100);
	rec_run_done(&r);
}

static void test_flows_zero(void **state)
{
	struct rec_run r = {.dilation = 1};
	struct col_flows f;
	struct rec_flow z = {.bytes = 0, .t_start = 7, .t_end = 7};

	(void)state;
	assert_int_equal(col_flows_build(&r, &f), 0); /* no flows */
	assert_true(f.count == 0 && isnan(f.fct_p50) && isnan(f.tput_mean));
	t_flow(&r, 0, 0, 10); /* zero-length */
	t_flow(&r, 0, 5, 5); /* zero-length, zero time */
	t_flow(&r, 100, 3, 3); /* zero time: no throughput */
	t_flow(&r, 100, 0, 100); /* 1e9 B/s */
	t_flow(&r, 100, 0, REC_NEVER); /* never arrived */
	assert_int_equal(col_flows_build(&r, &f), 0);
	assert_true(f.count == 5 && f.complete == 4 && f.zero_len == 2 && f.tput_count == 1);
	t_near(f.tput_mean, 1e9);
	t_near(f.fct_max, 100);
	assert_true(col_flow_fct(&z) == 0 && isnan(col_flow_tput(&z)));
	assert_true(col_flow_fct(&r.flows.v[4]) == COL_NONE && isnan(col_flow_tput(&r.flows.v[4])));
	rec_run_done(&r);
}

static void test_percentile(void **state)
{
	const int64_t v[] = {10, 20, 30, 40};

	(void)state;
	assert_true(isnan(col_percentile(v, 0, 0.5)));
	t_near(col_percentile(v, 1, 0.99), 10);
	t_near(col_percentile(v, 4, 0.5), 20); /* rank ceil(2) */
	t_near(col_percentile(v, 4, 0.51), 30); /* rank ceil(2.04) */
	t_near(col_percentile(v, 4, 0), 10);
	t_near(col_percentile(v, 4, 1), 40);
}

static void t_sample(struct rec_run *r, int64_t t, uint32_t link, uint32_t dir, uint64_t bytes,
		     uint64_t drops, uint64_t backlog)
{
	struct rec_sample s = {t, link, dir, bytes, bytes / 1000, drops, backlog};

	assert_int_equal(vec_push(&r->samples, s), 0);
}

static const uint64_t t_rates[] = {1000000000, 0, 1000000000, 1000000000};
static const uint8_t t_shaped[] = {1, 1, 0, 1};

/* link 0 dir 0 at 1 Gbit/s: 100 Mbit, 50 Mbit, then a counter restart and 50 Mbit, with more
 * than one GSO packet queued from 100 ms on; link 1 dir 0 with one GSO packet queued (64 KiB)
 * at both of its samples, which is a packet being sent, not a backlog. */
static void t_link_run(struct rec_run *r)
{
	const int64_t ms = 1000000;

	t_sample(r, 300 * ms, 0, 0, 6250000, 2, 70000);
	t_sample(r, 0, 0, 0, 0, 0, 0);
	t_sample(r, 0, 0, 1, 0, 0, 0);
	t_sample(r, 100 * ms, 0, 0, 12500000, 5, 70000);
	t_sample(r, 100 * ms, 0, 1, 1000, 0, 0);
	t_sample(r, 200 * ms, 0, 0, 18750000, 5, 70000);
	t_sample(r, 0, 1, 0, 0, 10, 65536);
	t_sample(r, 100 * ms, 1, 0, 0, 13, 65536);
	t_sample(r, REC_NEVER, 1, 0, 99, 99, 99); /* never taken: ignored */
}

static void test_links(void **state)
{
	struct col_links_cfg lc = {2, t_rates, t_shaped, NULL};
	struct rec_run r = {.dilation = 1, .t_end = S};
	struct col_metrics m;
	const struct col_link *l;

	(void)state;
	t_link_run(&r);
	t_build(&r, &lc, &m);
	assert_int_equal(m.links.n, 3);
	l = &m.links.v[0];
	assert_true(l->link == 0 && l->dir == 0 && l->samples == 4 && l->shaped);
	assert_true(l->span_ns == 300000000 && l->tx_bytes == 25000000 && l->drops == 7);
	t_near(l->util_mean, 2.0 / 3);
	t_near(l->util_peak, 1.0);
	assert_true(l->bl_intervals == 2 && l->bl_ns == 200000000);
	t_near(l->bl_util, 0.5);
	l = &m.links.v[1];
	assert_true(l->dir == 1 && l->rate_bps == 0 && l->tx_bytes == 1000);
	assert_true(isnan(l->util_mean) && isnan(l->util_peak) && isnan(l->bl_util));
	l = &m.links.v[2];
	assert_true(l->link == 1 && !l->shaped && l->drops == 3 && l->samples == 2);
	assert_int_equal(l->bl_intervals, 0);
	t_near(l->util_mean, 0);
	t_near(m.totals.util_mean, 1.0 / 3); /* (2/3 + 0) / 2; dir 1 has no rate */
	t_near(m.totals.util_peak, 1.0);
	assert_int_equal(m.totals.drops, 10);
	col_metrics_done(&m);
	rec_run_done(&r);
}

static void test_link_series(void **state)
{
	struct col_links_cfg lc = {2, t_rates, t_shaped, NULL};
	struct rec_run r = {.dilation = 1};
	struct col_series s = {0};
	struct diag d = {0};

	(void)state;
	t_link_run(&r);
	assert_int_equal(col_util_series(&r, &lc, &s, &d), 0);
	assert_int_equal(s.v.n, 4); /* 3 intervals of link 0 dir 0, 1 of link 1; dir 1 no rate */
	t_near(s.v.v[0].util, 1.0);
	t_near(s.v.v[1].util, 0.5);
	assert_true(s.v.v[2].t == 300000000 && s.v.v[2].dt == 100000000);
	assert_true(s.v.v[3].link == 1);
	col_series_done(&s);
	col_series_done(NULL);
	rec_run_done(&r);
}

static void test_link_errors(void **state)
{
	struct col_links_cfg lc = {1, t_rates, NULL, NULL};
	struct rec_run r = {.dilation = 1};
	struct col_metrics m;
	struct diag d = {0};

	(void)state;
	t_sample(&r, 0, 1, 0, 0, 0, 0);
	assert_int_equal(col_metrics_build(&r, &lc, NULL, &m, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "link 1"));
	r.samples.v[0].link = 0;
	r.samples.v[0].dir = 2;
	diag_clear(&d);
	assert_int_equal(col_metrics_build(&r, &lc, NULL, &m, &d), -EINVAL);
	r.samples.v[0].dir = 1;
	assert_int_equal(col_metrics_build(&r, &lc, NULL, &m, &d), 0);
	assert_true(m.links.v[0].shaped); /* no shaped array: every direction is shaped */
	col_metrics_done(&m);
	r.dilation = 0;
	diag_clear(&d);
	assert_int_equal(col_metrics_build(&r, NULL, NULL, &m, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "dilation"));
	r.dilation = 1;
	vec_push(&r.jobs, t_job(4, "m", 1, 0, 0, 1, REC_OK));
	vec_push(&r.jobs, t_job(4, "m", 1, 0, 0, 1, REC_OK));
	diag_clear(&d);
	assert_int_equal(col_metrics_build(&r, NULL, NULL, &m, &d), -EINVAL);
	assert_non_null(strstr(d.msg, "twice"));
	rec_run_done(&r);
}

static void test_totals(void **state)
{
	struct rec_run r = {.dilation = 1000, .t_end = 100 * S};
	struct col_metrics m;
	const struct col_totals *t = &m.totals;

	(void)state;
	vec_push(&r.jobs, t_job(0, "gpt3", 8, 0, 0, 1 * S, REC_OK)); /* class A: JCT 1, 3 */
	vec_push(&r.jobs, t_job(1, "gpt3", 8, 0, 1 * S, 3 * S, REC_OK));
	vec_push(&r.jobs, t_job(2, "gpt3", 16, 0, 0, 2 * S, REC_OK)); /* class B: JCT 2, 6 */
	vec_push(&r.jobs, t_job(3, "gpt3", 16, 0, 2 * S, 6 * S, REC_OK));
	vec_push(&r.jobs, t_job(4, "bert", 8, 0, 0, 9 * S, REC_OK)); /* alone: no std */
	vec_push(&r.jobs, t_job(5, "gpt3", 8, 0, 4 * S, 90 * S, REC_FAILED));
	vec_push(&r.jobs, t_job(6, "gpt3", 8, 50 * S, REC_NEVER, REC_NEVER, REC_NOT_STARTED));
	vec_push(&r.jobs, t_job(7, "gpt3", 8, 0, 10 * S, 20 * S, REC_CANCELLED));
	t_build(&r, NULL, &m);
	assert_true(t->jobs == 8 && t->ok == 5 && t->failed == 1 && t->not_started == 1);
	assert_true(t->cancelled == 1 && t->censored == 2);
	assert_true(t->n_jwt == 7 && t->n_jrt == 5);
	t_near(t->avg_jwt, (0 + 1 + 0 + 2 + 0 + 4 + 10) * 1e9 / 7);
	t_near(t->avg_jrt, (1 + 2 + 2 + 4 + 9) * 1e9 / 5);
	t_near(t->avg_jct, (1 + 3 + 2 + 6 + 9) * 1e9 / 5);
	t_near(t->stability, 1.5e9);
	assert_int_equal(t->stability_classes, 2);
	t_near(col_paper_s(&m, t->stability), 1.5e-3);
	assert_true(isnan(t->busbw_mean) && isnan(t->util_mean));
	assert_false(m.fid.degraded);
	col_metrics_done(&m);
	rec_run_done(&r);
}

static void test_empty_run(void **state)
{
	struct rec_run r = {.dilation = 1, .t_end = 0};
	struct col_metrics m;

	(void)state;
	t_build(&r, NULL, &m);
	assert_true(m.jobs.n == 0 && m.iters.n == 0 && m.links.n == 0);
	assert_true(m.totals.jobs == 0 && isnan(m.totals.avg_jct) && isnan(m.totals.stability));
	assert_true(m.flows.count == 0 && isnan(m.flows.fct_p99));
	assert_true(!m.fid.degraded && m.fid.cpu_samples == 0 && isnan(m.fid.busy_mean));
	col_metrics_done(&m);
	col_metrics_done(NULL);
}

static void t_cpu(struct rec_run *r, unsigned n, unsigned hot, double busy, double soft)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		struct rec_cpu c = {i, i < hot ? busy : 0.3, i < hot ? soft : 0.1, 0, 0.01};

		vec_push(&r->cpu, c);
	}
}

static void t_judge(const struct rec_run *r, const struct col_link *l, size_t n,
		    const struct col_fid_cfg *c, struct col_fidelity *f)
{
	struct col_fid_cfg def;

	col_fid_cfg_default(&def);
	col_fid_done(f);
	assert_int_equal(col_fid_judge(r, l, n, c ? c : &def, f), 0);
}

static void test_fid_cpu(void **state)
{
	struct rec_run r = {.dilation = 1};
	struct col_fidelity f = {0};
	struct col_fid_cfg c;

	(void)state;
	t_cpu(&r, 20, 1, 0.9, 0.1); /* 5% of the samples: allowed */
	t_judge(&r, NULL, 0, NULL, &f);
	assert_false(f.degraded);
	assert_int_equal(f.cpu_samples, 20);
	t_near(f.busy_share, 0.05);
	t_near(f.busy_peak, 0.9);
	t_near(f.busy_mean, (0.9 + 19 * 0.3) / 20);
	t_near(f.self_mean, 0.01); /* the testbed's own share, recorded, not judged */
	t_near(f.self_peak, 0.01);
	vec_free(&r.cpu);
	t_cpu(&r, 20, 2, 0.66, 0.1); /* 10% above 65%: degraded */
	t_judge(&r, NULL, 0, NULL, &f);
	assert_true(f.degraded && f.reasons.n == 1);
	assert_int_equal(f.reasons.v[0].kind, COL_FID_CPU_BUSY);
	t_near(f.reasons.v[0].value, 0.1);
	vec_free(&r.cpu);
	t_cpu(&r, 20, 2, 0.6, 0.55); /* softirq above half: degraded on softirq alone */
	t_judge(&r, NULL, 0, NULL, &f);
	assert_true(f.degraded && f.reasons.n == 1);
	assert_int_equal(f.reasons.v[0].kind, COL_FID_CPU_SOFTIRQ);
	col_fid_cfg_default(&c);
	c.cpu_softirq_max = 0.6; /* thresholds are parameters */
	t_judge(&r, NULL, 0, &c, &f);
	assert_false(f.degraded);
	r.cpu.v[0].busy = NAN; /* an unmeasured interval is skipped */
	t_judge(&r, NULL, 0, &c, &f);
	assert_int_equal(f.cpu_samples, 19);
	col_fid_done(&f);
	rec_run_done(&r);
}

/* Packets the CPUs' input backlogs dropped: summed over the intervals that know them, and
 * any at all (COL_FID_BACKLOG_DROPS) makes the run degraded, on the CPU; unknown everywhere
 * (a folder from before the column) judges nothing. */
static void test_fid_backlog(void **state)
{
	struct rec_run r = {.dilation = 1};
	struct col_fidelity f = {0};
	struct col_fid_cfg c;
	char text[160], causes[64];
	unsigned i;

	(void)state;
	t_cpu(&r, 10, 0, 0, 0);
	t_judge(&r, NULL, 0, NULL, &f);
	assert_false(f.degraded);
	assert_int_equal(f.backlog_drops, 0);
	r.cpu.v[3].backlog_drops = 7;
	r.cpu.v[4].backlog_drops = REC_NEVER; /* an interval whose reading failed */
	r.cpu.v[8].backlog_drops = 5;
	t_judge(&r, NULL, 0, NULL, &f);
	assert_true(f.degraded && f.reasons.n == 1);
	assert_int_equal(f.backlog_drops, 12);
	assert_int_equal(f.reasons.v[0].kind, COL_FID_CPU_BACKLOG);
	t_near(f.reasons.v[0].value, 12);
	assert_string_equal(col_fid_kind_name(COL_FID_CPU_BACKLOG), "cpu_backlog");
	assert_string_equal(col_fid_kind_cause(COL_FID_CPU_BACKLOG), "cpu");
	assert_true(col_fid_machine(&f));
	col_fid_causes(causes, sizeof(causes), &f);
	assert_string_equal(causes, "cpu");
	col_fid_reason_text(text, sizeof(text), &f.reasons.v[0]);
	assert_string_equal(text, "the CPUs' input backlogs dropped 12 packets "
				  "(net.core.netdev_max_backlog; limit 0)");
	col_fid_cfg_default(&c);
	c.backlog_drops = 12; /* a parameter too */
	t_judge(&r, NULL, 0, &c, &f);
	assert_false(f.degraded);
	for (i = 0; i < r.cpu.n; i++)
		r.cpu.v[i].backlog_drops = REC_NEVER;
	t_judge(&r, NULL, 0, NULL, &f);
	assert_false(f.degraded);
	assert_int_equal(f.backlog_drops, REC_NEVER);
	col_fid_done(&f);
	rec_run_done(&r);
}

static struct col_link t_link(bool shaped, uint64_t drops, uint32_t bl_n, double bl_util)
{
	return (struct col_link){.link = 4,
				 .dir = 1,
				 .rate_bps = 1000000,
				 .shaped = shaped,
				 .drops = drops,
				 .bl_intervals = bl_n,
				 .bl_ns = bl_n * 100000000LL,
				 .bl_util = bl_util};
}

static void test_fid_links(void **state)
{
	struct rec_run r = {.dilation = 1};
	struct col_fidelity f = {0};
	struct col_link l[2];
	char text[256];

	(void)state;
	l[0] = t_link(true, 50, 0, NAN); /* drops on a shaped hop: that is the emulation */
	l[1] = t_link(false, 0, 0, NAN);
	t_judge(&r, l, 2, NULL, &f);
	assert_false(f.degraded);
	l[1].drops = 1;
	t_judge(&r, l, 2, NULL, &f);
	assert_true(f.degraded && f.reasons.n == 1);
	assert_int_equal(f.reasons.v[0].kind, COL_FID_UNSHAPED_DROP);
	assert_true(f.reasons.v[0].link == 4 && f.reasons.v[0].dir == 1);
	col_fid_reason_text(text, sizeof(text), &f.reasons.v[0]);
	assert_string_equal(text, "link 4 dir 1: 1 drops on an unshaped hop (limit 0)");

	l[1] = t_link(true, 0, 3, 0.5); /* backlogged 3 intervals at half rate */
	t_judge(&r, l, 2, NULL, &f);
	assert_true(f.degraded && f.reasons.n == 1);
	assert_int_equal(f.reasons.v[0].kind, COL_FID_BACKLOG_SLOW);
	t_near(f.reasons.v[0].level, 0.3);
	l[1] = t_link(true, 0, 2, 0.5); /* too short to judge */
	t_judge(&r, l, 2, NULL, &f);
	assert_false(f.degraded);
	l[1] = t_link(true, 0, 30, 0.9); /* backlogged and at rate */
	t_judge(&r, l, 2, NULL, &f);
	assert_false(f.degraded);
	col_fid_done(&f);
	assert_string_equal(col_fid_kind_name(COL_FID_BACKLOG_SLOW), "backlog_slow");
}

static struct col_sweep_run t_srun(uint32_t variant, uint64_t seed, double jct)
{
	struct col_sweep_run s = {variant, seed, {0}, 0};
	unsigned k;

	for (k = 0; k < COL_M_N; k++)
		s.v[k] = NAN;
	s.v[COL_M_AVG_JCT] = jct;
	return s;
}

static void test_sweep(void **state)
{
	const struct col_sweep_run one[] = {t_srun(0, 1, 4), t_srun(0, 2, 6)};
	const struct col_sweep_run two[] = {
		t_srun(1, 1, 2),   t_srun(0, 1, 4),  t_srun(0, 2, 8),
		t_srun(1, 2, 6),   t_srun(1, 3, 15), /* seed 3: not in the baseline, against its
							mean 6 */
		t_srun(2, 1, NAN),
	};
	struct col_sweep s;
	const struct col_sweep_cell *c;
	struct diag d = {0};

	(void)state;
	assert_int_equal(col_sweep_build(one, 2, &s, &d), 0);
	assert_int_equal(s.variants, 1);
	c = col_sweep_cell(&s, 0, COL_M_AVG_JCT);
	assert_true(c->n == 2 && c->mean == 1 && c->min == 1 && c->max == 1);
	t_near(c->value, 5);
	c = col_sweep_cell(&s, 0, COL_M_AVG_JWT);
	assert_true(c->n == 0 && c->nv == 0 && isnan(c->mean) && isnan(c->value));
	assert_null(col_sweep_cell(&s, 1, COL_M_AVG_JCT));
	col_sweep_done(&s);

	assert_int_equal(col_sweep_build(two, 6, &s, &d), 0);
	assert_int_equal(s.variants, 3);
	c = col_sweep_cell(&s, 1, COL_M_AVG_JCT);
	assert_int_equal(c->n, 3);
	t_near(c->mean, (0.5 + 0.75 + 2.5) / 3);
	t_near(c->min, 0.5);
	t_near(c->max, 2.5);
	c = col_sweep_cell(&s, 2, COL_M_AVG_JCT);
	assert_true(c->n == 0 && isnan(c->mean));
	col_sweep_done(&s);

	assert_int_equal(col_sweep_build(two, 1, &s, &d), -EINVAL); /* no baseline */
	assert_non_null(strstr(d.msg, "baseline"));
	col_sweep_done(&s);
	assert_string_equal(col_metric_name(COL_M_FCT_P99), "fct_p99");
}

static void test_sweep_zero_baseline(void **state)
{
	const struct col_sweep_run runs[] = {t_srun(0, 1, 0), t_srun(1, 1, 3)};
	struct col_sweep s;

	(void)state;
	assert_int_equal(col_sweep_build(runs, 2, &s, NULL), 0);
	assert_true(col_sweep_cell(&s, 1, COL_M_AVG_JCT)->n == 0); /* no ratio to 0 */
	t_near(col_sweep_cell(&s, 1, COL_M_AVG_JCT)->value, 3);
	col_sweep_done(&s);
}

static void test_metric_values(void **state)
{
	struct rec_run r = {.dilation = 100, .t_end = 10 * S};
	struct col_metrics m;
	double v[COL_M_N];

	(void)state;
	vec_push(&r.jobs, t_job(0, "m", 1, 0, 1 * S, 3 * S, REC_OK));
	vec_push(&r.jobs, t_job(1, "n", 1, 0, 1 * S, 3 * S, REC_OK)); /* another class */
	/* job 0: 1 s and 3 s of communication after 1 s of compute; job 1: 2 s */
	t_iter(&r, 0, 0, 0, 0, 1 * S, 2 * S);
	t_iter(&r, 0, 0, 1, 2 * S, 3 * S, 6 * S);
	t_iter(&r, 1, 0, 0, 0, 1 * S, 3 * S);
	t_build(&r, NULL, &m);
	col_metric_values(&m, v);
	t_near(v[COL_M_AVG_JWT], 0.01);
	t_near(v[COL_M_AVG_JCT], 0.03);
	t_near(v[COL_M_AVG_COMM], 0.02); /* (2 s + 2 s) / 2 jobs, D = 100 */
	assert_true(isnan(v[COL_M_STABILITY]) && isnan(v[COL_M_FCT_P50]));
	col_metrics_done(&m);
	rec_run_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_times),
		cmocka_unit_test(test_iterations),
		cmocka_unit_test(test_flows),
		cmocka_unit_test(test_flows_zero),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_link_series),
		cmocka_unit_test(test_link_errors),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_empty_run),
		cmocka_unit_test(test_fid_backlog),
		cmocka_unit_test(test_fid_cpu),
		cmocka_unit_test(test_fid_links),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_sweep_zero_baseline),
		cmocka_unit_test(test_metric_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
