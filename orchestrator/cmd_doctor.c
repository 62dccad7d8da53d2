// SPDX-License-Identifier: MIT
/* testbed doctor [FILE]: whether this kernel and machine have everything the testbed uses (or
 * a scenario needs): one line per feature, ok, or what is missing, who needs it and what to
 * do. The probes run in a throwaway namespace (doctor_probe.h); the verdict is doctor.h's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "orchestrator/cmd.h"
#include "orchestrator/doctor.h"
#include "orchestrator/doctor_probe.h"
#include "orchestrator/scenario_sweep.h"

static void doctor_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed [-v] doctor [FILE]\n\n"
		"Tries everything the testbed uses on this kernel and machine, inside a throwaway\n"
		"network namespace that is gone afterwards (no packet is sent): namespaces, veth\n"
		"pairs, the qdiscs tbf, htb, pfifo, bfifo, netem and ingress (mq for "
		"information),\n"
		"u32 filters and mirred actions, nftables' sets, maps, jhash and numgen, policy\n"
		"routing, multipath routes, emu-node's io_uring, memory and the open-file limit.\n"
		"Prints one line per feature: ok, or missing with what needs it and what to do\n"
		"(-v adds the kernel's own words). With FILE it also weighs what that scenario\n"
		"needs (its largest topology, its emu-nodes' connections) and names the field\n"
		"that needs each feature. Exit 0 if everything FILE needs (without FILE: "
		"namespaces,\n"
		"veth, tbf or htb, nftables, io_uring) is here, 1 if not, 2 for a bad FILE.\n"
		"Needs root. 'testbed up' runs the same checks for its scenario before it "
		"builds.\n");
}

/* A sweep's other variants: the largest topology and every feature any of them needs. */
static int sweep_needs(const char *path, const struct exp_sweep *s, struct doctor_needs *n,
		       struct diag *d)
{
	uint32_t *choice = calloc(s->axes.n + 1, sizeof(*choice)), v;
	struct doctor_needs vn;
	struct cmd_world w;
	int r = choice ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (v = 1; !r && v < s->variants; v++) {
		exp_sweep_choice(s, v * s->seeds, choice);
		r = cmd_world_load_variant(path, choice, &w, d);
		if (!r) {
			doctor_needs_of(&w.e, w.t, &w.plan, &w.jobs, &vn);
			doctor_needs_merge(n, &vn);
		}
		cmd_world_done(&w);
	}
	free(choice);
	return r;
}

/* What the scenario at path needs, refusing bad input as `check` does. */
static int load_needs(const char *path, struct doctor_needs *n, struct diag *d)
{
	struct cmd_world w;
	int r;

	r = cmd_world_load(path, &w, d);
	if (!r)
		doctor_needs_of(&w.e, w.t, &w.plan, &w.jobs, n);
	if (!r && w.e.sweep.axes.n)
		r = sweep_needs(path, &w.e.sweep, n, d);
	cmd_world_done(&w);
	n->file = path; /* the world's copy is gone */
	return r;
}

/* Every feature's line; returns how many block (the exit status) and names them in why. */
static int print_lines(const struct doctor_needs *n, const struct doctor_result res[], char *why,
		       size_t len)
{
	const char *status;
	char text[1024];
	size_t o = 0;
	int f, blocking = 0;

	for (f = 0; f < DOCTOR_FEATS; f++) {
		if (doctor_line(n, res, f, &status, text, sizeof(text))) {
			blocking++;
			o += (size_t)snprintf(why + o, o < len ? len - o : 0, "%s%s (%s)",
					      blocking > 1 ? ", " : "", doctor_feat_name(f),
					      n->f[f].field);
		}
		printf("%-10s %-8s %s\n", doctor_feat_name(f), status, text);
		if (log_level >= LOG_DEBUG && res[f].detail[0] && strcmp(res[f].detail, text))
			printf("%-19s %s\n", "", res[f].detail);
	}
	return blocking;
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor_result res[DOCTOR_FEATS];
	struct doctor_needs n;
	struct doctor_limits lim;
	bool want[DOCTOR_FEATS];
	struct diag d = {0};
	char emu[PATH_MAX], why[512] = "";
	int r;

	if (cmd_wants_help(argc, argv)) {
		doctor_usage(stdout);
		return CMD_OK;
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		doctor_usage(stderr);
		return CMD_USAGE;
	}
	doctor_needs_core(&n);
	r = argc == 2 ? load_needs(argv[1], &n, &d) : 0;
	if (r)
		return cmd_fail("doctor", r, &d);
	if (!doctor_probe_root(&res[DOCTOR_ROOT])) {
		fprintf(stderr,
			"testbed doctor: needs root (network namespaces and netlink); run it "
			"with sudo\n");
		return CMD_FAIL;
	}
	cmd_emu_path(emu, sizeof(emu));
	doctor_wanted(&n, true, want);
	doctor_probe(want, emu, res, &lim);
	doctor_judge_limits(&n, &lim, res);
	if (print_lines(&n, res, why, sizeof(why))) {
		printf("not ready: %s\n", why);
		return CMD_FAIL;
	}
	printf("ready: everything %s needs is here\n", n.file ? n.file : "the testbed");
	return CMD_OK;
}
