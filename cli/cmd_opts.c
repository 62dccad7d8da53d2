// SPDX-License-Identifier: MIT
/* Every command's options (cmd.h, cmd_opts_parse): getopt_long over the command's table and
 * the options all share, so "--" ends options and -q quiets progress everywhere alike. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "cli/cmd.h"
#include "report/sweep_report.h"

#define OPT_BASE 256 /* getopt_long's value of the table's option i: OPT_BASE + i */

/* The long options: the table's, then --quiet, --verbose and --help. */
static size_t long_table(const struct cmd_opt *opts, struct option *lo, size_t room)
{
	static const struct option common[] = {{"quiet", no_argument, NULL, 'q'},
					       {"verbose", no_argument, NULL, 'v'},
					       {"help", no_argument, NULL, 'h'}};
	size_t n = 0, i;

	for (; opts && opts[n].name && n + 4 < room; n++)
		lo[n] = (struct option){opts[n].name, opts[n].arg ? required_argument : no_argument,
					NULL, OPT_BASE + (int)n};
	for (i = 0; i < 3; i++)
		lo[n + i] = common[i];
	lo[n + 3] = (struct option){0};
	return n;
}

/* The table's option o, given: its value kept, its flag set. 0 or -EINVAL (said). */
static int apply(const char *cmd, const struct cmd_opt *o)
{
	if (o->arg && *o->arg) {
		fprintf(stderr, "testbed %s: --%s given twice\n", cmd, o->name);
		return -EINVAL;
	}
	if (o->arg)
		*o->arg = optarg;
	if (o->set)
		*o->set = true;
	return 0;
}

/* What getopt_long refused: an unknown option or one without its value. */
static int refused(const char *cmd, int c, char **argv)
{
	const char *what = argv[optind - 1];

	if (c == ':')
		fprintf(stderr, "testbed %s: %s needs a value\n", cmd, what);
	else if (optopt && optopt < OPT_BASE)
		fprintf(stderr, "testbed %s: unknown option '-%c'\n", cmd, optopt);
	else
		fprintf(stderr, "testbed %s: unknown option '%s'\n", cmd, what);
	return -EINVAL;
}

/* The table's entry named name, or -1. */
static int find_opt(const struct cmd_opt *opts, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(opts[i].name, name))
			return (int)i;
	return -1;
}

int cmd_opts_parse(const char *cmd, int argc, char **argv, const struct cmd_opt *opts,
		   bool first_only, bool *help)
{
	struct option lo[CMD_OPTS_MAX + 4];
	size_t n = long_table(opts, lo, CMD_OPTS_MAX + 4);
	int jobs = find_opt(opts, n, "jobs"); /* -j N is --jobs N (make's spelling) */
	const char *shorts =
		first_only ? (jobs >= 0 ? "+:qvhj:" : "+:qvh") : (jobs >= 0 ? ":qvhj:" : ":qvh");
	int c, i, r = 0;

	*help = false;
	optind = 0; /* glibc: start afresh */
	opterr = 0;
	while (!r && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 'q')
			log_level = LOG_ERR;
		else if (c == 'v')
			log_level = LOG_DEBUG;
		else if (c == 'h')
			*help = true;
		else if (c == 'j')
			r = apply(cmd, &opts[jobs]);
		else if (c >= OPT_BASE && (size_t)(c - OPT_BASE) < n)
			r = apply(cmd, &opts[c - OPT_BASE]);
		else
			r = refused(cmd, c, argv);
	}
	if (r)
		return r;
	for (i = optind; i < argc; i++) /* the operands, in order, from argv[1] */
		argv[1 + i - optind] = argv[i];
	return argc - optind;
}

int cmd_jobs(const char *arg, uint32_t *n)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char *end;
	unsigned long v;

	if (!arg) {
		*n = cores < 1 ? 1 : cores > CMD_JOBS_MAX ? CMD_JOBS_MAX : (uint32_t)cores;
		return 0;
	}
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !v || v > CMD_JOBS_MAX)
		return -EINVAL;
	*n = (uint32_t)v;
	return 0;
}

/* "I/N" into *i and *n, unchecked. 0 or -EINVAL. */
static int shard_words(const char *arg, unsigned long *i, unsigned long *n)
{
	char *end;

	errno = 0;
	*i = strtoul(arg, &end, 10);
	if (errno || end == arg || *end != '/' || arg[0] == '-' || end[1] == '-')
		return -EINVAL;
	*n = strtoul(end + 1, &end, 10);
	return errno || *end || end[-1] == '/' ? -EINVAL : 0;
}

int cmd_shard_parse(const char *cmd, const char *arg, struct cmd_shard *s)
{
	unsigned long i = 0, n = 0;

	*s = (struct cmd_shard){0, 0};
	if (!arg)
		return 0;
	if (shard_words(arg, &i, &n) || !i || i > n || n > SWEEP_SHARDS_MAX) {
		fprintf(stderr,
			"testbed %s: --shard: expected I/N, the I-th of N parts (1 <= I <= N <= "
			"%u), "
			"found '%s'\n",
			cmd, SWEEP_SHARDS_MAX, arg);
		return -EINVAL;
	}
	*s = (struct cmd_shard){(uint32_t)i, (uint32_t)n};
	return 0;
}

bool cmd_quiet(void)
{
	return log_level < LOG_INFO;
}

void cmd_note(const char *fmt, ...)
{
	va_list ap;

	if (cmd_quiet())
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
