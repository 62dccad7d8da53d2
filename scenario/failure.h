/* SPDX-License-Identifier: MIT */
/* A run's timed network events (the scenario's `failures:`, docs/scenario.md), resolved
 * against the topology: the cables a link or node event takes down or brings back, the
 * circuits a rewire asks for, in time order. A down event with `for` gives its up event too.
 * Failures mid-run follow greedy routing §5.4 (a spine fails while jobs run; "the controller
 * re-runs the computation" on the new graph). Pure: names in, ids out, no kernel. */
#ifndef ORCH_FAILURE_H
#define ORCH_FAILURE_H

#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "model/ocs.h"
#include "model/topo.h"
#include "scenario/experiment.h"

#define FAIL_WHAT_MAX 96

struct fail_event {
	int64_t at; /* emulated ns since the run's start */
	enum exp_event_kind kind;
	bool up; /* link and node events: the cables come back */
	uint32_t cable_off, cable_n; /* link and node events: physical links, in fail_plan.cables */
	uint32_t change_off, change_n; /* rewire: in fail_plan.changes */
	char target[FAIL_WHAT_MAX]; /* "s3", "l0-s1", "o0:l0-s1 o0:l1-s1" */
	uint32_t seq; /* order in the file, for ties */
};

struct fail_plan {
	VEC(struct fail_event) events; /* by time; ties in file order */
	VEC(uint32_t) cables;
	VEC(struct ocs_change) changes;
	uint32_t next; /* events before it have happened */
};

/* Resolves e's failures against topology t (its phys holds the cables when it has OCSes).
 * 0, or -EINVAL with "failures[i] (line N): ..." in d, or -ENOMEM. Release with
 * fail_plan_done, also after failure. */
int fail_plan_build(const struct experiment *e, const struct topo *t, struct fail_plan *out,
		    struct diag *d);
void fail_plan_done(struct fail_plan *p);
/* fail_plan_build for its verdict only. */
int fail_plan_check(const struct experiment *e, const struct topo *t, struct diag *d);

/* "down", "up" or "rewire". */
const char *fail_state_name(const struct fail_event *ev);
/* "link", "node" or "rewire". */
const char *fail_kind_name(enum exp_event_kind k);

#endif
