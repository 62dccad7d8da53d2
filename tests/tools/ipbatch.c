// SPDX-License-Identifier: MIT
/* ipbatch: renders the commands a script-based tool would run to build a scenario with
 * iproute2 and nft, for `make bench` to time against `testbed up`:
 *   DIR/root.ip        `ip -batch`: every namespace and veth pair
 *   DIR/<ns>.ip        `ip -n <ns> -batch`: links up, addresses, routes, rules
 *   DIR/<ns>.tc        `tc -n <ns> -batch`: shaping qdiscs
 *   DIR/<ns>.nft       `nft -f` inside <ns>: the ECMP ruleset
 *   DIR/<ns>.sysctl    `sysctl -p` inside <ns>
 *   DIR/down.ip        `ip -batch`: delete every namespace
 * Usage: ipbatch SCENARIO NAME DIR */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/addr.h"
#include "cli/cmd.h"
#include "fabric/fabric.h"
#include "policy/shape.h"

static FILE *open_in(const char *dir, const char *ns, const char *ext)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s%s", dir, ns, ext);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

/* Port p's Ethernet address (model/addr.h addr_mac) as ip(8) writes it, into buf (18). */
static char *mac_fmt(char *buf, uint32_t p)
{
	uint8_t m[6];

	addr_mac(p, m);
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

static void write_root(const struct world *w, const char *name, const char *dir)
{
	FILE *f = open_in(dir, "root", ".ip"), *g = open_in(dir, "down", ".ip");
	char a[128], b[128];
	size_t i;

	for (i = 0; i < w->t->nodes.n; i++) {
		fabric_ns_name(a, sizeof(a), name, w->t->nodes.v[i].name);
		fprintf(f, "netns add %s\n", a);
		fprintf(g, "netns del %s\n", a);
	}
	for (i = 0; i < w->t->links.n; i++) {
		const struct topo_link *l = &w->t->links.v[i];
		const struct topo_port *p = &w->t->ports.v[l->port[0]];
		const struct topo_port *q = &w->t->ports.v[l->port[1]];
		char mtu[16] = "", ma[18], mz[18];

		fabric_ns_name(a, sizeof(a), name, w->t->nodes.v[p->node].name);
		fabric_ns_name(b, sizeof(b), name, w->t->nodes.v[q->node].name);
		if (w->e.s.shaping.mtu != SHAPE_MTU)
			snprintf(mtu, sizeof(mtu), " mtu %u", w->e.s.shaping.mtu);
		fprintf(f,
			"link add name %s index %u netns %s%s address %s type veth peer name %s "
			"index %u netns %s%s address %s\n",
			p->ifname, p->ifindex, a, mtu, mac_fmt(ma, l->port[0]), q->ifname,
			q->ifindex, b, mtu, mac_fmt(mz, l->port[1]));
	}
	fclose(f);
	fclose(g);
}

/* The peer of port p as a permanent neighbour, as `up` makes it (fabric/fabric_node.c). */
static void write_neigh(const struct world *w, uint32_t p, FILE *f)
{
	uint8_t mac[6];
	uint32_t addr;
	char a[16];

	if (addr_neigh(w->t, p, &addr, mac))
		return;
	fprintf(f, "neigh add %s lladdr %02x:%02x:%02x:%02x:%02x:%02x nud permanent dev %s\n",
		addr_fmt(a, sizeof(a), addr), mac[0], mac[1], mac[2], mac[3], mac[4], mac[5],
		w->t->ports.v[p].ifname);
}

static void write_sysctl(const struct world *w, uint32_t n, FILE *f)
{
	const struct topo_node *node = &w->t->nodes.v[n];

	fprintf(f,
		"net.ipv6.conf.all.disable_ipv6=1\nnet.ipv6.conf.default.disable_ipv6=1\n"
		"net.ipv4.conf.all.rp_filter=0\nnet.ipv4.conf.default.rp_filter=0\n"
		"net.ipv4.conf.all.arp_announce=2\nnet.ipv4.conf.default.arp_announce=2\n"
		"net.ipv4.conf.all.send_redirects=0\nnet.ipv4.conf.default.send_redirects=0\n"
		"net.ipv4.fib_multipath_hash_policy=1\nnet.ipv4.ip_forward=%d\n",
		node->forwards);
	if (node->kind == TOPO_ENDPOINT)
		fprintf(f,
			"net.ipv4.tcp_slow_start_after_idle=0\nnet.ipv4.tcp_no_metrics_save=1\n"
			"net.ipv4.tcp_congestion_control=%s\n",
			scn_cc_name(w->e.s.transport.cc));
}

static void write_route(const struct world *w, const struct route_entry *re, FILE *f)
{
	char a[16], g[16];
	uint32_t i;

	fprintf(f, "route add %s/%u table %u", addr_fmt(a, sizeof(a), re->dst.addr), re->dst.plen,
		re->table);
	if (re->src)
		fprintf(f, " src %s", addr_fmt(a, sizeof(a), re->src));
	for (i = 0; i < re->nh_n; i++) {
		uint32_t p = w->plan.ports.v[re->nh_off + i];

		fprintf(f, "%s via %s dev %s", re->nh_n > 1 ? " nexthop" : "",
			addr_fmt(g, sizeof(g), w->t->ports.v[topo_port_peer(w->t, p)].addr),
			w->t->ports.v[p].ifname);
	}
	fputc('\n', f);
}

static void write_ip(const struct world *w, uint32_t n, FILE *f)
{
	const struct topo_node *node = &w->t->nodes.v[n];
	const struct route_node *rn = &w->plan.nodes.v[n];
	char a[16];
	uint32_t i;

	fprintf(f, "link set dev lo up\n");
	if (node->kind == TOPO_ENDPOINT)
		fprintf(f, "addr add %s/32 dev lo\n", addr_fmt(a, sizeof(a), node->addr));
	for (i = 0; i < node->nports; i++) {
		const struct topo_port *p = &w->t->ports.v[topo_node_port(w->t, n, i)];

		if (node->kind == TOPO_ENDPOINT && shape_gso_segs(&w->e.s.shaping))
			fprintf(f, "link set dev %s up gso_max_segs %u\n", p->ifname,
				shape_gso_segs(&w->e.s.shaping));
		else
			fprintf(f, "link set dev %s up\n", p->ifname);
		fprintf(f, "addr add %s/%u dev %s\n", addr_fmt(a, sizeof(a), p->addr), p->plen,
			p->ifname);
		write_neigh(w, topo_node_port(w->t, n, i), f);
	}
	for (i = 0; i < rn->route_n; i++)
		write_route(w, &w->plan.routes.v[rn->route_off + i], f);
	for (i = 0; i < rn->rule_n; i++) {
		const struct route_rule *ru = &w->plan.rules.v[rn->rule_off + i];

		fprintf(f, "rule add pref %u fwmark %u lookup %u\n", ru->prio, ru->mark, ru->table);
	}
}

/* The same htb hierarchy `up` builds (fabric/fabric_node.c, policy/shape.h). */
static void tc_htb(FILE *f, const char *dev, const struct shape_params *sp)
{
	unsigned long long r = sp->rate_bps, ack = sp->ack_prio ? r / SHAPE_ACK_SHARE : 0;

	fprintf(f, "qdisc add dev %s root handle 1: htb default %x\n", dev, SHAPE_MINOR_DATA);
	fprintf(f,
		"class add dev %s parent 1: classid 1:1 htb rate %llubit ceil %llubit burst %u "
		"cburst %u\n",
		dev, r, r, sp->burst, sp->burst);
	fprintf(f,
		"class add dev %s parent 1:1 classid 1:%x htb rate %llubit ceil %llubit burst %u "
		"cburst %u prio 1 quantum %u\n",
		dev, SHAPE_MINOR_DATA, r - ack, r, sp->burst, sp->burst, sp->frame);
	fprintf(f, "qdisc add dev %s parent 1:%x handle %x: bfifo limit %u\n", dev,
		SHAPE_MINOR_DATA, SHAPE_MINOR_DATA, sp->limit);
	if (!ack)
		return;
	fprintf(f,
		"class add dev %s parent 1:1 classid 1:%x htb rate %llubit ceil %llubit burst %u "
		"cburst %u prio 0 quantum %u\n",
		dev, SHAPE_MINOR_ACK, ack, r, sp->burst, sp->burst, sp->frame);
	fprintf(f, "qdisc add dev %s parent 1:%x handle %x: bfifo limit %u\n", dev, SHAPE_MINOR_ACK,
		SHAPE_MINOR_ACK, sp->limit);
	fprintf(f,
		"filter add dev %s parent 1: protocol ip prio 1 u32 match u16 0 0x%x at 2 flowid "
		"1:%x\n",
		dev, (unsigned)(uint16_t) ~(SHAPE_ACK_MAX - 1), SHAPE_MINOR_ACK);
}

static void write_tc(const struct world *w, uint32_t n, FILE *f)
{
	const struct topo_node *node = &w->t->nodes.v[n];
	struct shape_params sp;
	uint32_t i;

	for (i = 0; i < node->nports; i++) {
		uint32_t port = topo_node_port(w->t, n, i);
		const char *dev = w->t->ports.v[port].ifname;

		if (shape_derive(topo_port_rate(w->t, port), 0, &w->e.s.shaping, &sp, NULL))
			continue;
		if (sp.kind == SHAPE_TBF)
			fprintf(f,
				"qdisc add dev %s root handle 1: tbf rate %llubit burst %u limit "
				"%u\n",
				dev, (unsigned long long)sp.rate_bps, sp.burst, sp.limit);
		else if (sp.kind == SHAPE_HTB)
			tc_htb(f, dev, &sp);
	}
}

/* The ECMP rules in loadable nft syntax: anonymous sets and maps, since nft 1.0.6 cannot
 * type a named map keyed by a jhash (nftr_node_render prints the named ones `up` makes). */
static void nft_group(const struct world *w, const struct route_group *g, bool pre, FILE *f)
{
	const struct route_node *rn = &w->plan.nodes.v[g->node];
	char a[16];
	uint32_t i;

	fprintf(f, "\t\t");
	if (pre) {
		fprintf(f, "iif {");
		for (i = 0; i < rn->edge_n; i++)
			fprintf(f, "%s\"%s\"", i ? ", " : " ",
				w->t->ports.v[w->plan.ports.v[rn->edge_off + i]].ifname);
		fprintf(f, " } ");
	}
	fprintf(f, "ip daddr {");
	for (i = 0; i < g->pfx_n; i++)
		fprintf(f, "%s%s/%u", i ? ", " : " ",
			addr_fmt(a, sizeof(a), w->plan.prefixes.v[g->pfx_off + i].addr),
			w->plan.prefixes.v[g->pfx_off + i].plen);
	fprintf(f, " } meta mark set ip dscp map {");
	for (i = 0; i < g->nh_n; i++)
		fprintf(f, "%s%u : %u", i ? ", " : " ", i + 1,
			route_port_table(w->t->ports.v[w->plan.ports.v[g->nh_off + i]].ifindex -
					 2));
	fprintf(f, " }\n");
}

static void nft_hash(const struct world *w, const struct route_group *g, FILE *f)
{
	char a[16];
	uint32_t i;

	fprintf(f, "\t\tip daddr {");
	for (i = 0; i < g->pfx_n; i++)
		fprintf(f, "%s%s/%u", i ? ", " : " ",
			addr_fmt(a, sizeof(a), w->plan.prefixes.v[g->pfx_off + i].addr),
			w->plan.prefixes.v[g->pfx_off + i].plen);
	fprintf(f,
		" } meta mark set jhash ip saddr . ip daddr . ip protocol . th sport . th dport "
		"mod %u seed 0x%x map {",
		g->nh_n, g->seed);
	for (i = 0; i < g->nh_n; i++)
		fprintf(f, "%s%u : %u", i ? ", " : " ", i,
			route_port_table(w->t->ports.v[w->plan.ports.v[g->nh_off + i]].ifindex -
					 2));
	fprintf(f, " }\n");
}

static void write_nft(const struct world *w, uint32_t n, FILE *f)
{
	const struct route_node *rn = &w->plan.nodes.v[n];
	static const char *const chains[2] = {"prerouting", "output"};
	static const char *const hooks[2] = {"filter hook prerouting", "route hook output"};
	uint32_t g;
	int c;

	fprintf(f, "table ip testbed {\n");
	for (c = 0; c < 2; c++) {
		fprintf(f, "\tchain %s {\n\t\ttype %s priority mangle; policy accept;\n", chains[c],
			hooks[c]);
		for (g = 0; g < rn->group_n; g++) {
			nft_hash(w, &w->plan.groups.v[rn->group_off + g], f);
			nft_group(w, &w->plan.groups.v[rn->group_off + g], c == 0, f);
		}
		fprintf(f, "\t}\n");
	}
	fprintf(f, "}\n");
}

int main(int argc, char **argv)
{
	struct world w;
	struct diag d = {0};
	char ns[128];
	size_t i;

	if (argc != 4) {
		fprintf(stderr, "usage: ipbatch SCENARIO NAME DIR\n");
		return 2;
	}
	if (world_load(argv[1], (struct world_ask){.every_variant = true}, &w, &d)) {
		fprintf(stderr, "ipbatch: %s\n", d.msg);
		return 2;
	}
	write_root(&w, argv[2], argv[3]);
	for (i = 0; i < w.t->nodes.n; i++) {
		FILE *f;

		fabric_ns_name(ns, sizeof(ns), argv[2], w.t->nodes.v[i].name);
		write_sysctl(&w, (uint32_t)i, f = open_in(argv[3], ns, ".sysctl"));
		fclose(f);
		write_ip(&w, (uint32_t)i, f = open_in(argv[3], ns, ".ip"));
		fclose(f);
		write_tc(&w, (uint32_t)i, f = open_in(argv[3], ns, ".tc"));
		fclose(f);
		if (w.plan.nodes.v[i].group_n) {
			write_nft(&w, (uint32_t)i, f = open_in(argv[3], ns, ".nft"));
			fclose(f);
		}
	}
	world_done(&w);
	return 0;
}
