/* SPDX-License-Identifier: MIT */
/* Per-testbed state under /run/testbed/<name>/: a write-ahead journal of the runner and of
 * every namespace `up` makes, with the identity (device, inode) of each as it was made, so
 * `down` removes exactly those, also after a SIGKILL, and nothing it cannot prove it made. */
#ifndef ORCH_STATE_H
#define ORCH_STATE_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "kernel/wdir.h"

#define STATE_DIR "/run/testbed"
#define STATE_DOWN_SIGVAL 0x74626477 /* sigqueue value of SIGTERM from `down` to a runner */

struct state {
	char name[64];
	struct wdir dir; /* /run/testbed/<name>/ */
	int jfd; /* journal, O_APPEND */
	char tag[48]; /* ".<pid>.<start time>" of the runner: names only it makes (netns.h) */
};

/* A namespace the journal names and what was recorded of it as it was made: the mount point
 * file `up` created exclusively, and the namespace itself (recorded before it was mounted). */
struct state_ns {
	char *name;
	bool have_file, have_ns;
	dev_t file_dev, ns_dev;
	ino_t file_ino, ns_ino;
};

/* A results folder a run made (wdir.h), absolute, with its identity as it was made. */
struct state_folder {
	char *path;
	dev_t dev;
	ino_t ino;
};

/* What a journal lists. Strings are owned by the struct; release with state_journal_done. */
struct state_journal {
	VEC(struct state_ns) netns;
	VEC(struct state_folder) folders; /* in the order made: outermost first */
	pid_t runner; /* the `up` process that made it, 0 if none was recorded */
	unsigned long long runner_start; /* its start time in /proc/PID/stat, to tell reuse */
	bool detached; /* the runner left the testbed up on purpose and exited */
	char *scenario; /* path of the scenario file, if recorded */
	bool complete; /* `up` finished building */
	pid_t down; /* the `down` that began removing it (the last to say so), 0 if none */
	unsigned long long down_start; /* its start time in /proc/PID/stat */
	size_t ignored; /* lines naming something outside the testbed: never acted on */
};

/* Whether name is a valid testbed name (the scenario parser's rule); if not, writes why into d
 * with -EINVAL. */
int state_name_check(const char *name, struct diag *d);

/* Claims the name: creates /run/testbed/<name>/ (fails with -EEXIST and a message saying how
 * to remove the old one), opens its journal and records the calling process as the runner. */
int state_create(const char *name, struct state *st, struct diag *d)
	__attribute__((warn_unused_result));

/* Appends one record ("ns tb-x-h0", "detached") to the journal. */
int state_record(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records a results folder the run made (w->made; others are not recorded), so that `down`
 * removes it if a killed run left it empty. 0 or -errno. */
int state_record_folder(struct state *st, const struct wdir *w);

/* Records what netns_create made: kind "nsfile" or "nsid", and its identity. A netns_claim
 * callback (netns.h); arg is the struct state. */
int state_record_claim(void *arg, const char *kind, const char *name, const struct stat *st);

/* Closes the journal and the folder (the state stays on disk). */
void state_close(struct state *st);

/* Reads the journal of testbed `name`; -ENOENT if there is none, -EINVAL for a bad name. */
int state_journal_read(const char *name, struct state_journal *j, struct diag *d);
void state_journal_done(struct state_journal *j);

/* Start time of process pid (field 22 of /proc/PID/stat), 0 if it is gone or a zombie. */
unsigned long long state_proc_start(pid_t pid);

/* The runner's tag (struct state's) as the journal recorded it; "" if it has none. */
void state_journal_tag(const struct state_journal *j, char *buf, size_t len);

/* Whether the journal's runner is still the process that recorded itself. */
bool state_runner_alive(const struct state_journal *j);

/* Whether the journal's `down` is still at work (the process that recorded itself). */
bool state_down_alive(const struct state_journal *j);

/* Appends "down PID START" for this process: removal begins, so a `down` killed partway
 * leaves a testbed that `status` calls incomplete. 0 or -errno. */
int state_record_down(const char *name);

/* Takes one of the testbed's locks, waiting for its holder: an flock of its journal (file
 * "journal": one `down` at a time) or of its state folder (file NULL: one remover at a time,
 * the runner's own rollback included). *fd holds it until closed; *waited says whether
 * another held it first. 0, -ENOENT when there is no such testbed (any more: the holder
 * removed it), or -errno. */
int state_lock(const char *name, const char *file, int *fd, bool *waited);

/* Whether /run/testbed/<name>/ is there, with or without its journal. */
bool state_exists(const char *name);

/* Removes /run/testbed/<name>/ and everything in it, the journal last; 0 if gone. */
int state_remove(const char *name);

/* Lists the names of testbeds with state; caller frees each string and the array. */
int state_list(char ***names, size_t *n);

/* Path of a file inside the testbed's state directory. */
void state_path(char *buf, size_t len, const char *name, const char *file);

#endif
