// SPDX-License-Identifier: MIT
/* testbed slurm: a script that submits a sweep (or a reproduction) to a Slurm cluster as a job
 * array, one task per shard (`--shard $((SLURM_ARRAY_TASK_ID+1))/N`), and a report job that
 * runs once every task has ended well (--dependency=afterok): Slurm's own arrays and
 * dependencies, nothing home-made (docs/scaling.md). The script is written here and submitted
 * by the user; this command runs nothing on the cluster. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "collect/text.h"
#include "report/repro.h"
#include "report/sweep_report.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed slurm [--partition P] [--time T] [--array-max M] [--shards N]\n"
		"                     [--cpus C] [--results DIR] [--out FILE]\n"
		"                     ([--up] FILE | reproduce [--sim] [--quick] [--scenarios DIR] "
		"[PAPER...])\n\n"
		"Writes a script that, run with bash on a machine that can submit to Slurm,\n"
		"submits the sweep of FILE (in virtual time: 'testbed sim'; --up: emulated) or\n"
		"a reproduction as a job array of N tasks, task I running 'testbed ... --shard\n"
		"I/N', and a report job that Slurm starts once every task has ended well\n"
		"(--dependency=afterok) and that runs 'testbed report' on their folder. N\n"
		"(--shards) defaults to the sweep's runs, up to 64 (a reproduction: 16); M\n"
		"(--array-max) caps the tasks running at once; P and T go to sbatch as they\n"
		"are; C is each task's cores (sim runs that many runs at once, -j C).\n"
		"DIR (default ./results) must be a folder every node sees at the same path,\n"
		"and so must this testbed and the scenarios. Emulated tasks (--up, or a\n"
		"reproduction without --sim) run on whole nodes (--exclusive) and need root\n"
		"there: run testbed as root, or in a privileged container (docs/scaling.md).\n"
		"The script goes to FILE (--out) or standard output. Needs no root.\n");
}

struct slurm_opts {
	const char *partition, *time, *array_max, *shards, *cpus, *results, *out, *scenarios;
	bool up, sim, quick, repro;
	const char *file; /* the scenario, or NULL with repro */
	const char *papers[8];
	size_t np;
};

/* What the script needs, absolute: the testbed, the scenario or the scenarios' folder, the
 * results' folder; the runs, the shards and the report's folder. */
struct slurm_plan {
	char testbed[PATH_MAX], input[PATH_MAX], results[PATH_MAX], report[PATH_MAX + 96];
	char name[64]; /* the jobs' names: testbed-<scenario>, testbed-reproduce */
	uint32_t runs, shards, array_max, cpus;
	bool emulated;
};

/* argv into o. 0, or -EINVAL (said). */
static int parse(int argc, char **argv, struct slurm_opts *o, bool *help)
{
	const struct cmd_opt opts[] = {{"partition", &o->partition, NULL},
				       {"time", &o->time, NULL},
				       {"array-max", &o->array_max, NULL},
				       {"shards", &o->shards, NULL},
				       {"cpus", &o->cpus, NULL},
				       {"results", &o->results, NULL},
				       {"out", &o->out, NULL},
				       {"scenarios", &o->scenarios, NULL},
				       {"up", NULL, &o->up},
				       {"sim", NULL, &o->sim},
				       {"quick", NULL, &o->quick},
				       {NULL, NULL, NULL}};
	int n = cmd_opts_parse("slurm", argc, argv, opts, false, help), i;

	if (n < 0 || *help)
		return -EINVAL;
	if (n >= 1 && !strcmp(argv[1], "reproduce")) {
		o->repro = true;
		if ((size_t)n - 1 > sizeof(o->papers) / sizeof(o->papers[0]))
			return -EINVAL;
		for (i = 2; i <= n; i++)
			o->papers[o->np++] = argv[i];
		if (o->up)
			fprintf(stderr, "testbed slurm: --up: a reproduction runs emulated unless "
					"--sim is given\n");
		return o->up ? -EINVAL : 0;
	}
	if (n != 1 || o->sim || o->quick || o->scenarios) {
		if (n == 1)
			fprintf(stderr, "testbed slurm: --sim, --quick and --scenarios are "
					"'reproduce' options; a FILE runs in virtual time unless "
					"--up\n");
		return -EINVAL;
	}
	o->file = argv[1];
	return 0;
}

/* A count option: 1 .. max, or def when not given. 0, or -EINVAL with d set. */
static int count(const char *arg, const char *name, uint32_t def, uint32_t max, uint32_t *out,
		 struct diag *d)
{
	char *end;
	unsigned long v;

	*out = def;
	if (!arg)
		return 0;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !v || v > max)
		return diag_set(d, -EINVAL, "--%s: expected 1 to %u, found '%s'", name, max, arg);
	*out = (uint32_t)v;
	return 0;
}

/* path made absolute (it need not exist yet) into out. */
static int absolute(const char *path, char *out, size_t len, struct diag *d)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return snprintf(out, len, "%s", path) < (int)len
			       ? 0
			       : diag_set(d, -ENAMETOOLONG, "%s: too long", path);
	if (!getcwd(cwd, sizeof(cwd)))
		return diag_set(d, -errno, "the working folder: %s", strerror(errno));
	return snprintf(out, len, "%s/%s", cwd, path) < (int)len
		       ? 0
		       : diag_set(d, -ENAMETOOLONG, "%s/%s: too long", cwd, path);
}

/* The scenario's runs and name. */
static int scenario_runs(const char *file, struct slurm_plan *p, struct diag *d)
{
	struct experiment e;
	int err = exp_parse_file(file, &e, d);

	if (!err && e.sweep.axes.n)
		err = exp_sweep_check(file, &e.sweep, d);
	if (!err) {
		p->runs = e.sweep.axes.n ? e.sweep.variants * e.sweep.seeds : 1;
		snprintf(p->name, sizeof(p->name), "testbed-%.48s", e.s.name);
		snprintf(p->report, sizeof(p->report), "%s/%s/%s", p->results, e.s.name,
			 e.sweep.axes.n ? SWEEP_SHARD_DIR : SWEEP_SHARD_RUN_DIR);
	}
	exp_done(&e);
	return err;
}

/* The reproduction's runs: every selected scenario's, as `reproduce` would run them. */
static int repro_runs(const struct slurm_opts *o, struct slurm_plan *p, struct diag *d)
{
	uint32_t idx[REPRO_ITEMS_MAX];
	char file[PATH_MAX + 256];
	struct experiment e;
	size_t n = 0, i;
	int err = repro_select(o->papers, o->np, o->quick, idx, &n, d);

	p->runs = 0;
	for (i = 0; !err && i < n; i++) {
		p->emulated |= repro_backend_of(&repro_items[idx[i]], o->quick, o->sim) == REPRO_UP;
		snprintf(file, sizeof(file), "%s/%s", p->input, repro_items[idx[i]].file);
		err = exp_parse_file(file, &e, d);
		if (!err)
			p->runs += e.sweep.axes.n ? e.sweep.variants * e.sweep.seeds : 1;
		exp_done(&e);
	}
	snprintf(p->name, sizeof(p->name), "testbed-reproduce");
	snprintf(p->report, sizeof(p->report), "%s", p->results);
	return err;
}

static int plan(const struct slurm_opts *o, struct slurm_plan *p, struct diag *d)
{
	ssize_t n = readlink("/proc/self/exe", p->testbed, sizeof(p->testbed) - 1);
	int err;

	if (n <= 0)
		return diag_set(d, -errno, "this testbed's path: %s", strerror(errno));
	p->testbed[n] = '\0';
	err = absolute(o->results ? o->results : "results", p->results, sizeof(p->results), d);
	if (!err && o->repro && cmd_scenarios_dir(o->scenarios, p->input, sizeof(p->input)))
		err = diag_set(d, -ENOENT, "no scenarios folder: %s (give --scenarios DIR)",
			       o->scenarios ? o->scenarios
					    : "neither ./scenarios nor the installed one");
	if (!err && o->repro && p->input[0] != '/') {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "%s", p->input);
		err = absolute(rel, p->input, sizeof(p->input), d);
	}
	if (!err && !o->repro && !realpath(o->file, p->input))
		err = diag_set(d, -errno, "%s: %s", o->file, strerror(errno));
	p->emulated = o->up;
	err = err ? err : o->repro ? repro_runs(o, p, d) : scenario_runs(p->input, p, d);
	err = err ? err
		  : count(o->shards, "shards", p->runs < 64 ? p->runs : (o->repro ? 16 : 64),
			  p->runs < SWEEP_SHARDS_MAX ? p->runs : SWEEP_SHARDS_MAX, &p->shards, d);
	err = err ? err : count(o->array_max, "array-max", 0, SWEEP_SHARDS_MAX, &p->array_max, d);
	err = err ? err : count(o->cpus, "cpus", 1, CMD_JOBS_MAX, &p->cpus, d);
	return err;
}

/* s as one shell word: in single quotes, each ' as '\''. */
static void word(struct col_text *t, const char *s)
{
	col_text_printf(t, "'");
	for (; *s; s++)
		col_text_printf(t, *s == '\'' ? "'\\''" : "%c", *s);
	col_text_printf(t, "'");
}

/* The sbatch options both jobs take. */
static void common(struct col_text *t, const struct slurm_opts *o)
{
	if (o->partition) {
		col_text_printf(t, " --partition=");
		word(t, o->partition);
	}
	if (o->time) {
		col_text_printf(t, " --time=");
		word(t, o->time);
	}
}

/* The task's command: testbed sim|up|reproduce ... --shard I/N. */
static void task_cmd(struct col_text *t, const struct slurm_opts *o, const struct slurm_plan *p)
{
	size_t i;

	col_text_printf(t, "exec \"$TESTBED\" ");
	if (o->repro) {
		col_text_printf(t, "reproduce%s%s --scenarios \"$INPUT\"", o->sim ? " --sim" : "",
				o->quick ? " --quick" : "");
	} else if (p->emulated) {
		col_text_printf(t, "up");
	} else {
		col_text_printf(t, "sim -j %u", p->cpus);
	}
	col_text_printf(t,
			" --results \"$RESULTS\" --shard \"$((SLURM_ARRAY_TASK_ID + 1))/$SHARDS\"");
	if (!o->repro)
		col_text_printf(t, " \"$INPUT\"");
	for (i = 0; i < o->np; i++) {
		col_text_printf(t, " ");
		word(t, o->papers[i]);
	}
	col_text_printf(t, "\n");
}

/* The task's command in the array's here-document, its $ escaped: $( and $VAR are the
 * task's, not the submitting shell's. */
static void task_body(struct col_text *t, const struct slurm_opts *o, const struct slurm_plan *p)
{
	struct col_text c = {0};
	char *body, *s;

	task_cmd(&c, o, p);
	body = col_text_take(&c, NULL);
	for (s = body; s && *s; s++)
		col_text_printf(t, *s == '$' ? "\\$" : "%c", *s);
	if (!body)
		t->err = -ENOMEM;
	free(body);
}

/* The script: variables, the array's submission, the report's after it. */
static void script(struct col_text *t, const struct slurm_opts *o, const struct slurm_plan *p,
		   const char *cmdline)
{
	col_text_printf(
		t,
		"#!/bin/bash\n"
		"# Written by: %s\n"
		"# Submits %u shards (job array %s, one 'testbed --shard I/%u' task each) of "
		"%u runs in all, and\n"
		"# 'testbed report' on their folder once every shard has ended well "
		"(--dependency=afterok).\n"
		"# Run it with bash where sbatch works. The testbed, the input and the "
		"results folder below\n"
		"# must be at the same paths on every node (a shared filesystem).\n",
		cmdline, p->shards, p->name, p->shards, p->runs);
	if (p->emulated)
		col_text_printf(t, "# The tasks are emulated: each takes whole nodes (--exclusive) "
				   "and needs root there\n"
				   "# (testbed as root, or in a privileged container: "
				   "docs/scaling.md).\n");
	col_text_printf(t, "set -eu\nTESTBED=");
	word(t, p->testbed);
	col_text_printf(t, "\nINPUT=");
	word(t, p->input);
	col_text_printf(t, "\nRESULTS=");
	word(t, p->results);
	col_text_printf(t, "\nREPORT=");
	word(t, p->report);
	col_text_printf(t, "\nSHARDS=%u\nmkdir -p \"$RESULTS/slurm\"\n\n", p->shards);
	/* the array: its task's body on sbatch's standard input, the variables put in by this
	 * shell, SLURM_ARRAY_TASK_ID left for the task's */
	col_text_printf(t, "array=$(sbatch --parsable --job-name=%s --array=0-%u", p->name,
			p->shards - 1);
	if (p->array_max)
		col_text_printf(t, "%%%u", p->array_max);
	common(t, o);
	if (p->emulated)
		col_text_printf(t, " --exclusive");
	else
		col_text_printf(t, " --cpus-per-task=%u", p->cpus);
	col_text_printf(t, " --output=\"$RESULTS/slurm/%%x-%%A_%%a.out\" <<EOF\n"
			   "#!/bin/bash\n");
	col_text_printf(t, "TESTBED=$(printf %%q \"$TESTBED\") INPUT=$(printf %%q \"$INPUT\") "
			   "RESULTS=$(printf %%q \"$RESULTS\") SHARDS=$SHARDS\n"
			   "SLURM_ARRAY_TASK_ID=\\${SLURM_ARRAY_TASK_ID:?not a task of a job "
			   "array}\n");
	task_body(t, o, p);
	col_text_printf(t, "EOF\n)\narray=${array%%%%;*}\n\n");
	col_text_printf(t,
			"report=$(sbatch --parsable --job-name=%s-report "
			"--dependency=afterok:\"$array\"",
			p->name);
	common(t, o);
	col_text_printf(t,
			" --output=\"$RESULTS/slurm/%%x-%%j.out\" <<EOF\n"
			"#!/bin/bash\n"
			"exec $(printf %%q \"$TESTBED\") report $(printf %%q \"$REPORT\")\n"
			"EOF\n)\n"
			"echo \"testbed slurm: job array $array ($SHARDS tasks), then report job "
			"$report: 'testbed report $REPORT'; logs in $RESULTS/slurm/\"\n");
}

int cmd_slurm(int argc, char **argv)
{
	struct slurm_opts o = {0};
	struct slurm_plan p = {0};
	struct col_text t = {0};
	struct diag d = {0};
	char cmdline[1024] = "testbed slurm";
	char *text;
	size_t len = strlen(cmdline);
	bool help;
	int r, i;

	for (i = 1; i < argc && len < sizeof(cmdline) - 1; i++)
		len += (size_t)snprintf(cmdline + len, sizeof(cmdline) - len, " %s", argv[i]);
	r = parse(argc, argv, &o, &help);
	if (help) {
		usage(stdout);
		return CMD_OK;
	}
	if (r) {
		usage(stderr);
		return CMD_USAGE;
	}
	r = plan(&o, &p, &d);
	if (r)
		return cmd_fail("slurm", r, &d);
	script(&t, &o, &p, cmdline);
	text = col_text_take(&t, &len);
	r = text ? cmd_write_out(o.out, text, len, &d) : diag_set(&d, -ENOMEM, "out of memory");
	free(text);
	if (!r && o.out)
		cmd_note("testbed slurm: %s: %u shards of %u runs; submit with: bash %s\n", o.out,
			 p.shards, p.runs, o.out);
	return r ? cmd_fail("slurm", r, &d) : CMD_OK;
}
