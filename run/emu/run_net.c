// SPDX-License-Identifier: MIT
/* The runner's network control (see run_net.h): failures and repairs as the scenario times
 * them, and OCS reconfigurations in two halves around their dark period. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/mono.h"
#include "run/emu/run_emu_int.h"
#include "run/emu/run_net.h"

int run_net_init(struct run *r, struct diag *d)
{
	struct run_net *n;
	int err;

	if (!r->e->failures.v.n && !r->t->phys)
		return 0;
	n = calloc(1, sizeof(*n));
	if (!n)
		return diag_set(d, -ENOMEM, "out of memory");
	run_emu(r)->net = n;
	n->reconf_rec = -1;
	n->reconf_job = -1;
	n->ocs_delay_ns = r->e->s.topology.ls.ocs.delay_ns;
	err = fail_plan_build(r->e, r->t, &n->plan, d);
	err = err ? err : netctl_init(&n->ctl, r->t, run_emu(r)->nsfd, d);
	return err ? err : netctl_set_rto(&n->ctl, &r->e->s.shaping, &r->e->s.emulation.rto_min, d);
}

void run_net_done(struct run *r)
{
	struct run_net *n = run_emu(r)->net;

	if (!n)
		return;
	run_net_probes(n, true);
	vec_free(&n->probes);
	ocs_reconf_done(&n->reconf);
	netctl_done(&n->ctl);
	fail_plan_done(&n->plan);
	free(n->reconf_ports);
	vec_free(&n->recs);
	free(n);
	run_emu(r)->net = NULL;
}

void run_net_view(const struct run *r, const struct topo **t, const struct route_plan **plan)
{
	const struct run_net *n = run_emu(r)->net;

	*t = n ? n->ctl.t : r->t;
	*plan = n ? &n->ctl.plan : r->plan;
}

bool run_ocs_pending(const struct run *r)
{
	return run_emu(r)->net && run_emu(r)->net->reconf.next;
}

int64_t run_net_next(const struct run *r)
{
	const struct run_net *n = run_emu(r)->net;
	int64_t next = INT64_MAX;

	if (!n)
		return next;
	if (n->plan.next < n->plan.events.n)
		next = n->plan.events.v[n->plan.next].at;
	if (n->reconf.next && ocs_reconf_deadline(&n->reconf) - run_emu(r)->t0 < next)
		next = ocs_reconf_deadline(&n->reconf) - run_emu(r)->t0;
	return next;
}

static void set_result(struct rec_netev *e, int err, const struct diag *d)
{
	const char *why = d->msg[0] ? d->msg : strerror(-err);

	snprintf(e->result, sizeof(e->result), "%.*s", (int)sizeof(e->result) - 1,
		 err ? why : "ok");
}

static void fill_stats(struct rec_netev *e, const struct netctl_stats *st)
{
	e->nodes = st->ops.nodes;
	e->route_ops = st->ops.route_ops;
	e->nft_ops = st->ops.nft_ops;
	e->plan_ns = st->plan_ns;
	e->apply_ns = st->apply_ns;
}

/* Links of the current view that ride on one of the event's cables. */
static uint8_t *affected(const struct run_net *n, const struct fail_event *ev)
{
	const struct topo *t = n->ctl.t;
	uint8_t *aff = calloc(t->links.n + 1, 1);
	uint32_t k, i, j, c[2];
	int nc;

	for (k = 0; aff && k < t->links.n; k++) {
		nc = netctl_cables_of(&n->ctl, k, c);
		for (i = 0; i < (uint32_t)nc; i++)
			for (j = 0; j < ev->cable_n; j++)
				aff[k] |= n->plan.cables.v[ev->cable_off + j] == c[i];
	}
	return aff;
}

/* A cable or node event: the cables' veths down or up, then the control plane reroutes.
 * A failure's probe pair is chosen on the paths before it, a repair's on those after. */
static bool pick(const struct run_net *n, const struct fail_event *ev, uint32_t pair[2])
{
	uint8_t *aff = affected(n, ev);
	bool ok = aff && run_net_pick(n, aff, pair);

	free(aff);
	return ok;
}

static void fire_cables(struct run *r, const struct fail_event *ev)
{
	struct run_net *n = run_emu(r)->net;
	struct netctl_stats st = {0};
	struct rec_netev *e;
	struct diag d = {0};
	uint32_t i, pair[2];
	bool probe;
	int64_t t0;
	int err = 0;

	e = run_net_rec(n, run_now(r), fail_kind_name(ev->kind), fail_state_name(ev), ev->target);
	probe = !ev->up && pick(n, ev, pair);
	t0 = mono_now_ns();
	for (i = 0; !err && i < ev->cable_n; i++)
		err = netctl_cable_state(&n->ctl, n->plan.cables.v[ev->cable_off + i], ev->up, &d);
	err = err ? err : netctl_commit(&n->ctl, &st, &d);
	run_route_trigger(r, "failure", e ? e->t : run_now(r));
	if (!e)
		return;
	e->routes_ns = err ? REC_NEVER : mono_now_ns() - t0;
	fill_stats(e, &st);
	set_result(e, err, &d);
	if (ev->up)
		probe = pick(n, ev, pair);
	if (probe)
		run_net_probe(n, pair, t0, e);
}

static void fire(struct run *r, const struct fail_event *ev)
{
	struct diag d = {0};

	if (ev->kind != EXP_EVENT_REWIRE) {
		fire_cables(r, ev);
		return;
	}
	/* refusals are in the records: the scenario asked as a policy would */
	(void)run_ocs_rewire(r, &run_emu(r)->net->plan.changes.v[ev->change_off], ev->change_n, &d);
}

/* The second half of a reconfiguration: circuits in, routes fixed, a probe over them. */
static void finish_reconf(struct run *r)
{
	struct run_net *n = run_emu(r)->net;
	struct rec_netev *e = n->reconf_rec >= 0 ? &n->recs.v[n->reconf_rec] : NULL;
	const struct topo *p = n->ctl.phys;
	uint8_t *aff = calloc(n->ctl.t->links.n + 1, 1);
	struct diag d = {0};
	uint32_t a, pair[2];
	int err;

	err = ocs_reconf_finish(&n->ctl, &n->reconf, &d);
	if (n->reconf_job < 0)
		run_route_trigger(r, "rewire", e ? e->t : run_now(r));
	n->reconf_rec = -1;
	if (!e)
		goto out;
	e->dark_ns = n->reconf.t_lit - n->reconf.t_dark;
	e->routes_ns = err ? REC_NEVER : n->reconf.t_routes - n->reconf.t_begin;
	fill_stats(e, &n->reconf.st);
	set_result(e, err, &d);
	for (a = 0; aff && a < p->ports.n; a++)
		if (n->reconf_ports[a] && n->ctl.xc[a] != TOPO_NONE)
			aff[ocs_circuit_link(p, a, n->ctl.xc[a])] = 1;
	if (aff && !err && run_net_pick(n, aff, pair))
		run_net_probe(n, pair, n->reconf.t_begin, e);
out:
	free(aff);
	if (n->reconf_job >= 0) { /* a placement's circuits: its job may start */
		uint32_t j = (uint32_t)n->reconf_job;

		n->reconf_job = -1;
		run_circuits_ready(r, j, err, &d);
	}
}

void run_net_tick(struct run *r, int64_t now)
{
	struct run_net *n = run_emu(r)->net;

	if (!n)
		return;
	while (n->plan.next < n->plan.events.n && n->plan.events.v[n->plan.next].at <= now)
		fire(r, &n->plan.events.v[n->plan.next++]);
	if (n->reconf.next && mono_now_ns() >= ocs_reconf_deadline(&n->reconf))
		finish_reconf(r);
	run_net_probes(n, false);
}

/* Which OCS ports the reconfiguration under way changes. */
static int note_ports(struct run_net *n)
{
	size_t i, np = n->ctl.phys->ports.n;

	free(n->reconf_ports);
	n->reconf_ports = calloc(np + 1, 1);
	if (!n->reconf_ports)
		return -ENOMEM;
	for (i = 0; i < np; i++)
		n->reconf_ports[i] = n->ctl.xc[i] != n->reconf.next[i];
	return 0;
}

static int begin(struct run *r, const struct ocs_change *ch, size_t nch, struct rec_netev *e,
		 struct diag *d)
{
	struct run_net *n = run_emu(r)->net;
	uint32_t *next;
	int err = run_ocs_next(r, n->ctl.t, &n->ctl.paths, n->ctl.xc, ch, nch, &next, d);

	err = err ? err : ocs_reconf_begin(&n->ctl, next, n->ocs_delay_ns, &n->reconf, d);
	if (!err && note_ports(n)) {
		ocs_reconf_done(&n->reconf);
		err = diag_set(d, -ENOMEM, "out of memory");
	}
	if (err && e)
		snprintf(e->result, sizeof(e->result), "refused: %.*s", (int)sizeof(e->result) - 10,
			 d->msg);
	if (!err && e)
		n->reconf_rec = (int32_t)(e - n->recs.v);
	return err;
}

int run_net_circuits(struct run *r, uint32_t j, const struct ocs_change *ch, size_t n,
		     struct diag *d)
{
	struct run_net *net = run_emu(r)->net;
	struct rec_netev *e;
	char target[256];
	int err;

	if (!net || !net->ctl.xc)
		return diag_set(d, -EINVAL, "the topology has no OCS");
	if (net->reconf.next)
		return diag_set(d, -EAGAIN, "an OCS reconfiguration is already under way");
	run_ocs_target(net->ctl.phys, j, ch, n, target, sizeof(target));
	e = run_net_rec(net, run_now(r), "rewire", "rewire", target);
	err = begin(r, ch, n, e, d);
	if (!err)
		net->reconf_job = j;
	return err;
}

int run_ocs_rewire(struct run *r, const struct ocs_change *ch, size_t n, struct diag *d)
{
	struct rec_netev *e;
	char target[96];
	size_t i;

	if (!run_emu(r)->net || !run_emu(r)->net->ctl.xc)
		return diag_set(d, -EINVAL, "the topology has no OCS");
	for (i = 0; i < n; i++)
		if (ch[i].ocs >= r->t->nodes.n || ch[i].a >= r->t->nodes.n ||
		    ch[i].b >= r->t->nodes.n)
			return diag_set(d, -EINVAL, "rewire: no such node");
	run_ocs_target(run_emu(r)->net->ctl.phys, -1, ch, n, target, sizeof(target));
	e = run_net_rec(run_emu(r)->net, run_now(r), "rewire", "rewire", target);
	if (!run_emu(r)->net->reconf.next)
		return begin(r, ch, n, e, d);
	if (e)
		snprintf(e->result, sizeof(e->result),
			 "refused: an OCS reconfiguration is already under way");
	return diag_set(d, -EAGAIN, "an OCS reconfiguration is already under way");
}
