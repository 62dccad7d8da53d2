// SPDX-License-Identifier: MIT
/* A routing plan's difference into the kernel (netctl.h), node by node, in the order the
 * difference lists it: new and changed routes and new rules first (tolerating what is
 * already there), then the nftables ruleset swapped in one transaction, then what is gone
 * (tolerating what the kernel already removed with a downed link), then stale neighbours. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <netlink/msg.h>

#include "model/addr.h"
#include "fabric/netctl.h"
#include "kernel/netns.h"
#include "kernel/nftr.h"
#include "kernel/nlk.h"
#include "kernel/nlk_change.h"

#define MAX_NH 256
#define NFT_THREADS 8 /* rulesets swapped at once */

/* One node's application: its ops, the two sides, a socket in its namespace. */
struct node_apply {
	const struct netctl *c;
	const struct topo *ot, *nt;
	const struct route_plan *op, *np;
	const struct route_op *ops;
	size_t n;
	int fd;
	int err; /* the node's first error */
};

static const char *node_name(const struct node_apply *a)
{
	return a->nt->nodes.v[a->ops[0].node].name;
}

/* The request for route re of plan pl over topology t. */
static int route_msg(const struct topo *t, const struct route_plan *pl,
		     const struct route_entry *re, bool del, struct nl_msg **m)
{
	struct nlk_nexthop nh[MAX_NH];
	struct nlk_route rt = {.table = re->table,
			       .dst = re->dst.addr,
			       .plen = re->dst.plen,
			       .src = re->src,
			       .nh = nh,
			       .rto_min_ms = del ? 0 : re->rto_min_ms};
	uint32_t i, port;

	for (i = 0; !del && i < re->nh_n && i < MAX_NH; i++) {
		port = pl->ports.v[re->nh_off + i];
		nh[i].ifindex = (int)t->ports.v[port].ifindex;
		nh[i].gw = t->ports.v[topo_port_peer(t, port)].addr;
		nh[i].onlink = t->ports.v[port].plen == 32; /* toward an OCS: model/ocs.h */
		rt.nh_n++;
	}
	return del ? nlk_build_route_del(&rt, m) : nlk_build_route_set(&rt, m);
}

static int op_msg(const struct node_apply *a, const struct route_op *o, struct nl_msg **m)
{
	const struct route_rule *ru;

	switch (o->kind) {
	case ROUTE_OP_SET:
		return route_msg(a->nt, a->np, &a->np->routes.v[o->idx], false, m);
	case ROUTE_OP_DEL:
		return route_msg(a->ot, a->op, &a->op->routes.v[o->idx], true, m);
	case ROUTE_OP_RULE_ADD:
		ru = &a->np->rules.v[o->idx];
		return nlk_build_rule(ru->prio, ru->mark, ru->table, m);
	case ROUTE_OP_RULE_DEL:
		ru = &a->op->rules.v[o->idx];
		return nlk_build_rule_del(ru->prio, ru->mark, ru->table, m);
	case ROUTE_OP_NEIGH_DEL:
		return nlk_build_neigh_del((int)a->nt->ports.v[o->idx].ifindex, o->addr, m);
	case ROUTE_OP_NFT:
		break;
	}
	return -EINVAL;
}

static const char *op_name(enum route_op_kind k)
{
	static const char *const names[] = {"setting a route",	     "adding a rule",
					    "replacing the ruleset", "deleting a route",
					    "deleting a rule",	     "flushing a neighbour"};

	return names[k];
}

/* One batch: the node's ops of the given kinds, with one errno that counts as done. */
static int batch(struct node_apply *a, enum route_op_kind k1, enum route_op_kind k2, int tolerate,
		 struct diag *d)
{
	struct nl_msg *m = NULL;
	struct nlk_batch b;
	size_t i;
	int r = 0;

	nlk_batch_init(&b, a->fd);
	b.tolerate = tolerate;
	for (i = 0; !r && i < a->n; i++) {
		const struct route_op *o = &a->ops[i];

		if (o->kind != k1 && o->kind != k2)
			continue;
		r = op_msg(a, o, &m);
		if (r)
			diag_set(d, r, "%s: building a request: %s", node_name(a), strerror(-r));
		else
			r = nlk_batch_add(&b, m, d, "%s: %s", node_name(a), op_name(o->kind));
		nlmsg_free(m);
		m = NULL;
	}
	r = r ? r : nlk_batch_flush(&b, d);
	nlk_batch_done(&b);
	return r;
}

/* Empties the node's nftables table: it has no ECMP group any more. */
static int nft_clear(struct mnl_socket *nl, struct diag *d)
{
	char buf[2 * NFTR_MSG_MAX];
	struct mnl_nlmsg_batch *b = mnl_nlmsg_batch_start(buf, NFTR_MSG_MAX);
	uint32_t seq = 1;
	int r;

	r = nftr_batch_begin(b, &seq);
	r = r < 0 ? r : nftr_node_clear(b, &seq);
	r = r < 0 ? r : nftr_batch_end(b, &seq);
	r = r < 0 ? diag_set(d, r, "building the nftables batch") : 0;
	r = r ? r : nftr_batch_send(nl, b, 1, seq - 1, d);
	mnl_nlmsg_batch_stop(b);
	return r;
}

static int nft(struct node_apply *a, struct diag *d)
{
	uint32_t node = a->ops[0].node;
	struct mnl_socket *nl = NULL;
	int r = netns_enter(a->c->nsfd[node]);

	if (!r) {
		nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC);
		r = nl && !mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) ? 0 : -errno;
	}
	if (netns_enter(a->c->root_fd) && !r)
		r = -errno;
	if (r)
		diag_set(d, r, "opening nftables in %s: %s", node_name(a), strerror(-r));
	else if (a->np->nodes.v[node].group_n)
		r = nftr_node_install(nl, a->nt, a->np, node, d);
	else
		r = nft_clear(nl, d);
	if (nl)
		mnl_socket_close(nl);
	return r ? diag_wrap(d, r, "%s: ", node_name(a)) : 0;
}

static int open_node(struct node_apply *a, struct diag *d)
{
	a->fd = nlk_socket_in(a->c->nsfd[a->ops[0].node], a->c->root_fd);
	if (a->fd < 0)
		return diag_set(d, a->fd, "opening netlink in %s: %s", node_name(a),
				strerror(-a->fd));
	return 0;
}

/* What is gone, on a node whose earlier phases went well. */
static int finish_node(struct node_apply *a, struct diag *d)
{
	if (a->err)
		return 0;
	a->err = batch(a, ROUTE_OP_DEL, ROUTE_OP_DEL, -ESRCH, d);
	if (!a->err)
		a->err = batch(a, ROUTE_OP_RULE_DEL, ROUTE_OP_NEIGH_DEL, -ENOENT, d);
	return 0;
}

static bool has(const struct node_apply *a, enum route_op_kind k)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->ops[i].kind == k)
			return true;
	return false;
}

/* The nodes of a difference, each with its slice of ops and a diag of its own (the nftables
 * phase runs them in parallel). */
struct plan_apply {
	struct node_apply *nodes;
	struct diag *diags;
	size_t n;
	atomic_size_t next; /* the nftables phase's next node */
};

static int split(struct plan_apply *pa, const struct node_apply *proto, const struct route_diff *df)
{
	size_t i = 0, j;

	pa->nodes = calloc(df->nodes + 1, sizeof(*pa->nodes));
	pa->diags = calloc(df->nodes + 1, sizeof(*pa->diags));
	if (!pa->nodes || !pa->diags)
		return -ENOMEM;
	for (pa->n = 0; i < df->ops.n && pa->n < df->nodes; i = j, pa->n++) {
		for (j = i; j < df->ops.n && df->ops.v[j].node == df->ops.v[i].node; j++)
			;
		pa->nodes[pa->n] = *proto;
		pa->nodes[pa->n].ops = &df->ops.v[i];
		pa->nodes[pa->n].n = j - i;
	}
	return 0;
}

/* Each kernel's nftables transaction waits for an RCU grace period (about 10 ms measured
 * here), so the rulesets of all the nodes are swapped in parallel, not one after another. */
static void *nft_worker(void *arg)
{
	struct plan_apply *pa = arg;
	size_t k;

	while ((k = atomic_fetch_add(&pa->next, 1)) < pa->n)
		if (has(&pa->nodes[k], ROUTE_OP_NFT) && !pa->nodes[k].err)
			pa->nodes[k].err = nft(&pa->nodes[k], &pa->diags[k]);
	return NULL;
}

static void nft_phase(struct plan_apply *pa)
{
	pthread_t th[NFT_THREADS];
	size_t i, nth = 0, want = 0;

	for (i = 0; i < pa->n; i++)
		want += has(&pa->nodes[i], ROUTE_OP_NFT);
	for (; nth < want && nth < NFT_THREADS; nth++)
		if (pthread_create(&th[nth], NULL, nft_worker, pa))
			break;
	nft_worker(pa); /* this thread works too, and finishes what no thread could take */
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
}

/* Routes and rules added first everywhere, then the rulesets, then what is gone: the new
 * paths exist before any hash points at them, and the old ones go last. */
int netctl_apply(const struct netctl *c, const struct topo *ot, const struct route_plan *op,
		 const struct topo *nt, const struct route_plan *np, const struct route_diff *df,
		 struct diag *d)
{
	struct node_apply proto = {c, ot, nt, op, np, NULL, 0, -1, 0};
	struct plan_apply pa = {0};
	size_t i;
	int r = split(&pa, &proto, df);

	for (i = 0; !r && i < pa.n; i++)
		pa.nodes[i].err = open_node(&pa.nodes[i], &pa.diags[i]);
	for (i = 0; !r && i < pa.n; i++)
		if (!pa.nodes[i].err)
			pa.nodes[i].err = batch(&pa.nodes[i], ROUTE_OP_SET, ROUTE_OP_RULE_ADD,
						-EEXIST, &pa.diags[i]);
	if (!r)
		nft_phase(&pa);
	for (i = 0; !r && i < pa.n; i++)
		r = finish_node(&pa.nodes[i], &pa.diags[i]);
	for (i = 0; i < pa.n; i++) {
		if (pa.nodes[i].err && !r)
			r = diag_set(d, pa.nodes[i].err, "%s", pa.diags[i].msg);
		if (pa.nodes[i].fd >= 0)
			close(pa.nodes[i].fd);
	}
	free(pa.nodes);
	free(pa.diags);
	return r == -ENOMEM && !d->msg[0] ? diag_set(d, r, "out of memory") : r;
}
