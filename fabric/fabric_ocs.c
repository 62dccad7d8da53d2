// SPDX-License-Identifier: MIT
/* The OCSes at `up` (fabric.h): every OCS port's ingress qdisc and the scenario's circuits
 * (kernel/ocs_kernel.h), once the ports are up and before traffic may flow. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/ocs.h"
#include "fabric/fabric_int.h"
#include "kernel/ocs_kernel.h"

static int ocs_node(struct fabric *f, const uint32_t *xc, uint32_t o, struct diag *d)
{
	struct nlk_batch b;
	int fd, r;

	fd = nlk_socket_in(f->nsfd[o], f->root_fd);
	if (fd < 0)
		return diag_set(d, fd, "opening netlink in %s: %s", f->t->nodes.v[o].name,
				strerror(-fd));
	nlk_batch_init(&b, fd);
	r = ocs_kernel_up(&b, f->t->phys, xc, o, d);
	nlk_batch_done(&b);
	close(fd);
	return r;
}

int fabric_ocs(struct fabric *f, struct diag *d)
{
	uint32_t *xc;
	size_t i;
	int r = 0;

	if (!f->t->phys)
		return 0;
	xc = malloc(f->t->ports.n * sizeof(*xc) + 1);
	if (!xc)
		return diag_set(d, -ENOMEM, "out of memory");
	ocs_circuits_of(f->t, xc);
	for (i = 0; !r && i < f->t->nodes.n; i++)
		if (f->t->nodes.v[i].kind == TOPO_OCS)
			r = fabric_stopped(f, d) ? -EINTR : ocs_node(f, xc, (uint32_t)i, d);
	free(xc);
	return r;
}
