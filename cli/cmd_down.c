// SPDX-License-Identifier: MIT
/* testbed down NAME: remove exactly what `up` made, from its journal; idempotent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "fabric/fabric.h"

static void down_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed down NAME...\n\n"
		"Stops the testbed's 'up' if it is still running, then its processes, and\n"
		"deletes its namespaces (with their links, qdiscs, routes and nftables) and its\n"
		"state in /run/testbed/NAME. Works after 'up' was killed; what is already gone\n"
		"is skipped, and a namespace 'up' did not make is left alone. Needs root.\n");
}

static void down_said(const char *name, const struct fabric_down_info *in)
{
	if (in->runner)
		cmd_note("testbed down: stopped the running 'up' of '%s' (pid %d)%s\n", name,
			 (int)in->runner,
			 in->runner_killed ? ", killed: it did not stop in time" : "");
	cmd_said_foreign("down", in);
	cmd_note("testbed down: '%s' removed\n", name);
}

int cmd_down(int argc, char **argv)
{
	bool help;
	int i, r, rc = CMD_OK;

	argc = 1 + cmd_opts_parse("down", argc, argv, NULL, false, &help);
	if (help) {
		down_usage(stdout);
		return CMD_OK;
	}
	if (argc < 2) {
		down_usage(stderr);
		return CMD_USAGE;
	}
	for (i = 1; i < argc; i++) {
		struct diag d = {0};

		if (state_name_check(argv[i], &d))
			return cmd_fail("down", -EINVAL, &d);
	}
	if (cmd_need_root("down"))
		return CMD_FAIL;
	for (i = 1; i < argc; i++) {
		struct fabric_down_info info;
		struct diag d = {0};

		r = fabric_down(argv[i], &info, &d);
		if (r == -EALREADY) {
			if (info.waited_for > 0)
				fprintf(stderr,
					"testbed down: '%s' was removed by another 'testbed down' "
					"(pid %d), waited for\n",
					argv[i], (int)info.waited_for);
			else
				fprintf(stderr,
					"testbed down: '%s' was removed meanwhile by another "
					"'testbed down'\n",
					argv[i]);
		} else if (r == -ENOENT) {
			fprintf(stderr,
				"testbed down: no testbed named '%s' ('testbed status' lists "
				"them)\n",
				argv[i]);
			rc = CMD_FAIL;
		} else if (r) {
			rc = cmd_fail("down", r, &d);
		} else {
			down_said(argv[i], &info);
		}
	}
	return rc;
}
