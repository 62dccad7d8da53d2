/* SPDX-License-Identifier: MIT */
/* A seeded, reproducible random stream for the pure layers (no libc rand, no globals):
 * splitmix64 (Steele, Lea and Flood, OOPSLA 2014), one 64-bit state, full period. */
#ifndef LIB_RNG_H
#define LIB_RNG_H

#include <stdint.h>

#define RNG_GAMMA 0x9e3779b97f4a7c15ULL /* splitmix64's state moves by this per draw */

/* The next 64 random bits of stream *s. */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += RNG_GAMMA);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Skips the next n draws of stream *s in O(1), as n calls of rng_next would. */
static inline void rng_skip(uint64_t *s, uint64_t n)
{
	*s += n * RNG_GAMMA;
}

/* Uniform in [0, 1), 53 bits. */
static inline double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

#endif
