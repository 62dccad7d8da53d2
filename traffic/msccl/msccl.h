/* SPDX-License-Identifier: MIT */
/* traffic/msccl/ owns MSCCL algorithm XML: reading, writing, choosing by size, its channels
 * merged into one order. May include lib/ and traffic/ (coll.h, coll_prove); pure. */
/* Collective schedules as MSCCL "algorithm XML" (microsoft/msccl, msccl-tools, the MSCCL
 * executor of NCCL and RCCL), out and in. traffic/msccl/msccl.c's opening comment says which subset
 * of the format is read and written and how it maps onto coll.h's steps. Pure: no syscalls. */
#ifndef TRAFFIC_MSCCL_H
#define TRAFFIC_MSCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "traffic/coll.h"

/* s as an MSCCL algorithm named `name` (NULL or "": "<algo>_<kind>"; characters other than
 * letters, digits and ._+- become '_', at most 63 are kept, MSCCL's limit). snprintf-style:
 * returns the length the whole text needs and writes as much as fits into buf (always
 * NUL-terminated when size > 0; buf may be NULL with size 0 to measure). Returns 0, its text
 * being never empty, when it ran out of memory for its indexes or s is no schedule (elem or
 * nranks 0, fewer rank entries than nranks) or has local steps or scratch (an imported
 * algorithm's, not written back). */
size_t msccl_format(const struct coll_sched *s, const char *name, char *buf, size_t size);
/* Whether s has what msccl_format does not write: local steps or scratch (only an imported
 * algorithm has them, and it has its own file). */
bool msccl_local(const struct coll_sched *s);

/* Reads the algorithm XML text[0 .. len) into out (overwritten) for the job p: p's kind,
 * nranks, bytes and elem decide the buffers and the chunk size (bytes / nchunksperloop), and
 * out->params is *p. 0; -EINVAL with the problem and, for one in the text, its line:column
 * (not well-formed XML, a missing or bad attribute, ngpus other than p->nranks, a peer out of
 * range, a dependency on a step that does not exist or a cycle, chunks outside the buffer, an
 * unsupported step type or buffer, a send without its receive, channels that deadlock); or
 * -ENOMEM. out->params.scratch is the algorithm's scratch in bytes. A job of 0 bytes
 * reads as every rank without steps (no step moves nothing, coll.h). out is left empty
 * on error. Release with coll_sched_done. msccl_parse(msccl_format(s)) with s's params gives s
 * back: every rank's steps in the same order with the same fields and dependency lists. */
int msccl_parse(const char *text, size_t len, const struct coll_params *p, struct coll_sched *out,
		struct diag *d);

/* msccl_parse, then the schedule proven to be the collective p says (coll_prove): every
 * chunk delivered, and for a reduction reduced, exactly once to every rank that the kind
 * says, with no race and no deadlock. A schedule that is not is -EINVAL at the line:column
 * of the step the first problem is about (or without one, for a result missing at the end),
 * saying what is wrong. */
int msccl_parse_proven(const char *text, size_t len, const struct coll_params *p,
		       struct coll_sched *out, struct diag *d);

/* What an algorithm's <algo> says of the collective it runs, for choosing among several as
 * MSCCL's executor does (msccl_lifecycle.cc: the first loaded whose ngpus, collective, buffer
 * placement and size range take the call). */
struct msccl_head {
	uint32_t ngpus;
	int kind; /* enum coll_kind, or -1: coll="custom" */
	uint64_t nchunks; /* nchunksperloop */
	uint64_t min_bytes, max_bytes; /* minBytes, maxBytes (0: no bound) */
	bool inplace, outofplace;
};

/* Reads the <algo> element of the XML text[0 .. len) (the whole text must be well formed):
 * 0, or -EINVAL at line:column, or -ENOMEM. */
int msccl_head(const char *text, size_t len, struct msccl_head *h, struct diag *d);
/* Whether h runs a collective of kind over nranks of `bytes` bytes each: ngpus, coll (custom
 * for any kind but alltoall), in place (out of place for alltoall, testbed's buffers), and
 * minBytes <= bytes <= maxBytes. */
bool msccl_head_takes(const struct msccl_head *h, enum coll_kind kind, uint32_t nranks,
		      uint64_t bytes);
/* Whether minBytes <= bytes <= maxBytes. */
bool msccl_head_range(const struct msccl_head *h, uint64_t bytes);
/* The size nearest `bytes` that h's chunks cut into whole elements (and, for alltoall, into
 * nranks whole blocks), at least one chunk each; 0 stays 0. */
uint64_t msccl_head_bytes(const struct msccl_head *h, enum coll_kind kind, uint32_t nranks,
			  uint32_t elem, uint64_t bytes);

#endif
