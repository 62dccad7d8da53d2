// SPDX-License-Identifier: MIT
/* Flow-level network in virtual time (sim/net.h): max-min fair rates by progressive filling
 * over the component of flows and links a change reaches, flow completions and timers in one
 * event heap ordered by time, then insertion. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "sim/net.h"
#include "sim/phys.h"

#define SIM_RATE_INF 1e18 /* bit/s of a flow whose every link is unlimited */
#define NS 1e9
#define SORT_RADIX_MIN 256 /* ids a refill sorts by radix rather than qsort, at least */

/* ---- timers: a heap by (t, seq) ---- */

static bool timer_before(const struct sim_timer_item *a, const struct sim_timer_item *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

static void timer_swap(struct sim_timer_item *a, struct sim_timer_item *b)
{
	struct sim_timer_item x = *a;

	*a = *b;
	*b = x;
}

static int timer_push(struct sim_net *s, struct sim_timer_item it)
{
	struct sim_timer_item *v;
	size_t i;

	it.seq = s->seq++;
	if (vec_push(&s->timers, it))
		return -ENOMEM;
	v = s->timers.v;
	for (i = s->timers.n - 1; i && timer_before(&v[i], &v[(i - 1) / 2]); i = (i - 1) / 2)
		timer_swap(&v[i], &v[(i - 1) / 2]);
	return 0;
}

static struct sim_timer_item timer_pop(struct sim_net *s)
{
	struct sim_timer_item *v = s->timers.v, top = v[0];
	size_t i = 0, k;

	v[0] = v[--s->timers.n];
	for (;;) {
		k = 2 * i + 1;
		if (k >= s->timers.n)
			break;
		if (k + 1 < s->timers.n && timer_before(&v[k + 1], &v[k]))
			k++;
		if (!timer_before(&v[k], &v[i]))
			break;
		timer_swap(&v[i], &v[k]);
		i = k;
	}
	return top;
}

/* ---- completions: flow ids in a heap by (done, seq), each knowing its place ---- */

static bool done_before(const struct sim_net *s, uint32_t a, uint32_t b)
{
	const struct sim_flow *x = &s->flows.v[a], *y = &s->flows.v[b];

	return x->done != y->done ? x->done < y->done : x->seq < y->seq;
}

static void done_place(struct sim_net *s, size_t i, uint32_t id)
{
	s->done.v[i] = id;
	s->flows.v[id].hpos = (uint32_t)i;
}

static void done_up(struct sim_net *s, size_t i)
{
	uint32_t id = s->done.v[i];

	for (; i && done_before(s, id, s->done.v[(i - 1) / 2]); i = (i - 1) / 2)
		done_place(s, i, s->done.v[(i - 1) / 2]);
	done_place(s, i, id);
}

static void done_down(struct sim_net *s, size_t i)
{
	uint32_t id = s->done.v[i];
	size_t k;

	for (;; i = k) {
		k = 2 * i + 1;
		if (k >= s->done.n)
			break;
		if (k + 1 < s->done.n && done_before(s, s->done.v[k + 1], s->done.v[k]))
			k++;
		if (!done_before(s, s->done.v[k], id))
			break;
		done_place(s, i, s->done.v[k]);
	}
	done_place(s, i, id);
}

/* Takes flow id out of the heap. The hole it leaves sinks to a leaf along the smaller
 * children (one comparison a level), and the last entry fills it from there, rising: the
 * last entry is one of the latest, so it rarely rises far, where sinking it from the hole
 * would compare both children at every level (the root: a completion, each event). */
static void done_remove(struct sim_net *s, uint32_t id)
{
	size_t i = s->flows.v[id].hpos, k;
	uint32_t last;

	if (i == UINT32_MAX)
		return;
	s->flows.v[id].hpos = UINT32_MAX;
	last = s->done.v[--s->done.n];
	if (i == s->done.n)
		return;
	for (; (k = 2 * i + 1) < s->done.n; i = k) {
		if (k + 1 < s->done.n && done_before(s, s->done.v[k + 1], s->done.v[k]))
			k++;
		done_place(s, i, s->done.v[k]);
	}
	done_place(s, i, last);
	done_up(s, i);
}

/* Flow id's completion time changed (or it stalled: SIM_NEVER leaves the heap). */
static int done_update(struct sim_net *s, uint32_t id)
{
	struct sim_flow *f = &s->flows.v[id];

	if (f->done == SIM_NEVER) {
		done_remove(s, id);
		return 0;
	}
	if (f->hpos == UINT32_MAX) {
		if (vec_push(&s->done, id))
			return -ENOMEM;
		f->hpos = (uint32_t)s->done.n - 1;
	}
	done_up(s, f->hpos);
	done_down(s, f->hpos);
	return 0;
}

/* ---- links and flows ---- */

int sim_net_init(struct sim_net *s, uint32_t n, const double *cap)
{
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->filled_at = INT64_MIN; /* none yet */
	if (vec_reserve(&s->links, n + 1))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s->links.v[i] = (struct sim_link){.cap = cap ? cap[i] : 0, .up = true};
	s->links.n = n;
	return 0;
}

void sim_net_done(struct sim_net *s)
{
	size_t i;

	for (i = 0; i < s->links.n; i++)
		vec_free(&s->links.v[i].flows);
	for (i = 0; i < s->flows.n; i++) {
		free(s->flows.v[i].path);
		free(s->flows.v[i].w);
	}
	vec_free(&s->links);
	vec_free(&s->flows);
	vec_free(&s->free_ids);
	vec_free(&s->timers);
	vec_free(&s->done);
	vec_free(&s->dirty);
	vec_free(&s->comp_flows);
	vec_free(&s->comp_links);
}

/* Charges what the flow sent at its rate since it was last settled, to it and its links. */
static void settle(struct sim_net *s, struct sim_flow *f)
{
	double sent = f->rate * (double)(s->now - f->since) / NS / 8;
	uint32_t h;

	if (f->since == s->now) /* nothing to charge (a flow started or settled this instant) */
		return;
	if (sent > f->left)
		sent = f->left;
	f->left -= sent;
	for (h = 0; h < f->hops; h++)
		s->links.v[f->path[h]].bytes += f->w ? sent * f->w[h] : sent;
	f->since = s->now;
}

static bool path_ok(const struct sim_net *s, const uint32_t *path, const double *w, uint32_t hops)
{
	uint32_t h;

	for (h = 0; h < hops; h++)
		if (path[h] >= s->links.n || (w && !(w[h] > 0 && w[h] <= 1)))
			return false;
	return hops > 0;
}

/* Puts flow id on its links (and their component up for refilling). */
static int attach(struct sim_net *s, uint32_t id)
{
	struct sim_flow *f = &s->flows.v[id];
	uint32_t h;

	for (h = 0; h < f->hops; h++)
		if (vec_push(&s->links.v[f->path[h]].flows, id) || vec_push(&s->dirty, f->path[h]))
			return -ENOMEM;
	sim_phys_flow(s, f, 1);
	return 0;
}

static int detach(struct sim_net *s, uint32_t id)
{
	struct sim_flow *f = &s->flows.v[id];
	uint32_t h;
	size_t i;

	sim_phys_flow(s, f, -1);
	for (h = 0; h < f->hops; h++) {
		struct sim_link *l = &s->links.v[f->path[h]];

		for (i = 0; i < l->flows.n && l->flows.v[i] != id; i++)
			;
		if (i < l->flows.n) /* order within a link does not matter: ties go by id */
			l->flows.v[i] = l->flows.v[--l->flows.n];
		if (vec_push(&s->dirty, f->path[h]))
			return -ENOMEM;
	}
	return 0;
}

static int new_id(struct sim_net *s, uint32_t *id)
{
	if (s->free_ids.n) {
		*id = s->free_ids.v[--s->free_ids.n];
		return 0;
	}
	if (s->flows.n >= INT32_MAX || !vec_grow(&s->flows))
		return -ENOMEM;
	*id = (uint32_t)s->flows.n - 1;
	return 0;
}

static uint32_t *copy_path(const uint32_t *path, uint32_t hops)
{
	uint32_t *p = malloc(hops * sizeof(*p));

	if (p)
		memcpy(p, path, hops * sizeof(*p));
	return p;
}

/* A copy of the shares w (hops of them) in *out; NULL for NULL. 0 or -ENOMEM. */
static int copy_w(const double *w, uint32_t hops, double **out)
{
	*out = NULL;
	if (!w)
		return 0;
	*out = malloc(hops * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	memcpy(*out, w, hops * sizeof(**out));
	return 0;
}

int sim_flow_start(struct sim_net *s, const uint32_t *path, const double *w, uint32_t hops,
		   uint64_t bytes, uint64_t cookie)
{
	struct sim_flow *f;
	uint32_t id;
	uint32_t *p;
	double *pw = NULL;

	if (!bytes || !path_ok(s, path, w, hops))
		return -EINVAL;
	p = copy_path(path, hops);
	if (!p || copy_w(w, hops, &pw) || new_id(s, &id)) {
		free(p);
		free(pw);
		return -ENOMEM;
	}
	f = &s->flows.v[id];
	*f = (struct sim_flow){.path = p,
			       .w = pw,
			       .hops = hops,
			       .left = (double)bytes,
			       .size = (double)bytes,
			       .start = s->now,
			       .since = s->now,
			       .cookie = cookie,
			       .done = SIM_NEVER,
			       .hpos = UINT32_MAX,
			       .active = true};
	return attach(s, id) ? -ENOMEM : (int)id;
}

/* Flow id sends nothing until the next refill, as one that just started: a change the quantum
 * defers the refill of must not leave it sending where it no longer can. */
static void hold(struct sim_net *s, uint32_t id)
{
	struct sim_flow *f = &s->flows.v[id];

	settle(s, f);
	sim_phys_flow(s, f, -1);
	f->rate = 0;
	f->done = SIM_NEVER;
	done_remove(s, id);
}

static struct sim_flow *live(struct sim_net *s, uint32_t id)
{
	return id < s->flows.n && s->flows.v[id].active ? &s->flows.v[id] : NULL;
}

static int end_flow(struct sim_net *s, uint32_t id)
{
	struct sim_flow *f = &s->flows.v[id];
	int r;

	settle(s, f);
	done_remove(s, id);
	r = detach(s, id);
	free(f->path);
	free(f->w);
	f->path = NULL;
	f->w = NULL;
	f->hops = 0;
	f->active = false;
	return r ? r : vec_push(&s->free_ids, id);
}

int sim_flow_cancel(struct sim_net *s, uint32_t id)
{
	return live(s, id) ? end_flow(s, id) : -EINVAL;
}

int sim_flow_reroute(struct sim_net *s, uint32_t id, const uint32_t *path, const double *w,
		     uint32_t hops)
{
	struct sim_flow *f = live(s, id);
	uint32_t *p;
	double *pw = NULL;

	if (!f || !path_ok(s, path, w, hops))
		return -EINVAL;
	p = copy_path(path, hops);
	if (!p || copy_w(w, hops, &pw)) {
		free(p);
		return -ENOMEM;
	}
	settle(s, f);
	if (s->quantum > 0) /* on its old path's rate, until the refill, it could pass a link */
		hold(s, id);
	if (detach(s, id)) {
		free(p);
		free(pw);
		return -ENOMEM;
	}
	free(f->path);
	free(f->w);
	f->path = p;
	f->w = pw;
	f->hops = hops;
	return attach(s, id);
}

int sim_link_set(struct sim_net *s, uint32_t link, bool up)
{
	struct sim_link *l;
	size_t k;

	if (link >= s->links.n)
		return -EINVAL;
	l = &s->links.v[link];
	if (l->up == up) /* nothing changes: nothing to refill */
		return 0;
	l->up = up;
	/* until the refill stalls them: a dead link carries nothing */
	for (k = 0; !up && s->quantum > 0 && k < l->flows.n; k++)
		hold(s, l->flows.v[k]);
	return vec_push(&s->dirty, link);
}

int sim_timer(struct sim_net *s, int64_t t, uint64_t cookie)
{
	if (t < s->now)
		return -EINVAL;
	return timer_push(s, (struct sim_timer_item){.t = t, .cookie = cookie});
}

/* ---- max-min refilling ---- */

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Adds link id to the component unless this pass has it. */
static int reach_link(struct sim_net *s, uint32_t id)
{
	struct sim_link *l = &s->links.v[id];

	if (l->mark == s->pass)
		return 0;
	l->mark = s->pass;
	l->load = 0; /* summed anew once its flows' rates are set (sim/phys.c) */
	return vec_push(&s->comp_links, id);
}

/* Adds flow id and its links to the component unless this pass has it. */
static int reach_flow(struct sim_net *s, uint32_t id)
{
	struct sim_flow *f = &s->flows.v[id];
	uint32_t h;

	if (f->mark == s->pass)
		return 0;
	f->mark = s->pass;
	if (vec_push(&s->comp_flows, id))
		return -ENOMEM;
	for (h = 0; h < f->hops; h++)
		if (reach_link(s, f->path[h]))
			return -ENOMEM;
	return 0;
}

/* The links and flows reachable from the dirty links through shared flows: only their rates
 * can change. */
static int gather(struct sim_net *s)
{
	size_t i, k;
	int r = 0;

	s->pass++;
	s->comp_links.n = s->comp_flows.n = 0;
	for (i = 0; !r && i < s->dirty.n; i++)
		r = reach_link(s, s->dirty.v[i]);
	for (i = 0; !r && i < s->comp_links.n; i++) {
		const struct sim_link *l = &s->links.v[s->comp_links.v[i]];

		for (k = 0; !r && k < l->flows.n; k++)
			r = reach_flow(s, l->flows.v[k]);
	}
	s->dirty.n = s->dirty_checked = 0;
	return r;
}

/* A link's fair share while filling. */
struct share_item {
	double share;
	uint32_t link; /* id: ties go to the lower */
	uint32_t idx; /* comp index */
};

#define FILL_OUT UINT32_MAX /* a comp link not in the heap */

/* What filling keeps per comp link, and the links by share: a heap holding each link with
 * unfrozen flows once, at its current share (a share that changes moves its entry; with
 * stale entries left in, a sprayed all-to-all's heap grew to millions, out of every cache). */
struct fill {
	double *rem; /* capacity left */
	uint32_t *cnt; /* unfrozen flows */
	double *wsum; /* their shares crossing it (cnt when every flow has one path) */
	uint32_t *pos; /* its entry in q, or FILL_OUT */
	uint32_t *seen; /* the freezing round that last changed it */
	uint32_t round;
	VEC(uint32_t) touched; /* comp links the current round changed */
	VEC(struct share_item) q;
};

static bool share_before(const struct share_item *a, const struct share_item *b)
{
	return a->share != b->share ? a->share < b->share : a->link < b->link;
}

static void share_put(struct fill *x, size_t i, struct share_item it)
{
	x->q.v[i] = it;
	x->pos[it.idx] = (uint32_t)i;
}

static void share_up(struct fill *x, size_t i)
{
	struct share_item it = x->q.v[i];

	for (; i && share_before(&it, &x->q.v[(i - 1) / 2]); i = (i - 1) / 2)
		share_put(x, i, x->q.v[(i - 1) / 2]);
	share_put(x, i, it);
}

static void share_down(struct fill *x, size_t i)
{
	struct share_item it = x->q.v[i];
	size_t k;

	for (;; i = k) {
		k = 2 * i + 1;
		if (k >= x->q.n)
			break;
		if (k + 1 < x->q.n && share_before(&x->q.v[k + 1], &x->q.v[k]))
			k++;
		if (!share_before(&x->q.v[k], &it))
			break;
		share_put(x, i, x->q.v[k]);
	}
	share_put(x, i, it);
}

/* Takes comp link j's entry out of the heap. */
static void share_remove(struct fill *x, uint32_t j)
{
	size_t i = x->pos[j];
	uint32_t m;

	x->pos[j] = FILL_OUT;
	if (i == --x->q.n)
		return;
	m = x->q.v[x->q.n].idx; /* the last entry fills the hole, then finds its place */
	share_put(x, i, x->q.v[x->q.n]);
	share_up(x, i);
	share_down(x, x->pos[m]);
}

static struct share_item share_pop(struct fill *x)
{
	struct share_item top = x->q.v[0];

	share_remove(x, top.idx);
	return top;
}

/* Comp link j's share changed: its entry moves, comes in, or (no unfrozen flow left) goes. */
static void requeue(const struct sim_net *s, struct fill *x, uint32_t j)
{
	struct share_item it = {x->rem[j] / x->wsum[j], s->comp_links.v[j], j};
	size_t i;

	if (!x->cnt[j]) {
		if (x->pos[j] != FILL_OUT)
			share_remove(x, j);
		return;
	}
	if (x->pos[j] == FILL_OUT) {
		x->q.v[x->q.n++] = it; /* room for every comp link: reserved in fill */
		share_up(x, x->q.n - 1);
		return;
	}
	i = x->pos[j];
	share_put(x, i, it);
	share_up(x, i);
	share_down(x, x->pos[j]);
}

/* Gives share to every unfrozen flow of comp link b, and takes it from their links, each of
 * which gets its new share once, when the round is over (a split flow crosses tens). */
static int freeze(struct sim_net *s, struct fill *x, uint32_t b, double share, uint32_t *left)
{
	struct sim_link *l = &s->links.v[s->comp_links.v[b]];
	uint32_t h, j;
	size_t k;
	int r = 0;

	x->round++;
	x->touched.n = 0;
	for (k = 0; !r && k < l->flows.n; k++) {
		struct sim_flow *f = &s->flows.v[l->flows.v[k]];

		if (f->frozen)
			continue;
		f->frozen = true;
		f->rate = share;
		--*left;
		for (h = 0; !r && h < f->hops; h++) {
			double w = f->w ? f->w[h] : 1;

			j = s->links.v[f->path[h]].mark; /* comp index while filling */
			x->rem[j] = fmax(0, x->rem[j] - share * w);
			x->wsum[j] = --x->cnt[j] ? x->wsum[j] - w : 0;
			if (j != b && x->seen[j] != x->round) {
				x->seen[j] = x->round;
				r = vec_push(&x->touched, j);
			}
		}
	}
	for (k = 0; !r && k < x->touched.n; k++)
		requeue(s, x, x->touched.v[k]);
	return r;
}

/* A flow alone on every link it crosses gets, whatever the others do, the share of the
 * tightest of them: the rate progressive filling would give it when that link came first.
 * Fixed here, such flows keep their links out of the heap (in a platform of point-to-point
 * links, every flow). */
static void fix_alone(struct sim_net *s, struct fill *x, uint32_t *left)
{
	size_t i;
	uint32_t h, j;

	for (i = 0; i < s->comp_flows.n; i++) {
		struct sim_flow *f = &s->flows.v[s->comp_flows.v[i]];
		double share = INFINITY;

		for (h = 0; h < f->hops && x->cnt[s->links.v[f->path[h]].mark] == 1; h++) {
			j = s->links.v[f->path[h]].mark;
			share = fmin(share, x->rem[j] / x->wsum[j]);
		}
		if (h < f->hops)
			continue;
		f->frozen = true;
		f->rate = share;
		--*left;
		for (h = 0; h < f->hops; h++)
			x->cnt[s->links.v[f->path[h]].mark] = 0;
	}
}

/* Each link of the gathered component: its capacity, its flows and their weights; its mark
 * its comp index while filling (the fillers give the marks the pass back after). */
static void fill_start(struct sim_net *s, struct fill *x)
{
	size_t i;
	uint32_t h;

	for (i = 0; i < s->comp_links.n; i++) {
		struct sim_link *l = &s->links.v[s->comp_links.v[i]];

		x->rem[i] = !l->up ? 0 : l->cap > 0 ? l->cap : SIM_RATE_INF;
		x->cnt[i] = (uint32_t)l->flows.n;
		x->wsum[i] = 0;
		x->pos[i] = FILL_OUT;
		l->mark = (uint32_t)i;
	}
	for (i = 0; i < s->comp_flows.n; i++) {
		struct sim_flow *f = &s->flows.v[s->comp_flows.v[i]];

		f->frozen = false;
		for (h = 0; h < f->hops; h++)
			x->wsum[s->links.v[f->path[h]].mark] += f->w ? f->w[h] : 1;
	}
}

/* Progressive filling (max-min fairness) of the gathered component: the link with the lowest
 * fair share rem/cnt fixes its flows' rates, which leave its other links; repeat. Link marks
 * hold their comp index meanwhile and get the pass back after. */
static int fill(struct sim_net *s, struct fill *x)
{
	uint32_t left = (uint32_t)s->comp_flows.n;
	struct share_item it;
	size_t i;
	int r = 0;

	fill_start(s, x);
	fix_alone(s, x, &left);
	if (vec_reserve(&x->q, s->comp_links.n))
		r = -ENOMEM;
	for (i = 0; !r && i < s->comp_links.n; i++)
		requeue(s, x, (uint32_t)i);
	while (!r && left && x->q.n) {
		it = share_pop(x);
		r = freeze(s, x, it.idx, it.share, &left);
	}
	for (i = 0; i < s->comp_links.n; i++)
		s->links.v[s->comp_links.v[i]].mark = s->pass;
	return r;
}

/* Equal split (SIM_SHARE_EQUAL): every flow of the gathered component gets the lowest, over
 * its links, of capacity over the (share-weighted) flows there. Links never carry more than
 * their capacity; what a flow cannot use elsewhere idles. */
static void fill_equal(struct sim_net *s, struct fill *x)
{
	size_t i;
	uint32_t h;

	fill_start(s, x);
	for (i = 0; i < s->comp_flows.n; i++) {
		struct sim_flow *f = &s->flows.v[s->comp_flows.v[i]];
		double rate = SIM_RATE_INF;

		for (h = 0; h < f->hops; h++) {
			uint32_t j = s->links.v[f->path[h]].mark;

			rate = fmin(rate, x->rem[j] / x->wsum[j]);
		}
		f->rate = rate;
	}
	for (i = 0; i < s->comp_links.n; i++)
		s->links.v[s->comp_links.v[i]].mark = s->pass;
}

/* SIM_SHARE_EQUAL_SINCE_START: what flow f has left is what its rate now would have left it
 * had it held since the flow started (none, when that is all of it: it ends now). */
static void since_start(const struct sim_net *s, struct sim_flow *f)
{
	double sent = f->rate * (double)(s->now - f->start) / NS / 8;

	f->left = sent >= f->size ? 0 : f->size - sent;
}

/* Whether a flow whose rate was just set needs a new completion event. One whose rate did not
 * change keeps its event: settled at an unchanged rate, it still ends when it was due to
 * (most of a component's flows, when one flow of it starts or ends elsewhere). */
static bool rescheduled(const struct sim_flow *f, double old)
{
	return f->rate != old || f->rate <= 0 || f->hpos == UINT32_MAX;
}

/* The new completion event of a flow whose rate was just set. */
static int schedule(struct sim_net *s, uint32_t id)
{
	struct sim_flow *f = &s->flows.v[id];

	/* stalled: no completion until something changes */
	f->done = f->rate > 0 ? s->now + (int64_t)ceil(f->left * 8 * NS / f->rate) : SIM_NEVER;
	f->seq = s->seq++;
	return done_update(s, id);
}

static int refill(struct sim_net *s)
{
	struct fill x;
	double *old;
	size_t i, n = 0;
	int r;

	if (!s->dirty.n)
		return 0;
	r = gather(s);
	if (r)
		return r;
	memset(&x, 0, sizeof(x));
	x.rem = malloc((s->comp_links.n + 1) * sizeof(*x.rem));
	x.cnt = malloc((s->comp_links.n + 1) * sizeof(*x.cnt));
	x.wsum = malloc((s->comp_links.n + 1) * sizeof(*x.wsum));
	x.pos = malloc((s->comp_links.n + 1) * sizeof(*x.pos));
	x.seen = calloc(s->comp_links.n + 1, sizeof(*x.seen));
	old = malloc((s->comp_flows.n + 1) * sizeof(*old));
	r = x.rem && x.cnt && x.wsum && x.pos && x.seen && old ? 0 : -ENOMEM;
	for (i = 0; !r && i < s->comp_flows.n; i++) { /* what they sent at the old rates */
		settle(s, &s->flows.v[s->comp_flows.v[i]]);
		old[i] = s->flows.v[s->comp_flows.v[i]].rate;
	}
	if (!r && s->share == SIM_SHARE_MAXMIN)
		r = fill(s, &x);
	else if (!r)
		fill_equal(s, &x);
	for (i = 0; !r && s->share == SIM_SHARE_EQUAL_SINCE_START && i < s->comp_flows.n; i++) {
		struct sim_flow *f = &s->flows.v[s->comp_flows.v[i]];

		since_start(s, f);
		old[i] = -1; /* what it has left moved: a new completion event */
	}
	if (!r && s->mutate) /* tests only: a broken model, for the checks to catch */
		s->mutate(s, s->mutate_arg);
	if (!r)
		r = sim_phys_refilled(s);
	/* the flows whose rates changed, new events made in id order: simultaneous ends come so */
	for (i = 0, n = 0; !r && i < s->comp_flows.n; i++)
		if (rescheduled(&s->flows.v[s->comp_flows.v[i]], old[i]))
			s->comp_flows.v[n++] = s->comp_flows.v[i];
	if (n >= SORT_RADIX_MIN && !r)
		r = sort_u32(s->comp_flows.v, n);
	else if (n > 1)
		qsort(s->comp_flows.v, n, sizeof(uint32_t), cmp_id);
	for (i = 0; !r && i < n; i++)
		r = schedule(s, s->comp_flows.v[i]);
	free(old);
	free(x.rem);
	free(x.cnt);
	free(x.wsum);
	free(x.pos);
	free(x.seen);
	vec_free(&x.q);
	vec_free(&x.touched);
	s->st.recomputes++;
	s->st.flows_touched += s->comp_flows.n;
	s->filled_at = s->now;
	return r;
}

/* Whether the next event is the first timer rather than the first completion. */
static bool timer_first(const struct sim_net *s)
{
	const struct sim_flow *f;

	if (!s->done.n)
		return true;
	if (!s->timers.n)
		return false;
	f = &s->flows.v[s->done.v[0]];
	return s->timers.v[0].t != f->done ? s->timers.v[0].t < f->done
					   : s->timers.v[0].seq < f->seq;
}

int sim_net_settle(struct sim_net *s)
{
	return refill(s);
}

/* Whether an event is due now. Until the clock moves on, the rates a recomputation would
 * give change nothing: a flow due now ends now at its old rate too, and none can end
 * sooner than now. So the events of one instant run first and one recomputation follows
 * (collectives end many flows at once). */
static bool due_now(const struct sim_net *s)
{
	if (s->timers.n && s->timers.v[0].t == s->now)
		return true;
	return s->done.n && s->flows.v[s->done.v[0]].done == s->now;
}

/* Virtual ns of the next event, SIM_NEVER when none is due. */
static int64_t next_t(const struct sim_net *s)
{
	if (!s->timers.n && !s->done.n)
		return SIM_NEVER;
	return timer_first(s) ? s->timers.v[0].t : s->flows.v[s->done.v[0]].done;
}

/* The refill before the clock moves on: now, or with a quantum not before filled_at +
 * quantum, when the clock stops there unless an event comes first (that event runs at the
 * rates as they are: they never exceed a link, the ended flows' share idles meanwhile). */
static int refill_due(struct sim_net *s)
{
	int64_t at;
	int r;

	if (!s->dirty.n || due_now(s))
		return 0;
	if (s->quantum <= 0 || s->filled_at == INT64_MIN || s->now - s->filled_at >= s->quantum)
		return refill(s);
	r = sim_phys_pending(s); /* the clock moves on at the rates as they are */
	if (r)
		return r;
	at = s->quantum < SIM_NEVER - s->filled_at ? s->filled_at + s->quantum : SIM_NEVER;
	if (next_t(s) <= at)
		return 0;
	s->now = at;
	return refill(s);
}

int sim_next(struct sim_net *s, struct sim_event *ev)
{
	struct sim_timer_item it;
	uint32_t id;
	int r;

	r = refill_due(s);
	if (r)
		return r;
	if (!s->timers.n && !s->done.n)
		return 0;
	s->st.events++;
	if (timer_first(s)) {
		it = timer_pop(s);
		s->now = it.t;
		*ev = (struct sim_event){
			.kind = SIM_EV_TIMER, .t = it.t, .cookie = it.cookie, .flow = UINT32_MAX};
		return 1;
	}
	id = s->done.v[0];
	s->now = s->flows.v[id].done;
	*ev = (struct sim_event){
		.kind = SIM_EV_FLOW_DONE, .t = s->now, .cookie = s->flows.v[id].cookie, .flow = id};
	r = end_flow(s, id);
	return r ? r : 1;
}

/* The share of flow f's bytes that crosses link (settle charges it so). */
static double share_on(const struct sim_flow *f, uint32_t link)
{
	uint32_t h;

	if (!f->w)
		return 1;
	for (h = 0; h < f->hops && f->path[h] != link; h++)
		;
	return h < f->hops ? f->w[h] : 0;
}

double sim_link_bytes(const struct sim_net *s, uint32_t link)
{
	const struct sim_link *l = &s->links.v[link];
	double b = l->bytes;
	size_t k;

	for (k = 0; k < l->flows.n; k++) {
		const struct sim_flow *f = &s->flows.v[l->flows.v[k]];
		double sent = f->rate * (double)(s->now - f->since) / NS / 8;

		b += (sent < f->left ? sent : f->left) * share_on(f, link);
	}
	return b;
}

double sim_flow_rate(const struct sim_net *s, uint32_t id)
{
	return id < s->flows.n && s->flows.v[id].active ? s->flows.v[id].rate : 0;
}
