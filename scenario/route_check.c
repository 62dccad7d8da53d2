// SPDX-License-Identifier: MIT
/* routing.policy optimal, checked before anything is built: the jobs that arrive at time 0
 * are placed together, as the scheduler will place them, and their connections make the
 * policy's first instance. One whose search space is over routing.optimal_limit would stop
 * the run at its first decision, so the file is refused now, at the policy's line. (Later
 * instances depend on the run; the runner refuses them when they come.) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/jobs.h"
#include "scenario/world.h"
#include "policy/greedy_conns.h"
#include "policy/sched.h"

/* Job js's connections, placed on eps: a Chakra trace's job's from its lowered trace. */
static int job_conns(const struct world *w, const struct job_spec *js, const struct coll_params *p,
		     const uint32_t *eps, struct greedy_conn **c, uint32_t *m, struct diag *d)
{
	struct coll_ext x = {0};
	struct jobs_chakra ch = {0};
	struct chakra_job cj;
	int err = 0;

	if (js->chakra) {
		err = jobs_chakra_open(&w->e, js, 1.0, 1.0, &ch, &cj, d);
		x.chakra = &cj;
	}
	err = err ? err : greedy_job_conns(p, &x, js->id, eps, c, m, d);
	jobs_chakra_done(&ch);
	return err;
}

/* The time-0 jobs' connections appended to *all (*n of them); eps[] keeps their placements
 * (eps_all, owned by the caller, one slot per endpoint). */
static int first_jobs(const struct world *w, struct sched *s, uint32_t *eps_all,
		      struct greedy_conn **all, uint32_t *n, struct diag *d)
{
	const uint32_t *eps;
	uint32_t used = 0, k;
	int j, err = 0;

	for (k = 0; k < w->jobs.n && !w->jobs.v[k].arrival_ns; k++)
		if (sched_submit(s, w->jobs.v[k].id, w->jobs.v[k].gpus, job_due_ns(&w->jobs.v[k]),
				 d))
			return 0; /* run_jobs_fit said why already; nothing to add */
	while (!err && (j = sched_next(s, &eps)) >= 0) {
		const struct job_spec *js = &w->jobs.v[j];
		struct coll_params p = job_coll(js, js->bytes ? js->bytes : 1);
		struct greedy_conn *c, *grown;
		uint32_t m, i;

		memcpy(eps_all + used, eps, js->gpus * sizeof(*eps));
		err = job_conns(w, js, &p, eps_all + used, &c, &m, d);
		used += js->gpus;
		if (err)
			break;
		grown = realloc(*all, (*n + m + 1) * sizeof(**all));
		if (!grown) {
			free(c);
			return diag_set(d, -ENOMEM, "out of memory");
		}
		*all = grown;
		for (i = 0; i < m; i++)
			(*all)[(*n)++] = c[i];
		free(c);
	}
	return err;
}

int route_check_optimal(const struct world *w, struct diag *d)
{
	const struct scn_routing *rt = &w->e.s.routing;
	struct sched_cfg cfg = w->e.sched;
	struct greedy_paths g = {0};
	struct greedy_conn *all = NULL;
	uint32_t *eps = calloc(w->t->endpoints.n + 1, sizeof(*eps)), n = 0;
	uint64_t space = 0;
	struct sched s;
	int err;

	if (rt->policy != SCN_POLICY_OPTIMAL || !w->jobs.n) {
		free(eps);
		return 0;
	}
	cfg.placement_order = w->e.w.rank_order == EXP_RANK_PLACEMENT;
	err = eps ? sched_init(&s, w->t, &cfg) : -ENOMEM;
	if (err) {
		free(eps);
		return diag_set(d, err, "out of memory");
	}
	err = first_jobs(w, &s, eps, &all, &n, d);
	err = err ? err : greedy_paths_build(&g, w->t, &w->plan, all, n, d);
	if (!err)
		space = greedy_assignments(&g.in);
	greedy_paths_done(&g);
	sched_done(&s);
	free(all);
	free(eps);
	if (err || space <= rt->optimal_limit)
		return err;
	return diag_set(d, -EINVAL,
			"%s:%u:%u: routing.policy: optimal: the jobs that start at time 0 have %u "
			"connections with %llu possible assignments, over routing.optimal_limit "
			"(%llu); raise the limit (the search may then take long) or use greedy",
			w->e.s.path, rt->line, rt->col, n, (unsigned long long)space,
			(unsigned long long)rt->optimal_limit);
}
