// SPDX-License-Identifier: MIT
/* A Chakra trace's job (jobs.h): its ranks' files read, checked as one job and linked, and the
 * job as a backend runs it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/input.h"
#include "scenario/jobs.h"

/* Rank k's file of prefix into c (its name kept): 0, -ENOENT (d untouched) when k > 0 and it
 * does not exist, or -errno with d set. */
static int read_rank(const char *prefix, uint32_t k, struct jobs_chakra *c, struct diag *d)
{
	struct diag probe = {0};
	char *path = NULL, *text = NULL;
	size_t len = 0;
	int r;

	if (asprintf(&path, "%s.%u.et", prefix, k) < 0)
		return diag_set(d, -ENOMEM, "out of memory");
	r = input_read(path, JOBS_CHAKRA_MAX, "not a Chakra trace", &text, &len, &probe);
	if (r == -ENOENT && k > 0) {
		free(path);
		return r;
	}
	if (r) {
		free(path);
		return diag_set(d, r, "%s", probe.msg);
	}
	c->files[k] = path;
	c->n = k + 1;
	r = chakra_read((const uint8_t *)text, len, path, &c->ranks[k], d);
	free(text);
	return r;
}

int jobs_chakra_read(const struct experiment *e, uint32_t which, struct jobs_chakra *c,
		     struct diag *d)
{
	const char *prefix = which && which <= e->w.chakra_job_n ? e->w.chakra_job[which - 1] : "";
	uint32_t k;
	int r = 0;

	memset(c, 0, sizeof(*c));
	c->ranks = calloc(COLL_MAX_RANKS, sizeof(*c->ranks));
	c->files = calloc(COLL_MAX_RANKS, sizeof(*c->files));
	if (!c->ranks || !c->files)
		return diag_set(d, -ENOMEM, "out of memory");
	for (k = 0; !r && k < COLL_MAX_RANKS; k++)
		r = read_rank(prefix, k, c, d);
	if (r == -ENOENT)
		r = 0;
	else if (!r)
		r = diag_set(d, -EINVAL, "%s: more than %u ranks", prefix, COLL_MAX_RANKS);
	r = r ? r : chakra_check(c->ranks, c->n, (const char *const *)c->files, &c->st, &c->l, d);
	c->linked = !r;
	return r;
}

void jobs_chakra_done(struct jobs_chakra *c)
{
	size_t k;

	for (k = 0; c->ranks && k < c->n; k++)
		chakra_rank_done(&c->ranks[k]);
	for (k = 0; c->files && k < c->n; k++)
		free(c->files[k]);
	if (c->linked)
		chakra_links_done(&c->l);
	free(c->ranks);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

void jobs_chakra_job(const struct experiment *e, const struct job_spec *j,
		     const struct jobs_chakra *c, double size_mul, double time_mul,
		     struct chakra_job *out)
{
	*out = (struct chakra_job){.ranks = c->ranks,
				   .n = c->n,
				   .l = &c->l,
				   .size_mul = size_mul,
				   .time_mul = time_mul,
				   .flops = e->w.chakra_flops,
				   .regions = e->w.verify};
	out->coll = job_coll(j, 0);
	out->coll.algo = j->chakra_algo;
	out->coll.elem = j->elem ? j->elem : 4;
}

/* The most bytes of s (and its regions in m) one rank gets: its steps, their dependencies
 * and its regions with their members (emu-node/ctl.h lays them out so). */
static uint64_t ship_bytes(const struct coll_sched *s, const struct chakra_maps *m)
{
	uint64_t most = 0, b, members;
	uint32_t k, i;

	for (k = 0; k < s->params.nranks; k++) {
		members = 0;
		for (i = m->region_off ? m->region_off[k] : 0;
		     m->region_off && i < m->region_off[k + 1]; i++)
			members += m->regions.v[i].nmembers;
		b = (uint64_t)s->ranks.v[k].step_n * sizeof(struct coll_step) +
		    (uint64_t)coll_sched_rank_deps(s, k) * sizeof(uint32_t) + 8 +
		    (m->region_off ? m->region_off[k + 1] - m->region_off[k] : 0) *
			    sizeof(struct chakra_region) +
		    members * sizeof(struct chakra_member);
		most = b > most ? b : most;
	}
	return most;
}

int jobs_chakra_open(const struct experiment *e, const struct job_spec *j, double size_mul,
		     double time_mul, struct jobs_chakra *c, struct chakra_job *out, struct diag *d)
{
	int r = jobs_chakra_read(e, j->chakra, c, d);

	jobs_chakra_job(e, j, c, size_mul, time_mul, out);
	return r;
}

int jobs_chakra_spec(const struct experiment *e, struct job_spec *j, uint32_t gpus, struct diag *d)
{
	struct jobs_chakra c;
	struct chakra_job cj;
	struct chakra_maps m;
	struct chakra_path p;
	struct coll_sched s;
	int r = jobs_chakra_read(e, j->chakra, &c, d);

	if (!r && gpus && gpus != c.n)
		r = diag_set(d, -EINVAL, "gpus: %u, but the trace has %zu ranks (.0.et to .%zu.et)",
			     gpus, c.n, c.n - 1);
	j->gpus = (uint32_t)c.n;
	jobs_chakra_job(e, j, &c, 1.0, 1.0, &cj);
	r = r ? r : chakra_lower(&cj, &s, &m, d);
	if (!r) {
		j->bytes = s.params.bytes;
		j->chakra_ship = ship_bytes(&s, &m);
		chakra_maps_done(&m);
		coll_sched_done(&s);
	}
	if (!r && !chakra_ideal(&cj, 0, INFINITY, &p)) { /* computes only */
		j->chakra_ns = p.end_ns;
		chakra_path_done(&p);
	}
	jobs_chakra_done(&c);
	return r;
}
