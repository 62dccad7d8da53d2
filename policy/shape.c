// SPDX-License-Identifier: MIT
/* Shaping parameters from rates (see shape.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "policy/shape.h"

/* tbf and htb in libnl take the rate as a 32-bit byte count per second */

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

uint32_t shape_frame(const struct scn_shaping *cfg)
{
	return (cfg->mtu ? cfg->mtu : SHAPE_MTU) + SHAPE_ETH_HLEN;
}

/* Enough data that a qdisc watchdog firing late loses no tokens (the bucket keeps what
 * accrues while it waits, up to its size): about SHAPE_BURST_MS of data; and at least four
 * frames (tbf drops a frame larger than its bucket), for tbf at least two of the GSO packets
 * it is fed (SHAPE_GSO_SEGS frames each). Measured on a VM whose timers fire late, one Reno
 * flow at 1 Gbit/s (tests/integration/t_shaping.sh, 0.93 of the rate the bound): htb with
 * 1 ms got 0.90-0.95 of the rate, with 2 ms 0.93-0.96, with 4 ms 0.955-0.956 (the payload
 * ceiling); tbf, in a noisier hour, 0.79-0.87 with 1 ms and 0.84-0.95 with 4 ms. At 100
 * Mbit/s a tbf bucket of one GSO packet (12.5 KB) held a flow to 0.89-0.93 (t_util.sh). */
static uint32_t derive_burst(uint64_t bytes_per_s, uint32_t frame, enum shape_kind kind)
{
	uint64_t floor = (kind == SHAPE_TBF ? 2ULL * SHAPE_GSO_SEGS : 4ULL) * frame;

	return (uint32_t)max_u64(bytes_per_s * SHAPE_BURST_MS / 1000, floor);
}

/* About 1 ms of data, at least SHAPE_QUEUE_FRAMES frames, plus the bandwidth-delay product of
 * any emulated delay (both directions). Measured on this testbed with two Reno flows sharing
 * one link, counted over the same 8 s of steady state (tests/integration/t_shaping.sh):
 * - deep queues converge slowly: a Reno loss cycle lasts about (queue in packets / 2) RTTs
 *   and the RTT is mostly this queue, so the cycle grows with the queue squared; with 5 ms
 *   of queue at 1 Gbit/s flows still split 26/70 after 10 s, with 1 ms they share it;
 * - shallow queues time out: with windows of a dozen packets a lost burst leaves too few
 *   duplicate ACKs for fast retransmit; at 100 Mbit/s, 24 frames gave 4 of 8 runs outside
 *   40-60% (worst 76/19), 43 frames 2 of 8, 64 frames none (worst 53/41). */
static uint32_t derive_limit(uint64_t bytes_per_s, uint64_t delay_ns, uint32_t frame)
{
	uint64_t q = max_u64(bytes_per_s / 1000, (uint64_t)SHAPE_QUEUE_FRAMES * frame);

	return (uint32_t)(q + bytes_per_s * 2 * delay_ns / 1000000000ULL);
}

int shape_derive(uint64_t rate_bps, uint64_t delay_ns, const struct scn_shaping *cfg,
		 struct shape_params *out, struct diag *d)
{
	uint64_t bps = rate_bps / 8;

	memset(out, 0, sizeof(*out));
	out->delay_ns = delay_ns;
	out->rate_bps = rate_bps;
	out->frame = shape_frame(cfg);
	if (!rate_bps || cfg->qdisc == SCN_QDISC_NONE) {
		out->rate_bps = 0;
		out->kind = SHAPE_NONE;
		return 0;
	}
	if (rate_bps > SHAPE_MAX_BPS)
		return diag_set(d, -ERANGE,
				"link rate %llu bit/s is beyond what tbf/htb accept (17 Gbit/s); "
				"lower emulation.rate_scale",
				(unsigned long long)rate_bps);
	out->kind = cfg->qdisc == SCN_QDISC_HTB ? SHAPE_HTB : SHAPE_TBF;
	out->ack_prio = out->kind == SHAPE_HTB && cfg->ack_priority;
	out->burst = cfg->burst_bytes ? (uint32_t)cfg->burst_bytes
				      : derive_burst(bps, out->frame, out->kind);
	out->limit = cfg->queue_bytes ? (uint32_t)cfg->queue_bytes
				      : derive_limit(bps, delay_ns, out->frame);
	return 0;
}

uint32_t shape_gso_segs(const struct scn_shaping *cfg)
{
	return cfg->qdisc == SCN_QDISC_TBF ? SHAPE_GSO_SEGS : 0;
}

enum shape_inflight_level shape_inflight_level(double ratio)
{
	if (ratio <= 1)
		return SHAPE_INFLIGHT_HELD;
	return ratio <= SHAPE_INFLIGHT_MAX ? SHAPE_INFLIGHT_DROPS : SHAPE_INFLIGHT_OVER;
}

double shape_inflight(double flows, double concurrent, uint64_t window, uint32_t queue)
{
	return queue ? flows * concurrent * (double)window / queue : INFINITY;
}
