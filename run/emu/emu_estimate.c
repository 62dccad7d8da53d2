// SPDX-License-Identifier: MIT
/* How long emulating a workload takes at least (run_emu.h, emu_wall_ns): what `up` refuses a
 * file for and `check` prints. Pure. */
#include "run/emu/run_emu.h"
#include "traffic/coll.h"

uint64_t emu_wall_ns(const struct experiment *e, const job_list *jobs, const struct topo *t)
{
	const struct scenario *s = &e->s;
	double scale = s->emulation.rate_scale > 0 ? s->emulation.rate_scale : 1.0;
	double dil = scn_dilation(s), end = 0;
	uint64_t rate = topo_nic_rate_min(t), paper_rate = (uint64_t)((double)rate / scale);
	const struct job_spec *j;

	vec_for_each (jobs, j) {
		struct job_spec f = *j;
		uint64_t bytes;
		double one, done;

		job_fit_duration(&f, paper_rate);
		bytes = (uint64_t)((double)f.bytes * s->emulation.size_scale);
		one = (double)job_compute_ns(&f, paper_rate) * dil +
		      (double)job_comm_ns(&f, bytes, rate);
		if (f.chakra) /* its critical path's computes, the network left out */
			one = (double)f.chakra_ns * dil;
		done = (double)f.arrival_ns * dil + (double)f.iterations * one;

		if (done > end)
			end = done;
	}
	return end >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)end;
}
