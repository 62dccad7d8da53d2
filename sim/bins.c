// SPDX-License-Identifier: MIT
/* The link counters' samples in virtual time (bins.h): at a fixed interval, or at one that
 * doubles as the run grows so that it always has between 100 and 200 bins. */
#include <string.h>

#include "sim/bins.h"

void sim_bins_init(struct sim_bins *b, uint32_t ports, int64_t interval_ns, uint64_t max)
{
	memset(b, 0, sizeof(*b));
	b->fixed = interval_ns != SIM_BINS_AUTO;
	b->width = b->fixed ? (interval_ns > 0 ? interval_ns : 0) : SIM_BINS_FIRST_NS;
	b->next = b->width ? b->width : INT64_MAX;
	b->max = max;
	b->ports = ports;
}

void sim_bins_done(struct sim_bins *b)
{
	if (!b)
		return;
	vec_free(&b->t);
	vec_free(&b->bytes);
}

uint64_t *sim_bins_add(struct sim_bins *b, int64_t now)
{
	size_t n = b->t.n;

	if (vec_reserve(&b->bytes, (n + 1) * b->ports) || vec_push(&b->t, now))
		return NULL;
	b->bytes.n = (n + 1) * b->ports;
	return b->bytes.v + n * b->ports;
}

/* Keeps samples 0, 2, 4, ...: two bins become one. */
static void halve(struct sim_bins *b)
{
	size_t i, w = 0, row = b->ports;

	for (i = 0; i < b->t.n; i += 2, w++) {
		b->t.v[w] = b->t.v[i];
		memmove(b->bytes.v + w * row, b->bytes.v + i * row, row * sizeof(*b->bytes.v));
	}
	b->t.n = w;
	b->bytes.n = w * row;
}

void sim_bins_due(struct sim_bins *b, int64_t now)
{
	uint64_t taken = b->t.n ? b->t.n - 1 : 0; /* since the first, the baseline */

	if (!b->width)
		return;
	if (b->width < INT64_MAX / 4) {
		if (!b->fixed && taken >= 2 * SIM_BINS_MIN) {
			halve(b);
			b->width *= 2;
		} else if (b->fixed && b->bytes.n > b->max) { /* coarser, not endless */
			b->width *= 2;
		}
	}
	b->next = now < INT64_MAX - b->width ? now + b->width : INT64_MAX;
}
