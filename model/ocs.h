/* SPDX-License-Identifier: MIT */
/* OCS circuit layers (vClos §7, Fig. 4b; in the kernel each OCS is a namespace whose ports
 * circuits join in pairs, kernel/ocs_kernel.h). The model of the vClos authors'
 * simulator: K OCSes o0.. between the leaves and the spines, one per leaf uplink; every leaf
 * has one port on every OCS, every spine P ports on every OCS. A circuit joins two ports of
 * one OCS: a leaf to a spine, or a leaf to a leaf (the two-leaf OCS-vClos of §7.2). A
 * HammingMesh may put K OCSes between the boards' edges and the row and column networks
 * (gen_hxmesh.h): there a circuit joins an accelerator to a network switch or to another
 * accelerator.
 *
 * Two views of one topology. The physical one holds the OCS nodes and the cables to them (the
 * veths `up` makes). The logical one, which paths and routing see, is a copy with the same
 * node, port and link ids in which the two cables of each circuit are re-paired: the link of
 * the circuit's lower OCS port joins the two ports at the circuit's far ends (a leaf-spine or
 * leaf-leaf cable), the other link joins the two OCS ports and is down. A cable whose OCS port
 * has no circuit is down (dark). The logical view owns a copy of the physical one in ->phys.
 *
 * Circuit sets are arrays xc over the physical ports: xc[a] is the OCS port a is joined to,
 * TOPO_NONE for none (and for every port not on an OCS). Pure. */
#ifndef MODEL_OCS_H
#define MODEL_OCS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/scenario.h"
#include "model/topo.h"

#define OCS_MAX 64 /* OCSes per layer */

/* Ports of each spine on each OCS: ocs.spine_ports, or by default ceil(leaves / spines) when
 * there are at least as many OCSes as spines (each OCS then spreads the leaves over all
 * spines), else `leaves` (each OCS takes every leaf to one spine). */
uint32_t ocs_spine_ports(const struct scn_leafspine *ls);

/* Adds ls->ocs.count OCS nodes o0.. (ids after the spines) and cables every leaf (one port per
 * OCS) and every spine (ocs_spine_ports per OCS) to them. A cable is shaped at rate where it
 * is sent into (leaf or spine) and unshaped out of the OCS, a passive cross-connect.
 * 0 or -errno with a message. */
int ocs_gen_layer(struct topo *t, const struct scn_leafspine *ls, uint32_t leaf0, uint32_t spine0,
		  uint64_t rate, struct diag *d);

/* Turns *t, a generated, finalized and addressed physical topology with OCS nodes, into its
 * logical view with the scenario's circuits o at `up` (or the default set), owning the
 * physical one. The default set: a leaf-spine's (ocs_default_circuits) with spine_ports
 * ports per spine (ocs_spine_ports), or with spine_ports 0 the pairs the generator cabled
 * (ocs_pair_circuits, a HammingMesh). Addresses: OCS ports get none, the ports cabled to
 * them a /32 (a circuit's two ends are not on one subnet: routes name their gateway
 * `onlink`). 0 or -errno with a message. */
int ocs_build(struct topo **t, const struct scn_ocs *o, uint32_t spine_ports, struct diag *d);

/* The circuits of a topology cabled through its OCSes in pairs: on every OCS, port 2i to
 * port 2i + 1 (a HammingMesh's edge cables, gen_hxmesh.h). xc has p->ports.n entries. */
void ocs_pair_circuits(const struct topo *p, uint32_t *xc);

/* The default circuits (a leaf-spine): on OCS k, leaf n goes to spine (k + n / P) mod S with
 * P spine ports per OCS. xc has p->ports.n entries. 0 or -ENOSPC. */
int ocs_default_circuits(const struct topo *p, uint32_t ports_per_spine, uint32_t *xc);

/* The logical view of physical topology p under circuits xc; ->phys is a copy of p.
 * NULL on ENOMEM. */
struct topo *ocs_apply(const struct topo *p, const uint32_t *xc);

/* Reads the circuits of logical view l into xc (l->ports.n entries). */
void ocs_circuits_of(const struct topo *l, uint32_t *xc);

/* The logical link id of the circuit joining OCS ports a and b. */
static inline uint32_t ocs_circuit_link(const struct topo *p, uint32_t a, uint32_t b)
{
	return p->ports.v[a < b ? a : b].link;
}

/* One change of a circuit set, by node ids: on OCS `ocs`, join a's port to b's, releasing
 * whatever circuits those ports were in (their other ends go dark); or, with off, tear down
 * the circuit between a and b. A node with several ports on the OCS (a spine) uses the port
 * already joined to the other end if there is one, else its lowest free port. */
struct ocs_change {
	uint32_t ocs, a, b;
	bool off;
};

/* Whether circuits may be torn down: busy[link] (logical link ids) names the job, plus one,
 * whose traffic is routed over that circuit, 0 when idle. NULL: all idle. */
struct ocs_busy {
	const uint32_t *job1;
};

/* Applies changes ch[0..n) to circuit set xc of physical topology p, as one reconfiguration.
 * Refused with -EINVAL and a message: a node not cabled to the OCS, a circuit between two
 * spines, a port named twice, no free spine port, no circuit to tear down; -EBUSY when a
 * circuit to be torn down carries a job's traffic (only idle circuits are rewired, vClos
 * §7). strict: a port already in a circuit is an error instead of being released (the
 * scenario's list). xc is unchanged on error. */
int ocs_rewire(const struct topo *p, uint32_t *xc, const struct ocs_change *ch, size_t n,
	       const struct ocs_busy *busy, bool strict, struct diag *d);

/* "o0:l0-s1" for the circuit of OCS ports a and b of p, into buf. */
char *ocs_circuit_name(char *buf, size_t len, const struct topo *p, uint32_t a, uint32_t b);

/* "o0:l0-s1 o0:l1/s0" for changes ch[0..n) of t (a slash: torn down), into buf. */
char *ocs_changes_text(char *buf, size_t len, const struct topo *t, const struct ocs_change *ch,
		       size_t n);

#endif
