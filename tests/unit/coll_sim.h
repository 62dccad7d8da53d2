/* SPDX-License-Identifier: MIT */
/* Test helper: a schedule through the prover (traffic/coll.h, coll_prove), its message in msg. */
#ifndef TESTS_UNIT_COLL_SIM_H
#define TESTS_UNIT_COLL_SIM_H

#include <stddef.h>
#include <string.h>

#include "traffic/coll.h"

/* 0 if coll_prove proves s; otherwise -1 with its message in msg. */
static inline int t_sim_run(const struct coll_sched *s, char *msg, size_t len)
{
	struct diag d = {0};
	int r = coll_prove(s, NULL, &d);

	if (len) { /* the message, cut to len */
		size_t n = strnlen(r ? d.msg : "", len - 1);

		memcpy(msg, d.msg, n);
		msg[n] = '\0';
	}
	return r ? -1 : 0;
}

#endif
