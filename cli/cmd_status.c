// SPDX-License-Identifier: MIT
/* testbed status [NAME]: which testbeds exist, whether they are complete, what they hold. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "kernel/netns.h"
#include "fabric/state.h"

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
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, j->netns.v[i].name);
		n += access(path, F_OK) == 0;
	}
	return n;
}

/* up: built and left up on purpose; running: its `up` is at work; orphaned: its `up` died
 * (killed, or the machine's processes were) before finishing or leaving it up; removing: a
 * `down` is at work; incomplete: not completely built, or a `down` was killed partway. */
static const char *state_word(const struct state_journal *j, bool *orphaned)
{
	bool alive = state_runner_alive(j);

	*orphaned = false;
	if (j->down) /* a `down` began removing it: at work, or killed partway */
		return state_down_alive(j) ? "removing" : "incomplete";
	*orphaned = j->runner && !alive && !j->detached;
	if (*orphaned)
		return "orphaned";
	if (alive && !j->detached)
		return j->complete ? "running" : "building";
	return j->complete ? "up" : "incomplete";
}

static int show_one(const char *name, int detail)
{
	struct state_journal j;
	struct diag d = {0};
	const char *word;
	bool orphaned;
	size_t i;
	int r;

	r = state_journal_read(name, &j, &d);
	if (r)
		return cmd_fail("status", r, &d);
	word = state_word(&j, &orphaned);
	printf("%-14s %-10s %6zu namespaces  %s\n", name, word, live_netns(&j),
	       j.scenario ? j.scenario : "-");
	if (j.down && state_down_alive(&j))
		printf("  ('testbed down' pid %d is removing it)\n", (int)j.down);
	else if (j.down)
		printf("  (partly removed: its 'testbed down' (pid %d) was stopped; 'testbed down "
		       "%s' removes the rest)\n",
		       (int)j.down, name);
	else if (orphaned)
		printf("  orphaned (runner gone): 'testbed down %s' removes it (its 'up' was pid "
		       "%d)\n",
		       name, (int)j.runner);
	else if (!j.complete && !state_runner_alive(&j))
		printf("  (not completely built: 'testbed down %s' removes what is there)\n", name);
	else if (state_runner_alive(&j) && !j.detached)
		printf("  ('up' pid %d is at work; 'testbed down %s' stops it and removes it)\n",
		       (int)j.runner, name);
	for (i = 0; detail && i < j.netns.n; i++)
		printf("  %s\n", j.netns.v[i].name);
	state_journal_done(&j);
	return CMD_OK;
}

int cmd_status(int argc, char **argv)
{
	char **names;
	size_t n, i;
	bool help;
	int rc = CMD_OK, ops = cmd_opts_parse("status", argc, argv, NULL, false, &help);

	if (help) {
		status_usage(stdout);
		return CMD_OK;
	}
	if (ops == 1)
		return show_one(argv[1], 1);
	if (ops != 0) {
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
