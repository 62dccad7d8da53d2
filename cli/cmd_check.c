// SPDX-License-Identifier: MIT
/* testbed check FILE: parse, build the model and the routing plan, print what `up` would make.
 * Needs no root and touches no kernel state. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "model/addr.h"
#include "model/fluid.h"
#include "model/gen.h"
#include "cli/cmd.h"
#include "scenario/jobs.h"
#include "scenario/scenario_sweep.h"
#include "policy/sched.h"
#include "policy/shape.h"

static void check_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed check [--plan | --loads] FILE\n\n"
		"Parses the scenario, builds the topology and routing plan, and prints counts of\n"
		"nodes, links, routes, rules and ECMP groups. --plan also prints every node's\n"
		"routes and rules. --loads prints instead, for a workload of one all-to-all job,\n"
		"how many of its flows per-flow ECMP puts on each link direction, and how many\n"
		"blocks they carry (flows / channels; CSV, the link and dir columns of\n"
		"links.csv). Exit 0 if valid, 2 for bad input.\n");
}

/* Up to this many endpoints the fluid all-to-all is cheap enough to print (milliseconds). */
#define CHECK_FLUID_MAX 4096
/* The per-flow ECMP bound walks every pair's path per draw: up to here, under a second. */
#define CHECK_HASHED_MAX 256
#define CHECK_HASHED_TRIALS 20

/* The per-flow ECMP bound for the connections the workload's one all-to-all job will open. */
static void print_job_bound(const struct world *w)
{
	uint32_t *eps = calloc(w->t->endpoints.n, sizeof(*eps)), n, k = cmd_first_channels(w);
	double f;

	n = eps ? cmd_lone_alltoall(w, eps) : 0;
	if (n >= 2 && !route_alltoall_conns(w->t, &w->plan, eps, n, 0, k, &f))
		printf("           %.3f under per-flow ECMP for this workload's job (%u ranks, %u "
		       "connection%s per pair, the source ports emu-node binds)\n",
		       f, n, k, k > 1 ? "s" : "");
	free(eps);
}

/* With transport.window, what the lone all-to-all's connections keep in flight against the
 * busiest queue (cmd_emu_window_over; `up` refuses past SHAPE_INFLIGHT_MAX). */
static void print_inflight(const struct world *w)
{
	char buf[768];
	bool over = cmd_emu_window_over(w, true, buf, sizeof(buf));

	if (buf[0])
		printf("in flight  %s%s\n", over ? "`up` refuses it: " : "", buf);
}

/* HammingMesh §V-A1's global bandwidth as our fluid model: the all-to-all fraction the routes
 * allow, split equally per hop. */
static void print_fluid(const struct world *w)
{
	struct route_a2a_bound b;
	uint32_t k = cmd_first_channels(w);
	double f;

	if (w->t->endpoints.n > CHECK_FLUID_MAX || fluid_alltoall(w->t, &w->paths, &f))
		return;
	printf("alltoall   %.3f of injection bandwidth (fluid, equal split over next hops)\n", f);
	if (w->t->endpoints.n > CHECK_HASHED_MAX ||
	    route_alltoall_hashed(w->t, &w->plan, CHECK_HASHED_TRIALS, 1, 1, &b))
		return;
	printf("           %.3f under per-flow ECMP, one flow per pair (mean of %d source-port "
	       "draws, %.3f to %.3f)\n",
	       b.mean, CHECK_HASHED_TRIALS, b.min, b.max);
	if (k > 1 && !route_alltoall_hashed(w->t, &w->plan, CHECK_HASHED_TRIALS, 1, k, &b))
		printf("           %.3f under per-flow ECMP, %u flows per pair (the workload's "
		       "channels; mean of %d draws, %.3f to %.3f)\n",
		       b.mean, k, CHECK_HASHED_TRIALS, b.min, b.max);
	print_job_bound(w);
	print_inflight(w);
}

/* OCS layers (model/ocs.h): how many, their circuits at `up`, the reconfiguration delay. */
static void print_ocs(const struct world *w)
{
	const struct topo *t = w->t;
	uint32_t circuits = 0;
	size_t i;

	for (i = 0; i < t->ports.n; i++) {
		uint32_t q = topo_port_peer(t, (uint32_t)i);

		circuits += t->nodes.v[t->ports.v[i].node].kind == TOPO_OCS &&
			    t->ports.v[q].node == t->ports.v[i].node && i < q;
	}
	printf("ocs        %u OCSes, %u circuits, reconfiguration delay %.3g ms\n",
	       topo_count_kind(t, TOPO_OCS), circuits,
	       (double)w->e.s.topology.ls.ocs.delay_ns / 1e6);
}

/* shaping.mtu when not the default, with what a full frame costs per hop on the first link */
static void print_mtu(const struct world *w)
{
	const struct scn_shaping *sh = &w->e.s.shaping;
	uint64_t rate = w->t->links.n ? w->t->links.v[0].rate[0] : 0;

	if (sh->mtu == SHAPE_MTU)
		return;
	printf("mtu        %u on every link", sh->mtu);
	if (rate)
		printf(" (a full frame serializes in %.3g ms on the first link)",
		       shape_frame(sh) * 8e3 / (double)rate);
	printf("\n");
}

/* MSCCL jobs: the algorithm each runs (of several files, the one that takes its size) and,
 * once, the sizes made the nearest their chunks divide. */
static void print_msccl(const struct world *w)
{
	uint64_t bytes, run, was = 0, now = 0;
	uint32_t moved = 0, first = 0, n = 0;
	const char *which, *last = NULL;
	struct diag d = {0};
	size_t i, len;
	char *text;

	for (i = 0; i < w->jobs.n; i++) {
		const struct job_spec *j = &w->jobs.v[i];

		if (j->algo != COLL_MSCCL)
			continue;
		bytes = jobs_scaled_bytes(&w->e, j);
		if (jobs_msccl_pick(&w->e, j, bytes, &text, &len, &run, &which, &d))
			continue; /* the check refused it already */
		free(text);
		if (w->jobs.n <= 8 && (!last || strcmp(last, which)))
			printf("msccl      job %u runs %s\n", j->id, which);
		last = which, n++;
		if (run != bytes && !moved++)
			first = j->id, was = bytes, now = run;
	}
	if (n && w->jobs.n > 8)
		printf("msccl      %u jobs run imported MSCCL algorithms\n", n);
	if (moved)
		printf("msccl      %u of them run at the nearest size their algorithm's chunks "
		       "divide "
		       "(job %u: %" PRIu64 " bytes, not %" PRIu64 ")\n",
		       moved, first, now, was);
}

/* Chakra trace jobs: each one's graph and critical path (the first 8). */
static void print_chakra(const struct world *w)
{
	struct diag d = {0};
	size_t i, n = 0;

	for (i = 0; i < w->jobs.n; i++) {
		if (!w->jobs.v[i].chakra || n++ >= 8)
			continue;
		diag_clear(&d);
		if (cmd_chakra_print(stdout, w, &w->jobs.v[i], &d))
			printf("           (%s)\n", d.msg);
	}
	if (n > 8)
		printf("chakra     %zu jobs of Chakra traces, the first 8 above\n", n);
}

static void print_counts(const struct world *w)
{
	const struct topo *t = w->t;
	uint32_t shaped = 0;
	char r1[32], kind[1024], wall[256], over[256];
	size_t i;

	for (i = 0; i < t->ports.n; i++)
		shaped += topo_port_rate(t, (uint32_t)i) != 0;
	printf("scenario   %s (%s)\n", w->e.s.name, w->e.s.path);
	if (gen_summary(&w->e.s, kind, sizeof(kind)) > 0)
		printf("topology   %s\n", kind);
	printf("nodes      %zu: %u endpoints, %u switches\n", t->nodes.n,
	       topo_count_kind(t, TOPO_ENDPOINT), topo_count_kind(t, TOPO_SWITCH));
	printf("links      %zu (%zu ports, %u shaped directions)\n", t->links.n, t->ports.n,
	       shaped);
	if (t->links.n)
		printf("rate       %s on the first link (after rate_scale)\n",
		       units_fmt_rate(r1, sizeof(r1), t->links.v[0].rate[0]));
	print_mtu(w);
	printf("routes     %zu\n", w->plan.routes.n);
	printf("rules      %zu\n", w->plan.rules.n);
	printf("ecmp       %zu groups\n", w->plan.groups.n);
	printf("namespaces %zu\n", t->nodes.n);
	if (t->phys)
		print_ocs(w);
	if (w->e.failures.v.n)
		printf("failures   %zu timed events\n", w->e.failures.v.n);
	if (w->jobs.n || job_trace_left_total(&w->trace_left))
		printf("jobs       %zu\n", w->jobs.n);
	if (w->jobs.n && cmd_emu_too_long(w, wall, sizeof(wall)))
		printf("emulation  %s: `up` refuses it, `testbed sim` runs it in virtual time\n",
		       wall);
	else if (cmd_emu_ship_over(w, over, sizeof(over)) ||
		 cmd_emu_rate_over(w, over, sizeof(over)))
		printf("emulation  %s: `up` refuses it, `testbed sim` runs it in virtual time\n",
		       over);
	else if (w->jobs.n)
		printf("emulation  %s\n", wall);
	cmd_trace_left(stdout, "           ", &w->trace_left, true);
	print_msccl(w);
	print_chakra(w);
	print_fluid(w);
}

static void print_route(const struct world *w, const struct route_entry *re)
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
	if (re->rto_min_ms)
		printf(" rto_min lock %ums", re->rto_min_ms);
	printf("\n");
}

static void print_plan(const struct world *w)
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

/* --loads: per link direction, the lone all-to-all job's flows under per-flow ECMP with the
 * ports emu-node binds and the blocks they carry (route_alltoall_conn_loads), as CSV keyed
 * like links.csv. */
static int print_loads(const struct world *w, struct diag *d)
{
	const struct topo *t = w->t;
	uint32_t *eps = calloc(t->endpoints.n, sizeof(*eps)), n, k = cmd_first_channels(w);
	double *load = calloc(t->ports.n + 1, sizeof(*load));
	size_t i;
	int r = eps && load ? 0 : -ENOMEM;

	n = r ? 0 : cmd_lone_alltoall(w, eps);
	if (!r && n < 2)
		r = diag_set(d, -EINVAL,
			     "%s: --loads needs a workload of one all-to-all job of 2 or more GPUs",
			     w->e.s.path);
	if (!r)
		r = route_alltoall_conn_loads(t, &w->plan, eps, n, 0, k, load);
	if (r && !d->msg[0])
		diag_set(d, r, "%s: %s", w->e.s.path,
			 r == -ENOMEM ? "out of memory" : "cannot route the all-to-all's flows");
	if (!r)
		printf("link,dir,from,to,flows,blocks\n");
	for (i = 0; !r && i < t->ports.n; i++) {
		const struct topo_port *p = &t->ports.v[i];

		if (topo_port_rate(t, (uint32_t)i))
			printf("%u,%u,%s,%s,%.0f,%.6g\n", p->link, p->side,
			       t->nodes.v[p->node].name,
			       t->nodes.v[topo_port_peer_node(t, (uint32_t)i)].name, load[i] * k,
			       load[i]);
	}
	free(load);
	free(eps);
	return r;
}

/* A sweep's runs `up` would refuse (cmd_up_refuses), beyond the first one's, which
 * print_counts reports: the first such variant, named. Bad input in a variant fails `check`
 * earlier (world_load). */
static int print_sweep_refused(const char *path, const struct world *w, struct diag *d)
{
	int r = world_check_variants(path, &w->e.sweep, cmd_up_refuses, d);

	if (r == -EINVAL) {
		printf("emulation  `up` refuses the sweep: %s\n", d->msg);
		diag_clear(d);
		r = 0;
	}
	return r;
}

int cmd_check(int argc, char **argv)
{
	bool plan = false, loads = false, help;
	const struct cmd_opt opts[] = {
		{"plan", NULL, &plan}, {"loads", NULL, &loads}, {NULL, NULL, NULL}};
	struct world w;
	struct diag d = {0};
	int n = cmd_opts_parse("check", argc, argv, opts, false, &help), r;

	if (help) {
		check_usage(stdout);
		return CMD_OK;
	}
	if (n != 1 || (plan && loads)) {
		check_usage(stderr);
		return CMD_USAGE;
	}
	r = world_load(argv[1], (struct world_ask){.every_variant = true}, &w, &d);
	if (!r && w.e.sweep.axes.n) /* every run of a sweep parses (scenario_sweep.h) */
		r = exp_sweep_check(argv[1], &w.e.sweep, &d);
	if (!r && loads) {
		r = print_loads(&w, &d);
	} else if (!r) {
		if (w.e.sweep.axes.n)
			printf("sweep      %u variants x %u seeds = %u runs (the counts below: the "
			       "baseline)\n",
			       w.e.sweep.variants, w.e.sweep.seeds,
			       w.e.sweep.variants * w.e.sweep.seeds);
		print_counts(&w);
		if (w.e.sweep.axes.n)
			r = print_sweep_refused(argv[1], &w, &d);
		if (plan && !r)
			print_plan(&w);
		if (!r)
			printf("configuration OK\n");
	}
	world_done(&w);
	return r ? cmd_fail("check", r, &d) : CMD_OK;
}
