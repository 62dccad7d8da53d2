// SPDX-License-Identifier: MIT
/* The results folder's files (results.h): CSV records written and read back, summary.json's
 * run object, and the reports made from the files alone. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/summary.h"
#include "collect/topo_json.h"
#include "report/plot_run.h"
#include "report/results.h"
#include "policy/shape.h"

#define LINE_MAX_REC 4096

/* name in dir as JSON; -ENOENT quietly when absent, else 0 or -errno with d set. */
int res_json_read(const struct wdir *dir, const char *name, json_t **out, struct diag *d)
{
	char p[WDIR_PATH_MAX + 64];
	json_error_t e;
	size_t len;
	char *text;
	int r = wdir_read(dir, name, &text, &len);

	*out = NULL;
	if (r == -ENOENT)
		return r;
	wdir_join(p, sizeof(p), dir, name);
	if (r)
		return diag_set(d, r, "%s: %s", p, wdir_read_error(r));
	*out = json_loadb(text, len, 0, &e);
	free(text);
	return *out ? 0 : diag_set(d, -EINVAL, "%s:%d: %s", p, e.line, e.text);
}

/* ---- CSV files ---- */

typedef int (*rec_fmt)(char *buf, size_t len, const void *rec);
typedef int (*rec_parse)(const char *line, void *rec);

struct csv_kind {
	const char *file;
	const char *header;
	size_t size; /* of one record */
	rec_fmt fmt;
	rec_parse parse;
	const char *old; /* an earlier header the parser also reads, or NULL */
};

static int fmt_job(char *b, size_t l, const void *p)
{
	return rec_job_csv(b, l, p);
}
static int fmt_iter(char *b, size_t l, const void *p)
{
	return rec_iter_csv(b, l, p);
}
static int fmt_flow(char *b, size_t l, const void *p)
{
	return rec_flow_csv(b, l, p);
}
static int fmt_sample(char *b, size_t l, const void *p)
{
	return rec_sample_csv(b, l, p);
}
static int fmt_cpu(char *b, size_t l, const void *p)
{
	return rec_cpu_csv(b, l, p);
}
static int parse_job(const char *s, void *p)
{
	return rec_job_parse(s, p);
}
static int parse_iter(const char *s, void *p)
{
	return rec_iter_parse(s, p);
}
static int parse_flow(const char *s, void *p)
{
	return rec_flow_parse(s, p);
}
static int parse_sample(const char *s, void *p)
{
	return rec_sample_parse(s, p);
}
static int parse_cpu(const char *s, void *p)
{
	return rec_cpu_parse(s, p);
}
static int fmt_tcp(char *b, size_t n, const void *p)
{
	return rec_tcp_csv(b, n, p);
}
static int parse_tcp(const char *s, void *p)
{
	return rec_tcp_parse(s, p);
}
static int fmt_route(char *b, size_t n, const void *p)
{
	return rec_route_csv(b, n, p);
}
static int parse_route(const char *s, void *p)
{
	return rec_route_parse(s, p);
}

static int fmt_op(char *b, size_t n, const void *p)
{
	return rec_op_csv(b, n, p);
}
static int parse_op(const char *s, void *p)
{
	return rec_op_parse(s, p);
}

enum { K_JOBS, K_ITERS, K_FLOWS, K_LINKS, K_CPU, K_TCP, K_ROUTES, K_OPS, K_N };

static const struct csv_kind kinds[K_N] = {
	{"jobs.csv", rec_job_header, sizeof(struct rec_job), fmt_job, parse_job, rec_job_header_v1},
	{"iterations.csv", rec_iter_header, sizeof(struct rec_iter), fmt_iter, parse_iter, NULL},
	{"flows.csv", rec_flow_header, sizeof(struct rec_flow), fmt_flow, parse_flow, NULL},
	{"links.csv", rec_sample_header, sizeof(struct rec_sample), fmt_sample, parse_sample, NULL},
	{"cpu.csv", rec_cpu_header, sizeof(struct rec_cpu), fmt_cpu, parse_cpu, rec_cpu_header_v1},
	{"tcp.csv", rec_tcp_header, sizeof(struct rec_tcp), fmt_tcp, parse_tcp, NULL},
	{"routing.csv", rec_route_header, sizeof(struct rec_route), fmt_route, parse_route, NULL},
	{"ops.csv", rec_op_header, sizeof(struct rec_op), fmt_op, parse_op, NULL},
};

/* The vector of rec holding kind k, as a raw (data, n, cap) triple. */
static void vec_of(struct rec_run *rec, int k, void ***data, size_t **n, size_t **cap)
{
	switch (k) {
	case K_JOBS:
		*data = (void **)&rec->jobs.v, *n = &rec->jobs.n, *cap = &rec->jobs.cap;
		break;
	case K_ITERS:
		*data = (void **)&rec->iters.v, *n = &rec->iters.n, *cap = &rec->iters.cap;
		break;
	case K_FLOWS:
		*data = (void **)&rec->flows.v, *n = &rec->flows.n, *cap = &rec->flows.cap;
		break;
	case K_LINKS:
		*data = (void **)&rec->samples.v, *n = &rec->samples.n, *cap = &rec->samples.cap;
		break;
	case K_CPU:
		*data = (void **)&rec->cpu.v, *n = &rec->cpu.n, *cap = &rec->cpu.cap;
		break;
	case K_TCP:
		*data = (void **)&rec->tcp.v, *n = &rec->tcp.n, *cap = &rec->tcp.cap;
		break;
	case K_ROUTES:
		*data = (void **)&rec->routes.v, *n = &rec->routes.n, *cap = &rec->routes.cap;
		break;
	default:
		*data = (void **)&rec->ops.v, *n = &rec->ops.n, *cap = &rec->ops.cap;
	}
}

/* Records one thread formats at once: a large file (flows.csv of a paper-scale run holds
 * millions of lines) is formatted by two threads, block by block, and written in order. */
#define CSV_BLOCK 16384

/* A block of records formatted into text. */
struct csv_block {
	const struct csv_kind *k;
	const char *recs; /* its first record */
	size_t n;
	char *buf;
	size_t len, cap;
	int err; /* -EOVERFLOW: a line was cut; -ENOMEM */
};

static void *format_block(void *arg)
{
	struct csv_block *b = arg;
	size_t i;
	char *nb;
	int len;

	b->len = 0;
	for (i = 0; i < b->n; i++) {
		if (b->cap - b->len < LINE_MAX_REC) {
			nb = realloc(b->buf, 2 * b->cap + LINE_MAX_REC);
			if (!nb) {
				b->err = -ENOMEM;
				break;
			}
			b->buf = nb;
			b->cap = 2 * b->cap + LINE_MAX_REC;
		}
		len = b->k->fmt(b->buf + b->len, LINE_MAX_REC, b->recs + i * b->k->size);
		if (len >= LINE_MAX_REC)
			b->err = -EOVERFLOW;
		b->len += len >= 0 && len < LINE_MAX_REC ? (size_t)len : strlen(b->buf + b->len);
	}
	return NULL;
}

/* Records [at, at + CSV_BLOCK) of n, as many as there are. */
static size_t block_n(size_t n, size_t at)
{
	return at >= n ? 0 : n - at < CSV_BLOCK ? n - at : CSV_BLOCK;
}

/* Blocks [i, i + CSV_BLOCK) and the next of n records formatted, the second by a thread of
 * its own when one starts. */
static void format_pair(struct csv_block *b, const void *recs, size_t n, size_t i)
{
	pthread_t th;
	bool threaded;
	int k;

	for (k = 0; k < 2; k++) {
		b[k].recs = (const char *)recs + (i + k * CSV_BLOCK) * b[k].k->size;
		b[k].n = block_n(n, i + k * CSV_BLOCK);
	}
	threaded = b[1].n && !pthread_create(&th, NULL, format_block, &b[1]);
	format_block(&b[0]);
	if (threaded)
		pthread_join(th, NULL);
	else
		format_block(&b[1]);
}

/* The first error of either block: out of memory before a cut line. */
static int blocks_err(const struct csv_block *b)
{
	if (b[0].err == -ENOMEM || b[1].err == -ENOMEM)
		return -ENOMEM;
	return b[0].err ? b[0].err : b[1].err;
}

static int write_csv(const struct wdir *dir, const struct csv_kind *k, const void *recs, size_t n,
		     struct diag *d)
{
	struct csv_block b[2] = {{.k = k}, {.k = k}};
	char p[WDIR_PATH_MAX + 64];
	struct wfile f;
	size_t i;
	int r = wfile_open(&f, dir, k->file, WDIR_REPLACE, d); /* ours only (wdir.h) */

	if (r)
		return r;
	wfile_write(&f, k->header, strlen(k->header));
	wfile_write(&f, "\n", 1);
	for (i = 0; i < n && !blocks_err(b) && !f.err; i += 2 * CSV_BLOCK) {
		format_pair(b, recs, n, i);
		wfile_write(&f, b[0].buf, b[0].len);
		wfile_write(&f, b[1].buf, b[1].len);
	}
	r = blocks_err(b);
	free(b[0].buf);
	free(b[1].buf);
	if (r) {
		wfile_abort(&f);
		return diag_set(d, r, "writing %s: %s", wdir_join(p, sizeof(p), dir, k->file),
				r == -EOVERFLOW ? "a record longer than a line" : strerror(-r));
	}
	return wfile_commit(&f, d);
}

int res_records_write(const struct wdir *dir, const struct rec_run *rec, struct diag *d)
{
	struct rec_run *w = (struct rec_run *)rec; /* vec_of is shared with the reader */
	size_t *n, *cap;
	void **data;
	int k, r = 0;

	for (k = 0; !r && k < K_N; k++) {
		vec_of(w, k, &data, &n, &cap);
		if ((k == K_ROUTES || k == K_TCP || k == K_OPS) && !*n)
			continue; /* no routing policy decided anything; no TCP counters (sim); no
				   * Chakra trace's job */
		r = write_csv(dir, &kinds[k], *data, *n, d);
	}
	return r;
}

/* Parses every record after the header of text into the vector for kind k. */
static int parse_csv(char *text, size_t len, int k, struct rec_run *rec, size_t *lineno)
{
	const struct csv_kind *ck = &kinds[k];
	size_t pos = strcspn(text, "\n"), rl, *n, *cap;
	void **data;
	char save;

	if ((strncmp(text, ck->header, pos) || pos != strlen(ck->header)) &&
	    (!ck->old || strncmp(text, ck->old, pos) || pos != strlen(ck->old)))
		return -EBADMSG;
	vec_of(rec, k, &data, &n, &cap);
	for (pos += pos < len, *lineno = 2; pos < len; pos += rl, (*lineno)++) {
		rl = rec_csv_record_len(text + pos);
		if (vec_reserve_raw(data, cap, *n + 1, ck->size))
			return -ENOMEM;
		save = text[pos + rl];
		text[pos + rl] = '\0';
		if (ck->parse(text + pos, (char *)*data + *n * ck->size))
			return -EINVAL;
		text[pos + rl] = save;
		(*n)++;
	}
	return 0;
}

/* res_records_read, but flows.csv and links.csv only if all is set. */
static int records_read(const struct wdir *dir, struct rec_run *rec, bool all, struct diag *d)
{
	char p[WDIR_PATH_MAX + 64];
	size_t len, line = 0;
	char *text;
	int k, r;

	for (k = 0; k < K_N; k++) {
		if ((k == K_FLOWS || k == K_LINKS) && !all)
			continue;
		wdir_join(p, sizeof(p), dir, kinds[k].file);
		r = wdir_read(dir, kinds[k].file, &text, &len);
		if (r == -ENOENT &&
		    (k == K_LINKS || k == K_CPU || k == K_TCP || k == K_ROUTES || k == K_OPS))
			continue; /* a run without sampling (or older), or without a routing policy
				   */
		if (r)
			return diag_set(d, r, "%s: %s", p, wdir_read_error(r));
		r = parse_csv(text, len, k, rec, &line);
		free(text);
		if (r == -EBADMSG)
			return diag_set(d, -EINVAL, "%s: the header is not '%s'", p,
					kinds[k].header);
		if (r)
			return diag_set(d, r, "%s:%zu: %s", p, line,
					r == -EINVAL ? "not a record of this file" : strerror(-r));
	}
	return 0;
}

int res_records_read(const struct wdir *dir, struct rec_run *rec, struct diag *d)
{
	return records_read(dir, rec, true, d);
}

/* shaped[link * 2 + dir]: whether a shaping qdisc sits on that egress (policy/shape.h). */
static uint8_t *shaped_dirs(const struct topo *t, const struct scn_shaping *cfg)
{
	uint8_t *sh = calloc(t->links.n * 2 + 1, 1);
	struct shape_params sp;
	size_t p;

	for (p = 0; sh && p < t->ports.n; p++) {
		const struct topo_port *tp = &t->ports.v[p];

		if (!shape_derive(topo_port_rate(t, (uint32_t)p), t->links.v[tp->link].delay_ns,
				  cfg, &sp, NULL))
			sh[tp->link * 2 + tp->side] = sp.kind != SHAPE_NONE;
	}
	return sh;
}

int res_write_topology(const struct wdir *dir, const struct topo *t, const struct scn_shaping *cfg,
		       struct diag *d)
{
	uint8_t *sh = shaped_dirs(t, cfg);
	json_t *j = sh ? col_topo_json(t, sh) : NULL;
	char *text = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
	int err = text ? wdir_write(dir, "topology.json", text, strlen(text), WDIR_REPLACE, d)
		       : diag_set(d, -ENOMEM, "out of memory for topology.json");

	free(text);
	json_decref(j);
	free(sh);
	return err;
}

/* ---- summary.json's run object ---- */

void res_info_normalize(struct res_info *info)
{
	char b[64];

	snprintf(b, sizeof(b), "%.15g", info->dilation); /* COL_SUMMARY_DUMP_FLAGS' precision */
	info->dilation = strtod(b, NULL);
}

/* summary.json's scheduler counts; absent or null: not known. */
static void sched_from(const json_t *o, struct col_sched_counts *c)
{
	const json_t *fj = json_object_get(o, "fragmented_jobs");
	const json_t *ft = json_object_get(o, "fragmented_tries");
	const json_t *rw = json_object_get(o, "rewires");

	memset(c, 0, sizeof(*c));
	if (!json_is_integer(fj) || !json_is_integer(ft) || !json_is_integer(rw))
		return;
	c->known = true;
	c->frag_jobs = (uint32_t)json_integer_value(fj);
	c->frag_tries = (uint32_t)json_integer_value(ft);
	c->rewires = (uint32_t)json_integer_value(rw);
	/* absent from a folder written before it */
	c->gpu_tries = (uint32_t)json_integer_value(json_object_get(o, "gpu_tries"));
}

static int info_from(const json_t *j, struct res_info *info)
{
	const json_t *run = json_object_get(j, "run"), *end = json_object_get(run, "end_ns");
	const char *sc = json_string_value(json_object_get(j, "scenario"));
	const char *id = json_string_value(json_object_get(j, "run_id"));
	const char *be;

	if (!json_is_number(json_object_get(run, "dilation")))
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	snprintf(info->scenario, sizeof(info->scenario), "%s", sc ? sc : "");
	snprintf(info->run_id, sizeof(info->run_id), "%s", id ? id : "");
	be = json_string_value(json_object_get(run, "backend"));
	snprintf(info->backend, sizeof(info->backend), "%s", be ? be : "emulation");
	info->dilation = json_number_value(json_object_get(run, "dilation"));
	info->t_end = json_is_integer(end) ? json_integer_value(end) : REC_NEVER;
	sched_from(json_object_get(j, "scheduler"), &info->sched);
	info->trace_known = !col_summary_trace_left_from(j, &info->trace_left);
	return info->dilation > 0 ? 0 : -EINVAL;
}

int res_info_read(const struct wdir *dir, struct res_info *info, struct diag *d)
{
	char p[WDIR_PATH_MAX + 64];
	json_t *j;
	int r = res_json_read(dir, "summary.json", &j, d);

	wdir_join(p, sizeof(p), dir, "summary.json");
	if (r == -ENOENT)
		return diag_set(d, r, "%s: %s", p, strerror(-r));
	if (r)
		return r;
	r = info_from(j, info);
	json_decref(j);
	if (r)
		return diag_set(d, r, "%s: no run object with a dilation above 0", p);
	return 0;
}

/* ---- reports ---- */

/* topology.json into ti; a folder without one (records only) has no rates. */
static int read_topo(const struct wdir *dir, struct col_topo_info *ti, struct diag *d)
{
	json_t *j;
	int r = res_json_read(dir, "topology.json", &j, d);

	memset(ti, 0, sizeof(*ti));
	if (r)
		return r == -ENOENT ? 0 : r;
	r = col_topo_info_parse(j, ti, d);
	json_decref(j);
	return r ? diag_wrap(d, r, "%s: ", dir->path) : 0;
}

/* The chunked multi-dimensional collectives of schedule.json, measured in rec (none
 * without the file). */
static int read_md(const struct wdir *dir, const struct rec_run *rec, col_md_results *out,
		   struct diag *d)
{
	col_md_jobs jobs = {0};
	json_t *j;
	int r = res_json_read(dir, "schedule.json", &j, d);

	if (r)
		return r == -ENOENT ? 0 : r;
	r = col_md_schedule_parse(j, &jobs, d);
	json_decref(j);
	r = r ? r : col_md_measure(rec, jobs.v, jobs.n, out);
	vec_free(&jobs);
	if (r == -ENOMEM)
		diag_set(d, r, "out of memory");
	return r ? diag_wrap(d, r, "%s: ", dir->path) : 0;
}

static int write_summary(const struct wdir *dir, const struct rec_run *rec,
			 const struct col_metrics *m, const struct res_info *info,
			 const col_md_results *md, const struct col_plots *p, char **txt,
			 struct diag *d)
{
	struct col_summary_meta meta = {
		info->scenario, info->run_id, info->backend[0] ? info->backend : NULL,
		&info->sched,	md->v,	      md->n,
		p->skipped.v,	p->skipped.n, info->trace_known ? &info->trace_left : NULL};
	char *json = col_summary_dumps(rec, m, &meta), *text = NULL;
	int n = col_summary_txt(NULL, 0, rec, m, &meta), r = -ENOMEM;

	if (json && n >= 0)
		text = malloc((size_t)n + 1);
	if (text) {
		col_summary_txt(text, (size_t)n + 1, rec, m, &meta);
		r = wdir_write(dir, "summary.json", json, strlen(json), WDIR_REPLACE, d);
		r = r ? r : wdir_write(dir, "summary.txt", text, (size_t)n, WDIR_REPLACE, d);
	} else {
		r = diag_set(d, -ENOMEM, "out of memory for the summary");
	}
	free(json);
	if (!r && txt)
		*txt = text;
	else
		free(text);
	return r;
}

int res_load(const struct wdir *dir, const struct res_info *info, struct rec_run *wrote,
	     struct res_run *out, struct diag *d)
{
	struct col_links_cfg lc;
	int err;

	memset(out, 0, sizeof(*out));
	out->info = *info;
	err = read_topo(dir, &out->ti, d);
	err = err ? err : records_read(dir, &out->rec, !wrote, d);
	if (!err && wrote) { /* moved: flows.csv and links.csv hold them exactly (integers) */
		out->rec.flows = wrote->flows;
		memset(&wrote->flows, 0, sizeof(wrote->flows));
		out->rec.samples = wrote->samples;
		memset(&wrote->samples, 0, sizeof(wrote->samples));
	}
	out->rec.dilation = info->dilation;
	out->rec.t_end = info->t_end;
	lc = col_topo_links_cfg(&out->ti);
	err = err ? err : col_metrics_build(&out->rec, &lc, NULL, &out->m, d);
	err = err ? err : read_md(dir, &out->rec, &out->md, d);
	if (err)
		res_run_done(out);
	return err;
}

void res_run_done(struct res_run *x)
{
	if (!x)
		return;
	rec_run_done(&x->rec);
	col_topo_info_done(&x->ti);
	col_metrics_done(&x->m);
	vec_free(&x->md);
	memset(x, 0, sizeof(*x));
}

int res_report(const struct wdir *dir, const struct res_info *info, struct rec_run *wrote,
	       struct res_run *out, char **txt, struct diag *warn, struct diag *d)
{
	struct col_plots p = {0};
	struct res_run x;
	bool plots;
	int err;

	err = res_load(dir, info, wrote, &x, d);
	/* made first: the summary says which were left out and why */
	plots = !err && !plot_run_make(&p, &x.rec, &x.m, &x.ti, info, warn);
	err = err ? err : write_summary(dir, &x.rec, &x.m, info, &x.md, &p, txt, d);
	if (!err && plots)
		(void)plot_write(dir, &p, warn);
	col_plots_done(&p);
	if (!err && out)
		*out = x;
	else
		res_run_done(&x);
	return err;
}
