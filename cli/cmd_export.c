// SPDX-License-Identifier: MIT
/* testbed export (--dot | --containerlab) [--out FILE] SCENARIO: the scenario's topology as a
 * Graphviz graph or a containerlab topology file. Needs no root and touches no kernel state. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/topo_export.h"
#include "model/gen.h"
#include "cli/cmd.h"
#include "scenario/scenario_sweep.h"
#include "kernel/wdir.h"

static void export_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed export (--dot | --containerlab) [--out FILE] SCENARIO\n\n"
		"Writes the topology the scenario builds (a sweep's: its baseline variant's), at\n"
		"the scenario's own rates. --dot: a Graphviz graph, nodes by role, endpoints with\n"
		"their address and grouped per leaf, board or group, links with rate and delay\n"
		"(dot -Tsvg draws it). --containerlab: a containerlab topology file with the same\n"
		"wiring and addresses (routing, ECMP and shaping are not exported). --out FILE\n"
		"writes there instead of standard output. Needs no root. Exit 0, 1 if FILE cannot\n"
		"be written, 2 for bad input.\n");
}

enum export_fmt {
	EXPORT_NONE,
	EXPORT_DOT,
	EXPORT_CLAB,
};

struct export_args {
	enum export_fmt fmt;
	const char *out, *file;
};

/* argv into a: one format, --out FILE at most once, one scenario. 0, or -EINVAL (also for
 * --help, with *help set). */
static int export_args_parse(int argc, char **argv, struct export_args *a, bool *help)
{
	bool dot = false, clab = false;
	const struct cmd_opt opts[] = {{"dot", NULL, &dot},
				       {"containerlab", NULL, &clab},
				       {"out", &a->out, NULL},
				       {NULL, NULL, NULL}};
	int n;

	memset(a, 0, sizeof(*a));
	n = cmd_opts_parse("export", argc, argv, opts, false, help);
	if (n != 1 || *help || dot == clab || (a->out && !a->out[0]))
		return -EINVAL;
	a->fmt = dot ? EXPORT_DOT : EXPORT_CLAB;
	a->file = argv[1];
	return 0;
}

static int paper_topo(const struct world *w, struct topo **out, struct diag *d)
{
	struct scenario s = w->e.s; /* a shallow copy, only read: it owns nothing of its own */

	s.emulation.rate_scale = 1;
	return topo_build(&s, out, d);
}

/* What stderr should know: the variant a sweep exports, and whose rates these are. */
static void export_notes(const struct world *w)
{
	const struct exp_sweep *sw = &w->e.sweep;
	uint32_t *first = sw->axes.n ? calloc(sw->axes.n, sizeof(*first)) : NULL;
	char label[256];

	if (first) {
		exp_sweep_label(sw, first, false, label, sizeof(label));
		fprintf(stderr,
			"testbed export: note: %s sweeps %u variants: this is the topology of its "
			"baseline (%s)\n",
			w->e.s.path, sw->variants, label);
	}
	free(first);
	if (w->e.s.emulation.rate_scale != 1)
		fprintf(stderr,
			"testbed export: note: emulation.rate_scale is %g: the rates written are "
			"the scenario's, not the emulated ones\n",
			w->e.s.emulation.rate_scale);
}

/* The export of w in format fmt, written to out. 0, or -errno with d set. */
static int export_world(const struct world *w, const struct export_args *a, struct diag *d)
{
	struct col_text o = {0};
	struct topo *t = NULL;
	char *text;
	size_t len;
	int r = paper_topo(w, &t, d);

	if (!r && a->fmt == EXPORT_DOT)
		r = col_topo_dot(&o, t, w->e.s.name);
	else if (!r)
		r = col_topo_clab(&o, t, w->e.s.name);
	text = r ? NULL : col_text_take(&o, &len);
	if (!r && !text)
		r = -ENOMEM;
	if (r == -ENOMEM)
		diag_set(d, r, "out of memory");
	if (!r)
		r = cmd_write_out(a->out, text, len, d);
	free(text);
	col_text_done(&o);
	topo_free(t);
	return r;
}

int cmd_export(int argc, char **argv)
{
	struct export_args a;
	struct world w;
	struct diag d = {0};
	int r;

	bool help;
	int err = export_args_parse(argc, argv, &a, &help);

	if (help) {
		export_usage(stdout);
		return CMD_OK;
	}
	if (err) {
		export_usage(stderr);
		return CMD_USAGE;
	}
	r = world_load(a.file, (struct world_ask){.every_variant = true}, &w, &d);
	if (!r)
		export_notes(&w);
	if (!r)
		r = export_world(&w, &a, &d);
	world_done(&w);
	return r ? cmd_fail("export", r, &d) : CMD_OK;
}
