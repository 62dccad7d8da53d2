// SPDX-License-Identifier: MIT
/* The virtual-time backend (run_sim.h): the runner's calls carried out on sim/exec.h, and
 * every link direction's bytes sampled for links.csv. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/par.h"
#include "run/run_int.h"
#include "run/sim/run_sim.h"

/* links.csv rows at most under a fixed run.sample_interval: past half of this the interval
 * doubles (coarser, not endless) */
#define SAMPLES_MAX 4000000ULL
/* events and flow rates set, then the loop reports progress and heeds a stop */
#define WORK_PER_WAIT 1000000

static struct run_sim *state(const struct run *r)
{
	return r->be_data;
}

double run_sim_goodput(uint32_t mtu)
{
	return mtu > 52 ? (double)(mtu - 52) / (double)(mtu + 14) : 1.0;
}

/* Every direction's bytes so far, as a new sample at now. */
static void sample(struct run *r, int64_t now)
{
	struct run_sim *s = state(r);
	struct sim_bins *b = &s->bins;
	size_t n = b->t.n;
	uint64_t *row = sim_bins_add(b, now);
	uint32_t p;

	if (!row)
		return; /* a gap in links.csv, as a failed round leaves in emulation */
	/* nothing in flight then and no rate set since: nothing moved (most samples of a long idle
	 * stretch, such as a first compute phase, taken ever closer together at the start) */
	if (n && s->idle && s->filled == s->x.net.st.recomputes) {
		memcpy(row, sim_bins_row(b, n - 1), b->ports * sizeof(*row));
		return;
	}
	for (p = 0; p < b->ports; p++)
		row[p] = (uint64_t)(sim_link_bytes(&s->x.net, p) + 0.5);
	s->filled = s->x.net.st.recomputes;
	s->idle = sim_net_flows(&s->x.net) == 0;
}

/* links.csv's rows, from the samples kept. */
static void rows(struct run *r)
{
	const struct sim_bins *b = &state(r)->bins;
	const struct topo *t = r->t;
	uint32_t frame = state(r)->frame;
	struct rec_sample *x;
	size_t i, p;

	if (vec_reserve(&r->rec.samples, r->rec.samples.n + b->t.n * b->ports))
		return; /* no links.csv: the summary says there is no utilization */
	for (i = 0; i < b->t.n; i++)
		for (p = 0; p < b->ports; p++) {
			x = &r->rec.samples.v[r->rec.samples.n++];
			*x = (struct rec_sample){.t = b->t.v[i],
						 .link = t->ports.v[p].link,
						 .dir = t->ports.v[p].side,
						 .tx_bytes = sim_bins_row(b, i)[p]};
			x->tx_packets = (x->tx_bytes + frame - 1) / frame;
		}
}

/* Counters every run.sample_interval when the scenario sets it, else in bins chosen from the
 * run's length (sim/bins.h). */
static void bins_init(struct run *r)
{
	const struct exp_run *c = &r->e->run;
	uint32_t ports = (uint32_t)r->t->ports.n;

	sim_bins_init(&state(r)->bins, ports,
		      c->sample_given ? (int64_t)c->sample_ns : SIM_BINS_AUTO, SAMPLES_MAX / 2);
}

/* Bench only: TB_BENCH_UNCHECKED=1 turns the simulator's physics checks off, so that make bench
 * can time a run without them (tests/bench/sim_checks.sh). Never for a result: a run without
 * them may be wrong and say nothing. */
static bool bench_unchecked(void)
{
	const char *v = getenv("TB_BENCH_UNCHECKED");

	return v && !strcmp(v, "1");
}

static void sim_step(void *arg, uint32_t job, uint32_t rank, uint32_t step, int64_t t0, int64_t t1)
{
	run_chakra_step(arg, job, rank, step, t0, t1);
}

static enum sim_share net_share(enum exp_share s)
{
	switch (s) {
	case EXP_SHARE_EQUAL:
		return SIM_SHARE_EQUAL;
	case EXP_SHARE_EQUAL_SINCE_START:
		return SIM_SHARE_EQUAL_SINCE_START;
	case EXP_SHARE_MAXMIN:
		break;
	}
	return SIM_SHARE_MAXMIN;
}

static int sim_prepare(struct run *r, struct diag *d)
{
	struct run_sim *s = state(r);
	uint32_t mtu = r->e->s.shaping.mtu ? r->e->s.shaping.mtu : 1500;
	int err = 0;

	s->net.lit_at = INT64_MAX; /* no OCS reconfiguration under way */
	if (r->e->failures.v.n)
		err = fail_plan_build(r->e, r->t, &s->net.plan, d);
	err = err ? err : sim_exec_init(&s->x, r->t, r->plan, run_sim_goodput(mtu), &r->rec, d);
	err = err ? err : run_sim_ocs_init(r, d);
	s->x.budget = WORK_PER_WAIT;
	s->x.net.unchecked = bench_unchecked();
	s->x.each = par_each; /* each rank's plan, as a job starts, on every core */
	s->x.net.quantum = (int64_t)(r->e->run.sim_quantum_ns < INT64_MAX ? r->e->run.sim_quantum_ns
									  : INT64_MAX);
	s->x.net.share = net_share(r->e->run.sim_share);
	s->x.phases = r->e->s.routing.policy != SCN_POLICY_ECMP &&
		      r->e->s.routing.trigger == SCN_TRIGGER_PHASE;
	s->x.on_step = sim_step; /* a Chakra trace's job: ops.csv */
	s->x.step_arg = r;
	s->frame = mtu + 14;
	bins_init(r);
	if (!err)
		sample(r, 0); /* the baseline */
	return err;
}

static int64_t sim_now(const struct run *r)
{
	return sim_exec_now(&state(r)->x);
}

static int64_t sim_next_due(const struct run *r)
{
	const struct run_sim *s = state(r);
	const struct fail_plan *p = &s->net.plan;
	int64_t at = p->next < p->events.n ? p->events.v[p->next].at : INT64_MAX;

	if (s->net.lit_at < at)
		at = s->net.lit_at;
	return at < s->bins.next ? at : s->bins.next;
}

int run_sim_set_view(struct run *r, struct topo *nt, struct rec_netev *e, struct diag *d)
{
	struct run_sim_net *n = &state(r)->net;
	const struct topo *ot = n->t ? n->t : r->t;
	const struct route_plan *op = n->t ? &n->routes : r->plan;
	struct topo_paths np = {0};
	struct route_plan nplan = {0};
	struct route_diff df = {0}; /* what the kernel would change, for e */
	int err = route_view_next(ot, op, nt, NULL, NULL, &np, &nplan, e ? &df : NULL, d);

	if (!err && e) {
		struct route_diff_totals x = route_diff_totals(&df);

		e->nodes = x.nodes;
		e->route_ops = x.route_ops;
		e->nft_ops = x.nft_ops;
	}
	route_diff_done(&df);
	if (err) { /* the jobs stay on what they were traced over */
		route_plan_done(&nplan);
		paths_done(&np);
		topo_free(nt);
		return err;
	}
	if (n->t) { /* the jobs keep their own copies of their paths */
		route_plan_done(&n->routes);
		paths_done(&n->paths);
		topo_free(n->t);
	}
	n->t = nt;
	n->paths = np;
	n->routes = nplan;
	return sim_exec_reroute(&state(r)->x, n->t, &n->routes, d);
}

/* A link or node event: its cables' directions down or up in the flow model, the plan
 * rebuilt over the new graph, the jobs' connections moved onto it. */
static int fire_cables(struct run *r, const struct fail_event *ev, struct rec_netev *e,
		       struct diag *d)
{
	struct run_sim_net *n = &state(r)->net;
	struct topo *nt;
	uint32_t i, k;

	if (n->xc) /* the cables under the circuits */
		return run_sim_ocs_cables(r, &n->plan.cables.v[ev->cable_off], ev->cable_n, ev->up,
					  e, d);
	nt = topo_copy(n->t ? n->t : r->t);
	if (!nt)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < ev->cable_n; i++) {
		k = n->plan.cables.v[ev->cable_off + i];
		nt->links.v[k].up = ev->up;
		sim_exec_port_state(&state(r)->x, nt->links.v[k].port[0], ev->up);
		sim_exec_port_state(&state(r)->x, nt->links.v[k].port[1], ev->up);
	}
	return run_sim_set_view(r, nt, e, d);
}

struct rec_netev *run_sim_rec(struct run *r, const char *event, const char *st, const char *target)
{
	struct rec_netev *e = vec_grow(&state(r)->net.recs);

	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	e->t = sim_now(r);
	snprintf(e->event, sizeof(e->event), "%s", event);
	snprintf(e->state, sizeof(e->state), "%s", st);
	snprintf(e->target, sizeof(e->target), "%s", target);
	e->probe_ns = e->dark_ns = REC_NEVER;
	return e;
}

static void fire(struct run *r, const struct fail_event *ev)
{
	struct rec_netev *e;
	struct diag d = {0};
	int err;

	if (ev->kind == EXP_EVENT_REWIRE) { /* refusals are in the records */
		(void)run_sim_rewire(r, &state(r)->net.plan.changes.v[ev->change_off], ev->change_n,
				     -1, &d);
		return;
	}
	e = run_sim_rec(r, fail_kind_name(ev->kind), fail_state_name(ev), ev->target);
	if (!e)
		return;
	err = fire_cables(r, ev, e, &d);
	run_route_trigger(r, "failure", e->t);
	e->routes_ns = err ? REC_NEVER : 0; /* the control plane takes no virtual time */
	snprintf(e->result, sizeof(e->result), "%.*s", (int)sizeof(e->result) - 1,
		 err ? d.msg : "ok");
}

static void net_tick(struct run *r, int64_t now)
{
	struct fail_plan *p = &state(r)->net.plan;

	while (p->next < p->events.n && p->events.v[p->next].at <= now)
		fire(r, &p->events.v[p->next++]);
	run_sim_ocs_tick(r, now);
}

static int sim_write(struct run *r, const struct wdir *dir, struct diag *d)
{
	const struct run_sim_net *n = &state(r)->net;

	if (!r->e->failures.v.n && !r->t->phys)
		return 0;
	return run_netev_write(dir, n->recs.v, n->recs.n, d);
}

static void sim_view(const struct run *r, const struct topo **t, const struct route_plan **plan)
{
	const struct run_sim_net *n = &state(r)->net;

	*t = n->t ? n->t : r->t;
	*plan = n->t ? &n->routes : r->plan;
}

static int sim_retag(struct run *r, uint32_t j, const struct run_conn *v, size_t n, struct diag *d)
{
	struct sim_exec *x = &state(r)->x;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < n; i++)
		err = sim_exec_tag(x, j, v[i].src, v[i].dst, v[i].tag, v[i].sport);
	if (err)
		return diag_set(d, err, "job %u: no connection from rank %u to rank %u", j,
				v[i - 1].src, v[i - 1].dst);
	return sim_exec_retrace(x, j, d);
}

static const struct rec_netev *sim_netevs(const struct run *r, size_t *n)
{
	*n = state(r)->net.recs.n;
	return state(r)->net.recs.v;
}

static int sim_start(struct run *r, uint32_t j, struct diag *d)
{
	const struct run_job *rj = &r->jobs[j];
	struct sim_job_in in = {.id = j,
				.coll = run_job_coll(rj),
				.ext = run_job_ext(rj),
				.iterations = rj->spec.iterations,
				.compute_ns = rj->compute_ns,
				.channels = rj->spec.channels,
				.eps = rj->eps,
				.step_times = rj->chakra != NULL};
	struct diag why = {0};
	int err = sim_exec_start(&state(r)->x, &in, &why);

	if (err == -ENOMEM)
		return diag_set(d, err, "out of memory (job %u, %u ranks)", j, rj->spec.gpus);
	if (err) /* this job cannot run here; the others can */
		run_fail_job(r, j, "%s", why.msg);
	/* the paths the routing policy chose, before any of its flows moves a byte */
	return err || !rj->nconns ? 0 : sim_retag(r, j, rj->conns, rj->nconns, d);
}

/* Its ranks stop at once: the job ends now. */
static void sim_abort(struct run *r, uint32_t j)
{
	sim_exec_abort(&state(r)->x, j);
	run_end_job(r, j, REC_FAILED, NULL);
}

/* Nothing can happen any more but jobs still run: their flows cross links that are down. */
static void stalled(struct run *r)
{
	uint32_t j;

	for (j = 0; j < r->njobs; j++)
		if (r->jobs[j].running)
			run_fail_job(r, j,
				     "no progress possible in virtual time: its flows are "
				     "stalled on links that are down");
}

/* Ranks in and out of collectives, for the routing policy (routing.trigger phase). */
static void phases(struct run *r)
{
	struct sim_exec *x = &state(r)->x;
	size_t i;

	for (i = 0; i < x->phase_q.n; i++)
		run_route_phase(r, x->phase_q.v[i].job, x->phase_q.v[i].coll);
	x->phase_q.n = 0;
}

static int sim_wait(struct run *r, int64_t until, struct diag *d)
{
	uint32_t job, k;
	int res = sim_exec_run(&state(r)->x, until, &job);

	if (res == -EFAULT) /* the model broke its physics: the message says where */
		return diag_set(d, res, "%s", state(r)->x.fault.msg);
	if (res < 0)
		return diag_set(d, res, "virtual time: %s", strerror(-res));
	if (res == SIM_X_JOB_DONE)
		for (k = 0; r->jobs[job].running && k < r->jobs[job].spec.gpus; k++)
			run_rank_ended(r, job, 0, false, NULL);
	else if (res == SIM_X_IDLE)
		stalled(r);
	else if (res == SIM_X_PHASE)
		phases(r);
	return 0;
}

static void sim_tick(struct run *r, int64_t now)
{
	struct run_sim *s = state(r);

	net_tick(r, now);
	if (now < s->bins.next)
		return;
	sample(r, now);
	sim_bins_due(&s->bins, now);
}

static void sim_finish(struct run *r)
{
	struct run_sim *s = state(r);

	if (!s->bins.t.n || s->bins.t.v[s->bins.t.n - 1] != sim_now(r))
		sample(r, sim_now(r));
	rows(r);
	sim_bins_done(&s->bins);
	s->st = s->x.net.st;
}

static void sim_done(struct run *r)
{
	struct run_sim_net *n = &state(r)->net;

	sim_exec_done(&state(r)->x);
	sim_bins_done(&state(r)->bins);
	if (n->t) {
		route_plan_done(&n->routes);
		paths_done(&n->paths);
		topo_free(n->t);
	}
	fail_plan_done(&n->plan);
	vec_free(&n->recs);
	free(n->xc);
	free(n->next);
	memset(n, 0, sizeof(*n));
}

static double sim_share(const struct run *r, uint32_t j)
{
	return sim_exec_share(&state(r)->x, j);
}

const struct run_backend run_sim_backend = {
	.name = "sim",
	.command = "testbed sim",
	.ranks = "endpoints in virtual time",
	.prepare = sim_prepare,
	.now = sim_now,
	.next = sim_next_due,
	.start = sim_start,
	.abort = sim_abort,
	.wait = sim_wait,
	.tick = sim_tick,
	.finish = sim_finish,
	.write = sim_write,
	.netevs = sim_netevs,
	.view = sim_view,
	.retag = sim_retag,
	.circuits = run_sim_circuits,
	.done = sim_done,
	.share = sim_share,
};
