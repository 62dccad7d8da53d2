/* SPDX-License-Identifier: MIT */
/* rtnetlink request builders for changing a built fabric at run time (failures, repairs, OCS
 * reconfigurations): replace and delete what nlk_build.h made, set links down and up,
 * flush neighbour entries, and the OCS's circuits (ingress qdisc, u32 match-all filter with a
 * `mirred egress redirect` action). One request per object, built with libnl-route-3 into a
 * new nl_msg the caller frees; no I/O: unit-tested by parsing the message back. */
#ifndef ORCH_NLK_CHANGE_H
#define ORCH_NLK_CHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/nlk_build.h"

#define NLK_CIRCUIT_PRIO 1 /* the filter priority of an OCS port's circuit */

/* Adds the route, or replaces the one with its table and destination. */
int nlk_build_route_set(const struct nlk_route *rt, struct nl_msg **out);
/* Deletes the route of rt's table and destination (next hops are not matched). */
int nlk_build_route_del(const struct nlk_route *rt, struct nl_msg **out);
/* Adds (or replaces) a permanent neighbour entry: addr (host byte order) is at Ethernet
 * address mac on the link, never asked by ARP, and outside the kernel's neighbour table
 * limit (gc_thresh3), which all namespaces of the machine share. */
int nlk_build_neigh_add(int ifindex, uint32_t addr, const uint8_t mac[6], struct nl_msg **out);
/* Deletes the neighbour entry of addr (host byte order) on a link. */
int nlk_build_neigh_del(int ifindex, uint32_t addr, struct nl_msg **out);
/* Sets a link administratively up or down. */
int nlk_build_link_state(int ifindex, bool up, struct nl_msg **out);

/* The ingress qdisc (ffff:) of a link. */
int nlk_build_ingress(int ifindex, struct nl_msg **out);
/* A circuit's half: every frame entering ifindex leaves through to_ifindex (u32 match-all at
 * ingress, priority NLK_CIRCUIT_PRIO, action mirred egress redirect). */
int nlk_build_circuit(int ifindex, int to_ifindex, struct nl_msg **out);
/* Removes ifindex's circuit filter: the port goes dark (frames reach the OCS's own stack,
 * which has no address and does not forward). */
int nlk_build_circuit_del(int ifindex, struct nl_msg **out);

#endif
