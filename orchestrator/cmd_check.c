// SPDX-License-Identifier: MIT
/* testbed check FILE: parse, build the model and the routing plan, print what `up` would make.
 * Needs no root and touches no kernel state. */
#include <stdio.h>
#include <string.h>

#include "lib/units.h"
#include "model/addr.h"
#include "orchestrator/cmd.h"

static void check_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed check [--plan] FILE\n\n"
		"Parses the scenario, builds the topology and routing plan, and prints counts of\n"
		"nodes, links, routes, rules and ECMP groups. --plan also prints every node's\n"
		"routes and rules. Exit 0 if valid, 2 for bad input.\n");
}

static void print_counts(const struct cmd_world *w)
{
	const struct topo *t = w->t;
	uint32_t shaped = 0;
	char r1[32];
	size_t i;

	for (i = 0; i < t->ports.n; i++)
		shaped += topo_port_rate(t, (uint32_t)i) != 0;
	printf("scenario   %s (%s)\n", w->e.s.name, w->e.s.path);
	printf("nodes      %zu: %u endpoints, %u switches\n", t->nodes.n,
	       topo_count_kind(t, TOPO_ENDPOINT), topo_count_kind(t, TOPO_SWITCH));
	printf("links      %zu (%zu ports, %u shaped directions)\n", t->links.n, t->ports.n,
	       shaped);
	if (t->links.n)
		printf("rate       %s on the first link (after rate_scale)\n",
		       units_fmt_rate(r1, sizeof(r1), t->links.v[0].rate[0]));
	printf("routes     %zu\n", w->plan.routes.n);
	printf("rules      %zu\n", w->plan.rules.n);
	printf("ecmp       %zu groups\n", w->plan.groups.n);
	printf("namespaces %zu\n", t->nodes.n);
}

static void print_route(const struct cmd_world *w, const struct route_entry *re)
{
	char a[16], g[16];
	uint32_t i;

	printf("  route %s/%u table %u", addr_fmt(a, sizeof(a), re->dst.addr), re->dst.plen,
	       re->table);
	for (i = 0; i < re->nh_n; i++) {
		uint32_t p = w->plan.ports.v[re->nh_off + i];

		printf(" via %s dev %s",
		       addr_fmt(g, sizeof(g), w->t->ports.v[topo_port_peer(w->t, p)].addr),
		       w->t->ports.v[p].ifname);
	}
	if (re->src)
		printf(" src %s", addr_fmt(a, sizeof(a), re->src));
	printf("\n");
}

static void print_plan(const struct cmd_world *w)
{
	const struct route_plan *pl = &w->plan;
	uint32_t n, i;

	for (n = 0; n < w->t->nodes.n; n++) {
		const struct route_node *rn = &pl->nodes.v[n];

		printf("%s:\n", w->t->nodes.v[n].name);
		for (i = 0; i < rn->route_n; i++)
			print_route(w, &pl->routes.v[rn->route_off + i]);
		for (i = 0; i < rn->rule_n; i++)
			printf("  rule pref %u fwmark %u lookup %u\n",
			       pl->rules.v[rn->rule_off + i].prio,
			       pl->rules.v[rn->rule_off + i].mark,
			       pl->rules.v[rn->rule_off + i].table);
		for (i = 0; i < rn->group_n; i++) {
			const struct route_group *g = &pl->groups.v[rn->group_off + i];

			printf("  ecmp group %u: %u next hops, %u prefixes, seed %u\n", g->id,
			       g->nh_n, g->pfx_n, g->seed);
		}
	}
}

int cmd_check(int argc, char **argv)
{
	struct cmd_world w;
	struct diag d = {0};
	int plan = 0, r;

	if (cmd_wants_help(argc, argv)) {
		check_usage(stdout);
		return CMD_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "--plan")) {
		plan = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		check_usage(stderr);
		return CMD_USAGE;
	}
	r = cmd_world_load(argv[1], &w, &d);
	if (!r) {
		print_counts(&w);
		if (plan)
			print_plan(&w);
		printf("configuration OK\n");
	}
	cmd_world_done(&w);
	return r ? cmd_fail("check", r, &d) : CMD_OK;
}
