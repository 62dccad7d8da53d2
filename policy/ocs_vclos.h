/* SPDX-License-Identifier: MIT */
/* OCS-vClos placement (vClos §7, Algorithms 2 and 4, ILP A.3): vClos's isolated placement with
 * a layer of optical circuit switches between the leaves and the spines, so that idle
 * leaf-spine circuits can be rewired to the spines a new job needs. Pure: no I/O, no clock, no
 * globals; the same calls give the same placements and the same change lists.
 *
 * The cluster: L leaves, S spines, R servers per leaf of T GPUs (endpoints leaf-major as in
 * vclos.h: GPU g of server r of leaf n is endpoint (n*R + r)*T + g), K OCSes o0.. and P ports
 * per spine per OCS (model/ocs.h): every leaf has one port on every OCS, every spine P. Leaf
 * n's port on OCS k is port n*K + k; circ[n*K + k] is the spine it is joined to, or
 * OCS_VCLOS_NONE; at most P circuits join spine m on OCS k. A port is held by a running job
 * or free (owner). A circuit held by a running job is never changed; idle ones are re-pointed
 * or torn down freely ("only idle links can be rewired", vClos §7).
 *
 * Placement, in order:
 *  - stage 0, n <= T, and stage 1, one leaf: exactly vClos's (vclos_place_local). No circuits.
 *  - stage 2, one spine (Algorithm 2 lines 12-20): among the spines with at least n free
 *    ports (K*P less those held by running jobs; "least but enough" read as >= n),
 *    by fewest free ports (ties: lowest index), the first where whole idle servers can be
 *    chosen: leaves by fewest idle servers (ties: lowest index), each taking its lowest idle
 *    servers while a circuit per rank on it can still be found, each through a distinct OCS
 *    whose leaf port is free and where the spine has room (counting only running jobs'
 *    circuits: idle ones are torn down). The circuits are a maximum bipartite b-matching
 *    (leaves' ports x the spine's P ports per OCS) grown by augmenting paths, so whether a
 *    server fits does not depend on which OCSes were tried first; circuits that already join
 *    the leaf to the spine are tried first, then OCSes where the spine has a free port. Every
 *    rank has its own circuit; a flow goes up over its source's circuit and down over its
 *    destination's: the spine is a non-blocking switch for the job, so any permutation step
 *    is contention-free and no size gate is applied (the authors' simulator's "power of two
 *    or n <= ports per spine" is not needed). When T does not divide n the last server taken
 *    holds T - n mod T GPUs that are not ranks (the job holds whole servers, as in stage 1).
 *  - the two-leaf case of §7 (direct leaf-leaf circuits, no spine) is not implemented: those
 *    circuits would change the paths every other job's traffic sees.
 *  - stage 3 (Algorithm 4, OCSFINDCLOS, in place of ILP A.3): shapes n = l x s as vclos.h
 *    tries them (l >= 2 by increasing l; s a multiple of T, s <= R*T, and s <= K instead of
 *    s <= S: a leaf has K uplinks, one per OCS); the first shape with a solution wins. A
 *    solution: l leaves, each with >= s/T idle servers and >= s free ports, each one virtual
 *    leaf (ILP A.3 allows several on a leaf; we keep vClos's one); s virtual spines,
 *    each on a physical spine (several may share one); for every (virtual leaf i, virtual
 *    spine j) a circuit from leaf i to j's spine through an OCS, distinct OCSes per leaf, at
 *    most P per (spine, OCS) with the running jobs'. Objective, ILP A.3's (= vClos's): min
 *    T * sum RSN(leaf) + sum over virtual spines of RPN(spine) (idle servers, free ports,
 *    both before placing). A.3 is a 3-index assignment (leaf, spine, OCS); the search is a
 *    heuristic:
 *    - leaf sets by branch and bound (fewest idle servers first, as vclos_find), at most
 *      search_nodes nodes and OCS_VCLOS_LEAF_SETS complete sets (the first, greedy, set is
 *      always tried); a shape whose spines cannot host s virtual spines of l ports is
 *      skipped;
 *    - per leaf set, the virtual spines one at a time, each on the spine of least RPN that
 *      can take one more (ties: fewest circuit changes, then lowest index), its l circuits
 *      a bipartite matching (leaves x OCSes with room there) by augmenting paths, circuits
 *      that already point there first (minimal rewiring, as the authors' simulator does);
 *      depth-first backtracking over the spines chosen within OCS_VCLOS_SPINE_MATCHES
 *      matchings beyond the first descent;
 *    - failing that, an edge colouring: virtual spines on the spines of least RPN, each as
 *      many as its free ports allow; a spine's ports as P lanes of one port per OCS; the
 *      circuits a proper colouring (colours: OCSes) of the leaves x lanes multigraph, built
 *      with Kempe chains (König's theorem) that never recolour a running job's circuit.
 *      With no job running it cannot fail when the shape fits at all (s <= K, and l times
 *      the virtual spines on a spine <= K*P).
 *    Rank i*s + j is GPU j of virtual leaf i (leaves ascending); a flow from (i, j) to
 *    (i', j') goes up over circuit (i, j) to virtual spine j's spine and down over circuit
 *    (i', j) (vClos §5.2, Lemma 5.1 on the virtual Clos). A spine hosting several virtual
 *    spines of a job routes by in-port (a VRF each, as the paper's testbed does, vClos §8.1).
 *
 * Sizes: a size the placement cannot take even on the empty cluster (worked out once at init
 * by running it with no circuits; stages 2 and 3 do not depend on idle circuits to succeed
 * with no job running) is refused (-EINVAL; ocs_vclos_size_check says why and the next size
 * that fits).
 *
 * Changes: each placement lists the circuit changes to make before the job starts. Applied in
 * order to the circuits before the placement they give the circuits after it (which c already
 * holds): tear-downs first (idle circuits that make room on a full (spine, OCS), or whose
 * spine port a join needs), then joins (a join releases the leaf port's old circuit, as
 * ocs_rewire does). They never name a port held by a running job. */
#ifndef POLICY_OCS_VCLOS_H
#define POLICY_OCS_VCLOS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "policy/vclos.h"

#define OCS_VCLOS_NONE UINT32_MAX /* no circuit on a port, no OCS for a rank */
#define OCS_VCLOS_MAX_OCS 64 /* bound on K (model/ocs.h's OCS_MAX) */
#define OCS_VCLOS_MAX_PORTS 256 /* bound on P */
#define OCS_VCLOS_SEARCH_NODES 4096 /* default stage-3 leaf-search budget, nodes per shape */
#define OCS_VCLOS_LEAF_SETS 32 /* stage-3 leaf sets whose circuits are sought, per shape */
#define OCS_VCLOS_SPINE_MATCHES 1024 /* stage-3 spine backtracking budget per leaf set */

struct ocs_vclos_find;

struct ocs_vclos {
	struct vclos vc; /* GPUs and servers (its leaf-spine links are unused) */
	uint32_t ocs, spine_ports; /* K, P */
	uint32_t search_nodes; /* stage-3 leaf-search budget per shape; 0: no node limit (fits
				* is worked out at init with the default) */
	uint32_t *circ; /* [L*K] spine of leaf n's port on OCS k, or OCS_VCLOS_NONE */
	uint32_t *owner; /* [L*K] job holding leaf n's port on OCS k, or VCLOS_FREE */
	uint8_t *fits; /* [L*R*T + 1] whether the empty cluster takes each size */
	struct ocs_vclos_find *find; /* stage 2 and 3 scratch */
};

/* One circuit change on OCS `ocs`: join leaf's port to a port of spine, releasing the leaf
 * port's old circuit; or, with off, tear down the circuit joining them. */
struct ocs_vclos_change {
	uint32_t ocs, leaf, spine;
	bool off;
};

struct ocs_vclos_alloc {
	/* job, n, eps (ascending: leaf-major), leaf_gpus as in vclos.h; and:
	 *  stage 0, 1: as in vclos.h (l = 1, s = 0, no circuits);
	 *  stage 2 (one spine): l leaves used, leaf[0..l) ascending; s = 1, spine[0] the spine;
	 *  stage 3 (an OCS virtual Clos): l x s; leaf[i] the leaf of virtual leaf i, ascending;
	 *    spine[j] the physical spine of virtual spine j, ascending (repeats allowed);
	 *  uplink[r]: the spine rank r's circuit goes to (stages 2, 3), else VCLOS_NONE;
	 *  exact: stage 3: the leaf-set search ran to the end (the rest is a heuristic);
	 *    stages 0, 1, 2: true (no search). */
	struct vclos_alloc a;
	uint32_t *up; /* [n] OCS of rank r's circuit (its leaf to uplink[r]), or OCS_VCLOS_NONE */
	struct ocs_vclos_change *ch; /* [nch] changes to make before the job starts */
	uint32_t nch;
};

/* An empty cluster (see above) with the given idle circuits (circ: L*K spines or
 * OCS_VCLOS_NONE, leaf-major; NULL: none); works out which sizes fit. 0, -EINVAL (a zero, a
 * bound exceeded, a circuit to a spine out of range or more than P on one (spine, OCS)) or
 * -ENOMEM. Release with ocs_vclos_done (also after a failed init). */
int ocs_vclos_init(struct ocs_vclos *c, uint32_t leaves, uint32_t spines, uint32_t servers,
		   uint32_t gpus, uint32_t ocs, uint32_t spine_ports, const uint32_t *circ);
void ocs_vclos_done(struct ocs_vclos *c);

/* Whether a job of n GPUs can ever be placed (on the empty cluster): 0, or -EINVAL with the
 * reason and the next size that fits in d (d may be NULL). */
int ocs_vclos_size_check(const struct ocs_vclos *c, uint32_t n, struct diag *d);

/* The smallest size >= n that ocs_vclos_size_check accepts, or 0 if none (n = 0 gives 0). */
uint32_t ocs_vclos_size_round(const struct ocs_vclos *c, uint32_t n);

/* Places job (any id but VCLOS_FREE) on n GPUs and fills *out (overwritten, not freed;
 * release it with ocs_vclos_alloc_done); c's circuits then already reflect out->ch. 0;
 * -EAGAIN if it cannot be placed now (the job waits); -EINVAL if it never can
 * (ocs_vclos_size_check) or job is VCLOS_FREE; -EEXIST if job holds resources already;
 * -ENOMEM. On error nothing changes and *out is empty. */
int ocs_vclos_place(struct ocs_vclos *c, uint32_t job, uint32_t n, struct ocs_vclos_alloc *out);

/* Frees job's GPUs and ports (nothing if none); its circuits stay as they are, idle. */
void ocs_vclos_release(struct ocs_vclos *c, uint32_t job);

/* Frees a's arrays and empties it; NULL-safe. */
void ocs_vclos_alloc_done(struct ocs_vclos_alloc *a);

/* Routing inside a placed job (vClos §5.2, generalised): 1 if the flow from rank src to rank
 * dst crosses leaves, with *up_k the OCS of the circuit it goes up over (src's leaf to spine
 * a.uplink[src]) and *down_k the OCS of the circuit it comes down over (that spine to dst's
 * leaf); 0 if it stays in its leaf; -EINVAL for a rank out of range. */
int ocs_vclos_route(const struct ocs_vclos_alloc *a, uint32_t src, uint32_t dst, uint32_t *up_k,
		    uint32_t *down_k);

#endif
