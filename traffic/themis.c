// SPDX-License-Identifier: MIT
/* Themis (see themis.h): Alg. 1's per-chunk dimension orders from a load tracker and a
 * bandwidth-only latency model, and the offline simulation that fixes each dimension's order
 * of chunk operations (§4.6). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/themis.h"

/* Relative tolerance under which two loads or two event times count as equal: sums of the
 * same terms in another order differ in the last bits, and a tie must not be decided by that. */
#define REL_EPS 1e-9

static double dim_bps(const struct coll_md *md, uint32_t k)
{
	return (double)md->dim[k].rate / 8.0; /* bytes per second */
}

static int check_dim(const struct coll_md_dim *dm, uint32_t k, struct diag *d)
{
	if (dm->size < 2)
		return diag_set(d, -EINVAL,
				"multidim: dimension %u has size %u, at least 2 expected", k,
				dm->size);
	if (dm->algo > COLL_MD_HD)
		return diag_set(d, -EINVAL, "multidim: dimension %u: unknown algorithm %u", k,
				dm->algo);
	if (dm->algo == COLL_MD_HD && (dm->size & (dm->size - 1)))
		return diag_set(
			d, -EINVAL,
			"multidim: dimension %u has %u nodes: halving-doubling needs a power "
			"of two (switch: direct runs any size)",
			k, dm->size);
	if (!dm->active)
		return diag_set(d, -EINVAL, "multidim: dimension %u: active 0, at least 1 expected",
				k);
	if (!dm->rate)
		return diag_set(d, -EINVAL, "multidim: dimension %u has rate 0 bit/s", k);
	return 0;
}

int themis_check(const struct coll_md *md, struct diag *d)
{
	uint32_t k;
	int err;

	if (!md->ndims || md->ndims > COLL_MD_DIMS)
		return diag_set(d, -EINVAL, "multidim: %u dimensions, expected 1 to %d", md->ndims,
				COLL_MD_DIMS);
	if (md->sched > COLL_MD_THEMIS)
		return diag_set(d, -EINVAL, "multidim: unknown scheduler %u", md->sched);
	if (md->intra > COLL_MD_SCF)
		return diag_set(d, -EINVAL, "multidim: unknown intra-dimension policy %u",
				md->intra);
	if (md->kind != COLL_ALLREDUCE && md->kind != COLL_REDUCESCATTER &&
	    md->kind != COLL_ALLGATHER)
		return diag_set(d, -EINVAL,
				"multidim: builds an all-reduce, reduce-scatter or all-gather, not "
				"collective kind %u",
				md->kind);
	if (!md->chunks || md->chunks > THEMIS_MAX_CHUNKS)
		return diag_set(d, -EINVAL, "multidim: %u chunks, expected 1 to %d", md->chunks,
				THEMIS_MAX_CHUNKS);
	if (md->sched == COLL_MD_THEMIS && !md->thr_div)
		return diag_set(d, -EINVAL,
				"multidim: the Themis threshold divisor (thr_div) is 0, at least 1 "
				"expected (the paper's 16)");
	for (k = 0; k < md->ndims; k++) {
		err = check_dim(&md->dim[k], k, d);
		if (err)
			return err;
	}
	return 0;
}

static int check_all(const struct coll_md *md, double bytes, struct diag *d)
{
	if (!(bytes > 0) || !isfinite(bytes))
		return diag_set(d, -EINVAL, "multidim: %g bytes, a positive size expected", bytes);
	return themis_check(md, d);
}

/* a < b beyond rounding. */
static bool less(double a, double b)
{
	return a < b - REL_EPS * fmax(fabs(a), fabs(b));
}

/* Themis §4.4: the latency model is bandwidth only. A stage on dimension k that starts with
 * s bytes sends s (P_k - 1)/P_k (reduce-scatter) or s (P_k - 1) (all-gather) at B_k (§2.3). */
static double lat(const struct coll_md *md, uint32_t k, bool ag, double s)
{
	double p = md->dim[k].size;

	return (ag ? s * (p - 1) : s * (p - 1) / p) / dim_bps(md, k);
}

/* Ties go to the lower index. */
static uint32_t argmin(const double *v, uint32_t n)
{
	uint32_t i, m = 0;

	for (i = 1; i < n; i++)
		if (less(v[i], v[m]))
			m = i;
	return m;
}

static uint32_t argmax(const double *v, uint32_t n)
{
	uint32_t i, m = 0;

	for (i = 1; i < n; i++)
		if (less(v[m], v[i]))
			m = i;
	return m;
}

/* Dimensions by ascending load; a stable insertion sort, so ties keep the lower index first. */
static void sort_by_load(const double *load, uint32_t n, uint8_t *order)
{
	uint32_t i, j;
	uint8_t k;

	for (i = 0; i < n; i++)
		order[i] = (uint8_t)i;
	for (i = 1; i < n; i++) {
		k = order[i];
		for (j = i; j > 0 && less(load[k], load[order[j - 1]]); j--)
			order[j] = order[j - 1];
		order[j] = k;
	}
}

/* Reverses order[0..n). */
static void reverse(uint8_t *order, uint32_t n)
{
	uint32_t i;
	uint8_t t;

	for (i = 0; i < n / 2; i++) {
		t = order[i];
		order[i] = order[n - 1 - i];
		order[n - 1 - i] = t;
	}
}

/* Themis §4.2, Alg. 1 lines 17-30, for the reduce-scatter (ag false) or all-gather of a chunk
 * that starts with `chunk` bytes: the baseline order (ascending dimensions for a
 * reduce-scatter, descending for an all-gather) while the loads are within the threshold, a
 * chunk/thr_div stage on the least-loaded dimension; else the dimensions by ascending load
 * (reduce-scatter) or descending load (all-gather), so the largest data goes where the load
 * is least. Then the tracker takes the chunk's predicted times. */
static void schedule_chunk(const struct coll_md *md, bool ag, double chunk, double *load,
			   uint8_t *order)
{
	uint32_t n = md->ndims, kmin = argmin(load, n), kmax = argmax(load, n), j;
	double thr, s = chunk;

	thr = md->sched == COLL_MD_THEMIS ? lat(md, kmin, ag, chunk / md->thr_div) : 0;
	if (md->sched == COLL_MD_BASELINE || load[kmax] - load[kmin] < thr) {
		for (j = 0; j < n; j++)
			order[j] = (uint8_t)j;
	} else {
		sort_by_load(load, n, order);
	}
	if (ag)
		reverse(order, n);
	for (j = 0; j < n; j++) {
		load[order[j]] += lat(md, order[j], ag, s);
		s = ag ? s * md->dim[order[j]].size : s / md->dim[order[j]].size;
	}
}

uint64_t themis_nodes(const struct coll_md *md)
{
	uint64_t n = 1;
	uint32_t k;

	for (k = 0; k < md->ndims && k < COLL_MD_DIMS; k++) {
		n *= md->dim[k].size;
		if (n > COLL_MAX_RANKS)
			return (uint64_t)COLL_MAX_RANKS + 1;
	}
	return n;
}

uint32_t themis_phases(const struct coll_md *md)
{
	return md->kind == COLL_ALLREDUCE ? 2u * md->ndims : md->ndims;
}

/* Themis §4.2: the tracker starts at 0, as in ASTRA-sim (the paper starts it at each
 * dimension's fixed delay A_K, which a bandwidth-only model does not have). An all-reduce is
 * scheduled as its reduce-scatter, and only the reduce-scatter part enters the tracker
 * (ASTRA-sim's convention): the all-gather stage on a dimension sends as much as the
 * reduce-scatter stage there, so counting it would double every load and the threshold alike.
 * The all-gather stages run the reduce-scatter order reversed (Alg. 1 line 8). A
 * reduce-scatter or all-gather alone is scheduled as itself (Alg. 1 lines 9-11); an
 * all-gather's chunk starts with chunk/N bytes on a node. */
int themis_orders(const struct coll_md *md, double bytes, uint8_t *order, struct diag *d)
{
	double load[COLL_MD_DIMS] = {0}, chunk = bytes / md->chunks;
	uint32_t n = md->ndims, np = themis_phases(md), c, j;
	bool ag = md->kind == COLL_ALLGATHER;
	uint8_t *o;
	int err = check_all(md, bytes, d);

	if (err)
		return err;
	for (c = 0; c < md->chunks; c++) {
		o = order + (size_t)c * np;
		schedule_chunk(md, ag, ag ? chunk / (double)themis_nodes(md) : chunk, load, o);
		for (j = 0; np > n && j < n; j++)
			o[n + j] = o[n - 1 - j];
	}
	return 0;
}

double themis_t_ideal(const struct coll_md *md, double bytes)
{
	double n = (double)themis_nodes(md), bw = 0, halves = md->kind == COLL_ALLREDUCE ? 2 : 1;
	uint32_t k;

	for (k = 0; k < md->ndims && k < COLL_MD_DIMS; k++)
		bw += dim_bps(md, k);
	return bw > 0 ? halves * bytes * (n - 1) / n / bw : 0;
}

/* Sizes from one division by the product of the dimensions the chunk is reduced over, so that
 * equal sizes reached in different orders compare equal (SCF's key). */
static void op_sizes(struct themis_op *op, double chunk, double prod, double p)
{
	if (!op->ag) {
		op->in = chunk / prod;
		op->out = chunk / (prod * p);
		op->bytes = chunk * (p - 1) / (prod * p);
	} else {
		op->in = chunk / prod;
		op->out = chunk / (prod / p);
		op->bytes = chunk * (p - 1) / prod;
	}
}

/* The chunk operations in ops[c * S + j], from the orders. prod is what the chunk is divided
 * by on a node before the stage: 1 at a reduce-scatter's start, N at an all-gather's. */
static void fill_ops(const struct coll_md *md, double bytes, const uint8_t *order,
		     struct themis_op *ops)
{
	uint32_t n = md->ndims, np = themis_phases(md), c, j;
	double chunk = bytes / md->chunks, prod, p;
	struct themis_op *op;

	for (c = 0; c < md->chunks; c++) {
		prod = md->kind == COLL_ALLGATHER ? (double)themis_nodes(md) : 1;
		for (j = 0; j < np; j++) {
			op = &ops[(size_t)c * np + j];
			op->chunk = c;
			op->phase = (uint8_t)j;
			op->dim = order[(size_t)c * np + j];
			op->ag = md->kind == COLL_ALLGATHER || j >= n;
			p = md->dim[op->dim].size;
			op_sizes(op, chunk, prod, p);
			prod = op->ag ? prod / p : prod * p;
		}
	}
}

/* One dimension of the simulation: a server with `active` slots sharing B_k equally. */
struct sim_dim {
	uint32_t *queue, nq; /* ready, not started (any order: the pick is by a total key) */
	uint32_t *run, nrun; /* started, not finished */
	uint32_t nseq; /* ops started so far */
};

struct sim {
	const struct coll_md *md;
	struct themis_plan *pl;
	double *rem; /* per op: bytes left to send */
	struct sim_dim dim[COLL_MD_DIMS];
	uint32_t nstarted;
	double now;
};

/* Themis §4.3: whether waiting op a starts before b. FIFO: by ready time; SCF: the smaller
 * max(input, output) size of the stage first (ASTRA-sim's key), then by ready time. Then by
 * chunk: no two waiting ops of one dimension share a chunk, so the order is total. */
static bool goes_first(const struct sim *m, const struct themis_op *a, const struct themis_op *b)
{
	double ka = fmax(a->in, a->out), kb = fmax(b->in, b->out);

	if (m->md->intra == COLL_MD_SCF && ka != kb)
		return ka < kb;
	if (a->ready != b->ready)
		return a->ready < b->ready;
	return a->chunk < b->chunk;
}

static void enqueue_at(struct sim *m, uint32_t op, double t)
{
	struct sim_dim *sd = &m->dim[m->pl->ops[op].dim];

	m->pl->ops[op].ready = t;
	sd->queue[sd->nq++] = op;
}

/* Starts waiting ops on dimension k while a slot is free; never preempts. */
static void start_ops(struct sim *m, uint32_t k)
{
	struct sim_dim *sd = &m->dim[k];
	struct themis_op *ops = m->pl->ops;
	uint32_t i, best, op;

	while (sd->nq && sd->nrun < m->md->dim[k].active) {
		for (best = 0, i = 1; i < sd->nq; i++)
			if (goes_first(m, &ops[sd->queue[i]], &ops[sd->queue[best]]))
				best = i;
		op = sd->queue[best];
		sd->queue[best] = sd->queue[--sd->nq];
		sd->run[sd->nrun++] = op;
		ops[op].start = m->now;
		ops[op].seq = sd->nseq;
		m->pl->seq[(size_t)k * m->pl->per_dim + sd->nseq++] = op;
		m->pl->started[m->nstarted++] = op;
	}
}

/* When the first running op finishes; INFINITY if none runs. */
static double next_end(const struct sim *m)
{
	double t = INFINITY, f;
	uint32_t k, i;

	for (k = 0; k < m->md->ndims; k++)
		for (i = 0; i < m->dim[k].nrun; i++) {
			f = m->now + m->rem[m->dim[k].run[i]] * m->dim[k].nrun / dim_bps(m->md, k);
			t = fmin(t, f);
		}
	return t;
}

/* Advances dimension k to time t: ops that finish by then (within rounding) end at t and
 * queue their chunk's next stage; the others send their share of B_k meanwhile. */
static void advance_dim(struct sim *m, uint32_t k, double t)
{
	struct sim_dim *sd = &m->dim[k];
	double rate = dim_bps(m->md, k) / sd->nrun, fin;
	uint32_t i = 0, op;

	while (i < sd->nrun) {
		op = sd->run[i];
		fin = m->now + m->rem[op] / rate;
		if (fin > t + REL_EPS * t) {
			m->rem[op] -= (t - m->now) * rate;
			i++;
			continue;
		}
		m->rem[op] = 0;
		m->pl->ops[op].end = t;
		sd->run[i] = sd->run[--sd->nrun];
		if (m->pl->ops[op].phase + 1u < m->pl->nphases)
			enqueue_at(m, op + 1, t);
	}
}

/* Event by event: start what may start, then move to the next end. All first stages are
 * ready at 0. */
static void simulate(struct sim *m)
{
	struct themis_plan *pl = m->pl;
	uint32_t c, k;
	double t;

	for (c = 0; c < pl->chunks; c++)
		enqueue_at(m, c * pl->nphases, 0);
	for (;;) {
		for (k = 0; k < pl->ndims; k++)
			start_ops(m, k);
		t = next_end(m);
		if (t == INFINITY)
			break;
		for (k = 0; k < pl->ndims; k++)
			if (m->dim[k].nrun)
				advance_dim(m, k, t);
		m->now = t;
	}
	pl->makespan = m->now;
}

static int sim_alloc(struct sim *m, size_t nops)
{
	uint32_t k;

	m->rem = calloc(nops, sizeof(*m->rem));
	if (!m->rem)
		return -ENOMEM;
	for (k = 0; k < m->md->ndims; k++) {
		m->dim[k].queue = calloc(m->pl->per_dim, sizeof(uint32_t));
		m->dim[k].run = calloc(m->md->dim[k].active, sizeof(uint32_t));
		if (!m->dim[k].queue || !m->dim[k].run)
			return -ENOMEM;
	}
	return 0;
}

static void sim_free(struct sim *m)
{
	uint32_t k;

	free(m->rem);
	for (k = 0; k < COLL_MD_DIMS; k++) {
		free(m->dim[k].queue);
		free(m->dim[k].run);
	}
}

static int plan_alloc(struct themis_plan *pl, const struct coll_md *md)
{
	size_t nops = (size_t)md->chunks * themis_phases(md);

	pl->chunks = md->chunks;
	pl->ndims = md->ndims;
	pl->nphases = (uint8_t)themis_phases(md);
	pl->kind = md->kind;
	pl->per_dim = md->chunks * pl->nphases / md->ndims;
	pl->ops = calloc(nops, sizeof(*pl->ops));
	pl->seq = calloc(nops, sizeof(*pl->seq));
	pl->started = calloc(nops, sizeof(*pl->started));
	return pl->ops && pl->seq && pl->started ? 0 : -ENOMEM;
}

static int plan_ops(struct themis_plan *pl, const struct coll_md *md, double bytes, struct diag *d)
{
	uint8_t *order = calloc((size_t)pl->chunks * pl->nphases, 1);
	int err;

	if (!order)
		return -ENOMEM;
	err = themis_orders(md, bytes, order, d);
	if (!err)
		fill_ops(md, bytes, order, pl->ops);
	free(order);
	return err;
}

static void plan_run(struct themis_plan *pl, struct sim *m, const struct coll_md *md, double bytes)
{
	size_t i, nops = (size_t)pl->chunks * pl->nphases;

	for (i = 0; i < nops; i++)
		m->rem[i] = pl->ops[i].bytes;
	simulate(m);
	pl->t_ideal = themis_t_ideal(md, bytes);
}

int themis_plan_build(const struct coll_md *md, double bytes, struct themis_plan *pl,
		      struct diag *d)
{
	struct sim m = {.md = md, .pl = pl};
	int err;

	memset(pl, 0, sizeof(*pl));
	err = check_all(md, bytes, d);
	if (err)
		return err;
	err = plan_alloc(pl, md);
	if (!err)
		err = plan_ops(pl, md, bytes, d);
	if (!err)
		err = sim_alloc(&m, (size_t)pl->chunks * pl->nphases);
	if (!err)
		plan_run(pl, &m, md, bytes);
	sim_free(&m);
	if (err)
		themis_plan_done(pl);
	if (err == -ENOMEM)
		return diag_set(d, err, "multidim: out of memory for the plan of %u chunks",
				md->chunks);
	return err;
}

void themis_plan_done(struct themis_plan *pl)
{
	if (!pl)
		return;
	free(pl->ops);
	free(pl->seq);
	free(pl->started);
	memset(pl, 0, sizeof(*pl));
}
