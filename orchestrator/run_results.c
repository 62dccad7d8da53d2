// SPDX-License-Identifier: MIT
/* The raw records of a run, written to the results folder (collect/records.h formats):
 * jobs.csv, iterations.csv, flows.csv, links.csv and cpu.csv as the backend recorded them,
 * topology.json, the scenario as run, and the backend's own files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/md.h"
#include "orchestrator/results.h"
#include "orchestrator/run_int.h"

static void placement(const struct run *r, const struct run_job *rj, char *buf, size_t len)
{
	size_t o = 0;
	uint32_t k;

	buf[0] = '\0';
	for (k = 0; rj->eps && k < rj->spec.gpus; k++) {
		const char *name = r->t->nodes.v[r->t->endpoints.v[rj->eps[k]]].name;

		if (o + strlen(name) + 5 >= len) {
			snprintf(buf + o, len - o, "...");
			return;
		}
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ";" : "", name);
	}
}

static void job_record(const struct run *r, const struct run_job *rj, struct rec_job *j)
{
	memset(j, 0, sizeof(*j));
	j->id = rj->spec.id;
	snprintf(j->model, sizeof(j->model), "%s", rj->spec.model);
	j->gpus = rj->spec.gpus;
	j->kind = rj->spec.kind;
	j->algo = rj->spec.algo;
	j->iterations = rj->spec.iterations;
	j->bytes = rj->bytes;
	j->compute_ns = rj->compute_ns;
	j->arrival = rj->submitted ? rj->arrival : REC_NEVER;
	j->start = rj->start;
	j->finish = rj->finish;
	j->status = rj->status;
	j->verified = r->e->w.verify && rj->verified == rj->spec.gpus && rj->status == REC_OK;
	snprintf(j->reason, sizeof(j->reason), "%s", rj->reason);
	placement(r, rj, j->placement, sizeof(j->placement));
}

static int copy_file(const char *from, const char *dir, const char *name)
{
	char path[600], buf[8192];
	FILE *in = fopen(from, "re"), *out;
	size_t n;
	int r = 0;

	if (!in)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = fopen(path, "we");
	while (out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			r = -EIO;
	if (!out || fclose(out))
		r = -errno;
	fclose(in);
	return r;
}

/* The jobs as records, into r->rec. */
static int gather(struct run *r)
{
	struct rec_job *j;
	uint32_t i;

	r->rec.jobs.n = 0;
	for (i = 0; i < r->njobs; i++) {
		j = vec_grow(&r->rec.jobs);
		if (!j)
			return -ENOMEM;
		job_record(r, &r->jobs[i], j);
	}
	return 0;
}

/* schedule.json: each chunked multi-dimensional job's schedule as its ranks ran it (none
 * without such jobs). */
static int write_schedules(const struct run *r, const char *dir, struct diag *d)
{
	col_md_jobs jobs = {0};
	char *text = NULL;
	json_t *j = NULL;
	uint32_t i;
	int err = 0;

	for (i = 0; !err && i < r->njobs; i++) {
		const struct run_job *rj = &r->jobs[i];
		struct col_md_job x = {rj->spec.id, rj->bytes, rj->spec.md};

		if (rj->spec.algo == COLL_MULTIDIM && vec_push(&jobs, x))
			err = diag_set(d, -ENOMEM, "out of memory");
	}
	if (!err && jobs.n) {
		j = col_md_schedule_json(jobs.v, jobs.n, d);
		text = j ? json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
		err = text ? res_write_file(dir, "schedule.json", text, strlen(text)) : -ENOMEM;
		if (err)
			diag_set(d, err, "writing %s/schedule.json: %s", dir, strerror(-err));
	}
	free(text);
	json_decref(j);
	vec_free(&jobs);
	return err;
}

int run_write(struct run *r, const char *dir, struct diag *d)
{
	int err;

	err = res_mkdirs(dir);
	err = err ? err : gather(r);
	if (err)
		return diag_set(d, err, "writing results to %s: %s", dir, strerror(-err));
	err = res_records_write(dir, &r->rec, d);
	if (err)
		return err;
	err = copy_file(r->e->s.path, dir, "scenario.yaml");
	err = err ? err : res_write_topology(dir, r->t, &r->e->s.shaping);
	if (err)
		return diag_set(d, err, "writing results to %s: %s", dir, strerror(-err));
	err = write_schedules(r, dir, d);
	err = err ? err : run_tacos_write(r, dir, d);
	if (err)
		return err;
	return r->be->write ? r->be->write(r, dir, d) : 0;
}

void run_give_back(const struct run *r, const char *dir)
{
	res_give_back(r->e->run.results, dir);
}
