/* SPDX-License-Identifier: MIT */
/* The sampler's decisions (sample.h), pure: which namespaces' device counters are dumped
 * every round to tell which link directions moved, and whether a direction's shaper must be
 * read this round or its last reading still holds.
 *
 * A direction's shaper counters change only when it dequeues, and every dequeued frame shows
 * in a device counter: the egress veth's tx packets or tx drops (seen in its own namespace),
 * or the peer veth's rx packets or rx drops (seen in the peer's). So one RTM_GETSTATS dump of
 * a leaf tells about its 32 ports both ways, and the hosts behind it need no request while
 * their links are idle. Only namespaces with two or more ports are dumped: for a host, a
 * dump costs more than reading its one shaper. */
#ifndef ORCH_SAMPLE_PLAN_H
#define ORCH_SAMPLE_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "model/topo.h"

#define SAMPLE_REFRESH_ROUNDS 10 /* every direction is read at least this often */
/* An endpoint's TCP counters are read once a second while its links move; when they have
 * not, at least this often (sample_plan_tcp). */
#define SAMPLE_TCP_QUIET_NS 10000000000LL

enum sample_view {
	SAMPLE_VIEW_NONE, /* not watched: read every round */
	SAMPLE_VIEW_OWN, /* its namespace is dumped: the port's tx packets + tx drops */
	SAMPLE_VIEW_PEER, /* its peer's namespace is dumped: the peer's rx packets + rx drops */
};

/* Chooses the namespaces to dump for topology t: dump[n] for each node, view[p] for each
 * port's egress direction (both caller arrays, t->nodes.n and t->ports.n long). Peer views
 * need the link's two ports to be one veth pair (peer_ok: false with OCS, whose cables pass
 * through a third namespace). Nodes with one port are never dumped; the peer of such a node
 * always is when it has two ports or more, then greedily the node that watches the most
 * unwatched directions. Returns the number of nodes to dump. */
uint32_t sample_plan_watch(const struct topo *t, bool peer_ok, bool *dump, uint8_t *view);

/* What the sampler knows about one direction at the start of a round. */
struct sample_dir_state {
	bool watched; /* a dump observed it this round */
	bool moved; /* ... and its device counter differs from the previous round's, or that
		       round did not observe it */
	bool have_last; /* the last reading is valid (read and not failed since) */
	bool backlogged; /* the last reading had a backlog */
	bool refresh; /* its turn to be read anyway (sample_plan_refresh) */
};

/* Whether the direction's counters must be read this round; if not, its last byte, packet
 * and drop counts are still exact: no frame left its queue since, and an empty queue that
 * sends nothing cannot drop. (A frame that arrived since and waits for the shaper's tokens
 * is a backlog the next round shows, when it has left.) */
bool sample_plan_read(const struct sample_dir_state *s);

/* Whether the directions of namespace i are due for their periodic reading in round r (one
 * round in SAMPLE_REFRESH_ROUNDS, the namespaces spread over the rounds; a namespace's ports
 * together, so each refresh costs one request round trip). */
bool sample_plan_refresh(uint32_t i, uint64_t r);

/* Whether to dump next round, from this round's count of busy directions (moved or
 * backlogged) among the n watchable ones: with most links busy, every direction is read
 * anyway and the dumps would only add to the cost; hysteresis keeps it from flapping. */
bool sample_plan_dump_next(bool dumping, uint32_t busy, uint32_t n);

/* Whether an endpoint's TCP counters are read now, due by the clock (once a second): always
 * at the run's start and end (final); else when a link direction out of or into it was busy
 * (its counters moved, it had a backlog, or its reading failed) in a round since its last
 * reading, or that reading is SAMPLE_TCP_QUIET_NS old. A segment the endpoint sends or
 * receives passes one of those directions, so with none busy its counters almost always held;
 * the exceptions change no wire (a retransmission timer firing with no route left, which
 * still counts a timeout), and the periodic and final readings take them. The fidelity
 * verdict reads only the first and last. */
bool sample_plan_tcp(bool final, bool busy_since, int64_t age_ns);

#endif
