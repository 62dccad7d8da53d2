/* SPDX-License-Identifier: MIT */
/* Chakra execution traces written (chakra_out.c): one job of the workload as the files
 * ASTRA-sim 2.0 reads, PREFIX.<rank>.et, each a GlobalMetadata (version "0.0.4") and a chain of
 * Nodes, every message after its length as a varint. Only attributes chakra.c reads, with the
 * value kinds Chakra's own tools write (scenarios/chakra/SCHEMA-NOTES.md §3.1). Pure: the caller
 * writes the bytes out. Includes traffic/chakra/chakra.h and lib/ only. */
#ifndef TRAFFIC_CHAKRA_OUT_H
#define TRAFFIC_CHAKRA_OUT_H

#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "traffic/chakra/chakra.h"

#define CHAKRA_OUT_VERSION "0.0.4" /* GlobalMetadata.version, as ASTRA-sim's examples */
#define CHAKRA_OUT_NAME_MAX 64 /* bytes of a job's name at most */

/* One job: `iterations` times a compute of compute_ns, then one collective of `bytes` per rank
 * over all nranks ranks (pg_name "": every rank). Each node depends on the one before it: a
 * compute on the previous iteration's collective, a collective on its iteration's compute (on
 * the previous collective when there is no compute). */
struct chakra_out_job {
	uint32_t nranks; /* >= 1 */
	uint32_t iterations; /* >= 1 */
	uint64_t compute_ns; /* per iteration, written to the nearest microsecond
			      * (chakra_out_us); under 0.5 us: no compute node */
	uint8_t coll; /* enum chakra_coll: ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL */
	uint64_t bytes; /* comm_size, per rank: at most INT64_MAX */
	const char *name; /* the nodes' names' prefix ("job3": "job3.it0.comp"), borrowed */
};

/* A file's bytes, growing (lib/vec.h). */
typedef VEC(uint8_t) chakra_out_bytes;

/* ns as duration_micros writes it: whole microseconds, to the nearest (half up). */
static inline uint64_t chakra_out_us(uint64_t ns)
{
	return ns / 1000 + (ns % 1000 >= 500);
}

/* Rank `rank`'s file of job j appended to *out: nodes 0, 1, 2, ... in file order, named
 * NAME.it<i>.comp and NAME.it<i>.<allreduce|allgather|reducescatter|alltoall>. The same job
 * gives the same bytes, and the same for every rank (its collectives are over all of them).
 * 0, or -EINVAL (a job this cannot write; d says why) or -ENOMEM, and then nothing is appended. */
int chakra_out_rank(const struct chakra_out_job *j, uint32_t rank, chakra_out_bytes *out,
		    struct diag *d);

#endif
