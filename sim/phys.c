// SPDX-License-Identifier: MIT
/* The flow model's physics checks (sim/phys.h): no link direction carries more than its
 * capacity, nor anything while it is down, over any interval of virtual time. Rates change
 * only in a refill, which checks every link it reached; flows join and leave links between
 * refills, which the quantum may defer past the clock's next move: those links are checked
 * then. So each interval's rates are checked once, at a cost of a pass over the refilled
 * flows' hops, as the refill's own. */
#include <errno.h>

#include "sim/phys.h"

/* Whether link l carries more than it can: its capacity (0 while down), within SIM_PHYS_TOL
 * of the capacity. An unlimited link never does. */
static bool over(const struct sim_link *l)
{
	double cap = l->up ? l->cap : 0;

	return l->cap > 0 && l->load > cap + SIM_PHYS_TOL * l->cap;
}

static int breach(struct sim_net *s, uint32_t id)
{
	const struct sim_link *l = &s->links.v[id];

	s->breach = (struct sim_breach){
		.link = id, .t = s->now, .load = l->load, .cap = l->up ? l->cap : 0};
	return -EFAULT;
}

/* Flow f's rate added to the load of each link it crosses, each checked as it grows: a load
 * only grows, so one that ends over its bound is over from the addition that puts it there
 * on. Up and within the capacity (almost every time), there is no more to see. Returns the
 * first link over: first, or the first of f's, or UINT32_MAX. Rate and path in locals: a
 * load is a double, which the compiler would otherwise take for f's rate and read that back
 * after each store. */
static uint32_t add(struct sim_net *s, const struct sim_flow *f, uint32_t first)
{
	const uint32_t *p = f->path, n = f->hops;
	const double r = f->rate, *w = f->w;
	struct sim_link *lv = s->links.v, *l;
	uint32_t h;

	for (h = 0; h < n; h++) {
		l = &lv[p[h]];
		l->load += w ? r * w[h] : r;
		if ((!l->up || l->load > l->cap) && first == UINT32_MAX && over(l))
			first = p[h];
	}
	return first;
}

int sim_phys_refilled(struct sim_net *s)
{
	const uint32_t *fl = s->comp_flows.v;
	uint32_t first = UINT32_MAX;
	size_t i;

	if (s->unchecked)
		return 0;
	for (i = 0; i < s->comp_flows.n; i++) /* onto loads gather set to 0: no drift */
		first = add(s, &s->flows.v[fl[i]], first);
	return first == UINT32_MAX ? 0 : breach(s, first); /* its whole load */
}

int sim_phys_pending(struct sim_net *s)
{
	uint32_t id;

	if (s->unchecked)
		s->dirty_checked = s->dirty.n;
	for (; s->dirty_checked < s->dirty.n; s->dirty_checked++) {
		id = s->dirty.v[s->dirty_checked];
		if (over(&s->links.v[id]))
			return breach(s, id);
	}
	return 0;
}
