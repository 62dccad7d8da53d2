// SPDX-License-Identifier: MIT
/* A job's MSCCL algorithm (jobs.h): of the files the workload names, the one MSCCL's executor
 * would run for the job, and the size the emulation runs it at. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sbuf.h"
#include "scenario/input.h"
#include "scenario/jobs.h"
#include "traffic/msccl/msccl.h"

/* The files j chooses from: its own, or the workload's. */
static char *const *candidates(const struct experiment *e, const struct job_spec *j, uint32_t *n)
{
	if (j->msccl && j->msccl <= e->w.msccl_job_n) {
		*n = 1;
		return &e->w.msccl_job[j->msccl - 1];
	}
	*n = e->w.msccl_n;
	return e->w.msccl;
}

/* A file read whole, and its <algo>. */
static int read_one(const char *path, char **text, size_t *len, struct msccl_head *h,
		    struct diag *d)
{
	int r = input_read(path, JOBS_MSCCL_MAX, "not an MSCCL algorithm", text, len, d);

	if (!r && (r = msccl_head(*text, *len, h, d))) {
		free(*text);
		*text = NULL;
		return diag_wrap(d, r, "%s: ", path);
	}
	return r;
}

static void put_range(struct sbuf *o, const char *path, const struct msccl_head *h)
{
	sbuf_put(o, "; %s: %s over %u ranks, %" PRIu64 " to ", path,
		 h->kind < 0 ? "custom" : coll_kind_name((enum coll_kind)h->kind), h->ngpus,
		 h->min_bytes);
	if (h->max_bytes)
		sbuf_put(o, "%" PRIu64 " bytes", h->max_bytes);
	else
		sbuf_put(o, "any bytes");
}

/* None of the files takes j: each one's collective, ranks and range. */
static int none_takes(char *const *path, uint32_t n, const struct job_spec *j,
		      const struct msccl_head *h, struct diag *d)
{
	char buf[768] = "";
	struct sbuf o = {buf, sizeof(buf), 0};
	uint32_t i;

	for (i = 0; i < n; i++)
		put_range(&o, path[i], &h[i]);
	return diag_set(d, -EINVAL,
			"no algorithm takes a %s over %u ranks of %" PRIu64
			" bytes (an <algo> takes its ngpus, its coll and minBytes to maxBytes)%s",
			coll_kind_name(j->kind), j->gpus, j->bytes, buf);
}

uint64_t jobs_scaled_bytes(const struct experiment *e, const struct job_spec *j)
{
	double scale = e->s.emulation.size_scale > 0 ? e->s.emulation.size_scale : 1.0;
	uint64_t elem = j->elem ? j->elem : 4, bytes = (uint64_t)((double)j->bytes * scale);

	return bytes < elem ? elem : bytes / elem * elem;
}

int jobs_msccl_pick(const struct experiment *e, const struct job_spec *j, uint64_t bytes,
		    char **text, size_t *len, uint64_t *run_bytes, const char **which,
		    struct diag *d)
{
	struct msccl_head h[EXP_MSCCL_MAX];
	uint64_t elem = j->elem ? j->elem : 4;
	uint32_t i, n;
	char *const *path = candidates(e, j, &n);
	int r = 0;

	*text = NULL;
	for (i = 0; i < n; i++) {
		r = read_one(path[i], text, len, &h[i], d);
		if (r)
			return r;
		/* the executor chooses by the call's own size: the job's, not the emulated one; one
		 * file is the job's whatever its ngpus and coll, which its reading then checks */
		if (msccl_head_takes(&h[i], j->kind, j->gpus, j->bytes) ||
		    (n == 1 && msccl_head_range(&h[i], j->bytes))) {
			*run_bytes =
				msccl_head_bytes(&h[i], j->kind, j->gpus, (uint32_t)elem, bytes);
			*which = path[i];
			return 0;
		}
		free(*text);
		*text = NULL;
	}
	return n ? none_takes(path, n, j, h, d)
		 : diag_set(d, -EINVAL, "algorithm msccl, and no algorithm XML is named");
}
