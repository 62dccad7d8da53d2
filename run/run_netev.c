// SPDX-License-Identifier: MIT
/* failures.csv and its terminal lines, from either backend's network events (see run.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run/run.h"

#define NETEV_LINES 12 /* on the terminal at most, the rest counted */

int run_netev_write(const struct wdir *dir, const struct rec_netev *v, size_t n, struct diag *d)
{
	char line[1024], p[WDIR_PATH_MAX + 32];
	struct wfile f;
	size_t i;
	int err = wfile_open(&f, dir, "failures.csv", 0, d);

	if (err)
		return err;
	wfile_write(&f, REC_NETEV_HEADER "\n", strlen(REC_NETEV_HEADER) + 1);
	for (i = 0; !err && i < n; i++) {
		if (rec_netev_format(line, sizeof(line), &v[i]) >= (int)sizeof(line))
			err = diag_set(d, -EOVERFLOW, "writing %s: row %zu is too long",
				       wdir_join(p, sizeof(p), dir, "failures.csv"), i + 1);
		else
			wfile_write(&f, line, strlen(line)); /* rows end in a newline */
	}
	if (err)
		wfile_abort(&f);
	return err ? err : wfile_commit(&f, d);
}

static void ms(char *buf, size_t len, int64_t ns)
{
	if (ns == REC_NEVER)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
}

char *run_netev_summary(const struct rec_netev *v, size_t n, char *buf, size_t len)
{
	size_t show = n <= NETEV_LINES ? n : NETEV_LINES - 2; /* room for the count */
	char rt[32], pt[32], dk[32];
	size_t i, o = 0;
	int k;

	buf[0] = '\0';
	for (i = 0; i < show; i++) {
		const struct rec_netev *e = &v[i];

		ms(rt, sizeof(rt), e->routes_ns);
		ms(pt, sizeof(pt), e->probe_ns);
		ms(dk, sizeof(dk), e->dark_ns);
		k = snprintf(buf + o, len - o,
			     "%8.3f s  %-6s %-6s %-20s rerouted in %s, probe %s %s (%u/%u)%s%s"
			     "%s%s\n",
			     (double)e->t / 1e9, e->event, e->state, e->target, rt,
			     e->probe[0] ? e->probe : "-", pt, e->probe_answered, e->probe_sent,
			     e->dark_ns != REC_NEVER ? ", dark " : "",
			     e->dark_ns != REC_NEVER ? dk : "", strcmp(e->result, "ok") ? ": " : "",
			     strcmp(e->result, "ok") ? e->result : "");
		if (k < 0 || (size_t)k >= len - o - 64) { /* whole lines only, and the count */
			buf[o] = '\0';
			break;
		}
		o += (size_t)k;
	}
	if (i < n)
		snprintf(buf + o, len - o, "  ... and %zu more (failures.csv)\n", n - i);
	return buf;
}
