// SPDX-License-Identifier: MIT
/* testbed doctor [FILE]: whether this kernel and machine have everything the testbed uses (or
 * a scenario needs): one line per feature, ok, or what is missing, who needs it and what to
 * do. The probes run in a throwaway namespace (doctor_probe.h); the verdict is doctor.h's. */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "model/gen.h"
#include "cli/cmd.h"
#include "doctor/doctor.h"
#include "doctor/doctor_probe.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"

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
	struct world w;
	int r = choice ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (v = 1; !r && v < s->variants; v++) {
		exp_sweep_choice(s, v * s->seeds, choice);
		r = world_load(path, (struct world_ask){.choice = choice}, &w, d);
		if (!r) {
			doctor_needs_of(&w.e, w.t, &w.plan, &w.jobs, &vn);
			doctor_needs_merge(n, &vn);
		}
		world_done(&w);
	}
	free(choice);
	return r;
}

/* What the scenario at path needs, refusing bad input as `check` does. */
static int load_needs(const char *path, struct doctor_needs *n, struct diag *d)
{
	struct world w;
	int r;

	r = world_load(path, (struct world_ask){.every_variant = true}, &w, d);
	if (!r)
		doctor_needs_of(&w.e, w.t, &w.plan, &w.jobs, n);
	if (!r && w.e.sweep.axes.n)
		r = sweep_needs(path, &w.e.sweep, n, d);
	world_done(&w);
	n->file = path; /* the world's copy is gone */
	return r;
}

/* Whether any run of the scenario at path has a link delay (doctor_delayed); false for a file
 * that does not load (check says why). */
static bool file_delayed(const char *path)
{
	struct experiment e0, e;
	struct topo *t;
	struct diag d = {0};
	uint32_t *choice, v, variants;
	bool delayed = false;

	if (exp_parse_file(path, &e0, &d)) {
		exp_done(&e0);
		return false;
	}
	variants = e0.sweep.axes.n ? e0.sweep.variants : 1;
	choice = calloc(e0.sweep.axes.n + 1, sizeof(*choice));
	for (v = 0; choice && !delayed && v < variants; v++) {
		t = NULL;
		if (e0.sweep.axes.n)
			exp_sweep_choice(&e0.sweep, v * e0.sweep.seeds, choice);
		if (!exp_parse_file_variant(path, e0.sweep.axes.n ? choice : NULL, &e, &d) &&
		    !topo_build(&e.s, &t, &d))
			delayed = doctor_delayed(t);
		topo_free(t);
		exp_done(&e);
		diag_clear(&d);
	}
	free(choice);
	exp_done(&e0);
	return delayed;
}

/* Under the netem line, without FILE: which shipped scenarios (cmd_scenarios_dir, and its
 * folders one level down) need it; none should without saying so. */
static void netem_users(void)
{
	char dir[PATH_MAX], pat[PATH_MAX + 16], users[512] = "";
	size_t i, n = 0, o = 0, k_users = 0;
	glob_t g;
	int k;

	if (cmd_scenarios_dir(NULL, dir, sizeof(dir)))
		return;
	for (k = 0; k < 2; k++) {
		snprintf(pat, sizeof(pat), k ? "%s/*/*.yaml" : "%s/*.yaml", dir);
		if (glob(pat, k ? GLOB_APPEND : 0, NULL, &g) && !k)
			return;
	}
	for (i = 0; i < g.gl_pathc; i++, n++) {
		if (!file_delayed(g.gl_pathv[i]))
			continue;
		k_users++;
		if (o < sizeof(users))
			o += (size_t)snprintf(users + o, sizeof(users) - o, "%s%s", o ? ", " : "",
					      g.gl_pathv[i] + strlen(dir) + 1);
	}
	globfree(&g);
	if (k_users)
		printf("%-19s shipped scenarios that need it (%zu of %zu in %s): %s\n", "", k_users,
		       n, dir, users);
	else
		printf("%-19s no shipped scenario needs it (%zu in %s)\n", "", n, dir);
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
		if (f == DOCTOR_NETEM && !n->file && res[f].state == DOCTOR_MISSING)
			netem_users();
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
	bool help;
	int nops = cmd_opts_parse("doctor", argc, argv, NULL, false, &help), r;

	if (help) {
		doctor_usage(stdout);
		return CMD_OK;
	}
	if (nops < 0 || nops > 1) {
		doctor_usage(stderr);
		return CMD_USAGE;
	}
	doctor_needs_core(&n);
	r = nops == 1 ? load_needs(argv[1], &n, &d) : 0;
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
