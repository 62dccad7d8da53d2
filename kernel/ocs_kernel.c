// SPDX-License-Identifier: MIT
/* An OCS's circuits as tc filters (see ocs_kernel.h). */
#include <errno.h>
#include <string.h>

#include <netlink/msg.h>

#include "kernel/nlk_change.h"
#include "kernel/ocs_kernel.h"

/* Queues a request a builder made, or reports why it could not. */
static int queue(struct nlk_batch *b, int built, struct nl_msg *m, struct diag *d,
		 const struct topo *p, uint32_t port, const char *what)
{
	const struct topo_port *pt = &p->ports.v[port];
	int r;

	if (built) {
		nlmsg_free(m);
		return diag_set(d, built, "building a request for %s:%s: %s",
				p->nodes.v[pt->node].name, pt->ifname, strerror(-built));
	}
	r = nlk_batch_add(b, m, d, "%s: %s on %s", p->nodes.v[pt->node].name, what, pt->ifname);
	nlmsg_free(m);
	return r;
}

static int circuit(struct nlk_batch *b, const struct topo *p, uint32_t a, uint32_t to,
		   struct diag *d)
{
	struct nl_msg *m = NULL;
	int built;

	built = nlk_build_circuit((int)p->ports.v[a].ifindex, (int)p->ports.v[to].ifindex, &m);
	return queue(b, built, m, d, p, a, "adding a circuit");
}

int ocs_kernel_up(struct nlk_batch *b, const struct topo *p, const uint32_t *xc, uint32_t o,
		  struct diag *d)
{
	uint32_t i, a;
	struct nl_msg *m;
	int r = 0, built;

	for (i = 0; !r && i < p->nodes.v[o].nports; i++) {
		a = topo_node_port(p, o, i);
		m = NULL;
		built = nlk_build_ingress((int)p->ports.v[a].ifindex, &m);
		r = queue(b, built, m, d, p, a, "adding the ingress qdisc");
	}
	r = r ? r : nlk_batch_flush(b, d); /* filters need their qdisc */
	for (i = 0; !r && i < p->nodes.v[o].nports; i++) {
		a = topo_node_port(p, o, i);
		if (xc[a] != TOPO_NONE)
			r = circuit(b, p, a, xc[a], d);
	}
	return r ? r : nlk_batch_flush(b, d);
}

uint32_t ocs_kernel_changed(const struct topo *p, const uint32_t *old, const uint32_t *next,
			    uint32_t o)
{
	uint32_t i, a, n = 0;

	for (i = 0; i < p->nodes.v[o].nports; i++) {
		a = topo_node_port(p, o, i);
		n += old[a] != next[a];
	}
	return n;
}

int ocs_kernel_dark(struct nlk_batch *b, const struct topo *p, const uint32_t *old,
		    const uint32_t *next, uint32_t o, struct diag *d)
{
	uint32_t i, a;
	struct nl_msg *m;
	int r = 0, built;

	b->tolerate = -ENOENT;
	for (i = 0; !r && i < p->nodes.v[o].nports; i++) {
		a = topo_node_port(p, o, i);
		if (old[a] == next[a] || old[a] == TOPO_NONE)
			continue;
		m = NULL;
		built = nlk_build_circuit_del((int)p->ports.v[a].ifindex, &m);
		r = queue(b, built, m, d, p, a, "removing a circuit");
	}
	r = r ? r : nlk_batch_flush(b, d);
	b->tolerate = 0;
	return r;
}

int ocs_kernel_join(struct nlk_batch *b, const struct topo *p, const uint32_t *old,
		    const uint32_t *next, uint32_t o, struct diag *d)
{
	uint32_t i, a;
	int r = 0;

	for (i = 0; !r && i < p->nodes.v[o].nports; i++) {
		a = topo_node_port(p, o, i);
		if (old[a] != next[a] && next[a] != TOPO_NONE)
			r = circuit(b, p, a, next[a], d);
	}
	return r ? r : nlk_batch_flush(b, d);
}
