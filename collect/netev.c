// SPDX-License-Identifier: MIT
/* failures.csv rows (see netev.h). */
#include <errno.h>
#include <string.h>

#include "collect/csv.h"
#include "collect/netev.h"

int rec_netev_format(char *buf, size_t len, const struct rec_netev *e)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_time(&w, e->t);
	col_csv_str(&w, e->event, sizeof(e->event));
	col_csv_str(&w, e->state, sizeof(e->state));
	col_csv_str(&w, e->target, sizeof(e->target));
	col_csv_time(&w, e->routes_ns);
	col_csv_time(&w, e->probe_ns);
	col_csv_str(&w, e->probe, sizeof(e->probe));
	col_csv_u64(&w, e->probe_answered);
	col_csv_u64(&w, e->probe_sent);
	col_csv_time(&w, e->dark_ns);
	col_csv_u64(&w, e->nodes);
	col_csv_u64(&w, e->route_ops);
	col_csv_u64(&w, e->nft_ops);
	col_csv_time(&w, e->plan_ns);
	col_csv_time(&w, e->apply_ns);
	col_csv_str(&w, e->result, sizeof(e->result));
	return col_csv_w_end(&w);
}

int rec_netev_parse(const char *line, struct rec_netev *out)
{
	struct col_csv_r r;
	struct rec_netev e;

	memset(&e, 0, sizeof(e));
	col_csv_r_init(&r, line);
	e.t = col_csv_get_time(&r);
	col_csv_get_str(&r, e.event, sizeof(e.event));
	col_csv_get_str(&r, e.state, sizeof(e.state));
	col_csv_get_str(&r, e.target, sizeof(e.target));
	e.routes_ns = col_csv_get_time(&r);
	e.probe_ns = col_csv_get_time(&r);
	col_csv_get_str(&r, e.probe, sizeof(e.probe));
	e.probe_answered = col_csv_get_u32(&r);
	e.probe_sent = col_csv_get_u32(&r);
	e.dark_ns = col_csv_get_time(&r);
	e.nodes = col_csv_get_u32(&r);
	e.route_ops = col_csv_get_u32(&r);
	e.nft_ops = col_csv_get_u32(&r);
	e.plan_ns = col_csv_get_time(&r);
	e.apply_ns = col_csv_get_time(&r);
	col_csv_get_str(&r, e.result, sizeof(e.result));
	if (col_csv_r_end(&r))
		return -EINVAL;
	*out = e;
	return 0;
}
