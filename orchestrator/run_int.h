/* SPDX-License-Identifier: MIT */
/* Internals shared by the run_*.c files. */
#ifndef ORCH_RUN_INT_H
#define ORCH_RUN_INT_H

#include "orchestrator/run.h"
#include "traffic/sport.h"

#define RUN_PORT FLOW_DPORT /* traffic/sport.h */
#define RUN_UID 65534 /* emu-nodes drop to nobody once listening */
#define RUN_ABORT_NS 5000000000LL /* ranks get this long to confirm an abort */

/* Fills the emulated sizes, times and timeout of rj from its spec. */
void run_scale_job(const struct run *r, struct run_job *rj);

/* Starts the emu-node of endpoint ep and greets it (CTL_HELLO). */
int run_node_spawn(struct run *r, uint32_t ep, struct diag *d);
/* Reads and handles every message waiting on endpoint ep's control socket. */
int run_node_input(struct run *r, uint32_t ep, struct diag *d);
/* The node died: reap it, fail its job, start a fresh one. */
void run_node_lost(struct run *r, uint32_t ep, const char *why);

/* Starts every job the scheduler can place now. */
int run_start_jobs(struct run *r, struct diag *d);
/* Ends job j (all ranks reported, or it failed): frees its endpoints. */
void run_end_job(struct run *r, uint32_t j, enum rec_status st, const char *why);
/* The links that explain why job j made no progress since emulated time since: those its
 * traffic may take that are down now, else its ranks' own links that carried nothing, as
 * "h3-l0 down on its paths; " into buf (empty if none is known); returns buf. */
const char *run_stall_why(const struct run *r, uint32_t j, int64_t since, char *buf, size_t len);
/* The context of job j's failure, put first in its reason so a long one cannot cut it off:
 * the latest network event since emulated time since (run_net_why, into ev), or failing that
 * the links of run_stall_why (into links). Returns one of the two buffers. */
const char *run_job_why(const struct run *r, uint32_t j, int64_t since, char *ev, size_t evlen,
			char *links, size_t linkslen);
/* Fails job j with a reason and tells its other ranks to stop. */
void run_fail_job(struct run *r, uint32_t j, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
