// SPDX-License-Identifier: MIT
/* Deep copies of topologies (topo.h): the runner keeps its own, changed by failures and OCS
 * reconfigurations, beside the one the scenario built. */
#include <errno.h>
#include <string.h>

#include "model/topo.h"

#define COPY_VEC(dst, src)                                                               \
	(vec_reserve(&(dst), (src).n)                                                    \
		 ? -ENOMEM                                                               \
		 : ((src).n ? (void)memcpy((dst).v, (src).v, (src).n * sizeof(*(src).v)) \
			    : (void)0,                                                   \
		    (dst).n = (src).n, 0))

struct topo *topo_copy(const struct topo *t)
{
	struct topo *c = topo_new();
	int r;

	if (!c)
		return NULL;
	r = COPY_VEC(c->nodes, t->nodes);
	r = r ? r : COPY_VEC(c->ports, t->ports);
	r = r ? r : COPY_VEC(c->links, t->links);
	r = r ? r : COPY_VEC(c->node_ports, t->node_ports);
	r = r ? r : COPY_VEC(c->endpoints, t->endpoints);
	c->finalized = t->finalized;
	if (!r && t->phys && !(c->phys = topo_copy(t->phys)))
		r = -ENOMEM;
	if (r) {
		topo_free(c);
		return NULL;
	}
	return c;
}
