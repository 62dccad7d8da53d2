// SPDX-License-Identifier: MIT
/* vClos placement (see vclos.h): GPU and link ownership, the stages of vClos §6 Algorithm 1
 * (one server, one leaf, a virtual Clos by Algorithm 3's shapes), source routing inside a
 * placed job (vClos §5.2) and a link-load check for sets of flows (Lemma 5.1). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "policy/vclos.h"
#include "policy/vclos_find.h"

static int vclos_init_check(uint32_t leaves, uint32_t spines, uint32_t servers, uint32_t gpus)
{
	if (!leaves || !spines || !servers || !gpus)
		return -EINVAL;
	if (leaves > VCLOS_MAX_SWITCHES || spines > VCLOS_MAX_SWITCHES)
		return -EINVAL;
	if ((uint64_t)leaves * servers * gpus > VCLOS_MAX_GPUS)
		return -EINVAL;
	return 0;
}

int vclos_init(struct vclos *c, uint32_t leaves, uint32_t spines, uint32_t servers, uint32_t gpus)
{
	uint32_t n_ep = leaves * servers * gpus, i;
	int err = vclos_init_check(leaves, spines, servers, gpus);

	memset(c, 0, sizeof(*c));
	if (err)
		return err;
	*c = (struct vclos){.leaves = leaves, .spines = spines, .servers = servers, .gpus = gpus};
	c->search_nodes = VCLOS_SEARCH_NODES;
	c->gpu_owner = malloc(n_ep * sizeof(*c->gpu_owner));
	c->link_owner = malloc((size_t)leaves * spines * sizeof(*c->link_owner));
	c->srv_free = malloc((size_t)leaves * servers * sizeof(*c->srv_free));
	c->find = vclos_find_new(leaves, spines);
	if (!c->gpu_owner || !c->link_owner || !c->srv_free || !c->find) {
		vclos_done(c);
		return -ENOMEM;
	}
	memset(c->gpu_owner, 0xff, n_ep * sizeof(*c->gpu_owner));
	memset(c->link_owner, 0xff, (size_t)leaves * spines * sizeof(*c->link_owner));
	for (i = 0; i < leaves * servers; i++)
		c->srv_free[i] = gpus;
	return 0;
}

void vclos_done(struct vclos *c)
{
	free(c->gpu_owner);
	free(c->link_owner);
	free(c->srv_free);
	vclos_find_free(c->find);
	memset(c, 0, sizeof(*c));
}

static uint32_t vclos_n_ep(const struct vclos *c)
{
	return c->leaves * c->servers * c->gpus;
}

/* Stage 2's shape rule: l >= 2 virtual leaves of s = n/l GPUs, whole servers (T | s), at
 * most one link per spine (s <= S) and one leaf's servers (s <= R*T) each. */
static bool vclos_shape_ok(const struct vclos *c, uint32_t n, uint32_t l)
{
	uint32_t s = n / l;

	return l >= 2 && l <= c->leaves && n % l == 0 && s % c->gpus == 0 && s <= c->spines &&
	       s <= c->servers * c->gpus;
}

static bool vclos_size_fits(const struct vclos *c, uint32_t n)
{
	uint32_t l;

	if (!n || n > vclos_n_ep(c))
		return false;
	if (n <= c->gpus || (n + c->gpus - 1) / c->gpus <= c->servers)
		return true;
	for (l = 2; l <= c->leaves; l++) {
		if (vclos_shape_ok(c, n, l))
			return true;
	}
	return false;
}

uint32_t vclos_size_round(const struct vclos *c, uint32_t n)
{
	uint32_t m;

	for (m = n ? n : 1; n && m <= vclos_n_ep(c); m++) {
		if (vclos_size_fits(c, m))
			return m;
	}
	return 0;
}

static uint32_t vclos_s_max(const struct vclos *c)
{
	return c->spines < c->servers * c->gpus ? c->spines : c->servers * c->gpus;
}

int vclos_size_check(const struct vclos *c, uint32_t n, struct diag *d)
{
	uint32_t up;

	if (!n)
		return diag_set(d, -EINVAL, "a job needs at least one GPU");
	if (n > vclos_n_ep(c))
		return diag_set(d, -EINVAL, "%u GPUs: the cluster has %u", n, vclos_n_ep(c));
	if (vclos_size_fits(c, n))
		return 0;
	if (!d)
		return -EINVAL;
	up = vclos_size_round(c, n);
	return diag_set(d, -EINVAL,
			"%u GPUs: more than one leaf's %u servers of %u, and not l x s with 2 <= l "
			"<= %u leaves of s GPUs, s a multiple of %u and at most %u (vClos §6); "
			"%s %u",
			n, c->servers, c->gpus, c->leaves, c->gpus, vclos_s_max(c),
			up ? "the next size that fits is" : "no larger size fits, up to",
			up ? up : vclos_n_ep(c));
}

static bool vclos_holds(const struct vclos *c, uint32_t job)
{
	uint32_t i;

	for (i = 0; i < vclos_n_ep(c); i++) {
		if (c->gpu_owner[i] == job)
			return true;
	}
	for (i = 0; i < c->leaves * c->spines; i++) {
		if (c->link_owner[i] == job)
			return true;
	}
	return false;
}

void vclos_alloc_done(struct vclos_alloc *a)
{
	if (!a)
		return;
	free(a->eps);
	memset(a, 0, sizeof(*a));
}

/* One block for eps and uplink (n each), leaf (up to L) and spine (up to S). */
static int vclos_alloc_new(struct vclos_alloc *a, const struct vclos *c, uint32_t job, uint32_t n)
{
	size_t k = (size_t)2 * n + c->leaves + c->spines, i;

	memset(a, 0, sizeof(*a));
	a->eps = malloc(k * sizeof(*a->eps));
	if (!a->eps)
		return -ENOMEM;
	for (i = 0; i < k; i++)
		a->eps[i] = VCLOS_NONE;
	a->uplink = a->eps + n;
	a->leaf = a->uplink + n;
	a->spine = a->leaf + c->leaves;
	a->job = job;
	a->n = n;
	a->l = 1;
	a->leaf_gpus = c->servers * c->gpus;
	a->exact = true;
	return 0;
}

/* vClos §6 stage 0: best fit, the server with the fewest free GPUs that has n. */
static uint32_t vclos_best_server(const struct vclos *c, uint32_t n)
{
	uint32_t i, best = VCLOS_NONE;

	for (i = 0; i < c->leaves * c->servers; i++) {
		if (c->srv_free[i] >= n &&
		    (best == VCLOS_NONE || c->srv_free[i] < c->srv_free[best]))
			best = i;
	}
	return best;
}

static uint32_t vclos_leaf_idle(const struct vclos *c, uint32_t leaf)
{
	uint32_t r, k = 0;

	for (r = 0; r < c->servers; r++)
		k += c->srv_free[leaf * c->servers + r] == c->gpus;
	return k;
}

/* vClos §6 stage 1: the leaf with the fewest idle servers that has need of them. */
static uint32_t vclos_best_leaf(const struct vclos *c, uint32_t need)
{
	uint32_t n, idle, best = VCLOS_NONE, best_idle = 0;

	for (n = 0; n < c->leaves; n++) {
		idle = vclos_leaf_idle(c, n);
		if (idle >= need && (best == VCLOS_NONE || idle < best_idle)) {
			best = n;
			best_idle = idle;
		}
	}
	return best;
}

/* Gives job the lowest `count` idle servers of leaf, whole; writes the first n of their
 * GPUs to eps. */
void vclos_take_servers(struct vclos *c, uint32_t job, uint32_t leaf, uint32_t count, uint32_t *eps,
			uint32_t n)
{
	uint32_t r, srv, g, k = 0;

	for (r = 0; r < c->servers && count; r++) {
		srv = leaf * c->servers + r;
		if (c->srv_free[srv] != c->gpus)
			continue;
		for (g = 0; g < c->gpus; g++) {
			c->gpu_owner[srv * c->gpus + g] = job;
			if (k < n)
				eps[k++] = srv * c->gpus + g;
		}
		c->srv_free[srv] = 0;
		count--;
	}
}

static int vclos_stage0(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out)
{
	uint32_t srv = vclos_best_server(c, n), ep, k = 0;

	if (srv == VCLOS_NONE)
		return -EAGAIN;
	if (vclos_alloc_new(out, c, job, n))
		return -ENOMEM;
	out->leaf[0] = srv / c->servers;
	for (ep = srv * c->gpus; k < n; ep++) {
		if (c->gpu_owner[ep] == VCLOS_FREE) {
			c->gpu_owner[ep] = job;
			out->eps[k++] = ep;
		}
	}
	c->srv_free[srv] -= n;
	return 0;
}

static int vclos_stage1(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out)
{
	uint32_t need = (n + c->gpus - 1) / c->gpus, leaf;

	if (need > c->servers)
		return -EAGAIN;
	leaf = vclos_best_leaf(c, need);
	if (leaf == VCLOS_NONE)
		return -EAGAIN;
	if (vclos_alloc_new(out, c, job, n))
		return -ENOMEM;
	out->stage = 1;
	out->leaf[0] = leaf;
	vclos_take_servers(c, job, leaf, need, out->eps, n);
	return 0;
}

/* Takes a found virtual Clos: s/T idle servers per leaf, the l*s links; rank j of each
 * virtual leaf goes up to the j-th spine (vClos §5.2: one-to-one onto the job's spines). */
static void vclos_take_clos(struct vclos *c, struct vclos_alloc *a)
{
	uint32_t i, j, *eps;

	a->stage = 2;
	for (i = 0; i < a->l; i++) {
		eps = a->eps + i * a->s;
		vclos_take_servers(c, a->job, a->leaf[i], a->s / c->gpus, eps, a->s);
		for (j = 0; j < a->s; j++) {
			a->uplink[i * a->s + j] = a->spine[j];
			c->link_owner[a->leaf[i] * c->spines + a->spine[j]] = a->job;
		}
	}
}

/* vClos §6 Algorithm 3 (FINDVCLOS): shapes by increasing l, the first that has a solution. */
static int vclos_stage2(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out)
{
	bool exact = true, e;
	uint32_t l;

	if (vclos_alloc_new(out, c, job, n))
		return -ENOMEM;
	vclos_find_prep(c);
	for (l = 2; l <= c->leaves && n / l >= c->gpus; l++) {
		if (!vclos_shape_ok(c, n, l))
			continue;
		if (vclos_find_shape(c, l, n / l, out->leaf, out->spine, &e)) {
			out->l = l;
			out->s = n / l;
			out->exact = exact && e;
			vclos_take_clos(c, out);
			return 0;
		}
		exact = exact && e; /* a cut search may have missed this shape */
	}
	vclos_alloc_done(out);
	return -EAGAIN;
}

int vclos_place_local(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out)
{
	memset(out, 0, sizeof(*out));
	if (job == VCLOS_FREE || !n || n > vclos_n_ep(c))
		return -EINVAL;
	if (vclos_holds(c, job))
		return -EEXIST;
	if (n <= c->gpus)
		return vclos_stage0(c, job, n, out);
	return vclos_stage1(c, job, n, out);
}

/* The leaf with the most idle servers (ties: lowest index), VCLOS_NONE if none has any. */
static uint32_t vclos_fullest_leaf(const struct vclos *c, const uint8_t *used)
{
	uint32_t m, idle, best = VCLOS_NONE, most = 0;

	for (m = 0; m < c->leaves; m++) {
		idle = used[m] ? 0 : vclos_leaf_idle(c, m);
		if (idle > most) {
			most = idle;
			best = m;
		}
	}
	return best;
}

/* vClos §9 baselines (our reading: the same locality, no links held): the idle servers of the
 * leaves with the most of them, leaf after leaf, taken in leaf order so the ranks stay
 * leaf-major. */
static int vclos_spread(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out)
{
	uint32_t need = (n + c->gpus - 1) / c->gpus, left = need, m, take, k = 0;
	uint8_t *used = calloc(c->leaves, 1);
	uint32_t *count = calloc(c->leaves, sizeof(*count));

	if (!used || !count || vclos_alloc_new(out, c, job, n)) {
		free(used);
		free(count);
		return -ENOMEM;
	}
	while (left && (m = vclos_fullest_leaf(c, used)) != VCLOS_NONE) {
		take = vclos_leaf_idle(c, m) < left ? vclos_leaf_idle(c, m) : left;
		count[m] = take;
		used[m] = 1;
		left -= take;
	}
	out->stage = 3;
	out->l = 0;
	for (m = 0; !left && m < c->leaves; m++) {
		if (!count[m])
			continue;
		out->leaf[out->l++] = m;
		vclos_take_servers(c, job, m, count[m], out->eps + k, n - k);
		k += count[m] * c->gpus < n - k ? count[m] * c->gpus : n - k;
	}
	free(used);
	free(count);
	if (left)
		vclos_alloc_done(out);
	return left ? -EAGAIN : 0;
}

int vclos_place_spread(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out)
{
	int err = vclos_place_local(c, job, n, out);

	if (err != -EAGAIN || n <= c->gpus)
		return err;
	return vclos_spread(c, job, n, out);
}

int vclos_place(struct vclos *c, uint32_t job, uint32_t n, struct vclos_alloc *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (job == VCLOS_FREE || !vclos_size_fits(c, n))
		return -EINVAL;
	err = vclos_place_local(c, job, n, out);
	if (err != -EAGAIN || n <= c->gpus)
		return err;
	return vclos_stage2(c, job, n, out);
}

void vclos_release(struct vclos *c, uint32_t job)
{
	uint32_t i;

	if (job == VCLOS_FREE)
		return;
	for (i = 0; i < vclos_n_ep(c); i++) {
		if (c->gpu_owner[i] == job) {
			c->gpu_owner[i] = VCLOS_FREE;
			c->srv_free[i / c->gpus]++;
		}
	}
	for (i = 0; i < c->leaves * c->spines; i++) {
		if (c->link_owner[i] == job)
			c->link_owner[i] = VCLOS_FREE;
	}
}

int vclos_uplink(const struct vclos_alloc *a, uint32_t src_rank, uint32_t dst_rank, uint32_t *spine)
{
	if (src_rank >= a->n || dst_rank >= a->n)
		return -EINVAL;
	if (a->eps[src_rank] / a->leaf_gpus == a->eps[dst_rank] / a->leaf_gpus)
		return 0;
	if (a->uplink[src_rank] == VCLOS_NONE)
		return -EINVAL; /* stages 0 and 1 never cross leaves */
	*spine = a->uplink[src_rank];
	return 1;
}

/* Counts f's flows per directed link into load: uplinks [0, L*S), downlinks [L*S, 2*L*S). */
static int vclos_link_count(const struct vclos *c, const struct vclos_flow *f, size_t n,
			    uint32_t *load)
{
	uint32_t per = c->servers * c->gpus, ls = c->leaves * c->spines, a, b;
	size_t i;

	for (i = 0; i < n; i++) {
		if (f[i].src >= vclos_n_ep(c) || f[i].dst >= vclos_n_ep(c))
			return -EINVAL;
		a = f[i].src / per;
		b = f[i].dst / per;
		if (a == b)
			continue;
		if (f[i].spine >= c->spines)
			return -EINVAL;
		load[a * c->spines + f[i].spine]++;
		load[ls + b * c->spines + f[i].spine]++;
	}
	return 0;
}

int vclos_link_load_max(const struct vclos *c, const struct vclos_flow *f, size_t n)
{
	size_t k = (size_t)2 * c->leaves * c->spines, i;
	uint32_t *load, max = 0;
	int err;

	if (n > INT_MAX)
		return -EINVAL;
	load = calloc(k, sizeof(*load));
	if (!load)
		return -ENOMEM;
	err = vclos_link_count(c, f, n, load);
	for (i = 0; !err && i < k; i++)
		max = load[i] > max ? load[i] : max;
	free(load);
	return err ? err : (int)max;
}
