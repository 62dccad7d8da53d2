/* SPDX-License-Identifier: MIT */
/* Internals shared by the run*.c files. */
#ifndef ORCH_RUN_INT_H
#define ORCH_RUN_INT_H

#include "orchestrator/run.h"

/* Fills the backend's sizes, times and timeout of rj from its spec. */
void run_scale_job(const struct run *r, struct run_job *rj);

/* Starts every job the scheduler can place now. */
int run_start_jobs(struct run *r, struct diag *d);
/* Ends job j (all ranks reported, or it failed): frees its endpoints. */
void run_end_job(struct run *r, uint32_t j, enum rec_status st, const char *why);
/* Fails job j with a reason and tells its other ranks to stop. */
void run_fail_job(struct run *r, uint32_t j, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
