// SPDX-License-Identifier: MIT
/* testbed exec NAME NODE -- CMD...: run a command inside a node's namespace. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "fabric/fabric.h"
#include "kernel/netns.h"

static void exec_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed exec NAME NODE -- COMMAND [ARG...]\n\n"
		"Runs COMMAND inside node NODE (e.g. h0, l1, s0) of testbed NAME. Needs root.\n");
}

/* Opens node's namespace if the testbed's journal proves it made it (state.h): exec never
 * enters a namespace that only shares the name. fd or -errno with d set. */
static int open_node(const char *name, const char *node, struct diag *d)
{
	struct state_journal j;
	char ns[256];
	struct stat st;
	size_t i;
	int fd, r;

	r = state_journal_read(name, &j, d);
	if (r)
		return r;
	fabric_ns_name(ns, sizeof(ns), name, node);
	for (i = 0; i < j.netns.n && strcmp(j.netns.v[i].name, ns); i++)
		;
	fd = netns_open(ns);
	if (i == j.netns.n || fd < 0) {
		r = diag_set(d, -ENOENT, "no node '%s' in testbed '%s' (%s/%s: %s)", node, name,
			     NETNS_RUN_DIR, ns, strerror(fd < 0 ? -fd : ENOENT));
	} else if (fstat(fd, &st) || !j.netns.v[i].have_ns || st.st_dev != j.netns.v[i].ns_dev ||
		   st.st_ino != j.netns.v[i].ns_ino) {
		r = diag_set(d, -EPERM, "%s/%s is not the namespace testbed '%s' made; not entered",
			     NETNS_RUN_DIR, ns, name);
	}
	state_journal_done(&j);
	if (r && fd >= 0)
		close(fd);
	return r ? r : fd;
}

/* Node names are the model's: [a-z0-9-], as short as an interface name. */
static int node_name_check(const char *node, struct diag *d)
{
	const char *p;

	for (p = node; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			break;
	if (p > node && !*p && p - node < 16)
		return 0;
	return diag_set(d, -EINVAL, "node: expected 1 to 15 characters [a-z0-9-], found '%.64s'",
			node);
}

int cmd_exec(int argc, char **argv)
{
	struct diag d = {0};
	bool help;
	int n = cmd_opts_parse("exec", argc, argv, NULL, true, &help), fd, r;

	if (help) {
		exec_usage(stdout);
		return CMD_OK;
	}
	if (n < 4 || strcmp(argv[3], "--")) {
		exec_usage(stderr);
		return CMD_USAGE;
	}
	if (state_name_check(argv[1], &d) || node_name_check(argv[2], &d))
		return cmd_fail("exec", -EINVAL, &d);
	if (cmd_need_root("exec"))
		return CMD_FAIL;
	fd = open_node(argv[1], argv[2], &d);
	if (fd < 0)
		return cmd_fail("exec", fd == -EINVAL ? -EIO : fd, &d);
	r = netns_enter(fd);
	close(fd);
	if (!r)
		r = netns_remount_sys();
	if (r) {
		fprintf(stderr, "testbed exec: entering the namespace of %s: %s\n", argv[2],
			strerror(-r));
		return CMD_FAIL;
	}
	execvp(argv[4], argv + 4);
	fprintf(stderr, "testbed exec: %s: %s\n", argv[4], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
