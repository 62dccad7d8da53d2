// SPDX-License-Identifier: MIT
/* run/emu/emu_find: where testbed looks for emu-node, from its own path (a build tree,
 * an installed prefix, the root, no directory at all), and the error naming both places. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/emu/emu_find.h"

struct t_case {
	const char *exe;
	const char *first, *second;
};

static void test_places(void **state)
{
	static const struct t_case c[] = {
		{"/usr/bin/testbed", "/usr/bin/emu-node", "/usr/libexec/testbed/emu-node"},
		{"/usr/local/bin/testbed", "/usr/local/bin/emu-node",
		 "/usr/local/libexec/testbed/emu-node"},
		{"/home/u/src/testbed/build/testbed", "/home/u/src/testbed/build/emu-node",
		 "/home/u/src/testbed/libexec/testbed/emu-node"},
		{"/opt/tb/bin/testbed (deleted)", "/opt/tb/bin/emu-node",
		 "/opt/tb/libexec/testbed/emu-node"},
		{"/bin/testbed", "/bin/emu-node", "/libexec/testbed/emu-node"},
		{"/testbed", "/emu-node", "/libexec/testbed/emu-node"},
		{"build/testbed", "build/emu-node", "./libexec/testbed/emu-node"},
		{"testbed", "./emu-node", "../libexec/testbed/emu-node"},
		{"", "./emu-node", "../libexec/testbed/emu-node"},
	};
	struct emu_find f;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		memset(&f, 0x5a, sizeof(f));
		assert_int_equal(emu_find_places(c[i].exe, &f), 0);
		if (strcmp(f.path[0], c[i].first) || strcmp(f.path[1], c[i].second))
			fail_msg("'%s': got %s, %s; want %s, %s", c[i].exe, f.path[0], f.path[1],
				 c[i].first, c[i].second);
	}
}

/* A path that leaves no room for "libexec/testbed/emu-node" is refused, not cut. */
static void test_too_long(void **state)
{
	static char exe[PATH_MAX];
	struct emu_find f;

	(void)state;
	memset(exe, 'a', sizeof(exe) - 1);
	exe[0] = '/';
	memcpy(exe + PATH_MAX - 20, "/bin/testbed", sizeof("/bin/testbed"));
	assert_int_equal(emu_find_places(exe, &f), -ENAMETOOLONG);
}

/* This test binary sits in BUILD/tests/, where neither place holds an emu-node: the error
 * names both, as they follow from its own path. */
static void test_missing(void **state)
{
	char self[PATH_MAX], buf[PATH_MAX] = "untouched";
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct diag d = {0};
	struct emu_find f;

	(void)state;
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(emu_find_places(self, &f), 0);
	assert_int_not_equal(access(f.path[0], F_OK), 0);
	assert_int_not_equal(access(f.path[1], F_OK), 0);
	assert_int_equal(emu_find(buf, sizeof(buf), &d), -ENOENT);
	assert_string_equal(buf, "untouched");
	assert_non_null(strstr(d.msg, f.path[0]));
	assert_non_null(strstr(d.msg, f.path[1]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_places),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
