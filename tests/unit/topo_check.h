/* SPDX-License-Identifier: MIT */
/* Test helper: structural checks for generated topologies (cmocka assertions). */
#ifndef TESTS_UNIT_TOPO_CHECK_H
#define TESTS_UNIT_TOPO_CHECK_H

#include <stdint.h>

#include "model/paths.h"
#include "model/topo.h"

/* Every ifname of finalized t is 1..15 characters and unique among its node's ports. */
void t_topo_check_names(const struct topo *t);
/* t is connected, whether its nodes forward or not. */
void t_topo_check_connected(const struct topo *t);
/* Every endpoint reaches every other one and has a shortest-path next hop toward it. */
void t_topo_check_paths(const struct topo *t, const struct topo_paths *p);
/* Addresses from 198.18.0.0/15 assign, stay inside it, and never collide. */
void t_topo_check_addrs(struct topo *t);
/* Finalizes t and runs all of the above; *p holds the paths after (release with paths_done). */
void t_topo_check_all(struct topo *t, struct topo_paths *p);
/* The longest shortest path between two endpoints, in links. */
uint32_t t_topo_diameter(const struct topo *t, const struct topo_paths *p);

struct t_topo_tally {
	uint32_t endpoints, switches, max_sw_ports; /* switches: every non-endpoint node */
	uint64_t sw_ports; /* ports of all switches */
	uint64_t tier[5]; /* links per enum topo_tier */
};

void t_topo_tally(const struct topo *t, struct t_topo_tally *c);
/* Links of node n tagged with dimension k. */
uint32_t t_topo_dim_degree(const struct topo *t, uint32_t n, uint32_t k);

#endif
