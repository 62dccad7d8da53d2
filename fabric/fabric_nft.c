// SPDX-License-Identifier: MIT
/* nftables rulesets for the nodes with ECMP groups (fabric.h): one atomic batch each, sent
 * from a netfilter socket opened inside the node's namespace. */
#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink.h>

#include "fabric/fabric_int.h"
#include "kernel/nftr.h"

static int nft_node(struct fabric *f, uint32_t n, struct diag *d)
{
	struct mnl_socket *nl;
	int r;

	nl = nftr_socket_in(f->nsfd[n], f->root_fd, &r);
	if (!nl)
		return diag_set(d, r, "opening nftables in %s: %s", f->t->nodes.v[n].name,
				strerror(-r));
	r = nftr_node_install(nl, f->t, f->plan, n, d);
	mnl_socket_close(nl);
	if (r)
		return diag_wrap(d, r, "%s: ", f->t->nodes.v[n].name);
	return 0;
}

int fabric_nft(struct fabric *f, struct diag *d)
{
	size_t i, total = 0, done = 0;
	int r = 0;

	for (i = 0; i < f->t->nodes.n; i++)
		total += f->plan->nodes.v[i].group_n > 0;
	for (i = 0; !r && i < f->t->nodes.n; i++) {
		if (!f->plan->nodes.v[i].group_n)
			continue;
		r = fabric_stopped(f, d);
		r = r ? r : nft_node(f, (uint32_t)i, d);
		if (++done % 16 == 0 || done == total)
			fabric_progress(f, FABRIC_NFT, done, total);
	}
	return r;
}
