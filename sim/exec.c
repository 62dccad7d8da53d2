// SPDX-License-Identifier: MIT
/* Ranks executing collective schedules over the flow model (see exec.h): compute timers,
 * SEND flows on the kernel's paths, deliveries queued per connection, RECVs taking them in
 * order, and the records of each iteration and message. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exec.h"
#include "sim/exec_int.h"

/* Cookies: kind (2 bits) | job (18) | rank (14) | step (30). Flows carry a SEND's part:
 * step x channels + part. */
#define CK_STEPS (1u << 30)
enum { K_FLOW, K_COMPUTE, K_DELIVER, K_WAKE };

static uint64_t cookie(unsigned kind, uint32_t job, uint32_t rank, uint32_t step)
{
	return (uint64_t)kind << 62 | (uint64_t)job << 44 | (uint64_t)rank << 30 | step;
}

static unsigned ck_kind(uint64_t c)
{
	return (unsigned)(c >> 62);
}

static uint32_t ck_job(uint64_t c)
{
	return (uint32_t)(c >> 44) & (SIM_JOBS_MAX - 1);
}

static uint32_t ck_rank(uint64_t c)
{
	return (uint32_t)(c >> 30) & (COLL_MAX_RANKS - 1);
}

static uint32_t ck_step(uint64_t c)
{
	return (uint32_t)c & ((1u << 30) - 1);
}

int sim_exec_init(struct sim_exec *x, const struct topo *t, const struct route_plan *plan,
		  double goodput, struct rec_run *rec, struct diag *d)
{
	double *cap = malloc((t->ports.n + 1) * sizeof(*cap));
	size_t p;
	int r;

	memset(x, 0, sizeof(*x));
	x->t = t;
	x->plan = plan;
	x->rec = rec;
	x->goodput = goodput > 0 && goodput <= 1 ? goodput : 1;
	x->wake = -1;
	if (!cap)
		return diag_set(d, -ENOMEM, "out of memory");
	for (p = 0; p < t->ports.n; p++)
		cap[p] = (double)topo_port_rate(t, (uint32_t)p);
	r = sim_net_init(&x->net, (uint32_t)t->ports.n, cap);
	free(cap);
	return r ? diag_set(d, r, "out of memory") : 0;
}

static void rank_free(struct sim_rank *rk)
{
	uint32_t i;

	for (i = 0; rk->pr && i < rk->plan.npeers; i++) {
		vec_free(&rk->pr[i].in.q);
		vec_free(&rk->pr[i].flying);
	}
	free(rk->pr);
	free(rk->path);
	free(rk->lat);
	free(rk->t_step);
	coll_plan_run_done(&rk->run);
	coll_plan_done(&rk->plan);
}

static void job_free(struct sim_job *j)
{
	uint32_t k;

	for (k = 0; j->ranks && k < j->nranks; k++)
		rank_free(&j->ranks[k]);
	free(j->ranks);
	free(j->eps);
	free(j->coll_ns);
	free(j->coll_in);
	vec_free(&j->paths);
	vec_free(&j->wts);
	memset(j, 0, sizeof(*j));
}

void sim_exec_done(struct sim_exec *x)
{
	size_t i;

	for (i = 0; i < x->jobs.n; i++)
		job_free(&x->jobs.v[i]);
	vec_free(&x->jobs);
	vec_free(&x->ended);
	vec_free(&x->phase_q);
	sim_net_done(&x->net);
}

bool sim_exec_running(const struct sim_exec *x, uint32_t id)
{
	return id < x->jobs.n && x->jobs.v[id].active;
}

double sim_exec_share(const struct sim_exec *x, uint32_t id)
{
	const struct sim_job *j = sim_exec_running(x, id) ? &x->jobs.v[id] : NULL;
	double all = j ? (double)j->steps * j->iterations : 0;

	return !j ? -1 : all > 0 ? (double)j->steps_done / all : 0;
}

static struct sim_job *job_of(struct sim_exec *x, uint32_t id)
{
	return id < x->jobs.n && x->jobs.v[id].active ? &x->jobs.v[id] : NULL;
}

/* Building a job's ranks: their steps, by blocks of ranks or (TACOS, MSCCL: every rank at
 * once) whole. */
struct sim_build {
	struct sim_job *j;
	const struct sim_job_in *in;
	const struct coll_sched *whole; /* NULL: by blocks */
	uint32_t block; /* ranks per block */
	struct diag *d; /* per block: its build's message */
};

/* Rank k's plan from s, which holds its steps, and its connections. */
static int rank_init(struct sim_job *j, const struct coll_sched *s, uint32_t k)
{
	struct sim_rank *rk = &j->ranks[k];
	uint32_t i, np;

	if (coll_plan_init(&rk->plan, s, k) || coll_plan_run_init(&rk->run, &rk->plan))
		return -ENOMEM;
	coll_plan_drop_sched(&rk->plan);
	np = rk->plan.npeers;
	rk->pr = calloc(np + 1, sizeof(*rk->pr));
	rk->path = calloc((size_t)np * j->chans + 1, sizeof(*rk->path));
	rk->lat = calloc((size_t)np * j->chans + 1, sizeof(*rk->lat));
	if (j->step_times)
		rk->t_step = calloc((size_t)rk->plan.n + 1, sizeof(*rk->t_step));
	if (!rk->pr || !rk->path || !rk->lat || (j->step_times && !rk->t_step))
		return -ENOMEM;
	for (i = 0; i < rk->plan.npeers; i++)
		rk->pr[i].in.w.step = COLL_PLAN_NONE;
	return 0;
}

static int rank_of_whole(void *arg, uint32_t k)
{
	struct sim_build *b = arg;

	return rank_init(b->j, b->whole, k);
}

/* Block i's ranks: their steps built alone, their plans prepared, the steps let go. */
static int block_init(void *arg, uint32_t i)
{
	struct sim_build *b = arg;
	uint32_t lo = i * b->block, k;
	uint32_t hi = b->j->nranks - lo < b->block ? b->j->nranks : lo + b->block;
	struct coll_sched s;
	int r = coll_sched_build_range_ext(&b->in->coll, &b->in->ext, lo, hi, &s, &b->d[i]);

	for (k = lo; !r && k < hi; k++)
		r = rank_init(b->j, &s, k);
	coll_sched_done(&s);
	return r == -ENOMEM ? diag_set(&b->d[i], r, "out of memory") : r;
}

/* Runs fn for i < n, by the caller's threads if it has some. */
static int each(const struct sim_exec *x, uint32_t n, int (*fn)(void *arg, uint32_t i), void *arg)
{
	uint32_t i;
	int r = 0;

	if (x->each)
		return x->each(n, fn, arg);
	for (i = 0; !r && i < n; i++)
		r = fn(arg, i);
	return r;
}

/* Every rank's plan and connections: the schedule built by blocks of ranks, or whole. */
static int ranks_init(const struct sim_exec *x, struct sim_job *j, const struct sim_job_in *in,
		      struct diag *d)
{
	uint32_t block = x->block ? x->block : SIM_BLOCK, n = (j->nranks + block - 1) / block, i;
	struct sim_build b = {j, in, NULL, block, calloc(n, sizeof(*b.d))};
	struct coll_sched whole;
	int r;

	if (!b.d)
		return diag_set(d, -ENOMEM, "out of memory");
	if (coll_sched_ranged(&in->coll)) {
		r = each(x, n, block_init, &b);
		for (i = 0; r && i < n && !b.d[i].err; i++)
			; /* the first block that failed: each block's failure has its message */
		if (r)
			diag_set(d, r, "%s", i < n ? b.d[i].msg : "out of memory");
	} else {
		r = coll_sched_build_ext(&in->coll, &in->ext, &whole, d);
		b.whole = &whole;
		if (!r && each(x, j->nranks, rank_of_whole, &b))
			r = diag_set(d, -ENOMEM, "out of memory");
		coll_sched_done(&whole);
	}
	free(b.d);
	return r;
}

/* The steps of j's ranks: their total, and each rank's within what a flow's cookie counts. */
static int count_steps(struct sim_job *j, struct diag *d)
{
	uint32_t k;

	j->steps = 0;
	for (k = 0; k < j->nranks; k++) {
		j->steps += j->ranks[k].plan.n;
		if (j->ranks[k].plan.n >= CK_STEPS / j->chans)
			return diag_set(d, -EINVAL,
					"job %u: rank %u has %u steps over %u channels, more "
					"than the simulator counts (%u)",
					j->id, k, j->ranks[k].plan.n, j->chans, CK_STEPS);
	}
	return 0;
}

/* Each iteration opens with its compute phase; a zero one is a timer too, so that a rank
 * without steps does not recurse from one iteration into the next. */
static int iter_begin(struct sim_exec *x, struct sim_job *j, uint32_t k)
{
	struct sim_rank *rk = &j->ranks[k];

	rk->t_start = x->net.now;
	return sim_timer(&x->net, x->net.now + (int64_t)j->compute_ns,
			 cookie(K_COMPUTE, j->id, k, 0));
}

static int job_setup(struct sim_exec *x, struct sim_job *j, const struct sim_job_in *in,
		     struct diag *d)
{
	int r;

	j->id = in->id;
	j->nranks = in->coll.nranks;
	j->iterations = in->iterations;
	j->compute_ns = in->compute_ns;
	j->chans = in->channels ? in->channels : 1;
	j->step_times = in->step_times;
	j->elem = in->coll.elem;
	j->kind = in->coll.kind;
	j->algo = in->coll.algo;
	j->group = in->coll.group;
	j->bytes = in->coll.bytes;
	if (j->chans > COLL_CHANNELS_MAX)
		return diag_set(d, -EINVAL, "job %u: %u channels, at most %u", j->id, j->chans,
				COLL_CHANNELS_MAX);
	j->ranks = calloc(j->nranks, sizeof(*j->ranks));
	j->eps = malloc(j->nranks * sizeof(*j->eps));
	j->coll_ns = calloc((size_t)j->iterations + 1, sizeof(*j->coll_ns));
	j->coll_in = calloc((size_t)j->iterations + 1, sizeof(*j->coll_in));
	if (!j->ranks || !j->eps || !j->coll_ns || !j->coll_in)
		return diag_set(d, -ENOMEM, "out of memory");
	memcpy(j->eps, in->eps, j->nranks * sizeof(*j->eps));
	j->inj = sim_job_inj(x, j);
	r = ranks_init(x, j, in, d);
	r = r ? r : count_steps(j, d);
	if (r)
		return r;
	r = sim_link_peers(j, d);
	return r ? r : sim_trace_paths(x, j, NULL, NULL, d);
}

/* Room for the records of j's first iteration's messages at once, rather than by doubling as
 * they come (a large collective records millions): one per RECV, half the steps, as every SEND
 * meets one. A hint: without the room, records grow as they come. */
static void reserve_records(struct sim_exec *x, const struct sim_job *j)
{
	(void)vec_reserve(&x->rec->flows, x->rec->flows.n + j->steps / 2);
}

int sim_exec_start(struct sim_exec *x, const struct sim_job_in *in, struct diag *d)
{
	struct sim_job *j;
	uint32_t k;
	int r;

	if (in->id >= SIM_JOBS_MAX || !in->coll.nranks)
		return diag_set(d, -EINVAL, "job %u: out of the simulator's range", in->id);
	while (x->jobs.n <= in->id)
		if (!vec_grow(&x->jobs))
			return diag_set(d, -ENOMEM, "out of memory");
	j = &x->jobs.v[in->id];
	if (j->active)
		return diag_set(d, -EEXIST, "job %u: started twice", in->id);
	r = job_setup(x, j, in, d);
	if (r) {
		job_free(j);
		return r;
	}
	j->active = true;
	reserve_records(x, j);
	for (k = 0; !r && k < j->nranks; k++)
		r = j->iterations ? iter_begin(x, j, k) : 0;
	if (!r && !j->iterations)
		r = vec_push(&x->ended, j->id);
	return r ? diag_set(d, -ENOMEM, "out of memory") : 0;
}

static void job_end(struct sim_exec *x, struct sim_job *j)
{
	uint32_t id = j->id;

	job_free(j);
	(void)vec_push(&x->ended, id); /* reserved: see rank_done */
}

void sim_exec_abort(struct sim_exec *x, uint32_t id)
{
	struct sim_job *j = job_of(x, id);
	size_t f;

	if (!j)
		return;
	for (f = 0; j->flows && f < x->net.flows.n; f++) {
		const struct sim_flow *fl = &x->net.flows.v[f];

		if (fl->active && ck_job(fl->cookie) == id &&
		    !sim_flow_cancel(&x->net, (uint32_t)f))
			j->flows--;
	}
	job_free(j);
}

/* SEND step s of rank k: one flow per part (traffic/plan.h), each over its connection. */
static int start_send(struct sim_exec *x, struct sim_job *j, uint32_t k, uint32_t s)
{
	struct sim_rank *rk = &j->ranks[k];
	const struct coll_plan_node *nd = &rk->plan.node[s];
	uint32_t m = coll_plan_parts(nd->len, j->elem, j->chans), c;
	uint32_t pi = nd->chan / 2, at;
	uint64_t off, wire;
	int r;

	rk->pr[pi].out.left = (uint8_t)m;
	rk->pr[pi].out.t_send = x->net.now;
	rk->pr[pi].out.t_arrive = x->net.now;
	for (c = 0; c < m; c++) {
		at = rk->path[pi * j->chans + c];
		wire = (uint64_t)ceil((double)coll_plan_part(nd->len, j->elem, m, c, &off) /
				      x->goodput);
		r = sim_flow_start(&x->net, j->paths.v + at + 1,
				   j->wts.n ? j->wts.v + at + 1 : NULL, j->paths.v[at],
				   wire ? wire : 1, cookie(K_FLOW, j->id, k, s * j->chans + c));
		if (r < 0)
			return r;
		j->flows++;
	}
	return 0;
}

static int kick(struct sim_exec *x, struct sim_job *j, uint32_t k);

/* Rank k of j entered (coll) or left a collective now, for the caller if it asked. */
static int phase(struct sim_exec *x, const struct sim_job *j, uint32_t k, bool coll)
{
	struct sim_phase p = {j->id, k, coll};

	return x->phases ? vec_push(&x->phase_q, p) : 0;
}

/* Rank k finished an iteration's collective now: the next iteration, or its end. */
static int iter_end(struct sim_exec *x, struct sim_job *j, uint32_t k)
{
	struct sim_rank *rk = &j->ranks[k];
	struct rec_iter *it = vec_grow(&x->rec->iters);

	if (!it)
		return -ENOMEM;
	memset(it, 0, sizeof(*it)); /* padding too: the same run gives the same bytes */
	it->job = j->id;
	it->rank = k;
	it->iter = rk->iter;
	it->t_start = rk->t_start;
	it->t_compute_end = rk->t_compute_end;
	it->t_end = x->net.now;
	j->coll_ns[rk->iter] += (double)(it->t_end - it->t_compute_end);
	if (++j->coll_in[rk->iter] == j->nranks && sim_job_check(x, j, rk->iter))
		return -EFAULT;
	if (phase(x, j, k, false))
		return -ENOMEM;
	if (++rk->iter < j->iterations)
		return iter_begin(x, j, k);
	rk->done = true;
	if (++j->ranks_done < j->nranks)
		return 0;
	if (vec_reserve(&x->ended, x->ended.n + 1))
		return -ENOMEM;
	job_end(x, j);
	return 0;
}

/* Step s of rank k was taken now. */
static void step_taken(struct sim_exec *x, struct sim_rank *rk, uint32_t s)
{
	if (rk->t_step)
		rk->t_step[s] = x->net.now;
}

/* Step s of rank k ended now: its times, if the job reports them. */
static void step_times(struct sim_exec *x, const struct sim_job *j, uint32_t k, uint32_t s)
{
	const struct sim_rank *rk = &j->ranks[k];

	if (rk->t_step && x->on_step)
		x->on_step(x->step_arg, j->id, k, s, rk->t_step[s], x->net.now);
}

/* Step s of rank k completed now. */
static int step_done(struct sim_exec *x, struct sim_job *j, uint32_t k, uint32_t s)
{
	step_times(x, j, k, s);
	coll_plan_run_complete(&j->ranks[k].run, s);
	j->steps_done++;
	if (!coll_plan_run_finished(&j->ranks[k].run))
		return kick(x, j, k);
	return iter_end(x, j, k);
}

/* RECV rv of rank k takes the message from rank src at the head of the connection's queue in. */
static int take_message(struct sim_exec *x, struct sim_job *j, uint32_t k, struct sim_chan_in *in,
			struct sim_recv rv, uint32_t src)
{
	struct rec_flow *f = vec_grow(&x->rec->flows);

	if (!f)
		return -ENOMEM;
	memset(f, 0, sizeof(*f)); /* padding too: the same run gives the same bytes */
	f->job = j->id;
	f->iter = j->ranks[k].iter;
	f->src = src;
	f->dst = k;
	f->src_node = x->t->endpoints.v[j->eps[src]];
	f->dst_node = x->t->endpoints.v[j->eps[k]];
	f->seq = rv.seq;
	f->phase = rv.phase;
	f->bytes = rv.len;
	f->tag = in->q.v[in->head].tag;
	f->t_start = in->q.v[in->head].t_send;
	f->t_end = x->net.now;
	if (++in->head == in->q.n)
		in->q.n = in->head = 0;
	in->w.step = COLL_PLAN_NONE;
	return step_done(x, j, k, rv.step);
}

static int start_step(struct sim_exec *x, struct sim_job *j, uint32_t k, uint32_t s)
{
	struct sim_rank *rk = &j->ranks[k];
	const struct coll_plan_node *nd = &rk->plan.node[s];
	struct sim_chan_in *in;
	struct sim_recv rv;

	if (nd->op == COLL_SEND)
		return start_send(x, j, k, s);
	in = &rk->pr[nd->chan / 2].in;
	rv = (struct sim_recv){s, nd->seq, nd->len, nd->phase};
	if (in->head < in->q.n)
		return take_message(x, j, k, in, rv, rk->plan.peers[nd->chan / 2]);
	in->w = rv;
	return 0;
}

/* Starts every step of rank k that may start now (traffic/plan.h decides which); a local
 * step (an imported MSCCL algorithm's copy or addition) takes no time and moves nothing, a
 * wait (a Chakra compute) is a timer of its length. If
 * those ended the rank's iteration, it ends here. */
static int kick(struct sim_exec *x, struct sim_job *j, uint32_t k)
{
	struct sim_rank *rk = &j->ranks[k];
	bool local = false;
	uint32_t s;
	int r = 0;

	while (!r && j->active && !rk->done &&
	       (s = coll_plan_run_take(&rk->run)) != COLL_PLAN_NONE) {
		step_taken(x, rk, s);
		if (rk->plan.node[s].op == COLL_WAIT) { /* a compute: its step's timer */
			r = sim_timer(&x->net, x->net.now + (int64_t)rk->plan.node[s].len,
				      cookie(K_COMPUTE, j->id, k, s + 1));
			continue;
		}
		if (rk->plan.node[s].op != COLL_LOCAL) {
			r = start_step(x, j, k, s);
			continue;
		}
		step_times(x, j, k, s);
		coll_plan_run_complete(&rk->run, s);
		j->steps_done++;
		local = true;
	}
	if (r || !local || !j->active || rk->done || !coll_plan_run_finished(&rk->run))
		return r;
	return iter_end(x, j, k);
}

static int on_compute(struct sim_exec *x, struct sim_job *j, uint32_t k)
{
	struct sim_rank *rk = &j->ranks[k];

	rk->t_compute_end = x->net.now;
	if (phase(x, j, k, true))
		return -ENOMEM;
	coll_plan_run_reset(&rk->run);
	if (coll_plan_run_finished(&rk->run)) /* a rank without steps (one rank) */
		return iter_end(x, j, k);
	return kick(x, j, k);
}

/* Rank k's SEND step s, started at t_send, arrives at its peer. */
static int on_deliver(struct sim_exec *x, struct sim_job *j, uint32_t k, uint32_t s, int64_t t_send)
{
	const struct sim_rank *rk = &j->ranks[k];
	uint32_t si = rk->plan.node[s].chan / 2, peer = rk->plan.peers[si];
	struct sim_arrival a = {t_send, rk->pr[si].tag};
	struct sim_chan_in *in = &j->ranks[peer].pr[rk->pr[si].back].in;

	if (vec_push(&in->q, a))
		return -ENOMEM;
	return in->w.step != COLL_PLAN_NONE ? take_message(x, j, peer, in, in->w, k) : 0;
}

/* Part v % chans of rank k's SEND step v / chans has sent its last byte; with the step's last
 * part, the step is done for the sender, and its message in flight until the part that
 * arrives last did (and never before the pair's previous message: both are in order). */
static int on_sent(struct sim_exec *x, struct sim_job *j, uint32_t k, uint32_t v)
{
	struct sim_rank *rk = &j->ranks[k];
	uint32_t s = v / j->chans, pi = rk->plan.node[s].chan / 2;
	struct sim_peer *pr = &rk->pr[pi];
	int64_t at = x->net.now + rk->lat[pi * j->chans + v % j->chans];
	int r;

	j->flows--;
	pr->out.t_arrive = at > pr->out.t_arrive ? at : pr->out.t_arrive;
	if (--pr->out.left)
		return 0;
	at = pr->out.t_arrive > pr->t_last ? pr->out.t_arrive : pr->t_last;
	pr->t_last = at;
	if (at > x->net.now) { /* after the pair's earlier messages: in order */
		r = vec_push(&pr->flying, pr->out.t_send);
		r = r ? r : sim_timer(&x->net, at, cookie(K_DELIVER, j->id, k, s));
	} else {
		r = on_deliver(x, j, k, s, pr->out.t_send);
	}
	/* the send completes after its delivery is queued: the peer may be this rank's next */
	return r ? r : step_done(x, j, k, s);
}

/* The delivery of rank k's SEND step s, delayed by the path's latency, is due. */
static int on_arrive(struct sim_exec *x, struct sim_job *j, uint32_t k, uint32_t s)
{
	struct sim_peer *pr = &j->ranks[k].pr[j->ranks[k].plan.node[s].chan / 2];
	int64_t t_send = pr->flying.v[pr->fly_head];

	if (++pr->fly_head == pr->flying.n)
		pr->flying.n = pr->fly_head = 0;
	return on_deliver(x, j, k, s, t_send);
}

static int dispatch(struct sim_exec *x, const struct sim_event *ev)
{
	uint64_t c = ev->cookie;
	struct sim_job *j = job_of(x, ck_job(c));
	unsigned kind = ev->kind == SIM_EV_FLOW_DONE ? K_FLOW : ck_kind(c);

	if (kind == K_WAKE || !j) /* a wake-up, or an event of a job aborted since */
		return 0;
	switch (kind) {
	case K_FLOW:
		return on_sent(x, j, ck_rank(c), ck_step(c));
	case K_COMPUTE: /* the iteration's compute phase, or a WAIT step's (step + 1) */
		if (ck_step(c))
			return step_done(x, j, ck_rank(c), ck_step(c) - 1);
		return on_compute(x, j, ck_rank(c));
	default:
		return on_arrive(x, j, ck_rank(c), ck_step(c));
	}
}

int sim_exec_run(struct sim_exec *x, int64_t until, uint32_t *job)
{
	uint64_t touched = x->net.st.flows_touched;
	struct sim_event ev;
	uint64_t n = 0;
	int r;

	for (;; n++) {
		if (x->phase_q.n) /* before the end of the job they belong to */
			return SIM_X_PHASE;
		if (x->ended.n) {
			*job = x->ended.v[--x->ended.n];
			return SIM_X_JOB_DONE;
		}
		if (until <= x->net.now)
			return SIM_X_UNTIL;
		if (until != INT64_MAX && until != x->wake) {
			r = sim_timer(&x->net, until, cookie(K_WAKE, 0, 0, 0));
			if (r)
				return r;
			x->wake = until;
		}
		if (x->budget && n + x->net.st.flows_touched - touched >= x->budget)
			return SIM_X_BUDGET;
		r = sim_next(&x->net, &ev);
		if (r < 0)
			return r == -EFAULT ? sim_exec_breach(x) : r;
		if (r == 0)
			return SIM_X_IDLE;
		r = dispatch(x, &ev);
		if (r)
			return r;
	}
}

/* Job j's connections traced again over the current plan, and its flows in flight moved onto
 * their connection's new path (what they sent stays sent). */
static int job_reroute(struct sim_exec *x, struct sim_job *j, struct diag *d)
{
	uint32_t *old = j->paths.v;
	double *oldw = j->wts.v;
	size_t f;
	int r;

	memset(&j->paths, 0, sizeof(j->paths));
	memset(&j->wts, 0, sizeof(j->wts));
	r = sim_trace_paths(x, j, old, oldw, d);
	free(old);
	free(oldw);
	for (f = 0; !r && j->flows && f < x->net.flows.n; f++) {
		const struct sim_flow *fl = &x->net.flows.v[f];
		const struct sim_rank *rk;
		uint32_t at;

		if (!fl->active || ck_job(fl->cookie) != j->id)
			continue;
		rk = &j->ranks[ck_rank(fl->cookie)];
		at = rk->path[rk->plan.node[ck_step(fl->cookie) / j->chans].chan / 2 * j->chans +
			      ck_step(fl->cookie) % j->chans];
		r = sim_flow_reroute(&x->net, (uint32_t)f, j->paths.v + at + 1,
				     j->wts.n ? j->wts.v + at + 1 : NULL, j->paths.v[at]);
		if (r)
			diag_set(d, r, "out of memory");
	}
	return r;
}

int sim_exec_reroute(struct sim_exec *x, const struct topo *t, const struct route_plan *plan,
		     struct diag *d)
{
	size_t i;
	int r = 0;

	x->t = t;
	x->plan = plan;
	for (i = 0; !r && i < x->jobs.n; i++)
		if (x->jobs.v[i].active)
			r = job_reroute(x, &x->jobs.v[i], d);
	return r;
}

int sim_exec_tag(struct sim_exec *x, uint32_t job, uint32_t rank, uint32_t peer, uint8_t tag,
		 uint16_t sport)
{
	struct sim_job *j = job_of(x, job);
	int pi, back;

	if (!j || rank >= j->nranks || peer >= j->nranks)
		return -EINVAL;
	pi = coll_plan_peer(&j->ranks[rank].plan, peer);
	back = coll_plan_peer(&j->ranks[peer].plan, rank);
	if (pi < 0 || back < 0)
		return -EINVAL;
	j->ranks[rank].pr[pi].tag = tag;
	if (sport) /* one connection: both directions */
		j->ranks[rank].pr[pi].sport = j->ranks[peer].pr[back].sport = sport;
	return 0;
}

int sim_exec_retrace(struct sim_exec *x, uint32_t job, struct diag *d)
{
	struct sim_job *j = job_of(x, job);

	return j ? job_reroute(x, j, d) : diag_set(d, -EINVAL, "job %u is not running", job);
}

int sim_exec_port_state(struct sim_exec *x, uint32_t port, bool up)
{
	return sim_link_set(&x->net, port, up);
}
