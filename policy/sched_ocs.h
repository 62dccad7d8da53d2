/* SPDX-License-Identifier: MIT */
/* The scheduler's OCS-vClos placement (sched.h SCHED_OCS_VCLOS), internal to policy/sched*.c. */
#ifndef POLICY_SCHED_OCS_H
#define POLICY_SCHED_OCS_H

#include "policy/sched.h"

/* The cluster of t, a leaf-spine whose leaves reach the spines through OCSes (t its logical
 * view, t->phys the cables): 0, -EINVAL for another topology, -ENOMEM. */
int sched_ocs_init(struct sched *s, const struct topo *t, uint32_t gpus);
void sched_ocs_done(struct sched *s);
int sched_ocs_place(struct sched *s, uint32_t job, uint32_t n, uint32_t *out);
void sched_ocs_release(struct sched *s, uint32_t job);
int sched_ocs_size_check(const struct sched *s, uint32_t n, struct diag *d);
/* Running job's allocation as vClos's (its eps, stage, shape), or NULL. */
const struct vclos_alloc *sched_ocs_alloc(const struct sched *s, uint32_t job);

#endif
