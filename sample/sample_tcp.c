// SPDX-License-Identifier: MIT
/* The endpoints' TCP counters (sample.h): each endpoint namespace's /proc/net/netstat and
 * /proc/net/snmp, opened once from inside it (netns_open_in) and read with pread from the
 * runner's own namespace. An open proc file stays bound to the namespace it was opened in, so
 * a reading costs two preads (about 10 and 25 us here) and no setns, and does not depend on
 * any process living in the namespace (an emu-node may be replaced mid-run). INET_DIAG would
 * give per-socket state only, without the timeouts, and lose the sockets that closed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/mono.h"
#include "collect/tcp.h"
#include "kernel/netns.h"
#include "sample/sample_int.h"
#include "sample/sample_plan.h"

int sample_tcp_open(struct sampler *s, const struct topo *t, const int *nsfd, int root_fd,
		    struct diag *d)
{
	struct sample_tcp *x;
	uint32_t e, n;

	s->tcp = calloc(t->endpoints.n + 1, sizeof(*s->tcp));
	if (!s->tcp)
		return diag_set(d, -ENOMEM, "out of memory");
	for (e = 0; e < t->endpoints.n; e++) {
		n = t->endpoints.v[e];
		x = &s->tcp[s->ntcp++];
		*x = (struct sample_tcp){.node = n, .netstat = -1, .snmp = -1};
		x->netstat = netns_open_in(nsfd[n], root_fd, "/proc/thread-self/net/netstat");
		x->snmp = x->netstat < 0
				  ? x->netstat
				  : netns_open_in(nsfd[n], root_fd, "/proc/thread-self/net/snmp");
		if (x->netstat < 0 || x->snmp < 0)
			return diag_set(d, x->snmp, "sampling: TCP counters of %s: %s",
					t->nodes.v[n].name, strerror(-x->snmp));
	}
	return 0;
}

void sample_tcp_close(struct sampler *s)
{
	uint32_t i;

	for (i = 0; s->tcp && i < s->ntcp; i++) {
		if (s->tcp[i].netstat >= 0)
			close(s->tcp[i].netstat);
		if (s->tcp[i].snmp >= 0)
			close(s->tcp[i].snmp);
	}
	free(s->tcp);
	s->tcp = NULL;
	s->ntcp = 0;
}

/* The whole file at fd into buf (NUL-terminated). 0 or -errno (-EFBIG: larger than buf). */
static int read_all(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	if (n < 0)
		return -errno;
	if ((size_t)n >= len - 1)
		return -EFBIG;
	buf[n] = '\0';
	return 0;
}

static int take_one(struct sampler *s, struct sample_tcp *x, int64_t t, struct rec_run *rec)
{
	struct rec_tcp c = {.t = t, .node = x->node};
	int r;

	x->round = s->rounds;
	x->t = t;
	r = read_all(x->netstat, s->tbuf[0], sizeof(s->tbuf[0]));
	r = r ? r : read_all(x->snmp, s->tbuf[1], sizeof(s->tbuf[1]));
	r = r ? r : col_tcp_parse(s->tbuf[0], s->tbuf[1], &c) ? -EPROTO : 0;
	return r ? r : vec_push(&rec->tcp, c);
}

/* Whether a direction out of or into endpoint x was busy in a round after its last reading
 * (a direction whose peer the sampler does not know counts as busy). */
static bool busy_since(const struct sampler *s, const struct sample_tcp *x)
{
	const struct sample_ns *n = &s->ns[x->node];
	const struct sample_port *p;
	uint32_t i;

	for (i = 0; i < n->nports; i++) {
		p = &s->ports[n->port0 + i];
		if (p->busy_round > x->round || p->peer == TOPO_NONE ||
		    s->ports[p->peer].busy_round > x->round)
			return true;
	}
	return false;
}

int sample_tcp_take(struct sampler *s, int64_t t0, bool final, struct rec_run *rec,
		    const char **who)
{
	int64_t t = mono_now_ns() - t0;
	struct sample_tcp *x;
	uint32_t i;
	int r, first = 0;

	s->tcp_next = t + SAMPLE_TCP_NS;
	for (i = 0; first != -ENOMEM && i < s->ntcp; i++) {
		x = &s->tcp[i];
		if (!sample_plan_tcp(final || s->full || !x->round, busy_since(s, x), t - x->t))
			continue;
		r = take_one(s, x, t, rec);
		if (r && !first) {
			first = r;
			*who = s->ns[x->node].name;
		}
	}
	return first;
}
