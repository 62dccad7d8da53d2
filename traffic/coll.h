/* SPDX-License-Identifier: MIT */
/* Collective schedules: built deterministically from compact parameters, so every rank derives
 * the same global schedule. A schedule lists, per rank, the steps that rank performs; emu-node
 * executes one rank's steps. Pure: no syscalls.
 *
 * Semantics. Every rank holds a buffer of `bytes` bytes (the collective's message size M).
 * A SEND step sends [off, off+len) of the sender's buffer to rank `peer`; the matching RECV on
 * the peer names the same len and either copies the data into [off, off+len) of its buffer
 * (COLL_F_COPY) or adds it element-wise (COLL_F_REDUCE). The two offsets are equal for every
 * kind but all-to-all. Sends and receives between one ordered pair of ranks are matched in the
 * order they appear in the two ranks' step lists (FIFO per connection): an executor writes the
 * sends of one connection in list order and fills its receives in list order, so a
 * connection's sends also complete in list order, and its receives. A step may start
 * once every step in its dependency list (indices into the same rank's steps, all smaller than
 * its own) has completed; steps without dependencies may start at once, so a rank's sends and
 * receives overlap wherever the algorithm allows. A SEND completes once its bytes have left the
 * buffer, a RECV once its bytes are in it (a REDUCE adds when its receive completes).
 *
 * Local steps and scratch (imported MSCCL algorithms only: the builders make neither). A
 * LOCAL step copies (COLL_F_COPY) or adds (COLL_F_REDUCE) len bytes from src onto off of its
 * own rank, at once, when it starts; it has no peer (peer is the rank's own) and no message.
 * A rank may also have `scratch` bytes (coll_params) besides its buffer: a step's
 * COLL_F_SRC_SCRATCH says that what it reads (a SEND's off, a LOCAL's src) is there,
 * COLL_F_DST_SCRATCH that what it writes (a RECV's or LOCAL's off) is. All-to-all's
 * sends and local reads not from scratch read `in`, its writes not to scratch write `out`.
 * Scratch holds nothing at the start and is not part of the result.
 *
 * Waits (Chakra traces only, traffic/chakra/chakra_lower.c). A WAIT step is a compute on its
 * rank: it completes len nanoseconds of the backend's clock after it starts; it has no peer
 * (peer is the rank's own), no flags, no bytes (off and src 0), and runs in the rank's local
 * channel, one at a time with its local steps, in list order.
 *
 * Guarantees of the builder, checked by the prover (traffic/coll_prove.c, coll_prove below):
 *  - no step has len 0 (parts of the buffer too small to hold an element get no steps), and
 *    off and len are multiples of elem;
 *  - it is race-free: a RECV never writes bytes that a SEND of its rank is still reading, nor
 *    bytes another unfinished RECV copies into, whatever the timing. The order comes from
 *    dependencies, FIFO order and causality (data that arrives was produced after the sends
 *    it depends on finished). Only REDUCE receives into the same bytes may be in flight
 *    together; the executor applies each addition whole, which commutes;
 *  - it completes with rendezvous sends (a send finishing only when its receive does).
 *
 * Chunks. Where a kind splits the buffer into n parts, part c is
 * [coll_chunk_off(M, elem, n, c), coll_chunk_off(M, elem, n, c + 1)): whole elements, the first
 * (M/elem) mod n parts one element longer. With M < n * elem some parts are empty.
 *
 * Kinds (N = nranks; "all ranks" means each contribution exactly once):
 *  - ALLREDUCE: every rank ends with the element-wise sum over all ranks.
 *  - REDUCESCATTER: rank r ends with chunk r (of N) summed over all ranks; the rest of its
 *    buffer is unspecified.
 *  - ALLGATHER: rank r starts with its chunk r; every rank ends with every chunk j as rank j
 *    held it.
 *  - ALLTOALL: every rank has two buffers of M bytes, in and out, and M is a multiple of
 *    N * elem; block j is [j*M/N, (j+1)*M/N). A SEND reads `in`, a RECV (always COPY) writes
 *    `out`, which starts as a copy of `in`. Rank r's out block j ends as rank j's in block r;
 *    a SEND names its block for the peer (peer*M/N), the RECV the block of the sender.
 *
 * Algorithms and the kinds they build (anything else is -EINVAL):
 *  - RING: ALLREDUCE (reduce-scatter then all-gather, 2(N-1) rounds of M/N), ALLGATHER and
 *    REDUCESCATTER (N-1 rounds). Ring order is rank order.
 *  - HD: ALLREDUCE, any N >= 1 (see coll_hd.c for the non-power-of-two pairing).
 *  - PAIRWISE: ALLTOALL, N-1 rounds.
 *  - DIRECT: ALLTOALL, every block in flight at once (group: at most that many); and
 *    REDUCESCATTER, ALLGATHER, ALLREDUCE (at most 128 ranks) with every part sent
 *    straight to its owner, and the owner's part straight to every rank (coll_direct.c).
 *  - HIER_RING: ALLREDUCE; N = servers * group, rank = server * group + local index.
 *  - SHARD_RINGS: ALLREDUCE; N = dp * group, rank = replica * group + shard; ring i is
 *    {i, group + i, 2 * group + i, ...} and all-reduces its members' whole buffers.
 *  - HX_RINGS, TORUS2D: ALLREDUCE over a logical r x c torus, rank = row * group + column
 *    (HammingMesh §V-A2, traffic/coll_hx.h); every send goes to a torus neighbour.
 *  - MSCCL: any kind, as an MSCCL algorithm XML says (traffic/msccl/msccl.h), from coll_ext.
 *  - CHAKRA: a whole Chakra job (traffic/chakra/chakra.h) from coll_ext: its collectives (each
 *    built with the job's own algorithm over its group), sends, receives and computes (waits),
 *    in one order every pair of ranks lists alike. The kind is nominal; bytes is its largest
 *    operation's, which the lowering sets.
 *  - TACOS: ALLREDUCE, ALLGATHER and REDUCESCATTER as TACOS synthesized them (traffic/tacos.h) over
 * the job's NPUs, N * k chunks: only with the synthesis (coll_sched_build_ext); see coll_tacos.c.
 *  - MULTIDIM: ALLREDUCE, REDUCESCATTER and ALLGATHER over a P_0 x P_1 x ... platform
 *    (params.md, whose md.kind is the kind), rank = c_0 + P_0 (c_1 + P_1 (c_2 + ...)):
 *    md.chunks chunks, each a reduce-scatter stage per dimension then (all-reduce) an
 *    all-gather stage per dimension, or only one of the two halves, in the order and
 *    per-dimension sequence that Themis's planner (traffic/themis.h) gives; a step's phase is
 *    chunk * stages + the stage's index in its chunk (see coll_md.c). Its reduce-scatter and
 *    all-gather do not use the chunk-r layout above: rank r's share of chunk c is the part its
 *    coordinates select, dimension by dimension, in the order of the chunk's reduce-scatter
 *    stages (an all-gather's stages reversed); coll_md_owners names the owner of every
 *    element. */
#ifndef TRAFFIC_COLL_H
#define TRAFFIC_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/keyword.h"
#include "lib/diag.h"
#include "lib/vec.h"

#define COLL_MAX_RANKS 16384 /* keeps phases in 16 bits and step offsets in 32 */

enum coll_kind {
	COLL_ALLREDUCE,
	COLL_ALLGATHER,
	COLL_REDUCESCATTER,
	COLL_ALLTOALL,
};

enum coll_algo {
	COLL_RING, /* ring (reduce-scatter + all-gather for all-reduce) */
	COLL_HD, /* recursive halving-doubling, non-power-of-two by pre/post steps */
	COLL_PAIRWISE, /* pairwise exchange (all-to-all) */
	COLL_HIER_RING, /* two-level: intra-server ring, inter-server ring, intra-server ring */
	COLL_SHARD_RINGS, /* greedy routing: one ring per parameter shard across DP replicas */
	COLL_DIRECT, /* every part straight to its rank at once (HammingMesh §V-A1, TACOS's Direct)
		      */
	COLL_MULTIDIM, /* hierarchical per-dimension stages, Themis's chunk schedules */
	COLL_TACOS, /* synthesized over the topology by TACOS (traffic/tacos.h): coll_ext */
	COLL_HX_RINGS, /* HammingMesh: two rings on edge-disjoint Hamiltonian cycles, both ways */
	COLL_TORUS2D, /* HammingMesh: row, column, row on one half, transposed on the other */
	COLL_MSCCL, /* imported from an MSCCL algorithm XML (traffic/msccl/msccl.h): coll_ext */
	COLL_CHAKRA, /* a Chakra trace's whole job, lowered (traffic/chakra/chakra.h): coll_ext */
};

enum coll_op {
	COLL_SEND,
	COLL_RECV,
	COLL_LOCAL, /* within the rank: src onto off (imported MSCCL algorithms only) */
	COLL_WAIT, /* within the rank: a compute of len ns of the backend's time (Chakra only) */
};

/* Whether op is a step within its rank (no peer, no message): local or a wait. */
static inline bool coll_op_local(unsigned op)
{
	return op == COLL_LOCAL || op == COLL_WAIT;
}

#define COLL_F_COPY 0x1
#define COLL_F_REDUCE 0x2
#define COLL_F_SRC_SCRATCH 0x4 /* what the step reads is in the rank's scratch */
#define COLL_F_DST_SCRATCH 0x8 /* what it writes is */
#define COLL_F_SCRATCH (COLL_F_SRC_SCRATCH | COLL_F_DST_SCRATCH)

struct coll_step {
	uint8_t op; /* enum coll_op */
	/* RECV, LOCAL: COLL_F_COPY or COLL_F_REDUCE; SEND: 0; and the scratch bits of the side
	 * the step reads (SEND, LOCAL) and writes (RECV, LOCAL) */
	uint8_t flags;
	uint16_t phase; /* algorithm round, for records ("step" in flows.csv) */
	uint32_t peer; /* rank */
	uint64_t len; /* bytes, from off in the buffer: before off, so that what an executor reads
		       * of a step (its first 16 bytes) lies in one cache line */
	uint64_t off;
	uint32_t dep_off; /* dependencies: coll_sched.deps[dep_off .. dep_off+dep_n) */
	uint32_t dep_n;
	uint64_t src; /* LOCAL: where it reads len bytes (off is where it writes); else 0 */
};

/* A multi-dimensional platform and its chunk scheduling (COLL_MULTIDIM only). */
#define COLL_MD_DIMS 4
enum coll_md_sched { COLL_MD_BASELINE, COLL_MD_THEMIS }; /* Themis Table 3 */
enum coll_md_intra { COLL_MD_FIFO, COLL_MD_SCF }; /* Themis §4.3 */
enum coll_md_algo { COLL_MD_RING, COLL_MD_DIRECT, COLL_MD_HD }; /* per dimension */

struct coll_md_dim {
	uint32_t size; /* P_k, >= 2 */
	uint8_t algo; /* enum coll_md_algo */
	uint8_t active; /* chunk operations this dimension runs at once, >= 1 */
	uint16_t pad;
	/* B_k in bit/s: what a node sends on this dimension in all (the latency model's) */
	uint64_t rate;
};

struct coll_md {
	uint8_t ndims, sched, intra; /* sched: enum coll_md_sched; intra: enum coll_md_intra */
	uint8_t kind; /* enum coll_kind: ALLREDUCE, REDUCESCATTER or ALLGATHER */
	uint32_t chunks; /* C, >= 1 (the paper's default 64) */
	/* Themis's threshold: a chunk/thr_div reduce-scatter on the least-loaded dimension (16) */
	uint32_t thr_div;
	struct coll_md_dim dim[COLL_MD_DIMS];
};

/* Compact parameters: everything a rank needs to derive the whole schedule. */
struct coll_params {
	enum coll_kind kind;
	enum coll_algo algo;
	uint32_t nranks; /* 1 .. COLL_MAX_RANKS; one rank has no steps */
	uint64_t bytes; /* per-rank buffer size M, a multiple of elem */
	uint32_t elem; /* element size in bytes (4 for float); chunk edges are multiples */
	uint32_t group; /* HIER_RING: ranks per server; SHARD_RINGS: shards per replica;
			 * DIRECT: sends in flight per rank, 0 = all */
	struct coll_md md; /* MULTIDIM: the platform and the scheduler; zero otherwise */
	/* MSCCL: bytes of scratch each rank has besides its buffers (the algorithm's s), set
	 * by the schedule's reading; 0 otherwise */
	uint64_t scratch;
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

/* Builds the schedule for p into s (all ranks; s is overwritten, not freed). Returns 0,
 * -EINVAL for a combination that does not exist (the message says which), or -ENOMEM; on
 * error s is left empty. Release with coll_sched_done. */
int coll_sched_build(const struct coll_params *p, struct coll_sched *s, struct diag *d);
/* Same, but builds only rank's steps: s->ranks has every rank's entry, all empty but rank's,
 * which reads as in the full build (steps, dependencies) at a fraction of its memory. Also
 * -EINVAL for a rank out of range. */
int coll_sched_build_rank(const struct coll_params *p, uint32_t rank, struct coll_sched *s,
			  struct diag *d);

struct tacos_result;
struct chakra_job;

/* What an algorithm needs besides its parameters: TACOS's synthesis, made once by the
 * orchestrator over the job's NPUs (for a rank, its own sends suffice). */
struct coll_ext {
	const struct tacos_result *tacos;
	const char *msccl; /* MSCCL: the algorithm XML, msccl_len bytes */
	size_t msccl_len;
	const struct chakra_job *chakra; /* CHAKRA: the trace's job, lowered by chakra_lower */
};

/* coll_sched_build and coll_sched_build_rank with x (NULL: none). TACOS without x->tacos,
 * MSCCL without x->msccl and CHAKRA without x->chakra are -EINVAL; the other algorithms
 * ignore x. Those three build every rank, also for one. */
int coll_sched_build_ext(const struct coll_params *p, const struct coll_ext *x,
			 struct coll_sched *s, struct diag *d);
int coll_sched_build_rank_ext(const struct coll_params *p, const struct coll_ext *x, uint32_t rank,
			      struct coll_sched *s, struct diag *d);
/* Same for the ranks [lo, hi) (lo < hi <= p->nranks, else -EINVAL): each reads as in the full
 * build, the others' entries are empty. */
int coll_sched_build_range_ext(const struct coll_params *p, const struct coll_ext *x, uint32_t lo,
			       uint32_t hi, struct coll_sched *s, struct diag *d);
/* Whether p's algorithm builds a range of ranks alone; TACOS and MSCCL build every rank. */
bool coll_sched_ranged(const struct coll_params *p);
void coll_sched_done(struct coll_sched *s);

/* Bytes rank sends in total over the whole schedule (0 for a rank out of range). */
uint64_t coll_sched_bytes_sent(const struct coll_sched *s, uint32_t rank);

/* Byte offset where part c of n starts when `bytes` is cut into n parts of whole elements,
 * the first (bytes/elem) mod n parts one element longer; c == n gives bytes. */
uint64_t coll_chunk_off(uint64_t bytes, uint32_t elem, uint32_t n, uint32_t c);

/* The nccl-tests bus-bandwidth factor for the kind: busbw = algbw * factor
 * (all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; 0 for n == 0). */
double coll_busbw_factor(enum coll_kind kind, uint32_t nranks);
/* The ranks each rank's buffer is reduced or exchanged among, the n of that factor: nranks,
 * but nranks / group under shard-rings (each shard's ring of replicas). */
uint32_t coll_busbw_ranks(enum coll_algo algo, uint32_t nranks, uint32_t group);

/* The share of its n - 1 peers a rank of an all-to-all under algo sends to at once, as the
 * schedules are built (coll_a2a.c): `group` of them under direct (all when 0 or at least
 * n - 1), one under pairwise; 0 for an algorithm whose all-to-all relays through other ranks. */
double coll_a2a_concurrent(enum coll_algo algo, uint32_t nranks, uint32_t group);

/* Whether the orchestrator makes a's schedules (TACOS's synthesis) and ships each rank its
 * slice, rather than every rank building its own from the parameters (traffic/coll_ship.c). */
bool coll_algo_shipped(enum coll_algo a);
/* Rank's dependencies in s, all its steps' (the slice's deps length). */
uint32_t coll_sched_rank_deps(const struct coll_sched *s, uint32_t rank);
/* Rank's steps of s into steps[] (its step_n) and their dependencies into deps[]
 * (coll_sched_rank_deps), each step's dep_off counting from the slice's first. */
void coll_sched_rank_slice(const struct coll_sched *s, uint32_t rank, struct coll_step *steps,
			   uint32_t *deps);
/* A schedule holding only rank's shipped slice (the other ranks empty), for p; the slice is
 * checked first (operations, flags, peers, byte ranges inside the buffer, dependencies on
 * earlier steps only): 0, -EINVAL naming the first bad step, or -ENOMEM. */
int coll_sched_from_rank(const struct coll_params *p, uint32_t rank, const struct coll_step *steps,
			 uint32_t nsteps, const uint32_t *deps, uint32_t ndeps,
			 struct coll_sched *out, struct diag *d);

/* The alpha-beta time of s in seconds (traffic/coll_time.c): every rank pair joined by its
 * own link of bps bit/s, a message taking alpha + bytes / rate, a pair's messages one after
 * another, each step after its dependencies. NAN on ENOMEM or sends and receives that do not
 * pair up; INFINITY if the schedule cannot complete. */
double coll_sched_alpha_beta(const struct coll_sched *s, double alpha, double bps);

/* Proves s (traffic/coll_prove.c): every step well formed; sends and receives matched per
 * connection (FIFO, same length, the same offset but in all-to-all); no deadlock with
 * rendezvous sends; no race (two accesses to the same bytes of one rank, not both reads nor
 * both reductions, that dependencies, FIFO order and causality leave unordered, under any
 * order they allow); and, run on symbolic values, every rank ends with exactly what s's kind
 * defines (each contribution reduced once, each chunk delivered once, no unfinished data
 * copied on). 0; or -EINVAL with the first problem in d and, in *where (if not NULL), the
 * global index of the step it is about (UINT32_MAX when none is: a missing result); or
 * -ENOMEM. The race check costs the happens-before edges times one rank's events / 64 times
 * the ranks; beyond 3e9 (a second or so) the schedule is refused as too large to prove. */
int coll_prove(const struct coll_sched *s, uint32_t *where, struct diag *d);

/* MULTIDIM reduce-scatter and all-gather (coll.h "Algorithms"): owner[i] is the rank whose
 * share element i is, for the bytes/elem elements of p's buffer (caller's array). 0, or
 * -EINVAL for parameters coll_sched_build refuses, or -ENOMEM. */
int coll_md_owners(const struct coll_params *p, uint32_t *owner, struct diag *d);

/* Names for scenarios and records ("allreduce", "ring"); parsing returns -EINVAL if unknown. */
/* The collective kinds' names (the scenario's workload.kind spellings), and one kind's. */
extern const struct keyword coll_kind_names[];
const char *coll_kind_name(enum coll_kind k);
const char *coll_algo_name(enum coll_algo a);
int coll_kind_parse(const char *s, enum coll_kind *out);
int coll_algo_parse(const char *s, enum coll_algo *out);

/* Whether algorithm a builds collective kind k (ring: all-reduce, all-gather and
 * reduce-scatter; pairwise: all-to-all; direct: all four; multidim: all but all-to-all;
 * tacos: all but all-to-all; the others all-reduce). */
bool coll_algo_builds(enum coll_algo a, enum coll_kind k);

/* The algorithm a job of kind k runs when the one it inherits does not build k: pairwise
 * for all-to-all, ring for the others. */
enum coll_algo coll_algo_default(enum coll_kind k);

#endif
