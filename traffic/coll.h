/* SPDX-License-Identifier: MIT */
/* Collective schedules (ARCHITECTURE.md "Data plane"): built deterministically from compact
 * parameters, so every rank derives the same global schedule. A schedule lists, per rank, the
 * steps that rank performs; emu-node executes one rank's steps. Pure: no syscalls.
 *
 * Semantics. Every rank holds a buffer of `bytes` bytes (the collective's message size M).
 * A SEND step sends [off, off+len) of the sender's buffer to rank `peer`; the matching RECV on
 * the peer names the same (off, len) and either copies the data into its buffer
 * (COLL_F_COPY) or adds it element-wise (COLL_F_REDUCE). Sends and receives between one ordered
 * pair of ranks are matched in the order they appear in the two ranks' step lists (FIFO per
 * connection). A step may start once every step in its dependency list (indices into the same
 * rank's steps, all smaller than its own) has completed; steps without dependencies may start
 * at once, so a rank's sends and receives overlap wherever the algorithm allows. */
#ifndef TRAFFIC_COLL_H
#define TRAFFIC_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"

enum coll_kind {
	COLL_ALLREDUCE,
	COLL_ALLGATHER,
	COLL_REDUCESCATTER,
	COLL_ALLTOALL,
};

enum coll_algo {
	COLL_RING,	   /* ring (reduce-scatter + all-gather for all-reduce) */
	COLL_HD,	   /* recursive halving-doubling, non-power-of-two by pre/post steps */
	COLL_PAIRWISE,	   /* pairwise exchange (all-to-all) */
	COLL_HIER_RING,	   /* two-level: intra-server ring, inter-server ring, intra-server ring */
	COLL_SHARD_RINGS,  /* seed 000: one ring per parameter shard across DP replicas */
};

enum coll_op {
	COLL_SEND,
	COLL_RECV,
};

#define COLL_F_COPY 0x1
#define COLL_F_REDUCE 0x2

struct coll_step {
	uint8_t op;	     /* enum coll_op */
	uint8_t flags;	     /* RECV: COLL_F_COPY or COLL_F_REDUCE */
	uint16_t phase;	     /* algorithm round, for records ("step" in flows.csv) */
	uint32_t peer;	     /* rank */
	uint64_t off, len;   /* byte range of the buffer */
	uint32_t dep_off;    /* dependencies: coll_sched.deps[dep_off .. dep_off+dep_n) */
	uint32_t dep_n;
};

/* Compact parameters: everything a rank needs to derive the whole schedule. */
struct coll_params {
	enum coll_kind kind;
	enum coll_algo algo;
	uint32_t nranks;
	uint64_t bytes;	      /* per-rank buffer size M */
	uint32_t elem;	      /* element size in bytes (4 for float); chunk edges are multiples */
	uint32_t group;	      /* HIER_RING: ranks per server; SHARD_RINGS: shards per replica */
};

struct coll_rank {
	uint32_t step_off, step_n; /* this rank's steps in coll_sched.steps */
};

struct coll_sched {
	struct coll_params params;
	VEC(struct coll_rank) ranks;
	VEC(struct coll_step) steps;
	VEC(uint32_t) deps; /* rank-local step indices (0 = the rank's first step) */
};

/* Builds the schedule for p into s (all ranks). Returns 0, -EINVAL for a combination that
 * does not exist (the message says which), or -ENOMEM. Release with coll_sched_done. */
int coll_sched_build(const struct coll_params *p, struct coll_sched *s, struct diag *d);
void coll_sched_done(struct coll_sched *s);

/* Bytes one rank sends in total, and the nccl-tests bus-bandwidth factor for the kind:
 * busbw = algbw * factor (all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n). */
double coll_busbw_factor(enum coll_kind kind, uint32_t nranks);

/* Names for scenarios and records ("allreduce", "ring"); parsing returns -EINVAL if unknown. */
const char *coll_kind_name(enum coll_kind k);
const char *coll_algo_name(enum coll_algo a);
int coll_kind_parse(const char *s, enum coll_kind *out);
int coll_algo_parse(const char *s, enum coll_algo *out);

#endif
