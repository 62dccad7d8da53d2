/* SPDX-License-Identifier: MIT */
/* run/emu/ owns the emulation backend: emu-nodes in the fabric's namespaces, their control
 * protocol, failures and OCS rewires in the kernel, sampling, stall reasons. May include: run/,
 * fabric/, sample/, kernel/, scenario/, emu-node/'s protocol (ctl.h) and the pure layers. */
/* The emulation backend of the runner (run.h): one emu-node per endpoint, started in its
 * namespace and driven over its control socket (emu-node/ctl.h), with counter sampling and
 * the network's failures and OCS reconfigurations carried out in the kernel (run_net.h). */
#ifndef ORCH_RUN_EMU_H
#define ORCH_RUN_EMU_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "emu-node/ctl.h"
#include "lib/vec.h"
#include "run/run.h"
#include "sample/sample.h"

struct run_net;

/* One emu-node. */
struct run_node {
	pid_t pid;
	int fd; /* control socket, -1 when dead */
	int32_t job; /* job it runs, -1 when idle */
	uint32_t rank;
	bool ready;
};

/* A SEND or RECV record of one rank, kept until the flows are joined. */
struct run_flow {
	uint32_t job, rank;
	struct ctl_flow f;
};

struct run_emu {
	/* inputs, borrowed */
	const char *emu_path; /* the emu-node binary */
	const int *nsfd; /* per topology node */
	/* state */
	int64_t t0; /* CLOCK_MONOTONIC ns of the run's start */
	struct run_node *nodes; /* per endpoint */
	struct sampler *sampler; /* counters into r->rec every run.sample_interval, or NULL
				  * (sample.h); its failures are the caller's to report */
	struct run_net *net; /* failures and OCS reconfigurations, or NULL (run_net.h) */
	VEC(struct run_flow) raw;
};

extern const struct run_backend run_emu_backend;

/* Makes r run on emulation: x (the caller's, zeroed but for its inputs) becomes r's backend
 * state. */
static inline void run_emu_use(struct run *r, struct run_emu *x)
{
	r->be = &run_emu_backend;
	r->be_data = x;
}

static inline struct run_emu *run_emu(const struct run *r)
{
	return r->be_data;
}

/* A lower bound on the wall time emulating the jobs takes (ns): the latest of each job's
 * arrival plus its iterations of compute and contention-free collective, all dilated
 * (size_scale / rate_scale) as emulation runs them (emu_estimate.c). Pure. */
uint64_t emu_wall_ns(const struct experiment *e, const job_list *jobs, const struct topo *t);

#endif
