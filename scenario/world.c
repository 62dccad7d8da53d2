// SPDX-License-Identifier: MIT
/* A scenario loaded once with everything derived from it (world.h): parsed, its topology built,
 * its jobs resolved and fitted, its paths and routing plan made and checked. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/gen.h"
#include "policy/route_rto.h"
#include "scenario/failure.h"
#include "scenario/jobs.h"
#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"
#include "scenario/world.h"

int world_check_variants(const char *path, const struct exp_sweep *s,
			 int (*check)(const struct world *w, const char *path, struct diag *d),
			 struct diag *d)
{
	uint32_t *choice = calloc(s->axes.n + 1, sizeof(*choice)), v;
	struct world w;
	char label[256], msg[sizeof(d->msg)];
	int r = choice ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (v = 1; !r && v < s->variants; v++) {
		exp_sweep_choice(s, v * s->seeds, choice);
		r = world_load(path, (struct world_ask){.choice = choice, .check = check}, &w, d);
		if (r) { /* the location first, as every check message has it */
			exp_sweep_label(s, choice, false, label, sizeof(label));
			snprintf(msg, sizeof(msg), "%s", d->msg);
			diag_clear(d);
			diag_set(d, r, "%s (in sweep variant v%u, %s)", msg, v, label);
		}
		world_done(&w);
	}
	free(choice);
	return r;
}

/* Virtual time runs in paper units: the emulation's scales and shaping do not apply. */
static void for_sim(struct world *w)
{
	struct scenario *s = &w->e.s;
	struct scenario def;
	size_t o = 0;

	scn_init(&def);
	if (s->emulation.rate_scale != 1)
		o += (size_t)snprintf(w->ignored + o, sizeof(w->ignored) - o, "rate_scale, ");
	if (s->emulation.size_scale != 1)
		o += (size_t)snprintf(w->ignored + o, sizeof(w->ignored) - o, "size_scale, ");
	if (s->shaping.qdisc != def.shaping.qdisc ||
	    s->shaping.ack_priority != def.shaping.ack_priority || s->shaping.burst_bytes ||
	    s->shaping.queue_bytes)
		o += (size_t)snprintf(w->ignored + o, sizeof(w->ignored) - o, "shaping, ");
	if (s->emulation.rto_min.mode != SCN_RTO_AUTO)
		o += (size_t)snprintf(w->ignored + o, sizeof(w->ignored) - o, "rto_min, ");
	if (o >= 2 && o < sizeof(w->ignored))
		w->ignored[o - 2] = '\0';
	s->emulation.rate_scale = s->emulation.size_scale = 1;
	scn_done(&def);
}

static int load(const char *path, const uint32_t *choice, bool sim, struct world *w, struct diag *d)
{
	int r;

	memset(w, 0, sizeof(*w));
	r = exp_parse_file_variant(path, choice, &w->e, d);
	if (r) /* a missing, unreadable or oversized file is bad input too */
		return r == -ENOMEM ? r : -EINVAL;
	if (sim)
		for_sim(w);
	r = topo_build(&w->e.s, &w->t, d);
	if (!r && w->e.s.emulation.rate_scale == 0) { /* auto: measure at scale 1, rebuild */
		w->e.s.emulation.rate_scale =
			gen_auto_scale(w->t, w->e.run.capacity_bps, GEN_AUTO_LINK_MAX);
		topo_free(w->t);
		w->t = NULL;
		r = topo_build(&w->e.s, &w->t, d);
	}
	if (r && w->e.s.topology.line && r != -ENOMEM) /* the model's errors are the topology's */
		return diag_wrap(d, -EINVAL, "%s:%u:%u: ", path, w->e.s.topology.line,
				 w->e.s.topology.col);
	if (r)
		return diag_wrap(d, r == -ENOMEM ? r : -EINVAL, "%s: ", path);
	r = fail_plan_check(&w->e, w->t, d); /* names in `failures:`, before anything is built */
	if (!r && exp_has_workload(&w->e))
		r = jobs_resolve(&w->e, &w->jobs, &w->trace_left, d);
	if (!r)
		r = jobs_fit(&w->e, &w->jobs, w->t, &w->trace_left.n[JT_LEFT_OVERSIZE], d);
	if (r)
		return r == -ENOMEM ? r : -EINVAL;
	r = paths_compute(w->t, &w->paths);
	if (r)
		return diag_set(d, r, "computing paths: out of memory");
	r = route_plan_build(w->t, &w->paths, &w->plan, d);
	if (!r && !sim) /* the endpoints' least retransmission timeout, from their queues */
		r = route_rto_fill(w->t, &w->paths, &w->e.s.shaping, &w->e.s.emulation.rto_min,
				   &w->plan, d);
	return r ? r : route_check_optimal(w, d);
}

int world_load(const char *path, struct world_ask ask, struct world *w, struct diag *d)
{
	int r = load(path, ask.choice, ask.sim, w, d);

	if (!r && ask.check)
		r = ask.check(w, path, d);
	return !r && ask.every_variant && w->e.sweep.axes.n
		       ? world_check_variants(path, &w->e.sweep, ask.check, d)
		       : r;
}

void world_done(struct world *w)
{
	vec_free(&w->jobs);
	route_plan_done(&w->plan);
	paths_done(&w->paths);
	topo_free(w->t);
	w->t = NULL;
	exp_done(&w->e);
}
