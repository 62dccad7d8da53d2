// SPDX-License-Identifier: MIT
/* The emulation backend (run_emu.h): emu-nodes started and greeted, their control sockets
 * polled, progress deadlines, failures and counter sampling on CLOCK_MONOTONIC, and every
 * emu-node stopped and reaped at the end. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"
#include "run/emu/emu_spawn.h"
#include "run/emu/run_emu_int.h"
#include "run/emu/run_net.h"

#define READY_TIMEOUT_MS 20000
#define TICK_NS 100000000LL /* deadlines are checked at least this often */

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t emu_now(const struct run *r)
{
	return mono_ns() - run_emu(r)->t0;
}

int run_node_spawn(struct run *r, uint32_t ep, struct diag *d)
{
	struct run_emu *x = run_emu(r);
	const struct topo_node *n = &r->t->nodes.v[r->t->endpoints.v[ep]];
	struct run_node *rn = &x->nodes[ep];
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
	err = emu_spawn(x->emu_path, x->nsfd[r->t->endpoints.v[ep]],
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
	struct run_emu *x = run_emu(r);
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
			p[i] = (struct pollfd){.fd = x->nodes[i].ready ? -1 : x->nodes[i].fd,
					       .events = POLLIN};
		if (poll(p, r->nnodes, 100) < 0 && errno != EINTR)
			err = diag_set(d, -errno, "poll: %s", strerror(errno));
		for (i = 0; !err && i < r->nnodes; i++)
			if (p[i].revents)
				err = run_node_input(r, i, d);
		for (ready = 0, i = 0; i < r->nnodes; i++)
			ready += x->nodes[i].ready;
	}
	free(p);
	return err;
}

/* Samples every direction from the run's start (the baseline) to its end. */
static int sample_open(struct run *r, struct diag *d)
{
	struct run_emu *x = run_emu(r);
	const char *why;
	uint32_t n;
	int err;

	if (!r->e->run.sample_ns)
		return 0;
	err = sampler_open(&x->sampler, r->t, &r->e->s.shaping, x->nsfd,
			   (int64_t)r->e->run.sample_ns, d);
	if (err)
		return err;
	why = sampler_bpf(x->sampler, &n);
	if (why)
		log_debug("sampling: every shaper by netlink (%s)", why);
	else
		log_debug("sampling: %u shapers read by BPF", n);
	return sampler_take(x->sampler, x->t0, &r->rec, d);
}

static int emu_prepare(struct run *r, struct diag *d)
{
	struct run_emu *x = run_emu(r);
	uint32_t i;
	int err;

	err = run_net_init(r, d);
	x->nodes = calloc(r->nnodes, sizeof(*x->nodes));
	if (!err && !x->nodes)
		err = diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; x->nodes && i < r->nnodes; i++)
		x->nodes[i].fd = -1;
	for (i = 0; !err && i < r->nnodes; i++)
		err = run_node_spawn(r, i, d);
	if (!err)
		err = wait_ready(r, d);
	x->t0 = mono_ns();
	return err ? err : sample_open(r, d);
}

static int64_t emu_next(const struct run *r)
{
	const struct run_emu *x = run_emu(r);
	int64_t next = emu_now(r) + TICK_NS;

	if (x->sampler && sampler_next(x->sampler) < next)
		next = sampler_next(x->sampler);
	if (run_net_next(r) < next)
		next = run_net_next(r);
	return next;
}

/* A running job that stopped making progress fails; one whose abort is not confirmed in
 * time ends anyway (its emu-nodes are replaced). */
static void deadlines(struct run *r, int64_t now)
{
	struct run_emu *x = run_emu(r);
	char why[128], links[160];
	uint32_t j, k;

	for (j = 0; j < r->njobs; j++) {
		struct run_job *rj = &r->jobs[j];

		if (!rj->running)
			continue;
		if (!rj->aborting && now - rj->last_progress > (int64_t)rj->progress_ns)
			run_fail_job(r, j, "%sno progress for %.1f s (limit %.1f s)",
				     run_job_why(r, j, rj->last_progress, why, sizeof(why), links,
						 sizeof(links)),
				     (double)(now - rj->last_progress) / 1e9,
				     (double)rj->progress_ns / 1e9);
		if (!rj->aborting || now - rj->last_progress < RUN_ABORT_NS)
			continue;
		for (k = 0; k < rj->spec.gpus; k++)
			if (x->nodes[rj->eps[k]].job == (int32_t)j)
				run_node_lost(r, rj->eps[k], "did not confirm an abort");
		run_end_job(r, j, REC_FAILED, NULL);
	}
}

static void emu_tick(struct run *r, int64_t now)
{
	struct run_emu *x = run_emu(r);

	deadlines(r, now);
	run_net_tick(r, now); /* failures, OCS reconfigurations (run_net.h) */
	if (x->sampler) /* a failed round only leaves a gap (sampler_failures) */
		(void)sampler_poll(x->sampler, now, x->t0, &r->rec, NULL);
}

/* Polls the control sockets until `until` at most (one wake-up: the loop's work is cheap). */
static int emu_wait(struct run *r, int64_t until, struct diag *d)
{
	struct run_emu *x = run_emu(r);
	struct pollfd *p = calloc(r->nnodes + 1, sizeof(*p));
	int64_t wait = until - emu_now(r);
	uint32_t i;
	int n, err = 0;

	if (!p)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < r->nnodes; i++)
		p[i] = (struct pollfd){.fd = x->nodes[i].fd, .events = POLLIN};
	n = poll(p, r->nnodes, wait > 0 ? (int)(wait / 1000000) + 1 : 0);
	if (n < 0 && errno != EINTR)
		err = diag_set(d, -errno, "poll: %s", strerror(errno));
	for (i = 0; !err && n > 0 && i < r->nnodes; i++)
		if (p[i].revents && x->nodes[i].fd >= 0)
			err = run_node_input(r, i, d);
	free(p);
	return err;
}

static void emu_finish(struct run *r)
{
	struct run_emu *x = run_emu(r);

	if (x->sampler)
		(void)sampler_take(x->sampler, x->t0, &r->rec, NULL);
	run_emu_join_flows(r);
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
	struct run_emu *x = run_emu(r);
	struct timespec ts = {0, 10 * 1000 * 1000};
	uint32_t i, left;
	int k;

	for (i = 0; i < r->nnodes; i++)
		stop_node(&x->nodes[i]);
	for (k = 0; k < 100 && !(r->stop && *r->stop == RUN_STOP_DOWN); k++) {
		for (left = 0, i = 0; i < r->nnodes; i++) {
			if (x->nodes[i].pid > 0 && waitpid(x->nodes[i].pid, NULL, WNOHANG) == 0)
				left++;
			else
				x->nodes[i].pid = 0;
		}
		if (!left)
			return;
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < r->nnodes; i++) {
		if (x->nodes[i].pid > 0) {
			kill(x->nodes[i].pid, SIGKILL);
			waitpid(x->nodes[i].pid, NULL, 0);
		}
	}
}

static void emu_done(struct run *r)
{
	struct run_emu *x = run_emu(r);

	if (x->nodes)
		reap_nodes(r);
	free(x->nodes);
	x->nodes = NULL;
	sampler_free(x->sampler);
	x->sampler = NULL;
	run_net_done(r);
	vec_free(&x->raw);
}

static uint64_t emu_sample_gaps(const struct run *r, uint64_t *rounds, const char **why)
{
	const struct sampler *sm = run_emu(r)->sampler;

	*rounds = sm ? sampler_rounds(sm) : 0;
	return sm ? sampler_failures(sm, why) : 0;
}

const struct run_backend run_emu_backend = {
	.name = "emulation",
	.command = "testbed up",
	.ranks = "emu-nodes",
	.machine_clock = true,
	.prepare = emu_prepare,
	.now = emu_now,
	.next = emu_next,
	.start = run_emu_start,
	.abort = run_emu_abort,
	.wait = emu_wait,
	.tick = emu_tick,
	.finish = emu_finish,
	.write = run_net_write,
	.netevs = run_net_events,
	.view = run_net_view,
	.retag = run_emu_retag,
	.circuits = run_net_circuits,
	.done = emu_done,
	.sample_gaps = emu_sample_gaps,
};
