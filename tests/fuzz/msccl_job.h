/* SPDX-License-Identifier: MIT */
/* The jobs fuzz_msccl and the regression test read an MSCCL algorithm XML for: the text's own
 * ngpus, coll and size, so a seed reads as it would for the job that runs it. */
#ifndef TESTS_FUZZ_MSCCL_JOB_H
#define TESTS_FUZZ_MSCCL_JOB_H

#include <stddef.h>

#include "traffic/coll.h"

#define FUZZ_MSCCL_JOBS 3 /* coll="custom" is read for the three kinds it may be */

/* The jobs to read text[0 .. len) for (algorithm msccl, 4-byte elements) into p: ranks from
 * ngpus= (4 if absent or out of 1 .. COLL_MAX_RANKS), the kind coll= names (all-reduce if
 * none), bytes from maxBytes= or else nchunksperloop= chunks of one element per rank. Returns
 * how many, 1 to FUZZ_MSCCL_JOBS. */
size_t fuzz_msccl_jobs(const char *text, size_t len, struct coll_params p[FUZZ_MSCCL_JOBS]);

#endif
