// SPDX-License-Identifier: MIT
/* Chakra trace jobs in the runner, whatever the backend (run_int.h): the trace read when the
 * job is placed, scaled to the backend (emulated bytes and the dilation's time, or paper units
 * in virtual time); both backends then build the same lowered schedule from it (run_job_ext,
 * coll_sched_build_ext) and report each step's times here, which become ops.csv's rows, the
 * nodes on the job's critical path marked. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/run_int.h"

/* The job's length with nothing shared, every pair on its own link at the slowest NIC's rate
 * (ns), or 0 when it cannot be told. */
static uint64_t alone_ns(const struct run *r, const struct coll_sched *s)
{
	double t = coll_sched_alpha_beta(s, 0, (double)topo_nic_rate_min(r->t));

	return isfinite(t) && t > 0 ? (uint64_t)(t * 1e9) : 0;
}

/* The nodes of the operations on the critical path, every member's. */
static int mark_critical(const struct run *r, struct run_chakra *rc)
{
	const struct chakra_links *l = &rc->c.l;
	uint32_t total = l->base[rc->c.n], g, i;
	uint8_t *on = calloc(l->ninst + l->npairs + 1, 1);
	struct chakra_path p;
	int err = on ? chakra_ideal(&rc->job, 0, (double)topo_nic_rate_min(r->t), &p) : -ENOMEM;

	for (i = 0; !err && i < p.steps.n; i++) {
		if (p.steps.v[i].op.id == UINT32_MAX)
			rc->crit[p.steps.v[i].op.node] = 1;
		else
			on[p.steps.v[i].op.id] = 1;
	}
	for (g = 0; !err && g < total; g++)
		if (l->id[g] != UINT32_MAX && on[l->id[g]])
			rc->crit[g] = 1;
	if (!err)
		chakra_path_done(&p);
	free(on);
	return err;
}

/* The per-node and per-step tables of rc, from its lowered schedule s. */
static int tables(const struct run *r, struct run_chakra *rc, const struct coll_sched *s)
{
	uint32_t total = rc->c.l.base[rc->c.n], g, k;

	rc->step_off = malloc((rc->c.n + 1) * sizeof(*rc->step_off));
	rc->t0 = malloc(((size_t)total + 1) * sizeof(*rc->t0));
	rc->t1 = malloc(((size_t)total + 1) * sizeof(*rc->t1));
	rc->crit = calloc((size_t)total + 1, 1);
	if (!rc->step_off || !rc->t0 || !rc->t1 || !rc->crit)
		return -ENOMEM;
	for (k = 0; k < rc->c.n; k++)
		rc->step_off[k] = s->ranks.v[k].step_off;
	rc->step_off[rc->c.n] = (uint32_t)s->steps.n;
	for (g = 0; g < total; g++)
		rc->t0[g] = rc->t1[g] = REC_NEVER;
	return mark_critical(r, rc);
}

int run_chakra_load(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	const struct scenario *s = &r->e->s;
	struct coll_sched sc = {0};
	int err;

	if (!rj->spec.chakra || rj->chakra)
		return 0;
	rj->chakra = calloc(1, sizeof(*rj->chakra));
	if (!rj->chakra)
		return diag_set(d, -ENOMEM, "out of memory");
	err = jobs_chakra_open(r->e, &rj->spec, s->emulation.size_scale, r->dilation,
			       &rj->chakra->c, &rj->chakra->job, d);
	err = err ? err : chakra_lower(&rj->chakra->job, &sc, &rj->chakra->maps, d);
	if (!err && (err = tables(r, rj->chakra, &sc)))
		diag_set(d, err, "%s", err == -ENOMEM ? "out of memory" : "no critical path");
	if (err) {
		coll_sched_done(&sc);
		run_chakra_done(rj);
		return diag_wrap(d, err, "job %u: ", rj->spec.id);
	}
	rj->bytes = sc.params.bytes;
	if (!r->e->run.progress_ns) /* a generous multiple of the whole trace's length */
		rj->progress_ns = 20 * alone_ns(r, &sc) + 10000000000ULL;
	coll_sched_done(&sc);
	return 0;
}

void run_chakra_step(struct run *r, uint32_t j, uint32_t rank, uint32_t step, int64_t t0,
		     int64_t t1)
{
	struct run_chakra *rc = j < r->njobs ? r->jobs[j].chakra : NULL;
	uint32_t g;

	if (!rc || rank >= rc->c.n || step >= rc->step_off[rank + 1] - rc->step_off[rank])
		return;
	g = rc->maps.step_node[rc->step_off[rank] + step];
	if (t0 != REC_NEVER && (rc->t0[g] == REC_NEVER || t0 < rc->t0[g]))
		rc->t0[g] = t0;
	if (t1 != REC_NEVER && (rc->t1[g] == REC_NEVER || t1 > rc->t1[g]))
		rc->t1[g] = t1;
}

/* Node g's row. */
static struct rec_op op_row(const struct run_job *rj, uint32_t g)
{
	const struct run_chakra *rc = rj->chakra;
	uint32_t k = chakra_links_rank(&rc->c.l, rc->c.n, g);
	const struct chakra_rank *cr = &rc->c.ranks[k];
	const struct chakra_node *n = &cr->nodes.v[g - rc->c.l.base[k]];
	struct rec_op o = {.job = rj->spec.id,
			   .rank = k,
			   .node = n->id,
			   .kind = n->kind,
			   .coll = n->kind == CHAKRA_COLL ? n->coll : CHAKRA_COLLS,
			   .critical = rc->crit[g],
			   .bytes = n->bytes,
			   .t_start = rc->t0[g],
			   .t_end = rc->t1[g]};

	snprintf(o.name, sizeof(o.name), "%s", chakra_str(cr, n->name));
	return o;
}

int run_chakra_end(struct run *r, uint32_t j)
{
	struct run_job *rj = &r->jobs[j];
	uint32_t g, total;
	int err = 0;

	if (!rj->chakra)
		return 0;
	total = rj->chakra->c.l.base[rj->chakra->c.n];
	for (g = 0; !err && g < total; g++)
		if (rj->chakra->t0[g] != REC_NEVER)
			err = vec_push(&r->rec.ops, op_row(rj, g));
	run_chakra_done(rj);
	return err;
}

void run_chakra_done(struct run_job *rj)
{
	struct run_chakra *rc = rj->chakra;

	if (!rc)
		return;
	jobs_chakra_done(&rc->c);
	chakra_maps_done(&rc->maps);
	free(rc->step_off);
	free(rc->t0);
	free(rc->t1);
	free(rc->crit);
	free(rc);
	rj->chakra = NULL;
}
