// SPDX-License-Identifier: MIT
/* summary.json (docs/results.md): run, fidelity, totals, jobs, flows, links; each time as
 * <name>_s (emulated) and <name>_paper_s (/ dilation), null where undefined. Built with
 * jansson, whose only failure is ENOMEM, so the builders OR their -ENOMEM results. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/internal.h"
#include "collect/summary.h"

static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v) ? -ENOMEM : 0; /* v is released either way */
}

/* o, or NULL (and o released) after an error. */
static json_t *done(json_t *o, int err)
{
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A new object filled by fill, or NULL. */
static json_t *obj(int (*fill)(json_t *, const struct col_metrics *), const struct col_metrics *m)
{
	json_t *o = json_object();

	return o ? done(o, fill(o, m)) : NULL;
}

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* A JSON string of s (at most max bytes; null if s is NULL); bytes that are not UTF-8 become
 * '?', as the records may carry what a kernel or a peer said. */
static json_t *str(const char *s, size_t max)
{
	size_t i, n = s ? strnlen(s, max) : 0;
	json_t *j = s ? json_stringn(s, n) : json_null();
	char *t;

	if (j || !s)
		return j;
	t = malloc(n + 1);
	for (i = 0; t && i < n; i++)
		t[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	j = t ? json_stringn(t, n) : NULL;
	free(t);
	return j;
}

static json_t *opt_str(const char *s)
{
	return s ? str(s, strlen(s)) : json_null();
}

static json_t *ns_int(int64_t t)
{
	return t == COL_NONE ? json_null() : json_integer(t);
}

static double dns(int64_t t)
{
	return t == COL_NONE ? NAN : (double)t;
}

/* <k>_s and <k>_paper_s for a time of ns emulated nanoseconds. */
static int set_secs(json_t *o, const struct col_metrics *m, const char *k, double ns)
{
	char key[64];
	int err;

	snprintf(key, sizeof(key), "%s_s", k);
	err = set(o, key, num(ns / 1e9));
	snprintf(key, sizeof(key), "%s_paper_s", k);
	return err | set(o, key, num(col_paper_s(m, ns)));
}

static int run_obj(json_t *o, const struct col_metrics *m)
{
	int err = 0;

	err |= set(o, "dilation", json_real(m->dilation));
	err |= set(o, "end_ns", ns_int(m->t_end));
	err |= set_secs(o, m, "end", dns(m->t_end));
	return err;
}

static int fid_cpu(json_t *o, const struct col_metrics *m)
{
	const struct col_fidelity *f = &m->fid;
	int err = 0;

	err |= set(o, "samples", json_integer(f->cpu_samples));
	err |= set(o, "busy_mean", num(f->busy_mean));
	err |= set(o, "busy_peak", num(f->busy_peak));
	err |= set(o, "busy_share", num(f->busy_share));
	err |= set(o, "softirq_mean", num(f->softirq_mean));
	err |= set(o, "softirq_peak", num(f->softirq_peak));
	err |= set(o, "softirq_share", num(f->softirq_share));
	err |= set(o, "backlog_drops",
		   f->backlog_drops == REC_NEVER ? json_null()
						 : json_integer((json_int_t)f->backlog_drops));
	err |= set(o, "self_mean", num(f->self_mean));
	err |= set(o, "self_peak", num(f->self_peak));
	return err;
}

static int fid_thresholds(json_t *o, const struct col_metrics *m)
{
	const struct col_fid_cfg *c = &m->fid_cfg;
	int err = 0;

	err |= set(o, "cpu_busy_max", json_real(c->cpu_busy_max));
	err |= set(o, "cpu_softirq_max", json_real(c->cpu_softirq_max));
	err |= set(o, "cpu_hot_share", json_real(c->cpu_hot_share));
	err |= set(o, "unshaped_drops", json_integer((json_int_t)c->unshaped_drops));
	err |= set(o, "backlog_drops", json_integer((json_int_t)c->backlog_drops));
	err |= set(o, "backlog_util_min", json_real(c->bl_util_min));
	err |= set(o, "backlog_min_intervals", json_integer(c->bl_min_intervals));
	err |= set(o, "transport_rate_max", json_real(c->tcp_rate_max));
	err |= set(o, "transport_min", json_integer((json_int_t)c->tcp_min));
	return err;
}

static int fid_tcp(json_t *o, const struct col_metrics *m)
{
	const struct col_tcp *x = &m->fid.tcp;
	int err = 0;

	err |= set(o, "endpoints", json_integer(x->endpoints));
	err |= set(o, "span_s", num(x->endpoints ? x->span_s : NAN));
	err |= set(o, "timeouts", json_integer((json_int_t)x->timeouts));
	err |= set(o, "spurious_rtos", json_integer((json_int_t)x->spurious_rtos));
	err |= set(o, "retrans_segs", json_integer((json_int_t)x->retrans_segs));
	err |= set(o, "out_segs", json_integer((json_int_t)x->out_segs));
	err |= set(o, "drops", json_integer((json_int_t)x->drops));
	err |= set(o, "unexplained", json_integer((json_int_t)x->unexplained));
	err |= set(o, "rate", num(x->rate));
	return err;
}

/* Each cause of the reasons once, in their order. */
static json_t *causes_arr(const struct col_metrics *m)
{
	char text[128], *p, *save = NULL;
	json_t *a = json_array();
	int err = 0;

	col_fid_causes(text, sizeof(text), &m->fid);
	for (p = strtok_r(text, ", ", &save); a && !err && p; p = strtok_r(NULL, ", ", &save))
		err = json_array_append_new(a, json_string(p)) ? -ENOMEM : 0;
	return a ? done(a, err) : NULL;
}

static json_t *fid_reason(const struct col_fid_reason *r)
{
	bool link = r->kind == COL_FID_UNSHAPED_DROP || r->kind == COL_FID_BACKLOG_SLOW;
	char text[256];

	col_fid_reason_text(text, sizeof(text), r);
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:s}", "kind", col_fid_kind_name(r->kind),
			 "link", link ? json_integer(r->link) : json_null(), "dir",
			 link ? json_integer(r->dir) : json_null(), "value", num(r->value), "limit",
			 num(r->limit), "level", num(r->level), "text", text);
}

static json_t *reasons_arr(const struct col_metrics *m)
{
	json_t *a = json_array();
	int err = 0;
	size_t i;

	for (i = 0; a && !err && i < m->fid.reasons.n; i++)
		err = json_array_append_new(a, fid_reason(&m->fid.reasons.v[i])) ? -ENOMEM : 0;
	return a ? done(a, err) : NULL;
}

static int fid_obj(json_t *o, const struct col_metrics *m)
{
	int err = 0;

	err |= set(o, "verdict", json_string(m->fid.degraded ? "degraded" : "ok"));
	err |= set(o, "causes", causes_arr(m));
	err |= set(o, "reasons", reasons_arr(m));
	err |= set(o, "cpu", obj(fid_cpu, m));
	err |= set(o, "transport", obj(fid_tcp, m));
	err |= set(o, "thresholds", obj(fid_thresholds, m));
	return err;
}

static int totals_obj(json_t *o, const struct col_metrics *m)
{
	const struct col_totals *t = &m->totals;
	int err = 0;

	err |= set(o, "jobs", json_integer(t->jobs));
	err |= set(o, "ok", json_integer(t->ok));
	err |= set(o, "failed", json_integer(t->failed));
	err |= set(o, "not_started", json_integer(t->not_started));
	err |= set(o, "cancelled", json_integer(t->cancelled));
	err |= set(o, "censored", json_integer(t->censored));
	err |= set(o, "jwt_jobs", json_integer(t->n_jwt));
	err |= set(o, "jrt_jobs", json_integer(t->n_jrt));
	err |= set_secs(o, m, "avg_jwt", t->avg_jwt);
	err |= set_secs(o, m, "avg_jrt", t->avg_jrt);
	err |= set_secs(o, m, "avg_jct", t->avg_jct);
	err |= set_secs(o, m, "stability", t->stability);
	err |= set(o, "stability_classes", json_integer(t->stability_classes));
	err |= set(o, "busbw_mean_GBps", num(t->busbw_mean / 1e9));
	err |= set(o, "util_mean", num(t->util_mean));
	err |= set(o, "util_peak", num(t->util_peak));
	err |= set(o, "drops", json_integer((json_int_t)t->drops));
	return err;
}

static int job_ident(json_t *o, const struct rec_job *j, const struct col_job *c)
{
	int err = 0;

	err |= set(o, "id", json_integer(j->id));
	err |= set(o, "model", str(j->model, sizeof(j->model)));
	err |= set(o, "gpus", json_integer(j->gpus));
	err |= set(o, "kind", json_string(coll_kind_name(j->kind)));
	err |= set(o, "algo", json_string(coll_algo_name(j->algo)));
	err |= set(o, "iterations", json_integer(j->iterations));
	err |= set(o, "iterations_done", json_integer(c->iters));
	err |= set(o, "bytes", json_integer((json_int_t)j->bytes));
	err |= set(o, "status", json_string(rec_status_name(j->status)));
	err |= set(o, "verified", json_boolean(j->verified));
	err |= set(o, "reason", str(j->reason, sizeof(j->reason)));
	err |= set(o, "placement", str(j->placement, sizeof(j->placement)));
	err |= set(o, "censored", json_boolean(c->flags & COL_J_CENSORED));
	err |= set(o, "failed", json_boolean(c->flags & COL_J_FAILED));
	return err;
}

/* A Chakra trace's job's critical path as it ran (its operations in ops.csv's critical
 * column). */
static json_t *path_obj(const struct col_metrics *m, const struct col_job *c)
{
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= set(o, "ops", json_integer(c->path_ops));
	err |= set_secs(o, m, "comm", c->path_comm_ns);
	err |= set_secs(o, m, "compute", c->path_comp_ns);
	return done(o, err);
}

static int job_times(json_t *o, const struct col_metrics *m, const struct rec_job *j,
		     const struct col_job *c)
{
	int err = 0;

	err |= set(o, "arrival_ns", ns_int(j->arrival));
	err |= set(o, "start_ns", ns_int(j->start));
	err |= set(o, "finish_ns", ns_int(j->finish));
	err |= set_secs(o, m, "jwt", dns(c->jwt));
	err |= set_secs(o, m, "jrt", dns(c->jrt));
	err |= set_secs(o, m, "jct", dns(c->jct));
	err |= set_secs(o, m, "iter", c->iter_ns);
	err |= set_secs(o, m, "compute", c->compute_ns);
	err |= set_secs(o, m, "comm", c->comm_ns);
	err |= set_secs(o, m, "coll", c->coll_ns);
	err |= set(o, "algbw_GBps", num(c->algbw / 1e9));
	err |= set(o, "busbw_GBps", num(c->busbw / 1e9));
	if (c->path_ops) /* a Chakra trace's job */
		err |= set(o, "critical_path", path_obj(m, c));
	return err;
}

static json_t *job_obj(const struct col_metrics *m, const struct rec_job *j,
		       const struct col_job *c)
{
	json_t *o = json_object();

	return o ? done(o, job_ident(o, j, c) | job_times(o, m, j, c)) : NULL;
}

static json_t *jobs_arr(const struct rec_run *r, const struct col_metrics *m)
{
	json_t *a = json_array();
	int err = 0;
	size_t i;

	for (i = 0; a && !err && i < m->jobs.n; i++)
		err = json_array_append_new(a, job_obj(m, &r->jobs.v[i], &m->jobs.v[i])) ? -ENOMEM
											 : 0;
	return a ? done(a, err) : NULL;
}

static int flows_obj(json_t *o, const struct col_metrics *m)
{
	const struct col_flows *f = &m->flows;
	int err = 0;

	err |= set(o, "count", json_integer((json_int_t)f->count));
	err |= set(o, "complete", json_integer((json_int_t)f->complete));
	err |= set(o, "zero_length", json_integer((json_int_t)f->zero_len));
	err |= set(o, "throughput_count", json_integer((json_int_t)f->tput_count));
	err |= set_secs(o, m, "fct_p50", f->fct_p50);
	err |= set_secs(o, m, "fct_p99", f->fct_p99);
	err |= set_secs(o, m, "fct_mean", f->fct_mean);
	err |= set_secs(o, m, "fct_max", f->fct_max);
	err |= set(o, "throughput_mean_GBps", num(f->tput_mean / 1e9));
	return err;
}

static json_t *link_obj(const struct col_metrics *m, const struct col_link *l)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:b, s:I, s:I, s:I, s:o, s:o, s:I, s:o}", "link",
			      (json_int_t)l->link, "dir", (json_int_t)l->dir, "rate_bps",
			      (json_int_t)l->rate_bps, "shaped", (int)l->shaped, "samples",
			      (json_int_t)l->samples, "tx_bytes", (json_int_t)l->tx_bytes, "drops",
			      (json_int_t)l->drops, "util_mean", num(l->util_mean), "util_peak",
			      num(l->util_peak), "backlog_intervals", (json_int_t)l->bl_intervals,
			      "backlog_util", num(l->bl_util));

	if (!o)
		return NULL;
	return done(o, set_secs(o, m, "span", (double)l->span_ns) |
			       set_secs(o, m, "backlog", (double)l->bl_ns));
}

static json_t *links_arr(const struct col_metrics *m)
{
	json_t *a = json_array();
	int err = 0;
	size_t i;

	for (i = 0; a && !err && i < m->links.n; i++)
		err = json_array_append_new(a, link_obj(m, &m->links.v[i])) ? -ENOMEM : 0;
	return a ? done(a, err) : NULL;
}

void col_routing_sum(const struct rec_run *r, struct col_routing *out)
{
	double sum = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->paths_ms_max = -1;
	for (i = 0; i < r->routes.n; i++) {
		const struct rec_route *x = &r->routes.v[i];
		double ms = x->decide_ns == REC_NEVER ? 0 : (double)x->decide_ns / 1e6;

		out->retagged += x->retagged;
		if (x->commodities > out->commodities_max)
			out->commodities_max = x->commodities;
		if (x->max_load > out->max_load ||
		    (x->max_load == out->max_load && x->lower_bound > out->lower_bound)) {
			out->max_load = x->max_load;
			out->lower_bound = x->lower_bound;
		}
		sum += ms;
		out->decide_ms_max = ms > out->decide_ms_max ? ms : out->decide_ms_max;
		if (x->paths_ns != REC_NEVER && (double)x->paths_ns / 1e6 > out->paths_ms_max)
			out->paths_ms_max = (double)x->paths_ns / 1e6;
	}
	out->decisions = r->routes.n;
	out->decide_ms_mean = r->routes.n ? sum / (double)r->routes.n : 0;
}

/* A routing policy's decisions (routing.csv), or null without any. */
static json_t *routing_obj(const struct rec_run *r)
{
	struct col_routing x;
	json_t *o;
	int err = 0;

	col_routing_sum(r, &x);
	if (!x.decisions)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	err |= set(o, "decisions", json_integer((json_int_t)x.decisions));
	err |= set(o, "retagged", json_integer((json_int_t)x.retagged));
	err |= set(o, "commodities_max", json_integer(x.commodities_max));
	err |= set(o, "max_load", json_integer(x.max_load));
	err |= set(o, "lower_bound", json_integer(x.lower_bound));
	err |= set(o, "decide_ms_mean", json_real(x.decide_ms_mean));
	err |= set(o, "decide_ms_max", json_real(x.decide_ms_max));
	err |= set(o, "event_to_paths_ms_max",
		   x.paths_ms_max < 0 ? json_null() : json_real(x.paths_ms_max));
	return done(o, err);
}

/* The scheduler's counts, or null when the run did not say. */
static json_t *sched_obj(const struct col_summary_meta *meta)
{
	const struct col_sched_counts *c = meta ? meta->sched : NULL;
	json_t *o;
	int err = 0;

	if (!c || !c->known)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	err |= set(o, "fragmented_jobs", json_integer(c->frag_jobs));
	err |= set(o, "fragmented_tries", json_integer(c->frag_tries));
	err |= set(o, "gpu_tries", json_integer(c->gpu_tries));
	err |= set(o, "rewires", json_integer(c->rewires));
	return done(o, err);
}

/* The plots left out, each {"plot", "why"}. */
static json_t *skipped_arr(const struct col_summary_meta *meta)
{
	json_t *a = json_array(), *o;
	size_t i;
	int err = 0;

	for (i = 0; a && !err && i < meta->skipped_n; i++) {
		o = json_object();
		if (json_array_append_new(a, o)) /* o released, if any */
			return done(a, -ENOMEM);
		err = set(o, "plot", json_string(meta->skipped[i].name));
		err = err ? err : set(o, "why", json_string(meta->skipped[i].why));
	}
	return done(a, err);
}

/* The trace's rows left out, one count per reason (traffic/trace/job_trace.h) and their total. */
static json_t *trace_left_obj(const struct job_trace_left *l)
{
	json_t *o = json_object();
	int k, err = 0;

	if (!o)
		return NULL;
	for (k = 0; k < JT_LEFT_N; k++)
		err |= set(o, job_trace_left_why[k].key, json_integer(l->n[k]));
	err |= set(o, "total", json_integer(job_trace_left_total(l)));
	return done(o, err);
}

int col_summary_trace_left_from(const json_t *j, struct job_trace_left *l)
{
	const json_t *o = json_object_get(j, "trace_rows_left_out"), *v;
	int k;

	memset(l, 0, sizeof(*l));
	if (!json_is_object(o))
		return -ENOENT;
	for (k = 0; k < JT_LEFT_N; k++) {
		v = json_object_get(o, job_trace_left_why[k].key);
		l->n[k] = json_is_integer(v) ? (uint32_t)json_integer_value(v) : 0;
	}
	return 0;
}

json_t *col_summary_json(const struct rec_run *r, const struct col_metrics *m,
			 const struct col_summary_meta *meta)
{
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= set(o, "schema", json_string(COL_SUMMARY_SCHEMA));
	err |= set(o, "scenario", opt_str(meta ? meta->scenario : NULL));
	err |= set(o, "run_id", opt_str(meta ? meta->run_id : NULL));
	err |= set(o, "run", obj(run_obj, m));
	err |= set(o, "fidelity", obj(fid_obj, m));
	if (!err) {
		const char *be = meta && meta->backend ? meta->backend : "emulation";

		err |= set(json_object_get(o, "run"), "backend", json_string(be));
		if (!strcmp(be, "sim")) /* virtual time: no machine to limit it */
			err |= set(json_object_get(o, "fidelity"), "verdict", json_string("n/a"));
	}
	err |= set(o, "totals", obj(totals_obj, m));
	err |= set(o, "jobs", jobs_arr(r, m));
	err |= set(o, "flows", obj(flows_obj, m));
	err |= set(o, "links", links_arr(m));
	err |= set(o, "routing", routing_obj(r));
	err |= set(o, "scheduler", sched_obj(meta));
	if (meta && meta->md_n)
		err |= set(o, "multidim", col_md_results_json(meta->md, meta->md_n, r->dilation));
	if (meta && meta->skipped_n)
		err |= set(o, "plots_left_out", skipped_arr(meta));
	if (meta && meta->trace_left)
		err |= set(o, "trace_rows_left_out", trace_left_obj(meta->trace_left));
	return done(o, err);
}

char *col_summary_dumps(const struct rec_run *r, const struct col_metrics *m,
			const struct col_summary_meta *meta)
{
	json_t *o = col_summary_json(r, m, meta);
	char *s = o ? json_dumps(o, COL_SUMMARY_DUMP_FLAGS) : NULL;
	char *t = s ? realloc(s, strlen(s) + 2) : NULL;

	json_decref(o);
	if (!t) {
		free(s);
		return NULL;
	}
	strcat(t, "\n");
	return t;
}
