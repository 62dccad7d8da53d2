// SPDX-License-Identifier: MIT
/* All-to-all. Pairwise (seed 001 §5.3): N-1 rounds; in round t rank i sends its block for
 * rank (i+t+1) mod N and receives the block of rank (i-t-1) mod N. Direct: the same sends
 * and receives in the same order, all in flight at once. */
#include <errno.h>
#include <stdlib.h>

#include "traffic/coll_build.h"

/* Nothing here depends on data (sends read `in`, receives write `out`), so the rounds are
 * paced instead: round t+1 waits for the rank's send and receive of round t, as in a
 * sendrecv loop. That keeps each round a permutation, which is what makes the pattern
 * leaf-wise (seed 001 §5.3, Definition 1); without it the rounds would collapse into one
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

/* seed 004 §4.3 measures global bandwidth with every rank sending to every other at once:
 * "in iteration i, process j sends to process j+i mod p", the iterations posted together as
 * nonblocking sends, so a rank with several ports (a HammingMesh accelerator has four) can
 * use them all. Phase t is the shift t+1, as in pairwise. With group k (0 < k < N-1) at most
 * k sends are in flight: send t waits for send t-k, as a NIC with k send engines would (the
 * paper's SST NIC has 4, Table III); receives are all posted at once. */
void coll_a2a_direct_build(struct coll_bld *b)
{
	const struct coll_params *p = b->p;
	uint32_t n = p->nranks, r = b->rank, k = p->group, t, dst, src;
	uint32_t *snd = calloc(n, sizeof(*snd));
	uint64_t blk = p->bytes / n;
	struct coll_deps dep;

	if (!snd) {
		b->err = -ENOMEM;
		return;
	}
	for (t = 0; t + 1 < n; t++) {
		dst = (r + t + 1) % n;
		src = (r + n - t - 1) % n;
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
