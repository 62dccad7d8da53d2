// SPDX-License-Identifier: MIT
/* Direct reduce-scatter, all-gather and all-reduce (TACOS §VIII's Direct baseline, the
 * standard definition): rank r sends part j of its buffer (coll_chunk_off's cut in N) straight
 * to rank j, which adds it into its own part; an all-gather sends the own part straight to
 * every rank. All sends of a phase are in flight at once, or `group` of them, the shifts in
 * `direct`'s strided order as in its all-to-all (coll_a2a.c), so each round is a
 * permutation. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/coll_build.h"

/* The sends in flight: send i waits for send i - k (k = group, 0: no limit). */
struct dr_gate {
	uint32_t *snd, nsnd, k;
};

static void gate_deps(struct coll_bld *b, const struct dr_gate *g, struct coll_deps *out)
{
	if (g->k && g->nsnd >= g->k)
		coll_deps_add(b, out, g->snd[g->nsnd - g->k]);
}

/* N-1 rounds of one half from phase `first`, round t to the rank (t+1) g further. The
 * reduce-scatter sends part j to rank j and adds what comes into the own part, collecting
 * those receives in red; the all-gather sends the own part, once it is reduced (red), and
 * copies each rank's part in: that part was last read by the reduce-scatter send to its
 * owner, whose all-gather send waited for that send's data (causality). */
static void dr_half(struct coll_bld *b, struct dr_gate *g, struct coll_deps *red, bool ag,
		    uint16_t first)
{
	const struct coll_params *p = b->p;
	struct coll_range all = {0, p->bytes};
	uint32_t n = p->nranks, r = b->rank, st = coll_a2a_stride(n), t, s, dst, src, rcv;
	struct coll_deps dep;

	for (t = 0; t + 1 < n; t++) {
		s = (uint32_t)((uint64_t)(t + 1) * st % n);
		dst = (r + s) % n;
		src = (r + n - s) % n;
		dep.n = ag ? red->n : 0; /* red's entries, not its whole array: once per peer */
		memcpy(dep.v, red->v, dep.n * sizeof(*dep.v));
		gate_deps(b, g, &dep);
		g->snd[g->nsnd++] = coll_bld_send(b, (uint16_t)(first + t), dst,
						  coll_part(all, p->elem, n, ag ? r : dst), &dep);
		rcv = coll_bld_recv(b, (uint16_t)(first + t), src, ag ? COLL_F_COPY : COLL_F_REDUCE,
				    coll_part(all, p->elem, n, ag ? src : r), NULL);
		if (!ag)
			coll_deps_add(b, red, rcv);
	}
}

void coll_direct_build(struct coll_bld *b)
{
	const struct coll_params *p = b->p;
	struct dr_gate g = {.k = p->group};
	struct coll_deps red = {0};

	if (p->kind == COLL_ALLTOALL) {
		coll_a2a_direct_build(b);
		return;
	}
	g.snd = calloc(2 * (size_t)p->nranks, sizeof(*g.snd));
	if (!g.snd) {
		b->err = -ENOMEM;
		return;
	}
	if (p->kind != COLL_ALLGATHER)
		dr_half(b, &g, &red, false, 0);
	if (p->kind != COLL_REDUCESCATTER)
		dr_half(b, &g, &red, true,
			p->kind == COLL_ALLREDUCE ? (uint16_t)(p->nranks - 1) : 0);
	free(g.snd);
}

int coll_direct_check(const struct coll_params *p, struct diag *d)
{
	if (p->kind == COLL_ALLREDUCE && p->nranks > COLL_DEPS_MAX)
		return diag_set(
			d, -EINVAL,
			"direct allreduce: %u ranks, at most %d (each all-gather send waits "
			"for the rank's %u reductions)",
			p->nranks, COLL_DEPS_MAX, p->nranks - 1);
	return 0;
}
