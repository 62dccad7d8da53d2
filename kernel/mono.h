/* SPDX-License-Identifier: MIT */
/* The machine's monotonic clock (CLOCK_MONOTONIC) in ns: what emulation's times, the sampler's
 * rounds and a command's wall time are measured on. */
#ifndef KERNEL_MONO_H
#define KERNEL_MONO_H

#include <stdint.h>
#include <time.h>

static inline int64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif
