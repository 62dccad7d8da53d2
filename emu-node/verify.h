/* SPDX-License-Identifier: MIT */
/* Verify mode: the values a rank's buffers start with and the values the collective must
 * leave in them (traffic/coll.h "Kinds"), from ctl_verify_value. Pure. */
#ifndef EMU_VERIFY_H
#define EMU_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/chakra/chakra.h"
#include "traffic/coll.h"

/* Sums of ctl_verify_value(r, i) over the ranks r whose data a rank's reduction adds up,
 * for i mod 1021 (the period of the values in i), so a reduced element is checked in O(1). */
struct verify_sums {
	double v[1021];
	uint32_t *owner; /* MULTIDIM reduce-scatter and all-gather: coll_md_owners; else NULL */
};

/* Fills n elements with rank's starting values: element i is ctl_verify_value(rank, i). */
void verify_fill(float *buf, uint64_t n, uint32_t rank);

/* The table for rank's reductions under p: its ring's members for SHARD_RINGS, all ranks
 * otherwise; and for a MULTIDIM reduce-scatter or all-gather, whose share each element is.
 * 0, or -ENOMEM or -EINVAL (p refused by the builder) with vs empty. */
int verify_sums_init(struct verify_sums *vs, const struct coll_params *p, uint32_t rank);
/* Frees what verify_sums_init allocated (vs itself is the caller's). */
void verify_sums_done(struct verify_sums *vs);

/* The value element i of rank's result buffer must hold (the `out` buffer for ALLTOALL),
 * or false where the kind leaves it unspecified (REDUCESCATTER outside the rank's chunk).
 * vs is verify_sums_init's table for (p, rank); elements are 4-byte floats. */
bool verify_expect(const struct coll_params *p, const struct verify_sums *vs, uint32_t rank,
		   uint64_t i, double *v);

/* Checks rank's result: 0, or -EBADMSG with the first wrong element in why: the rank, its
 * chunk (of nranks, coll_chunk_off's cut), the element, the value found and the one expected. */
int verify_check(const struct coll_params *p, const struct verify_sums *vs, uint32_t rank,
		 const float *res, char *why, size_t whylen);

/* The element a test-only fault corrupts (CTL_VERIFY_FAULT): the first one checked from the
 * middle of the buffer on, else from its start; the element count if none is checked. */
uint64_t verify_fault_at(const struct coll_params *p, const struct verify_sums *vs, uint32_t rank);

/* ---- a Chakra job: each operation in its own regions (traffic/chakra/chakra.h) ---- */

/* This rank's regions, as CTL_JOB ships them, and the members they name. */
struct verify_regions {
	const struct chakra_region *rg;
	const struct chakra_member *mb;
	uint32_t nrg, nmb;
};

/* What is wrong with vr for a buffer of `bytes` (a kind, a member out of the list, a region
 * outside the buffer), or NULL. */
const char *verify_regions_fault(const struct verify_regions *vr, uint64_t bytes);
/* The value element e of region g (from its base; an all-to-all's of its `out` half) must
 * hold, or false where its kind leaves it unspecified (a reduce-scatter outside this rank's
 * part). Every member's region starts as verify_fill leaves it, at its own base. */
bool verify_region_expect(const struct verify_regions *vr, uint32_t g, uint64_t e, double *v);
/* Checks rank's buffer: 0, or -EBADMSG with the first wrong element in why. Elements in no
 * region are not checked. */
int verify_regions_check(const struct verify_regions *vr, uint32_t rank, const float *buf,
			 char *why, size_t whylen);
/* The buffer's element a test-only fault corrupts: the first one checked; UINT64_MAX if none
 * is. */
uint64_t verify_regions_fault_at(const struct verify_regions *vr);

#endif
