// SPDX-License-Identifier: MIT
/* Counter sampling (sample.h): per namespace one socket; per round the device counter dumps
 * of the watching namespaces (sample_watch.c), then the gets of the directions that must be
 * read (sample_ask.c, sample_plan.h), and /proc/stat; every second the TCP counters of the
 * endpoints whose links moved (sample_tcp.c, sample_plan_tcp). A dump of a namespace's qdiscs was
 * measured costlier than the gets (7.8 ms against 5.2 ms a round for 2,048 ports in 560
 * namespaces): it walks every leaf qdisc too, and between rounds the caches go cold. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "kernel/mono.h"
#include "kernel/nlk.h"
#include "sample/sample.h"
#include "sample/sample_int.h"
#include "sample/sample_plan.h"
#include "policy/shape.h"

int sample_wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r;

	do
		r = poll(&p, 1, SAMPLE_WAIT_MS);
	while (r < 0 && errno == EINTR);
	return r > 0 ? 0 : -ETIMEDOUT;
}

/* What to ask about port p of t: the root qdisc if it shapes or delays, the device's
 * counters if nothing shapes it. */
static int port_init(struct sampler *s, const struct topo *t, const struct scn_shaping *sh,
		     uint32_t p, struct diag *d)
{
	const struct topo_port *tp = &t->ports.v[p];
	const struct topo_link *l = &t->links.v[tp->link];
	struct sample_port *sp = &s->ports[s->nports++];
	struct shape_params prm;
	int r;

	r = shape_derive(topo_port_rate(t, p), l->delay_ns, sh, &prm, d);
	if (r)
		return r;
	*sp = (struct sample_port){
		.ifindex = tp->ifindex, .link = tp->link, .dir = tp->side, .peer = TOPO_NONE};
	sp->shaped = prm.kind != SHAPE_NONE;
	sp->want = sp->shaped || prm.delay_ns ? SAMPLE_W_QDISC : 0;
	if (!sp->shaped)
		sp->want |= SAMPLE_W_LINK;
	return 0;
}

/* Which namespaces to dump and how each direction is watched (sample_plan_watch); idx maps
 * topology ports to sampler ports. */
static int plan(struct sampler *s, const struct topo *t, const uint32_t *idx)
{
	bool *dump = calloc(t->nodes.n + 1, sizeof(*dump));
	uint8_t *view = calloc(t->ports.n + 1, sizeof(*view));
	uint32_t n, p;

	if (!dump || !view) {
		free(dump);
		free(view);
		return -ENOMEM;
	}
	sample_plan_watch(t, !t->phys, dump, view);
	for (n = 0; n < t->nodes.n; n++)
		s->ns[n].dump = dump[n];
	for (p = 0; p < t->ports.n; p++) {
		s->ports[idx[p]].view = view[p];
		s->ports[idx[p]].peer = idx[topo_port_peer(t, p)];
		s->nwatch += view[p] != SAMPLE_VIEW_NONE;
	}
	free(dump);
	free(view);
	return 0;
}

/* The ports, namespace by namespace, and the plan. */
static int ports_init(struct sampler *s, const struct topo *t, const struct scn_shaping *sh,
		      struct diag *d)
{
	uint32_t *idx = calloc(t->ports.n + 1, sizeof(*idx));
	uint32_t n, i, p;
	int err = idx ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (n = 0; !err && n < t->nodes.n; n++) {
		s->ns[n].port0 = s->nports;
		s->ns[n].nports = t->nodes.v[n].nports;
		for (i = 0; !err && i < t->nodes.v[n].nports; i++) {
			p = topo_node_port(t, n, i);
			idx[p] = s->nports;
			err = port_init(s, t, sh, p, d);
		}
	}
	if (!err && plan(s, t, idx))
		err = diag_set(d, -ENOMEM, "out of memory");
	free(idx);
	return err;
}

static int raise_nofile(size_t need, struct diag *d)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return diag_set(d, -errno, "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return diag_set(d, -errno, "sampling needs %zu open files: %s", need,
				strerror(errno));
	return 0;
}

static int open_ns(struct sampler *s, const struct topo *t, const int *nsfd, int root_fd,
		   struct diag *d)
{
	uint32_t n;
	int fd;

	for (n = 0; n < t->nodes.n; n++) {
		fd = nlk_socket_in(nsfd[n], root_fd);
		if (fd < 0)
			return diag_set(d, fd, "sampling: a netlink socket in %s: %s",
					t->nodes.v[n].name, strerror(-fd));
		snprintf(s->ns[s->nns].name, sizeof(s->ns[s->nns].name), "%s", t->nodes.v[n].name);
		s->ns[s->nns++].fd = fd;
	}
	return 0;
}

static int alloc(struct sampler *s, const struct topo *t, struct diag *d)
{
	uint32_t i;

	s->stat_fd = s->softnet_fd = -1;
	s->ns = calloc(t->nodes.n + 1, sizeof(*s->ns));
	s->ports = calloc(t->ports.n + 1, sizeof(*s->ports));
	if (!s->ns || !s->ports)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < SAMPLE_SLOTS; i++) {
		s->iov[i] = (struct iovec){s->rbuf[i], SAMPLE_SLOT};
		s->mm[i].msg_hdr = (struct msghdr){.msg_iov = &s->iov[i], .msg_iovlen = 1};
	}
	return 0;
}

static int setup(struct sampler *s, const struct topo *t, const struct scn_shaping *sh,
		 const int *nsfd, struct diag *d)
{
	int root_fd, err;

	err = alloc(s, t, d);
	err = err ? err : ports_init(s, t, sh, d);
	err = err ? err : raise_nofile(2 * t->nodes.n + 2 * t->endpoints.n + 256, d);
	if (err)
		return err;
	root_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (root_fd < 0)
		return diag_set(d, -errno, "sampling: /proc/thread-self/ns/net: %s",
				strerror(errno));
	err = open_ns(s, t, nsfd, root_fd, d);
	err = err ? err : sample_tcp_open(s, t, nsfd, root_fd, d);
	if (!err)
		sample_bpf_open(s, nsfd, root_fd);
	close(root_fd);
	s->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (!err && s->stat_fd < 0)
		err = diag_set(d, -errno, "sampling: /proc/stat: %s", strerror(errno));
	/* without it the backlogs' drops stay unknown (cpu.csv), which no run fails for */
	s->softnet_buf = malloc(SAMPLE_SOFTNET_MAX);
	if (!err && s->softnet_buf)
		s->softnet_fd = open("/proc/net/softnet_stat", O_RDONLY | O_CLOEXEC);
	return err;
}

int sampler_open(struct sampler **out, const struct topo *t, const struct scn_shaping *sh,
		 const int *nsfd, int64_t interval_ns, struct diag *d)
{
	struct sampler *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return diag_set(d, -ENOMEM, "out of memory");
	s->interval = interval_ns > 0 ? interval_ns : SAMPLE_INTERVAL_NS;
	err = setup(s, t, sh, nsfd, d);
	if (err) {
		sampler_free(s);
		return err;
	}
	s->dumping = s->nwatch > 0;
	*out = s;
	return 0;
}

void sampler_set_full(struct sampler *s, bool full)
{
	s->full = full;
	s->dumping = !full && s->nwatch > 0;
}

void sampler_use_bpf(struct sampler *s, bool on)
{
	if (!on && s->qs) {
		sample_bpf_close(s);
		diag_set(&s->bpf_why, -EPERM, "not asked to");
	}
}

const char *sampler_bpf(const struct sampler *s, uint32_t *n)
{
	*n = s->qs ? s->nbpf : 0;
	return s->qs ? NULL : s->bpf_why.msg;
}

void sampler_free(struct sampler *s)
{
	uint32_t i;

	if (!s)
		return;
	sample_bpf_close(s);
	for (i = 0; i < s->nns; i++)
		close(s->ns[i].fd);
	if (s->stat_fd >= 0)
		close(s->stat_fd);
	if (s->softnet_fd >= 0)
		close(s->softnet_fd);
	free(s->softnet_buf);
	sample_tcp_close(s);
	free(s->ns);
	free(s->ports);
	free(s);
}

static struct sample_counts reading(const struct sample_port *p)
{
	const struct sample_counts *q = &p->q, *l = &p->l;
	bool qok = (p->want & SAMPLE_W_QDISC) && !(p->err & SAMPLE_W_QDISC);
	struct sample_counts x;

	if (p->shaped) {
		x = *q;
	} else {
		x = *l;
		x.drops += qok ? q->drops : 0; /* a netem delay qdisc's */
	}
	x.backlog = qok ? q->backlog : 0;
	return x;
}

/* Whether port p has this round's counters: every reply, and no error on those it uses. */
static bool complete(const struct sample_port *p)
{
	uint8_t used = p->shaped ? SAMPLE_W_QDISC : SAMPLE_W_LINK;

	return p->got == p->want && !(p->err & used);
}

static bool same(const struct sample_counts *a, const struct sample_counts *b)
{
	return a->bytes == b->bytes && a->packets == b->packets && a->drops == b->drops &&
	       a->backlog == b->backlog;
}

/* Takes port p's reading of this round, if complete, as its latest, and notes the round
 * if it was busy (sample_plan_tcp); 1 if a watchable direction turned out busy (its counters
 * moved or it has a backlog). */
static int settle(struct sample_port *p, uint64_t round)
{
	struct sample_counts x;
	int busy;

	if (!p->read)
		return 0;
	if (!complete(p)) {
		p->have_last = false;
		p->busy_round = round; /* unknown: as if busy */
		return 0;
	}
	x = reading(p);
	if (!p->have_last || !same(&x, &p->last) || x.backlog)
		p->busy_round = round;
	busy = p->view != SAMPLE_VIEW_NONE && p->have_last && (!same(&x, &p->last) || x.backlog);
	p->last = x;
	p->have_last = true;
	return busy;
}

/* n's samples: its ports read this round and those whose last reading still holds. */
static int file_ns(struct sampler *s, const struct sample_ns *n, struct rec_run *rec,
		   uint32_t *busy)
{
	uint32_t i;

	for (i = 0; i < n->nports; i++) {
		struct sample_port *p = &s->ports[n->port0 + i];
		struct rec_sample x = {.t = p->t, .link = p->link, .dir = p->dir};

		*busy += (uint32_t)settle(p, s->rounds);
		if (!p->have_last)
			continue;
		x.tx_bytes = p->last.bytes;
		x.tx_packets = p->last.packets;
		x.drops = p->last.drops;
		x.backlog = p->last.backlog;
		if (vec_push(&rec->samples, x))
			return -ENOMEM;
	}
	return 0;
}

/* Whether port p must be asked for this round (sample_plan_read). */
static bool plan_read(const struct sampler *s, const struct sample_port *p, bool refresh)
{
	struct sample_dir_state st = {
		.watched = !s->full && p->watched,
		.moved = p->moved,
		.have_last = p->have_last,
		.backlogged = p->last.backlog != 0,
		.refresh = refresh,
	};

	return sample_plan_read(&st);
}

/* Marks the ports of namespace k to read this round: those BPF read already, then those the
 * plan says. */
static void choose_ns(struct sampler *s, uint32_t k)
{
	const struct sample_ns *n = &s->ns[k];
	bool refresh = sample_plan_refresh(k, s->rounds);
	uint32_t i;

	for (i = 0; i < n->nports; i++) {
		struct sample_port *p = &s->ports[n->port0 + i];

		if (!sample_bpf_take(s, p))
			p->read = plan_read(s, p, refresh);
	}
}

/* The CPUs' input backlog drops so far, or REC_NEVER when they cannot be read. */
static int64_t softnet_drops(const struct sampler *s)
{
	ssize_t n;
	int64_t v;

	if (s->softnet_fd < 0)
		return REC_NEVER;
	n = pread(s->softnet_fd, s->softnet_buf, SAMPLE_SOFTNET_MAX - 1, 0);
	if (n <= 0 || n >= SAMPLE_SOFTNET_MAX - 1)
		return REC_NEVER;
	s->softnet_buf[n] = '\0';
	return col_softnet_parse(s->softnet_buf, &v) ? REC_NEVER : v;
}

/* This process's CPU time (the sampling, and the runner around it) in /proc/stat's unit. */
static double self_jiffies(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0 || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return NAN;
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9) * (double)hz;
}

static int take_cpu(struct sampler *s, int64_t t0, struct rec_run *rec)
{
	struct col_cpu_times now;
	struct rec_cpu c;
	char buf[512];
	ssize_t n = pread(s->stat_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	buf[n] = '\0';
	if (col_cpu_parse(buf, &now))
		return -EPROTO;
	now.backlog_drops = softnet_drops(s);
	now.self = self_jiffies();
	if (s->have_prev && !col_cpu_share(&s->cpu_prev, &now, mono_now_ns() - t0, &c) &&
	    vec_push(&rec->cpu, c))
		return -ENOMEM;
	s->cpu_prev = now;
	s->have_prev = true;
	return 0;
}

/* Remembers the first failure for sampler_failures; returns err. */
static int failed(struct sampler *s, int err, const char *what, struct diag *d)
{
	if (!s->failures++)
		diag_set(&s->first, err, "%s: %s", what, strerror(-err));
	return diag_set(d, err, "sampling %s: %s", what, strerror(-err));
}

/* The dumps of this round: a namespace that does not answer leaves its directions unwatched,
 * so they are read. */
static void watch_all(struct sampler *s, int64_t t0)
{
	uint32_t i;

	for (i = 0; i < s->nports; i++)
		s->ports[i].watched = false;
	for (i = 0; s->dumping && i < s->nns; i++)
		if (s->ns[i].dump)
			(void)sample_watch_ns(s, &s->ns[i], t0);
}

/* The endpoints' TCP counters, if due (tcp: whenever called); first as in take. */
static int take_tcp(struct sampler *s, int64_t t0, bool tcp, struct rec_run *rec, int first,
		    struct diag *d)
{
	const char *who = "?";
	int err;

	if (!tcp && mono_now_ns() - t0 < s->tcp_next)
		return first;
	err = sample_tcp_take(s, t0, tcp, rec, &who);
	return err && !first ? failed(s, err, who, d) : first;
}

/* Whether a dump still watches some direction: one that BPF did not read this round. */
static bool unwatched_by_bpf(const struct sampler *s)
{
	uint32_t i;

	for (i = 0; i < s->nports; i++)
		if (s->ports[i].view != SAMPLE_VIEW_NONE && !s->ports[i].taken)
			return true;
	return false;
}

/* A namespace that does not answer leaves a gap in its ports' samples, not in the others'. */
static int take(struct sampler *s, int64_t t0, bool tcp, struct rec_run *rec, struct diag *d)
{
	int err, first = 0;
	uint32_t i, busy = 0;

	s->round = (s->round + 1) & 0xfff;
	s->rounds++;
	err = take_cpu(s, t0, rec);
	if (err)
		first = failed(s, err, "/proc/stat", d);
	sample_bpf_round(s, t0);
	watch_all(s, t0);
	for (i = 0; err != -ENOMEM && i < s->nns; i++) {
		choose_ns(s, i);
		err = sample_ask_ns(s, &s->ns[i], t0);
		err = err ? err : file_ns(s, &s->ns[i], rec, &busy);
		if (err && !first)
			first = failed(s, err, s->ns[i].name, d);
	}
	s->dumping = !s->full && sample_plan_dump_next(s->dumping, busy, s->nwatch) &&
		     unwatched_by_bpf(s);
	sample_bpf_relocate(s);
	if (s->rounds == 1)
		s->next = s->interval;
	return err == -ENOMEM ? first : take_tcp(s, t0, tcp, rec, first, d);
}

int sampler_take(struct sampler *s, int64_t t0, struct rec_run *rec, struct diag *d)
{
	return take(s, t0, true, rec, d);
}

uint64_t sampler_failures(const struct sampler *s, const char **first)
{
	*first = s->first.msg;
	return s->failures;
}

int sampler_poll(struct sampler *s, int64_t now, int64_t t0, struct rec_run *rec, struct diag *d)
{
	int err;

	if (now < s->next)
		return 0;
	err = take(s, t0, false, rec, d);
	/* A late round skips the slots it missed and, if the next slot is less than half an
	 * interval away, that one too: intervals stay between half and one and a half of the
	 * nominal one, so one late round (85 ms late in a busy run) does not leave an 18 ms
	 * interval whose utilization is mostly the shaper's burst. */
	while (s->next <= now + s->interval / 2)
		s->next += s->interval;
	return err;
}

int64_t sampler_next(const struct sampler *s)
{
	return s->next;
}

uint32_t sampler_directions(const struct sampler *s)
{
	return s->nports;
}

uint64_t sampler_rounds(const struct sampler *s)
{
	return s->rounds;
}

void sampler_work(const struct sampler *s, uint64_t *reads, uint64_t *dumps, uint64_t *bpf)
{
	*reads = s->reads;
	*dumps = s->dumps;
	*bpf = s->bpf_reads;
}
