/* SPDX-License-Identifier: MIT */
/* The control protocol between the runner (run/emu/) and one emu-node, over a
 * SOCK_SEQPACKET socketpair: every message is one packet that starts with struct ctl_hdr.
 * Fixed-size little-endian structs (both ends are the same binary's build on one machine).
 *
 * A run, as one emu-node sees it:
 *   runner -> CTL_HELLO            who it is, where to listen
 *   node   -> CTL_READY            listening socket bound; root privileges dropped
 *   runner -> CTL_JOB              one rank of one job; a node runs at most one job at a time
 *   node   -> CTL_PHASE            (routing.trigger phase) an iteration's collective began
 *   node   -> CTL_REC_FLOWS ...    flow records, a batch per iteration
 *   node   -> CTL_REC_ITER ...     one per iteration
 *   node   -> CTL_DONE             the rank finished (or failed: status < 0, reason)
 *   runner -> CTL_TAG              (any time) new DSCP path tag toward a peer of the job, or
 *                                  (routing.enforce sport) a new source port for the pair
 *   runner -> CTL_ABORT            stop the current job (another rank failed); node answers
 *                                  CTL_DONE with status -ECANCELED
 *   runner -> CTL_STOP             exit (0)
 * Any node-side failure outside a job is reported as CTL_ERROR, then the node exits(1).
 *
 * Data connections: every pair of ranks that exchange data in the job's schedule shares one
 * TCP connection; the lower rank connects to the higher rank's listening port and first
 * sends struct ctl_conn_hello. Sends on a connection go out in schedule order, receives are
 * taken in schedule order (FIFO per direction, as traffic/coll.h requires). The connecting
 * rank binds the source port flow_sport() names (traffic/sport.h), so that a job's flows hash the
 * same way on every run of a scenario (ECMP collisions repeat with the seed). */
#ifndef EMU_CTL_H
#define EMU_CTL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"

#include "traffic/chakra/chakra.h"
#include "traffic/coll.h"
#include "traffic/plan.h"
#include "traffic/sport.h"

#define CTL_VERSION 5 /* 5: a Chakra job's regions (verify) after its steps */
#define CTL_MAX_MSG (256 * 1024) /* largest packet either side sends */
#define CTL_REASON_MAX 160
#define CTL_FLOWS_MAX 512 /* flow records per CTL_REC_FLOWS packet */

enum ctl_type {
	CTL_HELLO = 1,
	CTL_READY,
	CTL_JOB,
	CTL_TAG,
	CTL_ABORT,
	CTL_STOP,
	CTL_REC_ITER,
	CTL_REC_FLOWS,
	CTL_DONE,
	CTL_ERROR,
	CTL_PHASE,
};

struct ctl_hdr {
	uint16_t type;
	uint16_t version; /* CTL_VERSION */
	uint32_t len; /* bytes of the whole packet, header included */
};

struct ctl_hello {
	struct ctl_hdr h;
	uint32_t node; /* topology node id */
	uint32_t addr; /* the endpoint's address, host byte order */
	uint16_t port; /* TCP port to listen on (every node uses the same) */
	uint16_t pad;
	uint32_t uid, gid; /* to drop to once listening (0 = stay) */
	char name[16]; /* node name, for messages */
};

struct ctl_ready {
	struct ctl_hdr h;
	uint32_t node;
};

/* A peer of this rank: its address and the DSCP path tag to put on the connection, and the
 * source port to bind it to (the lower rank, routing.enforce sport; 0: flow_sport's). */
struct ctl_peer {
	uint32_t addr; /* host byte order */
	uint8_t tag; /* 0 = ECMP hash, 1..63 = DSCP path tag (an ECMP group's member tag-1) */
	uint8_t pad;
	uint16_t sport;
};

#define CTL_VERIFY_ON 0x1
/* Test-only fault (TESTBED_TEST_VERIFY_FAULT, tests/integration/t_emu_verify.sh): this rank
 * adds one to one element of its result before checking it, so the check must catch it. */
#define CTL_VERIFY_FAULT 0x2

struct ctl_job {
	struct ctl_hdr h;
	uint32_t job;
	uint32_t rank;
	struct coll_params coll; /* nranks, bytes (emulated), kind, algo, elem, group */
	uint32_t iterations;
	uint32_t verify; /* CTL_VERIFY_*: carry real floats and check the result */
	uint32_t moves; /* routing.enforce sport: connections may move to new source ports */
	uint32_t phases; /* routing.trigger phase: say when each collective begins (CTL_PHASE) */
	uint32_t channels; /* connections per peer, 1 .. COLL_CHANNELS_MAX (traffic/plan.h) */
	uint32_t pad;
	uint64_t compute_ns; /* compute phase per iteration, emulated time */
	uint64_t start_ns; /* CLOCK_MONOTONIC instant of the first iteration's start */
	uint64_t progress_ns; /* fail the job if no step completes for this long (0 = never) */
	/* a schedule the orchestrator made (coll_algo_shipped: TACOS's synthesis): this rank's
	 * nsteps steps and their ndeps dependencies after the peers, dep_off counting from the
	 * first of these; 0 and 0 for the schedules a rank builds from coll itself */
	uint32_t nsteps, ndeps;
	/* a Chakra job under verify: this rank's nregions regions of its buffer and the
	 * nmembers members they name (member_off counting from the first of these), after the
	 * dependencies at the next multiple of 8 bytes (traffic/chakra/chakra.h) */
	uint32_t nregions, nmembers;
	struct ctl_peer peers[]; /* coll.nranks entries, indexed by rank (own entry unused) */
};

struct ctl_tag {
	struct ctl_hdr h;
	uint32_t job;
	uint32_t peer; /* rank */
	uint8_t tag;
	uint8_t pad;
	uint16_t sport; /* the lower rank: move the connection to this source port (0: stay) */
};

struct ctl_phase {
	struct ctl_hdr h;
	uint32_t job, rank, iter;
	uint32_t pad;
};

struct ctl_abort {
	struct ctl_hdr h;
	uint32_t job;
};

struct ctl_rec_iter {
	struct ctl_hdr h;
	uint32_t job, rank, iter;
	uint32_t pad;
	uint64_t t_start; /* compute phase began */
	uint64_t t_compute_end; /* collective began */
	uint64_t t_end; /* collective finished on this rank */
};

/* One step of the schedule as this rank saw it. The collector joins a SEND record with the
 * RECV record of the same (job, iter, src, dst, seq) to get the flow's completion time. */
struct ctl_flow {
	uint32_t iter;
	uint32_t src, dst; /* ranks */
	uint32_t seq; /* k-th message from src to dst in this iteration */
	uint16_t phase; /* algorithm round (coll_step.phase) */
	/* COLL_SEND, COLL_RECV, or COLL_LOCAL or COLL_WAIT (no message: not in flows.csv) */
	uint8_t dir;
	uint8_t tag; /* DSCP tag the connection carried */
	uint32_t pad;
	uint64_t bytes;
	uint64_t t_start; /* SEND: issued; RECV: posted */
	uint64_t t_end; /* SEND: last byte handed to the kernel; RECV: last byte received */
};

struct ctl_rec_flows {
	struct ctl_hdr h;
	uint32_t job, rank;
	uint32_t n;
	uint32_t first; /* the step of flows[0]: flows[i] is step first + i's */
	struct ctl_flow flows[]; /* n <= CTL_FLOWS_MAX */
};

struct ctl_done {
	struct ctl_hdr h;
	uint32_t job, rank;
	int32_t status; /* 0, or -errno */
	uint32_t verified; /* 1: verify on and the result was right; 0 otherwise */
	uint64_t t_end;
	char reason[CTL_REASON_MAX]; /* why it failed, for the records */
};

struct ctl_error {
	struct ctl_hdr h;
	int32_t err;
	char reason[CTL_REASON_MAX];
};

/* The first bytes on every data connection, from the connecting (lower) rank. */
struct ctl_conn_hello {
	uint32_t magic; /* CTL_CONN_MAGIC */
	uint32_t job;
	uint32_t rank; /* the connecting rank */
	uint32_t gen; /* 0: the first socket; k: the k-th move's (routing.enforce sport) */
	uint32_t chan; /* which of the pair's `channels` connections this is */
};

#define CTL_CONN_MAGIC 0x74626e31u /* "tbn1" */

/* Size of a CTL_JOB packet for nranks ranks. */
static inline uint32_t ctl_job_len(uint32_t nranks)
{
	return (uint32_t)(sizeof(struct ctl_job) + nranks * sizeof(struct ctl_peer));
}

/* Size of a CTL_JOB packet for nranks ranks with a shipped schedule of nsteps steps and ndeps
 * dependencies (64-bit: counts from a packet may be anything). */
static inline uint64_t ctl_job_len_steps(uint32_t nranks, uint64_t nsteps, uint64_t ndeps)
{
	return ctl_job_len(nranks) + nsteps * sizeof(struct coll_step) + ndeps * sizeof(uint32_t);
}

/* Size of a CTL_JOB packet with, besides, nregions regions and nmembers members. */
static inline uint64_t ctl_job_len_all(uint32_t nranks, uint64_t nsteps, uint64_t ndeps,
				       uint64_t nregions, uint64_t nmembers)
{
	uint64_t n = ctl_job_len_steps(nranks, nsteps, ndeps);

	if (!nregions && !nmembers)
		return n;
	return (n + 7) / 8 * 8 + nregions * sizeof(struct chakra_region) +
	       nmembers * sizeof(struct chakra_member);
}

/* A CTL_JOB's shipped steps, and after them their dependencies. */
static inline const struct coll_step *ctl_job_steps(const struct ctl_job *m)
{
	return (const struct coll_step *)(const void *)(m->peers + m->coll.nranks);
}

static inline const uint32_t *ctl_job_deps(const struct ctl_job *m)
{
	return (const uint32_t *)(const void *)(ctl_job_steps(m) + m->nsteps);
}

/* Its regions, and after them their members. */
static inline const struct chakra_region *ctl_job_regions(const struct ctl_job *m)
{
	uint64_t n = ctl_job_len_steps(m->coll.nranks, m->nsteps, m->ndeps);

	return (const struct chakra_region *)(const void *)((const char *)m + (n + 7) / 8 * 8);
}

static inline const struct chakra_member *ctl_job_members(const struct ctl_job *m)
{
	return (const struct chakra_member *)(const void *)(ctl_job_regions(m) + m->nregions);
}

/* The checks every control packet passes in either direction, before its type's own: whole
 * header, this protocol version, the length it says it has. 0 or -EBADMSG/-EPROTO with d set. */
static inline int ctl_check_hdr(const void *buf, size_t n, struct diag *d)
{
	const struct ctl_hdr *h = buf;

	if (n < sizeof(*h))
		return diag_set(d, -EBADMSG, "control packet of %zu bytes", n);
	if (h->version != CTL_VERSION)
		return diag_set(d, -EPROTO, "control protocol version %u, expected %u", h->version,
				CTL_VERSION);
	if (h->len != n)
		return diag_set(d, -EBADMSG, "control packet of %zu bytes says it has %u", n,
				h->len);
	return 0;
}

/* The value each element of rank r's buffer starts with in verify mode (integer-valued so
 * sums are exact in float): element i of rank r. */
static inline float ctl_verify_value(uint32_t rank, uint64_t i)
{
	return (float)((rank * 131u + (uint32_t)(i % 1021u)) % 4093u);
}

#endif
