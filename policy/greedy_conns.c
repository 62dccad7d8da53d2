// SPDX-License-Identifier: MIT
/* A job's connections, in schedule order (greedy_conns.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "policy/greedy_conns.h"

/* Whether steps s[0..n) already send to peer. */
static bool sends_to(const struct coll_step *s, uint32_t n, uint32_t peer)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (s[i].op == COLL_SEND && s[i].peer == peer)
			return true;
	return false;
}

int greedy_job_conns(const struct coll_params *p, const struct coll_ext *x, uint32_t job,
		     const uint32_t *eps, struct greedy_conn **out, uint32_t *n, struct diag *d)
{
	struct coll_sched s = {0};
	uint32_t k, i;
	int err = coll_sched_build_ext(p, x, &s, d);

	*out = NULL;
	*n = 0;
	if (err)
		return err;
	*out = calloc(s.steps.n + 1, sizeof(**out));
	for (k = 0; *out && k < s.ranks.n; k++) {
		const struct coll_step *st = s.steps.v + s.ranks.v[k].step_off;

		for (i = 0; i < s.ranks.v[k].step_n; i++)
			if (st[i].op == COLL_SEND && !sends_to(st, i, st[i].peer))
				(*out)[(*n)++] = (struct greedy_conn){job, eps, k, st[i].peer};
	}
	coll_sched_done(&s);
	return *out ? 0 : diag_set(d, -ENOMEM, "out of memory");
}

int greedy_ep_slots(const struct topo *t, uint32_t *slot)
{
	uint32_t k, top = 0, *seen;

	for (k = 0; k < t->endpoints.n; k++)
		if (t->nodes.v[t->endpoints.v[k]].group > top)
			top = t->nodes.v[t->endpoints.v[k]].group;
	seen = calloc((size_t)top + 1, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (k = 0; k < t->endpoints.n; k++)
		slot[k] = seen[t->nodes.v[t->endpoints.v[k]].group]++;
	free(seen);
	return 0;
}
