// SPDX-License-Identifier: MIT
/* The runner's network events as records (see run_net.h): rows, the probe that tells when
 * connectivity is back, failures.csv, and the lines for the terminal and for job failures. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/emu/run_emu_int.h"
#include "run/emu/run_net.h"

#define PICK_GROUPS 32 /* probe candidates: the first endpoint of this many groups */

struct rec_netev *run_net_rec(struct run_net *n, int64_t t, const char *event, const char *state,
			      const char *target)
{
	struct rec_netev *e = vec_grow(&n->recs);

	if (!e)
		return NULL;
	e->t = t;
	snprintf(e->event, sizeof(e->event), "%s", event);
	snprintf(e->state, sizeof(e->state), "%s", state);
	snprintf(e->target, sizeof(e->target), "%s", target);
	e->routes_ns = e->probe_ns = e->dark_ns = REC_NEVER;
	return e;
}

/* The first endpoint of each of the first PICK_GROUPS attachment groups. */
static uint32_t group_heads(const struct topo *t, uint32_t *out)
{
	uint32_t k = 0, i, j;

	for (i = 0; i < t->endpoints.n && k < PICK_GROUPS; i++) {
		uint32_t g = t->nodes.v[t->endpoints.v[i]].group;

		for (j = 0; j < k && t->nodes.v[t->endpoints.v[out[j]]].group != g; j++)
			;
		if (j == k)
			out[k++] = i;
	}
	return k;
}

static bool crosses(const struct run_net *n, const uint8_t *aff, const uint32_t pair[2],
		    uint32_t *mark, uint32_t tag)
{
	const struct topo *t = n->ctl.t;
	uint32_t k;

	if (route_links_used(t, &n->ctl.paths, pair, 2, tag, mark))
		return false;
	for (k = 0; k < t->links.n; k++)
		if (mark[k] == tag && aff[k])
			return true;
	return false;
}

bool run_net_pick(const struct run_net *n, const uint8_t *aff, uint32_t pair[2])
{
	uint32_t heads[PICK_GROUPS], k = group_heads(n->ctl.t, heads), a, b, tag = 0;
	uint32_t *mark = calloc(n->ctl.t->links.n + 1, sizeof(*mark));
	bool found = false;

	for (a = 0; mark && !found && a < k; a++)
		for (b = a + 1; !found && b < k; b++) {
			pair[0] = heads[a];
			pair[1] = heads[b];
			found = crosses(n, aff, pair, mark, ++tag);
		}
	free(mark);
	if (!found && k >= 2) { /* still worth knowing that these two talk */
		pair[0] = heads[0];
		pair[1] = heads[1];
		found = true;
	}
	return found;
}

void run_net_probe(struct run_net *n, const uint32_t pair[2], int64_t t0, struct rec_netev *e)
{
	const struct topo *t = n->ctl.t;
	struct run_probe rp = {.rec = (uint32_t)(e - n->recs.v), .t0 = t0};

	snprintf(e->probe, sizeof(e->probe), "%s>%s", t->nodes.v[t->endpoints.v[pair[0]]].name,
		 t->nodes.v[t->endpoints.v[pair[1]]].name);
	e->probe_sent = RUN_NET_PROBES;
	rp.p = netctl_probe_start(&n->ctl, pair[0], pair[1], RUN_NET_PROBES, RUN_NET_PROBE_NS);
	if (rp.p && vec_push(&n->probes, rp)) {
		netctl_probe_free(rp.p);
		rp.p = NULL;
	}
	if (!rp.p)
		snprintf(e->result, sizeof(e->result), "ok, but the probe could not start");
}

void run_net_probes(struct run_net *n, bool wait)
{
	struct rec_netev *e;
	int64_t at;
	size_t i = 0;
	int got;

	while (i < n->probes.n) {
		struct run_probe *rp = &n->probes.v[i];

		if (wait)
			netctl_probe_wait(rp->p);
		if (!netctl_probe_done(rp->p, &at, &got)) {
			i++;
			continue;
		}
		e = &n->recs.v[rp->rec];
		e->probe_answered = (uint32_t)got;
		e->probe_ns = at > 0 ? at - rp->t0 : REC_NEVER;
		netctl_probe_free(rp->p);
		*rp = n->probes.v[--n->probes.n];
	}
}

int run_net_write(struct run *r, const struct wdir *dir, struct diag *d)
{
	struct run_net *n = run_emu(r)->net;

	if (!n)
		return 0;
	run_net_probes(n, true);
	return run_netev_write(dir, n->recs.v, n->recs.n, d);
}

const char *run_net_why(const struct run *r, int64_t since, char *buf, size_t len)
{
	const struct rec_netev *e;
	size_t i;

	buf[0] = '\0';
	for (i = run_emu(r)->net ? run_emu(r)->net->recs.n : 0; i > 0; i--) {
		e = &run_emu(r)->net->recs.v[i - 1];
		if (e->t < since)
			break;
		snprintf(buf, len, "after %s %s %s at %.3f s (failures.csv): ", e->event, e->target,
			 strcmp(e->state, "rewire") ? e->state : "rewired", (double)e->t / 1e9);
		break;
	}
	return buf;
}

const struct rec_netev *run_net_events(const struct run *r, size_t *n)
{
	const struct run_net *net = run_emu(r)->net;

	*n = net ? net->recs.n : 0;
	return net ? net->recs.v : NULL;
}
