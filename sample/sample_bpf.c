// SPDX-License-Identifier: MIT
/* The shapers read by BPF (sample_int.h, kernel/qstat.h): every direction whose counters are
 * its root qdisc's is located once, from inside its namespace; each round one call reads them
 * all, and a direction it could not read goes by netlink as before. A direction BPF stopped
 * reading (its qdisc replaced) is located again at its namespace's periodic refresh. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kernel/mono.h"
#include "kernel/netns.h"
#include "kernel/qstat.h"
#include "sample/sample_int.h"
#include "sample/sample_plan.h"

/* The directions read from their root qdisc alone (the device's counters not needed). */
static bool bpf_port(const struct sample_port *p)
{
	return p->want == SAMPLE_W_QDISC;
}

/* Locates namespace n's shapers (all, or those BPF did not read this round); the thread
 * goes into the namespace and back to root_fd. How many are located, or -errno. */
static int locate_ns(struct sampler *s, const struct sample_ns *n, int nsfd, int root_fd, bool all)
{
	uint32_t i, found = 0;
	int err = netns_enter(nsfd);

	for (i = 0; !err && i < n->nports; i++) {
		struct sample_port *p = &s->ports[n->port0 + i];

		if (bpf_port(p) && (all || !p->taken) &&
		    !qstat_locate(s->qs, n->port0 + i, p->ifindex))
			found++;
	}
	if (netns_enter(root_fd))
		return -errno; /* the thread is stuck elsewhere: the caller gives up */
	return err ? err : (int)found;
}

static int locate_all(struct sampler *s, const int *nsfd, int root_fd)
{
	uint32_t n;
	int r;

	for (n = 0; n < s->nns; n++) {
		r = locate_ns(s, &s->ns[n], nsfd[n], root_fd, true);
		if (r < 0)
			return diag_set(&s->bpf_why, r, "locating the shapers of %s: %s",
					s->ns[n].name, strerror(-r));
		s->nbpf += (uint32_t)r;
	}
	return 0;
}

void sample_bpf_open(struct sampler *s, const int *nsfd, int root_fd)
{
	int err = qstat_open(&s->qs, s->nports, &s->bpf_why);

	err = err ? err : locate_all(s, nsfd, root_fd);
	if (!err && !s->nbpf)
		err = diag_set(&s->bpf_why, -ENOENT, "no shaper to read");
	if (err)
		sample_bpf_close(s);
	s->nsfd = err ? NULL : nsfd;
}

void sample_bpf_round(struct sampler *s, int64_t t0)
{
	s->bpf_ok = s->qs && !qstat_sample(s->qs);
	s->bpf_t = mono_now_ns() - t0;
}

bool sample_bpf_take(struct sampler *s, struct sample_port *p)
{
	struct qstat_slot x;

	p->taken = s->bpf_ok && bpf_port(p) && qstat_get(s->qs, (uint32_t)(p - s->ports), &x);
	if (!p->taken)
		return false;
	p->q = (struct sample_counts){x.bytes, x.packets, x.drops, x.backlog};
	p->got = p->want;
	p->err = 0;
	p->read = true;
	p->t = s->bpf_t;
	s->bpf_reads++;
	return true;
}

/* Whether namespace n has a shaper BPF did not read this round. */
static bool missed(const struct sampler *s, const struct sample_ns *n)
{
	uint32_t i;

	for (i = 0; i < n->nports; i++)
		if (bpf_port(&s->ports[n->port0 + i]) && !s->ports[n->port0 + i].taken)
			return true;
	return false;
}

void sample_bpf_relocate(struct sampler *s)
{
	int root_fd = -1;
	uint32_t k;

	if (!s->bpf_ok)
		return;
	for (k = 0; k < s->nns; k++) {
		if (!sample_plan_refresh(k, s->rounds) || !missed(s, &s->ns[k]))
			continue;
		if (root_fd < 0)
			root_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (root_fd < 0 || locate_ns(s, &s->ns[k], s->nsfd[k], root_fd, false) < 0)
			break; /* its directions stay with netlink */
	}
	if (root_fd >= 0)
		close(root_fd);
}

void sample_bpf_close(struct sampler *s)
{
	qstat_free(s->qs);
	s->qs = NULL;
	s->bpf_ok = false;
}
