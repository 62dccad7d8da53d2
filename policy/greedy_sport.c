// SPDX-License-Identifier: MIT
/* Source ports that hash onto a chosen path (greedy_sport.h). */
#include <errno.h>
#include <stddef.h>

#include "policy/greedy_sport.h"
#include "traffic/sport.h"

/* The group where flow a -> b picks its path, NULL if it has no choice to make. 0 or
 * -EINVAL (no route; a wanted member the group does not have). */
static int choice_group(const struct topo *t, const struct route_plan *plan,
			const struct greedy_pair *p, uint32_t a, uint32_t b, uint32_t want,
			const struct route_group **g)
{
	struct route_flow f = route_job_flow(t, p->eps, p->job, a, b);
	int r = route_trace_group(t, plan, t->endpoints.v[p->eps[a]], &f);

	*g = NULL;
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return -EINVAL;
	*g = &plan->groups.v[r];
	return want != GREEDY_ANY && want >= (*g)->nh_n ? -EINVAL : 0;
}

static bool lands(const struct route_group *g, uint32_t want, const struct route_flow *f)
{
	return !g || want == GREEDY_ANY || route_hash_pick(f, g->seed, g->nh_n) == want;
}

int greedy_sport_fits(const struct topo *t, const struct route_plan *plan,
		      const struct greedy_pair *p, uint16_t port)
{
	const struct route_group *up, *down;
	struct route_flow fu, fd;
	int r = choice_group(t, plan, p, p->lo, p->hi, p->want_up, &up);

	r = r ? r : choice_group(t, plan, p, p->hi, p->lo, p->want_down, &down);
	if (r)
		return r;
	fu = route_job_flow_port(t, p->eps, p->job, p->lo, p->hi, port);
	fd = route_job_flow_port(t, p->eps, p->job, p->hi, p->lo, port);
	return lands(up, p->want_up, &fu) && lands(down, p->want_down, &fd);
}

int greedy_sport(const struct topo *t, const struct route_plan *plan, const struct greedy_pair *p,
		 uint16_t *port)
{
	const struct route_group *up, *down;
	uint32_t i, from = (uint32_t)((uint64_t)p->gen * GREEDY_SPORT_STRIDE % FLOW_SPORT_N);
	int r = choice_group(t, plan, p, p->lo, p->hi, p->want_up, &up);

	r = r ? r : choice_group(t, plan, p, p->hi, p->lo, p->want_down, &down);
	if (r)
		return r;
	for (i = 0; i < FLOW_SPORT_N; i++) {
		uint16_t s = flow_sport(p->job, p->lo, p->hi, from + i);
		struct route_flow fu = route_job_flow_port(t, p->eps, p->job, p->lo, p->hi, s);
		struct route_flow fd = route_job_flow_port(t, p->eps, p->job, p->hi, p->lo, s);

		if (lands(up, p->want_up, &fu) && lands(down, p->want_down, &fd)) {
			*port = s;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

/* Whether direction d (0: lo -> hi) of p with source port s leaves through both its ports:
 * 1, 0, or -EINVAL. */
static int via_dir(const struct topo *t, const struct route_plan *plan,
		   const struct greedy_pair_via *p, int d, uint16_t s)
{
	uint32_t a = d ? p->p.hi : p->p.lo, b = d ? p->p.lo : p->p.hi;
	struct route_flow f = route_job_flow_port(t, p->p.eps, p->p.job, a, b, s);
	uint32_t ports[ROUTE_TRACE_MAX], k;
	int hops, i, seen = 0;

	f.tag = p->tag[d];
	hops = route_trace_ports(t, plan, t->endpoints.v[p->p.eps[a]], &f, ports, ROUTE_TRACE_MAX);
	if (hops <= 0)
		return -EINVAL;
	for (k = 0; k < 2; k++) {
		for (i = 0; p->via[d][k] != TOPO_NONE && i < hops && ports[i] != p->via[d][k]; i++)
			;
		seen += p->via[d][k] == TOPO_NONE || i < hops;
	}
	return seen == 2;
}

int greedy_sport_via_fits(const struct topo *t, const struct route_plan *plan,
			  const struct greedy_pair_via *p, uint16_t port)
{
	int up = via_dir(t, plan, p, 0, port), down = up == 1 ? via_dir(t, plan, p, 1, port) : 0;

	return up < 0 ? up : down;
}

int greedy_sport_via(const struct topo *t, const struct route_plan *plan,
		     const struct greedy_pair_via *p, uint16_t *port)
{
	uint32_t i, from = (uint32_t)((uint64_t)p->p.gen * GREEDY_SPORT_STRIDE % FLOW_SPORT_N);
	int r;

	for (i = 0; i < FLOW_SPORT_N; i++) {
		uint16_t s = flow_sport(p->p.job, p->p.lo, p->p.hi, from + i);

		r = greedy_sport_via_fits(t, plan, p, s);
		if (r < 0)
			return r;
		if (r == 1) {
			*port = s;
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}
