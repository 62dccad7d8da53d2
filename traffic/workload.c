// SPDX-License-Identifier: MIT
/* The Poisson workload generator (vClos §9.2): exponential inter-arrival times of mean
 * lambda, job sizes by weight, models uniformly; a seeded lib/rng.h stream. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "lib/rng.h"
#include "traffic/job.h"

/* vClos's lambda read as the mean inter-arrival time, not a rate (its Tables 2 and 5 show
 * lighter load as lambda grows). */
static uint64_t wl_gap_ns(uint64_t *s, uint64_t mean_ns)
{
	return (uint64_t)llround(-log1p(-rng_unit(s)) * (double)mean_ns);
}

/* A size by weight; rounding never lands on a zero-weight size. */
static uint32_t wl_pick_size(const struct workload_gen *g, double total, uint64_t *s)
{
	double x = rng_unit(s) * total;
	size_t i, pick = 0;

	for (i = 0; i < g->sizes.n; i++) {
		if (!(g->sizes.v[i].weight > 0))
			continue;
		pick = i;
		x -= g->sizes.v[i].weight;
		if (x < 0)
			break;
	}
	return g->sizes.v[pick].gpus;
}

static int wl_check_sizes(const struct workload_gen *g, double *total, struct diag *d)
{
	const struct job_size_weight *w;

	*total = 0;
	vec_for_each (&g->sizes, w) {
		if (!w->gpus || !(w->weight >= 0) || isinf(w->weight))
			return diag_set(d, -EINVAL,
					"job size %u with weight %g: expected >= 1 GPU and a "
					"finite weight >= 0",
					w->gpus, w->weight);
		*total += w->weight;
	}
	if (!(*total > 0))
		return diag_set(d, -EINVAL, "the workload's job sizes have no positive weight");
	return 0;
}

static int wl_check(const struct workload_gen *g, double *total, struct diag *d)
{
	char **m;

	if (!g->models.n)
		return diag_set(d, -EINVAL, "the workload names no models");
	if (g->dur_max_ns && g->dur_min_ns > g->dur_max_ns)
		return diag_set(d, -EINVAL, "duration_min is above duration_max");
	if (g->deadline_slack &&
	    (!g->dur_mean_ns || !(g->deadline_slack >= 1) || isinf(g->deadline_slack)))
		return diag_set(d, -EINVAL,
				"deadline_slack %g: expected a finite number >= 1 and a "
				"duration_mean (a job is due that many times its duration after "
				"it arrives)",
				g->deadline_slack);
	vec_for_each (&g->models, m) {
		if (!job_model_find(*m))
			return diag_set(d, -EINVAL, "unknown model '%s'", *m ? *m : "");
	}
	return wl_check_sizes(g, total, d);
}

/* As the vClos authors' simulator: a duration clamped to [min, max] and rounded down to 100 s. */
static uint64_t wl_duration(const struct workload_gen *g, uint64_t *s)
{
	const uint64_t step = 100000000000ULL; /* 100 s */
	uint64_t t = wl_gap_ns(s, g->dur_mean_ns);

	if (t < g->dur_min_ns)
		t = g->dur_min_ns;
	if (g->dur_max_ns && t > g->dur_max_ns)
		t = g->dur_max_ns;
	return t >= step ? t / step * step : t;
}

/* Model `name`; one the papers give no size (moe) takes its size from the job's duration
 * when the generator gives durations (job_fit_duration sets the bytes), through *sized. */
static const struct job_model *wl_model(const struct workload_gen *g, const char *name,
					struct job_model *sized)
{
	const struct job_model *m = job_model_find(name);

	if (!m || m->params > 0 || !g->dur_mean_ns || m->comm_fraction <= 0)
		return m;
	*sized = *m;
	sized->params = 1; /* a placeholder: the duration decides the bytes */
	return sized;
}

static int wl_one(const struct workload_gen *g, double total, uint64_t *rng, uint64_t t,
		  job_list *out, struct diag *d)
{
	struct job_model sized;
	struct job_spec *j;
	uint32_t gpus = wl_pick_size(g, total, rng);
	size_t mi = (size_t)(rng_unit(rng) * (double)g->models.n);
	enum coll_algo algo = g->algo;
	int err;

	j = vec_grow(out);
	if (!j)
		return diag_set(d, -ENOMEM, "out of memory for the workload");
	if (g->algos.n) /* drawn after the model: streams without algos stay as they were */
		algo = g->algos.v[(size_t)(rng_unit(rng) * (double)g->algos.n)];
	err = job_from_model(wl_model(g, g->models.v[mi], &sized), gpus, algo, j, d);
	if (err)
		return diag_wrap(d, err, "job %zu: ", out->n - 1);
	j->id = (uint32_t)(out->n - 1);
	j->arrival_ns = t;
	j->iterations = g->iterations;
	if (g->dur_mean_ns)
		j->duration_ns = wl_duration(g, rng);
	if (g->deadline_slack) /* vClos §9.7 gives no deadlines: the user's slack */
		j->deadline_ns = (uint64_t)((double)j->duration_ns * g->deadline_slack);
	return 0;
}

int workload_generate(const struct workload_gen *g, job_list *out, struct diag *d)
{
	uint64_t rng = g->seed, t = 0;
	size_t n0 = out->n;
	double total = 0;
	uint32_t i;
	int err = wl_check(g, &total, d);

	for (i = 0; !err && i < g->count; i++) {
		if (i)
			t += wl_gap_ns(&rng, g->mean_interarrival_ns);
		err = wl_one(g, total, &rng, t, out, d);
	}
	if (err)
		out->n = n0;
	return err;
}

void workload_gen_done(struct workload_gen *g)
{
	char **m;

	vec_for_each (&g->models, m)
		free(*m);
	vec_free(&g->models);
	vec_free(&g->sizes);
	vec_free(&g->algos);
}
