// SPDX-License-Identifier: MIT
/* All-to-all. Pairwise (vClos §5.3): N-1 rounds; in round t rank i sends its block for
 * rank (i+t+1) mod N and receives the block of rank (i-t-1) mod N. Direct: the same sends
 * and receives, all in flight at once (or k at a time), the shifts in a strided order. */
#include <errno.h>
#include <stdlib.h>

#include "traffic/coll_build.h"

/* Nothing here depends on data (sends read `in`, receives write `out`), so the rounds are
 * paced instead: round t+1 waits for the rank's send and receive of round t, as in a
 * sendrecv loop. That keeps each round a permutation, which is what makes the pattern
 * leaf-wise (vClos §5.3, Definition 1); without it the rounds would collapse into one
 * direct all-to-all burst. */
void coll_a2a_build(struct coll_bld *b)
{
	const struct coll_params *p = b->p;
	uint32_t n = p->nranks, r = b->rank, t, dst, src, snd, rcv;
	uint64_t blk = p->bytes / n;
	struct coll_deps prev = {0};

	for (t = 0; t + 1 < n; t++) {
		dst = (r + t + 1) % n;
		src = (r + n - t - 1) % n;
		snd = coll_bld_send(b, (uint16_t)t, dst, (struct coll_range){dst * blk, blk},
				    &prev);
		rcv = coll_bld_recv(b, (uint16_t)t, src, COLL_F_COPY,
				    (struct coll_range){src * blk, blk}, &prev);
		prev.n = 0;
		coll_deps_add(b, &prev, snd);
		coll_deps_add(b, &prev, rcv);
	}
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The step between consecutive shifts of `direct`: the integer nearest n (sqrt(5) - 1) / 2
 * that is prime to n, so that t -> (t + 1) g mod n visits every shift 1..n-1 once, and any
 * few consecutive phases lie far apart (golden-ratio spacing), as Fibonacci hashing spreads
 * consecutive keys. */
uint32_t coll_a2a_stride(uint32_t n)
{
	uint32_t g = (uint32_t)(n * 0.6180339887 + 0.5), d;

	for (d = 0; d < n; d++) {
		if (g + d < n && gcd(g + d, n) == 1)
			return g + d;
		if (g > d && gcd(g - d, n) == 1)
			return g - d;
	}
	return 1;
}

/* HammingMesh §V-A1 measures global bandwidth with every rank sending to every other at once:
 * "in iteration i, process j sends to process j+i mod p", the iterations posted together as
 * nonblocking sends, so a rank with several ports (a HammingMesh accelerator has four) can
 * use them all. Phase t is the shift s = (t+1) g mod N (g = coll_a2a_stride(N)), the same at
 * every rank, so each phase is still a permutation. With group k (0 < k < N-1) at most k
 * sends are in flight: send t waits for send t-k, as a NIC with k send engines would (the
 * paper's SST NIC has 4, Table III); receives are all posted at once. Consecutive shifts
 * (1, 2, ...) would keep a rank's k sends on the next few ranks, often one or two boards, so
 * for a while all the traffic would cross the same few links while the others idle; the
 * paper's fluid figure assumes every pair's traffic at once, which strided shifts approach. */
void coll_a2a_direct_build(struct coll_bld *b)
{
	const struct coll_params *p = b->p;
	uint32_t n = p->nranks, r = b->rank, k = p->group, g = coll_a2a_stride(n), t, s, dst, src;
	uint32_t *snd = calloc(n, sizeof(*snd));
	uint64_t blk = p->bytes / n;
	struct coll_deps dep;

	if (!snd) {
		b->err = -ENOMEM;
		return;
	}
	for (t = 0; t + 1 < n; t++) {
		s = (uint32_t)((uint64_t)(t + 1) * g % n);
		dst = (r + s) % n;
		src = (r + n - s) % n;
		dep.n = 0;
		if (k && t >= k)
			coll_deps_add(b, &dep, snd[t - k]);
		snd[t] = coll_bld_send(b, (uint16_t)t, dst, (struct coll_range){dst * blk, blk},
				       &dep);
		coll_bld_recv(b, (uint16_t)t, src, COLL_F_COPY, (struct coll_range){src * blk, blk},
			      NULL);
	}
	free(snd);
}

double coll_a2a_concurrent(enum coll_algo algo, uint32_t nranks, uint32_t group)
{
	double peers = nranks > 1 ? (double)(nranks - 1) : 1;

	if (algo == COLL_DIRECT)
		return group && group < nranks - 1 ? group / peers : 1;
	if (algo == COLL_PAIRWISE)
		return 1 / peers;
	return 0;
}
