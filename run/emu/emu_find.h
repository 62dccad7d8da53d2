/* SPDX-License-Identifier: MIT */
/* Where testbed finds emu-node: beside its own executable (a build tree), else in
 * ../libexec/testbed/ from there (an installed tree, `make install`). */
#ifndef ORCH_EMU_FIND_H
#define ORCH_EMU_FIND_H

#include <limits.h>
#include <stddef.h>

#include "lib/diag.h"

#define EMU_FIND_N 2 /* places looked at, in order */

struct emu_find {
	char path[EMU_FIND_N][PATH_MAX];
};

/* The places to look for emu-node, first to last, for the testbed executable at exe (a
 * resolved path, as /proc/self/exe gives it; without a '/', the working directory's): exe's
 * directory, then libexec/testbed/ in its parent. 0, or -ENAMETOOLONG. Pure. */
int emu_find_places(const char *exe, struct emu_find *f);

/* The first of this process's places (emu_find_places of /proc/self/exe) that is an
 * executable file, into buf. 0, or -errno with d naming every place looked at. */
int emu_find(char *buf, size_t len, struct diag *d);

#endif
