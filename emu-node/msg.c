// SPDX-License-Identifier: MIT
/* Checks packets from the runner before anything reads their bodies (see msg.h). */
#include <errno.h>

#include "emu-node/msg.h"

/* The exact size of a fixed-size runner message, 0 for a type the runner never sends. */
static uint32_t msg_fixed_len(uint16_t type)
{
	switch (type) {
	case CTL_HELLO:
		return sizeof(struct ctl_hello);
	case CTL_TAG:
		return sizeof(struct ctl_tag);
	case CTL_ABORT:
		return sizeof(struct ctl_abort);
	case CTL_STOP:
		return sizeof(struct ctl_hdr);
	default:
		return 0;
	}
}

static int msg_check_job(const struct ctl_job *j, size_t n, struct diag *d)
{
	if (n < sizeof(*j))
		return diag_set(d, -EBADMSG, "CTL_JOB of %zu bytes, shorter than its header", n);
	if (!j->coll.nranks || j->coll.nranks > COLL_MAX_RANKS)
		return diag_set(d, -EBADMSG, "CTL_JOB for %u ranks, expected 1 to %u",
				j->coll.nranks, COLL_MAX_RANKS);
	if (n != ctl_job_len_all(j->coll.nranks, j->nsteps, j->ndeps, j->nregions, j->nmembers))
		return diag_set(d, -EBADMSG,
				"CTL_JOB of %zu bytes for %u ranks, %u steps, %u dependencies, %u "
				"regions and %u members, expected %llu",
				n, j->coll.nranks, j->nsteps, j->ndeps, j->nregions, j->nmembers,
				(unsigned long long)ctl_job_len_all(j->coll.nranks, j->nsteps,
								    j->ndeps, j->nregions,
								    j->nmembers));
	if (j->rank >= j->coll.nranks)
		return diag_set(d, -EBADMSG, "CTL_JOB for rank %u of %u", j->rank, j->coll.nranks);
	if (!j->channels || j->channels > COLL_CHANNELS_MAX)
		return diag_set(d, -EBADMSG, "CTL_JOB with %u channels, expected 1 to %u",
				j->channels, COLL_CHANNELS_MAX);
	return CTL_JOB;
}

int msg_check(const void *buf, size_t n, struct diag *d)
{
	const struct ctl_hdr *h = buf;
	uint32_t want;
	int r = ctl_check_hdr(buf, n, d);

	if (r)
		return r;
	if (h->type == CTL_JOB)
		return msg_check_job(buf, n, d);
	want = msg_fixed_len(h->type);
	if (!want)
		return diag_set(d, -EBADMSG, "control message type %u is not one the runner sends",
				h->type);
	if (n != want)
		return diag_set(d, -EBADMSG, "control message type %u of %zu bytes, expected %u",
				h->type, n, want);
	return h->type;
}
