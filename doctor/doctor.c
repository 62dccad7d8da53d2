// SPDX-License-Identifier: MIT
/* testbed doctor's decisions (doctor.h): the features, which scenario fields need them, and
 * what a probe's findings mean for a run. No syscalls: doctor_probe.c does the probing. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/gen.h"
#include "doctor/doctor.h"

#define NOFILE_SPARE 256 /* `up`'s own descriptors beside one per namespace */
#define NODE_FDS 16 /* an emu-node's own: stdio, control socket, listener, ring, spare */
/* Peers of a rank in a collective other than all-to-all: a ring has 2, halving-doubling
 * log2 of the ranks; an estimate, not a bound. */
#define FEW_PEERS 8

struct feat {
	const char *name;
	const char *what; /* "the netem qdisc (sch_netem)" */
	const char *advice; /* how to get it */
	const char *users; /* the fields that need it, for a run without a scenario */
	bool info; /* reported, never needed */
	bool detail; /* its probe's words belong in `up`'s refusal */
};

static const struct feat feats[DOCTOR_FEATS] = {
	[DOCTOR_ROOT] = {"root", "root, or CAP_NET_ADMIN and CAP_SYS_ADMIN", "run it with sudo",
			 "every scenario"},
	[DOCTOR_NETNS] = {"netns", "network namespaces",
			  "a kernel with CONFIG_NET_NS; in a container, a privileged one",
			  "every scenario", .detail = true},
	[DOCTOR_VETH] = {"veth", "veth pairs (veth)", "modprobe veth", "every scenario"},
	[DOCTOR_TBF] = {"tbf", "the tbf qdisc (sch_tbf)", "modprobe sch_tbf", "shaping.qdisc: tbf"},
	[DOCTOR_HTB] = {"htb", "the htb qdisc (sch_htb)", "modprobe sch_htb",
			"shaping.qdisc: htb (the default)"},
	[DOCTOR_PFIFO] = {"pfifo", "the pfifo qdisc", "a kernel with CONFIG_NET_SCH_FIFO",
			  "shaping.qdisc: htb (each new class's queue)"},
	[DOCTOR_BFIFO] = {"bfifo", "the bfifo qdisc", "a kernel with CONFIG_NET_SCH_FIFO",
			  "shaping (every shaped link's queue)"},
	[DOCTOR_NETEM] = {"netem", "the netem qdisc (sch_netem)", "modprobe sch_netem",
			  "topology.delay"},
	[DOCTOR_INGRESS] = {"ingress", "the ingress qdisc (sch_ingress)", "modprobe sch_ingress",
			    "topology.ocs"},
	[DOCTOR_MQ] = {"mq", "the mq qdisc", NULL, NULL, .info = true},
	[DOCTOR_BPF] = {"bpf", "reading shapers' counters by BPF",
			"Linux 6.2 or later with BTF (CONFIG_DEBUG_INFO_BTF), BPF allowed to root",
			"sampling at a third of the CPU", .info = true},
	[DOCTOR_U32] = {"u32", "the u32 classifier (cls_u32)", "modprobe cls_u32",
			"shaping.ack_priority, topology.ocs"},
	[DOCTOR_MIRRED] = {"mirred", "the mirred action (act_mirred)", "modprobe act_mirred",
			   "topology.ocs"},
	[DOCTOR_NFT] = {"nftables",
			"nftables with sets, maps, verdict maps and jhash (nf_tables, nft_hash)",
			"modprobe nf_tables nft_hash", "ECMP", .detail = true},
	[DOCTOR_NUMGEN] = {"numgen", "nftables' numgen (nft_numgen)", "modprobe nft_numgen",
			   "routing.spray"},
	[DOCTOR_RULE] = {"rule", "policy routing (ip rule fwmark)",
			 "a kernel with CONFIG_IP_MULTIPLE_TABLES", "ECMP"},
	[DOCTOR_MULTIPATH] = {"multipath", "multipath routes",
			      "a kernel with CONFIG_IP_ROUTE_MULTIPATH", "ECMP"},
	[DOCTOR_URING] = {"io_uring", "io_uring with the operations emu-node submits",
			  "kernel 5.19 or later, with io_uring allowed (sysctl "
			  "kernel.io_uring_disabled=0)",
			  "a workload", .detail = true},
	[DOCTOR_MEMORY] = {"memory", "memory", NULL, NULL, .info = true},
	[DOCTOR_NOFILE] = {"nofile", "open files (RLIMIT_NOFILE)",
			   "raise the hard limit (ulimit -Hn N as root, or LimitNOFILE= in a unit)",
			   "every scenario", .detail = true},
};

const char *doctor_feat_name(enum doctor_feat f)
{
	return f < DOCTOR_FEATS ? feats[f].name : "?";
}

uint64_t doctor_nofile_up(size_t n)
{
	return (uint64_t)n + NOFILE_SPARE;
}

/* f is needed by field, given at `at`; the first reason stays. */
static void need(struct doctor_needs *n, enum doctor_feat f, const char *field, struct scn_at at)
{
	if (n->f[f].field)
		return;
	n->f[f].field = field;
	n->f[f].at = at;
}

void doctor_needs_core(struct doctor_needs *n)
{
	const struct scn_at none = {0, 0};

	memset(n, 0, sizeof(*n));
	need(n, DOCTOR_ROOT, "every scenario", none);
	need(n, DOCTOR_NETNS, "every scenario", none);
	need(n, DOCTOR_VETH, "every scenario", none);
	need(n, DOCTOR_TBF, "shaping (tbf or htb)", none);
	need(n, DOCTOR_HTB, "shaping (tbf or htb)", none);
	n->f[DOCTOR_TBF].either = n->f[DOCTOR_HTB].either = true;
	need(n, DOCTOR_NFT, "ECMP", none);
	need(n, DOCTOR_URING, "a workload", none);
	need(n, DOCTOR_NOFILE, "every scenario", none);
	n->nofile_up = doctor_nofile_up(0);
}

/* The cables: with OCS layers t is the logical view, its phys the veths (model/ocs.h). */
static const struct topo *cables(const struct topo *t)
{
	return t->phys ? t->phys : t;
}

static bool shaped(const struct topo *t)
{
	size_t i;

	for (i = 0; i < t->ports.n; i++)
		if (topo_port_rate(t, (uint32_t)i))
			return true;
	return false;
}

bool doctor_delayed(const struct topo *t)
{
	size_t i;

	for (i = 0; i < t->links.n; i++)
		if (t->links.v[i].delay_ns)
			return true;
	return false;
}

/* shaping.qdisc's queues (policy/shape.h; fabric_node.c builds them): tbf keeps a bfifo
 * inside; htb's classes start with a pfifo, replaced by a bfifo leaf. */
static void needs_shaping(const struct scenario *s, struct doctor_needs *n)
{
	const struct scn_shaping *sh = &s->shaping;
	bool htb = sh->qdisc == SCN_QDISC_HTB, given = sh->qdisc_at.line != 0;
	const char *field = given ? "shaping.qdisc"
			    : htb ? "shaping.qdisc (htb by default)"
				  : "shaping.qdisc";

	need(n, htb ? DOCTOR_HTB : DOCTOR_TBF, field, sh->qdisc_at);
	need(n, DOCTOR_BFIFO, field, sh->qdisc_at);
	if (htb)
		need(n, DOCTOR_PFIFO, field, sh->qdisc_at);
	if (htb && sh->ack_priority)
		need(n, DOCTOR_U32,
		     sh->ack_at.line ? "shaping.ack_priority"
				     : "shaping.ack_priority (on by default)",
		     sh->ack_at);
}

/* ECMP (policy/route.h): nftables marks, `ip rule fwmark` tables, multipath fallbacks. */
static void needs_ecmp(const struct scenario *s, const struct route_plan *plan,
		       struct doctor_needs *n)
{
	const struct scn_at topo = {s->topology.line, s->topology.col};
	const char *field = "topology (its ECMP groups)";
	size_t i;

	if (plan->groups.n)
		need(n, DOCTOR_NFT, field, topo);
	if (plan->groups.n && s->routing.spray) {
		need(n, DOCTOR_NUMGEN, "routing.spray", s->routing.spray_at);
		n->f[DOCTOR_NUMGEN].remedy = "set routing.spray: false or load nft_numgen";
	}
	if (plan->rules.n)
		need(n, DOCTOR_RULE, field, topo);
	for (i = 0; i < plan->routes.n; i++)
		if (plan->routes.v[i].nh_n > 1)
			need(n, DOCTOR_MULTIPATH, field, topo);
}

/* An emu-node's connections for job j: every other rank's, per channel, in an all-to-all. */
static uint32_t job_conns(const struct job_spec *j)
{
	uint32_t peers = j->gpus ? j->gpus - 1 : 0, ch = j->channels ? j->channels : 1;

	if (j->kind != COLL_ALLTOALL && peers > FEW_PEERS)
		peers = FEW_PEERS;
	return peers * ch;
}

static void needs_workload(const job_list *jobs, struct doctor_needs *n)
{
	const struct scn_at none = {0, 0};
	size_t i;

	if (!jobs->n)
		return;
	need(n, DOCTOR_URING, "workload", none);
	for (i = 0; i < jobs->n; i++)
		if (job_conns(&jobs->v[i]) > n->conns)
			n->conns = job_conns(&jobs->v[i]);
	n->nofile_node = (uint64_t)n->conns + NODE_FDS;
}

void doctor_needs_of(const struct experiment *e, const struct topo *t,
		     const struct route_plan *plan, const job_list *jobs, struct doctor_needs *n)
{
	const struct scenario *s = &e->s;
	const struct scn_at topo = {s->topology.line, s->topology.col};

	memset(n, 0, sizeof(*n));
	n->file = s->path;
	n->namespaces = t->nodes.n;
	n->veths = cables(t)->links.n;
	n->nofile_up = doctor_nofile_up(t->nodes.n);
	need(n, DOCTOR_ROOT, "testbed up", (struct scn_at){0, 0});
	need(n, DOCTOR_NETNS, "topology", topo);
	need(n, DOCTOR_NOFILE, "topology", topo);
	if (n->veths)
		need(n, DOCTOR_VETH, "topology", topo);
	if (s->shaping.qdisc != SCN_QDISC_NONE && shaped(t))
		needs_shaping(s, n);
	if (doctor_delayed(t)) {
		need(n, DOCTOR_NETEM, "topology.delay", s->topology.delay_at);
		n->f[DOCTOR_NETEM].remedy = "remove the delay or load sch_netem";
	}
	if (t->phys) {
		need(n, DOCTOR_INGRESS, "topology.ocs", s->topology.ocs_at);
		need(n, DOCTOR_U32, "topology.ocs", s->topology.ocs_at);
		need(n, DOCTOR_MIRRED, "topology.ocs", s->topology.ocs_at);
	}
	needs_ecmp(s, plan, n);
	needs_workload(jobs, n);
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))

void doctor_needs_merge(struct doctor_needs *a, const struct doctor_needs *b)
{
	int f;

	for (f = 0; f < DOCTOR_FEATS; f++)
		if (!a->f[f].field)
			a->f[f] = b->f[f];
	a->namespaces = MAX(a->namespaces, b->namespaces);
	a->veths = MAX(a->veths, b->veths);
	a->conns = MAX(a->conns, b->conns);
	a->nofile_up = MAX(a->nofile_up, b->nofile_up);
	a->nofile_node = MAX(a->nofile_node, b->nofile_node);
}

void doctor_wanted(const struct doctor_needs *n, bool all, bool want[DOCTOR_FEATS])
{
	bool dev = false, kernel = false;
	int f;

	for (f = 0; f < DOCTOR_FEATS; f++)
		want[f] = all || n->f[f].field;
	want[DOCTOR_MEMORY] = all;
	want[DOCTOR_BPF] = all || n->f[DOCTOR_HTB].field || n->f[DOCTOR_TBF].field;
	/* the u32 probe is htb's ACK filter; mirred's is a circuit on an ingress qdisc */
	want[DOCTOR_HTB] |= want[DOCTOR_U32];
	want[DOCTOR_INGRESS] |= want[DOCTOR_MIRRED];
	for (f = DOCTOR_VETH; f <= DOCTOR_MIRRED; f++)
		dev |= want[f];
	want[DOCTOR_VETH] |= dev || want[DOCTOR_MULTIPATH];
	for (f = DOCTOR_VETH; f <= DOCTOR_URING; f++)
		kernel |= want[f];
	want[DOCTOR_NETNS] |= kernel;
}

void doctor_say(struct doctor_result *r, enum doctor_state st, const char *fmt, ...)
{
	va_list ap;

	r->state = st;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

static void judge_nofile(const struct doctor_needs *n, const struct doctor_limits *lim,
			 struct doctor_result *r)
{
	uint64_t hard = lim->nofile_hard, up = n->nofile_up, node = n->nofile_node;
	/* as far as `up` can raise its own limit, which its emu-nodes inherit (fabric.c) */
	uint64_t most = lim->nofile_raise ? MAX(hard, lim->nr_open) : hard;
	uint64_t given = up > hard && up <= most ? up : hard;

	if (up > most)
		doctor_say(r, DOCTOR_MISSING,
			   "%llu namespaces need %llu open files, the hard limit is %llu%s; ulimit "
			   "-Hn %llu",
			   (unsigned long long)n->namespaces, (unsigned long long)up,
			   (unsigned long long)hard, lim->nofile_raise ? " (fs.nr_open)" : "",
			   (unsigned long long)up);
	else if (node > given)
		doctor_say(r, DOCTOR_MISSING,
			   "an emu-node opens about %u connections and needs %llu open files, the "
			   "hard "
			   "limit is %llu; ulimit -Hn %llu",
			   n->conns, (unsigned long long)node, (unsigned long long)given,
			   (unsigned long long)node);
	else if (n->file && node)
		doctor_say(r, DOCTOR_OK, "hard limit %llu; up needs %llu, an emu-node %llu",
			   (unsigned long long)hard, (unsigned long long)up,
			   (unsigned long long)node);
	else if (n->file)
		doctor_say(r, DOCTOR_OK, "hard limit %llu; up needs %llu", (unsigned long long)hard,
			   (unsigned long long)up);
	else
		doctor_say(r, DOCTOR_OK, "hard limit %llu", (unsigned long long)hard);
}

void doctor_judge_limits(const struct doctor_needs *n, const struct doctor_limits *lim,
			 struct doctor_result res[DOCTOR_FEATS])
{
	double gib = (double)lim->mem_avail / (1u << 30);

	judge_nofile(n, lim, &res[DOCTOR_NOFILE]);
	if (n->file)
		doctor_say(&res[DOCTOR_MEMORY], DOCTOR_OK,
			   "%.1f GiB available; this scenario makes %llu namespaces and %llu veth "
			   "pairs",
			   gib, (unsigned long long)n->namespaces, (unsigned long long)n->veths);
	else
		doctor_say(&res[DOCTOR_MEMORY], DOCTOR_OK, "%.1f GiB available", gib);
}

bool doctor_blocks(const struct doctor_needs *n, const struct doctor_result res[DOCTOR_FEATS],
		   enum doctor_feat f)
{
	int g;

	if (!n->f[f].field || feats[f].info || res[f].state != DOCTOR_MISSING)
		return false;
	for (g = 0; n->f[f].either && g < DOCTOR_FEATS; g++)
		if (g != (int)f && n->f[g].either && res[g].state == DOCTOR_OK)
			return false;
	return true;
}

/* " (file:line:col)", " (file)" or "": where the scenario asks for it. */
static const char *where(const struct doctor_needs *n, enum doctor_feat f, char *buf, size_t len)
{
	const struct scn_at *at = &n->f[f].at;

	if (!n->file)
		return "";
	if (at->line)
		snprintf(buf, len, " (%s:%u:%u)", n->file, at->line, at->col);
	else
		snprintf(buf, len, " (%s)", n->file);
	return buf;
}

/* A missing feature: who needs it, and what to do. */
static void missing_text(const struct doctor_needs *n, const struct doctor_result res[],
			 enum doctor_feat f, char *buf, size_t len)
{
	char loc[300];

	if (f == DOCTOR_NOFILE)
		snprintf(buf, len, "%s", res[f].detail);
	else if (doctor_blocks(n, res, f))
		snprintf(buf, len, "%s needs it%s; %s", n->f[f].field,
			 where(n, f, loc, sizeof(loc)), feats[f].advice);
	else if (n->f[f].field) /* needed, and an alternative is here */
		snprintf(buf, len, "not needed: another qdisc does for %s; %s", n->f[f].field,
			 feats[f].advice);
	else
		snprintf(buf, len, "needed only for %s; %s", feats[f].users, feats[f].advice);
}

bool doctor_line(const struct doctor_needs *n, const struct doctor_result res[DOCTOR_FEATS],
		 enum doctor_feat f, const char **status, char *buf, size_t len)
{
	const struct doctor_result *r = &res[f];

	*status = r->state == DOCTOR_OK ? "ok" : r->state == DOCTOR_MISSING ? "missing" : "-";
	if (f == DOCTOR_MEMORY && r->state == DOCTOR_OK)
		*status = "info";
	if (f == DOCTOR_MQ)
		snprintf(buf, len, "informational: the testbed does not use it");
	else if (f == DOCTOR_BPF && r->state == DOCTOR_MISSING)
		snprintf(buf, len,
			 "sampling reads the shapers by netlink instead, at about "
			 "three times the CPU: %s; %s",
			 r->detail, feats[f].advice);
	else if (r->state == DOCTOR_MISSING)
		missing_text(n, res, f, buf, len);
	else if (r->state == DOCTOR_OK && n->file && n->f[f].field && f != DOCTOR_MEMORY)
		snprintf(buf, len, "%s%s%s needs it", r->detail, r->detail[0] ? "; " : "",
			 n->f[f].field);
	else
		snprintf(buf, len, "%s", r->detail);
	return doctor_blocks(n, res, f);
}

int doctor_refusal(const struct doctor_needs *n, const struct doctor_result res[DOCTOR_FEATS],
		   struct diag *d)
{
	const struct doctor_need *nd;
	char loc[300] = "";
	int f;

	for (f = 0; f < DOCTOR_FEATS && !doctor_blocks(n, res, f); f++)
		;
	if (f == DOCTOR_FEATS)
		return 0;
	nd = &n->f[f];
	if (n->file && nd->at.line)
		snprintf(loc, sizeof(loc), "%s:%u:%u: ", n->file, nd->at.line, nd->at.col);
	if (f == DOCTOR_NOFILE)
		return diag_set(d, -EOPNOTSUPP, "%s%s", loc, res[f].detail);
	return diag_set(d, -EOPNOTSUPP, "%s%s needs %s, which this %s does not have%s%s%s; %s", loc,
			nd->field, feats[f].what, f == DOCTOR_ROOT ? "process" : "kernel",
			feats[f].detail ? " (" : "", feats[f].detail ? res[f].detail : "",
			feats[f].detail ? ")" : "", nd->remedy ? nd->remedy : feats[f].advice);
}

int doctor_nft_world_init(struct doctor_nft_world *w, bool spray, struct diag *d)
{
	struct scenario s;
	uint32_t i;
	int r;

	memset(w, 0, sizeof(*w));
	scn_init(&s);
	s.topology.ls.hosts_per_leaf = 1;
	s.topology.ls.leaves = 2;
	s.topology.ls.spines = 2;
	s.topology.ls.host_rate = s.topology.ls.fabric_rate = 1000000000;
	s.routing.spray = spray;
	r = topo_build(&s, &w->t, d);
	r = r ? r : route_plan_for(w->t, &w->paths, &w->plan, d);
	for (i = 0; !r && i < w->t->nodes.n && !w->plan.nodes.v[i].group_n; i++)
		;
	if (!r && i == w->t->nodes.n)
		r = diag_set(d, -EINVAL, "the nftables probe's topology has no ECMP group");
	w->node = i;
	scn_done(&s);
	return r;
}

void doctor_nft_world_done(struct doctor_nft_world *w)
{
	route_plan_done(&w->plan);
	paths_done(&w->paths);
	topo_free(w->t);
	w->t = NULL;
}
