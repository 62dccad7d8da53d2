// SPDX-License-Identifier: MIT
/* Breadth-first shortest paths toward each endpoint (see paths.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/paths.h"

/* BFS from endpoint node `src`; only forwarding nodes extend a path. */
static void bfs(const struct topo *t, uint32_t src, uint16_t *dist, uint32_t *queue)
{
	size_t head = 0, tail = 0;
	uint32_t i;

	for (i = 0; i < t->nodes.n; i++)
		dist[i] = PATHS_INF;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t u = queue[head++];
		const struct topo_node *nu = &t->nodes.v[u];

		if (u != src && !nu->forwards)
			continue;
		for (i = 0; i < nu->nports; i++) {
			uint32_t p = topo_node_port(t, u, i), v = topo_port_peer_node(t, p);

			if (!t->links.v[t->ports.v[p].link].up || dist[v] != PATHS_INF)
				continue;
			dist[v] = (uint16_t)(dist[u] + 1);
			queue[tail++] = v;
		}
	}
}

int paths_compute(const struct topo *t, struct topo_paths *p)
{
	uint32_t *queue;
	size_t e;

	memset(p, 0, sizeof(*p));
	p->n_ep = (uint32_t)t->endpoints.n;
	p->n_node = (uint32_t)t->nodes.n;
	p->dist = malloc((size_t)p->n_ep * p->n_node * sizeof(*p->dist) + 1);
	queue = malloc(p->n_node * sizeof(*queue) + 1);
	if (!p->dist || !queue) {
		free(queue);
		paths_done(p);
		return -ENOMEM;
	}
	for (e = 0; e < p->n_ep; e++)
		bfs(t, t->endpoints.v[e], p->dist + e * p->n_node, queue);
	free(queue);
	return 0;
}

void paths_done(struct topo_paths *p)
{
	if (!p)
		return;
	free(p->dist);
	p->dist = NULL;
}

int paths_nexthops(const struct topo *t, const struct topo_paths *p, uint32_t n, uint32_t ep,
		   uint32_t *ports, size_t max)
{
	uint16_t d = paths_dist(p, n, ep);
	uint32_t dst = t->endpoints.v[ep], i;
	int cnt = 0;

	if (d == 0 || d == PATHS_INF)
		return 0;
	for (i = 0; i < t->nodes.v[n].nports; i++) {
		uint32_t port = topo_node_port(t, n, i), v = topo_port_peer_node(t, port);

		if (!t->links.v[t->ports.v[port].link].up)
			continue;
		if (paths_dist(p, v, ep) != d - 1 || (v != dst && !t->nodes.v[v].forwards))
			continue;
		if ((size_t)cnt < max)
			ports[cnt] = port;
		cnt++;
	}
	return cnt;
}
