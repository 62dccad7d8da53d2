// SPDX-License-Identifier: MIT
/* CPU shares from /proc/stat readings (cpu.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/cpu.h"

enum { USER, NICE, SYSTEM, IDLE, IOWAIT, IRQ, SOFTIRQ, STEAL, NFIELDS };

int col_cpu_parse(const char *text, struct col_cpu_times *out)
{
	uint64_t v[NFIELDS] = {0};
	const char *p = text;
	char *end;
	int i;

	if (strncmp(p, "cpu ", 4))
		return -EINVAL;
	p += 4;
	for (i = 0; i < NFIELDS; i++) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		v[i] = strtoull(p, &end, 10);
		p = end;
	}
	if (i <= IOWAIT)
		return -EINVAL; /* every kernel since 2.6 has at least these */
	*out = (struct col_cpu_times){.idle = v[IDLE], .iowait = v[IOWAIT], .softirq = v[SOFTIRQ]};
	for (i = 0; i < NFIELDS; i++)
		out->total += v[i];
	return 0;
}

/* b - a for a counter that never goes down (a CPU going offline can make it). */
static uint64_t d(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

int col_cpu_share(const struct col_cpu_times *a, const struct col_cpu_times *b, int64_t t,
		  struct rec_cpu *out)
{
	double total = (double)d(a->total, b->total);
	double idle = (double)(d(a->idle, b->idle) + d(a->iowait, b->iowait));

	if (total <= 0)
		return -EAGAIN;
	out->t = t;
	out->busy = idle >= total ? 0 : 1 - idle / total;
	out->softirq = (double)d(a->softirq, b->softirq) / total;
	if (out->softirq > 1)
		out->softirq = 1;
	return 0;
}
