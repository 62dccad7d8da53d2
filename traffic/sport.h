/* SPDX-License-Identifier: MIT */
/* The 5-tuples of a job's data connections, fixed so that ECMP hashes them the same way on
 * every run of a scenario (the seed then decides the collisions, not the kernel's choice of
 * an ephemeral port). Pure: emu-node binds these ports, the routing model predicts with them.
 *
 * Every pair of ranks that exchanges data shares one TCP connection, opened by the lower
 * rank from flow_sport(job, lower, higher, attempt) to the higher rank's FLOW_DPORT; a job
 * with `channels: K` opens K, connection c from flow_sport_chan(job, lower, higher, c, attempt). */
#ifndef TRAFFIC_SPORT_H
#define TRAFFIC_SPORT_H

#include <stdint.h>

#define FLOW_DPORT 7070 /* every emu-node listens here, in its own namespace */
/* Source ports: below the kernel's ephemeral range (32768-60999 by default), so they never
 * meet a port the kernel picked. */
#define FLOW_SPORT_LO 10000u
#define FLOW_SPORT_N 22768u /* 10000 .. 32767 */

/* The attempt-th candidate source port for rank's connection `chan` to peer in job: a fixed
 * function of the four (splitmix64's finalizer spreads them over the range), then the
 * following ports in turn when a candidate is taken (a connection of an earlier job still in
 * TIME_WAIT). The same history gives the same ports. */
static inline uint16_t flow_sport_chan(uint32_t job, uint32_t rank, uint32_t peer, uint32_t chan,
				       uint32_t attempt)
{
	uint64_t x = ((uint64_t)job << 42) ^ ((uint64_t)rank << 21) ^ peer;

	x ^= chan * 0x9e3779b97f4a7c15ull; /* channel 0: the one connection's port */
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint16_t)(FLOW_SPORT_LO + (x + attempt) % FLOW_SPORT_N);
}

/* The candidates of a pair's one connection (channel 0). */
static inline uint16_t flow_sport(uint32_t job, uint32_t rank, uint32_t peer, uint32_t attempt)
{
	return flow_sport_chan(job, rank, peer, 0, attempt);
}

#endif
