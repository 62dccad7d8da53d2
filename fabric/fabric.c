// SPDX-License-Identifier: MIT
/* Kernel realization of a topology (see fabric.h): namespaces, then veth pairs from the root
 * namespace, then each namespace's addresses, qdiscs, routes and rules in one batch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <netlink/msg.h>

#include "doctor/doctor.h"
#include "fabric/fabric.h"
#include "fabric/fabric_int.h"
#include "model/addr.h"
#include "kernel/netns.h"
#include "kernel/nlk.h"
#include "kernel/nlk_build.h"

void fabric_ns_name(char *buf, size_t len, const char *tb, const char *node)
{
	snprintf(buf, len, "tb-%s-%s", tb, node);
}

const char *fabric_phase_name(enum fabric_phase ph)
{
	static const char *const names[] = {"namespaces", "links", "addresses/qdiscs/routes",
					    "nftables"};

	return ph < FABRIC_PHASES ? names[ph] : "?";
}

void fabric_progress(struct fabric *f, enum fabric_phase ph, size_t done, size_t total)
{
	if (f->progress)
		f->progress(f->progress_arg, ph, done, total);
}

int fabric_stopped(const struct fabric *f, struct diag *d)
{
	if (f->stop && *f->stop)
		return diag_set(d, -EINTR, "interrupted");
	return 0;
}

/* Enough descriptors for one fd per namespace plus sockets (doctor.h). */
static int raise_nofile(size_t namespaces, struct diag *d)
{
	rlim_t need = doctor_nofile_up(namespaces);
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return diag_set(d, -errno, "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return diag_set(
			d, -errno,
			"%zu namespaces need %llu open files; raising RLIMIT_NOFILE failed: %s",
			namespaces, (unsigned long long)need, strerror(errno));
	return 0;
}

/* Sysctls of a new namespace. IPv6 is off so no DAD/RS/MLD traffic pollutes counters;
 * rp_filter is off because ECMP paths are asymmetric; endpoints keep cwnd across idle
 * compute phases, as RDMA transports have no slow start, and use the scenario's congestion
 * control (scenario.h, enum scn_cc, says why Reno is the default) and receive buffer cap
 * (transport.window, written into rmem). With routing.spray, consecutive segments take paths
 * whose queues differ by many packets, so endpoints start from a reordering degree of 127
 * instead of 3 and send no tail loss probes (each one fired early and was answered by a
 * DSACK); RACK still detects real losses by time (docs/scenario.md, routing.spray). With
 * transport.window, a lossless fabric's credits, they send none either: a queue that holds
 * the windows delays a segment past two round trips without losing it, and every probe was
 * a duplicate (docs/scenario.md, transport.window). */
static int node_sysctls(const struct scenario *s, const struct topo_node *n,
			struct netns_sysctl *out, char *rmem, size_t len)
{
	static const struct netns_sysctl common[] = {
		{"net/ipv6/conf/all/disable_ipv6", "1"},
		{"net/ipv6/conf/default/disable_ipv6", "1"},
		{"net/ipv4/conf/all/rp_filter", "0"},
		{"net/ipv4/conf/default/rp_filter", "0"},
		{"net/ipv4/conf/all/arp_announce", "2"},
		{"net/ipv4/conf/default/arp_announce", "2"},
		{"net/ipv4/conf/all/send_redirects", "0"},
		{"net/ipv4/conf/default/send_redirects", "0"},
		{"net/ipv4/fib_multipath_hash_policy", "1"},
	};
	int k = 0;
	size_t i;

	for (i = 0; i < sizeof(common) / sizeof(common[0]); i++)
		out[k++] = common[i];
	out[k++] = (struct netns_sysctl){"net/ipv4/ip_forward", n->forwards ? "1" : "0"};
	if (n->kind == TOPO_ENDPOINT) {
		out[k++] = (struct netns_sysctl){"net/ipv4/tcp_slow_start_after_idle", "0"};
		out[k++] = (struct netns_sysctl){"net/ipv4/tcp_no_metrics_save", "1"};
		out[k++] = (struct netns_sysctl){"net/ipv4/tcp_congestion_control",
						 scn_cc_name(s->transport.cc)};
	}
	if (n->kind == TOPO_ENDPOINT && s->transport.window_bytes) {
		snprintf(rmem, len, "4096 %llu %llu", (unsigned long long)s->transport.window_bytes,
			 (unsigned long long)s->transport.window_bytes);
		out[k++] = (struct netns_sysctl){"net/ipv4/tcp_rmem", rmem};
	}
	if (n->kind == TOPO_ENDPOINT && s->routing.spray)
		out[k++] = (struct netns_sysctl){"net/ipv4/tcp_reordering", "127"};
	if (n->kind == TOPO_ENDPOINT && (s->routing.spray || s->transport.window_bytes))
		out[k++] = (struct netns_sysctl){"net/ipv4/tcp_early_retrans", "0"};
	return k;
}

static int make_namespaces(struct fabric *f, struct diag *d)
{
	const struct topo *t = f->t;
	const struct netns_claim claim = {state_record_claim, f->st, f->st->tag};
	struct netns_sysctl sc[20];
	char name[128], rmem[64];
	size_t i;
	int r;

	r = netns_prepare_dir(d);
	for (i = 0; !r && i < t->nodes.n; i++) {
		r = fabric_stopped(f, d);
		if (r)
			break;
		fabric_ns_name(name, sizeof(name), f->name, t->nodes.v[i].name);
		r = state_record(f->st, "ns %s", name);
		if (r) {
			r = diag_set(d, r, "writing the journal: %s", strerror(-r));
			break;
		}
		r = netns_create(name, f->root_fd, &claim, sc,
				 node_sysctls(f->s, &t->nodes.v[i], sc, rmem, sizeof(rmem)),
				 &f->nsfd[i], d);
		if ((i + 1) % 64 == 0 || i + 1 == t->nodes.n)
			fabric_progress(f, FABRIC_NETNS, i + 1, t->nodes.n);
	}
	return r;
}

/* The cables: with OCS layers f->t is the logical view, its phys the veths (model/ocs.h). */
static const struct topo *cables(const struct fabric *f)
{
	return f->t->phys ? f->t->phys : f->t;
}

static int add_veth(struct fabric *f, struct nlk_batch *b, uint32_t link, struct diag *d)
{
	const struct topo *t = cables(f);
	const struct topo_link *l = &t->links.v[link];
	const struct topo_port *a = &t->ports.v[l->port[0]], *z = &t->ports.v[l->port[1]];
	uint8_t ma[6], mz[6];
	struct nlk_veth v = {
		.name = a->ifname,
		.ifindex = (int)a->ifindex,
		.nsfd = f->nsfd[a->node],
		.peer = z->ifname,
		.peer_ifindex = (int)z->ifindex,
		.peer_nsfd = f->nsfd[z->node],
		.mtu = f->s->shaping.mtu,
		.mac = ma,
		.peer_mac = mz,
	};
	struct nl_msg *m = NULL;
	int r;

	addr_mac(l->port[0], ma);
	addr_mac(l->port[1], mz);
	r = nlk_build_veth(&v, &m);
	if (r)
		return diag_set(d, r, "building veth %s/%s: %s", a->ifname, z->ifname,
				strerror(-r));
	r = nlk_batch_add(b, m, d, "creating veth %s:%s <-> %s:%s", t->nodes.v[a->node].name,
			  a->ifname, t->nodes.v[z->node].name, z->ifname);
	nlmsg_free(m);
	return r;
}

static int make_links(struct fabric *f, struct diag *d)
{
	struct nlk_batch b;
	size_t i;
	int fd, r = 0;

	fd = nlk_socket();
	if (fd < 0)
		return diag_set(d, fd, "opening a netlink socket: %s", strerror(-fd));
	nlk_batch_init(&b, fd);
	for (i = 0; !r && i < cables(f)->links.n; i++) {
		r = fabric_stopped(f, d);
		r = r ? r : add_veth(f, &b, (uint32_t)i, d);
		if ((i + 1) % 256 == 0 && i + 1 < cables(f)->links.n)
			fabric_progress(f, FABRIC_LINKS, i + 1, cables(f)->links.n);
	}
	if (!r)
		r = nlk_batch_flush(&b, d);
	if (!r)
		fabric_progress(f, FABRIC_LINKS, cables(f)->links.n, cables(f)->links.n);
	nlk_batch_done(&b);
	close(fd);
	return r;
}

static int config_namespaces(struct fabric *f, struct diag *d)
{
	size_t i;
	int r = 0;

	for (i = 0; !r && i < f->t->nodes.n; i++) {
		r = fabric_stopped(f, d);
		r = r ? r : fabric_config_node(f, (uint32_t)i, d);
		if ((i + 1) % 64 == 0 || i + 1 == f->t->nodes.n)
			fabric_progress(f, FABRIC_CONFIG, i + 1, f->t->nodes.n);
	}
	return r;
}

int fabric_up(struct fabric *f, struct diag *d)
{
	int r;

	/* what the kernel lacks was refused before (doctor_check) */
	r = raise_nofile(f->t->nodes.n, d);
	r = r ? r : make_namespaces(f, d);
	r = r ? r : make_links(f, d);
	r = r ? r : config_namespaces(f, d);
	r = r ? r : fabric_ocs(f, d);
	r = r ? r : fabric_nft(f, d);
	if (!r)
		r = state_record(f->st, "complete");
	return r;
}

void fabric_close(struct fabric *f)
{
	size_t i;

	if (!f->nsfd)
		return;
	for (i = 0; i < f->t->nodes.n; i++) {
		if (f->nsfd[i] >= 0)
			close(f->nsfd[i]);
		f->nsfd[i] = -1;
	}
}
