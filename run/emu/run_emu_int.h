/* SPDX-License-Identifier: MIT */
/* Internals of the emulation backend, shared by run_emu.c, run_msg.c, run_results.c,
 * run_stall.c and run_net*.c. */
#ifndef ORCH_RUN_EMU_INT_H
#define ORCH_RUN_EMU_INT_H

#include "run/emu/run_emu.h"
#include "run/run_int.h"
#include "traffic/sport.h"

#define RUN_PORT FLOW_DPORT /* traffic/sport.h */
#define RUN_UID 65534 /* emu-nodes drop to nobody once listening */
#define RUN_ABORT_NS 5000000000LL /* ranks get this long to confirm an abort */

/* Starts the emu-node of endpoint ep and greets it (CTL_HELLO). */
int run_node_spawn(struct run *r, uint32_t ep, struct diag *d);
/* Reads and handles every message waiting on endpoint ep's control socket. */
int run_node_input(struct run *r, uint32_t ep, struct diag *d);
/* The node died: reap it, fail its job, start a fresh one. */
void run_node_lost(struct run *r, uint32_t ep, const char *why);

/* The backend's start and abort (run.h): the job handed to, or withdrawn from, its ranks'
 * emu-nodes. */
int run_emu_start(struct run *r, uint32_t j, struct diag *d);
void run_emu_abort(struct run *r, uint32_t j);
/* Sends CTL_TAG for each connection of v to its source rank's emu-node. 0. */
int run_emu_retag(struct run *r, uint32_t j, const struct run_conn *v, size_t n, struct diag *d);

/* Joins each sender's flow record with its receiver's into r->rec.flows. */
void run_emu_join_flows(struct run *r);

/* The links that explain why job j made no progress since emulated time since: those its
 * traffic may take that are down now, else its ranks' own links that carried nothing, as
 * "h3-l0 down on its paths; " into buf (empty if none is known); returns buf. */
const char *run_stall_why(const struct run *r, uint32_t j, int64_t since, char *buf, size_t len);
/* The context of job j's failure, put first in its reason so a long one cannot cut it off:
 * the latest network event since emulated time since (run_net_why, into ev), or failing that
 * the links of run_stall_why (into links). Returns one of the two buffers. */
const char *run_job_why(const struct run *r, uint32_t j, int64_t since, char *ev, size_t evlen,
			char *links, size_t linkslen);

#endif
