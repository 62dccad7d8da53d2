// SPDX-License-Identifier: MIT
/* emu_drive: the integration tests' stand-in for the runner. Starts one emu-node per given
 * node of a running testbed (in /run/netns/tb-<name>-<node>), runs jobs on them, prints
 * per-iteration times and the flows' byte totals, and exits 0 only if every rank reported
 * success (and a verified result, with --verify) and the records add up. It can also abort
 * a job, kill a rank or freeze one (SIGSTOP, for the watchdog), and then expects every rank
 * still there to report the failure. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/units.h"
#include "lib/vec.h"
#include "run/emu/emu_spawn.h"
#include "kernel/netns.h"

struct rank {
	char node[32];
	uint32_t addr;
	int nsfd;
	pid_t pid;
	int fd; /* control socket */
	bool done;
	bool dead; /* killed on purpose */
	int status;
	bool verified;
	char reason[CTL_REASON_MAX];
};

struct drv {
	const char *name, *emu;
	struct rank *r;
	uint32_t n;
	struct coll_params p;
	uint32_t iters, jobs, verify, uid, gid, channels;
	uint64_t compute, progress, delay, timeout;
	uint16_t port;
	bool pin, show_flows;
	VEC(struct ctl_flow) recs; /* every record, for --flows */
	enum { DRV_NORMAL, DRV_ABORT, DRV_KILL, DRV_FREEZE, DRV_RETAG } mode; /* of job 1 */
	int victim; /* the rank killed or frozen */
	uint8_t tag, want_tag; /* --retag's tag; the one every flow record must carry */
	uint64_t bad_tags; /* records that carried another */
	uint64_t *t_begin, *t_end; /* per iteration: first collective start, last end */
	uint64_t *rx_bytes; /* per iteration */
	uint64_t sent, recvd; /* SEND and RECV record bytes, all iterations */
	char *buf;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int lo_addr_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	uint32_t v;

	if (ifa->ifa_family != AF_INET || ifa->ifa_index != 1) /* lo is 1 in every netns */
		return MNL_CB_OK;
	mnl_attr_for_each (a, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_type(a) != IFA_LOCAL)
			continue;
		v = ntohl(mnl_attr_get_u32(a));
		if (v >> 24 != 127)
			*(uint32_t *)data = v;
	}
	return MNL_CB_OK;
}

/* The endpoint address: the non-loopback IPv4 address on the node's lo (RTM_GETADDR). */
static int lo_addr(int nsfd, uint32_t *addr)
{
	char buf[8192];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	int root = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), fd, r = -EIO;
	ssize_t n;

	fd = root < 0 ? -errno : netns_socket(nsfd, root, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (root >= 0)
		close(root);
	if (fd < 0)
		return fd;
	nlh->nlmsg_type = RTM_GETADDR;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = 1;
	((struct rtgenmsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct rtgenmsg)))
		->rtgen_family = AF_INET;
	*addr = 0;
	if (send(fd, nlh, nlh->nlmsg_len, 0) < 0)
		goto out;
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		r = mnl_cb_run(buf, (size_t)n, 1, 0, lo_addr_cb, addr);
		if (r <= MNL_CB_STOP)
			break;
	}
	r = *addr ? 0 : -ENOENT;
out:
	close(fd);
	return r;
}

static int drv_nodes(struct drv *dr, char *list)
{
	char path[128], *tok, *save = NULL, *eq;
	struct rank *rk;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		dr->r = realloc(dr->r, (dr->n + 1) * sizeof(*dr->r));
		rk = memset(&dr->r[dr->n++], 0, sizeof(*rk));
		rk->pid = rk->fd = -1;
		eq = strchr(tok, '=');
		if (eq) {
			*eq = '\0';
			if (inet_pton(AF_INET, eq + 1, &rk->addr) != 1)
				return fprintf(stderr, "emu_drive: bad address %s\n", eq + 1), -1;
			rk->addr = ntohl(rk->addr);
		}
		snprintf(rk->node, sizeof(rk->node), "%s", tok);
		snprintf(path, sizeof(path), "tb-%s-%s", dr->name, tok);
		rk->nsfd = netns_open(path);
		if (rk->nsfd < 0)
			return fprintf(stderr, "emu_drive: %s: %s\n", path, strerror(-rk->nsfd)),
			       -1;
		if (!eq && lo_addr(rk->nsfd, &rk->addr))
			return fprintf(stderr, "emu_drive: %s: no endpoint address on lo\n", path),
			       -1;
	}
	return dr->n ? 0 : -1;
}

/* Waits for one packet from any rank still expected to speak; returns its rank or -1. */
static int drv_wait(struct drv *dr, uint64_t deadline, int *type)
{
	struct pollfd *pf = calloc(dr->n, sizeof(*pf));
	uint32_t i;
	ssize_t n;
	int r = -1;

	for (i = 0; i < dr->n; i++)
		pf[i] = (struct pollfd){.fd = dr->r[i].dead ? -1 : dr->r[i].fd, .events = POLLIN};
	while (r < 0 && now_ns() < deadline) {
		if (poll(pf, dr->n, (int)((deadline - now_ns()) / 1000000 + 1)) <= 0)
			continue;
		for (i = 0; i < dr->n && r < 0; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = emu_recv(pf[i].fd, dr->buf, CTL_MAX_MSG);
			*type = n > 0 ? ((const struct ctl_hdr *)dr->buf)->type : (int)n;
			if (n <= 0)
				fprintf(stderr, "emu_drive: rank %u (%s): %s\n", i, dr->r[i].node,
					n ? strerror((int)-n) : "control socket closed");
			r = (int)i;
		}
	}
	free(pf);
	return r;
}

static int drv_start(struct drv *dr)
{
	struct ctl_hello h;
	uint32_t i, ready = 0;
	int t, k, r;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	for (i = 0; i < dr->n; i++) {
		r = emu_spawn(dr->emu, dr->r[i].nsfd, dr->pin ? (int)(i % ncpu) : -1, &dr->r[i].pid,
			      &dr->r[i].fd);
		if (r)
			return fprintf(stderr, "emu_drive: spawn: %s\n", strerror(-r)), -1;
		memset(&h, 0, sizeof(h));
		emu_msg_init(&h, CTL_HELLO, sizeof(h));
		h.node = i;
		h.addr = dr->r[i].addr;
		h.port = dr->port;
		h.uid = dr->uid;
		h.gid = dr->gid;
		snprintf(h.name, sizeof(h.name), "%.15s", dr->r[i].node);
		if (emu_send(dr->r[i].fd, &h, sizeof(h)))
			return fprintf(stderr, "emu_drive: hello to %s failed\n", h.name), -1;
	}
	while (ready < dr->n) {
		k = drv_wait(dr, now_ns() + 10000000000ull, &t);
		if (k < 0 || t != CTL_READY) {
			if (k >= 0 && t == CTL_ERROR)
				fprintf(stderr, "emu_drive: %s: %s\n", dr->r[k].node,
					((struct ctl_error *)dr->buf)->reason);
			return -1;
		}
		ready++;
	}
	return 0;
}

static int drv_send_job(struct drv *dr, uint32_t job)
{
	size_t len = ctl_job_len(dr->n);
	struct ctl_job *m = calloc(1, len);
	uint64_t start = now_ns() + dr->delay;
	uint32_t i;
	int r = 0;

	emu_msg_init(m, CTL_JOB, (uint32_t)len);
	m->job = job;
	m->coll = dr->p;
	m->iterations = dr->iters;
	m->verify = dr->verify;
	m->channels = dr->channels;
	m->compute_ns = dr->compute;
	m->start_ns = start;
	m->progress_ns = dr->progress;
	for (i = 0; i < dr->n; i++)
		m->peers[i].addr = dr->r[i].addr;
	for (i = 0; i < dr->n && !r; i++) {
		m->rank = i;
		dr->r[i].done = false;
		r = emu_send(dr->r[i].fd, m, len);
	}
	free(m);
	return r;
}

static void drv_flows(struct drv *dr, const struct ctl_rec_flows *m)
{
	const struct ctl_flow *f;
	uint32_t i;

	for (i = 0; i < m->n; i++) {
		f = &m->flows[i];
		if (dr->show_flows && vec_push(&dr->recs, *f))
			abort();
		dr->bad_tags += f->tag != dr->want_tag;
		if (f->dir == COLL_SEND) {
			dr->sent += f->bytes;
		} else {
			dr->recvd += f->bytes;
			if (f->iter < dr->iters)
				dr->rx_bytes[f->iter] += f->bytes;
		}
	}
}

static void drv_iter(struct drv *dr, const struct ctl_rec_iter *m)
{
	uint32_t k = m->iter;

	if (k >= dr->iters)
		return;
	if (!dr->t_begin[k] || m->t_compute_end < dr->t_begin[k])
		dr->t_begin[k] = m->t_compute_end;
	if (m->t_end > dr->t_end[k])
		dr->t_end[k] = m->t_end;
}

static void drv_done(struct drv *dr, uint32_t k, const struct ctl_done *m)
{
	struct rank *rk = &dr->r[k];

	rk->done = true;
	rk->status = m->status;
	rk->verified = m->verified;
	snprintf(rk->reason, sizeof(rk->reason), "%s", m->reason);
}

/* Collects packets until every live rank reported CTL_DONE; 0, or -1 on a protocol error
 * or timeout. A killed rank counts as done. */
static int drv_collect(struct drv *dr, uint64_t deadline, int killed)
{
	uint32_t ndone = killed >= 0, i;
	int k, t;

	while (ndone < dr->n) {
		k = drv_wait(dr, deadline, &t);
		if (k < 0 || t <= 0 || t == CTL_ERROR) {
			for (i = 0; i < dr->n; i++)
				if (!dr->r[i].done && (int)i != killed)
					fprintf(stderr, "emu_drive: rank %u (%s) never finished\n",
						i, dr->r[i].node);
			return -1;
		}
		if (t == CTL_REC_FLOWS)
			drv_flows(dr, (const struct ctl_rec_flows *)dr->buf);
		else if (t == CTL_REC_ITER)
			drv_iter(dr, (const struct ctl_rec_iter *)dr->buf);
		else if (t == CTL_DONE && !dr->r[k].done && (int)k != killed) {
			drv_done(dr, (uint32_t)k, (const struct ctl_done *)dr->buf);
			ndone++;
		}
	}
	return 0;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = {.tv_sec = (time_t)(t / 1000000000u),
			      .tv_nsec = (long)(t % 1000000000u)};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Every rank's connection to every other rank gets the new path tag. */
static void drv_retag(struct drv *dr, uint32_t job)
{
	struct ctl_tag t = {.job = job, .tag = dr->tag};
	uint32_t i;

	emu_msg_init(&t, CTL_TAG, sizeof(t));
	for (i = 0; i < dr->n; i++)
		for (t.peer = 0; t.peer < dr->n; t.peer++)
			if (t.peer != i)
				emu_send(dr->r[i].fd, &t, sizeof(t));
}

/* In the middle of the first compute phase: no rank can have finished yet. */
static void drv_disrupt(struct drv *dr, uint32_t job)
{
	struct ctl_abort a = {.job = job};
	struct rank *v = &dr->r[dr->victim];
	uint32_t i;

	sleep_until(now_ns() + dr->delay + dr->compute / 2);
	if (dr->mode == DRV_KILL) {
		kill(v->pid, SIGKILL);
		emu_reap(v->pid, v->fd);
		v->pid = v->fd = -1;
		v->dead = true;
	} else if (dr->mode == DRV_RETAG) {
		drv_retag(dr, job);
	} else if (dr->mode == DRV_FREEZE) {
		/* past the others' watchdogs; then it finds its peers gone */
		kill(v->pid, SIGSTOP);
		sleep_until(now_ns() + dr->compute + dr->progress * 3 / 2);
		kill(v->pid, SIGCONT);
	} else {
		emu_msg_init(&a, CTL_ABORT, sizeof(a));
		for (i = 0; i < dr->n; i++)
			emu_send(dr->r[i].fd, &a, sizeof(a));
	}
}

/* Each flow from its send's issue to its receive's last byte, as the collector joins them. */
static void drv_report_flows(const struct drv *dr)
{
	const struct ctl_flow *r, *s;
	double ms;

	vec_for_each (&dr->recs, r) {
		if (r->dir != COLL_RECV)
			continue;
		vec_for_each (&dr->recs, s) {
			if (s->dir != COLL_SEND || s->iter != r->iter || s->src != r->src ||
			    s->dst != r->dst || s->seq != r->seq)
				continue;
			ms = (double)(r->t_end - s->t_start) / 1e6;
			printf("flow %u %u->%u #%u: %" PRIu64 " bytes, %.3f ms, %.3f Gbit/s\n",
			       r->iter, r->src, r->dst, r->seq, r->bytes, ms,
			       ms > 0 ? (double)r->bytes * 8 / ms / 1e6 : 0.0);
		}
	}
}

static void drv_report_iters(const struct drv *dr)
{
	double secs;
	uint32_t k;

	for (k = 0; k < dr->iters; k++) {
		secs = (double)(dr->t_end[k] - dr->t_begin[k]) / 1e9;
		printf("iter %u: %.3f ms, %" PRIu64 " bytes received, %.3f Gbit/s\n", k, secs * 1e3,
		       dr->rx_bytes[k], secs > 0 ? (double)dr->rx_bytes[k] * 8 / secs / 1e9 : 0.0);
	}
}

/* What every rank must have reported: success (verified) normally, -ECANCELED after an
 * abort, a failure with a reason after a kill (but the victim) or a freeze. */
static int drv_judge(const struct drv *dr, int mode)
{
	const struct rank *rk;
	uint32_t i;
	int bad = 0;
	bool ok;

	for (i = 0; i < dr->n; i++) {
		rk = &dr->r[i];
		if (rk->dead)
			continue;
		if (mode == DRV_ABORT)
			ok = rk->status == -ECANCELED;
		else if (mode == DRV_KILL || mode == DRV_FREEZE)
			ok = rk->status < 0 && rk->reason[0];
		else
			ok = !rk->status && (!dr->verify || rk->verified);
		printf("rank %u %s: status %d%s%s%s\n", i, rk->node, rk->status,
		       rk->verified ? ", verified" : "", rk->reason[0] ? ": " : "", rk->reason);
		bad |= !ok;
	}
	return bad ? -1 : 0;
}

static const char *const drv_modes[] = {"", ", aborted", ", one rank killed", ", one rank frozen",
					", re-tagged"};

static int drv_job(struct drv *dr, uint32_t job, int mode, uint64_t expect)
{
	size_t per = dr->iters * sizeof(uint64_t);

	memset(dr->t_begin, 0, per);
	memset(dr->t_end, 0, per);
	memset(dr->rx_bytes, 0, per);
	dr->sent = dr->recvd = 0;
	dr->recs.n = 0;
	dr->bad_tags = 0;
	dr->want_tag = mode == DRV_RETAG ? dr->tag : 0;
	printf("job %u: %s %s, %u ranks, %" PRIu64 " bytes, %u iteration(s)%s%s\n", job,
	       coll_algo_name(dr->p.algo), coll_kind_name(dr->p.kind), dr->n, dr->p.bytes,
	       dr->iters, dr->verify ? ", verify" : "", drv_modes[mode]);
	if (drv_send_job(dr, job))
		return -1;
	if (mode != DRV_NORMAL)
		drv_disrupt(dr, job);
	if (drv_collect(dr, now_ns() + dr->delay + dr->timeout, mode == DRV_KILL ? dr->victim : -1))
		return -1;
	if (drv_judge(dr, mode))
		return -1;
	if (mode != DRV_NORMAL && mode != DRV_RETAG)
		return 0;
	drv_report_iters(dr);
	if (dr->show_flows)
		drv_report_flows(dr);
	printf("flows: %" PRIu64 " bytes sent, %" PRIu64 " received, %" PRIu64 " expected\n",
	       dr->sent, dr->recvd, expect * dr->iters);
	if (dr->bad_tags)
		printf("%" PRIu64 " flow records without tag %u\n", dr->bad_tags, dr->want_tag);
	return dr->sent == expect * dr->iters && dr->recvd == dr->sent && !dr->bad_tags ? 0 : -1;
}

/* Builds the whole schedule here too: an algorithm's refusal is reported as such (exit 3),
 * and the byte count every run must add up to comes from it. */
static int drv_expect(const struct drv *dr, uint64_t *bytes)
{
	struct coll_sched s;
	struct diag d = {0};
	uint32_t i;

	if (coll_sched_build(&dr->p, &s, &d)) {
		printf("rejected: %s\n", d.msg);
		return -1;
	}
	*bytes = 0;
	for (i = 0; i < dr->n; i++)
		*bytes += coll_sched_bytes_sent(&s, i);
	coll_sched_done(&s);
	return 0;
}

static int drv_stop(struct drv *dr)
{
	struct ctl_hdr stop;
	uint32_t i;
	int bad = 0, st;

	emu_msg_init(&stop, CTL_STOP, sizeof(stop));
	for (i = 0; i < dr->n; i++) {
		if (dr->r[i].pid <= 0)
			continue;
		emu_send(dr->r[i].fd, &stop, sizeof(stop));
		st = emu_reap(dr->r[i].pid, dr->r[i].fd);
		if (st && !dr->r[i].dead) {
			fprintf(stderr, "emu_drive: %s exited with %d\n", dr->r[i].node, st);
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: emu_drive NAME NODE[=ADDR][,NODE...] [options]\n"
		"Runs collectives on emu-nodes started in /run/netns/tb-NAME-NODE (rank i on the\n"
		"i-th node; its address from lo unless given).\n"
		"  --kind K        allreduce|allgather|reducescatter|alltoall (allreduce)\n"
		"  --algo A        ring|hd|pairwise|hier-ring|shard-rings (ring)\n"
		"  --bytes SIZE    per-rank buffer (1MiB)        --elem N   element size (4)\n"
		"  --group G       hier-ring / shard-rings group  --iters N  iterations (1)\n"
		"  --compute TIME  compute phase (0)             --verify   check real sums\n"
		"  --jobs N        jobs in a row on the same nodes (1)\n"
		"  --channels K    connections per pair of ranks (1)\n"
		"  --abort         abort the first job in its compute phase (needs --compute)\n"
		"  --kill R        kill rank R in the first job's compute phase (needs --compute)\n"
		"  --freeze R      SIGSTOP rank R then, past the watchdog, SIGCONT (same)\n"
		"  --retag T       CTL_TAG T on every connection then (same); records must show T\n"
		"  --progress TIME watchdog (10s)   --timeout TIME per job (60s)\n"
		"  --pin           pin rank i to CPU i mod ncpu   --user UID:GID  drop to these\n"
		"  --flows         print every flow: send issued to last byte received\n"
		"  --port P (7001) --emu PATH (emu-node next to this tool's directory)\n");
}

static int parse_time(const char *s, uint64_t *out)
{
	return units_parse_time(s, out) ? (fprintf(stderr, "emu_drive: bad time %s\n", s), -1) : 0;
}

/* A plain number is bytes; otherwise a size with a unit (64KiB). */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;

	*out = strtoull(s, &end, 10);
	return end != s && !*end ? 0 : units_parse_size(s, out);
}

static int drv_option(struct drv *dr, int o, const char *arg)
{
	switch (o) {
	case 'k':
		return coll_kind_parse(arg, &dr->p.kind);
	case 'a':
		return coll_algo_parse(arg, &dr->p.algo);
	case 'b':
		return parse_size(arg, &dr->p.bytes);
	case 'e':
		return (dr->p.elem = (uint32_t)atoi(arg)) ? 0 : -1;
	case 'g':
		dr->p.group = (uint32_t)atoi(arg);
		return 0;
	case 'C':
		dr->channels = (uint32_t)atoi(arg);
		return dr->channels ? 0 : -1;
	case 'i':
		return (dr->iters = (uint32_t)atoi(arg)) ? 0 : -1;
	case 'j':
		return (dr->jobs = (uint32_t)atoi(arg)) ? 0 : -1;
	case 'c':
		return parse_time(arg, &dr->compute);
	case 'P':
		return parse_time(arg, &dr->progress);
	case 'T':
		return parse_time(arg, &dr->timeout);
	case 'R':
		dr->mode = DRV_RETAG;
		dr->tag = (uint8_t)atoi(arg);
		return dr->tag < 64 ? 0 : -1;
	case 'K':
	case 'F':
		dr->mode = o == 'K' ? DRV_KILL : DRV_FREEZE;
		dr->victim = atoi(arg);
		return 0;
	case 'p':
		return (dr->port = (uint16_t)atoi(arg)) ? 0 : -1;
	case 'E':
		dr->emu = arg;
		return 0;
	case 'u':
		return sscanf(arg, "%u:%u", &dr->uid, &dr->gid) == 2 ? 0 : -1;
	}
	return -1;
}

static const struct option options[] = {
	{"kind", 1, NULL, 'k'},	    {"algo", 1, NULL, 'a'},    {"bytes", 1, NULL, 'b'},
	{"elem", 1, NULL, 'e'},	    {"group", 1, NULL, 'g'},   {"iters", 1, NULL, 'i'},
	{"jobs", 1, NULL, 'j'},	    {"compute", 1, NULL, 'c'}, {"progress", 1, NULL, 'P'},
	{"timeout", 1, NULL, 'T'},  {"kill", 1, NULL, 'K'},    {"freeze", 1, NULL, 'F'},
	{"retag", 1, NULL, 'R'},    {"port", 1, NULL, 'p'},    {"emu", 1, NULL, 'E'},
	{"user", 1, NULL, 'u'},	    {"verify", 0, NULL, 'v'},  {"abort", 0, NULL, 'A'},
	{"pin", 0, NULL, 'n'},	    {"flows", 0, NULL, 'f'},   {"help", 0, NULL, 'h'},
	{"channels", 1, NULL, 'C'}, {NULL, 0, NULL, 0},
};

static int drv_args(struct drv *dr, int argc, char **argv)
{
	int o;

	while ((o = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (o == 'h')
			return usage(stdout), 1;
		if (o == 'v' || o == 'A' || o == 'n' || o == 'f') {
			dr->show_flows |= o == 'f';
			dr->verify |= o == 'v';
			dr->mode = o == 'A' ? DRV_ABORT : dr->mode;
			dr->pin |= o == 'n';
		} else if (o == '?' || drv_option(dr, o, optarg)) {
			fprintf(stderr, "emu_drive: bad option %s\n", argv[optind - 1]);
			return -1;
		}
	}
	if (optind + 2 != argc || (dr->mode != DRV_NORMAL && !dr->compute))
		return usage(stderr), -1;
	dr->name = argv[optind];
	return 0;
}

/* BUILD/tools/emu_drive -> BUILD/emu-node */
static const char *default_emu(const char *argv0)
{
	static char path[4096], real[4096];
	const char *slash = strrchr(argv0, '/');
	int dir = slash ? (int)(slash - argv0) : 1;

	snprintf(path, sizeof(path), "%.*s/../emu-node", dir, slash ? argv0 : ".");
	return realpath(path, real) ? real : path;
}

static int drv_run(struct drv *dr)
{
	uint64_t expect;
	uint32_t j;
	int r = 0;

	dr->p.nranks = dr->n;
	if (dr->victim < 0 || (uint32_t)dr->victim >= dr->n)
		return fprintf(stderr, "emu_drive: no rank %d\n", dr->victim), 2;
	if (drv_expect(dr, &expect))
		return 3;
	dr->t_begin = calloc(dr->iters, sizeof(uint64_t));
	dr->t_end = calloc(dr->iters, sizeof(uint64_t));
	dr->rx_bytes = calloc(dr->iters, sizeof(uint64_t));
	dr->buf = malloc(CTL_MAX_MSG);
	if (drv_start(dr))
		r = 1;
	for (j = 1; !r && j <= dr->jobs; j++)
		r = drv_job(dr, j, j == 1 ? (int)dr->mode : DRV_NORMAL, expect) ? 1 : 0;
	if (drv_stop(dr))
		r = 1;
	return r;
}

int main(int argc, char **argv)
{
	struct drv dr = {
		.p = {.kind = COLL_ALLREDUCE, .algo = COLL_RING, .bytes = 1 << 20, .elem = 4},
		.iters = 1,
		.jobs = 1,
		.channels = 1,
		.progress = 10000000000ull,
		.timeout = 60000000000ull,
		.delay = 50000000,
		.port = 7001,
	};
	uint32_t i;
	int r;

	r = drv_args(&dr, argc, argv);
	if (r)
		return r < 0 ? 2 : 0;
	if (!dr.emu)
		dr.emu = default_emu(argv[0]);
	if (drv_nodes(&dr, argv[optind + 1]))
		return 2;
	signal(SIGPIPE, SIG_IGN);
	r = drv_run(&dr);
	for (i = 0; i < dr.n; i++)
		close(dr.r[i].nsfd);
	free(dr.r);
	free(dr.t_begin);
	free(dr.t_end);
	free(dr.rx_bytes);
	free(dr.buf);
	vec_free(&dr.recs);
	printf("%s\n", r ? "FAILED" : "ok");
	return r;
}
