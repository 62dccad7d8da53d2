// SPDX-License-Identifier: MIT
/* CPU shares from /proc/stat readings (cpu.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
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
	*out = (struct col_cpu_times){.idle = v[IDLE],
				      .iowait = v[IOWAIT],
				      .softirq = v[SOFTIRQ],
				      .backlog_drops = REC_NEVER,
				      .self = NAN};
	for (i = 0; i < NFIELDS; i++)
		out->total += v[i];
	return 0;
}

int col_softnet_parse(const char *text, int64_t *drops)
{
	const char *p = text;
	uint64_t sum = 0, v;
	char *end;
	int lines = 0;

	while (*p) {
		strtoull(p, &end, 16); /* processed */
		if (end == p || *end != ' ')
			return -EINVAL;
		v = strtoull(end, &end, 16);
		if (*end != ' ' && *end != '\n')
			return -EINVAL;
		sum += v;
		lines++;
		p = strchr(end, '\n');
		if (!p)
			return -EINVAL; /* a line cut short */
		p++;
	}
	if (!lines || sum > INT64_MAX)
		return -EINVAL;
	*drops = (int64_t)sum;
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
	out->backlog_drops =
		a->backlog_drops == REC_NEVER || b->backlog_drops == REC_NEVER
			? REC_NEVER
			: (int64_t)d((uint64_t)a->backlog_drops, (uint64_t)b->backlog_drops);
	out->busy = idle >= total ? 0 : 1 - idle / total;
	out->softirq = (double)d(a->softirq, b->softirq) / total;
	out->self = b->self >= a->self ? (b->self - a->self) / total : NAN; /* NAN stays NAN */
	if (out->self > 1)
		out->self = 1;
	if (out->softirq > 1)
		out->softirq = 1;
	return 0;
}
