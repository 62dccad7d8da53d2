// SPDX-License-Identifier: MIT
/* ocs_rewire: reconfigures OCS circuits of a running testbed through the control plane the
 * runner uses (fabric/ocs_reconf.h), under a probe flow, and measures the dark time.
 *
 *   ocs_rewire NAME SCENARIO SRC DST CIRCUIT... [--delay T] [--before T] [--after T]
 *
 * CIRCUIT is ocs:a-b (o0:l0-s1). A UDP flow from SRC to DST sends one datagram every 100 us;
 * after --before (1 s) the circuits are rewired (their ports dark for --delay, default the
 * scenario's), then the flow runs --after (1 s) more. Printed: the longest gap between
 * datagrams at DST (the dark time the flow saw), the control plane's own times, and the
 * bytes each spine forwarded before the rewire, while it ran (the configured delay, and what
 * was still queued at the spine when its ports went dark) and after it. Exit 0 when the flow came
 * back and the gap lies in [delay, delay + 20 ms]; 1 otherwise; 2 on bad usage. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kernel/mono.h"
#include "lib/units.h"
#include "cli/cmd.h"
#include "fabric/fabric.h"
#include "kernel/netns.h"
#include "fabric/ocs_reconf.h"

/* after policy/sched.h: <pthread.h> brings <sched.h>, whose SCHED_FIFO macro would rename
 * policy/sched.h's enumerator */
#include <pthread.h>

#define PORT 9099
#define INTERVAL_NS 100000LL
#define SLACK_NS 20000000LL /* the acceptance's margin over the delay */

struct flow {
	int tx, rx; /* UDP sockets in SRC's and DST's namespaces */
	struct sockaddr_in to;
	atomic_int stop;
	uint64_t sent, got;
	int64_t last, gap, gap_at; /* arrivals: the last, the longest gap and when it ended */
};

static int64_t now_ns(void)
{
	return mono_now_ns();
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};

	while (ns > 0 && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *sender(void *arg)
{
	struct flow *f = arg;
	int64_t next = now_ns(), seq = 0;

	while (!atomic_load(&f->stop)) {
		if (sendto(f->tx, &seq, sizeof(seq), 0, (struct sockaddr *)&f->to, sizeof(f->to)) >
		    0)
			f->sent++;
		seq++;
		next += INTERVAL_NS;
		sleep_ns(next - now_ns());
	}
	return NULL;
}

static void *receiver(void *arg)
{
	struct flow *f = arg;
	struct pollfd p = {.fd = f->rx, .events = POLLIN};
	int64_t seq, t;

	while (!atomic_load(&f->stop)) {
		if (poll(&p, 1, 50) <= 0 || recv(f->rx, &seq, sizeof(seq), 0) != sizeof(seq))
			continue;
		t = now_ns();
		if (f->got++ && t - f->last > f->gap) {
			f->gap = t - f->last;
			f->gap_at = t;
		}
		f->last = t;
	}
	return NULL;
}

/* Bytes node n sent on all its ports (/proc/thread-self/net/dev inside its namespace). */
static uint64_t node_tx(const int *nsfd, int root_fd, uint32_t n)
{
	unsigned long long v[9];
	uint64_t sum = 0;
	char line[512];
	FILE *fp;

	if (netns_enter(nsfd[n]))
		return 0;
	fp = fopen("/proc/thread-self/net/dev", "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (strchr(line, ':') &&
		    sscanf(strchr(line, ':') + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9)
			sum += v[8];
	if (fp)
		fclose(fp);
	(void)netns_enter(root_fd);
	return sum;
}

struct opts {
	const char *name, *file, *src, *dst;
	char **circuits;
	int ncircuits;
	uint64_t delay, before, after;
	bool delay_set;
};

static int parse(int argc, char **argv, struct opts *o)
{
	int i, pos = 0;
	char *pa[4];

	memset(o, 0, sizeof(*o));
	o->before = o->after = 1000000000ULL;
	o->circuits = calloc((size_t)argc, sizeof(char *));
	for (i = 1; o->circuits && i < argc; i++) {
		uint64_t *t = !strcmp(argv[i], "--delay")    ? &o->delay
			      : !strcmp(argv[i], "--before") ? &o->before
			      : !strcmp(argv[i], "--after")  ? &o->after
							     : NULL;

		if (t && i + 1 < argc && !units_parse_time(argv[++i], t))
			o->delay_set |= t == &o->delay;
		else if (t || argv[i][0] == '-')
			return -EINVAL;
		else if (pos < 4)
			pa[pos++] = argv[i];
		else
			o->circuits[o->ncircuits++] = argv[i];
	}
	if (pos < 4 || !o->ncircuits)
		return -EINVAL;
	o->name = pa[0];
	o->file = pa[1];
	o->src = pa[2];
	o->dst = pa[3];
	return 0;
}

/* "o0:l0-s1" into a change. */
/* "ocs:a-b"; node names may hold '-' themselves (a HammingMesh's a0-1), so the split is the
 * first '-' with a node on both sides. */
static int circuit(const struct topo *t, const char *s, struct ocs_change *c)
{
	char o[16], ab[40], *dash;
	int io, ia = -1, ib = -1;

	if (sscanf(s, "%15[^:]:%39s", o, ab) != 2)
		return -EINVAL;
	io = topo_node_find(t, o);
	for (dash = strchr(ab, '-'); dash && (ia < 0 || ib < 0); dash = strchr(dash + 1, '-')) {
		*dash = '\0';
		ia = topo_node_find(t, ab);
		ib = topo_node_find(t, dash + 1);
		*dash = '-';
	}
	if (io < 0 || ia < 0 || ib < 0)
		return -ENOENT;
	*c = (struct ocs_change){(uint32_t)io, (uint32_t)ia, (uint32_t)ib, false};
	return 0;
}

static int open_all(const char *name, const struct topo *t, int *nsfd)
{
	char ns[128];
	size_t i;

	for (i = 0; i < t->nodes.n; i++) {
		fabric_ns_name(ns, sizeof(ns), name, t->nodes.v[i].name);
		nsfd[i] = netns_open(ns);
		if (nsfd[i] < 0) {
			fprintf(stderr, "ocs_rewire: %s: %s (is the testbed up?)\n", ns,
				strerror(-nsfd[i]));
			return nsfd[i];
		}
	}
	return 0;
}

static int flow_open(struct flow *f, const struct netctl *c, uint32_t src, uint32_t dst)
{
	struct sockaddr_in at = {.sin_family = AF_INET, .sin_port = htons(PORT)};

	memset(f, 0, sizeof(*f));
	at.sin_addr.s_addr = htonl(c->t->nodes.v[dst].addr);
	f->to = at;
	f->rx = netns_socket(c->nsfd[dst], c->root_fd, AF_INET, SOCK_DGRAM, 0);
	f->tx = netns_socket(c->nsfd[src], c->root_fd, AF_INET, SOCK_DGRAM, 0);
	if (f->rx < 0 || f->tx < 0 || bind(f->rx, (struct sockaddr *)&at, sizeof(at)))
		return -errno;
	return 0;
}

struct spines {
	uint32_t id[8], n;
	uint64_t at[4][8]; /* start, rewire begun, rewire done, end */
};

static void spines_find(const struct topo *t, struct spines *s)
{
	size_t i;

	for (s->n = 0, i = 0; i < t->nodes.n && s->n < 8; i++)
		if (t->nodes.v[i].role == TOPO_ROLE_SPINE)
			s->id[s->n++] = (uint32_t)i;
}

static void spines_read(const struct netctl *c, struct spines *s, int k)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		s->at[k][i] = node_tx(c->nsfd, c->root_fd, s->id[i]);
}

static void spines_print(const struct topo *t, const struct spines *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		printf("%s forwarded %llu bytes before the rewire, %llu during, %llu after\n",
		       t->nodes.v[s->id[i]].name, (unsigned long long)(s->at[1][i] - s->at[0][i]),
		       (unsigned long long)(s->at[2][i] - s->at[1][i]),
		       (unsigned long long)(s->at[3][i] - s->at[2][i]));
}

static int report(const struct opts *o, const struct flow *f, const struct ocs_reconf *r,
		  int64_t t_rewired)
{
	double ms = 1e-6, delay = (double)o->delay * ms, gap = (double)f->gap * ms;
	bool resumed = f->last > t_rewired;
	bool ok = resumed && f->gap >= (int64_t)o->delay && f->gap <= (int64_t)o->delay + SLACK_NS;

	printf("control plane: %u ports dark after %.3f ms, circuits in after %.3f ms dark, "
	       "routes fixed %.3f ms later (%u namespaces)\n",
	       r->ports, (double)(r->t_dark - r->t_begin) * ms, (double)(r->t_lit - r->t_dark) * ms,
	       (double)(r->t_routes - r->t_lit) * ms, r->st.ops.nodes);
	printf("flow: %llu datagrams sent, %llu received, %s\n", (unsigned long long)f->sent,
	       (unsigned long long)f->got, resumed ? "resumed after the rewire" : "NOT resumed");
	printf("dark time %.3f ms (configured delay %.3f ms, accepted %.3f..%.3f ms): %s\n", gap,
	       delay, delay, delay + (double)SLACK_NS * ms, ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}

static int run(const struct opts *o, struct netctl *c, const struct ocs_change *ch)
{
	struct ocs_reconf rc = {0};
	struct diag d = {0};
	pthread_t ts, tr;
	struct spines sp;
	struct flow f;
	int64_t t_rewired;
	int r;

	r = flow_open(&f, c, (uint32_t)topo_node_find(c->t, o->src),
		      (uint32_t)topo_node_find(c->t, o->dst));
	if (r)
		return fprintf(stderr, "ocs_rewire: probe flow: %s\n", strerror(-r)), 1;
	spines_find(c->t, &sp);
	pthread_create(&tr, NULL, receiver, &f);
	pthread_create(&ts, NULL, sender, &f);
	spines_read(c, &sp, 0);
	sleep_ns((int64_t)o->before);
	spines_read(c, &sp, 1);
	r = ocs_reconf_run(c, ch, (size_t)o->ncircuits, NULL, o->delay, &rc, &d);
	t_rewired = mono_now_ns();
	spines_read(c, &sp, 2);
	sleep_ns((int64_t)o->after);
	spines_read(c, &sp, 3);
	atomic_store(&f.stop, 1);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	close(f.tx);
	close(f.rx);
	ocs_reconf_done(&rc);
	if (r)
		return fprintf(stderr, "ocs_rewire: %s\n", d.msg), 1;
	spines_print(c->t, &sp);
	return report(o, &f, &rc, t_rewired);
}

int main(int argc, char **argv)
{
	struct ocs_change ch[16];
	struct world w;
	struct netctl c;
	struct diag d = {0};
	struct opts o;
	int *nsfd = NULL, i, r;

	if (parse(argc, argv, &o) || o.ncircuits > 16) {
		fprintf(stderr, "usage: ocs_rewire NAME SCENARIO SRC DST ocs:a-b... [--delay T] "
				"[--before T] [--after T]\n");
		return 2;
	}
	r = world_load(o.file, (struct world_ask){.every_variant = true}, &w, &d);
	if (!r && !o.delay_set)
		o.delay = w.e.s.topology.ls.ocs.delay_ns;
	for (i = 0; !r && i < o.ncircuits; i++)
		r = circuit(w.t, o.circuits[i], &ch[i]);
	if (!r && (topo_node_find(w.t, o.src) < 0 || topo_node_find(w.t, o.dst) < 0))
		r = -ENOENT;
	nsfd = r ? NULL : malloc(w.t->nodes.n * sizeof(int));
	r = r ? r : nsfd ? open_all(o.name, w.t, nsfd) : -ENOMEM;
	r = r ? r : netctl_init(&c, w.t, nsfd, &d);
	if (r) {
		fprintf(stderr, "ocs_rewire: %s\n", d.msg[0] ? d.msg : strerror(-r));
		return 2;
	}
	r = run(&o, &c, ch);
	netctl_done(&c);
	world_done(&w);
	free(nsfd);
	free(o.circuits);
	return r;
}
