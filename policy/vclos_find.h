/* SPDX-License-Identifier: MIT */
/* vClos stage 2 inside (see vclos.h): the search that replaces the vClos ILP (A.2) for one
 * shape of l virtual leaves x s virtual spines. Internal to vclos.c and vclos_find.c. */
#ifndef POLICY_VCLOS_FIND_H
#define POLICY_VCLOS_FIND_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/vclos.h"

/* Scratch for a cluster of L leaves and S spines, or NULL (ENOMEM). Free with
 * vclos_find_free (NULL-safe). */
struct vclos_find *vclos_find_new(uint32_t leaves, uint32_t spines);
void vclos_find_free(struct vclos_find *f);

/* Reads c's free servers and links; call before vclos_find_shape, after any change. */
void vclos_find_prep(struct vclos *c);

/* Chooses l leaves with >= s/T idle servers each and s spines with a free link to every one
 * of them, minimising sum RPN + T * sum RSN (ILP A.2). 1 and leaf[0..l), spine[0..s)
 * (ascending) written, *exact whether the search finished; 0 if none found. */
int vclos_find_shape(struct vclos *c, uint32_t l, uint32_t s, uint32_t *leaf, uint32_t *spine,
		     bool *exact);

/* Shared by the vClos placements (vclos_find.c, ocs_vclos_plan.c): qsort's order of two
 * uint64_t keys, and idx[0..n) sorted by (weight, index), weights wt[idx], keys scratch. */
int vclos_find_key_cmp(const void *a, const void *b);
void vclos_find_sort(uint64_t *keys, uint32_t *idx, uint32_t n, const uint32_t *wt);

#endif
