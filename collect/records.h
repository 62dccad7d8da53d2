/* SPDX-License-Identifier: MIT */
/* Raw records of a run, as the runner writes them to the results folder and the collector
 * reads them back (`testbed report DIR` needs no root and no testbed). Times are emulated
 * nanoseconds since the run's start; paper-equivalent times divide by the dilation D
 * (run.dilation). Pure: CSV lines are built into and parsed from caller buffers. */
#ifndef COLLECT_RECORDS_H
#define COLLECT_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/vec.h"
#include "traffic/coll.h"

#define REC_NAME_MAX 24
#define REC_REASON_MAX 160
#define REC_PLACEMENT_MAX 256
#define REC_NEVER INT64_MIN /* a time that never came (a job that never started) */

enum rec_status {
	REC_OK,
	REC_FAILED, /* reason says why */
	REC_NOT_STARTED, /* still waiting when the run ended */
	REC_CANCELLED, /* stopped by Ctrl-C */
};

/* jobs.csv: one row per job. */
struct rec_job {
	uint32_t id;
	char model[REC_NAME_MAX];
	uint32_t gpus;
	enum coll_kind kind;
	enum coll_algo algo;
	uint32_t iterations;
	uint64_t bytes; /* per-rank collective size, emulated bytes */
	uint64_t compute_ns; /* per-iteration compute, emulated */
	int64_t arrival; /* when it arrived, was placed, finished (REC_NEVER if not) */
	int64_t start;
	int64_t finish;
	enum rec_status status;
	uint32_t verified; /* verify mode on and every rank's result right */
	char reason[REC_REASON_MAX];
	/* node names in rank order, ';'-separated ("h0;h1;h4"), cut short with "..." past
	 * REC_PLACEMENT_MAX - 1 characters */
	char placement[REC_PLACEMENT_MAX];
	/* hier-ring: ranks per server; shard-rings: shards per replica (each shard's ring of
	 * gpus / group replicas reduces it: the busbw factor's n, coll_busbw_ranks); else 0. A
	 * folder written before this column reads as 0 */
	uint32_t group;
};

/* iterations.csv: one row per (job, rank, iteration). */
struct rec_iter {
	uint32_t job, rank, iter;
	int64_t t_start; /* compute began */
	int64_t t_compute_end; /* collective began */
	int64_t t_end; /* collective finished on this rank */
};

/* flows.csv: one row per message of a collective, the sender's and the receiver's records
 * joined: start = the sender issued it, end = the receiver got its last byte. */
struct rec_flow {
	uint32_t job, iter;
	uint32_t src, dst; /* ranks */
	uint32_t src_node, dst_node; /* topology node ids */
	uint32_t seq; /* k-th message src -> dst in the iteration */
	uint32_t phase; /* algorithm round */
	uint64_t bytes;
	int64_t t_start, t_end;
	uint32_t tag; /* DSCP path tag, 0 = hash */
};

/* links.csv: counters of one link direction (the egress of one port) at one instant. */
struct rec_sample {
	int64_t t;
	uint32_t link; /* topology link id */
	uint32_t dir; /* 0: port[0] -> port[1], 1: the reverse */
	uint64_t tx_bytes, tx_packets;
	uint64_t drops; /* qdisc drops */
	uint64_t backlog; /* qdisc backlog, bytes */
};

/* cpu.csv: the machine's CPU time over one sampling interval (t is its end), as shares of
 * all CPUs' time from /proc/stat deltas: busy = 1 - (idle + iowait) / total, softirq =
 * softirq / total; and the packets the CPUs' input backlogs dropped in it, summed over the
 * CPUs (/proc/net/softnet_stat, column 2: a veth hands every packet to such a backlog, which
 * drops past net.core.netdev_max_backlog), REC_NEVER where unknown (a folder written before
 * the column); and the share of all CPUs' time the testbed process itself took (its
 * sampling and its runner: what measuring costs), NAN where unknown. The fidelity verdict
 * reads these, so a results folder can re-judge it. */
struct rec_cpu {
	int64_t t;
	double busy;
	double softirq;
	int64_t backlog_drops;
	double self;
};

/* tcp.csv: the TCP counters of one endpoint's namespace at one instant, as the kernel counts
 * them since the namespace was made (collect/tcp.h): retransmission timeouts (TcpExt
 * TCPTimeouts), those F-RTO found spurious (TCPSpuriousRTOs), segments retransmitted and sent
 * (Tcp RetransSegs, OutSegs). The fidelity verdict compares the run's timeouts with its qdisc
 * drops (fidelity.c). */
struct rec_tcp {
	int64_t t;
	uint32_t node; /* topology node id */
	uint64_t timeouts, spurious_rtos, retrans_segs, out_segs;
};

/* routing.csv: one decision of a routing policy (routing.policy greedy or optimal). */
struct rec_route {
	int64_t t;
	char trigger[REC_NAME_MAX]; /* start, end, failure, rewire: what asked for it first */
	uint32_t commodities; /* connections assigned */
	uint32_t retagged; /* connections whose path tag changed */
	uint32_t max_load, lower_bound; /* most commodities on one link; the least possible */
	int64_t decide_ns; /* wall time the decision took, on the machine that ran it */
	/* a failure or rewire: from the event to the new paths handed to the ranks (the
	 * kernel's reroute, then the decision); REC_NEVER for other triggers */
	int64_t paths_ns;
};

/* ops.csv: one row per node of a Chakra trace's job that took time or moved bytes, on one
 * rank: when its first step there started and its last ended, and whether it is on the job's
 * critical path with nothing shared (chakra_ideal), the nodes that made the job as long as it
 * would be alone. */
#define REC_OP_NAME_MAX 96
struct rec_op {
	uint32_t job, rank;
	uint64_t node; /* its id in the rank's trace */
	char name[REC_OP_NAME_MAX]; /* its name, cut short past REC_OP_NAME_MAX - 1 bytes */
	uint8_t kind; /* enum chakra_kind */
	uint8_t coll; /* a collective's enum chakra_coll; else CHAKRA_COLLS */
	uint8_t critical;
	uint64_t bytes; /* its comm_size (0 for a compute) */
	int64_t t_start, t_end;
};

/* The whole run, as the collector sees it. */
struct rec_run {
	double dilation; /* D = size_scale / rate_scale */
	int64_t t_end; /* when the run ended */
	VEC(struct rec_job) jobs;
	VEC(struct rec_iter) iters;
	VEC(struct rec_flow) flows;
	VEC(struct rec_sample) samples;
	VEC(struct rec_cpu) cpu;
	VEC(struct rec_tcp) tcp;
	VEC(struct rec_route) routes; /* only under a routing policy */
	VEC(struct rec_op) ops; /* only with a Chakra trace's job */
};

/* Frees the vectors (r itself is the caller's); r may be NULL. */
void rec_run_done(struct rec_run *r);

/* CSV (RFC 4180): a header line per file (the constants, without the newline), and one
 * record per line. Writers write one record ending in "\n" into buf (at most len bytes,
 * NUL-terminated) and return the length they needed, as snprintf does. A REC_NEVER time is
 * an empty field; enums are written by name ("ok", "allreduce", "ring"); a text field holding
 * a comma, a double quote, CR or LF is quoted with its quotes doubled, so it may span lines.
 * Parsers take one record (a trailing "\n" or "\r\n" is allowed) and return 0, or -EINVAL
 * for a malformed one (wrong field count, bad number, unknown name, text too long); *out is
 * only written on success. */
extern const char rec_job_header[], rec_iter_header[], rec_flow_header[], rec_sample_header[],
	rec_cpu_header[], rec_tcp_header[], rec_route_header[], rec_op_header[];
/* jobs.csv's header before the group column (rec_job_parse reads both). */
extern const char rec_job_header_v1[];
/* cpu.csv's header before the backlog_drops and self columns (rec_cpu_parse reads both). */
extern const char rec_cpu_header_v1[];
int rec_job_csv(char *buf, size_t len, const struct rec_job *j);
int rec_iter_csv(char *buf, size_t len, const struct rec_iter *i);
int rec_flow_csv(char *buf, size_t len, const struct rec_flow *f);
int rec_sample_csv(char *buf, size_t len, const struct rec_sample *s);
int rec_cpu_csv(char *buf, size_t len, const struct rec_cpu *c);
int rec_tcp_csv(char *buf, size_t len, const struct rec_tcp *x);
int rec_route_csv(char *buf, size_t len, const struct rec_route *x);
int rec_op_csv(char *buf, size_t len, const struct rec_op *x);
int rec_job_parse(const char *line, struct rec_job *j);
int rec_iter_parse(const char *line, struct rec_iter *i);
int rec_flow_parse(const char *line, struct rec_flow *f);
int rec_sample_parse(const char *line, struct rec_sample *s);
int rec_cpu_parse(const char *line, struct rec_cpu *c);
int rec_tcp_parse(const char *line, struct rec_tcp *x);
int rec_route_parse(const char *line, struct rec_route *x);
int rec_op_parse(const char *line, struct rec_op *x);

/* Length of the first record in text, its "\n" included (a newline inside quotes does not
 * end it); the whole rest of text if it has no end. Readers split a file with this. */
size_t rec_csv_record_len(const char *text);

const char *rec_status_name(enum rec_status s);

#endif
