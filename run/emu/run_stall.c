// SPDX-License-Identifier: MIT
/* Why a job stopped making progress, in the links' names (run_int.h, run_stall_why): the
 * links its traffic may take that are down now, else its ranks' own links that carried
 * nothing while it stalled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/emu/run_emu_int.h"
#include "run/emu/run_net.h"
#include "policy/reroute.h"

#define STALL_NAMES 4 /* links named in a reason; the count says how many more */

/* The view the kernel forwards by now: failures and rewires change it. */
static const struct topo *now_view(const struct run *r)
{
	return run_emu(r)->net ? run_emu(r)->net->ctl.t : r->t;
}

/* Whether the link of r->t joining ports a's side is down now (same port ids, model/ocs.h). */
static bool down_now(const struct run *r, uint32_t link)
{
	const struct topo *v = now_view(r);
	uint32_t p = r->t->links.v[link].port[0];

	return p < v->ports.n && !v->links.v[v->ports.v[p].link].up;
}

static int link_text(const struct topo *t, uint32_t link, char *buf, size_t len)
{
	const struct topo_link *l = &t->links.v[link];

	return snprintf(buf, len, "%s-%s", t->nodes.v[t->ports.v[l->port[0]].node].name,
			t->nodes.v[t->ports.v[l->port[1]].node].name);
}

/* Bytes sent over direction dir of link since t: from the newest sample back to the last one
 * at or before t. -1 when the samples do not cover the interval. */
static int64_t moved_since(const struct rec_run *rec, uint32_t link, uint32_t dir, int64_t t)
{
	uint64_t last = 0;
	bool have = false;
	size_t i;

	for (i = rec->samples.n; i-- > 0;) {
		const struct rec_sample *s = &rec->samples.v[i];

		if (s->link != link || s->dir != dir)
			continue;
		if (!have) {
			last = s->tx_bytes;
			have = true;
		}
		if (s->t <= t)
			return (int64_t)(last - s->tx_bytes);
	}
	return -1;
}

struct stall_list {
	char *buf;
	size_t len, o;
	uint32_t n;
};

static void list_add(struct stall_list *sl, const struct topo *t, uint32_t link)
{
	char name[2 * TOPO_NAME_MAX + 2];

	if (sl->n++ >= STALL_NAMES || sl->o >= sl->len)
		return;
	link_text(t, link, name, sizeof(name));
	sl->o += (size_t)snprintf(sl->buf + sl->o, sl->len - sl->o, "%s%s", sl->n > 1 ? ", " : "",
				  name);
}

static void list_end(struct stall_list *sl, const char *what)
{
	char tail[64] = "";

	if (!sl->n)
		return;
	if (sl->n > STALL_NAMES)
		snprintf(tail, sizeof(tail), " and %u more", sl->n - STALL_NAMES);
	if (sl->o < sl->len)
		snprintf(sl->buf + sl->o, sl->len - sl->o, "%s %s; ", tail, what);
}

/* Its ranks' own links (every flow of the job crosses them) that moved no byte either way. */
static void idle_access(const struct run *r, const struct run_job *rj, int64_t since,
			struct stall_list *sl)
{
	const struct topo *t = r->t;
	uint32_t k, i, node;

	for (k = 0; k < rj->spec.gpus; k++) {
		node = t->endpoints.v[rj->eps[k]];
		for (i = 0; i < t->links.n; i++) {
			const struct topo_link *l = &t->links.v[i];

			if (t->ports.v[l->port[0]].node != node &&
			    t->ports.v[l->port[1]].node != node)
				continue;
			if (moved_since(&r->rec, i, 0, since) == 0 &&
			    moved_since(&r->rec, i, 1, since) == 0)
				list_add(sl, t, i);
		}
	}
}

const char *run_stall_why(const struct run *r, uint32_t j, int64_t since, char *buf, size_t len)
{
	const struct run_job *rj = &r->jobs[j];
	struct stall_list sl = {.buf = buf, .len = len};
	struct topo_paths p = {0};
	uint32_t *mark = calloc(r->t->links.n + 1, sizeof(*mark)), i;

	buf[0] = '\0';
	if (!mark || !rj->eps || paths_compute(r->t, &p) ||
	    route_links_used(r->t, &p, rj->eps, rj->spec.gpus, 1, mark))
		goto out;
	for (i = 0; i < r->t->links.n; i++)
		if (mark[i] && down_now(r, i))
			list_add(&sl, r->t, i);
	list_end(&sl, "down on its paths");
	if (!sl.n) {
		idle_access(r, rj, since, &sl);
		list_end(&sl, "carried nothing since it last progressed");
	}
out:
	paths_done(&p);
	free(mark);
	return buf;
}

const char *run_job_why(const struct run *r, uint32_t j, int64_t since, char *ev, size_t evlen,
			char *links, size_t linkslen)
{
	if (run_net_why(r, since, ev, evlen)[0])
		return ev;
	return run_stall_why(r, j, since, links, linkslen);
}
