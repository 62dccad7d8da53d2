// SPDX-License-Identifier: MIT
/* The raw records of a run, written to the results folder (collect/records.h formats):
 * jobs.csv, iterations.csv, flows.csv (each sender's record joined with its receiver's),
 * and the scenario as run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orchestrator/run_int.h"

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char path[512];
	char *p;

	snprintf(path, sizeof(path), "%s", dir);
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

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

static int cmp_flow(const void *a, const void *b)
{
	const struct run_flow *x = a, *y = b;
	uint32_t kx[5] = {x->job, x->f.iter, x->f.src, x->f.dst, x->f.seq};
	uint32_t ky[5] = {y->job, y->f.iter, y->f.src, y->f.dst, y->f.seq};
	int i;

	for (i = 0; i < 5; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return x->f.dir == y->f.dir ? 0 : (x->f.dir == COLL_SEND ? -1 : 1);
}

static bool same_flow(const struct run_flow *a, const struct run_flow *b)
{
	return a->job == b->job && a->f.iter == b->f.iter && a->f.src == b->f.src &&
	       a->f.dst == b->f.dst && a->f.seq == b->f.seq;
}

/* Sorted by flow with the SEND first, a flow is a SEND followed by its RECV. */
static void join_flows(struct run *r)
{
	size_t i;

	qsort(r->raw.v, r->raw.n, sizeof(*r->raw.v), cmp_flow);
	for (i = 0; i + 1 < r->raw.n; i++) {
		const struct run_flow *s = &r->raw.v[i], *v = &r->raw.v[i + 1];
		const struct run_job *rj = &r->jobs[s->job];
		struct rec_flow f;

		if (s->f.dir != COLL_SEND || v->f.dir != COLL_RECV || !same_flow(s, v) || !rj->eps)
			continue;
		f = (struct rec_flow){s->job,
				      s->f.iter,
				      s->f.src,
				      s->f.dst,
				      r->t->endpoints.v[rj->eps[s->f.src]],
				      r->t->endpoints.v[rj->eps[s->f.dst]],
				      s->f.seq,
				      s->f.phase,
				      s->f.bytes,
				      (int64_t)s->f.t_start - r->t0,
				      (int64_t)v->f.t_end - r->t0,
				      s->f.tag};
		if (vec_push(&r->rec.flows, f))
			return;
		i++;
	}
}

typedef int (*csv_fn)(char *buf, size_t len, const void *rec);

static int job_line(char *b, size_t l, const void *p)
{
	return rec_job_csv(b, l, p);
}

static int iter_line(char *b, size_t l, const void *p)
{
	return rec_iter_csv(b, l, p);
}

static int flow_line(char *b, size_t l, const void *p)
{
	return rec_flow_csv(b, l, p);
}

static int write_csv(const char *dir, const char *file, const char *header, const void *recs,
		     size_t n, size_t size, csv_fn fn)
{
	char path[600], line[2048];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "we");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", header);
	for (i = 0; i < n; i++) {
		fn(line, sizeof(line), (const char *)recs + i * size);
		fputs(line, f);
	}
	return fclose(f) ? -errno : 0;
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

/* Under sudo, the results belong to the user who asked for them: the run's folder, its
 * files, and the folders above it up to the results root. */
static void give_back(const char *root, const char *dir)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char path[512];
	struct dirent *e;
	char *slash;
	DIR *dd;

	if (!u || !g || atoi(u) <= 0)
		return;
	dd = opendir(dir);
	while (dd && (e = readdir(dd)))
		if (e->d_name[0] != '.')
			(void)fchownat(dirfd(dd), e->d_name, (uid_t)atoi(u), (gid_t)atoi(g), 0);
	if (dd)
		closedir(dd);
	snprintf(path, sizeof(path), "%s", dir);
	do {
		(void)chown(path, (uid_t)atoi(u), (gid_t)atoi(g));
		slash = strrchr(path, '/');
		if (slash)
			*slash = '\0';
	} while (slash && strlen(path) >= strlen(root));
}

int run_write(struct run *r, const char *dir, struct diag *d)
{
	struct rec_job *jobs = calloc(r->njobs + 1, sizeof(*jobs));
	uint32_t j;
	int err;

	if (!jobs)
		return diag_set(d, -ENOMEM, "out of memory");
	err = make_dirs(dir);
	for (j = 0; j < r->njobs; j++)
		job_record(r, &r->jobs[j], &jobs[j]);
	join_flows(r);
	if (!err)
		err = write_csv(dir, "jobs.csv", rec_job_header, jobs, r->njobs, sizeof(*jobs),
				job_line);
	if (!err)
		err = write_csv(dir, "iterations.csv", rec_iter_header, r->rec.iters.v,
				r->rec.iters.n, sizeof(*r->rec.iters.v), iter_line);
	if (!err)
		err = write_csv(dir, "flows.csv", rec_flow_header, r->rec.flows.v, r->rec.flows.n,
				sizeof(*r->rec.flows.v), flow_line);
	if (!err)
		err = copy_file(r->e->s.path, dir, "scenario.yaml");
	free(jobs);
	if (err)
		return diag_set(d, err, "writing results to %s: %s", dir, strerror(-err));
	give_back(r->e->run.results, dir);
	return 0;
}
