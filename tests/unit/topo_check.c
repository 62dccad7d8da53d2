// SPDX-License-Identifier: MIT
/* Test helper: structural checks every generated topology must pass (see topo_check.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/addr.h"
#include "tests/unit/topo_check.h"

#define T_BASE ((198u << 24) | (18u << 16)) /* 198.18.0.0/15 */

void t_topo_check_names(const struct topo *t)
{
	uint32_t n, i, j;

	for (n = 0; n < t->nodes.n; n++) {
		for (i = 0; i < t->nodes.v[n].nports; i++) {
			const char *a = t->ports.v[topo_node_port(t, n, i)].ifname;

			assert_true(strlen(a) >= 1 && strlen(a) <= 15);
			for (j = 0; j < i; j++)
				assert_string_not_equal(a,
							t->ports.v[topo_node_port(t, n, j)].ifname);
		}
	}
}

void t_topo_check_connected(const struct topo *t)
{
	uint32_t *queue = calloc(t->nodes.n, sizeof(*queue));
	char *seen = calloc(t->nodes.n, 1);
	size_t head = 0, tail = 0;
	uint32_t i;

	assert_non_null(queue);
	assert_non_null(seen);
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (i = 0; i < t->nodes.v[u].nports; i++) {
			uint32_t v = topo_port_peer_node(t, topo_node_port(t, u, i));

			if (!seen[v]) {
				seen[v] = 1;
				queue[tail++] = v;
			}
		}
	}
	assert_int_equal(tail, t->nodes.n);
	free(queue);
	free(seen);
}

void t_topo_check_paths(const struct topo *t, const struct topo_paths *p)
{
	uint32_t s, e, hops[64];

	for (s = 0; s < t->endpoints.n; s++)
		for (e = 0; e < t->endpoints.n; e++) {
			uint32_t n = t->endpoints.v[s];

			if (s == e)
				continue;
			assert_int_not_equal(paths_dist(p, n, e), PATHS_INF);
			assert_true(paths_nexthops(t, p, n, e, hops, 64) >= 1);
		}
}

static int t_topo_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void t_topo_check_addrs(struct topo *t)
{
	size_t n = t->endpoints.n + t->ports.n, k = 0, i;
	uint32_t *all = malloc(n * sizeof(*all));
	struct diag d = {0};

	assert_non_null(all);
	assert_int_equal(addr_assign(t, T_BASE, 15, &d), 0);
	for (i = 0; i < t->endpoints.n; i++)
		all[k++] = t->nodes.v[t->endpoints.v[i]].addr;
	for (i = 0; i < t->ports.n; i++)
		all[k++] = t->ports.v[i].addr;
	qsort(all, n, sizeof(*all), t_topo_cmp_u32);
	for (i = 0; i < n; i++) {
		assert_true(all[i] >> 17 == T_BASE >> 17);
		if (i)
			assert_true(all[i] != all[i - 1]);
	}
	free(all);
}

void t_topo_check_all(struct topo *t, struct topo_paths *p)
{
	struct diag d = {0};

	assert_int_equal(topo_finalize(t, &d), 0);
	t_topo_check_names(t);
	t_topo_check_connected(t);
	assert_int_equal(paths_compute(t, p), 0);
	t_topo_check_paths(t, p);
	t_topo_check_addrs(t);
}

uint32_t t_topo_diameter(const struct topo *t, const struct topo_paths *p)
{
	uint32_t s, e, max = 0;

	for (s = 0; s < t->endpoints.n; s++)
		for (e = 0; e < t->endpoints.n; e++)
			if (paths_dist(p, t->endpoints.v[s], e) > max)
				max = paths_dist(p, t->endpoints.v[s], e);
	return max;
}

void t_topo_tally(const struct topo *t, struct t_topo_tally *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < t->nodes.n; i++) {
		const struct topo_node *n = &t->nodes.v[i];

		c->endpoints += n->kind == TOPO_ENDPOINT;
		c->switches += n->kind != TOPO_ENDPOINT;
		c->sw_ports += n->kind != TOPO_ENDPOINT ? n->nports : 0;
		if (n->kind != TOPO_ENDPOINT && n->nports > c->max_sw_ports)
			c->max_sw_ports = n->nports;
	}
	for (i = 0; i < t->links.n; i++)
		c->tier[t->links.v[i].tier]++;
}

uint32_t t_topo_dim_degree(const struct topo *t, uint32_t n, uint32_t k)
{
	uint32_t i, c = 0;

	for (i = 0; i < t->nodes.v[n].nports; i++)
		c += t->links.v[t->ports.v[topo_node_port(t, n, i)].link].dim == k;
	return c;
}
