// SPDX-License-Identifier: MIT
/* Which links a job's traffic may cross (see reroute.h): every link on a shortest path
 * between two of its endpoints. The plan installs every shortest path as an ECMP member and a
 * path tag only picks among them, so this is where the job's bytes can go, whatever the hash
 * does with its ports. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy/reroute.h"

#define MAX_NH 256

/* From every source, walks all next hops toward endpoint dst, each node expanded once. */
static int toward(const struct topo *t, const struct topo_paths *p, const uint32_t *eps, uint32_t n,
		  uint32_t dst, uint32_t mark, uint32_t *link_mark, uint32_t *stack, uint8_t *seen)
{
	uint32_t ports[MAX_NH], top = 0, i, u;
	int k, j;

	memset(seen, 0, t->nodes.n);
	for (i = 0; i < n; i++) {
		u = t->endpoints.v[eps[i]];
		if (eps[i] != dst && !seen[u]) {
			seen[u] = 1;
			stack[top++] = u;
		}
	}
	while (top) {
		u = stack[--top];
		k = paths_nexthops(t, p, u, dst, ports, MAX_NH);
		if (k > MAX_NH)
			return -E2BIG;
		for (j = 0; j < k; j++) {
			uint32_t v = topo_port_peer_node(t, ports[j]);

			link_mark[t->ports.v[ports[j]].link] = mark;
			if (!seen[v]) {
				seen[v] = 1;
				stack[top++] = v;
			}
		}
	}
	return 0;
}

int route_links_used(const struct topo *t, const struct topo_paths *p, const uint32_t *eps,
		     uint32_t n, uint32_t mark, uint32_t *link_mark)
{
	uint32_t *stack = malloc((t->nodes.n + 1) * sizeof(*stack)), i;
	uint8_t *seen = malloc(t->nodes.n + 1);
	int r = stack && seen ? 0 : -ENOMEM;

	for (i = 0; !r && i < n; i++)
		r = toward(t, p, eps, n, eps[i], mark, link_mark, stack, seen);
	free(stack);
	free(seen);
	return r;
}
