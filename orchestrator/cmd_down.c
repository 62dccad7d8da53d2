// SPDX-License-Identifier: MIT
/* testbed down NAME: remove exactly what `up` made, from its journal; idempotent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "orchestrator/cmd.h"
#include "orchestrator/fabric.h"

static void down_usage(FILE *f)
{
	fprintf(f, "Usage: testbed down NAME...\n\n"
		   "Stops the testbed's processes and deletes its namespaces (with their links,\n"
		   "qdiscs, routes and nftables) and its state in /run/testbed/NAME. Works after\n"
		   "'up' was killed; what is already gone is skipped. Needs root.\n");
}

int cmd_down(int argc, char **argv)
{
	int i, r, rc = CMD_OK;

	if (cmd_wants_help(argc, argv)) {
		down_usage(stdout);
		return CMD_OK;
	}
	if (argc < 2) {
		down_usage(stderr);
		return CMD_USAGE;
	}
	if (cmd_need_root("down"))
		return CMD_FAIL;
	for (i = 1; i < argc; i++) {
		struct diag d = {0};

		r = fabric_down(argv[i], &d);
		if (r == -ENOENT) {
			fprintf(stderr,
				"testbed down: no testbed named '%s' ('testbed status' lists "
				"them)\n",
				argv[i]);
			rc = CMD_FAIL;
		} else if (r) {
			rc = cmd_fail("down", r, &d);
		} else {
			fprintf(stderr, "testbed down: '%s' removed\n", argv[i]);
		}
	}
	return rc;
}
