// SPDX-License-Identifier: MIT
/* The run-time control plane's state and its commits (see netctl.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netlink/msg.h>

#include "kernel/mono.h"
#include "model/addr.h"
#include "model/ocs.h"
#include "fabric/netctl.h"
#include "kernel/nlk.h"
#include "kernel/nlk_change.h"
#include "policy/route_rto.h"

/* The view of phys under xc: what routing sees. */
static struct topo *view_of(const struct topo *phys, const uint32_t *xc)
{
	struct topo *v = xc ? ocs_apply(phys, xc) : topo_copy(phys);

	if (v && !xc) {
		topo_free(v->phys);
		v->phys = NULL;
	}
	return v;
}

int netctl_init(struct netctl *c, const struct topo *t, const int *nsfd, struct diag *d)
{
	memset(c, 0, sizeof(*c));
	c->nsfd = nsfd;
	c->root_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (c->root_fd < 0)
		return diag_set(d, -errno, "opening the root namespace: %s", strerror(errno));
	c->phys = topo_copy(t->phys ? t->phys : t);
	if (c->phys && t->phys) {
		c->xc = malloc(t->ports.n * sizeof(*c->xc) + 1);
		if (c->xc)
			ocs_circuits_of(t, c->xc);
	}
	if (!c->phys || (t->phys && !c->xc))
		return diag_set(d, -ENOMEM, "out of memory");
	c->t = view_of(c->phys, c->xc);
	if (!c->t)
		return diag_set(d, -ENOMEM, "out of memory");
	return route_plan_for(c->t, &c->paths, &c->plan, d);
}

int netctl_set_rto(struct netctl *c, const struct scn_shaping *sh, const struct scn_rto *cfg,
		   struct diag *d)
{
	c->sh = sh;
	c->rto = *cfg;
	return route_rto_fill(c->t, &c->paths, sh, cfg, &c->plan, d);
}

void netctl_done(struct netctl *c)
{
	route_plan_done(&c->plan);
	paths_done(&c->paths);
	topo_free(c->t);
	topo_free(c->phys);
	free(c->xc);
	if (c->root_fd > 0)
		close(c->root_fd);
	memset(c, 0, sizeof(*c));
}

/* The peer of port p back as its permanent neighbour (model/addr.h addr_neigh), which the
 * kernel removed with the link going down. */
static int end_neigh(struct netctl *c, struct nlk_batch *b, uint32_t port, struct diag *d)
{
	const struct topo_port *p = &c->phys->ports.v[port];
	struct nl_msg *m = NULL;
	uint8_t mac[6];
	uint32_t addr;
	int r;

	if (addr_neigh(c->phys, port, &addr, mac))
		return 0;
	r = nlk_build_neigh_add((int)p->ifindex, addr, mac, &m);
	if (r)
		return diag_set(d, r, "building a neighbour request: %s", strerror(-r));
	r = nlk_batch_add(b, m, d, "%s: adding %s's neighbour", c->phys->nodes.v[p->node].name,
			  p->ifname);
	nlmsg_free(m);
	return r;
}

/* One end of cable k down or up, in its namespace. */
static int end_state(struct netctl *c, uint32_t port, bool up, struct diag *d)
{
	const struct topo_port *p = &c->phys->ports.v[port];
	const char *node = c->phys->nodes.v[p->node].name;
	struct nl_msg *m = NULL;
	struct nlk_batch b;
	int fd, r;

	fd = nlk_socket_in(c->nsfd[p->node], c->root_fd);
	if (fd < 0)
		return diag_set(d, fd, "opening netlink in %s: %s", node, strerror(-fd));
	nlk_batch_init(&b, fd);
	r = nlk_build_link_state((int)p->ifindex, up, &m);
	if (r)
		diag_set(d, r, "building a link request: %s", strerror(-r));
	else
		r = nlk_batch_add(&b, m, d, "%s: setting %s %s", node, p->ifname,
				  up ? "up" : "down");
	nlmsg_free(m);
	r = r || !up ? r : end_neigh(c, &b, port, d);
	r = r ? r : nlk_batch_flush(&b, d);
	nlk_batch_done(&b);
	close(fd);
	return r;
}

int netctl_cable_state(struct netctl *c, uint32_t k, bool up, struct diag *d)
{
	const struct topo_link *l = &c->phys->links.v[k];
	int r;

	r = end_state(c, l->port[0], up, d);
	r = r ? r : end_state(c, l->port[1], up, d);
	c->phys->links.v[k].up = up;
	return r;
}

int netctl_cables_of(const struct netctl *c, uint32_t link, uint32_t out[2])
{
	const struct topo_link *l = &c->t->links.v[link];
	uint32_t i, n = 0;

	if (!c->xc) {
		out[0] = link;
		return 1;
	}
	/* a logical link holds the cables of its two ports' physical links */
	for (i = 0; i < 2; i++) {
		uint32_t k = c->phys->ports.v[l->port[i]].link;

		if (!n || out[0] != k)
			out[n++] = k;
	}
	return (int)n;
}

int netctl_commit(struct netctl *c, struct netctl_stats *st, struct diag *d)
{
	struct topo_paths np = {0};
	struct route_plan nplan = {0};
	struct route_diff df = {0};
	int64_t t0 = mono_now_ns(), t1;
	struct topo *nt;
	int r;

	memset(st, 0, sizeof(*st));
	nt = view_of(c->phys, c->xc);
	r = nt ? route_view_next(c->t, &c->plan, nt, c->sh, &c->rto, &np, &nplan, &df, d)
	       : diag_set(d, -ENOMEM, "out of memory");
	t1 = mono_now_ns();
	st->plan_ns = t1 - t0;
	if (!r) {
		r = netctl_apply(c, c->t, &c->plan, nt, &nplan, &df, d);
		st->apply_ns = mono_now_ns() - t1;
		st->ops = route_diff_totals(&df);
		/* keep what was asked for, even if the kernel refused part of it */
		route_plan_done(&c->plan);
		paths_done(&c->paths);
		topo_free(c->t);
		c->t = nt;
		c->paths = np;
		c->plan = nplan;
		nt = NULL;
	}
	route_diff_done(&df);
	if (nt) {
		route_plan_done(&nplan);
		paths_done(&np);
		topo_free(nt);
	}
	return r;
}
