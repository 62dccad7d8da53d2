// SPDX-License-Identifier: MIT
/* Locating emu-node from testbed's own path (emu_find.h): the candidates are a pure function
 * of that path, then access(2) picks the first that is there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run/emu/emu_find.h"

#define EMU_FIND_NAME "emu-node"
#define EMU_FIND_LIBEXEC "libexec/testbed/" EMU_FIND_NAME /* under the prefix: Makefile */

static int put(char *buf, const char *dir, int dlen, const char *rest)
{
	int n = snprintf(buf, PATH_MAX, "%.*s/%s", dlen, dir, rest);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

int emu_find_places(const char *exe, struct emu_find *f)
{
	const char *slash = strrchr(exe, '/'), *dir = ".", *parent = "..", *up;
	int dlen = 1, plen = 2;

	if (slash) { /* "/usr/bin/testbed": "/usr/bin", "/usr"; "/testbed": the root, twice */
		dir = parent = exe;
		dlen = (int)(slash - exe);
		up = memrchr(exe, '/', (size_t)dlen);
		plen = up ? (int)(up - exe) : 0;
		if (!up && dlen) { /* "build/testbed": the parent is the working directory */
			parent = ".";
			plen = 1;
		}
	}
	if (put(f->path[0], dir, dlen, EMU_FIND_NAME) ||
	    put(f->path[1], parent, plen, EMU_FIND_LIBEXEC))
		return -ENAMETOOLONG;
	return 0;
}

int emu_find(char *buf, size_t len, struct diag *d)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct emu_find f;
	int i;

	self[n > 0 ? n : 0] = '\0';
	if (emu_find_places(self, &f))
		return diag_set(d, -ENAMETOOLONG, "locating %s: %s: %s", EMU_FIND_NAME, self,
				strerror(ENAMETOOLONG));
	for (i = 0; i < EMU_FIND_N; i++) {
		if (access(f.path[i], X_OK))
			continue;
		if ((size_t)snprintf(buf, len, "%s", f.path[i]) >= len)
			return diag_set(d, -ENAMETOOLONG, "%s: %s", f.path[i],
					strerror(ENAMETOOLONG));
		return 0;
	}
	return diag_set(d, -ENOENT,
			"%s not found: neither %s nor %s is an executable file ('make' builds it "
			"beside testbed, 'make install' puts it in libexec/testbed/)",
			EMU_FIND_NAME, f.path[0], f.path[1]);
}
