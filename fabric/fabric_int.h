/* SPDX-License-Identifier: MIT */
/* Internals shared by the fabric_*.c files. */
#ifndef ORCH_FABRIC_INT_H
#define ORCH_FABRIC_INT_H

#include "fabric/fabric.h"

void fabric_progress(struct fabric *f, enum fabric_phase ph, size_t done, size_t total);
/* -EINTR with a message once a stop was requested, else 0. */
int fabric_stopped(const struct fabric *f, struct diag *d);
/* Addresses, qdiscs, routes and rules of node n, in one batch inside its namespace. */
int fabric_config_node(struct fabric *f, uint32_t n, struct diag *d);
/* nftables rulesets of every node with ECMP groups. */
int fabric_nft(struct fabric *f, struct diag *d);
/* OCS ports' ingress qdiscs and circuits (model/ocs.h), when the topology has OCSes. */
int fabric_ocs(struct fabric *f, struct diag *d);

#endif
