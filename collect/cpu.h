/* SPDX-License-Identifier: MIT */
/* The machine's CPU time from /proc/stat's aggregate "cpu" line, and the busy and softirq
 * shares of an interval between two readings (records.h, struct rec_cpu). Pure: the caller
 * reads the file. */
#ifndef COLLECT_CPU_H
#define COLLECT_CPU_H

#include <stdint.h>

#include "collect/records.h"

/* Cumulative jiffies of all CPUs, packets their input backlogs dropped (REC_NEVER: unknown),
 * and jiffies of the testbed process itself (user + system; NAN: unknown). */
struct col_cpu_times {
	uint64_t total; /* user + nice + system + idle + iowait + irq + softirq + steal */
	uint64_t idle, iowait, softirq;
	int64_t backlog_drops;
	double self;
};

/* Reads the first line of /proc/stat's text ("cpu  user nice system idle iowait irq softirq
 * steal ..."); guest time is part of user already and is not added again. 0 or -EINVAL. */
int col_cpu_parse(const char *text, struct col_cpu_times *out);

/* The packets every CPU's input backlog dropped, from /proc/net/softnet_stat's text (a line
 * per CPU of hexadecimal counters: processed, dropped, ...), summed. 0 or -EINVAL. */
int col_softnet_parse(const char *text, int64_t *drops);

/* The interval a -> b as a record at time t (with the backlog drops between them, and the
 * testbed's own share: self over total): busy = 1 - (idle
 * + iowait) / total (io_uring's waits count as iowait), softirq = softirq / total. 0, or -EAGAIN
 * when no time passed. */
int col_cpu_share(const struct col_cpu_times *a, const struct col_cpu_times *b, int64_t t,
		  struct rec_cpu *out);

#endif
