// SPDX-License-Identifier: MIT
/* The routing policy as the runner carries it out, whatever the backend (run_int.h): on each
 * trigger (a job's start or end, or a collective phase's, a failure, a rewire) the jobs that
 * count get a path per connection (policy/greedy.h, greedy_base.h), and the backend pins
 * those whose path changed, by DSCP tag or by source port (policy/greedy_sport.h); each
 * decision is a row of routing.csv. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/rng.h"
#include "orchestrator/run_int.h"
#include "policy/greedy_base.h"
#include "policy/greedy_conns.h"
#include "policy/greedy_paths.h"
#include "policy/greedy_sport.h"
#include "traffic/sport.h"

static bool active(const struct run *r)
{
	return r->e->s.routing.policy != SCN_POLICY_ECMP;
}

void run_route_trigger(struct run *r, const char *why, int64_t at)
{
	if (!active(r))
		return;
	if (!r->route_why[0]) {
		snprintf(r->route_why, sizeof(r->route_why), "%s", why);
		r->route_event = -1;
	}
	if (at >= 0 && (r->route_event < 0 || at < r->route_event))
		r->route_event = at;
}

static bool by_phase(const struct run *r)
{
	return r->e->s.routing.trigger == SCN_TRIGGER_PHASE;
}

void run_route_phase(struct run *r, uint32_t j, bool coll)
{
	struct run_job *rj = j < r->njobs ? &r->jobs[j] : NULL;

	if (!rj || !rj->running || !active(r) || !by_phase(r))
		return;
	if (coll && rj->in_coll++ == 0)
		run_route_trigger(r, "phase-start", -1);
	else if (!coll && rj->in_coll && --rj->in_coll == 0)
		run_route_trigger(r, "phase-end", -1);
}

/* Whether job j's connections are commodities now: it runs, and under routing.trigger phase
 * it is inside a collective. */
static bool counts(const struct run *r, const struct run_job *rj)
{
	return rj->running && !rj->aborting && (!by_phase(r) || rj->in_coll);
}

static int by_pair(const void *a, const void *b, void *arg)
{
	const struct run_conn *c = arg;
	const struct run_conn *x = &c[*(const uint32_t *)a], *y = &c[*(const uint32_t *)b];
	uint64_t kx = (uint64_t)(x->src < x->dst ? x->src : x->dst) << 32 |
		      (x->src < x->dst ? x->dst : x->src);
	uint64_t ky = (uint64_t)(y->src < y->dst ? y->src : y->dst) << 32 |
		      (y->src < y->dst ? y->dst : y->src);

	return kx < ky ? -1 : kx > ky;
}

/* Each connection's entry for the other direction of its pair, if the pair has one. */
static int pair_up(struct run_conn *c, uint32_t n)
{
	uint32_t *ix = malloc((n + 1) * sizeof(*ix)), i;

	if (!ix)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ix[i] = i;
		c[i].rev = UINT32_MAX;
	}
	qsort_r(ix, n, sizeof(*ix), by_pair, c);
	for (i = 0; i + 1 < n; i++) {
		if (by_pair(&ix[i], &ix[i + 1], c))
			continue;
		c[ix[i]].rev = ix[i + 1];
		c[ix[i + 1]].rev = ix[i];
	}
	free(ix);
	return 0;
}

int run_route_job(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	struct coll_params p = run_job_coll(rj);
	struct greedy_conn *c;
	uint32_t i, n;
	int err;

	if (!active(r))
		return 0;
	err = greedy_job_conns(&p, j, rj->eps, &c, &n, d);
	if (err)
		return err;
	rj->conns = calloc(n + 1, sizeof(*rj->conns));
	for (i = 0; rj->conns && i < n; i++)
		rj->conns[i] = (struct run_conn){.src = c[i].src, .dst = c[i].dst};
	free(c);
	if (!rj->conns || pair_up(rj->conns, n))
		return diag_set(d, -ENOMEM, "out of memory");
	rj->nconns = n;
	if (!by_phase(r)) /* under phases, the job counts from its first collective on */
		run_route_trigger(r, "start", -1);
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
		total += counts(r, &r->jobs[j]) ? r->jobs[j].nconns : 0;
	*out = calloc(total + 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	*n = 0;
	for (j = 0; j < r->njobs; j++) {
		const struct run_job *rj = &r->jobs[j];

		for (i = 0; counts(r, rj) && i < rj->nconns; i++)
			(*out)[(*n)++] = (struct greedy_conn){j, rj->eps, rj->conns[i].src,
							      rj->conns[i].dst};
	}
	return 0;
}

/* What the backend is told about job `job`'s changed connections, if it runs already. */
static int hand(struct run *r, uint32_t job, const struct run_conn *v, uint32_t m, uint32_t *moved,
		struct diag *d)
{
	*moved += m;
	return m && r->jobs[job].launched ? r->be->retag(r, job, v, m, d) : 0;
}

/* routing.enforce tag: connection k of the job whose commodities start at c[first] takes the
 * tag of its choice. 1 and *out if that changed it, else 0. */
static int pin_tag(struct run *r, const struct greedy_paths *g, const struct greedy_conn *c,
		   uint32_t first, uint32_t k, const uint32_t *choice, struct run_conn *out,
		   struct diag *d)
{
	struct run_conn *cn = &r->jobs[c[first].job].conns[k];
	uint8_t tag = greedy_paths_tag(g, first + k, choice[first + k]);

	(void)d;
	if (cn->tag == tag)
		return 0;
	cn->tag = tag;
	*out = (struct run_conn){.src = cn->src, .dst = cn->dst, .tag = tag};
	return 1;
}

/* The member a direction's choice asks for at its first hash group: its candidate index,
 * or any for a direction with no choice (or none sent). */
static uint32_t want(const struct greedy_paths *g, const uint32_t *choice, uint32_t i)
{
	return i != UINT32_MAX && g->comms.v[i].cand_n > 1 ? choice[i] : GREEDY_ANY;
}

/* Greedy routing §3.5.3: one pair's port, kept while it still lands both directions where
 * the choice wants them, else the next that does. Whether it moved, or -errno with d set. */
static int pair_port(const struct run *r, const struct greedy_paths *g, const struct greedy_conn *c,
		     uint32_t base, const uint32_t *choice, struct run_conn *cn, struct diag *d)
{
	const struct topo *t;
	const struct route_plan *plan;
	uint32_t rev = cn->rev == UINT32_MAX ? UINT32_MAX : base + cn->rev;
	bool up = cn->src < cn->dst;
	struct greedy_pair p = {.job = c->job, .eps = c->eps, .gen = cn->moves + 1u};
	uint16_t port;
	int fits, err;

	p.lo = up ? cn->src : cn->dst;
	p.hi = up ? cn->dst : cn->src;
	p.want_up = want(g, choice, up ? base + (uint32_t)(cn - r->jobs[c->job].conns) : rev);
	p.want_down = want(g, choice, up ? rev : base + (uint32_t)(cn - r->jobs[c->job].conns));
	r->be->view(r, &t, &plan);
	fits = greedy_sport_fits(t, plan, &p, cn->sport);
	if (fits < 0 || fits == 1)
		return fits < 0 ? diag_set(d, fits, "job %u: no route between ranks %u and %u",
					   c->job, p.lo, p.hi)
				: 0;
	err = greedy_sport(t, plan, &p, &port);
	if (err == -EADDRNOTAVAIL)
		return diag_set(d, err,
				"routing.enforce sport: no source port in %u-%u puts job %u's "
				"connection between ranks %u and %u on the chosen paths; use "
				"enforce: tag",
				FLOW_SPORT_LO, FLOW_SPORT_LO + FLOW_SPORT_N - 1, c->job, p.lo,
				p.hi);
	if (err)
		return diag_set(d, err, "job %u: no route between ranks %u and %u", c->job, p.lo,
				p.hi);
	cn->sport = port;
	cn->moves++;
	return 1;
}

/* routing.enforce sport: the pair of connection k (handled with its first entry) moves to a
 * port that lands its directions on their choices, if its own no longer does; told to the
 * lower rank. 1 and *out if it moved, else 0, or -errno with d set. */
static int pin_port(struct run *r, const struct greedy_paths *g, const struct greedy_conn *c,
		    uint32_t first, uint32_t k, const uint32_t *choice, struct run_conn *out,
		    struct diag *d)
{
	struct run_conn *v = r->jobs[c[first].job].conns, *cn = &v[k];
	int moved;

	if (cn->rev != UINT32_MAX && cn->rev < k)
		return 0;
	moved = pair_port(r, g, &c[first], first, choice, cn, d);
	if (moved <= 0)
		return moved;
	if (cn->rev != UINT32_MAX) {
		v[cn->rev].sport = cn->sport;
		v[cn->rev].moves = cn->moves;
	}
	*out = (struct run_conn){.src = cn->src < cn->dst ? cn->src : cn->dst,
				 .dst = cn->src < cn->dst ? cn->dst : cn->src,
				 .sport = cn->sport};
	return 1;
}

/* The assignment carried out, job by job (c is in job order, each job's connections in its
 * own order): the connections whose pin changed are handed to the backend; *moved counts
 * them. */
static int apply(struct run *r, const struct greedy_paths *g, const struct greedy_conn *c,
		 uint32_t n, const uint32_t *choice, uint32_t *moved, struct diag *d)
{
	bool ports = r->e->s.routing.enforce == SCN_ENFORCE_SPORT;
	struct run_conn *changed = calloc(n + 1, sizeof(*changed));
	uint32_t i = 0, first, k, m;
	int err = changed ? 0 : diag_set(d, -ENOMEM, "out of memory");

	while (!err && i < n) {
		for (first = i, k = 0, m = 0; !err && i < n && c[i].job == c[first].job; i++, k++) {
			r->jobs[c[i].job].conns[k].held =
				g->comms.v[i].cand_n ? (uint16_t)(choice[i] + 1) : 0;
			err = ports ? pin_port(r, g, c, first, k, choice, &changed[m], d)
				    : pin_tag(r, g, c, first, k, choice, &changed[m], d);
			m += err > 0;
			err = err > 0 ? 0 : err;
		}
		err = err ? err : hand(r, c[first].job, changed, m, moved, d);
	}
	free(changed);
	return err;
}

static enum greedy_order order_of(const struct run *r)
{
	return r->e->s.routing.order == SCN_GREEDY_INPUT ? GREEDY_ORDER_INPUT
							 : GREEDY_ORDER_BUSIEST_TOR;
}

/* Hedera's annealing (greedy routing §5.1): its state is a spine per destination endpoint,
 * which starts at the endpoint's slot under its ToR; the seed is the scenario's, varied per
 * decision so that each is its own draw, the same on every run. */
static int anneal(const struct run *r, const struct greedy_conn *c, const struct greedy_in *in,
		  uint32_t *choice)
{
	const struct topo *t;
	const struct route_plan *plan;
	uint32_t *key = calloc(in->ncomm + 1, sizeof(*key)), *slot, i;
	int load = -ENOMEM;

	r->be->view(r, &t, &plan);
	slot = calloc(in->ncomm + t->endpoints.n + 1, sizeof(*slot));
	if (key && slot && !greedy_ep_slots(t, slot + in->ncomm)) {
		for (i = 0; i < in->ncomm; i++) {
			key[i] = c[i].eps[c[i].dst];
			slot[i] = slot[in->ncomm + key[i]];
		}
		load = greedy_anneal(in, key, slot,
				     (uint64_t)r->e->s.routing.seed << 32 | r->rec.routes.n,
				     choice);
	}
	free(key);
	free(slot);
	return load;
}

/* vClos §5.2 Source Routing: a connection leaves its leaf on the uplink its source's port
 * maps to: under scheduler.placement vclos the spine its virtual Clos gives the rank
 * (vclos_uplink), else f(i) = i, the source's port under its leaf, modulo the live spines. */
static int source(const struct run *r, const struct greedy_conn *c, const struct greedy_in *in,
		  uint32_t *choice)
{
	const struct topo *t;
	const struct route_plan *plan;
	uint32_t *slot, i, spine;

	r->be->view(r, &t, &plan);
	slot = calloc(t->endpoints.n + 1, sizeof(*slot));
	if (!slot || greedy_ep_slots(t, slot)) {
		free(slot);
		return -ENOMEM;
	}
	for (i = 0; i < in->ncomm; i++) {
		const struct vclos_alloc *a = sched_vclos(&r->sched, c[i].job);
		uint32_t n = in->comms[i].cand_n;

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

/* vClos's Balanced baseline (§9): a connection keeps the uplink it was given; a new one
 * takes the uplink with the fewest connections on it, ties at random (from routing.seed and
 * the decision's number, so a run repeats). */
static int balanced(const struct run *r, const struct greedy_conn *c, const struct greedy_in *in,
		    uint32_t *choice)
{
	uint32_t *load = calloc(in->nlinks + 1, sizeof(*load)), i, first = 0, held;
	uint64_t rng = (uint64_t)r->e->s.routing.seed << 32 ^ r->rec.routes.n;
	int pass;

	if (!load)
		return -ENOMEM;
	for (pass = 0; pass < 2; pass++) { /* the kept ones first, then the new ones */
		for (i = 0; i < in->ncomm; i++) {
			first = i && c[i].job == c[i - 1].job ? first : i;
			held = r->jobs[c[i].job].conns[i - first].held;
			if (!in->comms[i].cand_n || (held && held <= in->comms[i].cand_n) == !!pass)
				continue;
			choice[i] = pass ? balanced_pick(in, i, load, &rng) : held - 1u;
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

static const char *policy_name(enum scn_policy p)
{
	switch (p) {
	case SCN_POLICY_GREEDY:
		return "greedy";
	case SCN_POLICY_EDGE_COLORING:
		return "edge-coloring";
	case SCN_POLICY_ANNEALING:
		return "annealing";
	case SCN_POLICY_SOURCE:
		return "source";
	case SCN_POLICY_BALANCED:
		return "balanced";
	default:
		return "optimal";
	}
}

/* The policy's assignment: its maximum link load, or -errno with d set. */
static int assign(const struct run *r, const struct greedy_conn *c, const struct greedy_in *in,
		  uint32_t *choice, struct diag *d)
{
	const struct scn_routing *rt = &r->e->s.routing;
	const char *name = policy_name(rt->policy);
	int load;

	if (rt->policy == SCN_POLICY_GREEDY)
		load = greedy_assign(in, order_of(r), choice);
	else if (rt->policy == SCN_POLICY_EDGE_COLORING)
		load = greedy_edge_color(in, choice);
	else if (rt->policy == SCN_POLICY_ANNEALING)
		load = anneal(r, c, in, choice);
	else if (rt->policy == SCN_POLICY_SOURCE)
		load = source(r, c, in, choice);
	else if (rt->policy == SCN_POLICY_BALANCED)
		load = balanced(r, c, in, choice);
	else
		load = greedy_optimal(in, rt->optimal_limit, choice);
	if (load == -E2BIG)
		return diag_set(
			d, load,
			"routing.policy optimal: the %u running connections have %llu "
			"possible assignments, over routing.optimal_limit (%llu); raise the "
			"limit (the search may then take long) or use greedy",
			in->ncomm, (unsigned long long)greedy_assignments(in),
			(unsigned long long)rt->optimal_limit);
	return load < 0 ? diag_set(d, load, "routing.policy %s: %s", name, strerror(-load)) : load;
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
	load = err ? 0 : assign(r, c, &g.in, choice, d);
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
	int err;

	if (!r->route_why[0])
		return 0;
	rec = vec_grow(&r->rec.routes);
	if (!rec)
		return diag_set(d, -ENOMEM, "out of memory");
	memset(rec, 0, sizeof(*rec));
	rec->t = run_now(r);
	snprintf(rec->trigger, sizeof(rec->trigger), "%s", r->route_why);
	r->route_why[0] = '\0';
	err = decide(r, rec, d);
	rec->paths_ns = r->route_event >= 0 ? run_now(r) - r->route_event : REC_NEVER;
	return err;
}
