/* SPDX-License-Identifier: MIT */
/* Shaping parameters per link direction, derived from the rate: a burst of about 1 ms of
 * data, and a queue of about 1 ms of data (shape.c says why). Pure. */
#ifndef POLICY_SHAPE_H
#define POLICY_SHAPE_H

#include <stdint.h>

#include "lib/diag.h"
#include "model/scenario.h"

#define SHAPE_MTU 1500 /* shaping.mtu's default, and what an mtu of 0 stands for */
#define SHAPE_ETH_HLEN 14 /* tc counts frames with their Ethernet header */
#define SHAPE_FRAME (SHAPE_MTU + SHAPE_ETH_HLEN) /* a full frame at the default MTU */
#define SHAPE_QUEUE_FRAMES 64 /* shallowest derived queue, see shape.c */
#define SHAPE_BURST_MS 4 /* the derived bucket, ms of data (shape.c) */
/* The fastest link tbf and htb shape: their rates are 32-bit bytes per second (17 Gbit/s). */
#define SHAPE_MAX_BPS (8ULL * 0x7fffffffULL)
/* Frames per GSO packet an endpoint sends under tbf. A NIC's TSO puts frames on the wire, so
 * switches queue and drop frames; a veth hands whole 64 KiB GSO packets on, and a full tbf
 * queue then drops 44 frames of one flow at once: two Reno flows sharing 1 Gbit/s split 39/56
 * over 8 s; capped at 8 frames they shared it within 43/52 in 16 of 16 runs. The cap
 * costs: a ring all-reduce at 8 x 1 Gbit/s kept the CPU 94% busy with it, 55% without.
 * htb with ACK priority is fair without it (20 of 20 runs within 43/52 at 0.1 and 1
 * Gbit/s), so only tbf gets it. All measured on this testbed. */
#define SHAPE_GSO_SEGS 8

/* Pure ACKs ahead of data (htb). In a ring or any bidirectional exchange a link direction
 * carries one flow's data and another flow's ACKs; queued behind 1 ms of data the ACKs
 * arrive in bursts and two opposing Reno flows at 500 Mbit/s got 84-95% of the rate each
 * (varying run to run); with ACKs first they got 95.4% each, as a lone flow does, in every
 * run (measured). The papers' RoCE fabrics pay no such cost. IP packets shorter than
 * SHAPE_ACK_MAX bytes go to the ACK class, which is guaranteed 1/SHAPE_ACK_SHARE of the
 * rate and may borrow all of it. */
#define SHAPE_ACK_MAX 128
#define SHAPE_ACK_SHARE 10
/* htb handles: root 1:, parent class 1:1, ACK class 1:10, data class 1:20 (the default),
 * and leaf qdiscs 10: and 20: under them. */
#define SHAPE_MINOR_PARENT 1
#define SHAPE_MINOR_ACK 0x10
#define SHAPE_MINOR_DATA 0x20

enum shape_kind {
	SHAPE_NONE,
	SHAPE_TBF,
	SHAPE_HTB,
};

struct shape_params {
	enum shape_kind kind;
	bool ack_prio; /* htb: a class for pure ACKs served before data */
	uint64_t rate_bps; /* bit/s */
	uint32_t burst; /* bytes */
	uint32_t limit; /* queue, bytes */
	uint32_t frame; /* a full frame at the link's MTU, bytes: htb's quantum */
	uint64_t delay_ns; /* netem delay, 0 for none */
};

/* The largest frame tc sees on a link of cfg: its MTU plus the Ethernet header. */
uint32_t shape_frame(const struct scn_shaping *cfg);

/* The GSO cap for endpoints' ports under cfg (0: none), in frames: what a full queue drops at
 * once, whatever their size. */
uint32_t shape_gso_segs(const struct scn_shaping *cfg);

/* What a link direction's connections keep in flight at most, over its queue: flows
 * connections cross it, a share `concurrent` of them sending at once (an all-to-all's sends in
 * flight per rank over its peers), each with at most `window` bytes out (transport.window, its
 * receive buffer). With transport.window the scenario stands in for a lossless fabric whose
 * credits the windows are: while this stays at or under 1, the queue holds every window and
 * nothing drops; past 1 `up` warns, and past SHAPE_INFLIGHT_MAX it refuses the file: with
 * windows of a segment or two, a drop-tail loss is repaired only by a retransmission timeout.
 * Measured on the HammingMesh all-to-all of scenarios/hxmesh-a2a.yaml (8 KiB windows, 500 KiB
 * queues, 2 cores) with 1, 2, 4, 8 and 16 connections per pair (ratios 0.48, 0.92, 1.77, 3.42,
 * 6.59): at 5 Mbit/s 0.223-0.233, 0.222, 0.222-0.227 and 0.138-0.165 of injection bandwidth
 * (0, 0, 22-466 and 135,259-142,661 drops), and with 16 a rank failed after 61 s (344,289
 * drops); at 2.5 Mbit/s 0.221, 0.224 and 0.169-0.173 for 1, 2 and 4 (993-1,931 drops). Deeper
 * queues did worse for 4 (0.098-0.100 with 2 MiB at 2.5 Mbit/s, nothing dropped), and 16
 * completed with 4 MiB at 0.161 (docs/scenario.md, transport.window). */
#define SHAPE_INFLIGHT_MAX 2.0
double shape_inflight(double flows, double concurrent, uint64_t window, uint32_t queue);

/* What a shape_inflight ratio means for a run: the queue holds every window (at most 1), it
 * can drop (`up` warns), or past SHAPE_INFLIGHT_MAX (`up` refuses). */
enum shape_inflight_level {
	SHAPE_INFLIGHT_HELD,
	SHAPE_INFLIGHT_DROPS,
	SHAPE_INFLIGHT_OVER,
};
enum shape_inflight_level shape_inflight_level(double ratio);

/* Derives the qdisc parameters for one direction of rate_bps (0 = unshaped: kind NONE unless a
 * delay is asked for); derived bursts and queues count frames of shape_frame(cfg). Returns 0
 * or -ERANGE with a message (rate beyond what tbf accepts). */
int shape_derive(uint64_t rate_bps, uint64_t delay_ns, const struct scn_shaping *cfg,
		 struct shape_params *out, struct diag *d);

#endif
