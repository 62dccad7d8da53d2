/* SPDX-License-Identifier: MIT */
/* An OCS in the kernel: a namespace whose ports each have an ingress qdisc; a circuit a-b is a
 * u32 match-all filter with `mirred egress redirect` on a toward b and on b toward a, so the
 * leaf and the spine at its ends see one plain cable. A port without a filter is dark: its
 * frames reach the OCS's own stack, which has no address and does not forward. Circuit sets are
 * model/ocs.h's xc arrays; requests go into a caller's batch on a netlink socket inside the
 * OCS's namespace. */
#ifndef ORCH_OCS_KERNEL_H
#define ORCH_OCS_KERNEL_H

#include <stdint.h>

#include "lib/diag.h"
#include "model/topo.h"
#include "kernel/nlk.h"

/* At `up`: the ingress qdisc of every port of OCS node o of topology p, and the circuits of
 * xc among them. 0 or -errno with d set. */
int ocs_kernel_up(struct nlk_batch *b, const struct topo *p, const uint32_t *xc, uint32_t o,
		  struct diag *d);

/* Ports of o whose circuit differs between old and next lose their filter (tolerating ports
 * that had none). 0 or -errno with d set. */
int ocs_kernel_dark(struct nlk_batch *b, const struct topo *p, const uint32_t *old,
		    const uint32_t *next, uint32_t o, struct diag *d);

/* Ports of o whose circuit differs between old and next get next's circuit, if any.
 * 0 or -errno with d set. */
int ocs_kernel_join(struct nlk_batch *b, const struct topo *p, const uint32_t *old,
		    const uint32_t *next, uint32_t o, struct diag *d);

/* Ports of o that old and next join differently: how many. */
uint32_t ocs_kernel_changed(const struct topo *p, const uint32_t *old, const uint32_t *next,
			    uint32_t o);

#endif
