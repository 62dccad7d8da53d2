/* SPDX-License-Identifier: MIT */
/* Test helper: executes a collective schedule symbolically and checks it against coll.h. */
#ifndef TESTS_UNIT_COLL_SIM_H
#define TESTS_UNIT_COLL_SIM_H

#include <stddef.h>

#include "traffic/coll.h"

#define T_SIM_MAX_RANKS 64 /* contributions are bits of a uint64_t */

/* Runs s and returns 0 if it is well formed, matches, completes and leaves every rank with
 * exactly the data its kind defines; otherwise -1 with the first problem in msg. Checks:
 * step fields, FIFO matching per ordered rank pair (same len, same off except all-to-all),
 * deadlock with rendezvous sends, races between unordered accesses to the same bytes of one
 * rank (happens-before from dependencies, FIFO order and message causality), double-counted
 * reductions, copies of unfinished data, writes to data already final, missing results. */
int t_sim_run(const struct coll_sched *s, char *msg, size_t len);

#endif
