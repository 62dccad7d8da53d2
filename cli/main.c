// SPDX-License-Identifier: MIT
/* testbed: emulated datacenter networks for distributed-training experiments. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "cli/cmd.h"
#include "run/emu/emu_find.h"

#define TB_VERSION "0.9.0" /* the release these sources make (LICENSE: MIT) */

static const struct cmd commands[] = {
	{"check", cmd_check, "Parse a scenario and print what it would build (no root needed)"},
	{"doctor", cmd_doctor, "Check this machine has what the testbed (or a scenario) needs"},
	{"up", cmd_up, "Build a scenario's topology in network namespaces"},
	{"down", cmd_down, "Remove a testbed and everything it made"},
	{"status", cmd_status, "List testbeds, or show one"},
	{"exec", cmd_exec, "Run a command inside a node's namespace"},
	{"path", cmd_path, "Show the path a flow takes (ECMP hash or DSCP tag)"},
	{"sim", cmd_sim, "Run a scenario in virtual time, at any scale (no root needed)"},
	{"schedule", cmd_schedule,
	 "Print the collective schedules a scenario's jobs run (no root)"},
	{"export", cmd_export,
	 "Write a scenario's topology for Graphviz or containerlab (no root needed)"},
	{"report", cmd_report, "Make a results folder's summary and plots again (no root needed)"},
	{"reproduce", cmd_reproduce,
	 "Run each paper's reproduction scenarios and write a report beside the paper's figures"},
	{"slurm", cmd_slurm,
	 "Write a script that runs a sweep or reproduction as a Slurm job array"},
	{"sample", cmd_sample, NULL}, /* the sampling bench's driver (cmd_sample.c) */
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: testbed [-v|-q] <command> [arguments]\n\nCommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		if (commands[i].help)
			fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'testbed <command> --help' describes a command; 'testbed --version' the "
		   "release\n(with -v, also the emu-node it runs); 'man testbed' has the rest.\n");
}

/* The release; with -v also the emu-node `up` would start, or why there is none. */
static int version(void)
{
	char node[PATH_MAX];
	struct diag d = {0};

	printf("testbed %s\n", TB_VERSION);
	if (log_level >= LOG_DEBUG)
		printf("emu-node: %s\n", emu_find(node, sizeof(node), &d) ? d.msg : node);
	return CMD_OK;
}

int main(int argc, char **argv)
{
	size_t i;

	while (argc > 1 && argv[1][0] == '-' && argv[1][1] && !argv[1][2]) {
		if (argv[1][1] == 'v')
			log_level = LOG_DEBUG;
		else if (argv[1][1] == 'q')
			log_level = LOG_ERR;
		else if (argv[1][1] == 'h')
			break;
		else
			break;
		argc--;
		argv++;
	}
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")))
		return version();
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? CMD_USAGE : CMD_OK;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "testbed: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return CMD_USAGE;
}
