/* SPDX-License-Identifier: MIT */
/* The node's check of control packets from the runner (emu-node/ctl.h). Pure. */
#ifndef EMU_MSG_H
#define EMU_MSG_H

#include <stddef.h>

#include "emu-node/ctl.h"
#include "lib/diag.h"

/* Checks a packet of n bytes: header, version, length field, a type the runner sends and
 * that type's exact size (CTL_JOB: with coll.nranks peers, 1 <= nranks <= COLL_MAX_RANKS,
 * rank < nranks, 1 <= channels <= COLL_CHANNELS_MAX). Returns the type, or -EBADMSG / -EPROTO with
 * the reason in d. */
int msg_check(const void *buf, size_t n, struct diag *d);

#endif
