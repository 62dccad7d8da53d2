/* SPDX-License-Identifier: MIT */
/* sample/ owns counter sampling during an emulated run: link directions, shapers, CPU, TCP, into
 * the run's records. May include: kernel/ and the pure layers. */
/* Counter sampling during a run, for collect/ (metrics, fidelity verdict): at a fixed
 * interval, every link direction's egress counters and its shaping qdisc's drops and backlog,
 * read through one NETLINK_ROUTE socket per namespace opened once, plus the machine's CPU
 * busy and softirq shares from /proc/stat at the same instants, and every endpoint
 * namespace's TCP counters (timeouts, spurious timeouts, retransmitted and sent segments) at
 * the first and every explicit sample and once a second between. Samples go into a struct
 * rec_run (collect/records.h: links.csv, cpu.csv, tcp.csv).
 *
 * Per port it asks for the root qdisc (RTM_GETQDISC) when the port is shaped: its byte and
 * packet counters are what the shaper charged (every frame with its headers, GSO packets
 * counted per segment), so a saturated link reads 100% of its rate. An unshaped port has no
 * shaper; its counters are the device's (RTM_GETSTATS), its drops the device's tx drops plus
 * those of a netem delay qdisc if it has one. All requests of a namespace go in one sendmsg
 * and come back in one recvmmsg (in chunks for big switches).
 *
 * A direction is read only when it may have changed (sample_plan.h): each round starts with
 * one dump of the device counters of the switches (RTM_GETSTATS), which shows per port
 * whether its own egress or its peer's sent anything; a direction that sent nothing and had
 * no backlog keeps its last reading, filed again with this round's time, and every direction
 * is read at least once every SAMPLE_REFRESH_ROUNDS. With most links busy the dumps stop and
 * every direction is read each round. Every direction has a sample every round either way.
 *
 * Where the kernel lets it, the shapers are read by BPF instead (kernel/qstat.h): a few system
 * calls a round read every root qdisc, the same counters a netlink get returns, for about a
 * thirtieth of the cost; the plan above serves the rest (unshaped ports, and a shaper BPF
 * could not read). */
#ifndef ORCH_SAMPLE_H
#define ORCH_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "collect/records.h"
#include "lib/diag.h"
#include "model/scenario.h"
#include "model/topo.h"

#define SAMPLE_INTERVAL_NS 100000000LL /* run.sample_interval's default */

struct sampler;

/* Opens one socket in each namespace (nsfd: per topology node, borrowed for the sampler's
 * lifetime) and /proc/stat, for the links of t shaped as sh says, sampled every interval_ns.
 * 0 or -errno with d set. */
int sampler_open(struct sampler **out, const struct topo *t, const struct scn_shaping *sh,
		 const int *nsfd, int64_t interval_ns, struct diag *d);

/* With full, reads every direction every round instead of only those that may have changed,
 * and every endpoint's TCP counters every second instead of only those whose links moved:
 * the cost of sampling with every link busy (testbed sample --full). */
void sampler_set_full(struct sampler *s, bool full);

/* Takes one sample of every direction, of the CPU and of the endpoints' TCP counters now, t0
 * being CLOCK_MONOTONIC ns of the run's start (the first call is the baseline at t = 0: no CPU
 * record yet; the last, at the run's end, closes the TCP counters' span). Samples are appended
 * to rec. 0 or -errno with d set. */
int sampler_take(struct sampler *s, int64_t t0, struct rec_run *rec, struct diag *d);

/* Takes a sample if one is due at `now` (ns since t0), the TCP counters if a second passed
 * since they were last read. 0 or -errno. */
int sampler_poll(struct sampler *s, int64_t now, int64_t t0, struct rec_run *rec, struct diag *d);

/* When the next sample is due, in ns since t0. */
int64_t sampler_next(const struct sampler *s);

/* Directions sampled and samples taken so far. */
uint32_t sampler_directions(const struct sampler *s);
uint64_t sampler_rounds(const struct sampler *s);

/* With on false, asks every direction by netlink even where BPF could read it (the bench's
 * comparison). */
void sampler_use_bpf(struct sampler *s, bool on);

/* NULL when the shapers are read by BPF (*n of them), else why not. */
const char *sampler_bpf(const struct sampler *s, uint32_t *n);

/* The work so far: counter requests sent (a qdisc or a device each), device dumps, and
 * directions read by BPF. */
void sampler_work(const struct sampler *s, uint64_t *reads, uint64_t *dumps, uint64_t *bpf);

/* Rounds that failed somewhere (a namespace that did not answer, /proc/stat unreadable), and
 * the first failure's message in *first (borrowed from s). */
uint64_t sampler_failures(const struct sampler *s, const char **first);

/* Closes the sockets and frees s; NULL is fine. */
void sampler_free(struct sampler *s);

#endif
