/* SPDX-License-Identifier: MIT */
/* One rank's schedule prepared for execution, and its progress through one iteration
 * (coll.h's executor rules): steps grouped into channels, one per peer and direction and one
 * for the rank's local steps, started in list order one at a time per channel, each once its
 * dependencies are done. The one
 * decision of which steps may be in flight: emu-node executes it over sockets and the
 * virtual-time backend (sim/exec.h) over modelled flows. Pure: no syscalls. */
#ifndef TRAFFIC_PLAN_H
#define TRAFFIC_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "traffic/coll.h"

#define COLL_PLAN_NONE UINT32_MAX

/* A step as the executor sees it, in one record so that taking, starting and completing it
 * read one place (the schedule's steps are not read while a run goes on): what it moves (its
 * op, length and phase, from the coll_step), its channel (2 * peer index + op; local steps:
 * 2 * npeers), its position
 * in that channel (the k-th message), the channel's step after it (COLL_PLAN_NONE after the
 * last), where its successors start in coll_plan.succ (step i's are succ[node[i].succ_off ..
 * node[i + 1].succ_off)), and the run's count of its needed dependencies not yet completed. */
struct coll_plan_node {
	uint64_t len;
	uint32_t chan, seq, next, succ_off;
	uint32_t wait; /* the run's state (coll_plan_run): a plan has one run at a time */
	uint16_t phase;
	uint8_t op;
	uint8_t pad_;
};
_Static_assert(sizeof(struct coll_plan_node) == 32, "two nodes per cache line");

struct coll_plan {
	const struct coll_step *steps; /* borrowed from the schedule: the rank's steps */
	const uint32_t *deps; /* borrowed: coll_sched.deps */
	uint32_t n; /* steps */
	uint32_t npeers;
	uint32_t *peers; /* the ranks this rank exchanges data with, ascending */
	struct coll_plan_node *node; /* n + 1 */
	uint32_t *need; /* per step: the dependencies it waits for (fewer than its list: those
			 * another step's completion implies are left out, see plan.c) */
	uint32_t *chan_first; /* 2 * npeers + 1: each channel's first step, or COLL_PLAN_NONE */
	uint32_t *succ; /* the steps that wait for each step, grouped by step */
};

/* A channel's progress: its next step (COLL_PLAN_NONE when none is left), and whether that
 * step is queued or in flight. */
struct coll_plan_chan {
	uint32_t head, taken;
};

/* Progress through one iteration. A channel is "taken" from the moment its head step is
 * found startable until that step completes, so each channel has at most one step queued or
 * in flight, and the ready queue never holds more than one entry per channel. */
struct coll_plan_run {
	struct coll_plan *p; /* its nodes' wait counts are the run's */
	struct coll_plan_chan *ch; /* per channel */
	uint32_t *ready; /* ring of startable steps, one slot per channel */
	uint32_t rd, nq; /* first queued slot, and how many are queued */
	uint32_t done; /* steps completed */
};

/* Prepares rank's steps of s (s must outlive p, or see coll_plan_drop_sched). 0 or -ENOMEM;
 * release with coll_plan_done. */
int coll_plan_init(struct coll_plan *p, const struct coll_sched *s, uint32_t rank);
void coll_plan_done(struct coll_plan *p);
/* The schedule may go once p is prepared where only a run reads p from then on (the simulator:
 * coll_plan_run_* read p's own arrays): p's steps and dependencies, borrowed from it, are
 * dropped, so that a stray read of them faults rather than reads freed memory. */
void coll_plan_drop_sched(struct coll_plan *p);

/* The index of rank among p's peers, or -ENOENT. */
int coll_plan_peer(const struct coll_plan *p, uint32_t rank);

/* The dependencies of step i. */
static inline const uint32_t *coll_plan_deps(const struct coll_plan *p, uint32_t i, uint32_t *n)
{
	*n = p->steps[i].dep_n;
	return p->deps + p->steps[i].dep_off;
}

int coll_plan_run_init(struct coll_plan_run *r, struct coll_plan *p);
void coll_plan_run_done(struct coll_plan_run *r);
/* Starts an iteration: nothing done, every step without dependencies that heads its
 * channel is startable. */
void coll_plan_run_reset(struct coll_plan_run *r);
/* The next startable step (its channel stays taken until it completes), or COLL_PLAN_NONE. */
uint32_t coll_plan_run_take(struct coll_plan_run *r);
/* Marks a taken step complete; the steps it unblocks become startable. */
void coll_plan_run_complete(struct coll_plan_run *r, uint32_t step);
static inline bool coll_plan_run_finished(const struct coll_plan_run *r)
{
	return r->done == r->p->n;
}

/* Bytes of the next piece of a transfer of len bytes of which done are through, moved by
 * one operation of at most max bytes, cut on a multiple of elem so that a reduce adds whole
 * elements piece by piece (len and done are multiples of elem). */
uint64_t coll_plan_piece(uint64_t len, uint64_t done, uint64_t max, uint32_t elem);

/* A job's `channels: K` (NCCL's channels): its ranks open K connections per pair, and each
 * step's bytes go over them at once in m = coll_plan_parts(len, elem, K) parts, part c over
 * connection c, the step completing when every part has. m is K, or fewer for a step of fewer
 * than K elements (one element per part; one empty part for a step of no bytes). Part c of m
 * is elements [c n / m, (c + 1) n / m) of the step's n = len / elem, the last one with any
 * tail: coll_plan_part gives its size, and its offset into the step in *off. */
#define COLL_CHANNELS_MAX 32 /* NCCL's MAXCHANNELS */
uint32_t coll_plan_parts(uint64_t len, uint32_t elem, uint32_t channels);
uint64_t coll_plan_part(uint64_t len, uint32_t elem, uint32_t m, uint32_t c, uint64_t *off);

#endif
