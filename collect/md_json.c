// SPDX-License-Identifier: MIT
/* schedule.json and summary.json's "multidim" (md.h, docs/results.md). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collect/md.h"
#include "traffic/themis.h"

static const char *const sched_names[] = {"baseline", "themis"};
static const char *const intra_names[] = {"fifo", "scf"};
/* enum coll_md_algo */
static const char *const algo_names[] = {"ring", "direct", "hd"};

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *dims_json(const struct coll_md *md)
{
	json_t *a = json_array();
	uint32_t k;

	for (k = 0; a && k < md->ndims; k++)
		if (json_array_append_new(a, json_pack("{s:I, s:s, s:I, s:I}", "size",
						       (json_int_t)md->dim[k].size, "algorithm",
						       algo_names[md->dim[k].algo], "active",
						       (json_int_t)md->dim[k].active, "rate_bps",
						       (json_int_t)md->dim[k].rate))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* [[d, d, ...] per chunk]: the dimension of each stage. */
static json_t *orders_json(const struct themis_plan *pl)
{
	json_t *a = json_array(), *c;
	uint32_t i, s;

	for (i = 0; a && i < pl->chunks; i++) {
		c = json_array();
		for (s = 0; c && s < pl->nphases; s++)
			json_array_append_new(c, json_integer(pl->ops[i * pl->nphases + s].dim));
		if (json_array_append_new(a, c)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Per dimension, its chunk operations in the order every node runs them: [chunk, stage,
 * predicted start, predicted end]. */
static json_t *seq_json(const struct themis_plan *pl)
{
	json_t *a = json_array(), *d;
	uint32_t k, i, per = pl->per_dim;

	for (k = 0; a && k < pl->ndims; k++) {
		d = json_array();
		for (i = 0; d && i < per; i++) {
			const struct themis_op *op = &pl->ops[pl->seq[k * per + i]];

			json_array_append_new(d,
					      json_pack("[I, I, f, f]", (json_int_t)op->chunk,
							(json_int_t)op->phase, op->start, op->end));
		}
		if (json_array_append_new(a, d)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *job_json(const struct col_md_job *j, struct diag *d)
{
	struct themis_plan pl = {0};
	json_t *o;

	if (themis_plan_build(&j->md, (double)j->bytes, &pl, d))
		return NULL;
	o = json_pack("{s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:{s:f, s:f}}", "job",
		      (json_int_t)j->job, "collective", coll_kind_name(j->md.kind), "schedule",
		      sched_names[j->md.sched & 1], "intra", intra_names[j->md.intra & 1], "chunks",
		      (json_int_t)j->md.chunks, "threshold", (json_int_t)j->md.thr_div, "bytes",
		      (json_int_t)j->bytes, "dims", dims_json(&j->md), "orders", orders_json(&pl),
		      "dim_order", seq_json(&pl), "predicted", "makespan_s", pl.makespan, "ideal_s",
		      pl.t_ideal);
	themis_plan_done(&pl);
	if (!o)
		diag_set(d, -ENOMEM, "out of memory");
	return o;
}

json_t *col_md_schedule_json(const struct col_md_job *jobs, size_t n, struct diag *d)
{
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; a && i < n; i++) {
		o = job_json(&jobs[i], d);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	if (!a)
		diag_set(d, -ENOMEM, "out of memory");
	return a ? json_pack("{s:s, s:o}", "schema", "testbed-schedule/1", "jobs", a) : NULL;
}

/* The index of name in names[0..n), or -1. */
static int find(const char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static int parse_dims(const json_t *a, struct coll_md *md)
{
	const json_t *o;
	size_t k;

	if (!json_is_array(a) || !json_array_size(a) || json_array_size(a) > COLL_MD_DIMS)
		return -EINVAL;
	md->ndims = (uint8_t)json_array_size(a);
	json_array_foreach(a, k, o)
	{
		int algo = find(algo_names, 3, json_string_value(json_object_get(o, "algorithm")));
		json_int_t size = json_integer_value(json_object_get(o, "size"));
		json_int_t active = json_integer_value(json_object_get(o, "active"));
		json_int_t rate = json_integer_value(json_object_get(o, "rate_bps"));

		if (algo < 0 || size < 2 || active < 1 || active > 255 || rate < 1)
			return -EINVAL;
		md->dim[k] = (struct coll_md_dim){.size = (uint32_t)size,
						  .algo = (uint8_t)algo,
						  .active = (uint8_t)active,
						  .rate = (uint64_t)rate};
	}
	return 0;
}

static int parse_job(const json_t *o, struct col_md_job *j)
{
	int sched = find(sched_names, 2, json_string_value(json_object_get(o, "schedule")));
	int intra = find(intra_names, 2, json_string_value(json_object_get(o, "intra")));
	json_int_t id = json_integer_value(json_object_get(o, "job"));
	json_int_t chunks = json_integer_value(json_object_get(o, "chunks"));
	json_int_t thr = json_integer_value(json_object_get(o, "threshold"));
	json_int_t bytes = json_integer_value(json_object_get(o, "bytes"));
	enum coll_kind kind;

	memset(j, 0, sizeof(*j));
	if (sched < 0 || intra < 0 || id < 0 || chunks < 1 || chunks > 65535 || thr < 1 ||
	    bytes < 1 ||
	    coll_kind_parse(json_string_value(json_object_get(o, "collective")), &kind) ||
	    kind == COLL_ALLTOALL)
		return -EINVAL;
	j->md.kind = (uint8_t)kind;
	j->job = (uint32_t)id;
	j->bytes = (uint64_t)bytes;
	j->md.sched = (uint8_t)sched;
	j->md.intra = (uint8_t)intra;
	j->md.chunks = (uint32_t)chunks;
	j->md.thr_div = (uint32_t)thr;
	return parse_dims(json_object_get(o, "dims"), &j->md);
}

int col_md_schedule_parse(const json_t *j, col_md_jobs *out, struct diag *d)
{
	const json_t *a = json_object_get(j, "jobs"), *o;
	struct col_md_job *x;
	size_t i;

	if (!json_is_array(a))
		return diag_set(d, -EINVAL, "schedule.json: no jobs list");
	json_array_foreach(a, i, o)
	{
		x = vec_grow(out);
		if (!x)
			return diag_set(d, -ENOMEM, "out of memory");
		if (parse_job(o, x))
			return diag_set(d, -EINVAL, "schedule.json: job entry %zu is not one", i);
	}
	return 0;
}

static json_t *dim_list(const double *v, uint8_t n)
{
	json_t *a = json_array();
	uint8_t k;

	for (k = 0; a && k < n; k++)
		json_array_append_new(a, num(v[k]));
	return a;
}

json_t *col_md_results_json(const struct col_md_result *res, size_t n, double dilation)
{
	double D = dilation > 0 ? dilation : 1.0;
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < n; i++) {
		const struct col_md_result *x = &res[i];

		if (json_array_append_new(
			    a, json_pack("{s:I, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "job",
					 (json_int_t)x->job, "collective", coll_kind_name(x->kind),
					 "iterations", (json_int_t)x->iters, "collective_s",
					 num(x->t_s / D), "ideal_s", num(x->t_ideal_s / D),
					 "utilization", num(x->util), "dim_bytes",
					 dim_list(x->dim_bytes, x->ndims), "dim_utilization",
					 dim_list(x->dim_util, x->ndims), "dim_activity",
					 dim_list(x->dim_active, x->ndims)))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}
