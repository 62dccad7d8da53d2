// SPDX-License-Identifier: MIT
/* The chunked multi-dimensional collective as measured (md.h). A flow belongs to the
 * dimension in which its two ranks' coordinates differ (rank = c_0 + P_0 (c_1 + ...), as the
 * nodes of a multidim topology); its phase names the chunk operation (chunk * stages + stage). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collect/md.h"
#include "traffic/themis.h"

/* The dimension in which ranks a and b differ (the first, if several), or -1. */
static int flow_dim(const struct coll_md *md, uint32_t a, uint32_t b)
{
	uint32_t k;

	for (k = 0; k < md->ndims; k++) {
		uint32_t p = md->dim[k].size;

		if (a % p != b % p)
			return (int)k;
		a /= p;
		b /= p;
	}
	return -1;
}

/* One iteration of one job: when each rank's collective began and ended, and each chunk
 * operation's first send and last receive on each rank. */
struct iter_ops {
	uint32_t nodes, ops; /* ranks; chunk operations (C * stages) */
	int64_t *begin, *end; /* [rank]: the collective on that rank (REC_NEVER: not seen) */
	int64_t *op_start, *op_end; /* [rank * ops + op] */
	int8_t *op_dim; /* [op]: -1 until a flow names it */
};

static void iter_ops_done(struct iter_ops *x)
{
	free(x->begin);
	free(x->end);
	free(x->op_start);
	free(x->op_end);
	free(x->op_dim);
	memset(x, 0, sizeof(*x));
}

static int iter_ops_init(struct iter_ops *x, uint32_t nodes, uint32_t ops)
{
	size_t i, n = (size_t)nodes * ops;

	memset(x, 0, sizeof(*x));
	x->nodes = nodes;
	x->ops = ops;
	x->begin = malloc(nodes * sizeof(*x->begin));
	x->end = malloc(nodes * sizeof(*x->end));
	x->op_start = malloc((n + 1) * sizeof(*x->op_start));
	x->op_end = malloc((n + 1) * sizeof(*x->op_end));
	x->op_dim = malloc(ops + 1);
	if (!x->begin || !x->end || !x->op_start || !x->op_end || !x->op_dim) {
		iter_ops_done(x);
		return -ENOMEM;
	}
	for (i = 0; i < nodes; i++)
		x->begin[i] = x->end[i] = REC_NEVER;
	for (i = 0; i < n; i++)
		x->op_start[i] = x->op_end[i] = REC_NEVER;
	memset(x->op_dim, 0xff, ops + 1);
	return 0;
}

/* Earliest of two instants, REC_NEVER meaning none. */
static int64_t t_min(int64_t a, int64_t b)
{
	return a == REC_NEVER || (b != REC_NEVER && b < a) ? b : a;
}

static int64_t t_max(int64_t a, int64_t b)
{
	return a == REC_NEVER || (b != REC_NEVER && b > a) ? b : a;
}

/* Iteration `iter` of job j's records into x; the bytes of its flows per dimension added to
 * bytes[]. Returns whether every rank finished it. */
static bool iter_read(const struct rec_run *r, const struct col_md_job *j, uint32_t iter,
		      struct iter_ops *x, double *bytes)
{
	uint32_t n;
	size_t i;

	for (i = 0; i < r->iters.n; i++) {
		const struct rec_iter *it = &r->iters.v[i];

		if (it->job == j->job && it->iter == iter && it->rank < x->nodes) {
			x->begin[it->rank] = it->t_compute_end;
			x->end[it->rank] = it->t_end;
		}
	}
	for (n = 0; n < x->nodes; n++)
		if (x->begin[n] == REC_NEVER || x->end[n] == REC_NEVER)
			return false;
	for (i = 0; i < r->flows.n; i++) {
		const struct rec_flow *f = &r->flows.v[i];
		int k;

		if (f->job != j->job || f->iter != iter || f->phase >= x->ops ||
		    f->src >= x->nodes || f->dst >= x->nodes)
			continue;
		k = flow_dim(&j->md, f->src, f->dst);
		if (k < 0)
			continue;
		x->op_dim[f->phase] = (int8_t)k;
		bytes[k] += (double)f->bytes;
		x->op_start[(size_t)f->src * x->ops + f->phase] =
			t_min(x->op_start[(size_t)f->src * x->ops + f->phase], f->t_start);
		x->op_end[(size_t)f->dst * x->ops + f->phase] =
			t_max(x->op_end[(size_t)f->dst * x->ops + f->phase], f->t_end);
	}
	return true;
}

struct span {
	int64_t a, b;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* Length of the union of s[0..n) (sorted here). */
static int64_t union_len(struct span *s, size_t n)
{
	int64_t total = 0, a, b;
	size_t i;

	if (!n)
		return 0;
	qsort(s, n, sizeof(*s), span_cmp);
	a = s[0].a;
	b = s[0].b;
	for (i = 1; i < n; i++) {
		if (s[i].a > b) {
			total += b - a;
			a = s[i].a;
		}
		if (s[i].b > b)
			b = s[i].b;
	}
	return total + (b - a);
}

/* Frontend activity of rank n in x: per dimension, the share of its collective's time with an
 * operation of that dimension queued (its input ready: the chunk's previous stage ended here,
 * or the collective began) or running; added to act[]. */
static void rank_activity(const struct iter_ops *x, const struct coll_md *md, uint32_t n,
			  struct span *sp, double *act)
{
	uint32_t stages = themis_phases(md), k, c, s;
	int64_t dur = x->end[n] - x->begin[n];

	for (k = 0; k < md->ndims && dur > 0; k++) {
		size_t m = 0;

		for (c = 0; c < md->chunks; c++) {
			int64_t ready = x->begin[n];

			for (s = 0; s < stages; s++) {
				uint32_t op = c * stages + s;
				int64_t end = x->op_end[(size_t)n * x->ops + op];

				if (end == REC_NEVER)
					continue; /* no step here (an empty part) */
				if (x->op_dim[op] == (int8_t)k && end > ready)
					sp[m++] = (struct span){ready, end};
				ready = end;
			}
		}
		act[k] += (double)union_len(sp, m) / (double)dur;
	}
}

/* One job's result from its complete iterations. */
static int measure_job(const struct rec_run *r, const struct col_md_job *j,
		       struct col_md_result *res, bool *any)
{
	uint32_t nodes = (uint32_t)themis_nodes(&j->md), ops = j->md.chunks * themis_phases(&j->md),
		 it, n, k;
	uint32_t iters = 0;
	double t_sum = 0, act[COLL_MD_DIMS] = {0};
	struct span *sp = malloc(((size_t)ops + 1) * sizeof(*sp));
	struct iter_ops x;
	size_t i;

	memset(res, 0, sizeof(*res));
	*any = false;
	if (!sp)
		return -ENOMEM;
	for (i = 0, it = 0; i < r->jobs.n; i++)
		if (r->jobs.v[i].id == j->job)
			it = r->jobs.v[i].iterations;
	for (uint32_t iter = 0; iter < it; iter++) {
		int64_t b = REC_NEVER, e = REC_NEVER;

		if (iter_ops_init(&x, nodes, ops)) {
			free(sp);
			return -ENOMEM;
		}
		if (iter_read(r, j, iter, &x, res->dim_bytes)) {
			for (n = 0; n < nodes; n++) {
				b = t_min(b, x.begin[n]);
				e = t_max(e, x.end[n]);
				rank_activity(&x, &j->md, n, sp, act);
			}
			t_sum += (double)(e - b) * 1e-9;
			iters++;
		}
		iter_ops_done(&x);
	}
	free(sp);
	if (!iters)
		return 0;
	*any = true;
	res->job = j->job;
	res->ndims = j->md.ndims;
	res->kind = j->md.kind;
	res->iters = iters;
	res->t_s = t_sum / iters;
	res->t_ideal_s = themis_t_ideal(&j->md, (double)j->bytes);
	res->util = res->t_s > 0 ? res->t_ideal_s / res->t_s : NAN;
	for (k = 0; k < j->md.ndims; k++) {
		res->dim_bytes[k] /= (double)nodes * iters;
		res->dim_util[k] = res->t_s > 0 ? res->dim_bytes[k] * 8.0 /
							  (res->t_s * (double)j->md.dim[k].rate)
						: NAN;
		res->dim_active[k] = act[k] / ((double)nodes * iters);
	}
	return 0;
}

int col_md_measure(const struct rec_run *r, const struct col_md_job *jobs, size_t n,
		   col_md_results *out)
{
	struct col_md_result res;
	bool any;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		err = measure_job(r, &jobs[i], &res, &any);
		if (err)
			return err;
		if (any && vec_push(out, res))
			return -ENOMEM;
	}
	return 0;
}
