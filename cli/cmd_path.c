// SPDX-License-Identifier: MIT
/* testbed path FILE|NAME SRC DST: the path a flow takes, as the ECMP hash (with each switch's
 * seed) or a DSCP path tag decides. Pure computation over the model; no root needed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "fabric/state.h"

#define PATH_MAX_HOPS 64

static void path_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed path FILE|NAME SRC DST [--sport N] [--dport N] [--proto tcp|udp]\n"
		"                    [--tag K]\n\n"
		"Prints the nodes a flow from endpoint SRC to endpoint DST crosses. Switches with\n"
		"several next hops pick one by jhash over the 5-tuple with their seed, or by the\n"
		"DSCP path tag K (1..63: the K-th next hop) at the first switch with a choice.\n"
		"NAME reads the scenario of a running testbed.\n");
}

static int parse_u(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return (errno || *end || !*s || *out > max) ? -EINVAL : 0;
}

/* The flow's options (NULL: not given) into f, with the defaults. 0 or -EINVAL. */
static int flow_opts(const char *const v[4], struct route_flow *f)
{
	unsigned long n;

	f->proto = 6;
	f->sport = 40000;
	f->dport = 5201;
	if (v[0] && strcmp(v[0], "tcp") && strcmp(v[0], "udp"))
		return -EINVAL;
	if (v[0])
		f->proto = v[0][0] == 't' ? 6 : 17;
	if (v[1] && parse_u(v[1], 65535, &n))
		return -EINVAL;
	f->sport = v[1] ? (uint16_t)n : f->sport;
	if (v[2] && parse_u(v[2], 65535, &n))
		return -EINVAL;
	f->dport = v[2] ? (uint16_t)n : f->dport;
	if (v[3] && parse_u(v[3], 63, &n))
		return -EINVAL;
	f->tag = v[3] ? (uint8_t)n : 0;
	return 0;
}

/* A file path, or the saved scenario of a testbed with that name. */
static void resolve(const char *arg, char *buf, size_t len)
{
	if (access(arg, F_OK) == 0 || strchr(arg, '/') || strchr(arg, '.'))
		snprintf(buf, len, "%s", arg);
	else
		state_path(buf, len, arg, "scenario.yaml");
}

static int endpoint(const struct topo *t, const char *name)
{
	int n = topo_node_find(t, name);

	return n >= 0 && t->nodes.v[n].kind == TOPO_ENDPOINT ? n : -ENOENT;
}

static int print_path(const struct world *w, const char *src, const char *dst, struct route_flow *f)
{
	uint32_t hops[PATH_MAX_HOPS];
	int s = endpoint(w->t, src), d = endpoint(w->t, dst), n, i;

	if (s < 0 || d < 0) {
		fprintf(stderr, "testbed path: no endpoint named '%s'\n", s < 0 ? src : dst);
		return CMD_USAGE;
	}
	f->saddr = w->t->nodes.v[s].addr;
	f->daddr = w->t->nodes.v[d].addr;
	n = route_trace(w->t, &w->plan, (uint32_t)s, f, hops, PATH_MAX_HOPS);
	if (n < 0) {
		fprintf(stderr, "testbed path: %s -> %s: %s\n", src, dst, strerror(-n));
		return CMD_FAIL;
	}
	for (i = 0; i < n; i++)
		printf("%s%s", i ? " " : "", w->t->nodes.v[hops[i]].name);
	printf("\n");
	if (w->e.s.routing.spray && !f->tag)
		fprintf(stderr, "testbed path: routing.spray is on: this flow's packets take any "
				"equal-cost path; shown is the one the hash would pick\n");
	return CMD_OK;
}

int cmd_path(int argc, char **argv)
{
	struct route_flow f = {0};
	struct world w;
	struct diag d = {0};
	const char *v[4] = {NULL};
	const struct cmd_opt opts[] = {{"proto", &v[0], NULL},
				       {"sport", &v[1], NULL},
				       {"dport", &v[2], NULL},
				       {"tag", &v[3], NULL},
				       {NULL, NULL, NULL}};
	char file[512];
	bool help;
	int r = cmd_opts_parse("path", argc, argv, opts, false, &help), rc;

	if (help) {
		path_usage(stdout);
		return CMD_OK;
	}
	if (r != 3 || flow_opts(v, &f)) {
		path_usage(stderr);
		return CMD_USAGE;
	}
	resolve(argv[1], file, sizeof(file));
	r = world_load(file, (struct world_ask){.every_variant = true}, &w, &d);
	rc = r ? cmd_fail("path", r, &d) : print_path(&w, argv[2], argv[3], &f);
	world_done(&w);
	return rc;
}
