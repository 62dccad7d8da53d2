/* SPDX-License-Identifier: MIT */
/* The one writer of every file testbed makes (docs/security.md). A folder is held by its
 * descriptor, opened one path component at a time without following a symbolic link (as root;
 * a normal user's own links are followed, as the kernel already limits what they reach). A
 * file is created exclusively under a temporary name relative to that descriptor and renamed
 * into place, so nothing is ever written through a link or into a file someone else made, and
 * a failed write leaves nothing behind. Under sudo (WDIR_GIVE), a new file or folder goes only
 * where the user who asked could make it themselves (a folder of theirs, one everybody may
 * write, or one this process made), an existing file is replaced only if it is theirs, and
 * what was created is given to them by fchown of its descriptor: a file once complete, a
 * folder once closed. */
#ifndef ORCH_WDIR_H
#define ORCH_WDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "lib/diag.h"

#define WDIR_PATH_MAX 1024
#define WDIR_NAME_MAX 200 /* a file's or folder's own name, leaving room for the temporary's */

enum wdir_flags {
	WDIR_CREATE = 1 << 0, /* open, sub: make the folders that are missing (0755) */
	WDIR_EXCL = 1 << 1, /* sub: the folder must be new */
	WDIR_STRICT = 1 << 2, /* refuse symbolic links also when not root */
	WDIR_GIVE = 1 << 3, /* under sudo: made only where the asker could, and given to them */
	WDIR_REPLACE = 1 << 4, /* files: may replace a regular file of ours (the asker's) */
};

/* An open folder. flags' STRICT and GIVE pass on to its subfolders and files. */
struct wdir {
	int fd; /* O_DIRECTORY; -1 once closed */
	int up; /* the folder it was made in, while made (for wdir_prune); else -1 */
	unsigned flags;
	bool made; /* created by this process: given away when closed (GIVE), or pruned */
	char name[WDIR_NAME_MAX + 1]; /* its last component */
	char path[WDIR_PATH_MAX]; /* as the user named it, for messages */
};

#define WDIR_INIT                  \
	{                          \
		.fd = -1, .up = -1 \
	} /* a closed folder, for wdir_close before any open */

/* A file being written: the temporary, renamed to name by wfile_commit. */
struct wfile {
	const struct wdir *dir; /* borrowed: must stay open until commit or abort */
	int fd;
	unsigned flags;
	int err; /* the first write error */
	char name[WDIR_NAME_MAX + 1], tmp[WDIR_NAME_MAX + 48];
};

/* The user a sudo'd root acts for (SUDO_UID, SUDO_GID, both whole numbers above 0); false when
 * not root or not under sudo. */
bool wdir_asker(uid_t *uid, gid_t *gid);

/* Opens the folder at path (relative to the working directory unless it starts with '/'),
 * component by component; a component that is a symbolic link is refused naming it (-ELOOP),
 * one that is not a folder too (-ENOTDIR). With WDIR_CREATE, missing folders are made; under
 * sudo with WDIR_GIVE the ones made above the last are given away at once (they are only
 * walked through), the last when closed. 0 or -errno with d set. */
int wdir_open(struct wdir *w, const char *path, unsigned flags, struct diag *d);

/* The folder name inside parent (one component), as wdir_open opens one. */
int wdir_sub(struct wdir *w, const struct wdir *parent, const char *name, unsigned flags,
	     struct diag *d);

/* A new folder inside parent, made exclusively: <base><suffix>, else <base>-2<suffix>,
 * <base>-3<suffix>, ... (no limit): an existing folder, or a link, is never reused. */
int wdir_new(struct wdir *w, const struct wdir *parent, const char *base, const char *suffix,
	     struct diag *d);

/* Proves the folder takes a file: writes and removes a probe of a few KiB. 0 or -errno with d
 * set, naming the folder and the reason (read-only, full). */
int wdir_prove(const struct wdir *w, struct diag *d);

/* Closes the folder; one this process made is given away first (WDIR_GIVE, under sudo).
 * NULL-safe, idempotent. */
void wdir_close(struct wdir *w);

/* Closes a folder; one this process made that is still empty is removed instead (a run that
 * wrote nothing leaves no folder). NULL-safe, idempotent. */
void wdir_prune(struct wdir *w);

/* Creates file name in dir exclusively, without following a link, and opens it for writing
 * (with oflags added, e.g. O_APPEND); never given away. An fd, or -errno with d set. */
int wdir_create(const struct wdir *dir, const char *name, int oflags, struct diag *d);

/* The folder's absolute path as the kernel knows it, and its identity, for a journal. 0 or
 * -errno. */
int wdir_identify(const struct wdir *w, char *path, size_t len, dev_t *dev, ino_t *ino);

/* Removes the folder at absolute path if it is still the one identified (dev, ino) and empty,
 * walking to it as wdir_open does: what a killed run made and never wrote into. 0, -ENOTEMPTY
 * (kept), or -errno (-ESTALE: something else by that name now, left alone). */
int wdir_prune_path(const char *path, dev_t dev, ino_t ino);

/* Begins file name in dir: a temporary created exclusively, without following a link. flags
 * adds WDIR_REPLACE. A name that exists is refused here already (-EEXIST without REPLACE, a
 * link -ELOOP, someone else's file -EPERM). 0 or -errno with d set. */
int wfile_open(struct wfile *f, const struct wdir *dir, const char *name, unsigned flags,
	       struct diag *d);

/* Appends len bytes; a failure is kept for wfile_commit. 0 or -errno. */
int wfile_write(struct wfile *f, const void *buf, size_t len);

/* Closes the file and renames it into place; on any failure (of a write too) the temporary
 * is removed and d names the file and the reason. 0 or -errno. */
int wfile_commit(struct wfile *f, struct diag *d);

/* Removes the temporary. NULL-safe, idempotent. */
void wfile_abort(struct wfile *f);

/* name in dir, written whole: wfile_open, wfile_write, wfile_commit. */
int wdir_write(const struct wdir *dir, const char *name, const void *buf, size_t len,
	       unsigned flags, struct diag *d);

/* Moves file name of from into to (replacing there as WDIR_REPLACE allows), given away when to
 * gives. 0 or -errno with d set. */
int wdir_move(const struct wdir *from, const char *name, const struct wdir *to, unsigned flags,
	      struct diag *d);

/* Reads name in dir whole into *out (malloc'd, NUL-terminated; *len without the NUL), without
 * following a link as wdir_open would not: only a regular file (-EINVAL for a FIFO or a
 * device, which would block), and as root one with a single link (-EMLINK: a hard link to a
 * file elsewhere). 0 or -errno (no message: -ENOENT is often an answer). */
int wdir_read(const struct wdir *dir, const char *name, char **out, size_t *len);

/* What a refusal of wdir_read means, for messages ("not a regular file"),
 * else strerror. */
const char *wdir_read_error(int r);

/* Whether name exists in dir (a link counts, not followed). */
bool wdir_has(const struct wdir *dir, const char *name);

/* dir's path joined with name, for messages. */
const char *wdir_join(char *buf, size_t len, const struct wdir *dir, const char *name);

#endif
