// SPDX-License-Identifier: MIT
/* The runner's life cycle (run.h): jobs resolved and scaled, emu-nodes started and greeted,
 * and everything stopped and reaped at the end. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "orchestrator/emu_spawn.h"
#include "orchestrator/run_int.h"
#include "orchestrator/run_net.h"

#define READY_TIMEOUT_MS 20000

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t run_now(const struct run *r)
{
	return mono_ns() - r->t0;
}

void run_counts(const struct run *r, uint32_t *done, uint32_t *running, uint32_t *waiting)
{
	uint32_t i;

	*done = r->finished;
	*running = *waiting = 0;
	for (i = 0; i < r->njobs; i++) {
		*running += r->jobs[i].running;
		*waiting += r->jobs[i].submitted && !r->jobs[i].running &&
			    r->jobs[i].status == REC_NOT_STARTED;
	}
}

static int make_jobs(struct run *r, struct diag *d)
{
	job_list specs = {0};
	uint32_t i;
	int err = 0;

	if (r->specs) /* check's own list: the trace is read once */
		err = vec_reserve(&specs, r->specs->n + 1) ? diag_set(d, -ENOMEM, "out of memory")
							   : 0;
	for (i = 0; !err && r->specs && i < r->specs->n; i++)
		specs.v[specs.n++] = r->specs->v[i];
	if (!r->specs)
		err = run_resolve_jobs(r->e, &specs, d);
	if (!err && !specs.n)
		err = diag_set(d, -EINVAL, "the workload has no jobs");
	if (!err) {
		r->jobs = calloc(specs.n, sizeof(*r->jobs));
		if (!r->jobs)
			err = diag_set(d, -ENOMEM, "out of memory");
	}
	for (i = 0; !err && i < specs.n; i++) {
		r->jobs[i].spec = specs.v[i];
		run_scale_job(r, &r->jobs[i]);
	}
	if (!err)
		r->njobs = (uint32_t)specs.n;
	vec_free(&specs);
	return err;
}

int run_node_spawn(struct run *r, uint32_t ep, struct diag *d)
{
	const struct topo_node *n = &r->t->nodes.v[r->t->endpoints.v[ep]];
	struct run_node *rn = &r->nodes[ep];
	struct ctl_hello h = {.h = {CTL_HELLO, CTL_VERSION, sizeof(h)},
			      .node = r->t->endpoints.v[ep],
			      .addr = n->addr,
			      .port = RUN_PORT,
			      .uid = RUN_UID,
			      .gid = RUN_UID};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	snprintf(h.name, sizeof(h.name), "%s", n->name);
	rn->job = -1;
	rn->ready = false;
	/* one CPU each, round robin: migrations skew TCP shares (tests/integration/t_shaping.sh) */
	err = emu_spawn(r->emu_path, r->nsfd[r->t->endpoints.v[ep]],
			(int)(ep % (ncpu > 0 ? ncpu : 1)), &rn->pid, &rn->fd);
	if (err)
		return diag_set(d, err, "starting the emu-node of %s: %s", n->name, strerror(-err));
	err = emu_send(rn->fd, &h, sizeof(h));
	if (err)
		return diag_set(d, err, "greeting the emu-node of %s: %s", n->name, strerror(-err));
	return 0;
}

/* Waits until every emu-node said CTL_READY. */
static int wait_ready(struct run *r, struct diag *d)
{
	struct pollfd *p = calloc(r->nnodes, sizeof(*p));
	int64_t deadline = mono_ns() + READY_TIMEOUT_MS * 1000000LL;
	uint32_t i, ready = 0;
	int err = p ? 0 : diag_set(d, -ENOMEM, "out of memory");

	while (!err && ready < r->nnodes) {
		if (mono_ns() > deadline || (r->stop && *r->stop)) {
			err = diag_set(d, -ETIMEDOUT, "%u of %u emu-nodes did not start",
				       r->nnodes - ready, r->nnodes);
			break;
		}
		for (i = 0; i < r->nnodes; i++)
			p[i] = (struct pollfd){.fd = r->nodes[i].ready ? -1 : r->nodes[i].fd,
					       .events = POLLIN};
		if (poll(p, r->nnodes, 100) < 0 && errno != EINTR)
			err = diag_set(d, -errno, "poll: %s", strerror(errno));
		for (i = 0; !err && i < r->nnodes; i++)
			if (p[i].revents)
				err = run_node_input(r, i, d);
		for (ready = 0, i = 0; i < r->nnodes; i++)
			ready += r->nodes[i].ready;
	}
	free(p);
	return err;
}

int run_prepare(struct run *r, struct diag *d)
{
	uint32_t i;
	int err;

	r->dilation = scn_dilation(&r->e->s);
	r->nnodes = (uint32_t)r->t->endpoints.n;
	err = make_jobs(r, d);
	if (!err) {
		struct sched_cfg cfg = r->e->sched;

		cfg.placement_order = r->e->w.rank_order == EXP_RANK_PLACEMENT;
		err = sched_init(&r->sched, r->t, &cfg);
	}
	if (!err)
		err = run_net_init(r, d);
	r->nodes = calloc(r->nnodes, sizeof(*r->nodes));
	if (!err && !r->nodes)
		err = diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; r->nodes && i < r->nnodes; i++)
		r->nodes[i].fd = -1;
	for (i = 0; !err && i < r->nnodes; i++)
		err = run_node_spawn(r, i, d);
	if (!err)
		err = wait_ready(r, d);
	r->t0 = mono_ns();
	return err;
}

static void stop_node(struct run_node *n)
{
	struct ctl_hdr h = {CTL_STOP, CTL_VERSION, sizeof(h)};

	if (n->fd >= 0) {
		(void)emu_send(n->fd, &h, sizeof(h));
		close(n->fd);
		n->fd = -1;
	}
}

/* CTL_STOP to all, a second to exit, then SIGKILL for stragglers. */
static void reap_nodes(struct run *r)
{
	struct timespec ts = {0, 10 * 1000 * 1000};
	uint32_t i, left;
	int k;

	for (i = 0; i < r->nnodes; i++)
		stop_node(&r->nodes[i]);
	for (k = 0; k < 100 && !(r->stop && *r->stop == RUN_STOP_DOWN); k++) {
		for (left = 0, i = 0; i < r->nnodes; i++) {
			if (r->nodes[i].pid > 0 && waitpid(r->nodes[i].pid, NULL, WNOHANG) == 0)
				left++;
			else
				r->nodes[i].pid = 0;
		}
		if (!left)
			return;
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < r->nnodes; i++) {
		if (r->nodes[i].pid > 0) {
			kill(r->nodes[i].pid, SIGKILL);
			waitpid(r->nodes[i].pid, NULL, 0);
		}
	}
}

void run_done(struct run *r)
{
	uint32_t i;

	if (r->nodes)
		reap_nodes(r);
	free(r->nodes);
	r->nodes = NULL;
	for (i = 0; r->jobs && i < r->njobs; i++)
		free(r->jobs[i].eps);
	free(r->jobs);
	r->jobs = NULL;
	sched_done(&r->sched);
	run_net_done(r);
	rec_run_done(&r->rec);
	vec_free(&r->raw);
}
