// SPDX-License-Identifier: MIT
/* What `check` and `schedule` print of a Chakra trace's job (cmd.h): the graph its files make
 * and its critical path with nothing shared. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "lib/units.h"
#include "scenario/jobs.h"

/* The node kinds and collectives of st with a count, as "144 COMP_NODE, 88 COMM_COLL_NODE". */
static void kinds(char *buf, size_t len, const struct chakra_stats *st, bool colls)
{
	size_t o = 0, k, n = colls ? CHAKRA_COLLS : CHAKRA_KINDS;

	buf[0] = '\0';
	for (k = 0; k < n && o < len; k++) {
		uint64_t c = colls ? st->colls[k] : st->nodes[k];

		if (c)
			o += (size_t)snprintf(buf + o, len - o, "%s%" PRIu64 " %s", o ? ", " : "",
					      c,
					      colls ? chakra_coll_name((enum chakra_coll)k)
						    : chakra_kind_name((enum chakra_kind)k));
	}
}

int cmd_chakra_path(FILE *f, const struct chakra_job *cj, double alpha, double bps, struct diag *d)
{
	struct chakra_path p;
	size_t i, comm = 0;
	int err = chakra_ideal(cj, alpha, bps, &p);

	if (err)
		return diag_set(d, err, "the trace's critical path: %s",
				err == -EINVAL ? "a collective its algorithm cannot build"
					       : strerror(-err));
	for (i = 0; i < p.steps.n; i++)
		comm += p.steps.v[i].op.kind == CHAKRA_COLL || p.steps.v[i].op.kind == CHAKRA_SEND;
	fprintf(f, "%.6g s with nothing shared: %zu operations (%zu of them communication)\n",
		(double)p.end_ns * 1e-9, p.steps.n, comm);
	chakra_path_done(&p);
	return 0;
}

int cmd_chakra_print(FILE *f, const struct world *w, const struct job_spec *j, struct diag *d)
{
	double scale = w->e.s.emulation.rate_scale > 0 ? w->e.s.emulation.rate_scale : 1.0;
	char nodes[512], colls[512], b1[32], b2[32];
	struct jobs_chakra c;
	struct chakra_job cj;
	uint64_t total = 0;
	size_t k;
	int err = jobs_chakra_read(&w->e, j->chakra, &c, d);

	for (k = 0; !err && k < CHAKRA_KINDS; k++)
		total += c.st.nodes[k];
	if (!err) {
		kinds(nodes, sizeof(nodes), &c.st, false);
		kinds(colls, sizeof(colls), &c.st, true);
		fprintf(f,
			"chakra     job %u: %s, %zu ranks, %" PRIu64 " nodes (%s), %" PRIu64
			" dependencies\n",
			j->id, w->e.w.chakra_job[j->chakra - 1], c.n, total, nodes, c.st.deps);
		fprintf(f,
			"           collective nodes %s%s%s of %s, %" PRIu64
			" send/receive pairs of %s\n",
			colls[0] ? "(" : "", colls, colls[0] ? ")" : "none",
			units_fmt_size(b1, sizeof(b1), c.st.coll_bytes), c.st.pairs,
			units_fmt_size(b2, sizeof(b2), c.st.p2p_bytes));
		fprintf(f, "           critical path ");
		jobs_chakra_job(&w->e, j, &c, 1.0, 1.0, &cj);
		err = cmd_chakra_path(f, &cj, 0, (double)topo_nic_rate_min(w->t) / scale, d);
	}
	jobs_chakra_done(&c);
	return err;
}
