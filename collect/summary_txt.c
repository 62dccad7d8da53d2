// SPDX-License-Identifier: MIT
/* summary.txt, the table printed at the end of a run: the verdict first, then the jobs with
 * JWT, JRT, JCT in emulated (or virtual) and paper seconds, busbw and status, then the run
 * averages and the plots left out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/csv.h"
#include "collect/internal.h"
#include "collect/summary.h"

#define VAL_MAX COL_VAL_MAX

const char *col_val(char b[COL_VAL_MAX], double v, const char *mark)
{
	if (!isfinite(v))
		return "-";
	snprintf(b, VAL_MAX, "%s%.4g", mark, v);
	return b;
}

/* A share as a percentage, "-" if undefined. */
static const char *pct(char b[VAL_MAX], double share)
{
	if (!isfinite(share))
		return "-";
	snprintf(b, VAL_MAX, "%.1f%%", 100 * share);
	return b;
}

static double dns(int64_t t)
{
	return t == COL_NONE ? NAN : (double)t;
}

static void tcp_line(struct col_out *o, const struct col_tcp *x)
{
	col_out_printf(o,
		       "TCP: %llu retransmission timeouts (%llu spurious), %llu of %llu segments "
		       "retransmitted, %llu qdisc drops\n",
		       (unsigned long long)x->timeouts, (unsigned long long)x->spurious_rtos,
		       (unsigned long long)x->retrans_segs, (unsigned long long)x->out_segs,
		       (unsigned long long)x->drops);
}

static void head(struct col_out *o, const struct col_metrics *m,
		 const struct col_summary_meta *meta)
{
	char b[2][VAL_MAX];
	char text[256];
	size_t i;

	col_out_printf(o, "scenario %s, run %s\n", meta && meta->scenario ? meta->scenario : "-",
		       meta && meta->run_id ? meta->run_id : "-");
	if (meta && meta->backend && !strcmp(meta->backend, "sim")) {
		col_out_printf(o, "virtual time (testbed sim), paper units: the run took %s s\n",
			       col_val(b[0], dns(m->t_end) / 1e9, ""));
		col_out_printf(o, "fidelity: n/a (no machine limits a run in virtual time)\n");
		return;
	}
	col_out_printf(
		o, "time dilation %g: paper s = emulated s / %g; the run took %s s (%s paper s)\n",
		m->dilation, m->dilation, col_val(b[0], dns(m->t_end) / 1e9, ""),
		col_val(b[1], col_paper_s(m, dns(m->t_end)), ""));
	col_fid_causes(text, sizeof(text), &m->fid);
	col_out_printf(o, "fidelity: %s%s%s%s\n", m->fid.degraded ? "DEGRADED" : "ok",
		       text[0] ? " (" : "", text, text[0] ? ")" : "");
	for (i = 0; i < m->fid.reasons.n; i++) {
		col_fid_reason_text(text, sizeof(text), &m->fid.reasons.v[i]);
		col_out_printf(o, "  - %s\n", text);
	}
	if (m->fid.tcp.endpoints)
		tcp_line(o, &m->fid.tcp);
}

static void job_row(struct col_out *o, const struct col_metrics *m, const struct rec_job *j,
		    const struct col_job *c)
{
	const char *lb = c->flags & COL_J_CENSORED ? ">" : "";
	const char *wait = c->jrt == COL_NONE ? lb : ""; /* JWT is exact once a job started */
	double t[3] = {dns(c->jwt), dns(c->jrt), dns(c->jct)};
	char b[7][VAL_MAX];

	col_out_printf(o, "%4u %-14.14s %5u %-11s %9s %9s %9s %9s %9s %9s %10s\n", j->id, j->model,
		       j->gpus, rec_status_name(j->status), col_val(b[0], t[0] / 1e9, wait),
		       col_val(b[1], t[1] / 1e9, lb), col_val(b[2], t[2] / 1e9, lb),
		       col_val(b[3], col_paper_s(m, t[0]), wait),
		       col_val(b[4], col_paper_s(m, t[1]), lb),
		       col_val(b[5], col_paper_s(m, t[2]), lb), col_val(b[6], c->busbw / 1e9, ""));
}

/* A Chakra trace's job: the time its critical path's operations covered as they ran. */
static void path_row(struct col_out *o, const struct col_metrics *m, const struct col_job *c)
{
	char b[4][VAL_MAX];

	if (!c->path_ops)
		return;
	col_out_printf(o,
		       "  job %u's critical path (ops.csv's critical column): %u operations, "
		       "compute %s ps, communication %s ps, of JRT %s ps\n",
		       c->id, c->path_ops, col_val(b[0], col_paper_s(m, c->path_comp_ns), ""),
		       col_val(b[1], col_paper_s(m, c->path_comm_ns), ""),
		       col_val(b[2], col_paper_s(m, dns(c->jrt)), ""));
}

static void jobs(struct col_out *o, const struct rec_run *r, const struct col_metrics *m,
		 enum col_clock clock)
{
	size_t i;

	col_out_printf(o,
		       "\njobs (s: %s, ps: paper seconds%s; >: lower bound, the run ended first)\n",
		       col_clock_unit(clock, false),
		       clock == COL_CLOCK_VIRTUAL ? ", the same in virtual time" : "");
	col_out_printf(o, "%4s %-14s %5s %-11s %9s %9s %9s %9s %9s %9s %10s\n", "id", "model",
		       "gpus", "status", "JWT s", "JRT s", "JCT s", "JWT ps", "JRT ps", "JCT ps",
		       "busbw GB/s");
	for (i = 0; i < m->jobs.n; i++)
		job_row(o, m, &r->jobs.v[i], &m->jobs.v[i]);
	for (i = 0; i < m->jobs.n; i++)
		path_row(o, m, &m->jobs.v[i]);
}

static void avg(struct col_out *o, const struct col_metrics *m, const char *name, double ns)
{
	char b[2][VAL_MAX];

	col_out_printf(o, "  %-9s %9s s %9s ps\n", name, col_val(b[0], ns / 1e9, ""),
		       col_val(b[1], col_paper_s(m, ns), ""));
}

static void totals(struct col_out *o, const struct col_metrics *m)
{
	const struct col_totals *t = &m->totals;
	char b[3][VAL_MAX];

	col_out_printf(o, "\n%u jobs: %u ok, %u failed, %u not started, %u cancelled\n", t->jobs,
		       t->ok, t->failed, t->not_started, t->cancelled);
	col_out_printf(o, "averages (JWT over %u started jobs, JRT and JCT over %u completed):\n",
		       t->n_jwt, t->n_jrt);
	avg(o, m, "Avg.JWT", t->avg_jwt);
	avg(o, m, "Avg.JRT", t->avg_jrt);
	avg(o, m, "Avg.JCT", t->avg_jct);
	avg(o, m, "Stability", t->stability);
	col_out_printf(o,
		       "  (stability: std of JCT per (model, gpus) class, mean over %u classes; "
		       "lower is better)\n",
		       t->stability_classes);
	col_out_printf(o, "  busbw mean %s GB/s\n", col_val(b[0], t->busbw_mean / 1e9, ""));
	col_out_printf(o,
		       "flows: %llu (%llu complete, %llu zero-length); FCT p50 %s ps, p99 %s ps\n",
		       (unsigned long long)m->flows.count, (unsigned long long)m->flows.complete,
		       (unsigned long long)m->flows.zero_len,
		       col_val(b[0], col_paper_s(m, m->flows.fct_p50), ""),
		       col_val(b[1], col_paper_s(m, m->flows.fct_p99), ""));
	col_out_printf(o, "links: %zu directions, utilization mean %s, peak %s; drops %llu\n",
		       m->links.n, pct(b[0], t->util_mean), pct(b[2], t->util_peak),
		       (unsigned long long)t->drops);
}

/* A routing policy's decisions, if it took any. */
static void routing(struct col_out *o, const struct rec_run *r)
{
	struct col_routing x;

	col_routing_sum(r, &x);
	if (x.decisions)
		col_out_printf(
			o,
			"routing: %zu decisions, %.3f ms mean and %.3f ms at most each, %llu "
			"connections re-tagged; worst max load %u (lower bound %u)\n",
			x.decisions, x.decide_ms_mean, x.decide_ms_max,
			(unsigned long long)x.retagged, x.max_load, x.lower_bound);
	if (x.decisions && x.paths_ms_max >= 0)
		col_out_printf(
			o, "routing: new paths out %.3f ms after a failure or rewire, at most\n",
			x.paths_ms_max);
}

/* Fragmentation and rewires, when the scheduler saw any. */
static void sched_counts(struct col_out *o, const struct col_summary_meta *meta)
{
	const struct col_sched_counts *c = meta ? meta->sched : NULL;

	if (c && c->known && (c->frag_jobs || c->rewires))
		col_out_printf(o,
			       "scheduler: %u jobs waited with enough GPUs free (fragmentation; "
			       "%u tries), %u tries failed for want of GPUs, %u OCS rewires\n",
			       c->frag_jobs, c->frag_tries, c->gpu_tries, c->rewires);
}

/* "a / b / c" of a per-dimension share list. */
static void dim_pcts(char *buf, size_t len, const double *v, uint8_t n)
{
	char b[VAL_MAX];
	size_t o = 0;
	uint8_t k;

	buf[0] = '\0';
	for (k = 0; k < n && o < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? " / " : "", pct(b, v[k]));
}

/* Each chunked multi-dimensional collective against its ideal time (Themis §6.1). */
static void md_lines(struct col_out *o, const struct rec_run *r,
		     const struct col_summary_meta *meta)
{
	double D = r->dilation > 0 ? r->dilation : 1.0;
	char b[3][VAL_MAX], u[96], a[96];
	size_t i;

	for (i = 0; meta && i < meta->md_n; i++) {
		const struct col_md_result *x = &meta->md[i];

		dim_pcts(u, sizeof(u), x->dim_util, x->ndims);
		dim_pcts(a, sizeof(a), x->dim_active, x->ndims);
		col_out_printf(o,
			       "multidim job %u: %s %s paper s, ideal %s: utilization %s; "
			       "per dimension utilization %s, activity %s\n",
			       x->job, coll_kind_name(x->kind), col_val(b[0], x->t_s / D, ""),
			       col_val(b[1], x->t_ideal_s / D, ""), pct(b[2], x->util), u, a);
	}
}

/* The plots not made, each with why. */
static void skipped(struct col_out *o, const struct col_summary_meta *meta)
{
	size_t i;

	for (i = 0; meta && i < meta->skipped_n; i++)
		col_out_printf(o, "%s%s: %s\n", i ? "  " : "plots left out:\n  ",
			       meta->skipped[i].name, meta->skipped[i].why);
}

/* The trace's rows left out, one line per reason. */
static void trace_left(struct col_out *o, const struct col_summary_meta *meta)
{
	const struct job_trace_left *l = meta ? meta->trace_left : NULL;
	char line[512];
	int k;

	for (k = 0; l && k < JT_LEFT_N; k++) {
		if (!l->n[k])
			continue;
		job_trace_left_line(line, sizeof(line), l, k);
		col_out_printf(o, "%s\n", line);
	}
}

int col_summary_txt(char *buf, size_t len, const struct rec_run *r, const struct col_metrics *m,
		    const struct col_summary_meta *meta)
{
	struct col_out o;

	col_out_init(&o, buf, len);
	head(&o, m, meta);
	jobs(&o, r, m, col_clock_of(meta ? meta->backend : NULL));
	totals(&o, m);
	routing(&o, r);
	sched_counts(&o, meta);
	trace_left(&o, meta);
	md_lines(&o, r, meta);
	skipped(&o, meta);
	return col_out_ret(&o);
}
