// SPDX-License-Identifier: MIT
/* This node's rank of one job: schedule and buffers, connections, the start instant, compute
 * phases and iterations, records, the progress watchdog, and the end (done, failed,
 * aborted), after which the job waits for its last ops before it is freed. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu-node/node.h"

#define NS 1000000000ull

static void rank_arm_timeout(struct rank *rk, struct op *op, struct __kernel_timespec *ts,
			     uint64_t ns, unsigned flags)
{
	ts->tv_sec = (long long)(ns / NS);
	ts->tv_nsec = (long long)(ns % NS);
	io_uring_prep_timeout(loop_sqe(rk->ctx, op), ts, 0, flags);
}

static int rank_alloc_verify(struct rank *rk, struct diag *d)
{
	const struct coll_params *p = &rk->spec.coll;
	int r;

	if (p->elem != sizeof(float))
		return diag_set(d, -EINVAL, "verify needs 4-byte (float) elements, not %u",
				p->elem);
	rk->buf = malloc(p->bytes ? p->bytes : 1);
	rk->out = p->kind == COLL_ALLTOALL ? malloc(p->bytes ? p->bytes : 1) : NULL;
	rk->scr = p->scratch ? calloc(1, p->scratch) : NULL;
	rk->sums = malloc(sizeof(*rk->sums));
	if (!rk->buf || !rk->sums || (p->kind == COLL_ALLTOALL && !rk->out) ||
	    (p->scratch && !rk->scr))
		return diag_set(d, -ENOMEM, "verify buffers of %llu bytes: out of memory",
				(unsigned long long)p->bytes);
	r = verify_sums_init(rk->sums, p, rk->spec.rank);
	if (r) {
		free(rk->sums);
		rk->sums = NULL;
		return diag_set(d, r, "verify: the shares of %llu bytes: %s",
				(unsigned long long)p->bytes, strerror(-r));
	}
	rk->verified = true;
	return 0;
}

/* A Chakra job's regions under verify: kept, once checked against the buffer. */
static int rank_regions(struct rank *rk, const struct ctl_job *m, struct diag *d)
{
	size_t nr = m->nregions * sizeof(*rk->vr.rg), nm = m->nmembers * sizeof(*rk->vr.mb);
	const char *why;

	if (!m->verify || (!m->nregions && !m->nmembers))
		return 0;
	rk->vr_mem = malloc(nr + nm + 1);
	if (!rk->vr_mem)
		return diag_set(d, -ENOMEM, "out of memory");
	memcpy(rk->vr_mem, ctl_job_regions(m), nr);
	memcpy((char *)rk->vr_mem + nr, ctl_job_members(m), nm);
	rk->vr = (struct verify_regions){.rg = rk->vr_mem,
					 .mb = (const void *)((char *)rk->vr_mem + nr),
					 .nrg = m->nregions,
					 .nmb = m->nmembers};
	why = verify_regions_fault(&rk->vr, m->coll.bytes);
	return why ? diag_set(d, -EINVAL, "CTL_JOB's regions: %s", why) : 0;
}

/* The rank's steps: built from the parameters, or the slice the runner shipped for an
 * algorithm whose schedules it makes (TACOS), checked first. */
static int rank_sched(struct rank *rk, const struct ctl_job *m, struct diag *d)
{
	if (!coll_algo_shipped(m->coll.algo))
		return coll_sched_build_rank(&m->coll, m->rank, &rk->sched, d);
	return coll_sched_from_rank(&m->coll, m->rank, ctl_job_steps(m), m->nsteps, ctl_job_deps(m),
				    m->ndeps, &rk->sched, d);
}

static int rank_prepare(struct rank *rk, const struct ctl_job *m, struct diag *d)
{
	size_t np = m->coll.nranks * sizeof(*rk->peers);
	int r;

	rk->peers = malloc(np);
	if (!rk->peers)
		return diag_set(d, -ENOMEM, "out of memory");
	memcpy(rk->peers, m->peers, np);
	r = rank_sched(rk, m, d);
	if (r)
		return r;
	if (coll_plan_init(&rk->plan, &rk->sched, m->rank) ||
	    coll_plan_run_init(&rk->run, &rk->plan))
		return diag_set(d, -ENOMEM, "out of memory");
	rk->nconn = rk->plan.npeers * m->channels;
	rk->conns = calloc(rk->nconn + 1, sizeof(*rk->conns));
	rk->flows = calloc(rk->plan.n + 1, sizeof(*rk->flows));
	rk->left = calloc(rk->plan.n + 1, sizeof(*rk->left));
	if (!rk->conns || !rk->flows || !rk->left)
		return diag_set(d, -ENOMEM, "out of memory");
	r = m->verify ? rank_alloc_verify(rk, d) : 0;
	return r ? r : rank_regions(rk, m, d);
}

/* The lower rank of a pair opens its connections; those from lower ranks may be in the
 * lobby. */
static int rank_connect(struct rank *rk, struct diag *d)
{
	uint32_t pi, ch;
	int r;

	for (pi = 0; pi < rk->plan.npeers; pi++) {
		if (rk->plan.peers[pi] < rk->spec.rank)
			continue;
		for (ch = 0; ch < rk->spec.channels; ch++) {
			r = conn_connect(rk, pi, ch);
			if (r)
				return diag_set(
					d, r, "connection %u to rank %u (socket, source port): %s",
					ch, rk->plan.peers[pi], strerror(-r));
		}
	}
	conn_adopt_lobby(rk->ctx, rk);
	return 0;
}

static void rank_wait_start(struct rank *rk)
{
	rk->state = RANK_WAITING;
	rank_arm_timeout(rk, &rk->timer, &rk->ts_timer, rk->spec.start_ns, IORING_TIMEOUT_ABS);
}

void rank_start(struct ctx *c, const struct ctl_job *m)
{
	struct rank *rk = calloc(1, sizeof(*rk));
	struct diag d = {0};

	if (!rk) {
		ctl_fatal(c, -ENOMEM, "%s: out of memory", c->hello.name);
		return;
	}
	rk->ctx = c;
	rk->spec = *m;
	rk->timer.kind = OP_TIMER;
	rk->watchdog.kind = OP_WATCHDOG;
	rk->t_progress = loop_now();
	rk->wait_step = COLL_PLAN_NONE;
	c->cur = rk;
	if (rank_prepare(rk, m, &d) || rank_connect(rk, &d)) {
		rank_finish(rk, d.err ? d.err : -EINVAL, d.msg);
		return;
	}
	if (rk->spec.progress_ns)
		rank_arm_timeout(rk, &rk->watchdog, &rk->ts_watchdog, rk->spec.progress_ns, 0);
	if (rk->state == RANK_CONNECTING && rk->nup == rk->nconn)
		rank_wait_start(rk);
}

void rank_conn_up(struct rank *rk)
{
	rk->nup++;
	rk->t_progress = loop_now();
	if (rk->state == RANK_CONNECTING && rk->nup == rk->nconn)
		rank_wait_start(rk);
}

void rank_set_path(struct rank *rk, uint32_t peer, uint8_t tag, uint16_t sport)
{
	struct conn *cn;
	uint32_t ch;
	int pi;

	if (peer >= rk->spec.coll.nranks)
		return;
	rk->peers[peer].tag = tag;
	if (sport)
		rk->peers[peer].sport = sport;
	pi = coll_plan_peer(&rk->plan, peer);
	for (ch = 0; pi >= 0 && ch < rk->spec.channels; ch++) {
		cn = rk->conns[(uint32_t)pi * rk->spec.channels + ch];
		if (!cn || cn->dead)
			continue;
		conn_set_tag(cn, tag);
		if (!ch) /* a port pins a one-channel pair (the runner refuses moves with more) */
			move_want(rk, cn);
	}
}

/* A zero compute phase is a zero timeout too: the ring, not recursion, takes a rank without
 * steps from one iteration to the next. */
static void rank_iter_begin(struct rank *rk)
{
	rk->t_start = loop_now();
	rk->state = RANK_COMPUTING;
	rank_arm_timeout(rk, &rk->timer, &rk->ts_timer, rk->spec.compute_ns, 0);
}

void rank_arm_timer(struct rank *rk, uint64_t ns)
{
	rank_arm_timeout(rk, &rk->timer, &rk->ts_timer, ns, 0);
}

void rank_on_timer(struct rank *rk, int res)
{
	(void)res; /* -ETIME on expiry; a removed timer belongs to a closing job */
	if (rk->state == RANK_WAITING && !rk->spec.iterations)
		rank_finish(rk, 0, "");
	else if (rk->state == RANK_WAITING)
		rank_iter_begin(rk);
	else if (rk->state == RANK_COMPUTING)
		exec_begin(rk);
	else if (rk->state == RANK_RUNNING && rk->wait_step != COLL_PLAN_NONE)
		exec_on_wait(rk);
}

static void rank_describe_stall(const struct rank *rk, char *buf, size_t len)
{
	char who[64];
	uint32_t i;

	if (rk->state == RANK_RUNNING) {
		exec_describe_stall(rk, buf, len);
		return;
	}
	for (i = 0; i < rk->nconn && rk->conns[i] && rk->conns[i]->state == CONN_UP; i++)
		;
	conn_peer_name(rk, i < rk->nconn ? rk->plan.peers[i / rk->spec.channels] : 0, who,
		       sizeof(who));
	snprintf(buf, len, "no connection with %s", who);
}

/* Runs while the job is alive; only connecting and the collective count: the start wait
 * and compute phases end by themselves. Progress is a connection coming up or a piece of
 * a step moving, so a big step on a slow link is not mistaken for a stall. */
void rank_on_watchdog(struct rank *rk, int res)
{
	uint64_t now = loop_now(), limit = rk->spec.progress_ns, idle = now - rk->t_progress;
	char what[CTL_REASON_MAX];

	(void)res;
	if (rk->state == RANK_CLOSING)
		return;
	if (rk->state == RANK_WAITING || rk->state == RANK_COMPUTING ||
	    rk->wait_step != COLL_PLAN_NONE) /* a wait ends by itself */
		idle = 0;
	if (idle < limit) {
		rank_arm_timeout(rk, &rk->watchdog, &rk->ts_watchdog, limit - idle, 0);
		return;
	}
	rank_describe_stall(rk, what, sizeof(what));
	rank_fail(rk, -ETIMEDOUT, "no progress for %.3f s: %s", (double)idle / 1e9, what);
}

static void rank_send_flows(struct rank *rk)
{
	struct ctl_rec_flows *m;
	uint32_t at, k;

	for (at = 0; at < rk->plan.n; at += k) {
		k = rk->plan.n - at < CTL_FLOWS_MAX ? rk->plan.n - at : CTL_FLOWS_MAX;
		m = ctl_new(rk->ctx, CTL_REC_FLOWS, sizeof(*m) + k * sizeof(*m->flows));
		if (!m)
			return;
		m->job = rk->spec.job;
		m->rank = rk->spec.rank;
		m->n = k;
		m->first = at;
		memcpy(m->flows, rk->flows + at, k * sizeof(*m->flows));
		ctl_send(rk->ctx, m);
	}
}

static void rank_send_iter(struct rank *rk, uint64_t t_end)
{
	struct ctl_rec_iter *m = ctl_new(rk->ctx, CTL_REC_ITER, sizeof(*m));

	if (!m)
		return;
	m->job = rk->spec.job;
	m->rank = rk->spec.rank;
	m->iter = rk->iter;
	m->t_start = rk->t_start;
	m->t_compute_end = rk->t_compute_end;
	m->t_end = t_end;
	ctl_send(rk->ctx, m);
}

/* The test-only fault (CTL_VERIFY_FAULT): one element of the result off by one. */
static void rank_fault(struct rank *rk, float *res)
{
	uint64_t i = rk->spec.coll.algo == COLL_CHAKRA
			     ? verify_regions_fault_at(&rk->vr)
			     : verify_fault_at(&rk->spec.coll, rk->sums, rk->spec.rank);

	if (i < rk->spec.coll.bytes / sizeof(float))
		res[i] += 1.0f;
}

/* 0, or -EBADMSG with the first wrong element and the iteration in rk->why. */
static int rank_check(struct rank *rk)
{
	float *res = rk->spec.coll.kind == COLL_ALLTOALL ? rk->out : rk->buf;
	int r;

	if (rk->spec.verify & CTL_VERIFY_FAULT)
		rank_fault(rk, res);
	if (rk->spec.coll.algo == COLL_CHAKRA) /* each operation in its region */
		r = verify_regions_check(&rk->vr, rk->spec.rank, res, rk->why, sizeof(rk->why));
	else
		r = verify_check(&rk->spec.coll, rk->sums, rk->spec.rank, res, rk->why,
				 sizeof(rk->why));
	if (r)
		snprintf(rk->why + strlen(rk->why), sizeof(rk->why) - strlen(rk->why),
			 " (iteration %u)", rk->iter);
	rk->verified = !r;
	return r;
}

void rank_iter_end(struct rank *rk)
{
	uint64_t t_end = loop_now();
	int r = rk->spec.verify ? rank_check(rk) : 0;

	rank_send_flows(rk);
	rank_send_iter(rk, t_end);
	if (r) /* a wrong result fails the job: its numbers are not of the collective */
		rank_finish(rk, r, rk->why);
	else if (++rk->iter < rk->spec.iterations)
		rank_iter_begin(rk);
	else
		rank_finish(rk, 0, NULL);
}

static void rank_send_done(struct rank *rk, int status, const char *reason)
{
	struct ctl_done *m = ctl_new(rk->ctx, CTL_DONE, sizeof(*m));

	if (!m)
		return;
	m->job = rk->spec.job;
	m->rank = rk->spec.rank;
	m->status = status;
	m->verified = rk->spec.verify && !status && rk->verified;
	m->t_end = loop_now();
	snprintf(m->reason, sizeof(m->reason), "%s", reason ? reason : "");
	ctl_send(rk->ctx, m);
}

void rank_finish(struct rank *rk, int status, const char *reason)
{
	struct ctx *c = rk->ctx;
	uint32_t i;

	if (rk->state == RANK_CLOSING)
		return;
	rank_send_done(rk, status, reason);
	rk->state = RANK_CLOSING;
	for (i = 0; rk->conns && i < rk->nconn; i++)
		if (rk->conns[i])
			conn_kill(c, rk->conns[i]);
	if (rk->timer.busy)
		io_uring_prep_timeout_remove(loop_sqe(c, NULL), (uintptr_t)&rk->timer, 0);
	if (rk->watchdog.busy)
		io_uring_prep_timeout_remove(loop_sqe(c, NULL), (uintptr_t)&rk->watchdog, 0);
	c->cur = NULL;
	rk->next = c->dying;
	c->dying = rk;
}

void rank_fail(struct rank *rk, int err, const char *fmt, ...)
{
	char why[CTL_REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rank_finish(rk, err, why);
}

static bool rank_quiet(const struct rank *rk)
{
	const struct conn *cn;
	uint32_t i;

	if (rk->timer.busy || rk->watchdog.busy)
		return false;
	for (i = 0; rk->conns && i < rk->nconn; i++)
		if ((cn = rk->conns[i]) && (cn->tx.busy || cn->rx.busy || cn->mv.busy))
			return false;
	return true;
}

void rank_reap_dying(struct ctx *c)
{
	struct rank **pp = &c->dying, *rk;

	while ((rk = *pp)) {
		if (rank_quiet(rk)) {
			*pp = rk->next;
			rank_free(rk);
		} else {
			pp = &rk->next;
		}
	}
}

void rank_free(struct rank *rk)
{
	uint32_t i;

	if (!rk)
		return;
	for (i = 0; rk->conns && i < rk->nconn; i++)
		conn_free(rk->conns[i]);
	free(rk->conns);
	free(rk->left);
	coll_plan_run_done(&rk->run);
	coll_plan_done(&rk->plan);
	coll_sched_done(&rk->sched);
	free(rk->peers);
	free(rk->flows);
	free(rk->buf);
	free(rk->scr);
	free(rk->out);
	if (rk->sums)
		verify_sums_done(rk->sums);
	free(rk->sums);
	free(rk->vr_mem);
	free(rk);
}
