/* SPDX-License-Identifier: MIT */
/* Internal to sim/exec*.c: a job's connections, set up before its ranks run. */
#ifndef SIM_EXEC_INT_H
#define SIM_EXEC_INT_H

#include "lib/diag.h"
#include "sim/exec.h"

/* Traces every connection's path of j, as the kernel forwards its 5-tuple, into j->paths and
 * each rank's path and lat (under spraying, split: route_trace_split, with the shares in
 * j->wts and the latency of the path a hash would take): every pair the schedule makes
 * exchange data must have a route both ways (-EINVAL with d set). With old and oldw (a
 * reroute: the previous j->paths and j->wts), a connection left without a route keeps its old
 * path, over which it stalls as the kernel's packets would. -ENOMEM with d set. */
int sim_trace_paths(const struct sim_exec *x, struct sim_job *j, const uint32_t *old,
		    const double *oldw, struct diag *d);

/* Each rank's index among each of its peers' peers (sim_rank.back), found once: a delivery
 * needs it. -EPROTO with d set if a rank exchanges data with one that has no step with it. */
int sim_link_peers(struct sim_job *j, struct diag *d);

/* The most job j's busbw can be, in bytes/s of payload: the goodput share of the fastest
 * egress of its ranks' endpoints (every link leaving it, NVLink included); INFINITY when one
 * has an unshaped link. */
double sim_job_inj(const struct sim_exec *x, const struct sim_job *j);

/* Job j's iteration iter, every rank done with it: its busbw, as collect/iters.c computes it
 * (but for shard-rings: coll_busbw_ranks), against j->inj. Each complete iteration within
 * the bound, so is their mean, the job's. 0, or -EFAULT with x->fault set. */
int sim_job_check(struct sim_exec *x, const struct sim_job *j, uint32_t iter);

/* The flow model's breach (x->net.breach) in x->fault, named as the topology names its
 * link; returns -EFAULT. */
int sim_exec_breach(struct sim_exec *x);

#endif
