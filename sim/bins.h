/* SPDX-License-Identifier: MIT */
/* The link counters of the virtual-time backend, sampled for links.csv. The counters are exact
 * at any virtual instant, so the samples' times only choose the bins that the utilization
 * plots and the peak see. By default a run gets between SIM_BINS_MIN and 2 x SIM_BINS_MIN bins
 * whatever its length, which is not known in advance: samples start SIM_BINS_FIRST_NS apart,
 * and when 2 x SIM_BINS_MIN are kept, every other one is dropped and the interval doubles. The
 * counters are cumulative, so two neighbouring bins merge exactly into one, and a run keeps at
 * most 2 x SIM_BINS_MIN + 2 samples of 8 bytes per link direction. A fixed interval
 * (run.sample_interval) is kept as given, doubled only past a bound on the samples. Pure. */
#ifndef SIM_BINS_H
#define SIM_BINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/vec.h"

#define SIM_BINS_MIN 100
#define SIM_BINS_FIRST_NS 1 /* the first interval: any run over 100 ns gets 100 bins */
#define SIM_BINS_AUTO (-1) /* sim_bins_init's interval: chosen from the run's length */

struct sim_bins {
	int64_t width; /* virtual ns between samples now; 0: none but the start and the end */
	int64_t next; /* virtual ns of the next sample, INT64_MAX when none is due */
	uint64_t max; /* fixed: past this many counters held the interval doubles (none dropped) */
	bool fixed;
	uint32_t ports; /* counters per sample */
	VEC(int64_t) t; /* the samples' times, in order */
	VEC(uint64_t) bytes; /* per sample, ports counters: each direction's bytes so far */
};

/* Samples of `ports` counters every interval_ns (run.sample_interval; 0: none due, only those
 * the caller takes at the start and the end), or at an interval chosen from the run's length
 * (SIM_BINS_AUTO). max: how many counters a fixed interval's samples may hold, the start's
 * included; past it the interval doubles at every sample. */
void sim_bins_init(struct sim_bins *b, uint32_t ports, int64_t interval_ns, uint64_t max);
void sim_bins_done(struct sim_bins *b);

/* A new sample at now (not before the last), its ports counters for the caller to fill, or
 * NULL (out of memory: no sample). Not due ones (the start, the end) are taken the same way. */
uint64_t *sim_bins_add(struct sim_bins *b, int64_t now);

/* Sample i's counters (i < b->t.n). */
static inline const uint64_t *sim_bins_row(const struct sim_bins *b, size_t i)
{
	return b->bytes.v + i * b->ports;
}

/* After the sample due at b->next was taken at now: the next one set, and by default every
 * other sample dropped (the first kept, as if sampled at twice the interval) when there are
 * 2 x SIM_BINS_MIN since the first. */
void sim_bins_due(struct sim_bins *b, int64_t now);

#endif
