/* SPDX-License-Identifier: MIT */
/* The workload's jobs before a run, in paper units: the scenario's entries, generated ones and
 * a trace's resolved against the model catalogue (jobs.c), then fitted to the topology
 * (jobs_fit.c). Pure but for reading the trace or MSCCL file the scenario names. */
#ifndef SCENARIO_JOBS_H
#define SCENARIO_JOBS_H

#include "lib/diag.h"
#include "model/topo.h"
#include "scenario/experiment.h"
#include "traffic/chakra/chakra.h"
#include "traffic/job.h"
#include "traffic/trace/job_trace.h"
#include "traffic/tacos.h"

/* An MSCCL algorithm XML is read whole, up to this size. */
#define JOBS_MSCCL_MAX (256u << 20)

/* Jobs of the workload, in arrival order, ids 0.. (paper units): its jobs entries, generated
 * ones and a trace's (read here: arrivals times trace.time_scale, lengths times
 * trace.duration_scale, the first trace.limit jobs). The trace rows left out are added to
 * *left (NULL: not counted). 0 or -errno with d set (-EINVAL: bad input). */
int jobs_resolve(const struct experiment *e, job_list *out, struct job_trace_left *left,
		 struct diag *d);

/* Whether every job fits the topology: -EINVAL naming the first that never can, at its
 * position (the scenario's jobs entry, the trace's row), or 0. Under trace.oversize skip,
 * such trace rows are left out instead (ids renumbered) and counted in *skipped. */
int jobs_fit(const struct experiment *e, job_list *jobs, const struct topo *t, uint32_t *skipped,
	     struct diag *d);

/* The bytes job j runs at under e's size_scale: whole elements, at least one. */
uint64_t jobs_scaled_bytes(const struct experiment *e, const struct job_spec *j);

/* Job j's MSCCL algorithm (algorithm: msccl): its own file (workload.jobs[i].msccl), or of
 * the files workload.msccl names the first whose <algo> takes the job at its own size
 * (j->bytes: ngpus, coll, buffers, minBytes to maxBytes, as MSCCL's executor chooses; a
 * single file is taken whatever its ngpus and coll, which reading it checks), read into
 * *text (*len bytes, the caller frees), its path in *which. *run_bytes is `bytes` (the size
 * the job runs at, scaled) made the nearest that the algorithm's chunks divide
 * (msccl_head_bytes). The one choice the check and both backends share. 0 or -errno with d
 * set (-EINVAL: none takes the job, or a file is not an algorithm, named in d). */
int jobs_msccl_pick(const struct experiment *e, const struct job_spec *j, uint64_t bytes,
		    char **text, size_t *len, uint64_t *run_bytes, const char **which,
		    struct diag *d);

/* A rank's Chakra trace file is read whole, up to this size. */
#define JOBS_CHAKRA_MAX (1ul << 30)

/* A Chakra trace's job (workload.jobs[i].chakra: PREFIX): its ranks' files PREFIX.0.et,
 * PREFIX.1.et, ... (as many as exist from 0, as ASTRA-sim names them), read, checked as one
 * job and linked (chakra_check). */
struct jobs_chakra {
	struct chakra_rank *ranks;
	char **files; /* each rank's path, for messages */
	size_t n;
	struct chakra_links l;
	struct chakra_stats st;
	bool linked;
};

/* Reads the trace of prefix `which` (1 + its index in e->w.chakra_job) into *c: 0 or -errno
 * with d set at the file, or the node, the trace cannot mean. Release with jobs_chakra_done,
 * also after failure. */
int jobs_chakra_read(const struct experiment *e, uint32_t which, struct jobs_chakra *c,
		     struct diag *d);
void jobs_chakra_done(struct jobs_chakra *c);
/* Job j's trace c as a backend runs it: its bytes times size_mul, its times times time_mul,
 * its collectives with j's chakra_algo, group and platform, each operation in its own region
 * under workload.verify (the one choice the check and both backends share). */
void jobs_chakra_job(const struct experiment *e, const struct job_spec *j,
		     const struct jobs_chakra *c, double size_mul, double time_mul,
		     struct chakra_job *out);
/* jobs_chakra_read of job j's trace into *c, then jobs_chakra_job of it into *out (made also
 * when the read fails, so that releasing c is the same): 0 or -errno with d set. */
int jobs_chakra_open(const struct experiment *e, const struct job_spec *j, double size_mul,
		     double time_mul, struct jobs_chakra *c, struct chakra_job *out,
		     struct diag *d);
/* Fills the Chakra job j (j->chakra, chakra_algo set) from its trace: gpus (the files; a
 * `gpus` given must agree), bytes (its buffer: its largest operation's, under verify what a
 * rank's regions take, in paper bytes), chakra_ns and chakra_ship, lowered once so that what
 * cannot run is refused here. 0 or -errno with d set. */
int jobs_chakra_spec(const struct experiment *e, struct job_spec *j, uint32_t gpus, struct diag *d);

/* TACOS's synthesis inputs for job j of e over endpoints eps (rank order) on t (TACOS §VI):
 * the one decision the check's proof and both backends' synthesis share. */
void jobs_tacos_inputs(const struct experiment *e, const struct job_spec *j, const struct topo *t,
		       const uint32_t *eps, struct tacos_topo_in *in, struct tacos_cfg *cfg);

#endif
