/* SPDX-License-Identifier: MIT */
/* Shaping parameters per link direction, derived from the rate (anchors-emulators.md §3):
 * a burst of about 1 ms of data, and a queue of about 1 ms of data (shape.c says why).
 * Pure. */
#ifndef POLICY_SHAPE_H
#define POLICY_SHAPE_H

#include <stdint.h>

#include "lib/diag.h"
#include "model/scenario.h"

#define SHAPE_MTU 1500
#define SHAPE_FRAME (SHAPE_MTU + 14) /* Ethernet header included, as tc counts it */
#define SHAPE_QUEUE_FRAMES 64 /* shallowest derived queue, see shape.c */
/* Frames per GSO packet an endpoint sends. A NIC's TSO puts frames on the wire, so switches
 * queue and drop frames; a veth hands whole 64 KiB GSO packets on, and a full queue then
 * drops 44 frames of one flow at once. Two Reno flows sharing 1 Gbit/s split 39/56 over 8 s
 * that way; capped at 8 frames they shared it within 43/52 in 16 of 16 runs (measured). */
#define SHAPE_GSO_SEGS 8

enum shape_kind {
	SHAPE_NONE,
	SHAPE_TBF,
	SHAPE_HTB,
};

struct shape_params {
	enum shape_kind kind;
	uint64_t rate_bps; /* bit/s */
	uint32_t burst; /* bytes */
	uint32_t limit; /* queue, bytes */
	uint64_t delay_ns; /* netem delay, 0 for none */
};

/* Derives the qdisc parameters for one direction of rate_bps (0 = unshaped: kind NONE unless a
 * delay is asked for). Returns 0 or -ERANGE with a message (rate beyond what tbf accepts). */
int shape_derive(uint64_t rate_bps, uint64_t delay_ns, const struct scn_shaping *cfg,
		 struct shape_params *out, struct diag *d);

#endif
