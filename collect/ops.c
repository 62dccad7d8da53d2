// SPDX-License-Identifier: MIT
/* A Chakra trace's job's critical path as it ran (metrics.h, col_ops_build): from ops.csv's
 * rows on the path with nothing shared, the time its operations covered, communication and
 * compute apart. A collective's members run together, so overlapping rows of one kind are
 * one operation: each kind's intervals are merged before they are counted. */
#include <errno.h>
#include <stdlib.h>

#include "collect/metrics.h"
#include "traffic/chakra/chakra.h"

struct span {
	int64_t t0, t1;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* The union of v[0..n)'s intervals: its length, and how many separate pieces it has. */
static double merged(struct span *v, size_t n, uint32_t *pieces)
{
	double len = 0;
	int64_t a = 0, b = 0;
	size_t i;

	qsort(v, n, sizeof(*v), cmp_span);
	for (i = 0; i < n; i++) {
		if (i && v[i].t0 < b) { /* overlapping: one operation; end to end: two */
			b = v[i].t1 > b ? v[i].t1 : b;
			continue;
		}
		len += i ? (double)(b - a) : 0;
		a = v[i].t0;
		b = v[i].t1;
		++*pieces;
	}
	return len + (n ? (double)(b - a) : 0);
}

static bool is_comm(uint8_t kind)
{
	return kind == CHAKRA_COLL || kind == CHAKRA_SEND || kind == CHAKRA_RECV;
}

/* Job o's path from r's rows (comm: communication, else compute) into v (scratch). */
static double job_path(const struct rec_run *r, uint32_t job, bool comm, struct span *v,
		       uint32_t *pieces)
{
	size_t i, n = 0;

	for (i = 0; i < r->ops.n; i++) {
		const struct rec_op *x = &r->ops.v[i];

		if (x->job == job && x->critical && is_comm(x->kind) == comm &&
		    x->t_start != REC_NEVER && x->t_end != REC_NEVER)
			v[n++] = (struct span){x->t_start, x->t_end};
	}
	return merged(v, n, pieces);
}

int col_ops_build(const struct rec_run *r, struct col_metrics *m)
{
	struct span *v;
	size_t i;

	if (!r->ops.n)
		return 0;
	v = malloc(r->ops.n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < m->jobs.n; i++) {
		struct col_job *c = &m->jobs.v[i];

		c->path_comm_ns = job_path(r, c->id, true, v, &c->path_ops);
		c->path_comp_ns = job_path(r, c->id, false, v, &c->path_ops);
	}
	free(v);
	return 0;
}
