// SPDX-License-Identifier: MIT
/* Test driver for t_nft_hash.sh: the model's side of the kernel-vs-model check. Builds a
 * 2-leaf x 1-host x 4-spine leaf-spine, installs leaf l0's nftables ruleset in the current
 * namespace with the nftr effector, predicts each flow's egress port with the plan, and
 * sends and receives the UDP test flows.
 *
 *   nftr_probe layout SEED      shell assignments: addresses, l0's ports, ifindexes, marks
 *   nftr_probe install SEED     nftr_node_build + nftr_batch_send for l0, here
 *   nftr_probe install-bad SEED the same with l0's group emptied: the kernel must refuse the
 *                               hash (modulus 0), and with it the batch as a whole
 *   nftr_probe render SEED      nftr_node_render for l0
 *   nftr_probe predict SEED FROM SADDR
 *                               stdin "sport dport tag" -> stdout "sport port": the port of
 *                               l0 that route_trace says a UDP flow from node FROM leaves by
 *   nftr_probe send SADDR DADDR stdin "sport dport tag": one datagram each, TOS = tag << 2
 *   nftr_probe recv PORT        prints "sport tag" per datagram to PORT, until killed */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "model/addr.h"
#include "model/gen.h"
#include "model/paths.h"
#include "kernel/nftr.h"
#include "policy/route.h"

struct world {
	struct topo *t;
	struct topo_paths paths;
	struct route_plan plan;
	uint32_t src, dst, sw; /* h0, h1, l0 */
};

static int world_init(struct world *w, uint32_t seed, struct diag *d)
{
	struct scenario s;
	int r;

	memset(w, 0, sizeof(*w));
	scn_init(&s);
	s.routing.seed = seed;
	s.topology.gen = SCN_GEN_LEAFSPINE;
	s.topology.ls.hosts_per_leaf = 1;
	s.topology.ls.leaves = 2;
	s.topology.ls.spines = 4;
	s.topology.ls.host_rate = s.topology.ls.fabric_rate = 1000000000ull;
	r = topo_build(&s, &w->t, d);
	scn_done(&s);
	if (r)
		return r;
	r = paths_compute(w->t, &w->paths);
	r = r ? r : route_plan_build(w->t, &w->paths, &w->plan, d);
	if (r)
		return r;
	w->src = (uint32_t)topo_node_find(w->t, "h0");
	w->dst = (uint32_t)topo_node_find(w->t, "h1");
	w->sw = (uint32_t)topo_node_find(w->t, "l0");
	return 0;
}

static void world_done(struct world *w)
{
	route_plan_done(&w->plan);
	paths_done(&w->paths);
	topo_free(w->t);
}

static void print_port(const struct world *w, const char *var, uint32_t i)
{
	const struct topo_port *p = &w->t->ports.v[topo_node_port(w->t, w->sw, i)];
	const struct topo_port *peer =
		&w->t->ports.v[topo_port_peer(w->t, topo_node_port(w->t, w->sw, i))];
	char a[16], b[16];

	printf("%s_IF=%s %s_INDEX=%u %s_MARK=%u %s_ADDR=%s %s_PEER=%s\n", var, p->ifname, var,
	       p->ifindex, var, route_port_table(p->ifindex - 2), var,
	       addr_fmt(a, sizeof(a), p->addr), var, addr_fmt(b, sizeof(b), peer->addr));
}

static int cmd_layout(const struct world *w)
{
	const struct topo_node *sw = &w->t->nodes.v[w->sw];
	char a[16], b[16];
	uint32_t i;

	printf("SEED=%u\nSRC_ADDR=%s\nDST_ADDR=%s\nNH_N=%u\n", sw->seed,
	       addr_fmt(a, sizeof(a), w->t->nodes.v[w->src].addr),
	       addr_fmt(b, sizeof(b), w->t->nodes.v[w->dst].addr), sw->nports - 1);
	print_port(w, "EDGE", 0);
	for (i = 1; i < sw->nports; i++) {
		char var[16];

		snprintf(var, sizeof(var), "NH_%u", i - 1);
		print_port(w, var, i);
	}
	return 0;
}

static int cmd_install(const struct world *w, struct diag *d)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_NETFILTER);
	int r;

	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		r = diag_set(d, -errno, "netlink socket: %s", strerror(errno));
	else
		r = nftr_node_install(nl, w->t, &w->plan, w->sw, d);
	if (nl)
		mnl_socket_close(nl);
	return r;
}

/* l0's group emptied: a jhash modulo 0, which the kernel refuses. */
static int cmd_install_bad(struct world *w, struct diag *d)
{
	w->plan.groups.v[w->plan.nodes.v[w->sw].group_off].nh_n = 0;
	return cmd_install(w, d);
}

static int cmd_render(const struct world *w)
{
	int n = nftr_node_render(NULL, 0, w->t, &w->plan, w->sw);
	char *buf;

	if (n < 0)
		return n;
	buf = malloc((size_t)n + 1);
	if (!buf)
		return -ENOMEM;
	nftr_node_render(buf, (size_t)n + 1, w->t, &w->plan, w->sw);
	fputs(buf, stdout);
	free(buf);
	return 0;
}

/* The port of l0 toward the node after l0 on the traced path. */
static const char *egress(const struct world *w, const uint32_t *hops, int n)
{
	uint32_t i, p;
	int k;

	for (k = 0; k + 1 < n; k++) {
		if (hops[k] != w->sw)
			continue;
		for (i = 0; i < w->t->nodes.v[w->sw].nports; i++) {
			p = topo_node_port(w->t, w->sw, i);
			if (topo_port_peer_node(w->t, p) == hops[k + 1])
				return w->t->ports.v[p].ifname;
		}
	}
	return NULL;
}

static int cmd_predict(const struct world *w, const char *from, const char *saddr)
{
	struct route_flow f = {.proto = IPPROTO_UDP};
	int src = topo_node_find(w->t, from), n;
	unsigned sport, dport, tag;
	const char *port;
	struct in_addr a;
	uint32_t hops[8];

	if (src < 0 || inet_pton(AF_INET, saddr, &a) != 1)
		return -EINVAL;
	f.saddr = ntohl(a.s_addr);
	f.daddr = w->t->nodes.v[w->dst].addr;
	while (scanf("%u %u %u", &sport, &dport, &tag) == 3) {
		f.sport = (uint16_t)sport;
		f.dport = (uint16_t)dport;
		f.tag = (uint8_t)tag;
		n = route_trace(w->t, &w->plan, (uint32_t)src, &f, hops, 8);
		port = egress(w, hops, n);
		if (!port)
			return -EHOSTUNREACH;
		printf("%u %s\n", sport, port);
	}
	return 0;
}

static int udp_socket(uint32_t addr, unsigned port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(addr)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0), one = 1;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int send_one(uint32_t src, uint32_t dst, unsigned sport, unsigned dport, unsigned tag)
{
	struct sockaddr_in to = {.sin_family = AF_INET,
				 .sin_port = htons((uint16_t)dport),
				 .sin_addr.s_addr = htonl(dst)};
	int fd = udp_socket(src, sport), tos = (int)(tag << 2), r = 0;

	if (fd < 0)
		return fd;
	if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)) < 0 ||
	    sendto(fd, "nftr", 4, 0, (struct sockaddr *)&to, sizeof(to)) != 4)
		r = -errno;
	close(fd);
	return r;
}

static int cmd_send(const char *src, const char *dst)
{
	unsigned sport, dport, tag;
	struct in_addr s, d;
	int r;

	if (inet_pton(AF_INET, src, &s) != 1 || inet_pton(AF_INET, dst, &d) != 1)
		return -EINVAL;
	while (scanf("%u %u %u", &sport, &dport, &tag) == 3) {
		r = send_one(ntohl(s.s_addr), ntohl(d.s_addr), sport, dport, tag);
		if (r)
			return r;
	}
	return 0;
}

static int recv_one(int fd)
{
	char data[64], ctl[CMSG_SPACE(sizeof(int))];
	struct sockaddr_in from;
	struct iovec iov = {data, sizeof(data)};
	struct msghdr m = {.msg_name = &from,
			   .msg_namelen = sizeof(from),
			   .msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct cmsghdr *c;
	int tos = -1;

	if (recvmsg(fd, &m, 0) < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
			tos = *(unsigned char *)CMSG_DATA(c);
	printf("%u %d\n", ntohs(from.sin_port), tos < 0 ? -1 : tos >> 2);
	fflush(stdout);
	return 0;
}

static int cmd_recv(const char *port)
{
	int fd = udp_socket(INADDR_ANY, (unsigned)atoi(port)), one = 1, r = 0;
	struct pollfd p;

	if (fd < 0)
		return fd;
	(void)setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	p.fd = fd;
	p.events = POLLIN;
	/* until killed; a minute of silence means the script is gone */
	while (!r && poll(&p, 1, 60000) > 0)
		r = recv_one(fd);
	close(fd);
	return r;
}

static int run_model(int argc, char **argv, struct diag *d)
{
	const char *cmd = argv[1];
	struct world w;
	int r;

	r = world_init(&w, (uint32_t)strtoul(argv[2], NULL, 0), d);
	if (!r && !strcmp(cmd, "layout"))
		r = cmd_layout(&w);
	else if (!r && !strcmp(cmd, "install"))
		r = cmd_install(&w, d);
	else if (!r && !strcmp(cmd, "install-bad"))
		r = cmd_install_bad(&w, d);
	else if (!r && !strcmp(cmd, "render"))
		r = cmd_render(&w);
	else if (!r && !strcmp(cmd, "predict") && argc == 5)
		r = cmd_predict(&w, argv[3], argv[4]);
	else if (!r)
		r = diag_set(d, -EINVAL, "unknown command '%s'", cmd);
	world_done(&w);
	return r;
}

int main(int argc, char **argv)
{
	struct diag d = {0};
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: nftr_probe layout|install|render SEED | "
				"predict SEED FROM SADDR | send SADDR DADDR | recv PORT\n");
		return 2;
	}
	if (!strcmp(argv[1], "send") && argc == 4)
		r = cmd_send(argv[2], argv[3]);
	else if (!strcmp(argv[1], "recv") && argc == 3)
		r = cmd_recv(argv[2]);
	else
		r = run_model(argc, argv, &d);
	if (r < 0) {
		fprintf(stderr, "nftr_probe %s: %s\n", argv[1], d.msg[0] ? d.msg : strerror(-r));
		return 1;
	}
	return 0;
}
