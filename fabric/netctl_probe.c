// SPDX-License-Identifier: MIT
/* Is connectivity back? ICMP echoes between two endpoints after a reroute (netctl.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel/mono.h"
#include "fabric/netctl.h"
#include "kernel/netns.h"

#define PROBE_MAX 64
#define PROBE_RESEND_NS 5000000LL /* unanswered echoes go again this often */

struct probe {
	int fd;
	uint32_t dst; /* host byte order */
	uint16_t id0; /* identifiers id0 .. id0 + count - 1 */
	int count, answered;
	uint8_t done[PROBE_MAX];
	uint16_t seq;
};

static uint16_t csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		s += (uint32_t)p[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* Every echo not yet answered, once more. Each has its own identifier, so the switches'
 * 5-tuple hash (ICMP's type and checksum stand in for the ports) spreads them. */
static void send_missing(struct probe *p)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(p->dst)};
	struct icmphdr h;
	int i;

	p->seq++;
	for (i = 0; i < p->count; i++) {
		if (p->done[i])
			continue;
		memset(&h, 0, sizeof(h));
		h.type = ICMP_ECHO;
		h.un.echo.id = htons((uint16_t)(p->id0 + i));
		h.un.echo.sequence = htons(p->seq);
		h.checksum = htons(csum(&h, sizeof(h)));
		(void)sendto(p->fd, &h, sizeof(h), MSG_DONTWAIT, (struct sockaddr *)&to,
			     sizeof(to));
	}
}

static void read_replies(struct probe *p)
{
	uint8_t buf[256];
	ssize_t n;

	while ((n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		const struct iphdr *ip = (const struct iphdr *)buf;
		size_t hl = (size_t)ip->ihl * 4;
		const struct icmphdr *h = (const struct icmphdr *)(buf + hl);
		int i;

		if ((size_t)n < hl + sizeof(*h) || ntohl(ip->saddr) != p->dst ||
		    h->type != ICMP_ECHOREPLY)
			continue;
		i = (uint16_t)(ntohs(h->un.echo.id) - p->id0);
		if (i < p->count && !p->done[i]) {
			p->done[i] = 1;
			p->answered++;
		}
	}
}

/* Opens the raw socket in a's namespace and aims it at b. */
static int probe_init(struct probe *p, const struct netctl *c, uint32_t ep_a, uint32_t ep_b,
		      int count)
{
	uint32_t na = c->t->endpoints.v[ep_a];

	memset(p, 0, sizeof(*p));
	p->count = count < PROBE_MAX ? count : PROBE_MAX;
	p->dst = c->t->nodes.v[c->t->endpoints.v[ep_b]].addr;
	p->id0 = (uint16_t)(getpid() * 131 + ep_a * 7 + ep_b);
	/* the socket stays in a's namespace whichever thread uses it */
	p->fd = netns_socket(c->nsfd[na], c->root_fd, AF_INET, SOCK_RAW, IPPROTO_ICMP);
	return p->fd < 0 ? p->fd : 0;
}

/* Echoes until all are answered or timeout_ns passed; closes the socket. */
static int64_t probe_loop(struct probe *p, int64_t timeout_ns)
{
	int64_t end = mono_now_ns() + timeout_ns, next = 0, now;
	struct pollfd pf;

	while (p->answered < p->count && (now = mono_now_ns()) < end) {
		if (now >= next) {
			send_missing(p);
			next = now + PROBE_RESEND_NS;
		}
		pf = (struct pollfd){.fd = p->fd, .events = POLLIN};
		(void)poll(&pf, 1, 1);
		read_replies(p);
	}
	now = mono_now_ns();
	close(p->fd);
	p->fd = -1;
	return p->answered == p->count ? now : -ETIMEDOUT;
}

int64_t netctl_probe(const struct netctl *c, uint32_t ep_a, uint32_t ep_b, int count,
		     int64_t timeout_ns, int *answered)
{
	struct probe p;
	int64_t at;
	int r;

	*answered = 0;
	r = probe_init(&p, c, ep_a, ep_b, count);
	if (r)
		return r;
	at = probe_loop(&p, timeout_ns);
	*answered = p.answered;
	return at;
}

struct netctl_probe {
	struct probe p;
	int64_t timeout_ns, at;
	pthread_t th;
	atomic_bool done;
	bool joined;
};

static void *probe_thread(void *arg)
{
	struct netctl_probe *np = arg;

	np->at = probe_loop(&np->p, np->timeout_ns);
	atomic_store(&np->done, true);
	return NULL;
}

struct netctl_probe *netctl_probe_start(const struct netctl *c, uint32_t ep_a, uint32_t ep_b,
					int count, int64_t timeout_ns)
{
	struct netctl_probe *np = calloc(1, sizeof(*np));

	if (!np)
		return NULL;
	np->timeout_ns = timeout_ns;
	if (probe_init(&np->p, c, ep_a, ep_b, count) ||
	    pthread_create(&np->th, NULL, probe_thread, np)) {
		if (np->p.fd >= 0)
			close(np->p.fd);
		free(np);
		return NULL;
	}
	return np;
}

bool netctl_probe_done(struct netctl_probe *np, int64_t *at, int *answered)
{
	if (!atomic_load(&np->done))
		return false;
	*at = np->at;
	*answered = np->p.answered;
	return true;
}

void netctl_probe_wait(struct netctl_probe *np)
{
	if (!np->joined)
		pthread_join(np->th, NULL);
	np->joined = true;
}

void netctl_probe_free(struct netctl_probe *np)
{
	if (!np)
		return;
	netctl_probe_wait(np);
	free(np);
}
