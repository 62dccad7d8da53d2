/* SPDX-License-Identifier: MIT */
/* Reading a file the user names (a scenario, a trace): only a regular file is read, so a
 * FIFO, a device or a directory is refused at once instead of blocking or reading forever. */
#ifndef ORCH_INPUT_H
#define ORCH_INPUT_H

#include <stddef.h>

#include "lib/diag.h"

/* Reads all of path (at most max bytes) into a NUL-terminated *out (caller frees) of *len
 * bytes. Fails with d set to "PATH: reason", what (e.g. "not a scenario") closing the size
 * message: -ENOENT and the like from open, -EISDIR, -EINVAL for any other kind of file than
 * a regular one, -EFBIG past max, -ENOMEM. */
int input_read(const char *path, size_t max, const char *what, char **out, size_t *len,
	       struct diag *d);

#endif
