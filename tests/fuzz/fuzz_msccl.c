// SPDX-License-Identifier: MIT
/* libFuzzer target for the MSCCL XML reader, through coll_sched_build_ext as `algorithm: msccl`
 * calls it: -EINVAL / -ENOMEM with a message and nothing kept, or 0 with a schedule every rank
 * accepts as shipped and that writes out and reads back unchanged (one with local steps or
 * scratch is not written back: the export says so) (ASan checks leaks at exit);
 * and the prover `check` runs on it: 0, or -EINVAL / -ENOMEM with a message and, for -EINVAL,
 * a step of the schedule or none. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/msccl_job.h"
#include "traffic/coll.h"
#include "traffic/msccl/msccl.h"

static void check_prove(const struct coll_sched *s)
{
	struct diag d = {0};
	uint32_t where = 0;
	int r = coll_prove(s, &where, &d);

	assert(r == 0 || r == -EINVAL || r == -ENOMEM);
	assert(!r == !d.msg[0]);
	assert(r != -EINVAL || where == UINT32_MAX || where < s->steps.n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each rank's slice passes the check an emu-node makes of what the orchestrator ships it. */
static void check_slices(const struct coll_sched *s)
{
	const struct coll_params *p = &s->params;
	struct coll_step *steps = malloc((s->steps.n + 1) * sizeof(*steps));
	uint32_t *deps = malloc((s->deps.n + 1) * sizeof(*deps)), r;
	struct coll_sched one;
	struct diag d = {0};

	assert(steps && deps && s->ranks.n == p->nranks);
	for (r = 0; r < p->nranks; r++) {
		coll_sched_rank_slice(s, r, steps, deps);
		assert(!coll_sched_from_rank(p, r, steps, s->ranks.v[r].step_n, deps,
					     coll_sched_rank_deps(s, r), &one, &d));
		coll_sched_done(&one);
	}
	free(steps);
	free(deps);
}

/* a and b hold the same steps per rank, in the same order, with the same dependency lists. */
static void check_same(const struct coll_sched *a, const struct coll_sched *b)
{
	uint32_t r, i;

	assert(a->ranks.n == b->ranks.n);
	for (r = 0; r < a->ranks.n; r++) {
		const struct coll_rank *ra = &a->ranks.v[r], *rb = &b->ranks.v[r];

		assert(ra->step_n == rb->step_n);
		for (i = 0; i < ra->step_n; i++) {
			const struct coll_step *x = &a->steps.v[ra->step_off + i];
			const struct coll_step *y = &b->steps.v[rb->step_off + i];

			assert(x->op == y->op && x->flags == y->flags && x->phase == y->phase &&
			       x->peer == y->peer && x->off == y->off && x->len == y->len &&
			       x->dep_n == y->dep_n);
			assert(!x->dep_n || !memcmp(&a->deps.v[x->dep_off], &b->deps.v[y->dep_off],
						    x->dep_n * sizeof(uint32_t)));
		}
	}
}

static void check_round_trip(const struct coll_sched *s)
{
	size_t len = msccl_format(s, NULL, NULL, 0);
	char *text;
	struct coll_sched back;
	struct diag d = {0};

	if (msccl_local(s)) { /* read, not written back */
		assert(!len);
		return;
	}
	text = malloc(len + 1);
	assert(len && text);
	assert(msccl_format(s, NULL, text, len + 1) == len);
	assert(!msccl_parse(text, len, &s->params, &back, &d));
	check_same(s, &back);
	coll_sched_done(&back);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct coll_params p[FUZZ_MSCCL_JOBS];
	/* exactly size bytes, no NUL after them: ASan sees any read past the end */
	struct coll_ext x = {.msccl = (const char *)data, .msccl_len = size};
	size_t n = fuzz_msccl_jobs(x.msccl, size, p), i;

	for (i = 0; i < n; i++) {
		struct coll_sched s;
		struct diag d = {0};
		int r = coll_sched_build_ext(&p[i], &x, &s, &d);

		assert(r == 0 || r == -EINVAL || r == -ENOMEM);
		assert(!r == !d.msg[0]);
		assert(!r || (!s.ranks.n && !s.steps.n && !s.deps.n));
		if (!r) {
			check_slices(&s);
			check_round_trip(&s);
			check_prove(&s);
		}
		coll_sched_done(&s);
	}
	return 0;
}
