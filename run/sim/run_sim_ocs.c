// SPDX-License-Identifier: MIT
/* OCS reconfigurations in virtual time (run_sim.h): the circuits a rewire changes go dark in
 * the flow model at once, and after topology.ocs.delay the new circuits are lit, the routing
 * plan is made over them and the running connections are traced again, as the emulation's
 * control plane does in the kernel (run_net.c) but on the virtual clock. The circuit sets
 * and the rules of a rewire are model/ocs.h's, the busy circuits policy/sched.h's and
 * policy/reroute.h's, the same decisions emulation makes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_int.h"
#include "run/sim/run_sim.h"

static struct run_sim_net *net(struct run *r)
{
	return &((struct run_sim *)r->be_data)->net;
}

static struct sim_exec *flows(struct run *r)
{
	return &((struct run_sim *)r->be_data)->x;
}

int run_sim_ocs_init(struct run *r, struct diag *d)
{
	struct run_sim_net *n = net(r);
	struct topo *t;

	n->rec = n->job = -1; /* lit_at: sim_prepare */
	if (!r->t->phys)
		return 0;
	n->xc = malloc((r->t->ports.n + 1) * sizeof(*n->xc));
	t = topo_copy(r->t); /* a view of its own, with paths to tell busy circuits by */
	if (!n->xc || !t) {
		topo_free(t);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	ocs_circuits_of(r->t, n->xc);
	return run_sim_set_view(r, t, NULL, d);
}

/* The circuits the reconfiguration under way tears down or moves go dark in the flow model:
 * both directions of their links in the current view. */
static void go_dark(struct run *r)
{
	struct run_sim_net *n = net(r);
	const struct topo *p = n->t->phys;
	const struct topo_link *l;
	uint32_t a;

	for (a = 0; a < p->ports.n; a++) {
		if (n->xc[a] == TOPO_NONE || n->xc[a] == n->next[a])
			continue;
		l = &n->t->links.v[ocs_circuit_link(p, a, n->xc[a])];
		sim_exec_port_state(flows(r), l->port[0], false);
		sim_exec_port_state(flows(r), l->port[1], false);
	}
}

int run_sim_rewire(struct run *r, const struct ocs_change *ch, size_t nch, int64_t j,
		   struct diag *d)
{
	struct run_sim_net *n = net(r);
	struct rec_netev *e;
	char target[256] = "";
	int err;

	if (!n->xc)
		return diag_set(d, -EINVAL, "the topology has no OCS");
	run_ocs_target(n->t->phys, j, ch, nch, target, sizeof(target));
	e = run_sim_rec(r, "rewire", "rewire", target);
	err = n->next ? diag_set(d, -EAGAIN, "an OCS reconfiguration is already under way")
		      : run_ocs_next(r, n->t, &n->paths, n->xc, ch, nch, &n->next, d);
	if (err) {
		if (e) {
			e->routes_ns = REC_NEVER;
			snprintf(e->result, sizeof(e->result), "refused: %.*s",
				 (int)sizeof(e->result) - 10, d->msg);
		}
		return err;
	}
	go_dark(r);
	n->lit_at = sim_exec_now(flows(r)) + (int64_t)r->e->s.topology.ls.ocs.delay_ns;
	n->rec = e ? e - n->recs.v : -1;
	n->job = j;
	return 0;
}

int run_sim_circuits(struct run *r, uint32_t j, const struct ocs_change *ch, size_t n,
		     struct diag *d)
{
	return run_sim_rewire(r, ch, n, j, d);
}

/* Every link direction of the flow model up or down as view nt has it. */
static void follow(struct run *r, const struct topo *nt)
{
	uint32_t k;

	for (k = 0; k < nt->links.n; k++) {
		sim_exec_port_state(flows(r), nt->links.v[k].port[0], nt->links.v[k].up);
		sim_exec_port_state(flows(r), nt->links.v[k].port[1], nt->links.v[k].up);
	}
}

/* The new circuits lit: the view they make (over the cables as they are, failed ones down)
 * followed, its plan made, the connections moved onto it. */
static int light(struct run *r, struct rec_netev *e, struct diag *d)
{
	struct run_sim_net *n = net(r);
	struct topo *nt = ocs_apply(n->t->phys, n->next);

	memcpy(n->xc, n->next, n->t->phys->ports.n * sizeof(*n->xc));
	free(n->next);
	n->next = NULL;
	if (!nt)
		return diag_set(d, -ENOMEM, "out of memory");
	follow(r, nt);
	return run_sim_set_view(r, nt, e, d);
}

int run_sim_ocs_cables(struct run *r, const uint32_t *cables, uint32_t nc, bool up,
		       struct rec_netev *e, struct diag *d)
{
	struct run_sim_net *n = net(r);
	struct topo *phys = topo_copy(n->t->phys), *nt;
	uint32_t i;
	int err;

	for (i = 0; phys && i < nc; i++)
		phys->links.v[cables[i]].up = up;
	nt = phys ? ocs_apply(phys, n->xc) : NULL;
	topo_free(phys);
	if (!nt)
		return diag_set(d, -ENOMEM, "out of memory");
	follow(r, nt);
	err = run_sim_set_view(r, nt, e, d);
	if (n->next) /* a reconfiguration under way: its circuits stay dark */
		go_dark(r);
	return err;
}

void run_sim_ocs_tick(struct run *r, int64_t now)
{
	struct run_sim_net *n = net(r);
	struct rec_netev *e;
	struct diag d = {0};
	int64_t j = n->job;
	int err;

	if (!n->next || now < n->lit_at)
		return;
	e = n->rec >= 0 ? &n->recs.v[n->rec] : NULL;
	err = light(r, e, &d);
	n->lit_at = INT64_MAX;
	n->rec = n->job = -1;
	if (e) {
		e->dark_ns = (int64_t)r->e->s.topology.ls.ocs.delay_ns;
		e->routes_ns = err ? REC_NEVER : e->dark_ns; /* the plan takes no virtual time */
		snprintf(e->result, sizeof(e->result), "%.*s", (int)sizeof(e->result) - 1,
			 err ? d.msg : "ok");
	}
	if (j < 0)
		run_route_trigger(r, "rewire", e ? e->t : now);
	else /* a placement's circuits: its job may start */
		run_circuits_ready(r, (uint32_t)j, err, &d);
}
