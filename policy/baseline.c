// SPDX-License-Identifier: MIT
/* The routing baselines of "Isolated Scheduling for Distributed Training Tasks in GPU Clusters"
 * (vClos): Source Routing and Balanced ECMP, as assignments over the greedy controller's
 * commodities and candidates (baseline.h). Pure. */
#include <errno.h>
#include <stdlib.h>

#include "lib/rng.h"
#include "policy/baseline.h"
#include "policy/greedy_base.h"
#include "policy/greedy_conns.h"
#include "policy/vclos.h"

/* Whether candidate k of commodity i crosses link l. */
static bool cand_has(const struct greedy_in *in, uint32_t i, uint32_t k, uint32_t l)
{
	const struct greedy_cand *cd = &in->cands[in->comms[i].cand_off + k];
	uint32_t x;

	for (x = 0; x < cd->link_n; x++)
		if (in->links[cd->link_off + x] == l)
			return true;
	return false;
}

/* OCS-vClos (vClos §7): the candidate of commodity i that leaves its leaf through leaf port
 * up (its tag picks the uplink; the spine's downlink is pinned by the pair's port, pin_ocs);
 * 0 if none does (it cannot, unless the circuit is not in). */
static uint32_t ocs_cand(const struct greedy_in *in, uint32_t i, uint32_t up)
{
	uint32_t k;

	for (k = 0; k < in->comms[i].cand_n; k++)
		if (cand_has(in, i, k, up))
			return k;
	return 0;
}

/* vClos §5.2 (baseline.h) */
int baseline_source(const struct topo *t, const struct sched *s, const struct greedy_conn *c,
		    const struct greedy_in *in, uint32_t *choice)
{
	uint32_t *slot, i, spine;

	slot = calloc(t->endpoints.n + 1, sizeof(*slot));
	if (!slot || greedy_ep_slots(t, slot)) {
		free(slot);
		return -ENOMEM;
	}
	for (i = 0; i < in->ncomm; i++) {
		const struct vclos_alloc *a = sched_vclos(s, c[i].job);
		uint32_t n = in->comms[i].cand_n, up, down;

		if (s->ocs && sched_ocs_route(s, c[i].job, c[i].src, c[i].dst, &up, &down) == 1) {
			choice[i] = ocs_cand(in, i, up);
			continue;
		}
		if (!a || vclos_uplink(a, c[i].src, c[i].dst, &spine) != 1)
			spine = slot[c[i].eps[c[i].src]];
		choice[i] = n ? spine % n : 0;
	}
	free(slot);
	return greedy_max_load(in, choice);
}

/* The uplink (first fabric link) of commodity i's candidate k. */
static uint32_t uplink(const struct greedy_in *in, uint32_t i, uint32_t k)
{
	const struct greedy_cand *cd = &in->cands[in->comms[i].cand_off + k];

	return cd->link_n ? in->links[cd->link_off] : UINT32_MAX;
}

/* The least used of commodity i's uplinks, a random one of those tied. */
static uint32_t balanced_pick(const struct greedy_in *in, uint32_t i, const uint32_t *load,
			      uint64_t *rng)
{
	uint32_t k, best = 0, ties = 0, n = in->comms[i].cand_n, l, min = UINT32_MAX;

	for (k = 0; k < n; k++) {
		l = uplink(in, i, k) == UINT32_MAX ? 0 : load[uplink(in, i, k)];
		if (l < min) {
			min = l;
			best = k;
			ties = 1;
		} else if (l == min && rng_next(rng) % ++ties == 0) {
			best = k; /* reservoir: each tied uplink equally likely */
		}
	}
	return best;
}

/* vClos §9 (baseline.h) */
int baseline_balanced(const struct greedy_in *in, const uint32_t *held, uint64_t seed,
		      uint32_t *choice)
{
	uint32_t *load = calloc(in->nlinks + 1, sizeof(*load)), i;
	uint64_t rng = seed;
	int pass;

	if (!load)
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++) { /* the kept ones first, then the new ones */
		for (i = 0; i < in->ncomm; i++) {
			if (!in->comms[i].cand_n ||
			    (held[i] && held[i] <= in->comms[i].cand_n) == !!pass)
				continue;
			choice[i] = pass ? balanced_pick(in, i, load, &rng) : held[i] - 1u;
			if (uplink(in, i, choice[i]) != UINT32_MAX)
				load[uplink(in, i, choice[i])]++;
		}
	}
	for (i = 0; i < in->ncomm; i++)
		if (!in->comms[i].cand_n)
			choice[i] = 0;
	free(load);
	return greedy_max_load(in, choice);
}
