/* SPDX-License-Identifier: MIT */
/* Root qdisc counters of many interfaces read in one system call: a BPF program, run on
 * demand (BPF_PROG_TEST_RUN), copies each registered root qdisc's bytes, packets, drops and
 * backlog into a slot of a memory-mapped array, after checking that the memory it reads is
 * still that qdisc. A second program, the locator, learns where each qdisc is: run once per
 * interface on a packet of its own that never leaves it (a test run, from inside the
 * interface's namespace), it records the device's root qdisc. Nothing runs on the packets'
 * path. The programs read the kernel's structs at offsets from its own BTF (kbtf.h). Where
 * the kernel has no BTF or no kfuncs (before Linux 6.2), or forbids BPF, qstat_open fails and
 * the sampler asks by netlink (sample.h). */
#ifndef ORCH_QSTAT_H
#define ORCH_QSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"

/* Where the programs read, from the kernel's BTF: byte offsets, and the sizes of the two
 * fields that have been 4 bytes but could grow. */
struct qstat_layout {
	uint32_t q_handle, q_parent, q_dev_queue, q_cpu_bstats, q_bytes, q_packets;
	uint32_t q_drops, q_backlog, q_drops_size, q_backlog_size;
	uint32_t skb_dev, dev_qdisc;
	uint32_t cast_ctx; /* the BTF id of the kfunc bpf_cast_to_kern_ctx */
};

/* What the locator records of a root qdisc, and the reader checks before trusting it: that
 * the device still has it as its root (a replaced qdisc's memory keeps its old counters for a
 * while after it is freed), and that the memory is still that qdisc. */
struct qstat_where {
	uint64_t dev, qdisc, dev_queue; /* kernel addresses */
	uint32_t handle, parent;
};

/* One slot as the reader writes it: ok when the counters were read this time. */
struct qstat_slot {
	uint64_t ok, bytes, packets, drops, backlog;
};

#define QSTAT_INSNS_MAX 96
#define QSTAT_CHUNK 256 /* slots one run of the reader covers */
#define QSTAT_SPAN_MAX 240 /* the bytes of a qdisc the reader copies at once */

/* The layout from BTF blob (len bytes): 0, or -errno with d naming what is missing. */
int qstat_layout_find(const void *blob, size_t len, struct qstat_layout *out, struct diag *d);

/* The locator's instructions into insns (QSTAT_INSNS_MAX long), with the fd of the where
 * map (an array of struct qstat_where). The instruction count, or 0 when a field's size is
 * not one it can load. Pure. */
size_t qstat_locator_build(void *insns, const struct qstat_layout *l, int where_fd);

/* The reader's: for QSTAT_CHUNK slots from the index its first argument gives, the qdisc
 * the where array names, checked, copied into the slots array. 0 as in qstat_finder_build. */
size_t qstat_reader_build(void *insns, const struct qstat_layout *l, int where_fd, int slots_fd);

struct qstat;

/* Makes the maps for nslots interfaces and loads both programs. 0 or -errno with d saying
 * what the kernel refused. */
int qstat_open(struct qstat **out, uint32_t nslots, struct diag *d);
/* Finds the root qdisc of interface ifindex of the calling thread's namespace, as slot i.
 * 0 or -errno (-ENODEV: no such interface). */
int qstat_locate(struct qstat *q, uint32_t i, uint32_t ifindex);
/* Reads every slot's qdisc now. 0 or -errno. */
int qstat_sample(struct qstat *q);
/* Slot i's counters as of the last qstat_sample: false when its qdisc was not located, or is
 * gone (replaced: qstat_locate finds the new one). */
bool qstat_get(const struct qstat *q, uint32_t i, struct qstat_slot *out);
/* Detaches and frees; NULL is fine. */
void qstat_free(struct qstat *q);

#endif
