// SPDX-License-Identifier: MIT
/* Helpers shared by the subcommands (see cmd.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/units.h"
#include "model/gen.h"
#include "cli/cmd.h"
#include "run/emu/emu_find.h"
#include "scenario/scenario_sweep.h"
#include "fabric/fabric.h"
#include "scenario/failure.h"
#include "run/run.h"
#include "scenario/scenario_yaml.h"
#include "policy/route_rto.h"
#include "policy/shape.h"

/* Every variant of a sweep builds and its jobs fit (what `up` refuses before it runs one),
 * with its first seed combination; the error names the variant. */
static int check_variants(const char *path, const struct exp_sweep *s, struct diag *d)
{
	uint32_t *choice = calloc(s->axes.n + 1, sizeof(*choice)), v;
	struct cmd_world w;
	char label[256], msg[sizeof(d->msg)];
	int r = choice ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (v = 1; !r && v < s->variants; v++) {
		exp_sweep_choice(s, v * s->seeds, choice);
		r = cmd_world_load_variant(path, choice, &w, d);
		if (r) { /* the location first, as every check message has it */
			exp_sweep_label(s, choice, false, label, sizeof(label));
			snprintf(msg, sizeof(msg), "%s", d->msg);
			diag_clear(d);
			diag_set(d, r, "%s (in sweep variant v%u, %s)", msg, v, label);
		}
		cmd_world_done(&w);
	}
	free(choice);
	return r;
}

int cmd_world_load(const char *path, struct cmd_world *w, struct diag *d)
{
	int r = cmd_world_load_variant(path, NULL, w, d);

	return !r && w->e.sweep.axes.n ? check_variants(path, &w->e.sweep, d) : r;
}

/* Virtual time runs in paper units: the emulation's scales and shaping do not apply. */
static void for_sim(struct cmd_world *w)
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

static int world_load(const char *path, const uint32_t *choice, bool sim, struct cmd_world *w,
		      struct diag *d)
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
		r = run_resolve_jobs(&w->e, &w->jobs, d);
	if (!r)
		r = run_jobs_fit(&w->e, &w->jobs, w->t, &w->jobs_skipped, d);
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

int cmd_world_load_variant(const char *path, const uint32_t *choice, struct cmd_world *w,
			   struct diag *d)
{
	return world_load(path, choice, false, w, d);
}

int cmd_world_load_sim(const char *path, const uint32_t *choice, struct cmd_world *w,
		       struct diag *d)
{
	return world_load(path, choice, true, w, d);
}

void cmd_world_done(struct cmd_world *w)
{
	vec_free(&w->jobs);
	route_plan_done(&w->plan);
	paths_done(&w->paths);
	topo_free(w->t);
	w->t = NULL;
	exp_done(&w->e);
}

/* Seconds, minutes, hours or days: the scale a user plans a run in. */
static void fmt_wall(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		const char *unit;
		double s;
	} u[] = {{"days", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
	double s = (double)ns / 1e9;
	size_t i;

	for (i = 0; i + 1 < sizeof(u) / sizeof(u[0]) && s < 2 * u[i].s; i++)
		;
	snprintf(buf, len, "%.3g %s", s / u[i].s, u[i].unit);
}

bool cmd_emu_too_long(const struct cmd_world *w, char *buf, size_t len)
{
	/* rates the file asks for beyond what the machine forwards need a further scale f */
	double f = gen_auto_scale(w->t, w->e.run.capacity_bps, GEN_AUTO_LINK_MAX);
	uint64_t ns = run_emu_wall_ns(&w->e, &w->jobs, w->t), max = w->e.run.max_wall_ns;
	double need = (double)ns / f;
	char t[32], m[32];

	if (!max || need <= (double)max) {
		fmt_wall(t, sizeof(t), ns);
		snprintf(buf, len, "at least %s of wall time here (dilation %.4g)", t,
			 scn_dilation(&w->e.s));
		return false;
	}
	fmt_wall(t, sizeof(t), need >= (double)UINT64_MAX ? UINT64_MAX : (uint64_t)need);
	fmt_wall(m, sizeof(m), max);
	snprintf(buf, len,
		 "at least %s of wall time here (at link rates the machine keeps up with, time "
		 "runs %.4gx slower than the papers'), over run.max_wall (%s)",
		 t, scn_dilation(&w->e.s) / f, m);
	return true;
}

/* The fastest link direction of t, bit/s. */
static uint64_t max_rate(const struct topo *t)
{
	uint64_t m = 0;
	size_t l;
	int k;

	for (l = 0; l < t->links.n; l++)
		for (k = 0; k < 2; k++)
			m = t->links.v[l].rate[k] > m ? t->links.v[l].rate[k] : m;
	return m;
}

/* x rounded down to 3 significant digits, so that a printed bound is never over. */
static double floor3(double x)
{
	double p = pow(10, floor(log10(x)) - 2);

	return floor(x / p) * p;
}

bool cmd_emu_rate_over(const struct cmd_world *w, char *buf, size_t len)
{
	uint64_t m = max_rate(w->t);
	double scale = w->e.s.emulation.rate_scale;
	char a[32], b[32];

	if (w->e.s.shaping.qdisc == SCN_QDISC_NONE || m <= SHAPE_MAX_BPS)
		return false;
	snprintf(buf, len,
		 "links at up to %s after emulation.rate_scale %g, beyond the %s the kernel's "
		 "shapers accept (emulation.rate_scale at most %.3g would do)",
		 units_fmt_rate(a, sizeof(a), m), scale,
		 units_fmt_rate(b, sizeof(b), SHAPE_MAX_BPS),
		 floor3(scale * (double)SHAPE_MAX_BPS / (double)m));
	return true;
}

int cmd_fail(const char *cmd, int r, const struct diag *d)
{
	if (d && d->msg[0])
		fprintf(stderr, "testbed %s: %s\n", cmd, d->msg);
	else
		fprintf(stderr, "testbed %s: %s\n", cmd, strerror(-r));
	return r == -EINVAL ? CMD_USAGE : CMD_FAIL;
}

void cmd_emu_path(char *buf, size_t len)
{
	char self[PATH_MAX - 16];
	struct diag d = {0};
	ssize_t n;
	char *slash;

	if (!emu_find(buf, len, &d)) /* beside testbed, or the installed one (emu_find.h) */
		return;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1); /* neither: where it is missed */
	self[n > 0 ? n : 0] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(buf, len, "%s/emu-node", n > 0 ? self : ".");
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int cmd_scenarios_dir(const char *given, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;
	char *slash;
	int k;

	if (given) {
		snprintf(out, len, "%s", given);
		return is_dir(out) ? 0 : -ENOENT;
	}
	snprintf(out, len, "scenarios");
	if (is_dir(out))
		return 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -ENOENT;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	k = snprintf(out, len, "%s/../share/testbed/scenarios", self);
	return k > 0 && (size_t)k < len && is_dir(out) ? 0 : -ENOENT;
}

int cmd_results_refused(struct diag *d)
{
	char why[sizeof(d->msg)];

	snprintf(why, sizeof(why), "%s", d->msg);
	diag_clear(d);
	return diag_set(d, -EINVAL, "results folder: %.900s; give --results DIR", why);
}

int cmd_need_root(const char *cmd)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr,
		"testbed %s: needs root (network namespaces and netlink); run it with sudo\n", cmd);
	return -EPERM;
}

void cmd_said_foreign(const char *cmd, const struct fabric_down_info *in)
{
	if (!in->foreign)
		return;
	fprintf(stderr,
		"testbed %s: left alone %zu namespace%s named like this testbed's that it did not "
		"make (first: %s); 'ip netns delete NAME' removes one if it is yours\n",
		cmd, in->foreign, in->foreign == 1 ? "" : "s", in->first_foreign);
}
