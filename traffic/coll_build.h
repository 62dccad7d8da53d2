/* SPDX-License-Identifier: MIT */
/* Internal to traffic/coll*.c: the step builder shared by the algorithms. Each algorithm
 * appends one rank's steps at a time; ranks are built in order. Not a public interface. */
#ifndef TRAFFIC_COLL_BUILD_H
#define TRAFFIC_COLL_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "traffic/coll.h"

#define COLL_NONE UINT32_MAX /* "no step": an empty part that got no step */
#define COLL_DEPS_MAX 128 /* HD needs 1 + 2 log2 N <= 29; direct all-reduce N - 1 */

/* A byte range of the buffer. */
struct coll_range {
	uint64_t off, len;
};

/* A dependency set under construction: rank-local step indices, no duplicates. */
struct coll_deps {
	uint32_t n;
	uint32_t v[COLL_DEPS_MAX];
};

struct coll_bld {
	struct coll_sched *s;
	const struct coll_params *p;
	uint32_t rank; /* the rank being built */
	size_t first; /* index in s->steps of its step 0 */
	int err; /* first error (-ENOMEM, -E2BIG); later steps are dropped */
	void *priv; /* the algorithm's data for the whole build (its prep), NULL if none */
};

/* Adds idx to d unless it is COLL_NONE or already there. */
void coll_deps_add(struct coll_bld *b, struct coll_deps *d, uint32_t idx);
/* Adds every member of src to d. */
void coll_deps_merge(struct coll_bld *b, struct coll_deps *d, const struct coll_deps *src);

/* Appends a step for the current rank with dependencies deps (may be NULL). Returns its
 * rank-local index, or COLL_NONE if r is empty (no step) or on error (b->err is set). */
uint32_t coll_bld_send(struct coll_bld *b, uint16_t phase, uint32_t peer, struct coll_range r,
		       const struct coll_deps *deps);
uint32_t coll_bld_recv(struct coll_bld *b, uint16_t phase, uint32_t peer, uint8_t flags,
		       struct coll_range r, const struct coll_deps *deps);

/* Part c of n of range r, on element boundaries (see coll_chunk_off). */
struct coll_range coll_part(struct coll_range r, uint32_t elem, uint32_t n, uint32_t c);
/* Parts [lo, hi) of n of range r, as one range. */
struct coll_range coll_parts(struct coll_range r, uint32_t elem, uint32_t n, uint32_t lo,
			     uint32_t hi);

/* A ring over some ranks working on one byte range, cut into one chunk per member. A ring
 * runs from member j to member j + 1, or with `rev` from j to j - 1; either way member j ends
 * a reduce-scatter with chunk j. With halves > 1 it moves only part `half` of each chunk, so
 * that rings in both directions can share the chunks (coll_rings_rs). */
struct coll_ring {
	uint32_t base, stride, n; /* member j is rank base + j * stride */
	struct coll_range r;
	uint16_t phase; /* phase of its first round */
	bool barrier; /* greedy routing's code: a round waits for the rank's previous round */
	bool rev; /* sends to member j - 1, receives from j + 1 */
	uint8_t halves, half; /* 0 or 1 halves: whole chunks */
};

/* One rank's position in a ring while its rounds are emitted. */
struct coll_ring_pos {
	const struct coll_ring *g;
	uint32_t pos; /* member index of the rank */
	uint32_t prev_recv; /* the previous round's receive: the chunk to forward next */
	uint32_t last_recv; /* latest receive; FIFO from one peer makes it cover all */
	uint16_t phase; /* phase of the next round */
	struct coll_deps entry; /* writers of the range before the ring (read by own data) */
	bool entry_sent; /* a send that waits for entry was emitted: the ring's later sends go
			  * to the same member, and sends of one connection start in list order
			  * (coll.h), so they need not list entry again */
	struct coll_deps round; /* steps of the last non-empty round (barrier) */
};

/* Starts position pos of ring g; entry lists the steps that wrote g->r before (may be NULL). */
void coll_ring_pos_init(struct coll_ring_pos *rp, const struct coll_ring *g, uint32_t pos,
			const struct coll_deps *entry);
/* Emits the N-1 reduce-scatter rounds: member pos ends with chunk pos reduced. */
void coll_ring_rs(struct coll_bld *b, struct coll_ring_pos *rp);
/* Emits the N-1 all-gather rounds: member pos starts with chunk pos final. */
void coll_ring_ag(struct coll_bld *b, struct coll_ring_pos *rp);
/* The same for nr rings of one size, round by round: round t of every ring before round
 * t + 1 of any, so the rings' last rounds are the last steps. */
void coll_rings_rs(struct coll_bld *b, struct coll_ring_pos *rp, uint32_t nr);
void coll_rings_ag(struct coll_bld *b, struct coll_ring_pos *rp, uint32_t nr);
/* The steps after which the whole ring range is final on this rank (after rs + ag). */
void coll_ring_exit(struct coll_bld *b, const struct coll_ring_pos *rp, struct coll_deps *out);

/* One rank's steps for each algorithm; the parameters were checked by coll_sched_build. */
void coll_ring_build(struct coll_bld *b);
void coll_hd_build(struct coll_bld *b);
void coll_a2a_build(struct coll_bld *b);
void coll_a2a_direct_build(struct coll_bld *b);
/* DIRECT: the all-to-all above, or the direct reduce-scatter, all-gather, all-reduce
 * (coll_direct.c); its check refuses an all-reduce of more ranks than dependencies allow. */
void coll_direct_build(struct coll_bld *b);
int coll_direct_check(const struct coll_params *p, struct diag *d);
/* The step g between `direct`'s consecutive shifts: phase t sends to rank + (t+1) g mod n. */
uint32_t coll_a2a_stride(uint32_t n);
void coll_hier_build(struct coll_bld *b);
void coll_shard_build(struct coll_bld *b);
void coll_md_build(struct coll_bld *b);

/* MULTIDIM beyond coll_sched_build's checks: 0 or -EINVAL with the problem (coll_md.c). */
int coll_md_check(const struct coll_params *p, struct diag *d);
/* Plans the collective once for all ranks into b->priv: 0, -EINVAL or -ENOMEM. */
int coll_md_prep(struct coll_bld *b, struct diag *d);
/* Frees b->priv (NULL-safe). */
void coll_md_release(struct coll_bld *b);

#endif
