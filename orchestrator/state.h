/* SPDX-License-Identifier: MIT */
/* Per-testbed state under /run/testbed/<name>/: a write-ahead journal of every kernel object
 * and process `up` makes, so `down` removes exactly those, also after a SIGKILL. */
#ifndef ORCH_STATE_H
#define ORCH_STATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "lib/diag.h"
#include "lib/vec.h"

#define STATE_DIR "/run/testbed"

struct state {
	char name[64];
	int jfd; /* journal, O_APPEND */
};

/* What a journal lists. Strings are owned by the struct; release with state_journal_done. */
struct state_journal {
	VEC(char *) netns;
	VEC(pid_t) pids;
	char *scenario; /* path of the scenario file, if recorded */
	bool complete; /* `up` finished building */
};

/* Claims the name: creates /run/testbed/<name>/ (fails with -EEXIST and a message saying how
 * to remove the old one) and opens its journal. */
int state_create(const char *name, struct state *st, struct diag *d)
	__attribute__((warn_unused_result));

/* Appends one record ("ns tb-x-h0", "pid 123") to the journal before the object is made. */
int state_record(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Closes the journal fd (the state stays on disk). */
void state_close(struct state *st);

/* Reads the journal of testbed `name`; -ENOENT if there is none. */
int state_journal_read(const char *name, struct state_journal *j, struct diag *d);
void state_journal_done(struct state_journal *j);

/* Removes /run/testbed/<name>/ and everything in it; 0 if gone. */
int state_remove(const char *name);

/* Lists the names of testbeds with state; caller frees each string and the array. */
int state_list(char ***names, size_t *n);

/* Path of a file inside the testbed's state directory. */
void state_path(char *buf, size_t len, const char *name, const char *file);

#endif
