// SPDX-License-Identifier: MIT
/* testbed doctor's probes (doctor_probe.h): a namespace made and unnamed at once, veth pairs
 * inside it, one qdisc, filter, rule or route of each kind the testbed makes, the nftables
 * ruleset of an ECMP switch, and emu-node's io_uring; then the limits. Each request is the one
 * `up` sends (nlk_build.h, nlk_change.h, nftr.h), so a feature that passes here works there. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/capability.h>
#include <linux/pkt_sched.h>
#include <netlink/msg.h>
#include <netlink/route/tc.h>

#include "doctor/doctor_probe.h"
#include "kernel/netns.h"
#include "kernel/nftr.h"
#include "kernel/nlk.h"
#include "kernel/nlk_build.h"
#include "kernel/nlk_change.h"
#include "kernel/qstat.h"
#include "policy/shape.h"

/* veth pairs, each end carrying one probe: tbf | htb and its u32 filter (both ends up for the
 * multipath route), pfifo | bfifo, netem | ingress and a circuit, mq (two queues). */
enum { PAIR_SHAPE, PAIR_FIFO, PAIR_OCS, PAIR_MQ, PAIRS };
#define IFINDEX0 10 /* the first pair's first end; the namespace is fresh, every index is free */
#define RATE 1000000000ULL /* bit/s of the shaping probes */

struct probe {
	int root_fd, nsfd, nl; /* nl: NETLINK_ROUTE inside the namespace */
	struct nlk_batch b;
	const bool *want;
	struct doctor_result *res;
	bool pair[PAIRS]; /* made */
};

static int dev(int pair, int end)
{
	return IFINDEX0 + 2 * pair + end;
}

static uint64_t cap_eff(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long v = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

bool doctor_probe_root(struct doctor_result *r)
{
	const uint64_t need = 1ULL << CAP_NET_ADMIN | 1ULL << CAP_SYS_ADMIN;
	unsigned uid = (unsigned)geteuid();

	if ((cap_eff() & need) != need) {
		doctor_say(r, DOCTOR_MISSING, "uid %u lacks CAP_NET_ADMIN and CAP_SYS_ADMIN", uid);
		return false;
	}
	if (uid)
		doctor_say(r, DOCTOR_OK, "uid %u with CAP_NET_ADMIN and CAP_SYS_ADMIN", uid);
	else
		doctor_say(r, DOCTOR_OK, "running as root");
	return true;
}

static uint64_t read_number(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	unsigned long long v = 0;
	char line[256];
	size_t k = strlen(key);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, k) && sscanf(line + k, "%llu", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static void probe_limits(struct doctor_limits *lim)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl))
		lim->nofile_hard = rl.rlim_max;
	lim->nr_open = read_number("/proc/sys/fs/nr_open", "");
	lim->nofile_raise = cap_eff() & 1ULL << CAP_SYS_RESOURCE;
	lim->mem_avail = read_number("/proc/meminfo", "MemAvailable:") * 1024;
}

/* Sends the request built (its -errno, or 0 with m) and waits for its ack; a failure is f's,
 * in the kernel's words. */
static int ask(struct probe *p, int built, struct nl_msg **m, enum doctor_feat f, const char *what)
{
	struct diag d = {0};
	int r = built;

	if (r) { /* not the kernel's answer */
		doctor_say(&p->res[f], DOCTOR_UNTRIED, "not probed: building its request: %s",
			   strerror(-r));
		return r;
	}
	r = nlk_batch_add(&p->b, *m, &d, "%s", what);
	r = r ? r : nlk_batch_flush(&p->b, &d);
	nlmsg_free(*m);
	*m = NULL;
	if (r)
		doctor_say(&p->res[f], DOCTOR_MISSING, "%s", d.msg[0] ? d.msg : strerror(-r));
	else if (p->res[f].state == DOCTOR_UNTRIED)
		p->res[f].state = DOCTOR_OK;
	return r;
}

/* The name goes at once: from then on the namespace is only the fd's, and vanishes with it.
 * Signals wait meanwhile, so none can leave the name behind. */
static int make_ns(struct probe *p, const char *name, struct diag *d)
{
	static const struct netns_sysctl quiet[] = {
		/* a device coming up sends no IPv6 solicitations */
		{"net/ipv6/conf/all/disable_ipv6", "1"},
		{"net/ipv6/conf/default/disable_ipv6", "1"},
	};
	sigset_t block, old;
	int r;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	r = netns_prepare_dir(d);
	r = r ? r : netns_create(name, p->root_fd, NULL, quiet, 2, &p->nsfd, d);
	if (!r && (r = netns_delete(name)))
		diag_set(d, r, "removing %s: %s; 'ip netns delete %s' removes it", name,
			 strerror(-r), name);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

static int probe_ns(struct probe *p)
{
	struct diag d = {0};
	char name[64];
	int e;

	snprintf(name, sizeof(name), "tb-doctor-%d", (int)getpid());
	p->root_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (p->root_fd < 0)
		e = diag_set(&d, -errno, "opening /proc/self/ns/net: %s", strerror(errno));
	else
		e = make_ns(p, name, &d);
	if (!e) {
		p->nl = nlk_socket_in(p->nsfd, p->root_fd);
		if (p->nl < 0)
			e = diag_set(&d, p->nl, "opening netlink inside %s: %s", name,
				     strerror(-p->nl));
	}
	if (e) {
		doctor_say(&p->res[DOCTOR_NETNS], DOCTOR_MISSING, "%s", d.msg);
		return e;
	}
	nlk_batch_init(&p->b, p->nl);
	doctor_say(&p->res[DOCTOR_NETNS], DOCTOR_OK, "made and removed %s", name);
	return 0;
}

static bool pair_wanted(const bool *w, int k)
{
	switch (k) {
	case PAIR_SHAPE:
		return w[DOCTOR_TBF] || w[DOCTOR_HTB] || w[DOCTOR_U32] || w[DOCTOR_MULTIPATH] ||
		       w[DOCTOR_VETH];
	case PAIR_FIFO:
		return w[DOCTOR_PFIFO] || w[DOCTOR_BFIFO];
	case PAIR_OCS:
		return w[DOCTOR_NETEM] || w[DOCTOR_INGRESS] || w[DOCTOR_MIRRED];
	default:
		return w[DOCTOR_MQ];
	}
}

static int make_pair(struct probe *p, int k)
{
	char a[16], b[16];
	struct nlk_veth v = {.name = a,
			     .ifindex = dev(k, 0),
			     .nsfd = p->nsfd,
			     .peer = b,
			     .peer_ifindex = dev(k, 1),
			     .peer_nsfd = p->nsfd,
			     .txqueues = k == PAIR_MQ ? 2 : 0};
	struct nl_msg *m = NULL;
	int r;

	snprintf(a, sizeof(a), "tbd%da", k);
	snprintf(b, sizeof(b), "tbd%db", k);
	r = ask(p, nlk_build_veth(&v, &m), &m, DOCTOR_VETH, "creating a veth pair");
	p->pair[k] = !r;
	return r;
}

/* tbf with the parameters `up` derives; htb with a class and, for u32, the ACK filter. */
static void probe_shaping(struct probe *p)
{
	struct nlk_htb_class c = {TC_HANDLE(1, 0),
				  TC_HANDLE(1, SHAPE_MINOR_PARENT),
				  RATE,
				  RATE,
				  SHAPE_FRAME * 8,
				  0,
				  0};
	struct shape_params sp;
	struct scenario s;
	struct nl_msg *m = NULL;
	int r;

	scn_init(&s);
	s.shaping.qdisc = SCN_QDISC_TBF;
	if (p->want[DOCTOR_TBF] && !shape_derive(RATE, 0, &s.shaping, &sp, NULL))
		ask(p, nlk_build_tbf(dev(PAIR_SHAPE, 0), &sp, &m), &m, DOCTOR_TBF, "adding tbf");
	scn_done(&s);
	if (!p->want[DOCTOR_HTB])
		return;
	r = ask(p, nlk_build_htb_qdisc(dev(PAIR_SHAPE, 1), SHAPE_MINOR_DATA, &m), &m, DOCTOR_HTB,
		"adding htb");
	r = r ? r
	      : ask(p, nlk_build_htb_class(dev(PAIR_SHAPE, 1), &c, &m), &m, DOCTOR_HTB,
		    "adding an htb class");
	if (!r && p->want[DOCTOR_U32])
		ask(p, nlk_build_u32_short(dev(PAIR_SHAPE, 1), SHAPE_ACK_MAX, c.classid, &m), &m,
		    DOCTOR_U32, "adding the ACK filter (u32)");
	else if (p->want[DOCTOR_U32])
		doctor_say(&p->res[DOCTOR_U32], DOCTOR_UNTRIED, "not probed: its probe needs htb");
}

/* The sampler's BPF programs (kernel/qstat.h) on the htb probe's root qdisc: located from
 * inside the namespace, then read. */
static void probe_bpf(struct probe *p)
{
	struct doctor_result *res = &p->res[DOCTOR_BPF];
	struct qstat *q = NULL;
	struct qstat_slot x;
	struct diag d = {0};
	int r;

	if (!p->want[DOCTOR_BPF] || p->res[DOCTOR_HTB].state != DOCTOR_OK) {
		if (p->want[DOCTOR_BPF])
			doctor_say(res, DOCTOR_UNTRIED, "not probed: its probe needs htb");
		return;
	}
	r = qstat_open(&q, 1, &d);
	if (!r) {
		r = netns_enter(p->nsfd);
		r = r ? r : qstat_locate(q, 0, (uint32_t)dev(PAIR_SHAPE, 1));
		if (netns_enter(p->root_fd))
			r = r ? r : -errno;
		r = r ? r : qstat_sample(q);
		if (r)
			diag_set(&d, r, "running the programs: %s", strerror(-r));
		else if (!qstat_get(q, 0, &x))
			r = diag_set(&d, -ENOENT, "the htb qdisc was not found");
	}
	qstat_free(q);
	if (r)
		doctor_say(res, DOCTOR_MISSING, "%s", d.msg);
	else
		doctor_say(res, DOCTOR_OK, "read an htb qdisc's counters");
}

static void probe_fifos(struct probe *p)
{
	struct nl_msg *m = NULL;

	if (p->want[DOCTOR_PFIFO])
		ask(p, nlk_build_pfifo(dev(PAIR_FIFO, 0), TC_H_ROOT, TC_HANDLE(1, 0), 100, &m), &m,
		    DOCTOR_PFIFO, "adding pfifo");
	if (p->want[DOCTOR_BFIFO])
		ask(p, nlk_build_bfifo(dev(PAIR_FIFO, 1), TC_H_ROOT, TC_HANDLE(1, 0), 100000, &m),
		    &m, DOCTOR_BFIFO, "adding bfifo");
}

/* netem; an OCS port's ingress qdisc and circuit (u32 match-all, mirred redirect). */
static void probe_ocs(struct probe *p)
{
	const int a = dev(PAIR_OCS, 0), b = dev(PAIR_OCS, 1);
	struct nl_msg *m = NULL;
	int r;

	if (p->want[DOCTOR_NETEM])
		ask(p, nlk_build_netem(a, TC_H_ROOT, TC_HANDLE(1, 0), 1000000, 1000, &m), &m,
		    DOCTOR_NETEM, "adding netem");
	if (!p->want[DOCTOR_INGRESS])
		return;
	r = ask(p, nlk_build_ingress(b, &m), &m, DOCTOR_INGRESS, "adding the ingress qdisc");
	if (r && p->want[DOCTOR_MIRRED])
		doctor_say(&p->res[DOCTOR_MIRRED], DOCTOR_UNTRIED,
			   "not probed: its probe needs the ingress qdisc");
	if (r || !p->want[DOCTOR_MIRRED])
		return;
	r = ask(p, nlk_build_circuit(b, a, &m), &m, DOCTOR_MIRRED,
		"adding a circuit (u32, mirred)");
	if (!r && p->res[DOCTOR_U32].state == DOCTOR_UNTRIED)
		doctor_say(&p->res[DOCTOR_U32], DOCTOR_OK, "%s", "");
}

static void probe_links(struct probe *p)
{
	struct nl_msg *m = NULL;
	int k, r = 0;

	for (k = 0; !r && k < PAIRS; k++)
		if (pair_wanted(p->want, k))
			r = make_pair(p, k);
	if (r)
		return;
	probe_shaping(p);
	probe_bpf(p);
	probe_fifos(p);
	probe_ocs(p);
	if (p->want[DOCTOR_MQ])
		ask(p, nlk_build_qdisc(dev(PAIR_MQ, 0), "mq", &m), &m, DOCTOR_MQ, "adding mq");
}

/* A rule as route.c makes them, and a route of two next hops as the main table's fallbacks
 * are, each over a /31 as the fabric's links (addresses and routes send nothing). */
static void probe_routing(struct probe *p)
{
	const struct nlk_nexthop nh[2] = {{dev(PAIR_SHAPE, 0), 0xc6336401u, false},
					  {dev(PAIR_SHAPE, 1), 0xc6336403u, false}};
	const struct nlk_route rt = {ROUTE_TABLE_MAIN, 0xc0000200u, 24, 0, nh, 2, 0};
	const uint32_t table = route_port_table(0);
	struct nl_msg *m = NULL;
	int i, r = 0;

	if (p->want[DOCTOR_RULE])
		ask(p, nlk_build_rule(ROUTE_RULE_PRIO, table, table, &m), &m, DOCTOR_RULE,
		    "adding a fwmark rule");
	if (!p->want[DOCTOR_MULTIPATH] || !p->pair[PAIR_SHAPE])
		return;
	for (i = 0; !r && i < 2; i++) {
		r = ask(p, nlk_build_addr(nh[i].ifindex, nh[i].gw - 1, 31, &m), &m,
			DOCTOR_MULTIPATH, "adding an address");
		r = r ? r
		      : ask(p, nlk_build_link_up(nh[i].ifindex, 0, &m), &m, DOCTOR_MULTIPATH,
			    "bringing a veth up");
	}
	if (!r) {
		p->res[DOCTOR_MULTIPATH].state = DOCTOR_UNTRIED; /* the route decides */
		ask(p, nlk_build_route(&rt, &m), &m, DOCTOR_MULTIPATH, "adding a multipath route");
	}
}

/* The ruleset of an ECMP switch, hashing (nft) or spraying (numgen). */
static int nft_install(struct probe *p, struct mnl_socket *nl, enum doctor_feat f)
{
	struct doctor_nft_world w;
	struct diag d = {0};
	int r;

	r = doctor_nft_world_init(&w, f == DOCTOR_NUMGEN, &d);
	r = r ? r : nftr_node_install(nl, w.t, &w.plan, w.node, &d);
	doctor_nft_world_done(&w);
	if (r)
		doctor_say(&p->res[f], DOCTOR_MISSING, "%s", d.msg[0] ? d.msg : strerror(-r));
	else
		doctor_say(&p->res[f], DOCTOR_OK, "%s",
			   f == DOCTOR_NFT ? "table, chains, sets, maps, verdict maps, jhash" : "");
	return r;
}

static void probe_nft(struct probe *p)
{
	struct mnl_socket *nl;
	int r = 0;

	if (!p->want[DOCTOR_NFT] && !p->want[DOCTOR_NUMGEN])
		return;
	nl = nftr_socket_in(p->nsfd, p->root_fd, &r);
	if (!nl) {
		doctor_say(&p->res[DOCTOR_NFT], DOCTOR_MISSING, "opening a netfilter socket: %s",
			   strerror(-r));
		return;
	}
	if (p->want[DOCTOR_NFT])
		r = nft_install(p, nl, DOCTOR_NFT);
	if (!r && p->want[DOCTOR_NUMGEN])
		nft_install(p, nl, DOCTOR_NUMGEN);
	mnl_socket_close(nl);
}

/* emu-node --probe inside the namespace, its one line on fd. */
static __attribute__((noreturn)) void uring_child(int fd, int nsfd, const char *emu)
{
	char *const argv[] = {(char *)emu, "--probe", NULL};

	if (netns_enter(nsfd)) {
		dprintf(fd, "entering the namespace: %s\n", strerror(errno));
		_exit(127);
	}
	if (dup2(fd, STDOUT_FILENO) < 0)
		_exit(127);
	execv(emu, argv);
	dprintf(STDOUT_FILENO, "cannot run %s: %s\n", emu, strerror(errno));
	_exit(127);
}

/* The child's words, and its exit status (-1 when it did not exit). */
static int uring_wait(pid_t pid, int fd, char *out, size_t len)
{
	size_t got = 0;
	ssize_t n;
	int st;

	while (got + 1 < len && (n = read(fd, out + got, len - 1 - got)) != 0) {
		if (n < 0 && errno != EINTR)
			break;
		got += n > 0 ? (size_t)n : 0;
	}
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void probe_uring(struct probe *p, const char *emu)
{
	struct doctor_result *r = &p->res[DOCTOR_URING];
	char out[sizeof(r->detail)];
	int fd[2], st;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC)) {
		doctor_say(r, DOCTOR_UNTRIED, "not probed: pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0)
		uring_child(fd[1], p->nsfd, emu);
	close(fd[1]);
	st = pid < 0 ? -1 : uring_wait(pid, fd[0], out, sizeof(out));
	close(fd[0]);
	if (pid < 0)
		doctor_say(r, DOCTOR_UNTRIED, "not probed: fork: %s", strerror(errno));
	else if (st == 0 || st == 1)
		doctor_say(r, st ? DOCTOR_MISSING : DOCTOR_OK, "%s", out);
	else /* no emu-node to ask: not the kernel's doing */
		doctor_say(r, DOCTOR_UNTRIED, "not probed: %s", out[0] ? out : "emu-node --probe");
}

/* Wanted features left untried say what stood in the way. */
static void untried(struct probe *p)
{
	const char *why;
	int f;

	for (f = DOCTOR_VETH; f <= DOCTOR_URING; f++) {
		if (!p->want[f] || p->res[f].state != DOCTOR_UNTRIED || p->res[f].detail[0])
			continue;
		why = p->res[DOCTOR_NETNS].state != DOCTOR_OK ? "a network namespace"
		      : f == DOCTOR_NUMGEN		      ? "nftables"
							      : "a veth pair";
		doctor_say(&p->res[f], DOCTOR_UNTRIED, "not probed: it needs %s", why);
	}
}

void doctor_probe(const bool want[DOCTOR_FEATS], const char *emu,
		  struct doctor_result res[DOCTOR_FEATS], struct doctor_limits *lim)
{
	struct probe p = {.root_fd = -1, .nsfd = -1, .nl = -1, .want = want, .res = res};

	memset(res, 0, DOCTOR_FEATS * sizeof(*res));
	memset(lim, 0, sizeof(*lim));
	if (want[DOCTOR_ROOT])
		doctor_probe_root(&res[DOCTOR_ROOT]);
	if (want[DOCTOR_NOFILE] || want[DOCTOR_MEMORY])
		probe_limits(lim);
	if (want[DOCTOR_NETNS] && !probe_ns(&p)) {
		probe_links(&p);
		probe_routing(&p);
		probe_nft(&p);
		if (want[DOCTOR_URING])
			probe_uring(&p, emu);
		nlk_batch_done(&p.b);
	}
	untried(&p);
	if (p.nl >= 0)
		close(p.nl);
	if (p.nsfd >= 0) /* the namespace's last reference: the kernel removes it */
		close(p.nsfd);
	if (p.root_fd >= 0)
		close(p.root_fd);
}

int doctor_check(const struct doctor_needs *n, const char *emu, struct diag *d)
{
	struct doctor_result res[DOCTOR_FEATS];
	struct doctor_limits lim;
	bool want[DOCTOR_FEATS];

	doctor_wanted(n, false, want);
	want[DOCTOR_ROOT] = false; /* `up` asked for root already (cmd_need_root) */
	doctor_probe(want, emu, res, &lim);
	doctor_judge_limits(n, &lim, res);
	return doctor_refusal(n, res, d);
}
