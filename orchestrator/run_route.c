// SPDX-License-Identifier: MIT
/* The routing policy as the runner carries it out, whatever the backend (run_int.h): on each
 * trigger, every running job's connections are assigned a path (policy/greedy.h) and the
 * backend re-tags those whose path changed; each decision is a row of routing.csv. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orchestrator/run_int.h"
#include "policy/greedy_paths.h"

static bool active(const struct run *r)
{
	return r->e->s.routing.policy != SCN_POLICY_ECMP;
}

void run_route_trigger(struct run *r, const char *why)
{
	if (active(r) && !r->route_why[0])
		snprintf(r->route_why, sizeof(r->route_why), "%s", why);
}

/* Whether rank k's steps s[0..n) already send to peer. */
static bool sends_to(const struct coll_step *s, uint32_t n, uint32_t peer)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (s[i].op == COLL_SEND && s[i].peer == peer)
			return true;
	return false;
}

int run_route_job(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	struct coll_params p = run_job_coll(rj);
	struct coll_sched s = {0};
	uint32_t k, i, n = 0;
	int err;

	if (!active(r))
		return 0;
	err = coll_sched_build(&p, &s, d);
	if (err)
		return err;
	rj->conns = calloc(s.steps.n + 1, sizeof(*rj->conns));
	for (k = 0; rj->conns && k < s.ranks.n; k++) {
		const struct coll_step *st = s.steps.v + s.ranks.v[k].step_off;

		for (i = 0; i < s.ranks.v[k].step_n; i++)
			if (st[i].op == COLL_SEND && !sends_to(st, i, st[i].peer))
				rj->conns[n++] = (struct run_conn){k, st[i].peer, 0};
	}
	coll_sched_done(&s);
	if (!rj->conns)
		return diag_set(d, -ENOMEM, "out of memory");
	rj->nconns = n;
	run_route_trigger(r, "start");
	return 0;
}

static int64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Every running job's connections, in job order then the job's own. */
static int commodities(const struct run *r, struct greedy_conn **out, uint32_t *n)
{
	uint32_t j, i, total = 0;

	for (j = 0; j < r->njobs; j++)
		total += r->jobs[j].running && !r->jobs[j].aborting ? r->jobs[j].nconns : 0;
	*out = calloc(total + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	*n = 0;
	for (j = 0; j < r->njobs; j++) {
		const struct run_job *rj = &r->jobs[j];

		for (i = 0; rj->running && !rj->aborting && i < rj->nconns; i++)
			(*out)[(*n)++] = (struct greedy_conn){j, rj->eps, rj->conns[i].src,
							      rj->conns[i].dst};
	}
	return 0;
}

/* The tags of choice that changed handed to the backend, job by job (c is in job order, each
 * job's connections in its own order); *retagged counts them. */
static int apply(struct run *r, const struct greedy_paths *g, const struct greedy_conn *c,
		 uint32_t n, const uint32_t *choice, uint32_t *retagged, struct diag *d)
{
	struct run_conn *changed = calloc(n + 1, sizeof(*changed));
	uint32_t i = 0, first, k, m;
	int err = changed ? 0 : diag_set(d, -ENOMEM, "out of memory");

	while (!err && i < n) {
		struct run_job *rj = &r->jobs[c[i].job];

		for (first = i, k = 0, m = 0; i < n && c[i].job == c[first].job; i++, k++) {
			uint8_t tag = greedy_paths_tag(g, i, choice[i]);

			if (rj->conns[k].tag != tag)
				changed[m++] = (struct run_conn){c[i].src, c[i].dst, tag};
			rj->conns[k].tag = tag;
		}
		if (m)
			err = r->be->retag(r, c[first].job, changed, m, d);
		*retagged += m;
	}
	free(changed);
	return err;
}

static enum greedy_order order_of(const struct run *r)
{
	return r->e->s.routing.order == SCN_GREEDY_INPUT ? GREEDY_ORDER_INPUT
							 : GREEDY_ORDER_BUSIEST_TOR;
}

/* The policy's assignment: its maximum link load, or -errno with d set. */
static int assign(const struct run *r, const struct greedy_in *in, uint32_t *choice, struct diag *d)
{
	const struct scn_routing *rt = &r->e->s.routing;
	int load;

	if (rt->policy == SCN_POLICY_GREEDY) {
		load = greedy_assign(in, order_of(r), choice);
		return load < 0 ? diag_set(d, load, "routing.policy greedy: %s", strerror(-load))
				: load;
	}
	load = greedy_optimal(in, rt->optimal_limit, choice);
	if (load == -E2BIG)
		return diag_set(
			d, load,
			"routing.policy optimal: the %u running connections have %llu "
			"possible assignments, over routing.optimal_limit (%llu); raise the "
			"limit (the search may then take long) or use greedy",
			in->ncomm, (unsigned long long)greedy_assignments(in),
			(unsigned long long)rt->optimal_limit);
	return load < 0 ? diag_set(d, load, "routing.policy optimal: %s", strerror(-load)) : load;
}

/* Greedy routing §3.4.2: every active commodity is assigned again, from zero loads. */
static int decide(struct run *r, struct rec_route *rec, struct diag *d)
{
	const struct topo *t;
	const struct route_plan *plan;
	struct greedy_paths g = {0};
	struct greedy_conn *c = NULL;
	uint32_t *choice = NULL, n = 0;
	int64_t t0 = wall_ns();
	int err, load, lb;

	r->be->view(r, &t, &plan);
	err = commodities(r, &c, &n);
	err = err ? diag_set(d, err, "out of memory") : greedy_paths_build(&g, t, plan, c, n, d);
	choice = err ? NULL : calloc(n + 1, sizeof(*choice));
	if (!err && !choice)
		err = diag_set(d, -ENOMEM, "out of memory");
	load = err ? 0 : assign(r, &g.in, choice, d);
	if (load < 0)
		err = load;
	rec->decide_ns = wall_ns() - t0;
	rec->commodities = n;
	rec->max_load = load > 0 ? (uint32_t)load : 0;
	lb = err ? 0 : greedy_lower_bound(&g.in);
	rec->lower_bound = lb > 0 ? (uint32_t)lb : 0;
	if (!err)
		err = apply(r, &g, c, n, choice, &rec->retagged, d);
	free(choice);
	free(c);
	greedy_paths_done(&g);
	return err;
}

int run_route_update(struct run *r, struct diag *d)
{
	struct rec_route *rec;

	if (!r->route_why[0])
		return 0;
	rec = vec_grow(&r->rec.routes);
	if (!rec)
		return diag_set(d, -ENOMEM, "out of memory");
	memset(rec, 0, sizeof(*rec));
	rec->t = run_now(r);
	snprintf(rec->trigger, sizeof(rec->trigger), "%s", r->route_why);
	r->route_why[0] = '\0';
	return decide(r, rec, d);
}
