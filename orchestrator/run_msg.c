// SPDX-License-Identifier: MIT
/* The runner's side of the control protocol (emu-node/ctl.h): job starts, records, job
 * ends, failures and lost emu-nodes. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "orchestrator/emu_spawn.h"
#include "orchestrator/run_int.h"
#include "orchestrator/run_net.h"

static int64_t rel(const struct run *r, uint64_t mono)
{
	return (int64_t)mono - r->t0;
}

static const char *node_name(const struct run *r, uint32_t ep)
{
	return r->t->nodes.v[r->t->endpoints.v[ep]].name;
}

static struct ctl_job *job_msg(const struct run *r, const struct run_job *rj)
{
	uint32_t n = rj->spec.gpus, k, len = ctl_job_len(n);
	struct ctl_job *m = calloc(1, len);
	struct timespec ts;

	if (!m)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	m->h = (struct ctl_hdr){CTL_JOB, CTL_VERSION, len};
	m->job = rj->spec.id;
	m->coll = (struct coll_params){.kind = rj->spec.kind,
				       .algo = rj->spec.algo,
				       .nranks = n,
				       .bytes = rj->bytes,
				       .elem = rj->spec.elem ? rj->spec.elem : 4,
				       .group = rj->spec.group};
	m->iterations = rj->spec.iterations;
	m->verify = r->e->w.verify;
	m->compute_ns = rj->compute_ns;
	/* every rank starts together, once its connections had time to come up */
	m->start_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + 100000000ULL +
		      2000000ULL * n;
	m->progress_ns = rj->progress_ns;
	for (k = 0; k < n; k++)
		m->peers[k].addr = r->t->nodes.v[r->t->endpoints.v[rj->eps[k]]].addr;
	return m;
}

static int start_job(struct run *r, uint32_t j, const uint32_t *eps, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	struct ctl_job *m;
	uint32_t k;
	int err = 0;

	rj->eps = malloc(rj->spec.gpus * sizeof(*eps));
	if (!rj->eps)
		return diag_set(d, -ENOMEM, "out of memory");
	memcpy(rj->eps, eps, rj->spec.gpus * sizeof(*eps));
	rj->start = rj->last_progress = run_now(r);
	rj->running = true;
	m = job_msg(r, rj);
	if (!m)
		return diag_set(d, -ENOMEM, "out of memory");
	for (k = 0; k < rj->spec.gpus; k++) {
		struct run_node *n = &r->nodes[eps[k]];

		m->rank = k;
		n->job = (int32_t)j;
		n->rank = k;
		if (n->fd < 0 || emu_send(n->fd, m, m->h.len))
			err = -EPIPE;
	}
	free(m);
	if (err)
		run_fail_job(r, j, "could not hand the job to every emu-node");
	return 0;
}

int run_start_jobs(struct run *r, struct diag *d)
{
	const uint32_t *eps;
	int j, err = 0;

	while (!err && !r->stopping && (j = sched_next(&r->sched, &eps)) >= 0)
		err = start_job(r, (uint32_t)j, eps, d);
	return err;
}

void run_end_job(struct run *r, uint32_t j, enum rec_status st, const char *why)
{
	struct run_job *rj = &r->jobs[j];
	uint32_t k;

	if (!rj->running)
		return;
	rj->running = false;
	rj->finish = run_now(r);
	if (rj->status == REC_NOT_STARTED)
		rj->status = st;
	if (why && !rj->reason[0])
		snprintf(rj->reason, sizeof(rj->reason), "%s", why);
	for (k = 0; k < rj->spec.gpus; k++)
		if (r->nodes[rj->eps[k]].job == (int32_t)j)
			r->nodes[rj->eps[k]].job = -1;
	sched_finish(&r->sched, j);
	r->finished++;
}

void run_fail_job(struct run *r, uint32_t j, const char *fmt, ...)
{
	struct run_job *rj = &r->jobs[j];
	struct ctl_abort a = {{CTL_ABORT, CTL_VERSION, sizeof(a)}, j};
	va_list ap;
	uint32_t k;

	if (!rj->running || rj->aborting)
		return;
	va_start(ap, fmt);
	vsnprintf(rj->reason, sizeof(rj->reason), fmt, ap);
	va_end(ap);
	rj->status = r->stopping ? REC_CANCELLED : REC_FAILED;
	rj->aborting = true;
	rj->last_progress = run_now(r); /* the abort deadline counts from here */
	for (k = 0; k < rj->spec.gpus; k++) {
		struct run_node *n = &r->nodes[rj->eps[k]];

		if (n->job == (int32_t)j && n->fd >= 0)
			(void)emu_send(n->fd, &a, sizeof(a));
	}
}

static void on_done(struct run *r, uint32_t ep, const struct ctl_done *m)
{
	struct run_node *n = &r->nodes[ep];
	struct run_job *rj;
	char why[128], links[160];

	if (m->job >= r->njobs || n->job != (int32_t)m->job)
		return; /* a late answer to an abort of a job already ended */
	rj = &r->jobs[m->job];
	n->job = -1;
	rj->done++;
	rj->verified += m->verified;
	rj->last_progress = run_now(r);
	if (m->status && m->status != -ECANCELED)
		run_fail_job(r, m->job, "%s%s (rank %u): %.*s",
			     run_job_why(r, m->job, rj->last_progress - (int64_t)rj->progress_ns,
					 why, sizeof(why), links, sizeof(links)),
			     node_name(r, ep), m->rank, (int)sizeof(m->reason), m->reason);
	if (rj->done == rj->spec.gpus)
		run_end_job(r, m->job, REC_OK, NULL);
}

static int on_flows(struct run *r, const struct ctl_rec_flows *m, size_t len)
{
	uint32_t i;

	if (len < sizeof(*m) || m->n > CTL_FLOWS_MAX ||
	    len < sizeof(*m) + m->n * sizeof(m->flows[0]))
		return -EPROTO;
	for (i = 0; i < m->n; i++) {
		struct run_flow f = {m->job, m->rank, m->flows[i]};

		if (vec_push(&r->raw, f))
			return -ENOMEM;
	}
	if (m->job < r->njobs)
		r->jobs[m->job].last_progress = run_now(r);
	return 0;
}

static int on_iter(struct run *r, const struct ctl_rec_iter *m)
{
	struct rec_iter it = {
		m->job,		 m->rank, m->iter, rel(r, m->t_start), rel(r, m->t_compute_end),
		rel(r, m->t_end)};

	if (m->job < r->njobs)
		r->jobs[m->job].last_progress = run_now(r);
	return vec_push(&r->rec.iters, it);
}

static int dispatch(struct run *r, uint32_t ep, const void *buf, size_t len)
{
	const struct ctl_hdr *h = buf;

	switch (h->type) {
	case CTL_READY:
		r->nodes[ep].ready = true;
		return 0;
	case CTL_REC_FLOWS:
		return on_flows(r, buf, len);
	case CTL_REC_ITER:
		return len < sizeof(struct ctl_rec_iter) ? -EPROTO : on_iter(r, buf);
	case CTL_DONE:
		if (len < sizeof(struct ctl_done))
			return -EPROTO;
		on_done(r, ep, buf);
		return 0;
	case CTL_ERROR:
		run_node_lost(r, ep,
			      len >= sizeof(struct ctl_error)
				      ? ((const struct ctl_error *)buf)->reason
				      : "reported an error");
		return 0;
	}
	return -EPROTO;
}

int run_node_input(struct run *r, uint32_t ep, struct diag *d)
{
	static const size_t cap = CTL_MAX_MSG;
	char *buf = malloc(cap);
	ssize_t n;
	int err = 0;

	if (!buf)
		return diag_set(d, -ENOMEM, "out of memory");
	n = emu_recv(r->nodes[ep].fd, buf, cap);
	if (n > 0)
		err = dispatch(r, ep, buf, (size_t)n);
	if (n == 0 || n == -ECONNRESET)
		run_node_lost(r, ep, "control socket closed");
	else if ((n < 0 && n != -EAGAIN && n != -EINTR) || (err && err != -ENOMEM))
		run_node_lost(r, ep, "sent a malformed message");
	free(buf);
	if (err == -ENOMEM)
		return diag_set(d, err, "out of memory");
	return 0;
}

/* "exited with status 1", "killed by signal 9" */
static void exit_text(pid_t pid, char *buf, size_t len)
{
	int st = 0;

	if (pid <= 0 || waitpid(pid, &st, 0) != pid)
		snprintf(buf, len, "is gone");
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "was killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
}

void run_node_lost(struct run *r, uint32_t ep, const char *why)
{
	struct run_node *n = &r->nodes[ep];
	int32_t j = n->job;
	struct diag d = {0};
	char how[64];

	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	kill(n->pid, SIGKILL);
	exit_text(n->pid, how, sizeof(how));
	n->pid = 0;
	if (j >= 0) {
		struct run_job *rj = &r->jobs[j];

		/* a neighbour's "connection closed" may have failed the job first: the death is
		 * the cause, so it becomes the reason */
		if (rj->aborting && !rj->node_lost)
			snprintf(rj->reason, sizeof(rj->reason), "emu-node %s %s (%s)",
				 node_name(r, ep), how, why);
		run_fail_job(r, (uint32_t)j, "emu-node %s %s (%s)", node_name(r, ep), how, why);
		rj->node_lost = true;
		n->job = -1;
		if (++r->jobs[j].done == r->jobs[j].spec.gpus)
			run_end_job(r, (uint32_t)j, REC_FAILED, NULL);
	}
	if (!r->stopping && run_node_spawn(r, ep, &d)) /* a fresh node for the next jobs */
		n->fd = -1;
}
