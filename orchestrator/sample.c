// SPDX-License-Identifier: MIT
/* Counter sampling (sample.h): per namespace one socket, and per round one sendmsg of gets
 * (each port's root qdisc, or its device counters) and one recvmmsg of the replies, in
 * chunks of SLOTS; /proc/stat read at the same time. A dump of a namespace's qdiscs was
 * measured costlier at 10 Hz (8 ms against 5.5 ms a round for 2,048 ports in 560
 * namespaces): it walks every leaf qdisc too, and between rounds the caches go cold. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "collect/cpu.h"
#include "orchestrator/nlk.h"
#include "orchestrator/sample.h"
#include "orchestrator/sample_msg.h"
#include "policy/shape.h"

#define SLOTS 64 /* requests per sendmsg, replies per recvmmsg */
#define SLOT 1024 /* bytes for one reply: a root qdisc with its stats is about 300 */
#define REQ_MAX 64 /* bytes of one request */
#define REPLY_WAIT_MS 2000 /* replies come within the sendmsg; this is for a lost one */
#define SEQ_IDX_BITS 19 /* seq = round:12 | port index in the namespace:19 | kind:1 */
#define W_QDISC (1u << SAMPLE_QDISC)
#define W_LINK (1u << SAMPLE_LINK)

struct port {
	uint32_t ifindex, link, dir;
	bool shaped; /* counters from the root qdisc; else from the device */
	uint8_t want, got; /* W_* */
	struct sample_reply r[2]; /* by kind */
	int64_t t;
};

struct ns {
	int fd;
	char name[TOPO_NAME_MAX];
	uint32_t port0, nports;
};

struct sampler {
	struct ns *ns;
	uint32_t nns;
	struct port *ports;
	uint32_t nports;
	int stat_fd;
	struct col_cpu_times cpu_prev;
	bool have_prev;
	int64_t interval, next;
	uint64_t rounds, failures;
	struct diag first; /* the first failure */
	uint32_t round;
	char req[SLOTS * REQ_MAX];
	char rbuf[SLOTS][SLOT];
	struct iovec iov[SLOTS];
	struct mmsghdr mm[SLOTS];
};

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* What to ask about port p of t: the root qdisc if it shapes or delays, the device's
 * counters if nothing shapes it. */
static int port_init(struct sampler *s, const struct topo *t, const struct scn_shaping *sh,
		     uint32_t p, struct diag *d)
{
	const struct topo_port *tp = &t->ports.v[p];
	const struct topo_link *l = &t->links.v[tp->link];
	struct port *sp = &s->ports[s->nports++];
	struct shape_params prm;
	int r;

	r = shape_derive(topo_port_rate(t, p), l->delay_ns, sh, &prm, d);
	if (r)
		return r;
	*sp = (struct port){.ifindex = tp->ifindex, .link = tp->link, .dir = tp->side};
	sp->shaped = prm.kind != SHAPE_NONE;
	sp->want = sp->shaped || prm.delay_ns ? W_QDISC : 0;
	if (!sp->shaped)
		sp->want |= W_LINK;
	return 0;
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

	s->stat_fd = -1;
	s->ns = calloc(t->nodes.n + 1, sizeof(*s->ns));
	s->ports = calloc(t->ports.n + 1, sizeof(*s->ports));
	if (!s->ns || !s->ports)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < SLOTS; i++) {
		s->iov[i] = (struct iovec){s->rbuf[i], SLOT};
		s->mm[i].msg_hdr = (struct msghdr){.msg_iov = &s->iov[i], .msg_iovlen = 1};
	}
	return 0;
}

static int setup(struct sampler *s, const struct topo *t, const struct scn_shaping *sh,
		 const int *nsfd, struct diag *d)
{
	int root_fd, err;
	uint32_t n, i;

	err = alloc(s, t, d);
	for (n = 0; !err && n < t->nodes.n; n++) {
		s->ns[n].port0 = s->nports;
		s->ns[n].nports = t->nodes.v[n].nports;
		for (i = 0; !err && i < t->nodes.v[n].nports; i++)
			err = port_init(s, t, sh, topo_node_port(t, n, i), d);
	}
	err = err ? err : raise_nofile(2 * t->nodes.n + 256, d);
	if (err)
		return err;
	root_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (root_fd < 0)
		return diag_set(d, -errno, "sampling: /proc/thread-self/ns/net: %s",
				strerror(errno));
	err = open_ns(s, t, nsfd, root_fd, d);
	close(root_fd);
	s->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (!err && s->stat_fd < 0)
		err = diag_set(d, -errno, "sampling: /proc/stat: %s", strerror(errno));
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
	*out = s;
	return 0;
}

void sampler_free(struct sampler *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->nns; i++)
		close(s->ns[i].fd);
	if (s->stat_fd >= 0)
		close(s->stat_fd);
	free(s->ns);
	free(s->ports);
	free(s);
}

/* Files a reply under its port; 1 if it answers a request of this round, else 0. */
static int take_reply(struct sampler *s, const struct ns *n, const struct sample_reply *r,
		      int64_t now)
{
	uint32_t idx = (r->seq >> 1) & ((1u << SEQ_IDX_BITS) - 1), bit = 1u << (r->seq & 1);
	struct port *p;

	if (r->seq >> (SEQ_IDX_BITS + 1) != s->round || idx >= n->nports)
		return 0; /* a late answer to an earlier round */
	p = &s->ports[n->port0 + idx];
	if (!(p->want & bit) || (p->got & bit))
		return 0;
	p->got |= (uint8_t)bit;
	p->r[r->seq & 1] = *r;
	p->t = now;
	return 1;
}

static int wait_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int r;

	do
		r = poll(&p, 1, REPLY_WAIT_MS);
	while (r < 0 && errno == EINTR);
	return r > 0 ? 0 : -ETIMEDOUT;
}

/* The replies of one recvmmsg; how many answered this round's requests. */
static uint32_t take_batch(struct sampler *s, const struct ns *n, int k, int64_t t0)
{
	int64_t now = mono_ns() - t0;
	struct sample_reply r;
	uint32_t got = 0;
	int i;

	for (i = 0; i < k; i++) {
		if (s->mm[i].msg_hdr.msg_flags & MSG_TRUNC)
			got++; /* lost: its port misses this sample */
		else if (sample_reply_parse(s->rbuf[i], s->mm[i].msg_len, &r))
			got += (uint32_t)take_reply(s, n, &r, now);
	}
	return got;
}

/* Sends the `want` requests built into s->req (len bytes) and reads their replies: the kernel
 * answers each get within the sendmsg, so one recvmmsg usually reads them all. */
static int exchange(struct sampler *s, const struct ns *n, size_t len, uint32_t want, int64_t t0)
{
	uint32_t got = 0;
	int k, err = 0;

	while (send(n->fd, s->req, len, 0) < 0)
		if (errno != EINTR)
			return -errno;
	while (!err && got < want) {
		k = recvmmsg(n->fd, s->mm, want - got, MSG_DONTWAIT, NULL);
		if (k < 0 && errno == EAGAIN)
			err = wait_readable(n->fd);
		else if (k < 0 && errno != EINTR)
			err = -errno;
		else if (k > 0)
			got += take_batch(s, n, k, t0);
	}
	return err;
}

/* Every request of namespace n, SLOTS at a time. */
static int ask_ns(struct sampler *s, const struct ns *n, int64_t t0)
{
	uint32_t i, k, nreq = 0;
	size_t len = 0;
	int err = 0;

	for (i = 0; !err && i < n->nports; i++) {
		struct port *p = &s->ports[n->port0 + i];

		p->got = 0;
		for (k = 0; k < 2; k++) {
			if (!(p->want & (1u << k)))
				continue;
			len += sample_req_build(s->req + len, sizeof(s->req) - len,
						(enum sample_kind)k, p->ifindex,
						s->round << (SEQ_IDX_BITS + 1) | i << 1 | k);
			nreq++;
		}
		if (nreq > SLOTS - 2 || (i + 1 == n->nports && nreq)) {
			err = exchange(s, n, len, nreq, t0);
			len = 0;
			nreq = 0;
		}
	}
	return err;
}

static struct rec_sample port_sample(const struct port *p)
{
	const struct sample_reply *q = &p->r[SAMPLE_QDISC], *l = &p->r[SAMPLE_LINK];
	struct rec_sample x = {.t = p->t, .link = p->link, .dir = p->dir};

	if (p->shaped) {
		x.tx_bytes = q->bytes;
		x.tx_packets = q->packets;
		x.drops = q->drops;
	} else {
		x.tx_bytes = l->bytes;
		x.tx_packets = l->packets;
		x.drops = l->drops + (p->want & W_QDISC ? q->drops : 0);
	}
	x.backlog = p->want & W_QDISC ? q->backlog : 0;
	return x;
}

/* The samples of n's ports that got every reply, without errors on their counters. */
static int file_ns(struct sampler *s, const struct ns *n, struct rec_run *rec)
{
	uint32_t i;

	for (i = 0; i < n->nports; i++) {
		const struct port *p = &s->ports[n->port0 + i];
		int used = p->shaped ? SAMPLE_QDISC : SAMPLE_LINK;

		if (p->got != p->want || p->r[used].error)
			continue;
		if (vec_push(&rec->samples, port_sample(p)))
			return -ENOMEM;
	}
	return 0;
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
	if (s->have_prev && !col_cpu_share(&s->cpu_prev, &now, mono_ns() - t0, &c) &&
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

/* A namespace that does not answer leaves a gap in its ports' samples, not in the others'. */
int sampler_take(struct sampler *s, int64_t t0, struct rec_run *rec, struct diag *d)
{
	int err, first = 0;
	uint32_t i;

	s->round = (s->round + 1) & 0xfff;
	err = take_cpu(s, t0, rec);
	if (err)
		first = failed(s, err, "/proc/stat", d);
	for (i = 0; err != -ENOMEM && i < s->nns; i++) {
		err = ask_ns(s, &s->ns[i], t0);
		err = err ? err : file_ns(s, &s->ns[i], rec);
		if (err && !first)
			first = failed(s, err, s->ns[i].name, d);
	}
	s->rounds++;
	if (s->rounds == 1)
		s->next = s->interval;
	return first;
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
	err = sampler_take(s, t0, rec, d);
	while (s->next <= now)
		s->next += s->interval; /* a late sample does not make the next ones bunch up */
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
