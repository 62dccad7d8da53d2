// SPDX-License-Identifier: MIT
/* The job scheduler (see sched.h): a queue (strict FIFO as the vClos authors' code, with
 * backfilling, smallest-first or EDF) over first-fit, seeded random or vClos placement,
 * ranks laid out leaf-major. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "policy/sched.h"
#include "policy/sched_ocs.h"

static uint32_t sched_ep_group(const struct sched *s, uint32_t ep)
{
	return s->t->nodes.v[s->t->endpoints.v[ep]].group;
}

static bool sched_rank_before(const struct sched *s, uint32_t a, uint32_t b)
{
	uint32_t ga = sched_ep_group(s, a), gb = sched_ep_group(s, b);

	return ga != gb ? ga < gb : a < b;
}

/* Leaf-major rank order: by attachment group (leaf, board), then endpoint index (vClos
 * §5.3: SR and vClos are contention-free only with this layout). Insertion
 * sort: the input is almost always sorted already. */
static void sched_rank_order(const struct sched *s, uint32_t *eps, uint32_t n)
{
	uint32_t i, j, x;

	if (s->cfg.placement_order)
		return;
	for (i = 1; i < n; i++) {
		x = eps[i];
		for (j = i; j > 0 && sched_rank_before(s, x, eps[j - 1]); j--)
			eps[j] = eps[j - 1];
		eps[j] = x;
	}
}

static int sched_place_first_fit(struct sched *s, uint32_t job, uint32_t n, uint32_t *out)
{
	uint32_t ep, k = 0;

	(void)job;
	if (n > s->free_n)
		return -EAGAIN;
	for (ep = 0; ep < s->n_ep && k < n; ep++) {
		if (!s->busy[ep])
			out[k++] = ep;
	}
	sched_rank_order(s, out, n);
	return 0;
}

/* Free GPUs of server v (T consecutive endpoints; the last may have fewer). */
static uint32_t server_free(const struct sched *s, uint32_t v, uint32_t T)
{
	uint32_t ep, free = 0;

	for (ep = v * T; ep < (v + 1) * T && ep < s->n_ep; ep++)
		free += !s->busy[ep];
	return free;
}

/* Takes n free endpoints of server v, lowest first, into out. */
static uint32_t server_take(const struct sched *s, uint32_t v, uint32_t T, uint32_t n,
			    uint32_t *out)
{
	uint32_t ep, k = 0;

	for (ep = v * T; ep < (v + 1) * T && ep < s->n_ep && k < n; ep++)
		if (!s->busy[ep])
			out[k++] = ep;
	return k;
}

/* Whole servers, blind to leaves, as the non-strict branch of the vClos paper's simulator
 * places its baselines (RapidNetSim, static_scheduler.py:491-544; docs/papers/vclos-assumptions.md
 * row 8): servers in order of free GPUs, fewest first, lowest-numbered among equals; a job
 * of n <= T GPUs goes to the first with n free, a larger one to the first ceil(n / T) idle
 * servers (the last partly). Without them it waits, GPUs free or not. */
static int sched_place_server_ff(struct sched *s, uint32_t job, uint32_t n, uint32_t *out)
{
	uint32_t T = s->cfg.gpus_per_server > 1 ? s->cfg.gpus_per_server : 1;
	uint32_t nv = (s->n_ep + T - 1) / T, v, best = UINT32_MAX, bf = T + 1, f, k = 0;

	(void)job;
	if (n > s->free_n)
		return -EAGAIN;
	if (n <= T) {
		for (v = 0; v < nv; v++) {
			f = server_free(s, v, T);
			if (f >= n && f < bf) {
				best = v;
				bf = f;
			}
		}
		if (best == UINT32_MAX)
			return -EAGAIN;
		server_take(s, best, T, n, out);
		sched_rank_order(s, out, n);
		return 0;
	}
	for (v = 0; v < nv && k < n; v++)
		if (server_free(s, v, T) == T)
			k += server_take(s, v, T, n - k, out + k);
	if (k < n)
		return -EAGAIN;
	sched_rank_order(s, out, n);
	return 0;
}

/* A uniformly random n-subset of the free endpoints by selection sampling (Knuth, TAOCP
 * vol. 2, 3.4.2, Algorithm S): each free endpoint is taken with probability
 * (still needed) / (free ones left). */
static int sched_place_random(struct sched *s, uint32_t job, uint32_t n, uint32_t *out)
{
	uint32_t ep, k = 0, left = s->free_n;

	(void)job;
	if (n > s->free_n)
		return -EAGAIN;
	for (ep = 0; ep < s->n_ep && k < n; ep++) {
		if (s->busy[ep])
			continue;
		if (rng_next(&s->rng) % left < n - k)
			out[k++] = ep;
		left--;
	}
	sched_rank_order(s, out, n);
	return 0;
}

/* vClos §6 Algorithms 1 and 3 (vclos.h), or its baselines' placement; its endpoints are t's,
 * leaf-major. */
static int sched_place_vclos(struct sched *s, uint32_t job, uint32_t n, uint32_t *out)
{
	struct vclos_alloc a = {0};
	int err = s->cfg.place == SCHED_LOCALITY ? vclos_place_spread(s->vc, job, n, &a)
						 : vclos_place(s->vc, job, n, &a);

	if (err)
		return err;
	while (s->vc_allocs.n <= job) {
		if (!vec_grow(&s->vc_allocs)) {
			vclos_release(s->vc, job);
			vclos_alloc_done(&a);
			return -ENOMEM;
		}
	}
	memcpy(out, a.eps, n * sizeof(*out));
	s->vc_allocs.v[job] = a;
	return 0;
}

static uint32_t sched_count_role(const struct topo *t, enum topo_role role)
{
	uint32_t i, n = 0;

	for (i = 0; i < t->nodes.n; i++)
		n += t->nodes.v[i].role == role;
	return n;
}

/* The vClos cluster of t: L leaves and S spines, each leaf's endpoints consecutive (leaf m
 * holds endpoints m*H .. m*H+H-1, as the leaf-spine generator numbers them), in servers of
 * T. -EINVAL for anything else. */
static int sched_vclos_init(struct sched *s, const struct topo *t, uint32_t gpus)
{
	uint32_t L = sched_count_role(t, TOPO_ROLE_LEAF), S = sched_count_role(t, TOPO_ROLE_SPINE);
	uint32_t T = gpus > 1 ? gpus : 1, H, k;

	if (!L || !S || t->endpoints.n % L)
		return -EINVAL;
	H = (uint32_t)t->endpoints.n / L;
	if (H % T)
		return -EINVAL;
	for (k = 0; k < t->endpoints.n; k++)
		if (t->nodes.v[t->endpoints.v[k]].group != k / H)
			return -EINVAL;
	s->vc = calloc(1, sizeof(*s->vc));
	if (!s->vc)
		return -ENOMEM;
	s->place = sched_place_vclos;
	return vclos_init(s->vc, L, S, H / T, T);
}

int sched_init(struct sched *s, const struct topo *t, const struct sched_cfg *cfg)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->t = t;
	s->n_ep = (uint32_t)t->endpoints.n;
	s->busy = calloc(s->n_ep ? s->n_ep : 1, 1);
	if (!s->busy)
		return -ENOMEM;
	s->free_n = s->n_ep;
	s->idle_gen = UINT64_MAX; /* no call has found nothing yet */
	s->rng = cfg->seed;
	s->place = cfg->place == SCHED_RANDOM		  ? sched_place_random
		   : cfg->place == SCHED_SERVER_FIRST_FIT ? sched_place_server_ff
							  : sched_place_first_fit;
	if (cfg->place == SCHED_OCS_VCLOS) {
		s->place = sched_ocs_place;
		return sched_ocs_init(s, t, cfg->gpus_per_server);
	}
	if (cfg->place == SCHED_VCLOS || cfg->place == SCHED_LOCALITY)
		return sched_vclos_init(s, t, cfg->gpus_per_server);
	return 0;
}

void sched_done(struct sched *s)
{
	size_t i;

	for (i = 0; i < s->vc_allocs.n; i++)
		vclos_alloc_done(&s->vc_allocs.v[i]);
	vec_free(&s->vc_allocs);
	if (s->vc)
		vclos_done(s->vc);
	free(s->vc);
	sched_ocs_done(s);
	free(s->busy);
	vec_free(&s->jobs);
	vec_free(&s->queue);
	vec_free(&s->assign);
	memset(s, 0, sizeof(*s));
}

static int sched_job_add(struct sched *s, uint32_t job, struct diag *d)
{
	while (s->jobs.n <= job) {
		if (!vec_grow(&s->jobs))
			return diag_set(d, -ENOMEM, "out of memory queueing job %u", job);
	}
	if (s->jobs.v[job].gpus)
		return diag_set(d, -EEXIST, "job %u was already submitted", job);
	return 0;
}

bool sched_gpus_fit(uint32_t n_ep, uint32_t gpus)
{
	return gpus && gpus <= n_ep;
}

int sched_submit(struct sched *s, uint32_t job, uint32_t gpus, uint64_t due, struct diag *d)
{
	struct sched_job *j;
	int err;

	if (!gpus)
		return diag_set(d, -EINVAL, "job %u needs no GPUs", job);
	if (!sched_gpus_fit(s->n_ep, gpus))
		return diag_set(d, -EINVAL, "job %u needs %u GPUs but the cluster has %u", job,
				gpus, s->n_ep);
	if (job > INT_MAX) /* sched_next returns ids as int */
		return diag_set(d, -EINVAL, "job id %u is too large", job);
	if (s->vc && s->cfg.place == SCHED_VCLOS && vclos_size_check(s->vc, gpus, d))
		return diag_wrap(d, -EINVAL, "job %u: ", job);
	if (s->ocs && sched_ocs_size_check(s, gpus, d))
		return diag_wrap(d, -EINVAL, "job %u: ", job);
	err = sched_job_add(s, job, d);
	if (err)
		return err;
	if (vec_push(&s->queue, job))
		return diag_set(d, -ENOMEM, "out of memory queueing job %u", job);
	if (s->cfg.queue != SCHED_FIFO) /* it may go before the jobs that could not start */
		s->gen++;
	j = &s->jobs.v[job];
	*j = (struct sched_job){.id = job, .gpus = gpus, .due = due, .waiting = true};
	return 0;
}

/* Marks a placement busy; -EINVAL (nothing marked) if a placement function returned an
 * endpoint out of range, busy or twice. */
static int sched_claim(struct sched *s, const uint32_t *eps, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (eps[i] >= s->n_ep || s->busy[eps[i]])
			break;
		s->busy[eps[i]] = 1;
	}
	if (i == n)
		return 0;
	while (i-- > 0)
		s->busy[eps[i]] = 0;
	return -EINVAL;
}

/* Frees what a vClos or OCS-vClos placement holds for job (nothing for the others). */
static void sched_release(struct sched *s, uint32_t job)
{
	if (s->vc && job < s->vc_allocs.n) {
		vclos_release(s->vc, job);
		vclos_alloc_done(&s->vc_allocs.v[job]);
	}
	sched_ocs_release(s, job);
}

static void sched_note_frag(struct sched *s, struct sched_job *j)
{
	s->frag_tries++;
	s->frag_jobs += !j->fragmented;
	j->fragmented = true;
}

static int sched_try_start(struct sched *s, uint32_t id)
{
	struct sched_job *j = &s->jobs.v[id];
	uint32_t *eps;
	int err;

	if (j->gpus > s->free_n) {
		s->gpu_tries++;
		return -EAGAIN;
	}
	if (vec_reserve(&s->assign, s->assign.n + j->gpus))
		return -ENOMEM;
	eps = s->assign.v + s->assign.n;
	err = s->place(s, id, j->gpus, eps);
	if (err == -EAGAIN) /* enough GPUs free, but not placeable: vClos §7 fragmentation */
		sched_note_frag(s, j);
	if (!err)
		err = sched_claim(s, eps, j->gpus);
	if (err && err != -EAGAIN) /* the placement stands for nothing */
		sched_release(s, id);
	if (err)
		return err;
	j->first = (uint32_t)s->assign.n;
	s->assign.n += j->gpus;
	s->free_n -= j->gpus;
	j->waiting = false;
	j->running = true;
	return 0;
}

static void sched_dequeue(struct sched *s, size_t qi)
{
	memmove(s->queue.v + qi, s->queue.v + qi + 1, (s->queue.n - qi - 1) * sizeof(uint32_t));
	s->queue.n--;
}

/* The queue position of the waiting job that goes first: the fewest GPUs (smallest-first)
 * or the earliest due (EDF), the earliest arrival of those. */
static size_t sched_pick(const struct sched *s)
{
	const struct sched_job *a, *b;
	size_t qi, best = 0;

	for (qi = 1; qi < s->queue.n; qi++) {
		a = &s->jobs.v[s->queue.v[qi]];
		b = &s->jobs.v[s->queue.v[best]];
		if (s->cfg.queue == SCHED_EDF ? a->due < b->due : a->gpus < b->gpus)
			best = qi;
	}
	return best;
}

/* Whether nothing changed since sched_next last found nothing to start (sched.h). */
static bool sched_unchanged(const struct sched *s)
{
	return s->queue.n && s->gen == s->idle_gen && s->queue.v[0] == s->idle_head;
}

static int sched_next_try(struct sched *s, const uint32_t **eps);

int sched_next(struct sched *s, const uint32_t **eps)
{
	int r;

	if (sched_unchanged(s))
		return -EAGAIN;
	r = sched_next_try(s, eps);
	if (r == -EAGAIN && s->queue.n) {
		s->idle_gen = s->gen;
		s->idle_head = s->queue.v[0];
	}
	return r;
}

static int sched_next_try(struct sched *s, const uint32_t **eps)
{
	size_t qi;
	uint32_t id;
	int err;

	if ((s->cfg.queue == SCHED_SMALLEST_FIRST || s->cfg.queue == SCHED_EDF) && s->queue.n) {
		qi = sched_pick(s); /* vClos §9.7: FF and EDF change the order only */
		id = s->queue.v[qi];
		err = sched_try_start(s, id);
		if (err)
			return err;
		sched_dequeue(s, qi);
		*eps = s->assign.v + s->jobs.v[id].first;
		return (int)id;
	}
	for (qi = 0; qi < s->queue.n; qi++) {
		id = s->queue.v[qi];
		err = sched_try_start(s, id);
		if (!err) {
			sched_dequeue(s, qi);
			*eps = s->assign.v + s->jobs.v[id].first;
			return (int)id;
		}
		/* strict FIFO: the head blocks everyone behind it (as in vClos's simulator);
		 * backfill lets any later job that fits go first */
		if (err != -EAGAIN || s->cfg.queue == SCHED_FIFO)
			return err;
	}
	return -EAGAIN;
}

/* Frees a running job's endpoints; a job still waiting leaves the queue (it failed or was
 * cancelled before it started). */
void sched_finish(struct sched *s, uint32_t job)
{
	struct sched_job *j;
	size_t qi;
	uint32_t i;

	if (job >= s->jobs.n)
		return;
	j = &s->jobs.v[job];
	if (j->running) {
		for (i = 0; i < j->gpus; i++)
			s->busy[s->assign.v[j->first + i]] = 0;
		s->free_n += j->gpus;
		s->gen++;
		j->running = false;
		sched_release(s, job);
	}
	for (qi = 0; j->waiting && qi < s->queue.n; qi++) {
		if (s->queue.v[qi] == job) {
			sched_dequeue(s, qi);
			j->waiting = false;
		}
	}
}

const struct vclos_alloc *sched_vclos(const struct sched *s, uint32_t job)
{
	if (s->ocs)
		return sched_ocs_alloc(s, job);
	if (!s->vc || s->cfg.place != SCHED_VCLOS || job >= s->vc_allocs.n || job >= s->jobs.n ||
	    !s->jobs.v[job].running)
		return NULL;
	return &s->vc_allocs.v[job];
}

uint32_t sched_waiting(const struct sched *s)
{
	return (uint32_t)s->queue.n;
}
