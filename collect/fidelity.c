// SPDX-License-Identifier: MIT
/* The fidelity verdict (after Mininet-HiFi's ">= 35% idle CPU every second", Handigol et al.,
 * CoNEXT 2012): degraded when the machine, not the emulated network, was the bottleneck.
 * Thresholds: metrics.h; their reasons: docs/results.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "collect/metrics.h"

static const char *const kinds[] = {
	[COL_FID_CPU_BUSY] = "cpu_busy",
	[COL_FID_CPU_SOFTIRQ] = "cpu_softirq",
	[COL_FID_UNSHAPED_DROP] = "unshaped_drops",
	[COL_FID_BACKLOG_SLOW] = "backlog_slow",
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

const char *col_fid_kind_name(enum col_fid_kind k)
{
	return (unsigned)k < N_KINDS ? kinds[k] : "?";
}

void col_fid_cfg_default(struct col_fid_cfg *c)
{
	*c = (struct col_fid_cfg){
		.cpu_busy_max = COL_FID_CPU_BUSY_MAX,
		.cpu_softirq_max = COL_FID_CPU_SOFTIRQ_MAX,
		.cpu_hot_share = COL_FID_CPU_HOT_SHARE,
		.unshaped_drops = COL_FID_UNSHAPED_DROPS,
		.bl_util_min = COL_FID_BL_UTIL_MIN,
		.bl_min_intervals = COL_FID_BL_MIN_INTERVALS,
	};
}

static int add(struct col_fidelity *f, enum col_fid_kind k, const struct col_link *l, double value,
	       double limit, double level)
{
	struct col_fid_reason r = {k, l ? l->link : 0, l ? l->dir : 0, value, limit, level};

	f->degraded = true;
	return vec_push(&f->reasons, r);
}

static void peak(double *p, double v)
{
	if (isnan(*p) || v > *p)
		*p = v;
}

static void cpu_stats(const struct rec_run *r, const struct col_fid_cfg *c, struct col_fidelity *f)
{
	double busy = 0, soft = 0, hot_busy = 0, hot_soft = 0;
	const struct rec_cpu *s;

	f->busy_mean = f->busy_peak = f->softirq_mean = f->softirq_peak = NAN;
	f->busy_share = f->softirq_share = NAN;
	vec_for_each (&r->cpu, s) {
		if (!isfinite(s->busy) || !isfinite(s->softirq))
			continue; /* an interval the sampler could not measure */
		f->cpu_samples++;
		busy += s->busy;
		soft += s->softirq;
		hot_busy += s->busy > c->cpu_busy_max;
		hot_soft += s->softirq > c->cpu_softirq_max;
		peak(&f->busy_peak, s->busy);
		peak(&f->softirq_peak, s->softirq);
	}
	if (!f->cpu_samples)
		return;
	f->busy_mean = busy / f->cpu_samples;
	f->softirq_mean = soft / f->cpu_samples;
	f->busy_share = hot_busy / f->cpu_samples;
	f->softirq_share = hot_soft / f->cpu_samples;
}

static int cpu_judge(const struct col_fid_cfg *c, struct col_fidelity *f)
{
	int err = 0;

	if (f->cpu_samples && f->busy_share > c->cpu_hot_share)
		err = add(f, COL_FID_CPU_BUSY, NULL, f->busy_share, c->cpu_hot_share,
			  c->cpu_busy_max);
	if (!err && f->cpu_samples && f->softirq_share > c->cpu_hot_share)
		err = add(f, COL_FID_CPU_SOFTIRQ, NULL, f->softirq_share, c->cpu_hot_share,
			  c->cpu_softirq_max);
	return err;
}

static int link_judge(const struct col_link *l, const struct col_fid_cfg *c, struct col_fidelity *f)
{
	int err = 0;

	if (!l->shaped && l->drops > c->unshaped_drops)
		err = add(f, COL_FID_UNSHAPED_DROP, l, (double)l->drops, (double)c->unshaped_drops,
			  0);
	/* An endpoint's NIC queue is fed by its own TCP in whole GSO packets (up to 64 KiB, which
	 * TSQ lets wait for the shaper): at 100 Mbit/s one takes 5 ms to drain, so the queue is
	 * caught non-empty at many sampling instants while its flow is limited elsewhere
	 * (measured: 50% of the rate, "backlogged" in a third of the intervals). Only queues
	 * the network feeds say that a hop could not keep up. */
	if (!err && !l->endpoint && l->bl_intervals && l->bl_intervals >= c->bl_min_intervals &&
	    l->bl_util < c->bl_util_min)
		err = add(f, COL_FID_BACKLOG_SLOW, l, l->bl_util, c->bl_util_min,
			  (double)l->bl_ns / 1e9);
	return err;
}

int col_fid_judge(const struct rec_run *r, const struct col_link *links, size_t n,
		  const struct col_fid_cfg *c, struct col_fidelity *out)
{
	size_t i;
	int err;

	*out = (struct col_fidelity){0};
	cpu_stats(r, c, out);
	err = cpu_judge(c, out);
	for (i = 0; !err && i < n; i++)
		err = link_judge(&links[i], c, out);
	return err;
}

void col_fid_done(struct col_fidelity *f)
{
	if (f)
		vec_free(&f->reasons);
}

int col_fid_reason_text(char *buf, size_t len, const struct col_fid_reason *r)
{
	switch (r->kind) {
	case COL_FID_CPU_BUSY:
		return snprintf(buf, len,
				"CPU busier than %.0f%% in %.1f%% of the samples (limit %.1f%%)",
				100 * r->level, 100 * r->value, 100 * r->limit);
	case COL_FID_CPU_SOFTIRQ:
		return snprintf(buf, len,
				"softirq above %.0f%% of the CPU time in %.1f%% of the samples "
				"(limit %.1f%%)",
				100 * r->level, 100 * r->value, 100 * r->limit);
	case COL_FID_UNSHAPED_DROP:
		return snprintf(buf, len,
				"link %u dir %u: %.0f drops on an unshaped hop (limit %.0f)",
				r->link, r->dir, r->value, r->limit);
	case COL_FID_BACKLOG_SLOW:
		return snprintf(buf, len,
				"link %u dir %u: backlogged for %.2f s yet at %.1f%% of its rate "
				"(limit %.1f%%)",
				r->link, r->dir, r->level, 100 * r->value, 100 * r->limit);
	}
	return snprintf(buf, len, "?");
}
