// SPDX-License-Identifier: MIT
/* Recursive halving-doubling all-reduce (Rabenseifner; vClos §5.3): reduce-scatter by
 * recursive halving, all-gather by recursive doubling, over a power-of-two core of ranks.
 *
 * Non-power-of-two N (vClos §5.3): with p = 2^floor(log2 N), rank i < N - p is paired
 * with rank i + p. (The paper's "i = 0, 1, ..., N - 2^log N" would name N - p + 1 ranks, one
 * past the last; we read i < N - p.) The core is ranks 0 .. p-1; the extra rank i + p sends
 * its whole buffer to i (REDUCE) first and receives the result from i (COPY) last. Keeping
 * the core contiguous keeps the leaf-major layout of §5.3 under the core's XOR partners, and
 * i and i + p share a local port index whenever the leaf size divides p ("i%n-th spine").
 *
 * Distances follow the paper's proof form, G_i -> G_{i xor 2^t}: the reduce-scatter uses
 * 1, 2, ..., p/2 (halving the data, so the big halves stay inside a leaf) and the all-gather
 * mirrors it with p/2, ..., 1. The buffer is cut into p chunks; after step t a rank keeps the
 * lower half of its range if bit t of its rank is 0, so it ends with chunk bitrev(r). */
#include "traffic/coll_build.h"

#define HD_MAX_LOG 15

struct hd {
	uint32_t p, k, x; /* core size 2^k, extras x = N - p */
	uint16_t ph; /* phase of the first core step */
	uint32_t lo[HD_MAX_LOG + 1]; /* chunk range held before reduce-scatter step t */
	uint32_t hi[HD_MAX_LOG + 1];
	uint32_t sent_lo[HD_MAX_LOG]; /* the half sent in reduce-scatter step t */
	uint32_t sent_hi[HD_MAX_LOG];
	struct coll_deps rd; /* pre-step and reduce-scatter receives */
	struct coll_deps ag; /* all-gather receives so far */
};

static void hd_init(struct hd *h, const struct coll_params *p, uint32_t r)
{
	uint32_t t, mid;

	*h = (struct hd){.p = 1};
	while (h->p * 2 <= p->nranks) {
		h->p *= 2;
		h->k++;
	}
	h->x = p->nranks - h->p;
	h->ph = h->x ? 1 : 0;
	h->hi[0] = h->p;
	for (t = 0; t < h->k; t++) {
		mid = (h->lo[t] + h->hi[t]) / 2;
		if (r & (1u << t)) {
			h->lo[t + 1] = mid;
			h->hi[t + 1] = h->hi[t];
			h->sent_lo[t] = h->lo[t];
			h->sent_hi[t] = mid;
		} else {
			h->lo[t + 1] = h->lo[t];
			h->hi[t + 1] = mid;
			h->sent_lo[t] = mid;
			h->sent_hi[t] = h->hi[t];
		}
	}
}

static struct coll_range hd_range(const struct coll_bld *b, const struct hd *h, uint32_t lo,
				  uint32_t hi)
{
	struct coll_range all = {0, b->p->bytes};

	return coll_parts(all, b->p->elem, h->p, lo, hi);
}

/* Reduce-scatter step t: the send reads what the pre-step and the earlier steps reduced. */
static void hd_rs(struct coll_bld *b, struct hd *h, uint32_t t)
{
	uint32_t q = b->rank ^ (1u << t), rcv;
	uint16_t ph = (uint16_t)(h->ph + t);

	coll_bld_send(b, ph, q, hd_range(b, h, h->sent_lo[t], h->sent_hi[t]), &h->rd);
	rcv = coll_bld_recv(b, ph, q, COLL_F_REDUCE, hd_range(b, h, h->lo[t + 1], h->hi[t + 1]),
			    NULL);
	coll_deps_add(b, &h->rd, rcv);
}

/* All-gather step u mirrors reduce-scatter step t = k-1-u: send the range kept after step
 * t, receive the half sent then, now final. */
static void hd_ag(struct coll_bld *b, struct hd *h, uint32_t u)
{
	uint32_t t = h->k - 1 - u, q = b->rank ^ (1u << t), rcv;
	uint16_t ph = (uint16_t)(h->ph + h->k + u);
	struct coll_deps sd = h->rd;

	coll_deps_merge(b, &sd, &h->ag);
	coll_bld_send(b, ph, q, hd_range(b, h, h->lo[t + 1], h->hi[t + 1]), &sd);
	rcv = coll_bld_recv(b, ph, q, COLL_F_COPY, hd_range(b, h, h->sent_lo[t], h->sent_hi[t]),
			    NULL);
	coll_deps_add(b, &h->ag, rcv);
}

static void hd_extra(struct coll_bld *b, const struct hd *h)
{
	struct coll_range all = {0, b->p->bytes};
	uint32_t core = b->rank - h->p;

	coll_bld_send(b, 0, core, all, NULL);
	coll_bld_recv(b, (uint16_t)(1 + 2 * h->k), core, COLL_F_COPY, all, NULL);
}

void coll_hd_build(struct coll_bld *b)
{
	struct coll_range all = {0, b->p->bytes};
	uint32_t r = b->rank, t;
	struct hd h;

	hd_init(&h, b->p, r);
	if (r >= h.p) {
		hd_extra(b, &h);
		return;
	}
	if (r < h.x)
		coll_deps_add(b, &h.rd, coll_bld_recv(b, 0, r + h.p, COLL_F_REDUCE, all, NULL));
	for (t = 0; t < h.k; t++)
		hd_rs(b, &h, t);
	for (t = 0; t < h.k; t++)
		hd_ag(b, &h, t);
	if (r < h.x) {
		coll_deps_merge(b, &h.rd, &h.ag);
		coll_bld_send(b, (uint16_t)(h.ph + 2 * h.k), r + h.p, all, &h.rd);
	}
}
