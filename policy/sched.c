// SPDX-License-Identifier: MIT
/* The job scheduler (see sched.h): a FIFO queue, strict (seed 001 §7 pitfall 18) or with
 * backfilling, over first-fit or seeded random placement, ranks laid out leaf-major. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "policy/sched.h"

static uint32_t sched_ep_group(const struct sched *s, uint32_t ep)
{
	return s->t->nodes.v[s->t->endpoints.v[ep]].group;
}

static bool sched_rank_before(const struct sched *s, uint32_t a, uint32_t b)
{
	uint32_t ga = sched_ep_group(s, a), gb = sched_ep_group(s, b);

	return ga != gb ? ga < gb : a < b;
}

/* Leaf-major rank order: by attachment group (leaf, board), then endpoint index (seed 001
 * §5.3, §7 pitfall 21: SR and vClos are contention-free only with this layout). Insertion
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
	s->rng = cfg->seed;
	s->place = cfg->place == SCHED_RANDOM ? sched_place_random : sched_place_first_fit;
	return 0;
}

void sched_done(struct sched *s)
{
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

int sched_submit(struct sched *s, uint32_t job, uint32_t gpus, struct diag *d)
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
	err = sched_job_add(s, job, d);
	if (err)
		return err;
	if (vec_push(&s->queue, job))
		return diag_set(d, -ENOMEM, "out of memory queueing job %u", job);
	j = &s->jobs.v[job];
	*j = (struct sched_job){.id = job, .gpus = gpus, .waiting = true};
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

static int sched_try_start(struct sched *s, uint32_t id)
{
	struct sched_job *j = &s->jobs.v[id];
	uint32_t *eps;
	int err;

	if (j->gpus > s->free_n)
		return -EAGAIN;
	if (vec_reserve(&s->assign, s->assign.n + j->gpus))
		return -ENOMEM;
	eps = s->assign.v + s->assign.n;
	err = s->place(s, id, j->gpus, eps);
	if (!err)
		err = sched_claim(s, eps, j->gpus);
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

int sched_next(struct sched *s, const uint32_t **eps)
{
	size_t qi;
	uint32_t id;
	int err;

	for (qi = 0; qi < s->queue.n; qi++) {
		id = s->queue.v[qi];
		err = sched_try_start(s, id);
		if (!err) {
			sched_dequeue(s, qi);
			*eps = s->assign.v + s->jobs.v[id].first;
			return (int)id;
		}
		/* strict FIFO: the head blocks everyone behind it (seed 001 §7 pitfall 18);
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
		j->running = false;
	}
	for (qi = 0; j->waiting && qi < s->queue.n; qi++) {
		if (s->queue.v[qi] == job) {
			sched_dequeue(s, qi);
			j->waiting = false;
		}
	}
}

uint32_t sched_waiting(const struct sched *s)
{
	return (uint32_t)s->queue.n;
}
