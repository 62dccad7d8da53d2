/* SPDX-License-Identifier: MIT */
/* Independent work spread over the machine's cores. */
#ifndef ORCH_PAR_H
#define ORCH_PAR_H

#include <stdint.h>

#define PAR_THREADS_MAX 8

/* Runs fn(arg, i) for every i < n and returns the first nonzero result (by i's range): the
 * indices in contiguous ranges, one per online core (at most PAR_THREADS_MAX, the caller's
 * thread taking the first), or all on the caller's thread when n is small or no thread
 * starts. fn's calls must touch disjoint data. A sim_each_fn (sim/exec.h). */
int par_each(uint32_t n, int (*fn)(void *arg, uint32_t i), void *arg);

#endif
