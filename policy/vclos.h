/* SPDX-License-Identifier: MIT */
/* vClos placement (vClos §6, Algorithms 1 and 3, ILP A.2): each job gets GPUs with strict
 * locality and, when it spans leaves, an exclusive virtual Clos of l virtual leaves x s
 * virtual spines (l*s reserved leaf-spine links), inside which source routing (vClos §5.2)
 * is contention-free for leaf-wise permutation traffic (Lemma 5.1). Pure: no I/O, no clock,
 * no globals; the same calls give the same placements.
 *
 * The cluster: L leaves, S spines, one link per leaf-spine pair; each leaf has R servers of
 * T GPUs. GPU g of server r of leaf m is endpoint (m*R + r)*T + g (leaf-major); server r of
 * leaf m is server m*R + r; link (leaf m, spine k) is link m*S + k.
 *
 * Placement, in order (vClos §6):
 *  - stage 0, n <= T: the server with the fewest free GPUs among those with >= n free
 *    (ties: lowest index), its lowest free GPUs. No links.
 *  - stage 1, n > T: the leaf with the fewest idle (wholly free) servers among those with
 *    >= ceil(n/T) of them (ties: lowest index), its lowest idle servers. The job holds the
 *    whole servers even when T does not divide n; its ranks are the first n of their GPUs.
 *    No links.
 *  - stage 2 (FINDVCLOS): shapes n = l*s, l >= 2 virtual leaves of s GPUs (s/T idle servers
 *    each, s a multiple of T, s <= S and s <= R*T), l <= L, tried by increasing l: the
 *    fewest, fullest virtual leaves first. For powers of two this is Algorithm 3's order
 *    (l doubles and s halves from s = S); for other sizes it also tries l that are not
 *    powers of two (our reading: N factored "as l x s", vClos §6). The first shape with a
 *    solution wins. Per shape, l leaves and s spines such that every chosen spine has a free
 *    link to every chosen leaf (the paper's union read as an intersection),
 *    minimising the ILP's objective  sum RPN(spine) + T * sum RSN(leaf)  (RPN: the spine's
 *    free links, RSN: the leaf's idle servers, both before placing). Search: branch and
 *    bound over leaf sets (leaves by fewest idle servers first), the s cheapest common
 *    spines for each set. Its first descent is the greedy choice (leaves by fewest idle
 *    servers, each kept while the kept ones still share s free spines); it then backtracks
 *    for at most search_nodes more nodes per shape. It is exact (the ILP's optimum; equal
 *    costs: the first found in that order) when it finishes within them; otherwise it keeps
 *    the best set found so far (at least as good as the greedy one), or none (then the next
 *    shape is tried), and says so (vclos_alloc.exact). search_nodes = 0: exhaustive.
 *
 * Sizes: a size that no stage could place even on an empty cluster is refused (-EINVAL;
 * vclos_size_check says why); vclos_size_round gives the smallest size >= n that fits, for
 * a caller that prefers rounding up (vClos §6: "find an N^new"). Refusing keeps
 * the placement at exactly n endpoints, as sched_place_fn writes them.
 *
 * For a later sched_place_fn wrapper: vclos_place fills n endpoints in rank order, which is
 * what sched_place_fn returns; vclos_release must be called when the job finishes (sched.c
 * has no release hook yet), and the wrapper keeps each job's vclos_alloc for routing. */
#ifndef POLICY_VCLOS_H
#define POLICY_VCLOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"

#define VCLOS_FREE UINT32_MAX /* owner of a free GPU or link; not a valid job id */
#define VCLOS_NONE UINT32_MAX /* no spine (a rank whose traffic stays in its leaf) */
#define VCLOS_SEARCH_NODES 65536 /* default stage-2 backtracking budget, nodes per shape */
#define VCLOS_MAX_GPUS (1u << 24) /* bound on L*R*T */
#define VCLOS_MAX_SWITCHES 4096 /* bound on L and on S (the search recurses per leaf) */

struct vclos_find;

struct vclos {
	uint32_t leaves, spines, servers, gpus; /* L, S, R per leaf, T per server */
	uint32_t search_nodes; /* stage-2 backtracking budget per shape; 0: exhaustive */
	uint32_t *gpu_owner; /* [L*R*T] job per endpoint, or VCLOS_FREE */
	uint32_t *link_owner; /* [L*S] job per leaf-spine link, or VCLOS_FREE */
	uint32_t *srv_free; /* [L*R] free GPUs per server */
	struct vclos_find *find; /* stage-2 search scratch */
};

struct vclos_alloc {
	uint32_t job;
	uint32_t n; /* GPUs, one rank each */
	uint32_t stage; /* 0: one server, 1: one leaf, 2: a virtual Clos, 3: spread (no links) */
	uint32_t l, s; /* virtual leaves and spines (stages 0 and 1: 1 and 0) */
	uint32_t leaf_gpus; /* R*T: endpoint e sits on leaf e / leaf_gpus */
	bool exact; /* stage 2: the search proved its choice optimal; stages 0, 1: true */
	uint32_t *eps; /* [n] endpoint of each rank, ascending: leaf-major */
	uint32_t *uplink; /* [n] spine of each rank's uplink: rank i*s + j (GPU j of virtual
			   * leaf i) goes up to spine[j] (stage 2); else VCLOS_NONE */
	uint32_t *leaf; /* [l] physical leaf of each virtual leaf, ascending */
	uint32_t *spine; /* [s] physical spine of each virtual spine, ascending */
};

/* A flow for vclos_link_load_max: endpoints, and the spine its uplink takes (read only if
 * src and dst sit on different leaves). */
struct vclos_flow {
	uint32_t src, dst;
	uint32_t spine;
};

/* An empty cluster of L leaves, S spines, R servers per leaf of T GPUs each. 0, -EINVAL
 * (a zero, L or S over VCLOS_MAX_SWITCHES, L*R*T over VCLOS_MAX_GPUS) or -ENOMEM. Release
 * with vclos_done (also after a failed init). */
int vclos_init(struct vclos *c, uint32_t leaves, uint32_t spines, uint32_t servers, uint32_t gpus);
void vclos_done(struct vclos *c);

/* Whether a job of n GPUs can ever be placed (on the empty cluster): 0, or -EINVAL with
 * the reason in d (d may be NULL). */
int vclos_size_check(const struct vclos *c, uint32_t n, struct diag *d);

/* The smallest size >= n that vclos_size_check accepts, or 0 if none (n = 0 gives 0). */
uint32_t vclos_size_round(const struct vclos *c, uint32_t n);

/* Places job (any id but VCLOS_FREE) on n GPUs and fills *out (overwritten, not freed;
 * release it with vclos_alloc_done). 0; -EAGAIN if it cannot be placed now (the job waits;
 * with search_nodes != 0 possibly because a cut search found no vClos that exists);
 * -EINVAL if it never can (vclos_size_check) or job is VCLOS_FREE; -EEXIST if job holds
 * resources already; -ENOMEM. On error nothing changes and *out is empty. */
int vclos_place(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out);

/* Stages 0 and 1 of vclos_place alone (one server, one leaf; no links), for a placer that
 * brings its own network stage (ocs_vclos.h). 0; -EAGAIN if neither fits now (also when n
 * needs more servers than a leaf has); -EINVAL for n = 0, n > L*R*T or job VCLOS_FREE;
 * -EEXIST if job holds resources already; -ENOMEM. On error nothing changes. */
int vclos_place_local(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out);

/* The placement of vClos's baselines (ECMP, source routing, balanced ECMP: vClos §9; our reading:
 * the same locality as vClos, no links held): stages 0 and 1, else (stage 3) whole idle
 * servers of the leaves with the most of them (ties: lowest index), ranks leaf-major, l the
 * leaves used, no spines or uplinks. Errors as vclos_place; any n up to the cluster fits. */
int vclos_place_spread(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out);

/* Gives job the lowest `count` idle servers of leaf, whole, and writes the first n of their
 * GPUs to eps: the step every placement that takes whole servers ends with (ocs_vclos.c's
 * too). The caller has checked the leaf has them. */
void vclos_take_servers(struct vclos *c, uint32_t job, uint32_t leaf, uint32_t count, uint32_t *eps,
			uint32_t n);

/* Frees every GPU and link job holds (nothing if none). */
void vclos_release(struct vclos *c, uint32_t job);

/* Frees a's arrays and empties it; NULL-safe. */
void vclos_alloc_done(struct vclos_alloc *a);

/* Source routing (vClos §5.2): the spine a flow from rank src to rank dst of a placed job
 * goes up to. 1 and *spine set if the flow crosses leaves; 0 if it stays in its leaf;
 * -EINVAL for a rank out of range. */
int vclos_uplink(const struct vclos_alloc *a, uint32_t src_rank, uint32_t dst_rank,
		 uint32_t *spine);

/* The most flows of f[0..n) on any directed leaf-spine link: a flow across leaves loads
 * the uplink (src leaf -> spine) and the downlink (spine -> dst leaf). 0 if none crosses;
 * -EINVAL for an endpoint or spine out of range or n > INT_MAX; -ENOMEM. */
int vclos_link_load_max(const struct vclos *c, const struct vclos_flow *f, size_t n);

#endif
