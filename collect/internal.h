/* SPDX-License-Identifier: MIT */
/* Internal to collect/: helpers its metric files share. */
#ifndef COLLECT_INTERNAL_H
#define COLLECT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* -1, 0 or 1 as a is below, equal to or above b. */
#define COL_CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

/* A malloc'd array of the indices 0..n-1 sorted by cmp(&idx_a, &idx_b, ctx) (ties by index,
 * so the order is stable); NULL on ENOMEM or if n is 0. */
uint32_t *col_index_sort(size_t n, int (*cmp)(const void *, const void *, void *), void *ctx);

#define COL_VAL_MAX 32

/* v with 4 significant digits, after a mark ('>' for a lower bound), in b; "-" if undefined. */
const char *col_val(char b[COL_VAL_MAX], double v, const char *mark);

struct col_metrics;

/* *ids = malloc'd positions of m->jobs sorted by id (NULL without jobs); 0, -EINVAL if an id
 * repeats, or -ENOMEM. */
int col_job_ids(const struct col_metrics *m, uint32_t **ids);

/* Position in m->jobs of the job with this id, or -1. */
long col_job_find(const struct col_metrics *m, const uint32_t *ids, uint32_t id);

struct rec_run;

/* A routing policy's decisions (routing.csv) summed up. */
struct col_routing {
	size_t decisions;
	uint64_t retagged;
	uint32_t commodities_max;
	uint32_t max_load, lower_bound; /* the worst decision's, with its bound */
	double decide_ms_mean, decide_ms_max;
	double paths_ms_max; /* failures and rewires: the longest to new paths; < 0 if none */
};

/* Sums r->routes into *out (zero without decisions). */
void col_routing_sum(const struct rec_run *r, struct col_routing *out);

#endif
