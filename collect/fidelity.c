// SPDX-License-Identifier: MIT
/* The fidelity verdict (after Mininet-HiFi's ">= 35% idle CPU every second", Handigol et al.,
 * CoNEXT 2012): degraded when the machine, not the emulated network, was the bottleneck.
 * Thresholds: metrics.h; their reasons: docs/results.md. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/metrics.h"

static const char *const kinds[] = {
	[COL_FID_CPU_BUSY] = "cpu_busy",	 [COL_FID_CPU_SOFTIRQ] = "cpu_softirq",
	[COL_FID_CPU_BACKLOG] = "cpu_backlog",	 [COL_FID_UNSHAPED_DROP] = "unshaped_drops",
	[COL_FID_BACKLOG_SLOW] = "backlog_slow", [COL_FID_TRANSPORT] = "transport",
};

static const char *const causes[] = {
	[COL_FID_CPU_BUSY] = "cpu",
	[COL_FID_CPU_SOFTIRQ] = "cpu",
	[COL_FID_CPU_BACKLOG] = "cpu",
	[COL_FID_UNSHAPED_DROP] = "forwarding",
	[COL_FID_BACKLOG_SLOW] = "forwarding",
	[COL_FID_TRANSPORT] = "transport",
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

const char *col_fid_kind_name(enum col_fid_kind k)
{
	return (unsigned)k < N_KINDS ? kinds[k] : "?";
}

const char *col_fid_kind_cause(enum col_fid_kind k)
{
	return (unsigned)k < N_KINDS ? causes[k] : "?";
}

void col_fid_cfg_default(struct col_fid_cfg *c)
{
	*c = (struct col_fid_cfg){
		.cpu_busy_max = COL_FID_CPU_BUSY_MAX,
		.cpu_softirq_max = COL_FID_CPU_SOFTIRQ_MAX,
		.cpu_hot_share = COL_FID_CPU_HOT_SHARE,
		.unshaped_drops = COL_FID_UNSHAPED_DROPS,
		.backlog_drops = COL_FID_BACKLOG_DROPS,
		.bl_util_min = COL_FID_BL_UTIL_MIN,
		.bl_min_intervals = COL_FID_BL_MIN_INTERVALS,
		.tcp_rate_max = COL_FID_TCP_RATE_MAX,
		.tcp_min = COL_FID_TCP_MIN,
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
	double busy = 0, soft = 0, hot_busy = 0, hot_soft = 0, self = 0;
	const struct rec_cpu *s;
	uint32_t self_n = 0;

	f->busy_mean = f->busy_peak = f->softirq_mean = f->softirq_peak = NAN;
	f->busy_share = f->softirq_share = NAN;
	f->backlog_drops = REC_NEVER;
	f->self_mean = f->self_peak = NAN;
	vec_for_each (&r->cpu, s) {
		if (isfinite(s->self)) {
			self += s->self;
			self_n++;
			peak(&f->self_peak, s->self);
		}
		if (s->backlog_drops != REC_NEVER)
			f->backlog_drops = (f->backlog_drops == REC_NEVER ? 0 : f->backlog_drops) +
					   s->backlog_drops;
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
	if (self_n)
		f->self_mean = self / self_n;
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
	if (!err && f->backlog_drops != REC_NEVER && (uint64_t)f->backlog_drops > c->backlog_drops)
		err = add(f, COL_FID_CPU_BACKLOG, NULL, (double)f->backlog_drops,
			  (double)c->backlog_drops, 0);
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

static int by_node_time(const void *a, const void *b, void *arg)
{
	const struct rec_tcp *v = arg, *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* The readings of tcp.csv by (node, time): each endpoint's first and last are the ends of its
 * run of equal nodes. NULL on ENOMEM. */
static size_t *tcp_order(const struct rec_run *r)
{
	size_t i, *at = malloc(r->tcp.n * sizeof(*at) + 1);

	for (i = 0; at && i < r->tcp.n; i++)
		at[i] = i;
	if (at)
		qsort_r(at, r->tcp.n, sizeof(*at), by_node_time, r->tcp.v);
	return at;
}

/* b - a of a counter that only grows (0 if it went down: a namespace made anew). */
static uint64_t grew(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static void tcp_add(struct col_tcp *x, const struct rec_tcp *a, const struct rec_tcp *b)
{
	double span = (double)(b->t - a->t) / 1e9;

	x->endpoints++;
	x->span_s = span > x->span_s ? span : x->span_s;
	x->timeouts += grew(a->timeouts, b->timeouts);
	x->spurious_rtos += grew(a->spurious_rtos, b->spurious_rtos);
	x->retrans_segs += grew(a->retrans_segs, b->retrans_segs);
	x->out_segs += grew(a->out_segs, b->out_segs);
}

/* The counters over the run against the drops of every direction. 0 or -ENOMEM. */
static int tcp_stats(const struct rec_run *r, const struct col_link *links, size_t n,
		     struct col_tcp *x)
{
	const struct rec_tcp *v = r->tcp.v;
	size_t i, j, *at;

	*x = (struct col_tcp){.rate = NAN};
	for (i = 0; i < n; i++)
		x->drops += links[i].drops;
	at = tcp_order(r);
	if (!at)
		return -ENOMEM;
	for (i = 0; i < r->tcp.n; i = j + 1) {
		for (j = i; j + 1 < r->tcp.n && v[at[j + 1]].node == v[at[i]].node; j++)
			;
		if (j > i)
			tcp_add(x, &v[at[i]], &v[at[j]]);
	}
	free(at);
	x->unexplained = x->timeouts > x->drops ? x->timeouts - x->drops : 0;
	if (x->spurious_rtos > x->unexplained)
		x->unexplained = x->spurious_rtos;
	if (x->endpoints && x->span_s > 0)
		x->rate = (double)x->unexplained / x->endpoints / x->span_s;
	return 0;
}

/* Timeouts no loss explains: TCP's timers, which no rate_scale dilates, fired on queueing
 * delay alone (docs/results.md). */
static int tcp_judge(const struct col_fid_cfg *c, struct col_fidelity *f)
{
	const struct col_tcp *x = &f->tcp;

	if (!isfinite(x->rate) || x->unexplained < c->tcp_min || x->rate <= c->tcp_rate_max)
		return 0;
	return add(f, COL_FID_TRANSPORT, NULL, x->rate, c->tcp_rate_max, (double)x->unexplained);
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
	err = err ? err : tcp_stats(r, links, n, &out->tcp);
	return err ? err : tcp_judge(c, out);
}

int col_fid_causes(char *buf, size_t len, const struct col_fidelity *f)
{
	const char *seen[N_KINDS];
	size_t i, j, n = 0;
	int k = 0, w;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < f->reasons.n; i++) {
		const char *c = col_fid_kind_cause(f->reasons.v[i].kind);

		for (j = 0; j < n && strcmp(seen[j], c); j++)
			;
		if (j < n || n == N_KINDS)
			continue;
		seen[n++] = c;
		w = snprintf(len > (size_t)k ? buf + k : NULL,
			     len > (size_t)k ? len - (size_t)k : 0, "%s%s", n > 1 ? ", " : "", c);
		k += w > 0 ? w : 0;
	}
	return k;
}

bool col_fid_machine(const struct col_fidelity *f)
{
	size_t i;

	for (i = 0; i < f->reasons.n; i++)
		if (f->reasons.v[i].kind != COL_FID_TRANSPORT)
			return true;
	return false;
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
	case COL_FID_CPU_BACKLOG:
		return snprintf(buf, len,
				"the CPUs' input backlogs dropped %.0f packets "
				"(net.core.netdev_max_backlog; limit %.0f)",
				r->value, r->limit);
	case COL_FID_UNSHAPED_DROP:
		return snprintf(buf, len,
				"link %u dir %u: %.0f drops on an unshaped hop (limit %.0f)",
				r->link, r->dir, r->value, r->limit);
	case COL_FID_BACKLOG_SLOW:
		return snprintf(buf, len,
				"link %u dir %u: backlogged for %.2f s yet at %.1f%% of its rate "
				"(limit %.1f%%)",
				r->link, r->dir, r->level, 100 * r->value, 100 * r->limit);
	case COL_FID_TRANSPORT:
		return snprintf(buf, len,
				"TCP: %.0f retransmission timeouts no drop explains, %.4f per "
				"endpoint per second (limit %.4f)",
				r->level, r->value, r->limit);
	}
	return snprintf(buf, len, "?");
}
