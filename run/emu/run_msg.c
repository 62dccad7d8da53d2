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

#include "run/emu/emu_spawn.h"
#include "run/emu/run_emu_int.h"
#include "run/emu/run_net.h"

static int64_t rel(const struct run *r, uint64_t mono)
{
	return (int64_t)mono - run_emu(r)->t0;
}

static const char *node_name(const struct run *r, uint32_t ep)
{
	return r->t->nodes.v[r->t->endpoints.v[ep]].name;
}

/* A Chakra job's regions of rank k under verify (none otherwise): how many, and the members
 * they name (each region's own, in order). */
static uint32_t job_regions(const struct run_job *rj, uint32_t k, uint64_t *members)
{
	const struct chakra_maps *m = rj->chakra ? &rj->chakra->maps : NULL;
	uint32_t i;

	*members = 0;
	if (!m || !m->region_off)
		return 0;
	for (i = m->region_off[k]; i < m->region_off[k + 1]; i++)
		*members += m->regions.v[i].nmembers;
	return m->region_off[k + 1] - m->region_off[k];
}

/* Rank k's packet's length with its slice of s (NULL: no steps) and its regions. */
static uint64_t job_msg_len(const struct run_job *rj, const struct coll_sched *s, uint32_t k)
{
	uint64_t members;
	uint32_t regions = job_regions(rj, k, &members);

	if (!s)
		return ctl_job_len(rj->spec.gpus);
	return ctl_job_len_all(rj->spec.gpus, s->ranks.v[k].step_n, coll_sched_rank_deps(s, k),
			       regions, members);
}

/* The largest packet a rank of the job needs: its slice of the shipped schedule s (NULL when
 * each rank builds its own), and its regions. */
static uint64_t job_msg_room(const struct run_job *rj, const struct coll_sched *s)
{
	uint64_t most = ctl_job_len(rj->spec.gpus), len;
	uint32_t k;

	for (k = 0; s && k < s->ranks.n; k++) {
		len = job_msg_len(rj, s, k);
		most = len > most ? len : most;
	}
	return most;
}

/* The test-only fault switch: TESTBED_TEST_VERIFY_FAULT=J makes the last rank of the job
 * with id J corrupt one element of its result (tests/integration/t_emu_verify.sh), so that
 * a test proves a wrong result fails the run. */
static uint32_t verify_fault(const struct run_job *rj)
{
	const char *v = getenv("TESTBED_TEST_VERIFY_FAULT");
	char *end;
	unsigned long id;

	if (!v || !*v)
		return 0;
	id = strtoul(v, &end, 10);
	return !*end && id == rj->spec.id ? CTL_VERIFY_FAULT : 0;
}

static struct ctl_job *job_msg(const struct run *r, const struct run_job *rj, uint64_t room)
{
	uint32_t n = rj->spec.gpus, k, len = ctl_job_len(n);
	struct ctl_job *m = calloc(1, room);
	struct timespec ts;

	if (!m)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	m->h = (struct ctl_hdr){CTL_JOB, CTL_VERSION, len};
	m->job = rj->spec.id;
	m->coll = run_job_coll(rj);
	m->iterations = rj->spec.iterations;
	m->verify = r->e->w.verify ? CTL_VERIFY_ON : 0;
	m->compute_ns = rj->compute_ns;
	/* every rank starts together, once its connections had time to come up (a rank whose
	 * connections take longer starts when they are up). The wait counts in the job's time
	 * as emulation measures it, and virtual time has none: a few round trips' worth per rank
	 * (`make validate` saw 100 ms + 2 ms per rank add a fifth to 1-second jobs) */
	m->start_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + 10000000ULL +
		      500000ULL * n;
	m->progress_ns = rj->progress_ns;
	m->moves = rj->conns && r->e->s.routing.enforce == SCN_ENFORCE_SPORT;
	m->phases = rj->conns && r->e->s.routing.trigger == SCN_TRIGGER_PHASE;
	m->channels = rj->spec.channels ? rj->spec.channels : 1;
	for (k = 0; k < n; k++)
		m->peers[k].addr = r->t->nodes.v[r->t->endpoints.v[rj->eps[k]]].addr;
	return m;
}

/* Rank k's regions (a Chakra job under verify) after its steps, each with its members. */
static void job_msg_regions(struct ctl_job *m, const struct run_job *rj, uint32_t k)
{
	const struct chakra_maps *cm = rj->chakra ? &rj->chakra->maps : NULL;
	struct chakra_region *rg;
	struct chakra_member *mb;
	uint64_t members;
	uint32_t i, n = 0;

	m->nregions = job_regions(rj, k, &members);
	m->nmembers = (uint32_t)members;
	if (!m->nregions)
		return;
	rg = (struct chakra_region *)(uintptr_t)ctl_job_regions(m);
	mb = (struct chakra_member *)(uintptr_t)ctl_job_members(m);
	for (i = 0; i < m->nregions; i++) {
		rg[i] = cm->regions.v[cm->region_off[k] + i];
		memcpy(mb + n, cm->members.v + rg[i].member_off, rg[i].nmembers * sizeof(*mb));
		rg[i].member_off = n;
		n += rg[i].nmembers;
	}
}

/* Rank k's slice of the shipped schedule s after the peers, and its packet's length. */
static void job_msg_steps(struct ctl_job *m, const struct run_job *rj, const struct coll_sched *s,
			  uint32_t k)
{
	struct coll_step *st = (struct coll_step *)(uintptr_t)ctl_job_steps(m);

	if (!s)
		return;
	m->coll.scratch = s->params.scratch; /* an imported MSCCL algorithm's, as read */
	m->nsteps = s->ranks.v[k].step_n;
	m->ndeps = coll_sched_rank_deps(s, k);
	coll_sched_rank_slice(s, k, st, (uint32_t *)(uintptr_t)ctl_job_deps(m));
	job_msg_regions(m, rj, k);
	m->h.len = (uint32_t)job_msg_len(rj, s, k);
}

/* Rank k's view of the paths the routing policy pinned: its tag toward each peer, and the
 * port of each connection it opens. */
static void job_msg_rank(struct ctl_job *m, const struct run_job *rj, uint32_t k)
{
	uint32_t i;

	m->rank = k;
	if (m->verify)
		m->verify = CTL_VERIFY_ON | (k + 1 == rj->spec.gpus ? verify_fault(rj) : 0);
	for (i = 0; i < rj->spec.gpus; i++)
		m->peers[i].tag = 0, m->peers[i].sport = 0;
	for (i = 0; i < rj->nconns; i++) {
		const struct run_conn *c = &rj->conns[i];

		if (c->src == k)
			m->peers[c->dst].tag = c->tag;
		if (c->src == k && k < c->dst)
			m->peers[c->dst].sport = c->sport;
		if (c->dst == k && k < c->src)
			m->peers[c->src].sport = c->sport;
	}
}

/* The schedule the runner ships to the job's ranks (coll_algo_shipped), into s; 0 with s
 * empty for the others. */
static int job_shipped(const struct run_job *rj, struct coll_sched *s, struct diag *d)
{
	struct coll_params p = run_job_coll(rj);
	struct coll_ext x = run_job_ext(rj);

	memset(s, 0, sizeof(*s));
	return coll_algo_shipped(p.algo) ? coll_sched_build_ext(&p, &x, s, d) : 0;
}

int run_emu_start(struct run *r, uint32_t j, struct diag *d)
{
	struct run_job *rj = &r->jobs[j];
	struct coll_sched s;
	const struct coll_sched *ship;
	struct ctl_job *m = NULL;
	uint64_t room;
	uint32_t k;
	int err = job_shipped(rj, &s, d);

	if (err)
		return diag_wrap(d, err, "job %u: ", j);
	ship = coll_algo_shipped(rj->spec.algo) ? &s : NULL;
	room = job_msg_room(rj, ship);
	if (room > CTL_MAX_MSG) {
		coll_sched_done(&s);
		return diag_set(d, -E2BIG,
				"job %u: a rank's part of its %s schedule takes %llu bytes, more "
				"than one control packet's %d (%s)",
				j, coll_algo_name(rj->spec.algo), (unsigned long long)room,
				CTL_MAX_MSG,
				rj->spec.chakra ? "a shorter trace: `testbed sim` runs this one"
						: "fewer chunks");
	}
	m = job_msg(r, rj, room);
	if (!m) {
		coll_sched_done(&s);
		return diag_set(d, -ENOMEM, "out of memory");
	}
	for (k = 0; k < rj->spec.gpus; k++) {
		struct run_node *n = &run_emu(r)->nodes[rj->eps[k]];

		job_msg_rank(m, rj, k);
		job_msg_steps(m, rj, ship, k);
		n->job = (int32_t)j;
		n->rank = k;
		if (n->fd < 0 || emu_send(n->fd, m, m->h.len))
			err = -EPIPE;
	}
	free(m);
	coll_sched_done(&s);
	if (err)
		run_fail_job(r, j, "could not hand the job to every emu-node");
	return 0;
}

int run_emu_retag(struct run *r, uint32_t j, const struct run_conn *v, size_t n, struct diag *d)
{
	const struct run_job *rj = &r->jobs[j];
	struct ctl_tag m = {{CTL_TAG, CTL_VERSION, sizeof(m)}, j, 0, 0, 0, 0};
	size_t i;

	(void)d;
	for (i = 0; i < n; i++) {
		struct run_node *nd = &run_emu(r)->nodes[rj->eps[v[i].src]];

		m.peer = v[i].dst;
		m.tag = v[i].tag;
		m.sport = v[i].sport;
		/* a node that died fails its job on its own (run_node_lost) */
		if (nd->job == (int32_t)j && nd->fd >= 0)
			(void)emu_send(nd->fd, &m, sizeof(m));
	}
	return 0;
}

void run_emu_abort(struct run *r, uint32_t j)
{
	const struct run_job *rj = &r->jobs[j];
	struct ctl_abort a = {{CTL_ABORT, CTL_VERSION, sizeof(a)}, j};
	uint32_t k;

	for (k = 0; k < rj->spec.gpus; k++) {
		struct run_node *n = &run_emu(r)->nodes[rj->eps[k]];

		if (n->job == (int32_t)j && n->fd >= 0)
			(void)emu_send(n->fd, &a, sizeof(a));
	}
}

static void on_done(struct run *r, uint32_t ep, const struct ctl_done *m)
{
	struct run_node *n = &run_emu(r)->nodes[ep];
	const struct run_job *rj;
	char why[128], links[160], reason[REC_REASON_MAX + 400];

	if (m->job >= r->njobs || n->job != (int32_t)m->job)
		return; /* a late answer to an abort of a job already ended */
	rj = &r->jobs[m->job];
	n->job = -1;
	reason[0] = '\0';
	if (m->status && m->status != -ECANCELED)
		snprintf(reason, sizeof(reason), "%s%s (rank %u): %.*s",
			 run_job_why(r, m->job, run_now(r) - (int64_t)rj->progress_ns, why,
				     sizeof(why), links, sizeof(links)),
			 node_name(r, ep), m->rank, (int)sizeof(m->reason), m->reason);
	run_rank_ended(r, m->job, m->status, m->verified, reason);
}

static int on_flows(struct run *r, const struct ctl_rec_flows *m, size_t len)
{
	uint32_t i;

	if (len < sizeof(*m) || m->n > CTL_FLOWS_MAX ||
	    len < sizeof(*m) + m->n * sizeof(m->flows[0]))
		return -EPROTO;
	for (i = 0; i < m->n; i++) {
		struct run_flow f = {m->job, m->rank, m->flows[i]};

		run_chakra_step(r, m->job, m->rank, m->first + i, rel(r, f.f.t_start),
				rel(r, f.f.t_end));
		if (coll_op_local(f.f.dir)) /* a local step or a wait: no message */
			continue;
		if (vec_push(&run_emu(r)->raw, f))
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
	run_route_phase(r, m->job, false);
	return vec_push(&r->rec.iters, it);
}

static int dispatch(struct run *r, uint32_t ep, const void *buf, size_t len)
{
	const struct ctl_hdr *h = buf;

	switch (h->type) {
	case CTL_READY:
		run_emu(r)->nodes[ep].ready = true;
		return 0;
	case CTL_REC_FLOWS:
		return on_flows(r, buf, len);
	case CTL_REC_ITER:
		return len < sizeof(struct ctl_rec_iter) ? -EPROTO : on_iter(r, buf);
	case CTL_PHASE:
		if (len < sizeof(struct ctl_phase))
			return -EPROTO;
		if (run_emu(r)->nodes[ep].job == (int32_t)((const struct ctl_phase *)buf)->job)
			run_route_phase(r, ((const struct ctl_phase *)buf)->job, true);
		return 0;
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
	n = emu_recv(run_emu(r)->nodes[ep].fd, buf, cap);
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
	struct run_node *n = &run_emu(r)->nodes[ep];
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

/* Sorted by flow with the SEND first, a flow is a SEND followed by its RECV. */
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

void run_emu_join_flows(struct run *r)
{
	struct run_emu *x = run_emu(r);
	size_t i;

	if (r->rec.flows.n)
		return;
	if (x->raw.n)
		qsort(x->raw.v, x->raw.n, sizeof(*x->raw.v), cmp_flow);
	for (i = 0; i + 1 < x->raw.n; i++) {
		const struct run_flow *s = &x->raw.v[i], *v = &x->raw.v[i + 1];
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
				      (int64_t)s->f.t_start - x->t0,
				      (int64_t)v->f.t_end - x->t0,
				      s->f.tag};
		if (vec_push(&r->rec.flows, f))
			return;
		i++;
	}
}
