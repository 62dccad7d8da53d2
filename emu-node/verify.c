// SPDX-License-Identifier: MIT
/* Verify mode: starting values and expected results per collective kind (see verify.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu-node/ctl.h"
#include "emu-node/verify.h"

#define VERIFY_ELEM 4

void verify_fill(float *buf, uint64_t n, uint32_t rank)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		buf[i] = ctl_verify_value(rank, i);
}

/* SHARD_RINGS all-reduces within a ring, the ranks of one shard: {shard, shard + group,
 * ...}; every other reduction is over all ranks. */
static int owners_init(struct verify_sums *vs, const struct coll_params *p)
{
	struct diag d = {0};
	int err;

	if (p->algo != COLL_MULTIDIM || p->kind == COLL_ALLREDUCE)
		return 0;
	vs->owner = malloc((p->bytes / VERIFY_ELEM + 1) * sizeof(*vs->owner));
	if (!vs->owner)
		return -ENOMEM;
	err = coll_md_owners(p, vs->owner, &d);
	if (err)
		verify_sums_done(vs);
	return err;
}

int verify_sums_init(struct verify_sums *vs, const struct coll_params *p, uint32_t rank)
{
	uint32_t k, r, first = 0, stride = 1;

	vs->owner = NULL;
	if (p->algo == COLL_SHARD_RINGS && p->group) {
		first = rank % p->group;
		stride = p->group;
	}
	for (k = 0; k < 1021; k++) {
		vs->v[k] = 0;
		for (r = first; r < p->nranks; r += stride)
			vs->v[k] += ctl_verify_value(r, k);
	}
	return owners_init(vs, p);
}

void verify_sums_done(struct verify_sums *vs)
{
	free(vs->owner);
	vs->owner = NULL;
}

/* The chunk (of n, coll_chunk_off's cut of e elements) that holds element i. */
static uint32_t chunk_of(uint64_t e, uint32_t n, uint64_t i)
{
	uint64_t base = e / n, rem = e % n;

	if (i < rem * (base + 1))
		return (uint32_t)(i / (base + 1));
	return (uint32_t)(rem + (i - rem * (base + 1)) / base);
}

bool verify_expect(const struct coll_params *p, const struct verify_sums *vs, uint32_t rank,
		   uint64_t i, double *v)
{
	uint64_t e = p->bytes / VERIFY_ELEM, blk = e / p->nranks;
	uint32_t owner = vs->owner ? vs->owner[i] : chunk_of(e, p->nranks, i);

	switch (p->kind) {
	case COLL_ALLREDUCE:
		*v = vs->v[i % 1021];
		return true;
	case COLL_REDUCESCATTER:
		*v = vs->v[i % 1021];
		return owner == rank;
	case COLL_ALLGATHER:
		*v = ctl_verify_value(owner, i);
		return true;
	case COLL_ALLTOALL:
		/* out block j is rank j's in block for us */
		*v = ctl_verify_value((uint32_t)(i / blk), rank * blk + i % blk);
		return true;
	}
	return false;
}

/* Integer sums are exact in float below 2^24 (up to 4099 ranks of values below 4093);
 * above, n - 1 additions in any order round by at most (n - 1) * 2^-24 of the sum. */
static bool verify_close(const struct coll_params *p, double want, float got)
{
	double tol = want >= 0x1p24 ? want * p->nranks * 0x1p-24 : 0;
	double diff = (double)got - want;

	return diff <= tol && -diff <= tol;
}

uint64_t verify_fault_at(const struct coll_params *p, const struct verify_sums *vs, uint32_t rank)
{
	uint64_t e = p->bytes / VERIFY_ELEM, i;
	double want;

	for (i = e / 2; i < e; i++)
		if (verify_expect(p, vs, rank, i, &want))
			return i;
	for (i = 0; i < e / 2; i++)
		if (verify_expect(p, vs, rank, i, &want))
			return i;
	return e;
}

int verify_check(const struct coll_params *p, const struct verify_sums *vs, uint32_t rank,
		 const float *res, char *why, size_t whylen)
{
	uint64_t e = p->bytes / VERIFY_ELEM, i;
	double want;

	for (i = 0; i < e; i++) {
		if (!verify_expect(p, vs, rank, i, &want) || verify_close(p, want, res[i]))
			continue;
		snprintf(why, whylen,
			 "verify: rank %u, chunk %u of %u, element %" PRIu64 ": found %.1f, "
			 "expected %.1f",
			 rank, chunk_of(e, p->nranks, i), p->nranks, i, (double)res[i], want);
		return -EBADMSG;
	}
	return 0;
}

/* ---- a Chakra job's regions (verify.h) ---- */

const char *verify_regions_fault(const struct verify_regions *vr, uint64_t bytes)
{
	uint32_t i;

	for (i = 0; i < vr->nrg; i++) {
		const struct chakra_region *r = &vr->rg[i];
		uint64_t span = r->kind == CHAKRA_R_ALLTOALL ? 2 * r->len : r->len;

		if (r->kind >= CHAKRA_R_KINDS || !r->nmembers || r->index >= r->nmembers ||
		    r->member_off > vr->nmb || r->nmembers > vr->nmb - r->member_off)
			return "a region whose kind or members are not in the packet";
		if (r->base % VERIFY_ELEM || r->len % VERIFY_ELEM || r->base > bytes ||
		    span > bytes - r->base)
			return "a region outside the buffer or not of whole elements";
		if (r->kind == CHAKRA_R_ALLTOALL && (r->len / VERIFY_ELEM) % r->nmembers)
			return "an all-to-all region not of equal blocks";
	}
	return NULL;
}

/* The sum over region r's members of their element e. */
static double region_sum(const struct chakra_region *r, const struct chakra_member *m, uint64_t e)
{
	double s = 0;
	uint32_t k;

	for (k = 0; k < r->nmembers; k++)
		s += ctl_verify_value(m[k].rank, m[k].base / VERIFY_ELEM + e);
	return s;
}

bool verify_region_expect(const struct verify_regions *vr, uint32_t g, uint64_t e, double *v)
{
	const struct chakra_region *r = &vr->rg[g];
	const struct chakra_member *m = vr->mb + r->member_off, *me = &m[r->index];
	uint64_t ne = r->len / VERIFY_ELEM, blk = ne / r->nmembers;
	uint32_t c = chunk_of(ne, r->nmembers, e);

	switch (r->kind) {
	case CHAKRA_R_ALLREDUCE:
		*v = region_sum(r, m, e);
		return true;
	case CHAKRA_R_REDUCESCATTER:
		*v = region_sum(r, m, e);
		return c == r->index;
	case CHAKRA_R_ALLGATHER:
		*v = ctl_verify_value(m[c].rank, m[c].base / VERIFY_ELEM + e);
		return true;
	case CHAKRA_R_ALLTOALL: /* e in the `out` half: block j is member j's block for us */
		c = (uint32_t)(e / blk);
		*v = ctl_verify_value(m[c].rank,
				      m[c].base / VERIFY_ELEM + r->index * blk + e % blk);
		return true;
	case CHAKRA_R_BROADCAST:
		*v = ctl_verify_value(m[0].rank, m[0].base / VERIFY_ELEM + e);
		return true;
	default: /* REDUCE: the sum at its root, the others' own */
		*v = r->index ? ctl_verify_value(me->rank, me->base / VERIFY_ELEM + e)
			      : region_sum(r, m, e);
		return true;
	}
}

/* Where element e of region r is in the buffer (an all-to-all's in its `out` half). */
static uint64_t region_at(const struct chakra_region *r, uint64_t e)
{
	return r->base / VERIFY_ELEM + (r->kind == CHAKRA_R_ALLTOALL ? r->len / VERIFY_ELEM : 0) +
	       e;
}

static bool region_close(const struct chakra_region *r, double want, float got)
{
	double tol = want >= 0x1p24 ? want * r->nmembers * 0x1p-24 : 0;
	double diff = (double)got - want;

	return diff <= tol && -diff <= tol;
}

int verify_regions_check(const struct verify_regions *vr, uint32_t rank, const float *buf,
			 char *why, size_t whylen)
{
	uint32_t g;
	uint64_t e, at;
	double want;

	for (g = 0; g < vr->nrg; g++) {
		const struct chakra_region *r = &vr->rg[g];

		for (e = 0; e < r->len / VERIFY_ELEM; e++) {
			at = region_at(r, e);
			if (!verify_region_expect(vr, g, e, &want) ||
			    region_close(r, want, buf[at]))
				continue;
			snprintf(why, whylen,
				 "verify: rank %u, the operation of region %u (%u members, this "
				 "rank's index %u), element %" PRIu64 ": found %.1f, expected %.1f",
				 rank, g, r->nmembers, r->index, e, (double)buf[at], want);
			return -EBADMSG;
		}
	}
	return 0;
}

uint64_t verify_regions_fault_at(const struct verify_regions *vr)
{
	uint32_t g;
	uint64_t e;
	double want;

	for (g = 0; g < vr->nrg; g++)
		for (e = 0; e < vr->rg[g].len / VERIFY_ELEM; e++)
			if (verify_region_expect(vr, g, e, &want))
				return region_at(&vr->rg[g], e);
	return UINT64_MAX;
}
