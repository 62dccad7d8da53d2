// SPDX-License-Identifier: MIT
/* Collectives' permutation steps for the placement tests (coll_pat.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/coll_pat.h"

/* Keeps each distinct phase of pt's rows once, in order. */
static void t_pat_dedup(struct t_pat *pt, uint32_t np)
{
	uint32_t r, i, n = pt->n, *rows = pt->dst;

	for (r = 0; r < np; r++) {
		for (i = 0; i < pt->np; i++)
			if (!memcmp(rows + i * n, rows + r * n, n * sizeof(*rows)))
				break;
		if (i == pt->np)
			memmove(rows + pt->np++ * n, rows + r * n, n * sizeof(*rows));
	}
}

void t_pat_build(struct t_pat *pt, enum coll_algo algo, uint32_t n)
{
	struct coll_params prm = {.kind = algo == COLL_PAIRWISE ? COLL_ALLTOALL : COLL_ALLREDUCE,
				  .algo = algo,
				  .nranks = n,
				  .bytes = (uint64_t)n * n * 16,
				  .elem = 4};
	const struct coll_step *st;
	struct coll_sched s;
	struct diag d = {0};
	uint32_t r, i, np = 0, *rows;

	assert_int_equal(coll_sched_build(&prm, &s, &d), 0);
	vec_for_each (&s.steps, st)
		np = st->phase + 1u > np ? st->phase + 1u : np;
	rows = malloc((size_t)np * n * sizeof(*rows) + 1);
	assert_non_null(rows);
	memset(rows, 0xff, (size_t)np * n * sizeof(*rows));
	for (r = 0; r < n; r++) {
		for (i = 0; i < s.ranks.v[r].step_n; i++) {
			st = &s.steps.v[s.ranks.v[r].step_off + i];
			if (st->op != COLL_SEND)
				continue;
			assert_int_equal(rows[st->phase * n + r], T_PAT_NONE);
			rows[st->phase * n + r] = st->peer;
		}
	}
	*pt = (struct t_pat){.n = n, .dst = rows};
	t_pat_dedup(pt, np);
	coll_sched_done(&s);
}
