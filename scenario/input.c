// SPDX-License-Identifier: MIT
/* Files the user names, read only when regular (input.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario/input.h"

static const char *kind_name(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a file";
}

/* Reads what fstat said the file holds (a file that grows meanwhile is read as it was). */
static int read_all(int fd, char *buf, size_t size, size_t *len)
{
	size_t n = 0;
	ssize_t got = 1;

	while (got && n < size) {
		got = read(fd, buf + n, size - n);
		if (got < 0 && errno != EINTR)
			return -errno;
		n += got > 0 ? (size_t)got : 0;
		got = got < 0 ? 1 : got;
	}
	*len = n;
	return 0;
}

static int checked_read(int fd, const char *path, size_t max, const char *what, char **out,
			size_t *len, struct diag *d)
{
	struct stat st;
	char *buf;
	int r;

	if (fstat(fd, &st))
		return diag_set(d, -errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return diag_set(d, -EISDIR, "%s: %s", path, strerror(EISDIR));
	if (!S_ISREG(st.st_mode))
		return diag_set(d, -EINVAL, "%s: not a regular file (%s)", path,
				kind_name(st.st_mode));
	if ((unsigned long long)st.st_size > max)
		return diag_set(d, -EFBIG, "%s: larger than %zu MiB, %s", path, max >> 20, what);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return diag_set(d, -ENOMEM, "%s: out of memory", path);
	r = read_all(fd, buf, (size_t)st.st_size, len);
	if (r) {
		free(buf);
		return diag_set(d, r, "%s: %s", path, strerror(-r));
	}
	buf[*len] = '\0';
	*out = buf;
	return 0;
}

int input_read(const char *path, size_t max, const char *what, char **out, size_t *len,
	       struct diag *d)
{
	int fd, r;

	*out = NULL;
	*len = 0;
	/* non-blocking: opening a FIFO must not wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return diag_set(d, -errno, "%s: %s", path, strerror(errno));
	r = checked_read(fd, path, max, what, out, len, d);
	close(fd);
	return r;
}
