// SPDX-License-Identifier: MIT
/* testbed status [NAME]: which testbeds exist, whether they are complete, what they hold. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orchestrator/cmd.h"
#include "orchestrator/netns.h"
#include "orchestrator/state.h"

static void status_usage(FILE *f)
{
	fprintf(f, "Usage: testbed status [NAME]\n\n"
		   "Lists testbeds (name, state, namespaces, scenario); with NAME, also lists its\n"
		   "namespaces.\n");
}

static size_t live_netns(const struct state_journal *j)
{
	char path[512];
	size_t i, n = 0;

	for (i = 0; i < j->netns.n; i++) {
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, j->netns.v[i]);
		n += access(path, F_OK) == 0;
	}
	return n;
}

static int show_one(const char *name, int detail)
{
	struct state_journal j;
	struct diag d = {0};
	size_t i;
	int r;

	r = state_journal_read(name, &j, &d);
	if (r)
		return cmd_fail("status", r, &d);
	printf("%-14s %-10s %6zu namespaces  %s\n", name, j.complete ? "up" : "incomplete",
	       live_netns(&j), j.scenario ? j.scenario : "-");
	if (!j.complete)
		printf("  (not completely built: 'testbed down %s' removes what is there)\n", name);
	for (i = 0; detail && i < j.netns.n; i++)
		printf("  %s\n", j.netns.v[i]);
	state_journal_done(&j);
	return CMD_OK;
}

int cmd_status(int argc, char **argv)
{
	char **names;
	size_t n, i;
	int rc = CMD_OK;

	if (cmd_wants_help(argc, argv)) {
		status_usage(stdout);
		return CMD_OK;
	}
	if (argc == 2)
		return show_one(argv[1], 1);
	if (argc != 1) {
		status_usage(stderr);
		return CMD_USAGE;
	}
	if (state_list(&names, &n)) {
		fprintf(stderr, "testbed status: reading %s: %s\n", STATE_DIR, strerror(errno));
		return CMD_FAIL;
	}
	if (!n)
		printf("no testbeds\n");
	for (i = 0; i < n; i++) {
		if (show_one(names[i], 0) != CMD_OK)
			rc = CMD_FAIL;
		free(names[i]);
	}
	free(names);
	return rc;
}
