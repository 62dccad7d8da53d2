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
