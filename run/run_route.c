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
#include "run/run_int.h"
#include "policy/baseline.h"
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
	struct coll_ext x = run_job_ext(rj);
	struct greedy_conn *c;
	uint32_t i, n;
	int err;

	if (!active(r))
		return 0;
	err = greedy_job_conns(&p, &x, j, rj->eps, &c, &n, d);
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

/* OCS-vClos: the ports direction d (0: lo -> hi) of a pair must leave through: its leaf's
 * port up to its circuit, and the spine's port down the destination's (sched_ocs_route). */
static void ocs_via(const struct run *r, const struct topo *t, const struct greedy_pair_via *v,
		    int d, uint32_t *via)
{
	uint32_t a = d ? v->p.hi : v->p.lo, b = d ? v->p.lo : v->p.hi, up, down;

	via[0] = via[1] = TOPO_NONE;
	if (sched_ocs_route(&r->sched, v->p.job, a, b, &up, &down) != 1)
		return;
	via[0] = up;
	via[1] = t->ports.v[down].link == TOPO_NONE ? TOPO_NONE : topo_port_peer(t, down);
}

/* The tag commodity entry e of the job starting at c[first] gets, 0 for no entry. */
static uint8_t ocs_tag(const struct greedy_paths *g, uint32_t first, const struct run_conn *v,
		       const struct run_conn *e, const uint32_t *choice)
{
	uint32_t i = e ? first + (uint32_t)(e - v) : 0;

	return e ? greedy_paths_tag(g, i, choice[i]) : 0;
}

/* Entry x of a pair gets its tag; the lower rank's (binding the port) also the port. 1 and
 * *out if that changes what its sender was told, else 0. */
static int ocs_entry(struct run_conn *x, uint32_t lo, uint32_t hi, uint8_t tag, uint16_t port,
		     bool moved, struct run_conn *out)
{
	bool binds = !x || x->src == lo;

	if (x && x->tag == tag && !(moved && binds))
		return 0;
	if (!x && !moved)
		return 0;
	if (x)
		x->tag = tag;
	*out = (struct run_conn){.src = x ? x->src : lo,
				 .dst = x ? x->dst : hi,
				 .tag = x ? tag : 0,
				 .sport = binds ? port : 0};
	return 1;
}

/* scheduler.placement ocs-vclos: connection k's pair (handled at its first entry) gets its
 * tags (the uplinks) and a port that takes each direction down its destination's circuit
 * where its spine has several to that leaf. The entries that changed go to out (up to two);
 * their count, or -errno with d set. */
static int pin_ocs(struct run *r, const struct greedy_paths *g, const struct greedy_conn *c,
		   uint32_t first, uint32_t k, const uint32_t *choice, struct run_conn *out,
		   struct diag *d)
{
	struct run_conn *v = r->jobs[c[first].job].conns, *cn = &v[k];
	struct run_conn *rv = cn->rev == UINT32_MAX ? NULL : &v[cn->rev];
	struct greedy_pair_via p = {.p = {.job = c[first].job, .eps = c[first].eps}};
	struct run_conn *fwd, *bwd;
	const struct topo *t;
	const struct route_plan *plan;
	uint16_t port = cn->sport;
	int fits, m;

	if (rv && cn->rev < k)
		return 0;
	p.p.lo = cn->src < cn->dst ? cn->src : cn->dst;
	p.p.hi = cn->src < cn->dst ? cn->dst : cn->src;
	p.p.gen = cn->moves + 1u;
	fwd = cn->src == p.p.lo ? cn : rv;
	bwd = cn->src == p.p.lo ? rv : cn;
	p.tag[0] = ocs_tag(g, first, v, fwd, choice);
	p.tag[1] = ocs_tag(g, first, v, bwd, choice);
	r->be->view(r, &t, &plan);
	ocs_via(r, t, &p, 0, p.via[0]);
	ocs_via(r, t, &p, 1, p.via[1]);
	fits = greedy_sport_via_fits(t, plan, &p, port);
	if (fits < 0)
		return diag_set(d, fits, "job %u: no route between ranks %u and %u", p.p.job,
				p.p.lo, p.p.hi);
	if (!fits && greedy_sport_via(t, plan, &p, &port))
		return diag_set(d, -EADDRNOTAVAIL,
				"scheduler.placement ocs-vclos: no source port takes job %u's "
				"connection between ranks %u and %u down its circuits",
				p.p.job, p.p.lo, p.p.hi);
	if (port != cn->sport) {
		cn->sport = port;
		cn->moves++;
		if (rv)
			rv->sport = port, rv->moves = cn->moves;
	}
	m = ocs_entry(fwd, p.p.lo, p.p.hi, p.tag[0], port, !fits, out);
	if (bwd)
		m += ocs_entry(bwd, p.p.lo, p.p.hi, p.tag[1], port, !fits, out + m);
	return m;
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
			if (r->sched.ocs)
				err = pin_ocs(r, g, c, first, k, choice, &changed[m], d);
			else if (ports)
				err = pin_port(r, g, c, first, k, choice, &changed[m], d);
			else
				err = pin_tag(r, g, c, first, k, choice, &changed[m], d);
			m += err > 0 ? (uint32_t)err : 0;
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

/* vClos §5.2 Source Routing over the topology in force now (policy/baseline.h). */
static int source(const struct run *r, const struct greedy_conn *c, const struct greedy_in *in,
		  uint32_t *choice)
{
	const struct topo *t;
	const struct route_plan *plan;

	r->be->view(r, &t, &plan);
	return baseline_source(t, &r->sched, c, in, choice);
}

/* vClos's Balanced baseline (§9, policy/baseline.h): what each connection held, and a seed from
 * routing.seed and the decision's number, so that a run repeats. */
static int balanced(const struct run *r, const struct greedy_conn *c, const struct greedy_in *in,
		    uint32_t *choice)
{
	uint32_t *held = calloc(in->ncomm + 1, sizeof(*held)), i, first = 0;
	uint64_t seed = (uint64_t)r->e->s.routing.seed << 32 ^ r->rec.routes.n;
	int load;

	if (!held)
		return -ENOMEM;
	for (i = 0; i < in->ncomm; i++) {
		first = i && c[i].job == c[i - 1].job ? first : i;
		held[i] = r->jobs[c[i].job].conns[i - first].held;
	}
	load = baseline_balanced(in, held, seed, choice);
	free(held);
	return load;
}

/* The policy's assignment: its maximum link load, or -errno with d set. */
static int assign(const struct run *r, const struct greedy_conn *c, const struct greedy_in *in,
		  uint32_t *choice, struct diag *d)
{
	const struct scn_routing *rt = &r->e->s.routing;
	const char *name = scn_policy_name(rt->policy);
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
/* The most connections on one switch-to-switch link direction, each traced as the kernel
 * forwards it now (its tag and its port): under ocs-vclos a connection's port, not only its
 * tag, picks its path. -ENOMEM or the count. */
static int traced_load(const struct run *r, const struct topo *t, const struct route_plan *plan,
		       const struct greedy_conn *c, uint32_t n)
{
	uint32_t *load = calloc(t->ports.n + 1, sizeof(*load)), ports[ROUTE_TRACE_MAX], i, k,
		 max = 0;
	int hops, h;

	if (!load)
		return -ENOMEM;
	for (i = 0, k = 0; i < n; i++) {
		const struct run_conn *cn;
		struct route_flow f;

		/* c holds each job's connections in their order */
		k = i && c[i].job == c[i - 1].job ? k + 1 : 0;
		cn = &r->jobs[c[i].job].conns[k];
		f = route_job_flow_port(t, c[i].eps, c[i].job, cn->src, cn->dst, cn->sport);
		f.tag = cn->tag;
		hops = route_trace_ports(t, plan, t->endpoints.v[c[i].eps[cn->src]], &f, ports,
					 ROUTE_TRACE_MAX);
		for (h = 0; h < hops; h++)
			if (t->links.v[t->ports.v[ports[h]].link].tier != TOPO_TIER_EDGE &&
			    ++load[ports[h]] > max)
				max = load[ports[h]];
	}
	free(load);
	return (int)max;
}

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
	if (!err && r->sched.ocs) { /* the ports pin the spines' downlinks: count what runs */
		load = traced_load(r, t, plan, c, n);
		err = load < 0 ? diag_set(d, load, "out of memory") : 0;
		rec->max_load = load > 0 ? (uint32_t)load : 0;
	}
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
