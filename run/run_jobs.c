// SPDX-License-Identifier: MIT
/* The resolved jobs scaled to the backend (run_int.h): sizes times size_scale, times times the
 * dilation D = size_scale / rate_scale (both 1 in virtual time). */
#include <math.h>

#include "run/run_int.h"

void run_scale_job(const struct run *r, struct run_job *rj)
{
	const struct scenario *s = &r->e->s;
	double scale = s->emulation.rate_scale > 0 ? s->emulation.rate_scale : 1.0;
	uint64_t rate = topo_nic_rate_min(r->t), paper_rate = (uint64_t)((double)rate / scale);
	uint64_t elem = rj->spec.elem ? rj->spec.elem : 4, bytes;
	uint32_t k;

	/* whole elements; an all-to-all's in equal blocks, one per rank */
	if (rj->spec.kind == COLL_ALLTOALL && rj->spec.gpus)
		elem *= rj->spec.gpus;

	job_fit_duration(&rj->spec, paper_rate);
	bytes = (uint64_t)((double)rj->spec.bytes * s->emulation.size_scale);

	bytes = bytes / elem * elem;
	rj->bytes = bytes ? bytes : elem;
	for (k = 0; k < rj->spec.md.ndims && k < COLL_MD_DIMS; k++) { /* as the links run */
		double br = (double)rj->spec.md.dim[k].rate * scale;

		rj->spec.md.dim[k].rate = br >= 1.0 ? (uint64_t)llround(br) : 1;
	}
	rj->compute_ns = (uint64_t)((double)job_compute_ns(&rj->spec, paper_rate) * r->dilation);
	rj->arrival = (int64_t)((double)rj->spec.arrival_ns * r->dilation);
	rj->progress_ns = r->e->run.progress_ns;
	if (!rj->progress_ns) /* a generous multiple of what one iteration should take */
		rj->progress_ns = rj->compute_ns + 20 * job_comm_ns(&rj->spec, rj->bytes, rate) +
				  10000000000ULL;
	rj->start = rj->finish = REC_NEVER;
	rj->status = REC_NOT_STARTED;
}

struct coll_params run_job_coll(const struct run_job *rj)
{
	return job_coll(&rj->spec, rj->bytes);
}
