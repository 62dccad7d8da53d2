// SPDX-License-Identifier: MIT
/* testbed exec NAME NODE -- CMD...: run a command inside a node's namespace. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/cmd.h"
#include "orchestrator/fabric.h"
#include "orchestrator/netns.h"

static void exec_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed exec NAME NODE -- COMMAND [ARG...]\n\n"
		"Runs COMMAND inside node NODE (e.g. h0, l1, s0) of testbed NAME. Needs root.\n");
}

int cmd_exec(int argc, char **argv)
{
	char ns[256];
	int fd, r;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		exec_usage(stdout);
		return CMD_OK;
	}
	if (argc < 5 || strcmp(argv[3], "--")) {
		exec_usage(stderr);
		return CMD_USAGE;
	}
	if (cmd_need_root("exec"))
		return CMD_FAIL;
	fabric_ns_name(ns, sizeof(ns), argv[1], argv[2]);
	fd = netns_open(ns);
	if (fd < 0) {
		fprintf(stderr, "testbed exec: no node '%s' in testbed '%s' (%s/%s: %s)\n", argv[2],
			argv[1], NETNS_RUN_DIR, ns, strerror(-fd));
		return CMD_FAIL;
	}
	r = netns_enter(fd);
	close(fd);
	if (!r)
		r = netns_remount_sys();
	if (r) {
		fprintf(stderr, "testbed exec: entering %s: %s\n", ns, strerror(-r));
		return CMD_FAIL;
	}
	execvp(argv[4], argv + 4);
	fprintf(stderr, "testbed exec: %s: %s\n", argv[4], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
