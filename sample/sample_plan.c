// SPDX-License-Identifier: MIT
/* The sampler's decisions (sample_plan.h): a cover of the links by dumped namespaces, and
 * when a direction's last reading still holds. */
#include <string.h>

#include "sample/sample_plan.h"

#define DUMP_OFF_PCT 60 /* stop dumping when more directions than this are busy */
#define DUMP_ON_PCT 40 /* ... and start again below this */

static bool can_dump(const struct topo *t, uint32_t n)
{
	return t->nodes.v[n].nports >= 2;
}

/* Ports of n whose link has no dumped end yet. */
static uint32_t gain(const struct topo *t, const bool *dump, uint32_t n)
{
	uint32_t i, g = 0;

	for (i = 0; i < t->nodes.v[n].nports; i++)
		g += !dump[topo_port_peer_node(t, topo_node_port(t, n, i))];
	return g;
}

static uint32_t best_node(const struct topo *t, const bool *dump)
{
	uint32_t n, g, best = TOPO_NONE, best_g = 0;

	for (n = 0; n < t->nodes.n; n++) {
		if (dump[n] || !can_dump(t, n))
			continue;
		g = gain(t, dump, n);
		if (g > best_g) {
			best = n;
			best_g = g;
		}
	}
	return best;
}

/* A node with one port is watched from its peer, so the peer is dumped whatever else
 * happens: a leaf for its hosts. */
static void dump_peers_of_stubs(const struct topo *t, bool *dump)
{
	uint32_t n, m;

	for (n = 0; n < t->nodes.n; n++) {
		if (t->nodes.v[n].nports != 1)
			continue;
		m = topo_port_peer_node(t, topo_node_port(t, n, 0));
		if (can_dump(t, m))
			dump[m] = true;
	}
}

static uint8_t view_of(const struct topo *t, bool peer_ok, const bool *dump, uint32_t p)
{
	if (dump[t->ports.v[p].node])
		return SAMPLE_VIEW_OWN;
	if (peer_ok && dump[topo_port_peer_node(t, p)])
		return SAMPLE_VIEW_PEER;
	return SAMPLE_VIEW_NONE;
}

uint32_t sample_plan_watch(const struct topo *t, bool peer_ok, bool *dump, uint8_t *view)
{
	uint32_t n, p, count = 0;

	memset(dump, 0, t->nodes.n * sizeof(*dump));
	if (peer_ok) {
		dump_peers_of_stubs(t, dump);
		while ((n = best_node(t, dump)) != TOPO_NONE)
			dump[n] = true;
	} else {
		for (n = 0; n < t->nodes.n; n++)
			dump[n] = can_dump(t, n);
	}
	for (n = 0; n < t->nodes.n; n++)
		count += dump[n];
	for (p = 0; p < t->ports.n; p++)
		view[p] = view_of(t, peer_ok, dump, p);
	return count;
}

bool sample_plan_read(const struct sample_dir_state *s)
{
	return !s->watched || s->moved || !s->have_last || s->backlogged || s->refresh;
}

bool sample_plan_refresh(uint32_t i, uint64_t r)
{
	return (i + r) % SAMPLE_REFRESH_ROUNDS == 0;
}

bool sample_plan_dump_next(bool dumping, uint32_t busy, uint32_t n)
{
	uint64_t pct = n ? 100 * (uint64_t)busy / n : 100;

	return dumping ? pct <= DUMP_OFF_PCT : pct < DUMP_ON_PCT;
}

bool sample_plan_tcp(bool final, bool busy_since, int64_t age_ns)
{
	return final || busy_since || age_ns >= SAMPLE_TCP_QUIET_NS;
}
