// SPDX-License-Identifier: MIT
/* Link-direction metrics from links.csv: per interval between consecutive samples,
 * utilization = 8 x tx bytes / (configured rate x interval); the mean is time-weighted over
 * the samples' span, the peak the busiest interval; drops are counted over the span. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "collect/internal.h"
#include "collect/metrics.h"

static int sample_cmp(const void *a, const void *b, void *ctx)
{
	const struct rec_sample *v = ctx;
	const struct rec_sample *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];

	if (x->link != y->link)
		return COL_CMP(x->link, y->link);
	if (x->dir != y->dir)
		return COL_CMP(x->dir, y->dir);
	return COL_CMP(x->t, y->t);
}

/* Samples in time order, as both backends write them, by direction (link * 2 + dir): the
 * number of directions, or 0 when they are not so (out of order, a bad direction, link ids far
 * sparser than the samples). */
static size_t dir_keys(const struct rec_sample *v, size_t n)
{
	size_t i, keys = 0;

	for (i = 0; i < n; i++) {
		if ((i && v[i].t < v[i - 1].t) || v[i].dir > 1)
			return 0;
		if ((size_t)v[i].link * 2 + v[i].dir + 1 > keys)
			keys = (size_t)v[i].link * 2 + v[i].dir + 1;
	}
	return keys <= 4 * n + 1024 ? keys : 0;
}

/* The order of the samples by (link, dir, t): a stable counting sort by direction of samples
 * in time order (linear: a paper-scale run has millions), else a comparison sort. */
static uint32_t *sample_order(const struct rec_sample *v, size_t n)
{
	size_t keys = n <= UINT32_MAX ? dir_keys(v, n) : 0, i;
	uint32_t *at, *idx;

	if (!keys)
		return col_index_sort(n, sample_cmp, (void *)v);
	at = calloc(keys + 1, sizeof(*at));
	idx = malloc((n + 1) * sizeof(*idx));
	if (!at || !idx) {
		free(at);
		free(idx);
		return NULL;
	}
	for (i = 0; i < n; i++)
		at[v[i].link * 2 + v[i].dir + 1]++;
	for (i = 1; i <= keys; i++)
		at[i] += at[i - 1];
	for (i = 0; i < n; i++)
		idx[at[v[i].link * 2 + v[i].dir]++] = (uint32_t)i;
	free(at);
	return idx;
}

/* Counters restart at 0 when a qdisc or device is replaced: a drop is a restart. */
static uint64_t delta(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : cur;
}

static double util(uint64_t bytes, int64_t dt, uint64_t rate_bps)
{
	if (!rate_bps || dt <= 0)
		return NAN;
	return 8.0 * (double)bytes / ((double)rate_bps * ((double)dt / 1e9));
}

/* One interval a -> b into l (and a point into s when s is given). */
static int interval(struct col_link *l, const struct rec_sample *a, const struct rec_sample *b,
		    uint64_t *bl_bytes, struct col_series *s)
{
	int64_t dt = b->t - a->t;
	uint64_t bytes = delta(a->tx_bytes, b->tx_bytes);
	double u = util(bytes, dt, l->rate_bps);
	struct col_util p = {b->t, dt, l->link, l->dir, u};

	if (dt <= 0)
		return 0; /* two samples at one instant: nothing to learn */
	l->span_ns += dt;
	l->tx_bytes += bytes;
	l->drops += delta(a->drops, b->drops);
	if (!isnan(u) && (isnan(l->util_peak) || u > l->util_peak))
		l->util_peak = u;
	if (a->backlog > COL_BL_MIN_BYTES && b->backlog > COL_BL_MIN_BYTES) {
		l->bl_intervals++;
		l->bl_ns += dt;
		*bl_bytes += bytes;
	}
	return s && !isnan(u) ? vec_push(&s->v, p) : 0;
}

static void link_init(const struct rec_sample *x, const struct col_links_cfg *lc,
		      struct col_link *l)
{
	size_t k = (size_t)x->link * 2 + x->dir;
	bool known = lc && lc->nlinks;

	*l = (struct col_link){.link = x->link, .dir = x->dir};
	l->rate_bps = known && lc->rate_bps ? lc->rate_bps[k] : 0;
	l->shaped = !known || !lc->shaped || lc->shaped[k];
	l->endpoint = known && lc->endpoint && lc->endpoint[k];
	l->util_mean = l->util_peak = l->bl_util = NAN;
}

/* The samples idx[0..n) of one direction, in time order (REC_NEVER, the lowest, first). */
static int group(const struct rec_sample *v, const uint32_t *idx, size_t n,
		 const struct col_links_cfg *lc, struct col_link *l, struct col_series *s)
{
	uint64_t bl_bytes = 0;
	size_t i;
	int err = 0;

	link_init(&v[idx[0]], lc, l);
	for (; n && v[idx[0]].t == REC_NEVER; n--)
		idx++;
	l->samples = (uint32_t)n;
	for (i = 1; !err && i < n; i++)
		err = interval(l, &v[idx[i - 1]], &v[idx[i]], &bl_bytes, s);
	l->util_mean = util(l->tx_bytes, l->span_ns, l->rate_bps);
	l->bl_util = util(bl_bytes, l->bl_ns, l->rate_bps);
	return err;
}

static bool same_dir(const struct rec_sample *a, const struct rec_sample *b)
{
	return a->link == b->link && a->dir == b->dir;
}

static int check(const struct rec_sample *x, const struct col_links_cfg *lc, struct diag *d)
{
	if (x->dir > 1)
		return diag_set(d, -EINVAL, "links.csv: link %u has direction %u", x->link, x->dir);
	if (lc && lc->nlinks && x->link >= lc->nlinks)
		return diag_set(d, -EINVAL, "links.csv: link %u, but the topology has %u links",
				x->link, lc->nlinks);
	return 0;
}

/* Walks the directions in (link, dir) order: a col_link each into m->links (if m), the
 * points into s (if s). */
static int walk(const struct rec_run *r, const struct col_links_cfg *lc, struct col_metrics *m,
		struct col_series *s, struct diag *d)
{
	const struct rec_sample *v = r->samples.v;
	uint32_t *idx = sample_order(r->samples.v, r->samples.n);
	size_t lo, hi, n = r->samples.n;
	struct col_link tmp, *l;
	int err = idx ? 0 : -ENOMEM;

	for (lo = 0; !err && lo < n; lo = hi) {
		for (hi = lo + 1; hi < n && same_dir(&v[idx[lo]], &v[idx[hi]]); hi++)
			;
		err = check(&v[idx[lo]], lc, d);
		l = m ? vec_grow(&m->links) : &tmp;
		if (!err)
			err = l ? group(v, idx + lo, hi - lo, lc, l, s) : -ENOMEM;
	}
	free(idx);
	return err;
}

int col_links_build(const struct rec_run *r, const struct col_links_cfg *lc, struct col_metrics *m,
		    struct diag *d)
{
	m->links.n = 0;
	return r->samples.n ? walk(r, lc, m, NULL, d) : 0;
}

int col_util_series(const struct rec_run *r, const struct col_links_cfg *lc, struct col_series *out,
		    struct diag *d)
{
	int err;

	out->v.n = 0;
	err = r->samples.n ? walk(r, lc, NULL, out, d) : 0;
	if (err == -ENOMEM)
		diag_set(d, err, "collect: out of memory");
	return err;
}

void col_series_done(struct col_series *s)
{
	if (s)
		vec_free(&s->v);
}
