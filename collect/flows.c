// SPDX-License-Identifier: MIT
/* Flow metrics: FCT = t_end - t_start per flow (the sender issued it, the receiver got its
 * last byte), throughput = bytes / FCT, and the run's FCT percentiles (nearest rank). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "collect/internal.h"
#include "collect/metrics.h"
#include "lib/sort.h"

int64_t col_flow_fct(const struct rec_flow *f)
{
	if (f->t_start == REC_NEVER || f->t_end == REC_NEVER)
		return COL_NONE;
	return f->t_end - f->t_start;
}

double col_flow_tput(const struct rec_flow *f)
{
	int64_t fct = col_flow_fct(f);

	if (fct == COL_NONE || fct <= 0 || !f->bytes)
		return NAN;
	return (double)f->bytes / ((double)fct / 1e9);
}

static int i64_cmp(const void *a, const void *b)
{
	return COL_CMP(*(const int64_t *)a, *(const int64_t *)b);
}

double col_percentile(const int64_t *sorted, size_t n, double p)
{
	double rank = ceil(p * (double)n - 1e-9); /* 1-based; the slack absorbs 0.99 * 100 */

	if (!n)
		return NAN;
	if (rank < 1)
		rank = 1;
	if (rank > (double)n)
		rank = (double)n;
	return (double)sorted[(size_t)rank - 1];
}

static void flow_add(struct col_flows *o, const struct rec_flow *f, int64_t *fct, double *tput)
{
	int64_t t = col_flow_fct(f);
	double bw = col_flow_tput(f);

	o->count++;
	if (t == COL_NONE)
		return;
	fct[o->complete++] = t;
	if (!f->bytes)
		o->zero_len++;
	if (isnan(bw))
		return;
	*tput += bw;
	o->tput_count++;
}

int col_flows_build(const struct rec_run *r, struct col_flows *o)
{
	int64_t *fct = r->flows.n ? malloc(r->flows.n * sizeof(*fct)) : NULL;
	double sum = 0, tput = 0;
	size_t i;

	*o = (struct col_flows){0};
	o->fct_p50 = o->fct_p99 = o->fct_mean = o->fct_max = o->tput_mean = NAN;
	if (!r->flows.n)
		return 0;
	if (!fct)
		return -ENOMEM;
	for (i = 0; i < r->flows.n; i++)
		flow_add(o, &r->flows.v[i], fct, &tput);
	if (sort_i64(fct, o->complete)) /* short of memory: the slow way */
		qsort(fct, o->complete, sizeof(*fct), i64_cmp);
	for (i = 0; i < o->complete; i++)
		sum += (double)fct[i];
	if (o->complete) {
		o->fct_p50 = col_percentile(fct, o->complete, 0.50);
		o->fct_p99 = col_percentile(fct, o->complete, 0.99);
		o->fct_mean = sum / (double)o->complete;
		o->fct_max = (double)fct[o->complete - 1];
	}
	if (o->tput_count)
		o->tput_mean = tput / (double)o->tput_count;
	free(fct);
	return 0;
}
