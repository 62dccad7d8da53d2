/* SPDX-License-Identifier: MIT */
/* OCS-vClos stages 2 and 3 inside (see ocs_vclos.h): the plan of a placement (the job's
 * circuits, the circuits after it) and the searches that make it. Internal to
 * ocs_vclos*.c. */
#ifndef POLICY_OCS_VCLOS_FIND_H
#define POLICY_OCS_VCLOS_FIND_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/ocs_vclos.h"

/* A planned join of the job's port (leaf, k), for undoing it: the port's circuit before. */
struct ocs_vclos_undo {
	uint32_t leaf, k, old;
};

struct ocs_vclos_find {
	uint32_t L, S, K, P, T;
	char *block; /* every array below */
	const uint32_t *circ, *owner; /* the cluster's, read by prep */
	uint32_t *busy; /* [S*K] circuits at (spine m, OCS k) held by running jobs */
	uint32_t *cnt0; /* [S*K] circuits at (m, k) before the placement */
	uint32_t *rsn; /* [L] idle servers per leaf (RSN) */
	uint32_t *rpn; /* [S] free ports per spine: K*P less running jobs' circuits (RPN) */
	uint32_t *fports; /* [L] free ports per leaf */
	uint32_t *sorder; /* [S] spines by (RPN, index) */
	uint32_t *lorder; /* [L] leaves with an idle server by (RSN, index); nlorder of them */
	uint32_t nlorder;
	uint64_t *keys; /* [max(L, S)] sort keys */

	/* the plan: the job's ports and the circuits they make */
	uint32_t *use; /* [L*K] spine of the job's circuit on port (n, k), or OCS_VCLOS_NONE */
	uint32_t *wcirc; /* [L*K] circuits with the plan (before tear-downs) */
	uint32_t *wcnt; /* [S*K] circuits at (m, k) in wcirc */
	uint32_t *cap; /* [S*K] ports at (m, k) the job may still take */
	struct ocs_vclos_undo *log; /* [L*K] planned joins, in order */
	uint32_t nlog;
	uint32_t *tmp; /* [S*K] */

	/* one spine's matching: the leaves part[0..npart) to OCSes with room at spine m */
	uint32_t m;
	uint8_t *mat; /* [L*K] */
	uint32_t *mcnt; /* [K] */
	uint8_t *visk, *visl; /* [K], [L] */
	uint32_t *part; /* [L] */
	uint32_t npart;

	/* the result: stage 2: leaf[0..l) with srv[i] servers each, the last server taken on
	 * part_leaf holding part_gpus ranks (T if all), spine[0] the spine; stage 3: leaf[0..l)
	 * with s/T servers each, spine[0..s) the spine of each virtual spine. Ascending. */
	uint32_t l, s, part_leaf, part_gpus;
	bool exact;
	uint32_t *leaf, *srv; /* [L] */
	uint32_t *spine; /* [max(S, K)] */

	/* stage 3 search */
	uint32_t *cand; /* [L] leaves that may take part, by (RSN, index) */
	uint32_t ncand;
	uint32_t *cur, *best; /* [L] leaves on the path, and of the best set */
	uint32_t *vs, *best_vs; /* [K] spine of each virtual spine */
	uint32_t *pk, *best_k; /* [L*K] OCS of circuit (i, j) at i*s + j */
	uint64_t *lvl; /* [K*S] spine choices per virtual spine */
	uint64_t best_cost;
	uint32_t nodes, limit, sets, snodes, slimit;
	bool cut;

	/* stage 3's fallback, an edge colouring: edges (leaf i, lane) coloured by OCS */
	uint32_t *cl_leaf; /* [L*K] edge at (virtual leaf i, OCS k), or a mark */
	uint32_t *cl_lane; /* [K*P*K] edge at (lane, OCS k), or a mark */
	uint32_t *lane_m, *lane_room; /* [K*P] spine of each lane, edges it may still take */
	uint32_t nlanes;
	uint32_t *e_leaf, *e_lane, *e_col; /* [L*K] the edges */
	uint32_t nedges;
	uint32_t *path; /* [L*K] a Kempe chain */
};

/* Scratch for c's sizes, or NULL (ENOMEM). Free with ocs_vclos_find_free (NULL-safe). */
struct ocs_vclos_find *ocs_vclos_find_new(const struct ocs_vclos *c);
void ocs_vclos_find_free(struct ocs_vclos_find *f);

/* Reads c's idle servers, free ports and circuits, and empties the plan. */
void ocs_vclos_find_prep(struct ocs_vclos *c);

/* Stage 2 (vClos §7, Alg. 2): one spine. 1 and the plan made, or 0 (plan empty). */
int ocs_vclos_find_spine(struct ocs_vclos *c, uint32_t n);

/* Algorithm 4's shapes: whether n = l x s with l >= 2 leaves of s GPUs, whole servers of one
 * leaf (T | s, s <= R*T) and one OCS per circuit of a leaf (s <= K). */
bool ocs_vclos_shape_ok(const struct ocs_vclos *c, uint32_t n, uint32_t l);

/* Stage 3 (vClos §7, Alg. 4): an OCS virtual Clos. 1 and the plan made, or 0. */
int ocs_vclos_find_clos(struct ocs_vclos *c, uint32_t n);

/* Stage 3's fallback for the path's leaf set cur[0..l) (ocs_vclos_color.c): 1 with vs, pk and
 * the plan made, or 0 with nothing planned. */
int ocs_vclos_color(struct ocs_vclos_find *f);

/* The changes the plan makes, into ch (room for 3 * the plan's joins), in order; their
 * count. Sets wcirc to the circuits after them. */
uint32_t ocs_vclos_find_changes(struct ocs_vclos_find *f, struct ocs_vclos_change *ch);

/* Shared by the stages: plans the job's circuit from port (leaf, k) to spine m; undoes
 * planned joins down to the first `mark`; the matching of leaves part[0..npart) at spine m
 * (one more circuit for leaf n: 1 if found; drop `units` of n's; clear). */
void ocs_vclos_plan_join(struct ocs_vclos_find *f, uint32_t leaf, uint32_t k, uint32_t m);
void ocs_vclos_plan_undo(struct ocs_vclos_find *f, uint32_t mark);
void ocs_vclos_match_begin(struct ocs_vclos_find *f, uint32_t m);
int ocs_vclos_match_add(struct ocs_vclos_find *f, uint32_t n);
void ocs_vclos_match_drop(struct ocs_vclos_find *f, uint32_t n, uint32_t units);
uint32_t ocs_vclos_match_cost(const struct ocs_vclos_find *f);
void ocs_vclos_match_commit(struct ocs_vclos_find *f);
void ocs_vclos_match_clear(struct ocs_vclos_find *f);

#endif
