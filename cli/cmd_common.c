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
#include "fabric/fabric.h"
#include "run/emu/run_emu.h"
#include "policy/sched.h"
#include "policy/shape.h"

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

bool cmd_emu_too_long(const struct world *w, char *buf, size_t len)
{
	/* rates the file asks for beyond what the machine forwards need a further scale f */
	double f = gen_auto_scale(w->t, w->e.run.capacity_bps, GEN_AUTO_LINK_MAX);
	uint64_t ns = emu_wall_ns(&w->e, &w->jobs, w->t), max = w->e.run.max_wall_ns;
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

bool cmd_emu_rate_over(const struct world *w, char *buf, size_t len)
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

bool cmd_emu_ship_over(const struct world *w, char *buf, size_t len)
{
	const struct job_spec *j;

	vec_for_each (&w->jobs, j) {
		uint64_t need = ctl_job_len(j->gpus) + j->chakra_ship;

		if (!j->chakra || need <= CTL_MAX_MSG)
			continue;
		snprintf(buf, len,
			 "job %u, a Chakra trace, gives a rank %llu bytes of its schedule, more "
			 "than emulation's control packet of %d takes (about 6,000 steps)",
			 j->id, (unsigned long long)need, CTL_MAX_MSG);
		return true;
	}
	return false;
}

uint32_t cmd_first_channels(const struct world *w)
{
	const struct exp_workload *wl = &w->e.w;
	uint32_t k = wl->jobs.n ? wl->jobs.v[0].channels : 0;

	return k ? k : wl->channels ? wl->channels : 1;
}

uint32_t cmd_lone_alltoall(const struct world *w, uint32_t *eps)
{
	const struct exp_workload *wl = &w->e.w;
	struct sched_cfg cfg = w->e.sched;
	const uint32_t *placed;
	struct diag d = {0};
	struct sched s;
	uint32_t n = 0;

	if (wl->jobs.n != 1 || wl->generate || wl->trace || wl->jobs.v[0].kind != COLL_ALLTOALL)
		return 0;
	cfg.placement_order = wl->rank_order == EXP_RANK_PLACEMENT;
	if (sched_init(&s, w->t, &cfg))
		return 0;
	if (!sched_submit(&s, 0, wl->jobs.v[0].gpus, UINT64_MAX, &d) && !sched_next(&s, &placed) &&
	    placed) {
		n = wl->jobs.v[0].gpus;
		memcpy(eps, placed, n * sizeof(*eps));
	}
	sched_done(&s);
	return n;
}

/* The busiest direction's windows in flight over its queue, for k connections per pair. */
struct inflight {
	double ratio, flows; /* the most loaded direction's (shape_inflight), and its flows */
	uint32_t port, queue;
};

static int inflight_of(const struct world *w, const uint32_t *eps, uint32_t n, uint32_t k,
		       double concurrent, double *load, struct inflight *out)
{
	const struct topo *t = w->t;
	struct shape_params sp;
	struct diag d = {0};
	double r;
	uint32_t p;
	int err;

	*out = (struct inflight){0};
	err = route_alltoall_conn_loads(t, &w->plan, eps, n, 0, k, load);
	for (p = 0; !err && p < t->ports.n; p++) {
		if (!load[p] ||
		    shape_derive(topo_port_rate(t, p), t->links.v[t->ports.v[p].link].delay_ns,
				 &w->e.s.shaping, &sp, &d) ||
		    sp.kind == SHAPE_NONE)
			continue;
		r = shape_inflight(load[p] * k, concurrent, w->e.s.transport.window_bytes,
				   sp.limit);
		if (r > out->ratio)
			*out = (struct inflight){r, load[p] * k, p, sp.limit};
	}
	return err;
}

/* What x's ratio means, after say_inflight's description: within (report only), past 1x (the
 * queue drops: fit, the most channels that keep within it), or past SHAPE_INFLIGHT_MAX (fit,
 * the most that keep within that; with none, the queue that would). */
static void say_verdict(const struct inflight *x, uint32_t fit, char *buf, size_t len)
{
	const char *drops = "; past 1x the queue drops and, with windows of a segment or two, "
			    "each loss waits for a retransmission timeout",
		   *stalls = "; past 1x the queue drops, and past %.0fx the losses and the "
			     "retransmission timeouts they wait for cut the throughput by a third "
			     "or stall a rank";
	enum shape_inflight_level lv = shape_inflight_level(x->ratio);
	char nq[32], refuses[40] = "";
	int m;

	if (lv == SHAPE_INFLIGHT_HELD) {
		snprintf(buf, len, " (`up` warns past 1x and refuses past %.0fx)",
			 SHAPE_INFLIGHT_MAX);
		return;
	}
	if (lv == SHAPE_INFLIGHT_DROPS)
		snprintf(refuses, sizeof(refuses), " (`up` refuses past %.0fx)",
			 SHAPE_INFLIGHT_MAX);
	m = lv == SHAPE_INFLIGHT_DROPS ? snprintf(buf, len, "%s", drops)
				       : snprintf(buf, len, stalls, SHAPE_INFLIGHT_MAX);
	if (m < 0 || (size_t)m >= len)
		return;
	if (fit)
		snprintf(buf + m, len - (size_t)m,
			 "; deeper queues did not make up for it (measured: docs/scenario.md, "
			 "transport.window): workload.channels %u keeps within it%s",
			 fit, refuses);
	else
		snprintf(buf + m, len - (size_t)m,
			 " (measured: docs/scenario.md, transport.window): a smaller "
			 "transport.window, or shaping.queue of at least %s, keeps within it%s",
			 units_fmt_size(nq, sizeof(nq), (uint64_t)ceil(x->ratio * x->queue)),
			 refuses);
}

static void say_inflight(const struct world *w, const struct inflight *x, uint32_t k, uint32_t fit,
			 char *buf, size_t len)
{
	const struct topo *t = w->t;
	const struct topo_port *p = &t->ports.v[x->port];
	char win[32], q[32];
	int m;

	units_fmt_size(win, sizeof(win), w->e.s.transport.window_bytes);
	units_fmt_size(q, sizeof(q), x->queue);
	m = snprintf(buf, len,
		     "with transport.window %s and %u connection%s per pair, the all-to-all's %.0f "
		     "connections over %s -> %s keep up to %.2fx its queue of %s in flight",
		     win, k, k > 1 ? "s" : "", x->flows, t->nodes.v[p->node].name,
		     t->nodes.v[topo_port_peer_node(t, x->port)].name, x->ratio, q);
	if (m >= 0 && (size_t)m < len)
		say_verdict(x, fit, buf + m, len - (size_t)m);
}

/* Puts "LINE:COL: " of the channels field the count came from (the job's, else the
 * workload's) before buf's message, when the file gives one. */
static void at_channels(const struct world *w, char *buf, size_t len)
{
	const struct exp_workload *wl = &w->e.w;
	uint32_t line = wl->channels ? wl->chan_line : 0, col = wl->chan_col;
	char tmp[768];

	if (wl->jobs.n && wl->jobs.v[0].channels) {
		line = wl->jobs.v[0].chan_line;
		col = wl->jobs.v[0].chan_col;
	}
	if (!line)
		return;
	snprintf(tmp, sizeof(tmp), "%u:%u: workload.channels: %s", line, col, buf);
	snprintf(buf, len, "%s", tmp);
}

/* The lone all-to-all's windows in flight against its queues (false when the check does not
 * apply): its busiest direction x with its k channels and, past 1x, the most channels below k
 * whose windows its queues hold (0: none). */
static bool window_of(const struct world *w, struct inflight *x, uint32_t *k, uint32_t *fit)
{
	uint32_t *eps = calloc(w->t->endpoints.n + 1, sizeof(*eps)), n, c;
	double *load = calloc(w->t->ports.n + 1, sizeof(*load)), conc = 0;
	struct inflight y;
	bool ok = false;

	*k = cmd_first_channels(w);
	*fit = 0;
	n = eps && load && w->e.s.transport.window_bytes ? cmd_lone_alltoall(w, eps) : 0;
	if (n >= 2 && w->jobs.n)
		conc = coll_a2a_concurrent(w->jobs.v[0].algo, w->jobs.v[0].gpus,
					   w->jobs.v[0].group);
	if (conc > 0 && !inflight_of(w, eps, n, *k, conc, load, x)) {
		ok = true;
		for (c = *k - 1; x->ratio > 1 && c >= 1 && !*fit; c--)
			if (!inflight_of(w, eps, n, c, conc, load, &y) && y.ratio <= 1)
				*fit = c;
	}
	free(eps);
	free(load);
	return ok;
}

bool cmd_emu_window_over(const struct world *w, bool report, char *buf, size_t len)
{
	struct inflight x = {0};
	uint32_t k, fit;
	bool over = false;

	if (len)
		buf[0] = '\0';
	if (!window_of(w, &x, &k, &fit))
		return false;
	over = shape_inflight_level(x.ratio) == SHAPE_INFLIGHT_OVER;
	if (over || report)
		say_inflight(w, &x, k, fit, buf, len);
	if (over && !report)
		at_channels(w, buf, len);
	return over;
}

bool cmd_emu_window_full(const struct world *w, char *buf, size_t len)
{
	struct inflight x = {0};
	uint32_t k, fit;

	if (len)
		buf[0] = '\0';
	if (!window_of(w, &x, &k, &fit) || shape_inflight_level(x.ratio) != SHAPE_INFLIGHT_DROPS)
		return false;
	say_inflight(w, &x, k, fit, buf, len);
	at_channels(w, buf, len);
	return true;
}

const char *cmd_at_sep(const char *msg)
{
	return msg[0] >= '0' && msg[0] <= '9' ? ":" : ": ";
}

int cmd_up_refuses(const struct world *w, const char *path, struct diag *d)
{
	char why[768];

	if (w->jobs.n && cmd_emu_too_long(w, why, sizeof(why)))
		return diag_set(d, -EINVAL,
				"%s: emulating its %zu jobs takes %s; run it in virtual time: "
				"testbed sim %s",
				path, w->jobs.n, why, path);
	if (cmd_emu_ship_over(w, why, sizeof(why)))
		return diag_set(d, -EINVAL, "%s: %s; run it in virtual time: testbed sim %s", path,
				why, path);
	if (cmd_emu_window_over(w, false, why, sizeof(why)))
		return diag_set(d, -EINVAL, "%s%s%s", path, cmd_at_sep(why), why);
	if (cmd_emu_rate_over(w, why, sizeof(why)))
		return diag_set(d, -EINVAL,
				"%s: %s; lower it, or run the file in virtual time: testbed sim %s",
				path, why, path);
	return 0;
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

void cmd_trace_left(FILE *f, const char *lead, const struct job_trace_left *l, bool fields)
{
	const char *field;
	char line[512];
	int k;

	for (k = 0; k < JT_LEFT_N; k++) {
		if (!l->n[k])
			continue;
		job_trace_left_line(line, sizeof(line), l, k);
		field = job_trace_left_why[k].field;
		fprintf(f, "%s%s%s%s%s\n", lead, line, fields && *field ? " (" : "",
			fields ? field : "", fields && *field ? ")" : "");
	}
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

/* The text into path (over a file of ours or yours, never through a link: wdir.h), or to
 * standard output if path is NULL. 0, or -errno with d set. */
int cmd_write_out(const char *path, const char *text, size_t len, struct diag *d)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char folder[WDIR_PATH_MAX];
	struct wdir dir;
	int r;

	if (!path) {
		r = fwrite(text, 1, len, stdout) == len && !fflush(stdout) ? 0
		    : errno && errno != EINVAL				   ? -errno
									   : -EIO;
		return r ? diag_set(d, r, "writing standard output: %s", strerror(-r)) : 0;
	}
	snprintf(folder, sizeof(folder), "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
		 slash ? path : ".");
	r = wdir_open(&dir, folder, WDIR_GIVE, d);
	r = r ? r : wdir_write(&dir, slash ? slash + 1 : path, text, len, WDIR_REPLACE, d);
	wdir_close(&dir);
	return r;
}
