// SPDX-License-Identifier: MIT
/* Helpers shared by the subcommands (see cmd.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "model/gen.h"
#include "orchestrator/cmd.h"
#include "orchestrator/scenario_yaml.h"

int cmd_world_load(const char *path, struct cmd_world *w, struct diag *d)
{
	int r;

	memset(w, 0, sizeof(*w));
	r = scn_parse_file(path, &w->s, d);
	if (r)
		return r;
	r = topo_build(&w->s, &w->t, d);
	if (r)
		return diag_wrap(d, -EINVAL, "%s: ", path);
	r = paths_compute(w->t, &w->paths);
	if (r)
		return diag_set(d, r, "computing paths: out of memory");
	return route_plan_build(w->t, &w->paths, &w->plan, d);
}

void cmd_world_done(struct cmd_world *w)
{
	route_plan_done(&w->plan);
	paths_done(&w->paths);
	topo_free(w->t);
	w->t = NULL;
	scn_done(&w->s);
}

int cmd_fail(const char *cmd, int r, const struct diag *d)
{
	if (d && d->msg[0])
		fprintf(stderr, "testbed %s: %s\n", cmd, d->msg);
	else
		fprintf(stderr, "testbed %s: %s\n", cmd, strerror(-r));
	return r == -EINVAL ? CMD_USAGE : CMD_FAIL;
}

int cmd_wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	}
	return 0;
}

int cmd_need_root(const char *cmd)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr,
		"testbed %s: needs root (network namespaces and netlink); run it with sudo\n", cmd);
	return -EPERM;
}
