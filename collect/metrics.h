/* SPDX-License-Identifier: MIT */
/* Metrics over a run's records (formulas and edge cases in docs/results.md): per job JWT, JRT,
 * JCT (vClos §9.3), iteration and collective times, algbw and busbw (nccl-tests); per flow FCT
 * and throughput; per link direction utilization; run averages and vClos's stability; sweep
 * comparisons; the fidelity verdict (Mininet-HiFi's rule). Times are emulated ns;
 * paper-equivalent seconds divide by the dilation. Pure: no syscalls, no clock. Undefined
 * doubles are NAN. */
#ifndef COLLECT_METRICS_H
#define COLLECT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/records.h"
#include "lib/diag.h"
#include "lib/vec.h"

#define COL_NONE INT64_MIN /* an integer metric that is not defined */

/* col_job.flags */
#define COL_J_CENSORED 0x1 /* the run ended (or was cancelled) first: a lower bound */
#define COL_J_FAILED 0x2 /* the job failed: JRT and JCT run to the failure */

struct col_job {
	uint32_t id;
	enum rec_status status;
	uint32_t flags;
	int64_t jwt, jrt, jct; /* COL_NONE where undefined */
	uint32_t iters; /* complete iterations: every rank recorded it */
	/* Means over complete iterations (NAN if none): iteration = max over ranks of
	 * t_end - t_start; compute = max over ranks of t_compute_end - t_start; comm = the
	 * exposed rest (iteration - compute); coll = mean over ranks of t_end - t_compute_end
	 * (nccl-tests' default rank average). */
	double iter_ns, compute_ns, comm_ns, coll_ns;
	double algbw, busbw; /* bytes per emulated second: bytes / coll, algbw x bus factor */
	/* a Chakra trace's job (ops.csv): the operations on its critical path with nothing
	 * shared, and the time they covered as they ran, communication and compute (0: none) */
	uint32_t path_ops;
	double path_comm_ns, path_comp_ns;
};

struct col_iter {
	uint32_t job, iter;
	uint32_t ranks; /* distinct ranks with a full record */
	int64_t iter_ns; /* the col_job definitions, for this iteration */
	int64_t compute_ns;
	int64_t comm_ns;
	double coll_ns;
};

struct col_flows {
	uint64_t count; /* records */
	uint64_t complete; /* with both times */
	uint64_t zero_len; /* complete flows of 0 bytes (counted, no throughput) */
	uint64_t tput_count; /* flows with a throughput (bytes > 0 and FCT > 0) */
	double fct_p50, fct_p99, fct_mean, fct_max; /* ns over complete flows */
	double tput_mean; /* bytes per emulated second */
};

/* Configured links, indexed [link * 2 + dir]. Both arrays are borrowed and may be NULL:
 * no rates gives no utilization; no `shaped` treats every direction as shaped. */
struct col_links_cfg {
	uint32_t nlinks; /* 0: unknown, take the links from the samples */
	const uint64_t *rate_bps; /* configured egress rate, 0 if none */
	const uint8_t *shaped; /* nonzero: a shaping qdisc sits on this egress */
	const uint8_t *endpoint; /* nonzero: the egress of an endpoint (may be NULL: none) */
};

struct col_link {
	uint32_t link, dir;
	uint64_t rate_bps;
	bool shaped;
	bool endpoint; /* the egress of an endpoint: its queue is its own TCP's (fidelity.c) */
	uint32_t samples;
	int64_t span_ns; /* first to last sample */
	uint64_t tx_bytes; /* over the span */
	uint64_t drops; /* over the span */
	double util_mean; /* time-weighted over the span; NAN without a rate or 2 samples */
	double util_peak; /* highest interval */
	uint32_t bl_intervals; /* intervals with over COL_BL_MIN_BYTES queued at both ends */
	int64_t bl_ns;
	double bl_util; /* utilization over those intervals (NAN if none) */
};

/* A point of a link direction's utilization over time (the interval ending at t). */
struct col_util {
	int64_t t, dt;
	uint32_t link, dir;
	double util;
};

struct col_series {
	VEC(struct col_util) v;
};

struct col_totals {
	uint32_t jobs, ok, failed, not_started, cancelled, censored;
	uint32_t n_jwt, n_jrt; /* jobs behind the JWT and the JRT/JCT averages */
	double avg_jwt, avg_jrt, avg_jct; /* ns */
	double stability; /* ns: mean over classes of the std of JCT */
	uint32_t stability_classes; /* (model, gpus) classes with >= 2 completed jobs */
	double busbw_mean; /* bytes/s over completed jobs with a busbw */
	double util_mean, util_peak; /* over link directions with a utilization */
	uint64_t drops;
};

/* Fidelity verdict thresholds; col_fid_cfg_default fills the COL_FID_* values. */
#define COL_FID_CPU_BUSY_MAX 0.65 /* Mininet-HiFi: >= 35% idle each second */
#define COL_FID_CPU_SOFTIRQ_MAX 0.50 /* half the machine forwarding packets */
#define COL_FID_CPU_HOT_SHARE 0.05 /* share of samples allowed above those */
#define COL_FID_UNSHAPED_DROPS 0 /* drops allowed on an unshaped hop */
#define COL_FID_BACKLOG_DROPS 0 /* packets the CPUs' input backlogs may drop over a run */
#define COL_FID_BL_UTIL_MIN 0.80 /* a backlogged link delivers at least this share */
#define COL_FID_BL_MIN_INTERVALS 3 /* backlogged intervals needed to judge a link */
/* An interval is backlogged when more than this was queued at both of its samples: one GSO or
 * GRO packet (up to 64 KiB, which a switch's forwarding hands on whole) is a packet being
 * sent, not a queue the hop fails to drain. */
#define COL_BL_MIN_BYTES 65536
/* TCP retransmission timeouts that no qdisc drop explains (or that F-RTO found spurious),
 * per endpoint and second of the run, and how many it takes to judge (docs/results.md). */
#define COL_FID_TCP_RATE_MAX 0.07
#define COL_FID_TCP_MIN 10

struct col_fid_cfg {
	double cpu_busy_max, cpu_softirq_max, cpu_hot_share;
	uint64_t unshaped_drops, backlog_drops;
	double bl_util_min;
	uint32_t bl_min_intervals;
	double tcp_rate_max;
	uint64_t tcp_min;
};

/* What a reason's value, limit and level are, per kind. */
enum col_fid_kind {
	COL_FID_CPU_BUSY, /* share of samples with busy > level; limit: cpu_hot_share */
	COL_FID_CPU_SOFTIRQ, /* share of samples with softirq > level; limit: cpu_hot_share */
	COL_FID_CPU_BACKLOG, /* packets the CPUs' input backlogs dropped (cpu.csv); limit:
				backlog_drops */
	COL_FID_UNSHAPED_DROP, /* drops on an unshaped direction; limit: unshaped_drops */
	COL_FID_BACKLOG_SLOW, /* utilization while backlogged; limit: bl_util_min; level: the
				 backlogged time, emulated s */
	COL_FID_TRANSPORT, /* unexplained TCP timeouts per endpoint and second; limit:
			      tcp_rate_max; level: how many (col_tcp.unexplained) */
};

struct col_fid_reason {
	enum col_fid_kind kind;
	uint32_t link, dir; /* link reasons */
	double value, limit, level;
};

/* The endpoints' TCP counters over the run (tcp.csv: each endpoint's first to last reading)
 * against the qdisc drops of every link direction. */
struct col_tcp {
	uint32_t endpoints; /* with two readings */
	double span_s; /* the longest of their spans, emulated s */
	uint64_t timeouts, spurious_rtos, retrans_segs, out_segs;
	uint64_t drops;
	/* timeouts no drop explains: max(timeouts - drops, spurious_rtos) */
	uint64_t unexplained;
	double rate; /* unexplained / endpoints / span_s; NAN without two readings */
};

struct col_fidelity {
	bool degraded;
	struct col_tcp tcp;
	uint32_t cpu_samples;
	double busy_mean, busy_peak, softirq_mean, softirq_peak; /* NAN without samples */
	double busy_share, softirq_share; /* samples above the limits */
	int64_t backlog_drops; /* over the samples that know them; REC_NEVER if none does */
	double self_mean, self_peak; /* the testbed's own share (cpu.csv self); NAN if unknown */
	VEC(struct col_fid_reason) reasons; /* CPU first, then links in (link, dir) order */
};

/* Everything the summary reports about one run. */
struct col_metrics {
	double dilation;
	int64_t t_end;
	VEC(struct col_job) jobs; /* in record order */
	VEC(struct col_iter) iters; /* by (job, iter) */
	VEC(struct col_link) links; /* by (link, dir), directions with samples */
	struct col_flows flows;
	struct col_totals totals;
	struct col_fid_cfg fid_cfg;
	struct col_fidelity fid;
};

/* Computes every metric of r into m (overwritten; release with col_metrics_done). lc and fc
 * may be NULL (no rates; default thresholds). 0, -EINVAL (a bad dilation, duplicate job ids,
 * a sample for a link outside lc) with a message, or -ENOMEM. */
int col_metrics_build(const struct rec_run *r, const struct col_links_cfg *lc,
		      const struct col_fid_cfg *fc, struct col_metrics *m, struct diag *d);
void col_metrics_done(struct col_metrics *m);

/* Emulated ns to paper-equivalent seconds (ns / 1e9 / dilation); NAN stays NAN. */
double col_paper_s(const struct col_metrics *m, double ns);

/* The clock a run's times are on, as the plots' axes and summary.txt name it. */
enum col_clock {
	COL_CLOCK_EMULATED, /* testbed up: the machine's; paper seconds are emulated / dilation */
	COL_CLOCK_VIRTUAL, /* testbed sim: virtual time, in paper units */
};

/* The clock of a backend as summary.json names it: "sim" is virtual, anything else (and
 * NULL) emulated. */
enum col_clock col_clock_of(const char *backend);

/* The unit of times on clock c: "virtual seconds" (paper units already), or under emulation
 * "emulated seconds", or "paper seconds" when paper (divided by the dilation). */
const char *col_clock_unit(enum col_clock c, bool paper);

/* Per job: JWT, JRT, JCT and flags of j in a run that ended at t_end (no iterations). */
void col_job_times(const struct rec_job *j, int64_t t_end, struct col_job *out);

/* A Chakra trace's job's critical path as it ran, from r->ops, into m->jobs (already
 * filled): col_job.path_*. 0 or -ENOMEM (ops.c). */
int col_ops_build(const struct rec_run *r, struct col_metrics *m);

/* Per-iteration rows into m->iters and the iteration means into m->jobs (already filled). */
int col_iters_build(const struct rec_run *r, struct col_metrics *m);

/* Per flow: FCT (COL_NONE if either time is missing) and throughput in bytes/s (NAN for
 * zero-length, zero-time or incomplete flows). */
int64_t col_flow_fct(const struct rec_flow *f);
double col_flow_tput(const struct rec_flow *f);
int col_flows_build(const struct rec_run *r, struct col_flows *out);

/* Nearest-rank percentile (p in [0, 1]) of n sorted values; NAN if n is 0. */
double col_percentile(const int64_t *sorted, size_t n, double p);

/* Per link direction, from consecutive samples (a counter that went down restarted at 0). */
int col_links_build(const struct rec_run *r, const struct col_links_cfg *lc, struct col_metrics *m,
		    struct diag *d);
/* Utilization of every interval of every direction with a rate, by (link, dir, t). */
int col_util_series(const struct rec_run *r, const struct col_links_cfg *lc, struct col_series *out,
		    struct diag *d);
void col_series_done(struct col_series *s);

/* Run totals from m->jobs and m->links (vClos §9.3; stability: population std of JCT per
 * (model, gpus) class with >= 2 completed jobs, averaged over classes; lower is better).
 * Avg.JWT is over the jobs that started, Avg.JRT and Avg.JCT over those completed (ok,
 * unflagged). 0 or -ENOMEM. */
int col_totals_build(const struct rec_run *r, struct col_metrics *m);

/* Fidelity. */
void col_fid_cfg_default(struct col_fid_cfg *c);
int col_fid_judge(const struct rec_run *r, const struct col_link *links, size_t n,
		  const struct col_fid_cfg *c, struct col_fidelity *out);
void col_fid_done(struct col_fidelity *f);
const char *col_fid_kind_name(enum col_fid_kind k);
/* What a kind blames: "cpu" (the CPU), "forwarding" (a hop that could not keep up) or
 * "transport" (TCP's timers). */
const char *col_fid_kind_cause(enum col_fid_kind k);
/* The causes of f's reasons, each once in kind order, ", "-separated ("cpu, transport"), into
 * buf as snprintf does; "" when there is none. */
int col_fid_causes(char *buf, size_t len, const struct col_fidelity *f);
/* Whether a reason of f blames the machine (cpu or forwarding). */
bool col_fid_machine(const struct col_fidelity *f);
/* One line of text for a reason, into buf as snprintf does. */
int col_fid_reason_text(char *buf, size_t len, const struct col_fid_reason *r);

/* Sweeps: per run of a variant, its metric values; the table gives, per variant and metric,
 * the ratio to variant 0 (paired by seed where variant 0 ran that seed, else to variant 0's
 * mean) averaged over seeds with min and max, and the mean value itself. */
enum col_metric {
	COL_M_AVG_JWT, /* paper s */
	COL_M_AVG_JRT,
	COL_M_AVG_JCT,
	/* paper s: per-iteration communication (the slowest rank's iteration less its
	 * compute: the slowest ring's all-reduce), mean over iterations, then over jobs */
	COL_M_AVG_COMM,
	COL_M_STABILITY,
	COL_M_FCT_P50,
	COL_M_FCT_P99,
	COL_M_BUSBW, /* emulated bytes/s */
	COL_M_UTIL,
	COL_M_N,
};

struct col_sweep_run {
	uint32_t variant;
	uint64_t seed;
	double v[COL_M_N]; /* NAN where undefined */
	/* the variant it is compared with: 0, or its own with sweep.baseline; that variant's run
	 * of the same seed, else its mean over seeds */
	uint32_t baseline;
};

struct col_sweep_cell {
	uint32_t n; /* runs with a ratio (a value, and a baseline that is not 0) */
	double mean, min, max; /* ratio to the baseline, NAN if n is 0 */
	uint32_t nv; /* runs with a value */
	double value; /* their mean, NAN if nv is 0 */
};

struct col_sweep {
	uint32_t variants;
	VEC(struct col_sweep_cell) cells; /* [variant * COL_M_N + metric] */
	VEC(uint32_t) runs; /* [variant]: its runs */
};

/* The variants by baseline (sweep.baseline): group g, in the order of its first variant, is the
 * variants order[start[g]] to order[start[g + 1] - 1], in order, all compared with baseline[g]. */
struct col_sweep_groups {
	uint32_t n;
	uint32_t *order, *start, *baseline; /* owned: variants, n + 1 and n entries */
};

const char *col_metric_name(enum col_metric k);
void col_metric_values(const struct col_metrics *m, double v[COL_M_N]);
/* 0, -EINVAL (no run of variant 0) with a message, or -ENOMEM. */
int col_sweep_build(const struct col_sweep_run *runs, size_t n, struct col_sweep *out,
		    struct diag *d);
const struct col_sweep_cell *col_sweep_cell(const struct col_sweep *s, uint32_t variant,
					    enum col_metric k);
void col_sweep_done(struct col_sweep *s);
/* Makes s hold variants variants, the ones after its last with a run having none (no value,
 * no ratio), so that every variant of a sweep is listed. 0 or -ENOMEM. */
int col_sweep_pad(struct col_sweep *s, uint32_t variants);
/* The groups of variants sharing a baseline, base[v] being variant v's. 0, -EINVAL if a
 * base[v] is not below variants, or -ENOMEM. */
int col_sweep_groups_make(const uint32_t *base, uint32_t variants, struct col_sweep_groups *g);
void col_sweep_groups_done(struct col_sweep_groups *g);

#endif
