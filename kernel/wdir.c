// SPDX-License-Identifier: MIT
/* The one writer (wdir.h): folders held by descriptor and opened without following links,
 * files created exclusively under a temporary name and renamed into place, and under sudo what
 * was made given to the asker by fchown of its descriptor. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/wdir.h"

#define PROBE_BYTES 8192
#define PROBE_NAME ".write-check"
#define NEW_TRIES 1000000UL /* wdir_new: names tried before giving up (no practical limit) */
#define TMP_TRIES 100

/* A whole decimal number below 2^31 from the environment, or -1. */
static long env_id(const char *var)
{
	const char *s = getenv(var);
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end || v >= 1UL << 31 ? -1 : (long)v;
}

bool wdir_asker(uid_t *uid, gid_t *gid)
{
	long u = env_id("SUDO_UID"), g = env_id("SUDO_GID");

	if (geteuid() != 0 || u <= 0 || g < 0)
		return false;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return true;
}

/* Links are refused as root always, otherwise when asked. */
static bool strict(unsigned flags)
{
	return (flags & WDIR_STRICT) || geteuid() == 0;
}

static void give(int fd, unsigned flags)
{
	uid_t u;
	gid_t g;

	if ((flags & WDIR_GIVE) && wdir_asker(&u, &g))
		(void)fchown(fd, u, g); /* a filesystem without owners keeps root's */
}

/* Under sudo (GIVE, with an asker), new entries go only where the asker could make them: a
 * folder this process made, one that is theirs, or one everybody may write (/tmp). Root
 * itself writes where it is asked. what names the folder. 0 or -EACCES with d set. */
static int may_create(int fd, bool made, const char *what, unsigned flags, struct diag *d)
{
	struct stat st;
	uid_t u;
	gid_t g;

	if (!(flags & WDIR_GIVE) || made || !wdir_asker(&u, &g))
		return 0;
	if (fstat(fd, &st))
		return diag_set(d, -errno, "%s: %s", what, strerror(errno));
	if (st.st_uid == u || (st.st_mode & S_IWOTH))
		return 0;
	return diag_set(d, -EACCES,
			"%s belongs to uid %u and is not everybody's to write: under sudo, "
			"testbed writes only where uid %u could",
			what, (unsigned)st.st_uid, (unsigned)u);
}

/* Not one component of at most max bytes. */
static bool bad_name(const char *name, size_t max)
{
	return !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	       strlen(name) > max;
}

const char *wdir_join(char *buf, size_t len, const struct wdir *dir, const char *name)
{
	int n = snprintf(buf, len, "%s%s%s", dir->path, strcmp(dir->path, "/") ? "/" : "", name);

	if (n >= 0 && (size_t)n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4); /* for messages only */
	return buf;
}

/* Why name in fd (named prefix) is not a folder that can be opened: a link, not a folder, or
 * the kernel's reason. */
static int refuse(int fd, const char *name, const char *prefix, int err, struct diag *d)
{
	char to[256];
	struct stat st;
	ssize_t n;

	if ((err == ENOTDIR || err == ELOOP) && !fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode)) {
		n = readlinkat(fd, name, to, sizeof(to) - 1);
		to[n > 0 ? n : 0] = '\0';
		return diag_set(d, -ELOOP,
				"%s is a symbolic link (to %s): as root, testbed writes nothing "
				"through a link; name the folder itself",
				prefix, to);
	}
	if (err == ENOTDIR)
		return diag_set(d, -ENOTDIR, "%s is not a folder", prefix);
	return diag_set(d, -err, "%s: %s", prefix, strerror(err));
}

/* The folder path names the entry of: "a/b" for "a/b/c", "/" for "/c", "." for "c". */
static const char *parent_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return ".";
	snprintf(buf, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return buf;
}

/* wdir_open, a component only walked through (not the last): a folder others may search but
 * not read (0711) is opened O_PATH, which is all the walk needs of it. */
#define WDIR_THROUGH (1u << 31)

/* Opens folder name inside fd (named prefix; *made: whether fd was made by this process),
 * making it first with CREATE when it is missing, or always with EXCL; *made then says
 * whether this call made it. An fd, or -errno with d set. */
static int step(int fd, const char *name, const char *prefix, unsigned flags, bool *made,
		struct diag *d)
{
	int o = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (strict(flags) ? O_NOFOLLOW : 0);
	char up[WDIR_PATH_MAX];
	struct stat st;
	int nfd = -1, r;

	if (!(flags & WDIR_EXCL))
		nfd = openat(fd, name, o);
	if (nfd < 0 && errno == EACCES && (flags & WDIR_THROUGH)) /* searchable, not readable */
		nfd = openat(fd, name, o | O_PATH);
	if (nfd >= 0) {
		*made = false;
		return nfd;
	}
	if (!(flags & WDIR_EXCL) && (errno != ENOENT || !(flags & WDIR_CREATE)))
		return refuse(fd, name, prefix, errno, d);
	r = may_create(fd, *made, parent_of(prefix, up, sizeof(up)), flags, d);
	*made = false;
	if (r)
		return r;
	if (!mkdirat(fd, name, 0755))
		*made = true;
	else if (errno != EEXIST || (flags & WDIR_EXCL))
		return diag_set(d, -errno, "creating %s: %s", prefix, strerror(errno));
	nfd = openat(fd, name, o | O_NOFOLLOW);
	if (nfd < 0)
		return refuse(fd, name, prefix, errno, d);
	if (*made && (fstat(nfd, &st) || st.st_uid != geteuid())) {
		close(nfd);
		return diag_set(d, -EPERM,
				"%s was swapped for someone else's folder as it was made", prefix);
	}
	return nfd;
}

static void init(struct wdir *w, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->fd = w->up = -1;
	w->flags = flags & (WDIR_STRICT | WDIR_GIVE);
}

/* w is open on fd, named name in the folder parent; made there now, parent is kept. */
static void opened(struct wdir *w, int fd, int parent, const char *name, bool made)
{
	w->fd = fd;
	w->made = made;
	w->up = made ? fcntl(parent, F_DUPFD_CLOEXEC, 3) : -1;
	snprintf(w->name, sizeof(w->name), "%.*s", WDIR_NAME_MAX, name);
}

/* The folder the walk of path starts from: "/" or the working directory. */
static int walk_start(const char *path, struct diag *d)
{
	int fd = open(path[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return diag_set(d, -errno, "%s: %s", path[0] == '/' ? "/" : "the working directory",
				strerror(errno));
	return fd;
}

int wdir_open(struct wdir *w, const char *path, unsigned flags, struct diag *d)
{
	char buf[WDIR_PATH_MAX], prefix[WDIR_PATH_MAX], *comp, *next, *save = NULL;
	bool made = false;
	int fd, nfd;

	init(w, flags);
	if (!path[0])
		return diag_set(d, -EINVAL, "a folder without a name");
	if (strlen(path) >= sizeof(buf))
		return diag_set(d, -ENAMETOOLONG, "%.64s...: the name is too long", path);
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(buf, sizeof(buf), "%s", path);
	snprintf(prefix, sizeof(prefix), "%s", path[0] == '/' ? "/" : "");
	fd = walk_start(path, d);
	for (comp = strtok_r(buf, "/", &save); fd >= 0 && comp; comp = next) {
		next = strtok_r(NULL, "/", &save);
		snprintf(prefix + strlen(prefix), sizeof(prefix) - strlen(prefix), "%s%s",
			 prefix[0] && prefix[strlen(prefix) - 1] != '/' ? "/" : "", comp);
		nfd = step(fd, comp, prefix, (flags & ~WDIR_EXCL) | (next ? WDIR_THROUGH : 0),
			   &made, d); /* made: fd's */
		if (nfd >= 0 && !next)
			opened(w, nfd, fd, comp, made);
		else if (nfd >= 0 && made)
			give(nfd, flags); /* only walked through: given at once */
		close(fd);
		fd = nfd;
	}
	if (fd < 0)
		return fd;
	if (w->fd < 0) /* "/" or "." alone */
		w->fd = fd;
	return 0;
}

int wdir_sub(struct wdir *w, const struct wdir *parent, const char *name, unsigned flags,
	     struct diag *d)
{
	bool made = parent->made;
	int fd;

	init(w, flags | parent->flags);
	wdir_join(w->path, sizeof(w->path), parent, name);
	if (bad_name(name, WDIR_NAME_MAX))
		return diag_set(d, -EINVAL, "%s: not a folder name", w->path);
	fd = step(parent->fd, name, w->path, flags | parent->flags, &made, d);
	if (fd < 0)
		return fd;
	opened(w, fd, parent->fd, name, made);
	return 0;
}

int wdir_new(struct wdir *w, const struct wdir *parent, const char *base, const char *suffix,
	     struct diag *d)
{
	char name[WDIR_NAME_MAX + 2];
	struct diag dd = {0};
	unsigned long k;
	int n, r = -EEXIST;

	init(w, parent->flags);
	for (k = 1; r == -EEXIST && k <= NEW_TRIES; k++) {
		n = k == 1 ? snprintf(name, sizeof(name), "%s%s", base, suffix)
			   : snprintf(name, sizeof(name), "%s-%lu%s", base, k, suffix);
		if (n < 0 || (size_t)n > WDIR_NAME_MAX)
			return diag_set(d, -ENAMETOOLONG, "%s/%s...: the name is too long",
					parent->path, base);
		diag_clear(&dd);
		r = wdir_sub(w, parent, name, WDIR_CREATE | WDIR_EXCL, &dd); /* a link: EEXIST */
	}
	if (r == -EEXIST)
		return diag_set(d, r, "%s: %lu folders named %s-N%s exist already", parent->path,
				NEW_TRIES, base, suffix);
	return r ? diag_set(d, r, "%s", dd.msg) : 0;
}

int wdir_prove(const struct wdir *w, struct diag *d)
{
	static const char zeros[PROBE_BYTES];
	struct diag dd = {0};
	struct wfile f;
	char name[64];
	int r;

	snprintf(name, sizeof(name), "%s.%d", PROBE_NAME, (int)getpid());
	r = wfile_open(&f, w, name, 0, &dd);
	if (r == -EACCES && dd.msg[0]) /* under sudo, not the asker's to write */
		return diag_set(d, r, "%s", dd.msg);
	if (!r && !wfile_write(&f, zeros, sizeof(zeros)) && fsync(f.fd)) /* delayed allocation */
		f.err = -errno;
	r = r ? r : f.err;
	wfile_abort(&f);
	return r ? diag_set(d, r, "%s cannot be written: %s", w->path, strerror(-r)) : 0;
}

void wdir_close(struct wdir *w)
{
	if (!w || w->fd < 0)
		return;
	if (w->made)
		give(w->fd, w->flags);
	close(w->fd);
	if (w->up >= 0)
		close(w->up);
	w->fd = w->up = -1;
}

void wdir_prune(struct wdir *w)
{
	struct stat a, b;

	if (!w || w->fd < 0)
		return;
	if (w->made && w->up >= 0 && !fstat(w->fd, &a) &&
	    !fstatat(w->up, w->name, &b, AT_SYMLINK_NOFOLLOW) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino && !unlinkat(w->up, w->name, AT_REMOVEDIR))
		w->made = false; /* it was empty: gone, nothing to give */
	wdir_close(w);
}

int wdir_identify(const struct wdir *w, char *path, size_t len, dev_t *dev, ino_t *ino)
{
	char link[64];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", w->fd);
	n = readlink(link, path, len - 1);
	if (n < 0 || fstat(w->fd, &st))
		return -errno;
	if ((size_t)n >= len - 1 || path[0] != '/')
		return -ENAMETOOLONG; /* cut, or " (deleted)": not a path to act on */
	path[n] = '\0';
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

int wdir_prune_path(const char *path, dev_t dev, ino_t ino)
{
	char parent[WDIR_PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct wdir w;
	struct stat st;
	int r;

	if (path[0] != '/' || !slash || !slash[1] || strlen(path) >= sizeof(parent))
		return -EINVAL;
	snprintf(parent, sizeof(parent), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	r = wdir_open(&w, parent, WDIR_STRICT, NULL);
	if (!r && fstatat(w.fd, slash + 1, &st, AT_SYMLINK_NOFOLLOW))
		r = -errno;
	else if (!r && (!S_ISDIR(st.st_mode) || st.st_dev != dev || st.st_ino != ino))
		r = -ESTALE;
	else if (!r && unlinkat(w.fd, slash + 1, AT_REMOVEDIR))
		r = errno == EEXIST ? -ENOTEMPTY : -errno;
	wdir_close(&w);
	return r;
}

/* ---- files ---- */

/* Whether name in dir may be placed: absent, or with REPLACE a regular file of ours or the
 * asker's. Never a link: it would be replaced, not written through, but it was put there for
 * something, and the user is told. 0 or -errno with d set. */
static int may_place(const struct wdir *dir, const char *name, unsigned flags, struct diag *d)
{
	char p[WDIR_PATH_MAX + WDIR_NAME_MAX + 2];
	struct stat st;
	uid_t u;
	gid_t g;

	wdir_join(p, sizeof(p), dir, name);
	if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : diag_set(d, -errno, "%s: %s", p, strerror(errno));
	if (S_ISLNK(st.st_mode))
		return diag_set(d, -ELOOP,
				"%s is a symbolic link: testbed neither writes through a link nor "
				"replaces one; remove it",
				p);
	if (!(flags & WDIR_REPLACE))
		return diag_set(d, -EEXIST, "%s exists already: not overwritten", p);
	if (!S_ISREG(st.st_mode))
		return diag_set(d, -EEXIST, "%s is not a regular file: not replaced", p);
	if (st.st_uid != (wdir_asker(&u, &g) ? u : geteuid()))
		return diag_set(d, -EPERM,
				"%s belongs to uid %u: testbed replaces only files of the user who "
				"runs it (under sudo, the one who asked)",
				p, (unsigned)st.st_uid);
	return 0;
}

/* Renames from's fname to to's tname: over what is there with REPLACE, else never. */
static int rename_in(int from, const char *fname, int to, const char *tname, unsigned flags)
{
	if (flags & WDIR_REPLACE)
		return renameat(from, fname, to, tname) ? -errno : 0;
	if (!renameat2(from, fname, to, tname, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (linkat(from, fname, to, tname, 0)) /* a filesystem without RENAME_NOREPLACE */
		return -errno;
	(void)unlinkat(from, fname, 0);
	return 0;
}

int wdir_create(const struct wdir *dir, const char *name, int oflags, struct diag *d)
{
	char p[WDIR_PATH_MAX + WDIR_NAME_MAX + 2];
	int fd;

	wdir_join(p, sizeof(p), dir, name);
	if (bad_name(name, NAME_MAX))
		return diag_set(d, -EINVAL, "%s: not a file name", p);
	fd = may_create(dir->fd, dir->made, dir->path, dir->flags, d);
	if (fd)
		return fd;
	fd = openat(dir->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | oflags,
		    0644);
	if (fd < 0)
		return diag_set(d, -errno, "creating %s: %s", p, strerror(errno));
	return fd;
}

int wfile_open(struct wfile *f, const struct wdir *dir, const char *name, unsigned flags,
	       struct diag *d)
{
	char p[WDIR_PATH_MAX + WDIR_NAME_MAX + 2];
	struct diag dd = {0};
	int k, r;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->dir = dir;
	f->flags = flags | dir->flags;
	wdir_join(p, sizeof(p), dir, name);
	if (bad_name(name, WDIR_NAME_MAX))
		return diag_set(d, -EINVAL, "%s: not a file name", p);
	snprintf(f->name, sizeof(f->name), "%s", name);
	r = may_place(dir, name, f->flags, d);
	for (k = 0; !r && f->fd < 0 && k < TMP_TRIES; k++) {
		snprintf(f->tmp, sizeof(f->tmp), ".%s.%d-%d.tmp", name, (int)getpid(), k);
		diag_clear(&dd);
		f->fd = wdir_create(dir, f->tmp, 0, &dd);
		if (f->fd == -EACCES && dd.msg[0])
			r = diag_set(d, f->fd, "%s", dd.msg);
		else if (f->fd < 0 && f->fd != -EEXIST)
			r = diag_set(d, f->fd, "creating %s: %s", p, strerror(-f->fd));
	}
	if (!r && f->fd < 0)
		r = diag_set(d, -EEXIST, "creating %s: %d temporary names taken", p, TMP_TRIES);
	if (r) {
		f->fd = -1;
		f->tmp[0] = '\0';
	}
	return r;
}

int wfile_write(struct wfile *f, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (!f->err && len) {
		n = write(f->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			f->err = n < 0 ? -errno : -EIO;
		else
			p += n, len -= (size_t)n;
	}
	return f->err;
}

int wfile_commit(struct wfile *f, struct diag *d)
{
	char p[WDIR_PATH_MAX + WDIR_NAME_MAX + 2];
	int r = f->err;

	if (f->fd >= 0 && !r)
		give(f->fd, f->flags); /* complete: now the asker's */
	if (f->fd >= 0 && close(f->fd) && !r)
		r = -errno; /* a filesystem that reports at close (NFS) */
	f->fd = -1;
	wdir_join(p, sizeof(p), f->dir, f->name);
	if (!r && !(r = may_place(f->dir, f->name, f->flags, d))) {
		r = rename_in(f->dir->fd, f->tmp, f->dir->fd, f->name, f->flags);
		if (!r)
			f->tmp[0] = '\0';
	}
	wfile_abort(f);
	return r ? diag_set(d, r, "writing %s: %s", p, strerror(-r)) : 0;
}

void wfile_abort(struct wfile *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->tmp[0] && f->dir && f->dir->fd >= 0)
		(void)unlinkat(f->dir->fd, f->tmp, 0);
	f->tmp[0] = '\0';
}

int wdir_write(const struct wdir *dir, const char *name, const void *buf, size_t len,
	       unsigned flags, struct diag *d)
{
	struct wfile f;
	int r = wfile_open(&f, dir, name, flags, d);

	if (r)
		return r;
	wfile_write(&f, buf, len);
	return wfile_commit(&f, d);
}

int wdir_move(const struct wdir *from, const char *name, const struct wdir *to, unsigned flags,
	      struct diag *d)
{
	char p[WDIR_PATH_MAX + WDIR_NAME_MAX + 2];
	unsigned fl = flags | to->flags;
	int fd, r = may_place(to, name, fl, d);

	r = r ? r : may_create(to->fd, to->made, to->path, fl, d);
	if (r)
		return r;
	wdir_join(p, sizeof(p), to, name);
	fd = openat(from->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return diag_set(d, -errno, "moving %s: %s", p, strerror(errno));
	give(fd, fl);
	close(fd);
	r = rename_in(from->fd, name, to->fd, name, fl);
	return r ? diag_set(d, r, "moving %s: %s", p, strerror(-r)) : 0;
}

/* name in dir opened for reading as wdir_read says. An fd or -errno. */
static int open_read(const struct wdir *dir, const char *name)
{
	bool s = strict(dir->flags);
	int fd = openat(dir->fd, name,
			O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (s ? O_NOFOLLOW : 0));
	struct stat st;
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		r = -errno;
	else if (!S_ISREG(st.st_mode)) /* a FIFO would block, a device read forever */
		r = -EINVAL;
	else if (s && st.st_nlink > 1) /* a hard link to a file elsewhere */
		r = -EMLINK;
	if (r)
		close(fd);
	return r ? r : fd;
}

int wdir_read(const struct wdir *dir, const char *name, char **out, size_t *len)
{
	int fd = open_read(dir, name), r = 0;
	struct stat st;
	char *buf = NULL;
	ssize_t n;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st))
		r = -errno;
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		r = -ENOMEM;
	for (*len = 0; !r && *len < (size_t)st.st_size; *len += (size_t)n) {
		n = read(fd, buf + *len, (size_t)st.st_size - *len);
		if (n <= 0)
			r = n < 0 ? -errno : -EIO;
	}
	close(fd);
	if (r) {
		free(buf);
		return r;
	}
	buf[*len] = '\0';
	*out = buf;
	return 0;
}

const char *wdir_read_error(int r)
{
	if (r == -EINVAL)
		return "not a regular file";
	if (r == -EMLINK)
		return "a hard link to a file elsewhere: not read as root";
	if (r == -ELOOP)
		return "a symbolic link: not followed as root";
	return strerror(-r);
}

bool wdir_has(const struct wdir *dir, const char *name)
{
	struct stat st;

	return !fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW);
}
