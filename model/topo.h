/* SPDX-License-Identifier: MIT */
/* The topology graph: nodes, ports and links referring to each other by index, so a
 * topology copies, prints and compares without pointer fix-ups. Pure: no syscalls. */
#ifndef MODEL_TOPO_H
#define MODEL_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"

#define TOPO_NAME_MAX 16 /* IFNAMSIZ, terminating NUL included */
#define TOPO_NONE UINT32_MAX

enum topo_kind {
	TOPO_ENDPOINT, /* runs an emu-node: a host NIC, a GPU, an accelerator */
	TOPO_SWITCH,
	TOPO_OCS,
};

enum topo_role {
	TOPO_ROLE_HOST,
	TOPO_ROLE_LEAF,
	TOPO_ROLE_SPINE,
	TOPO_ROLE_BEST, /* the one non-blocking switch of the "best" topology */
	TOPO_ROLE_ACCEL, /* HammingMesh accelerator (forwards) */
	TOPO_ROLE_ROWSW, /* HammingMesh row network switch */
	TOPO_ROLE_COLSW, /* HammingMesh column network switch */
	TOPO_ROLE_OCS,
	TOPO_ROLE_DIMSW, /* multidim: a dimension's switch */
	TOPO_ROLE_OTHER,
};

/* Link tiers, for reports ("leaf-spine utilization"). */
enum topo_tier {
	TOPO_TIER_EDGE, /* endpoint to its first switch */
	TOPO_TIER_FABRIC, /* switch to switch */
	TOPO_TIER_DIRECT, /* endpoint to endpoint: a direct network (board, ring, torus) */
	TOPO_TIER_OCS, /* through an OCS */
	TOPO_TIER_SERVER, /* inside a server (NVLink): not part of the NIC's injection */
};

struct topo_node {
	enum topo_kind kind;
	enum topo_role role;
	char name[TOPO_NAME_MAX];
	uint32_t index; /* index within its role: leaf 3, host 17 */
	uint32_t group; /* endpoints: attachment group (leaf, board); one address block each */
	int32_t coord[4]; /* generator-specific coordinates */
	bool forwards; /* routes packets between its ports */
	uint32_t ep; /* endpoint index (0..n_endpoints-1), TOPO_NONE for others */
	uint32_t addr; /* endpoints: /32 identity address, host byte order */
	uint32_t seed; /* ECMP hash seed of a forwarding node */
	bool spray; /* its ECMP groups pick a next hop per packet, not per flow (routing.spray) */
	uint32_t port0; /* first index in topo.node_ports (after topo_finalize) */
	uint32_t nports;
};

struct topo_port {
	uint32_t node;
	uint32_t link;
	uint8_t side; /* which end of the link this port is */
	char ifname[TOPO_NAME_MAX];
	uint32_t ifindex; /* 2 + position among the node's ports (1 is lo) */
	uint32_t addr; /* link address, host byte order */
	uint8_t plen;
};

struct topo_link {
	uint32_t port[2];
	uint64_t rate[2]; /* bit/s leaving port[i]; 0 = unshaped */
	uint64_t delay_ns; /* one-way, per direction */
	uint64_t queue_bytes; /* 0 = derived from the rate */
	uint16_t dim; /* dimension tag (multidim topologies) */
	enum topo_tier tier;
	bool up;
};

struct topo {
	VEC(struct topo_node) nodes;
	VEC(struct topo_port) ports;
	VEC(struct topo_link) links;
	VEC(uint32_t) node_ports; /* port ids grouped by node, in link order */
	VEC(uint32_t) endpoints; /* node id of endpoint i */
	bool finalized;
	/* With OCS layers this topology is the logical view routing sees, and phys the cables
	 * it was made from (model/ocs.h); owned. NULL without OCS. */
	struct topo *phys;
};

/* Allocates an empty topology, or NULL on ENOMEM. */
struct topo *topo_new(void);
/* Frees t and everything in it; NULL is fine. */
void topo_free(struct topo *t);
/* A deep copy of t (its phys too), or NULL on ENOMEM. */
struct topo *topo_copy(const struct topo *t);

/* Adds a node; returns its id (>= 0) or -ENOMEM, -ENAMETOOLONG. */
int topo_node_add(struct topo *t, enum topo_kind kind, enum topo_role role, const char *name,
		  uint32_t index);

/* Adds an up link a<->b with the given rates (a->b, b->a); returns its id or -errno. */
int topo_link_add(struct topo *t, uint32_t a, uint32_t b, uint64_t rate_ab, uint64_t rate_ba,
		  enum topo_tier tier);

/* Groups ports by node, names them after their peer (".k" suffix on parallel links),
 * numbers ifindexes and endpoints. Returns 0, or -ENAMETOOLONG / -EINVAL with a message. */
int topo_finalize(struct topo *t, struct diag *d);

/* The i-th port of node n (after topo_finalize). */
static inline uint32_t topo_node_port(const struct topo *t, uint32_t n, uint32_t i)
{
	return t->node_ports.v[t->nodes.v[n].port0 + i];
}

/* The port at the other end of port p's link. */
static inline uint32_t topo_port_peer(const struct topo *t, uint32_t p)
{
	const struct topo_port *pp = &t->ports.v[p];

	return t->links.v[pp->link].port[!pp->side];
}

/* The node at the other end of port p's link. */
static inline uint32_t topo_port_peer_node(const struct topo *t, uint32_t p)
{
	return t->ports.v[topo_port_peer(t, p)].node;
}

/* Rate leaving port p, in bit/s (0 = unshaped). */
static inline uint64_t topo_port_rate(const struct topo *t, uint32_t p)
{
	const struct topo_port *pp = &t->ports.v[p];

	return t->links.v[pp->link].rate[pp->side];
}

/* Finds a node by name; returns its id or -ENOENT. */
int topo_node_find(const struct topo *t, const char *name);

/* The slowest endpoint NIC (a port of an endpoint on a link outside its server), bit/s: what a
 * contention-free collective runs at; 1 Gbit/s when there is none. */
uint64_t topo_nic_rate_min(const struct topo *t);
/* Counts of nodes by kind. */
uint32_t topo_count_kind(const struct topo *t, enum topo_kind kind);

/* Role name for printing ("leaf"). */
const char *topo_role_name(enum topo_role role);

#endif
