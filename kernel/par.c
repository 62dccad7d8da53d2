// SPDX-License-Identifier: MIT
/* Independent work on several threads (see par.h). */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "kernel/par.h"

#define PAR_MIN 64 /* indices below which one thread does them all */

struct par_range {
	int (*fn)(void *arg, uint32_t i);
	void *arg;
	uint32_t lo, hi;
	int r;
	pthread_t th;
	bool started;
};

static void *par_run(void *p)
{
	struct par_range *g = p;
	uint32_t i;

	for (i = g->lo; !g->r && i < g->hi; i++)
		g->r = g->fn(g->arg, i);
	return NULL;
}

static uint32_t par_threads(uint32_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < PAR_MIN || cpus < 2)
		return 1;
	return cpus < PAR_THREADS_MAX ? (uint32_t)cpus : PAR_THREADS_MAX;
}

int par_each(uint32_t n, int (*fn)(void *arg, uint32_t i), void *arg)
{
	struct par_range g[PAR_THREADS_MAX];
	uint32_t k, m = par_threads(n);
	int r = 0;

	for (k = 0; k < m; k++) {
		g[k] = (struct par_range){.fn = fn,
					  .arg = arg,
					  .lo = (uint32_t)((uint64_t)n * k / m),
					  .hi = (uint32_t)((uint64_t)n * (k + 1) / m)};
		if (k)
			g[k].started = !pthread_create(&g[k].th, NULL, par_run, &g[k]);
	}
	par_run(&g[0]);
	for (k = 1; k < m; k++) {
		if (g[k].started)
			pthread_join(g[k].th, NULL);
		else
			par_run(&g[k]); /* no thread: here, after the others */
	}
	for (k = 0; !r && k < m; k++)
		r = g[k].r;
	return r;
}
