/* SPDX-License-Identifier: MIT */
/* MLCommons Chakra execution traces (ET), the workload format ASTRA-sim 2.0 reads: one file per
 * rank, PREFIX.<rank>.et, each a stream of varint-length-delimited messages (et_def.proto): a
 * GlobalMetadata, then Nodes. This folder reads them into a compact graph per rank and checks
 * the job they make (chakra_graph.c). Pure: the caller reads the files' bytes.
 *
 * Read of a node: its id, name, type, data_deps and ctrl_deps (both are waited for),
 * duration_micros, and these attributes (any integer kind for the integers):
 *   is_cpu_op (bool), num_ops, tensor_size, comm_type, comm_size, comm_src, comm_dst, comm_tag,
 *   involved_dim (a bool list), pg_name (a string: "" or "0" is every rank).
 * Ignored: start_time_micros, inputs and outputs (but a METADATA_NODE's inputs, which may
 * declare process groups: kept as text), the attributes comm_priority and tensor_loc, the
 * PyTorch converter's bookkeeping (rf_id, fw_parent, seq_id, scope, tid, fw_tid, op_schema),
 * every attribute of a METADATA_NODE, and the GlobalMetadata's attributes. Anything else is
 * refused at its node (file, node id, name). */
#ifndef TRAFFIC_CHAKRA_H
#define TRAFFIC_CHAKRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "traffic/coll.h"

enum chakra_kind {
	CHAKRA_COMP, /* COMP_NODE: its duration, or num_ops and tensor_size */
	CHAKRA_COLL, /* COMM_COLL_NODE: a collective over its process group */
	CHAKRA_SEND, /* COMM_SEND_NODE: comm_size bytes to comm_dst, tagged */
	CHAKRA_RECV, /* COMM_RECV_NODE: from comm_src */
	CHAKRA_LOAD, /* MEM_LOAD_NODE: no network time; its duration if given */
	CHAKRA_STORE, /* MEM_STORE_NODE: likewise */
	CHAKRA_META, /* METADATA_NODE: no time */
	CHAKRA_KINDS,
};

/* comm_type's values, as the schema numbers them. */
enum chakra_coll {
	CHAKRA_ALL_REDUCE = 0,
	CHAKRA_REDUCE = 1,
	CHAKRA_ALL_GATHER = 2,
	CHAKRA_GATHER = 3,
	CHAKRA_SCATTER = 4,
	CHAKRA_BROADCAST = 5,
	CHAKRA_ALL_TO_ALL = 6,
	CHAKRA_REDUCE_SCATTER = 7,
	CHAKRA_REDUCE_SCATTER_BLOCK = 8,
	CHAKRA_BARRIER = 9,
	CHAKRA_COLLS,
};

enum {
	CHAKRA_F_CPU = 1 << 0, /* is_cpu_op */
	CHAKRA_F_DURATION = 1 << 1, /* duration_micros given (non-zero) */
	CHAKRA_F_SIZE = 1 << 2, /* comm_size given */
	CHAKRA_F_TAG = 1 << 3, /* comm_tag given */
	CHAKRA_F_PEER = 1 << 4, /* the peer (comm_dst of a send, comm_src of a recv) given */
};

/* One node, compact (a trace may hold millions). */
struct chakra_node {
	uint64_t id;
	uint64_t duration_us; /* duration_micros */
	uint64_t bytes; /* comm_size (collective, send, receive) */
	uint64_t num_ops, tensor_size; /* compute (or memory: tensor_size) */
	uint32_t name; /* offset of its name in the rank's names */
	uint32_t pg; /* offset of its pg_name in names (0: "", every rank) */
	uint32_t dep, ndeps; /* its parents: deps[dep .. dep + ndeps), node indices */
	int32_t peer; /* send: comm_dst; receive: comm_src; -1: not given */
	int32_t tag; /* comm_tag */
	uint16_t dims; /* involved_dim as bits (bit d: dimension d); 0xffff: not given (all) */
	uint8_t kind; /* enum chakra_kind */
	uint8_t coll; /* enum chakra_coll (CHAKRA_COLL) */
	uint8_t flags; /* CHAKRA_F_* */
};

/* One rank's file, read. */
struct chakra_rank {
	char version[32]; /* GlobalMetadata.version as written ("" when unset) */
	VEC(struct chakra_node) nodes; /* in file order */
	VEC(uint32_t) deps; /* the nodes' parents, as indices into nodes */
	VEC(char) names; /* NUL-terminated strings; offset 0 is "" */
	VEC(uint32_t) meta; /* offsets in names of METADATA_NODEs' inputs.values, in file order */
};

/* The node kinds' and collectives' names as the schema writes them ("COMP_NODE",
 * "ALL_REDUCE"). */
const char *chakra_kind_name(enum chakra_kind k);
const char *chakra_coll_name(enum chakra_coll c);

/* A name or pg_name of r (an offset into r->names). */
static inline const char *chakra_str(const struct chakra_rank *r, uint32_t off)
{
	return r->names.v + off;
}

/* The file's bytes (len of them, file naming it in messages) into *r: every node, its
 * dependencies resolved to indices. 0, or -EINVAL with d set at the message or node that is
 * not a trace we can mean ("file: node 12 (name): ..."), or -ENOMEM. r is the caller's to
 * chakra_rank_done either way. */
int chakra_read(const uint8_t *buf, size_t len, const char *file, struct chakra_rank *r,
		struct diag *d);
void chakra_rank_done(struct chakra_rank *r);

/* ---- the job the ranks make (chakra_graph.c) ---- */

/* What a trace holds, for `testbed check`. */
struct chakra_stats {
	uint64_t nodes[CHAKRA_KINDS];
	uint64_t colls[CHAKRA_COLLS];
	uint64_t coll_bytes, p2p_bytes; /* over every rank: collectives' comm_size, sends' */
	uint64_t pairs; /* send/receive pairs matched */
	uint64_t deps; /* dependencies */
};

/* What joins the ranks' nodes: each collective's instance (the group's k-th collective, one
 * node on each member) and each send/receive pair. Nodes are numbered over the job: rank r's
 * node i is base[r] + i. */
struct chakra_links {
	uint32_t *base; /* [rank], and base[n]: the job's nodes */
	uint32_t *id; /* [node]: its instance (< ninst) or ninst + its pair; UINT32_MAX: neither */
	uint32_t *need; /* [instance]: its members */
	size_t ninst, npairs;
};
void chakra_links_done(struct chakra_links *l);
/* The rank of the job's node g (of n ranks). */
uint32_t chakra_links_rank(const struct chakra_links *l, size_t n, uint32_t g);

/* Checks the n ranks (files[i] naming rank i in messages; NULL: "rank i") as one job: in
 * every rank no cycle (-EINVAL naming a node on it); each process group's collectives (in file
 * order on each member, the members being the ranks that name the group, every rank for "")
 * the same kinds and sizes on every member; every send's comm_dst and receive's comm_src a
 * rank of the job other than its own, and the k-th send from a to b with tag t paired with the
 * k-th receive at b from a with tag t, of the same size; and the job able to finish
 * (chakra_finishes). *st filled, and *l if not NULL (the caller's to chakra_links_done when
 * 0). 0, -EINVAL with d set, or -ENOMEM. */
int chakra_check(const struct chakra_rank *ranks, size_t n, const char *const *files,
		 struct chakra_stats *st, struct chakra_links *l, struct diag *d);

/* ---- running the job (chakra_run.c): what may start next ---- */

/* An operation that may start: one node (compute, memory, metadata), a collective's instance
 * (its node on every member), or a send with its receive. */
struct chakra_op {
	uint8_t kind; /* CHAKRA_COLL: an instance; CHAKRA_SEND: a pair; else the node's kind */
	uint32_t node; /* the job's node (chakra_links numbering): it, the first member, the send */
	uint32_t id; /* the instance or pair (chakra_links.id); UINT32_MAX for one node */
};

/* A job in progress: which nodes wait for how many parents, which instances and pairs wait for
 * how many members, the operations ready and not yet taken. */
struct chakra_run {
	const struct chakra_rank *ranks;
	size_t n;
	const struct chakra_links *l;
	uint32_t *start, *child; /* the job's nodes' children, as CSR */
	uint32_t *wait; /* [node]: parents not done */
	uint32_t *at, *have; /* [instance or pair]: its members' room in members[], and how many */
	uint32_t *members;
	VEC(struct chakra_op) ready;
	size_t head; /* ready[head ..) not yet taken */
	size_t done, ndeps;
};

/* The job of the n ranks, as chakra_check linked them (l, kept until chakra_run_done), its
 * first operations ready. 0 or -ENOMEM. */
int chakra_run_init(struct chakra_run *x, const struct chakra_rank *ranks, size_t n,
		    const struct chakra_links *l);
/* The next operation that may start, in the order they became ready: true with *op, or
 * false when none is ready now. */
bool chakra_run_next(struct chakra_run *x, struct chakra_op *op);
/* The job's nodes op is made of (n of them): the node, every member's, the send's and the
 * receive's. */
const uint32_t *chakra_run_members(const struct chakra_run *x, const struct chakra_op *op,
				   size_t *n);
/* op ended: its nodes done, the operations that waited only for them ready. 0 or -ENOMEM. */
int chakra_run_ended(struct chakra_run *x, const struct chakra_op *op);
/* Every node done. */
bool chakra_run_finished(const struct chakra_run *x);
void chakra_run_done(struct chakra_run *x);

/* Whether the job finishes, every operation ending as it starts: 0, or -EINVAL naming a node
 * that became ready and waits for a collective or a send/receive pair whose other side never
 * does (a cycle through other ranks), or -ENOMEM. chakra_check calls it. */
int chakra_finishes(const struct chakra_rank *ranks, size_t n, const struct chakra_links *l,
		    const char *const *files, struct diag *d);

/* ---- the job's time with nothing shared (chakra_time.c) ---- */

/* How long op takes (ns): the caller's model (a compute node's duration, a collective's
 * alpha-beta time over its members). */
typedef uint64_t (*chakra_cost_fn)(void *arg, const struct chakra_run *x,
				   const struct chakra_op *op);

struct chakra_step {
	struct chakra_op op;
	uint64_t start_ns, end_ns;
};

/* The critical path: the operations that made the job as long as it is, first to last, each
 * starting when the one before it ended (or at 0), and the job's end. */
struct chakra_path {
	uint64_t end_ns;
	VEC(struct chakra_step) steps;
};

/* The job run with every operation starting the moment it may (chakra_run) and taking
 * cost(op), nothing shared between operations: its end is the length of its critical path, and
 * *out that path. 0, -EDEADLK (a job chakra_check refuses), or -ENOMEM. */
int chakra_time(const struct chakra_rank *ranks, size_t n, const struct chakra_links *l,
		chakra_cost_fn cost, void *arg, struct chakra_path *out);
void chakra_path_done(struct chakra_path *p);

/* ---- the job as one schedule (chakra_lower.c) ---- */

/* A checked job and how a backend runs it. */
struct chakra_job {
	const struct chakra_rank *ranks;
	size_t n;
	const struct chakra_links *l; /* chakra_check's */
	/* each collective's algorithm, element size and group (its kind, ranks and bytes are the
	 * node's); an algorithm that does not build a node's kind gives way to
	 * coll_algo_default's */
	struct coll_params coll;
	double size_mul; /* the backend's bytes per trace byte (emulation.size_scale) */
	double time_mul; /* the backend's ns per trace ns (the emulation's dilation) */
	double flops; /* a GPU's operations per second, for a compute node with num_ops alone */
	/* every operation in a region of its own of each member's buffer, so that its result
	 * can be checked (workload.verify); else every operation at the buffer's start */
	bool regions;
};

/* What a region of a rank's buffer holds at the end, of its members' regions (member 0 the
 * root of a broadcast or reduce): the element-wise sum of every member's (all-reduce), of
 * one's own part (reduce-scatter: part `index` of nmembers, coll_chunk_off's cut), every
 * member's part as it held it (all-gather), every member's block for this rank in the second
 * half (all-to-all: the region is 2 len, `in` then `out`), member 0's (broadcast; a send and
 * its receive are one of two members), the sum at member 0 and its own elsewhere (reduce). */
enum chakra_rkind {
	CHAKRA_R_ALLREDUCE,
	CHAKRA_R_REDUCESCATTER,
	CHAKRA_R_ALLGATHER,
	CHAKRA_R_ALLTOALL,
	CHAKRA_R_BROADCAST,
	CHAKRA_R_REDUCE,
	CHAKRA_R_KINDS,
};

/* One operation's region of one rank's buffer (regions). Fixed layout: emu-node gets its
 * rank's in CTL_JOB (emu-node/ctl.h). */
struct chakra_region {
	uint64_t base, len; /* bytes */
	uint32_t member_off, nmembers; /* its members, in chakra_maps.members */
	uint32_t index; /* this rank's among them */
	uint8_t kind; /* enum chakra_rkind */
	uint8_t pad[3];
};

/* A member of an operation: its rank and the base of its region. */
struct chakra_member {
	uint32_t rank;
	uint32_t pad;
	uint64_t base;
};

/* What the lowering tells besides the schedule: each step's node (the job's numbering), and
 * under regions each rank's regions (region_off[r] .. region_off[r + 1]) and their members. */
struct chakra_maps {
	uint32_t *step_node;
	uint32_t *region_off; /* n + 1 */
	VEC(struct chakra_region) regions;
	VEC(struct chakra_member) members;
};
void chakra_maps_done(struct chakra_maps *m);

/* The bytes an operation of `bytes` in the trace moves in the backend over m ranks (an
 * all-to-all's: a multiple of m elements; else whole elements; never less than one each). */
uint64_t chakra_op_bytes(const struct chakra_job *j, uint64_t bytes, enum chakra_coll c,
			 uint32_t m);

/* The job as one schedule over its n ranks (coll.h, COLL_CHAKRA), in the order chakra_run
 * starts its operations when each ends as it starts, so that every pair of ranks lists its
 * messages alike: a collective's instance as its algorithm's steps over its members (in rank
 * order: member k is the group's k-th lowest rank; BROADCAST from the lowest rank to the
 * others, REDUCE to it, BARRIER a one-element all-reduce), a send and its receive as one
 * message, a compute, memory or metadata node as a WAIT of its duration (or num_ops / flops;
 * none for no time, or a WAIT of 0 joining its parents); each step after the steps that end
 * its node's parents. The buffer is the largest operation's bytes, or under regions the most
 * any rank's regions take (an all-to-all's own block then copied by a LOCAL step). *maps, if
 * not NULL, is filled (chakra_maps_done it). 0, -EINVAL with d set (a compute with num_ops
 * alone and no flops, a collective its algorithm refuses, too many ranks), or -ENOMEM. */
int chakra_lower(const struct chakra_job *j, struct coll_sched *s, struct chakra_maps *maps,
		 struct diag *d);

/* A compute, memory or metadata node's time in the backend (ns): its duration_micros, or a
 * compute's num_ops / flops, times time_mul; -1 for a compute of num_ops alone and no rate. */
double chakra_node_ns(const struct chakra_job *j, const struct chakra_node *n);
/* The parameters collective node nd runs with over m ranks; *kind the collective kind, -1 for
 * BROADCAST and REDUCE (written by hand: one message each from or to the lowest member). */
struct coll_params chakra_coll_params(const struct chakra_job *j, const struct chakra_node *nd,
				      uint32_t m, int *kind);

/* The job's critical path with nothing shared (chakra_time) at the costs chakra_lower's
 * schedule has in the alpha-beta model: a compute its time, a collective its schedule's
 * alpha-beta time over its members (coll_sched_alpha_beta: every pair its own link of bps
 * bit/s, alpha s per message), BROADCAST and REDUCE their messages one after another, a send
 * alpha + bytes / bps. 0, -EINVAL (what chakra_lower refuses), -EDEADLK or -ENOMEM. */
int chakra_ideal(const struct chakra_job *j, double alpha, double bps, struct chakra_path *out);

#endif
