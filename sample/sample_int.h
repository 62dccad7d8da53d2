/* SPDX-License-Identifier: MIT */
/* The sampler's insides (sample.h), shared by sample.c (setup, rounds), sample_ask.c (the
 * per-port gets of one namespace), sample_watch.c (the device counter dumps) and
 * sample_bpf.c (the shapers read by BPF). */
#ifndef ORCH_SAMPLE_INT_H
#define ORCH_SAMPLE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "collect/cpu.h"
#include "lib/diag.h"
#include "model/topo.h"
#include "sample/sample_msg.h"

#define SAMPLE_SLOTS 64 /* requests per sendmsg, replies per recvmmsg */
#define SAMPLE_SLOT 1024 /* bytes for one reply: a root qdisc with its stats is about 200 */
#define SAMPLE_REQ_MAX 64 /* bytes of one request */
#define SAMPLE_DUMP_BUF 16384 /* a dump's chunk: a 32-port switch's counters are about 8 KiB */
#define SAMPLE_WAIT_MS 2000 /* replies come within the sendmsg; this is for a lost one */
#define SAMPLE_SEQ_IDX_BITS 19 /* seq = round:12 | port index in the namespace:19 | kind:1 */
#define SAMPLE_SEQ_DUMP ((1u << SAMPLE_SEQ_IDX_BITS) - 1) /* the index of a dump */
#define SAMPLE_TCP_BUF 16384 /* /proc/net/netstat is about 4 KiB */
#define SAMPLE_SOFTNET_MAX 65536 /* /proc/net/softnet_stat: about 120 bytes per CPU */
/* TCP counters every second, not every round: about 40 us an endpoint, which a round of 1,024
 * endpoints could not afford every 100 ms; the verdict needs only the first and last. */
#define SAMPLE_TCP_NS 1000000000LL
#define SAMPLE_W_QDISC (1u << SAMPLE_QDISC)
#define SAMPLE_W_LINK (1u << SAMPLE_LINK)

struct sample_counts {
	uint64_t bytes, packets, drops, backlog;
};

/* One link direction: the egress of one port. */
struct sample_port {
	uint32_t ifindex, link, dir;
	uint32_t peer; /* the sampler index of the link's other port, TOPO_NONE if unknown */
	bool shaped; /* counters from the root qdisc; else from the device */
	uint8_t want, got, err; /* SAMPLE_W_*: asked, answered, answered with an error */
	uint8_t view; /* enum sample_view */
	bool read; /* asked this round, or taken */
	bool taken; /* this round's counters came from BPF (sample_bpf_take) */
	bool watched, moved; /* this round's dump saw it; its device counter moved */
	bool have_last; /* last holds its latest reading */
	uint64_t busy_round; /* the last round it was busy (sample_plan_tcp), 0: never */
	uint64_t act, act_round; /* device counter a dump saw, and in which round (0: never) */
	struct sample_counts q, l; /* this round's replies: root qdisc, device */
	struct sample_counts last; /* the latest reading */
	int64_t t; /* this round: when read or seen unchanged, ns since the run's start */
};

struct sample_ns {
	int fd;
	char name[TOPO_NAME_MAX];
	uint32_t port0, nports;
	bool dump; /* its device counters watch directions (sample_plan_watch) */
};

/* One endpoint namespace's TCP counter files (sample_tcp.c). */
struct sample_tcp {
	uint32_t node;
	uint64_t round; /* the round of its last reading (0: none yet) */
	int64_t t; /* ... and when, ns since the run's start */
	int netstat, snmp; /* fds, -1 when not open */
};

struct sampler {
	struct sample_ns *ns;
	uint32_t nns;
	struct sample_port *ports;
	uint32_t nports, nwatch; /* directions, and those a dump can watch */
	int stat_fd;
	int softnet_fd; /* /proc/net/softnet_stat, -1 when it cannot be read */
	char *softnet_buf; /* SAMPLE_SOFTNET_MAX bytes for its text */
	struct sample_tcp *tcp;
	uint32_t ntcp;
	int64_t tcp_next; /* when the TCP counters are due, ns since the run's start */
	struct col_cpu_times cpu_prev;
	bool have_prev;
	bool full; /* read every direction every round (sampler_set_full) */
	bool dumping; /* this round starts with the dumps */
	int64_t interval, next;
	uint64_t rounds, failures, reads, dumps;
	struct qstat *qs; /* the shapers read by BPF, NULL when not (bpf_why says why) */
	struct diag bpf_why;
	uint32_t nbpf; /* directions registered with qs */
	bool bpf_ok; /* qs read this round */
	const int *nsfd; /* per node, the caller's (sampler_open), to locate shapers again */
	int64_t bpf_t; /* ... at this time, ns since the run's start */
	uint64_t bpf_reads;
	struct diag first; /* the first failure */
	uint32_t round; /* rounds modulo 4096, for sequence numbers */
	char req[SAMPLE_SLOTS * SAMPLE_REQ_MAX];
	char rbuf[SAMPLE_SLOTS][SAMPLE_SLOT];
	struct iovec iov[SAMPLE_SLOTS];
	struct mmsghdr mm[SAMPLE_SLOTS];
	char dbuf[SAMPLE_DUMP_BUF] __attribute__((aligned(8)));
	char tbuf[2][SAMPLE_TCP_BUF]; /* netstat, snmp */
};

/* Waits until fd is readable: 0, or -ETIMEDOUT after SAMPLE_WAIT_MS. */
int sample_wait_readable(int fd);

/* A request's sequence number in this round: port idx of its namespace, reply kind k. */
static inline uint32_t sample_seq(const struct sampler *s, uint32_t idx, uint32_t k)
{
	return s->round << (SAMPLE_SEQ_IDX_BITS + 1) | idx << 1 | k;
}

/* Reads the counters of namespace n's ports marked `read` (sample_ask.c). 0 or -errno. */
int sample_ask_ns(struct sampler *s, const struct sample_ns *n, int64_t t0);

/* Dumps namespace n's device counters and marks the directions they watch (sample_watch.c).
 * 0 or -errno; the directions it did not see are read. */
int sample_watch_ns(struct sampler *s, const struct sample_ns *n, int64_t t0);

/* Locates every direction read from its root qdisc alone with a new kernel/qstat.h, entering
 * each namespace (nsfd per node) and coming back to root_fd; on failure leaves s->qs NULL
 * with s->bpf_why saying why (the sampler asks by netlink). */
void sample_bpf_open(struct sampler *s, const int *nsfd, int root_fd);
/* Reads the registered shapers now, for sample_bpf_take. */
void sample_bpf_round(struct sampler *s, int64_t t0);
/* Port p's counters from this round's BPF read, if it has them (p->taken, p->read). */
bool sample_bpf_take(struct sampler *s, struct sample_port *p);
/* After a round: the shapers BPF could not read located again, in the namespaces due for
 * their periodic refresh (sample_plan_refresh). */
void sample_bpf_relocate(struct sampler *s);
void sample_bpf_close(struct sampler *s);

/* Opens the TCP counter files of every endpoint of t (sample_tcp.c). 0 or -errno with d set. */
int sample_tcp_open(struct sampler *s, const struct topo *t, const int *nsfd, int root_fd,
		    struct diag *d);
void sample_tcp_close(struct sampler *s);
/* The endpoints' TCP counters now into rec->tcp, and the next due a second later: all of them
 * when final (the run's start and end), else those sample_plan_tcp says. 0 or the first
 * error, *who naming its namespace (the others are still read). */
int sample_tcp_take(struct sampler *s, int64_t t0, bool final, struct rec_run *rec,
		    const char **who);

#endif
