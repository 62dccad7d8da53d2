/* SPDX-License-Identifier: MIT */
/* Deterministic addressing: endpoint /32s in aligned blocks per group (first half of the
 * prefix), link /31s in the second half. Pure. */
#ifndef MODEL_ADDR_H
#define MODEL_ADDR_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/topo.h"

/* Assigns node.addr to endpoints and port.addr/plen to every port from base/plen.
 * Returns 0, or -E2BIG with a message when the prefix is too small. */
int addr_assign(struct topo *t, uint32_t base, uint8_t plen, struct diag *d);

/* The endpoint region [*lo, *lo + *size) of a prefix. */
void addr_endpoint_region(uint32_t base, uint8_t plen, uint32_t *lo, uint64_t *size);

/* The Ethernet address of port p (its index in the topology): locally administered, unicast,
 * unique within a topology, so that every link's two ends know each other's without ARP. */
void addr_mac(uint32_t port, uint8_t mac[6]);

/* Port p's permanent neighbour: the address and Ethernet address (addr_mac) of its link's
 * other end. 0, or -ENOENT when p has none fixed: no address, or a peer that changes (a
 * logical view over an OCS, t->phys; a port cabled to an OCS, which carries no address). */
int addr_neigh(const struct topo *t, uint32_t p, uint32_t *addr, uint8_t mac[6]);

/* Dotted quad of a host-order address into buf (>= 16 bytes); returns buf. */
char *addr_fmt(char *buf, size_t len, uint32_t a);

/* Parses "a.b.c.d/len" (host order); returns 0 or -EINVAL. */
int addr_parse_prefix(const char *s, uint32_t *addr, uint8_t *plen);

#endif
