// SPDX-License-Identifier: MIT
/* The raw records of a run, written to the results folder (collect/records.h formats):
 * jobs.csv, iterations.csv, flows.csv, links.csv, cpu.csv and tcp.csv as the backend recorded them,
 * topology.json, the scenario as run, and the backend's own files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/md.h"
#include "scenario/input.h"
#include "report/results.h"
#include "run/run_int.h"
#include "scenario/scenario_yaml.h"

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
	j->group = rj->spec.group;
}

/* scenario.yaml: the file as run, after note (a sweep's run says which values it set). */
static int copy_scenario(const struct run *r, const struct wdir *dir, const char *note,
			 struct diag *d)
{
	struct wfile f;
	char *text;
	size_t len;
	int err = input_read(r->e->s.path, SCN_YAML_FILE_MAX, "not a scenario", &text, &len, d);

	err = err ? err : wfile_open(&f, dir, "scenario.yaml", 0, d);
	if (!err && note)
		wfile_write(&f, note, strlen(note));
	if (!err) {
		wfile_write(&f, text, len);
		err = wfile_commit(&f, d);
	}
	free(text);
	return err;
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
static int write_schedules(const struct run *r, const struct wdir *dir, struct diag *d)
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
		err = text ? wdir_write(dir, "schedule.json", text, strlen(text), 0, d)
			   : diag_set(d, -ENOMEM, "out of memory for schedule.json");
	}
	free(text);
	json_decref(j);
	vec_free(&jobs);
	return err;
}

int run_write(struct run *r, const struct wdir *dir, const char *note, struct diag *d)
{
	int err = gather(r);

	if (err)
		return diag_set(d, err, "out of memory for the records of %s", dir->path);
	err = res_records_write(dir, &r->rec, d);
	err = err ? err : copy_scenario(r, dir, note, d);
	err = err ? err : res_write_topology(dir, r->t, &r->e->s.shaping, d);
	err = err ? err : write_schedules(r, dir, d);
	err = err ? err : run_tacos_write(r, dir, d);
	return err || !r->be->write ? err : r->be->write(r, dir, d);
}
