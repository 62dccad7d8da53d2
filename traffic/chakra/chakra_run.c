// SPDX-License-Identifier: MIT
/* Which of a Chakra job's operations may start next (chakra.h, chakra_run_*): the one
 * decision both backends and emu-node take from here. A node is ready once every parent is
 * done; a collective starts once its node is ready on every member of its group (the group's
 * k-th collective on each); a send and its receive start together once both are ready (the
 * transfer needs the receiver's buffer); anything else starts when it is ready. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/chakra/chakra.h"

uint32_t chakra_links_rank(const struct chakra_links *l, size_t n, uint32_t g)
{
	uint32_t lo = 0, hi = (uint32_t)n;

	while (hi - lo > 1) { /* the last base at or below g */
		uint32_t mid = lo + (hi - lo) / 2;

		if (l->base[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The job's node g: its rank (by the links' bases) and its node in that rank. */
static uint32_t rank_of(const struct chakra_run *x, uint32_t g)
{
	return chakra_links_rank(x->l, x->n, g);
}

static const struct chakra_node *node_of(const struct chakra_run *x, uint32_t g)
{
	uint32_t r = rank_of(x, g);

	return &x->ranks[r].nodes.v[g - x->l->base[r]];
}

/* children over the job's nodes, as CSR: child[start[g] .. start[g + 1]). */
static int children(struct chakra_run *x)
{
	uint32_t total = x->l->base[x->n], g, k, *cur;
	size_t r, i;

	x->start = calloc((size_t)total + 2, sizeof(*x->start));
	cur = malloc(((size_t)total + 1) * sizeof(*cur));
	x->wait = calloc((size_t)total + 1, sizeof(*x->wait));
	for (r = 0; x->start && cur && x->wait && r < x->n; r++) {
		const struct chakra_rank *rk = &x->ranks[r];

		for (i = 0; i < rk->nodes.n; i++)
			for (k = rk->nodes.v[i].dep; k < rk->nodes.v[i].dep + rk->nodes.v[i].ndeps;
			     k++) {
				x->start[x->l->base[r] + rk->deps.v[k] + 1]++;
				x->wait[x->l->base[r] + i]++;
			}
	}
	x->child = malloc((x->ndeps + 1) * sizeof(*x->child));
	if (!x->start || !cur || !x->wait || !x->child) {
		free(cur);
		return -ENOMEM;
	}
	for (g = 0; g < total; g++)
		x->start[g + 1] += x->start[g];
	memcpy(cur, x->start, (size_t)total * sizeof(*cur));
	for (r = 0; r < x->n; r++) {
		const struct chakra_rank *rk = &x->ranks[r];

		for (i = 0; i < rk->nodes.n; i++)
			for (k = rk->nodes.v[i].dep; k < rk->nodes.v[i].dep + rk->nodes.v[i].ndeps;
			     k++)
				x->child[cur[x->l->base[r] + rk->deps.v[k]]++] =
					x->l->base[r] + (uint32_t)i;
	}
	free(cur);
	return 0;
}

/* The members' room of each instance and pair: at[id] .. at[id] + need (2 for a pair). */
static int rooms(struct chakra_run *x)
{
	size_t ids = x->l->ninst + x->l->npairs, i, sum = 0;

	x->at = malloc((ids + 1) * sizeof(*x->at));
	x->have = calloc(ids + 1, sizeof(*x->have));
	for (i = 0; x->at && i < ids; i++) {
		x->at[i] = (uint32_t)sum;
		sum += i < x->l->ninst ? x->l->need[i] : 2;
	}
	x->members = malloc((sum + 1) * sizeof(*x->members));
	return x->at && x->have && x->members ? 0 : -ENOMEM;
}

static int push(struct chakra_run *x, struct chakra_op op)
{
	return vec_push(&x->ready, op);
}

/* Node g is ready: it starts, or it waits for the rest of its collective or its pair. */
static int arrive(struct chakra_run *x, uint32_t g)
{
	const struct chakra_node *n = node_of(x, g);
	uint32_t id = x->l->id[g], need;

	if (n->kind != CHAKRA_COLL && n->kind != CHAKRA_SEND && n->kind != CHAKRA_RECV)
		return push(x, (struct chakra_op){n->kind, g, UINT32_MAX});
	need = id < x->l->ninst ? x->l->need[id] : 2;
	/* a pair's room: the send first, the receive second, whichever comes first */
	if (id >= x->l->ninst)
		x->members[x->at[id] + (n->kind == CHAKRA_RECV)] = g;
	else
		x->members[x->at[id] + x->have[id]] = g;
	if (++x->have[id] < need)
		return 0;
	return push(x, (struct chakra_op){n->kind == CHAKRA_COLL ? CHAKRA_COLL : CHAKRA_SEND,
					  x->members[x->at[id]], id});
}

int chakra_run_init(struct chakra_run *x, const struct chakra_rank *ranks, size_t n,
		    const struct chakra_links *l)
{
	uint32_t g;
	size_t r;
	int err;

	memset(x, 0, sizeof(*x));
	x->ranks = ranks;
	x->n = n;
	x->l = l;
	for (r = 0; r < n; r++)
		x->ndeps += ranks[r].deps.n;
	err = children(x);
	err = err ? err : rooms(x);
	for (g = 0; !err && g < l->base[n]; g++)
		if (!x->wait[g])
			err = arrive(x, g);
	if (err)
		chakra_run_done(x);
	return err;
}

bool chakra_run_next(struct chakra_run *x, struct chakra_op *op)
{
	if (x->head == x->ready.n)
		return false;
	*op = x->ready.v[x->head++];
	if (x->head == x->ready.n) /* all taken: the room is used again */
		x->head = x->ready.n = 0;
	return true;
}

const uint32_t *chakra_run_members(const struct chakra_run *x, const struct chakra_op *op,
				   size_t *n)
{
	if (op->id == UINT32_MAX) {
		*n = 1;
		return &op->node;
	}
	*n = op->id < x->l->ninst ? x->l->need[op->id] : 2;
	return &x->members[x->at[op->id]];
}

/* Node g is done: its children that were waiting only for it arrive. */
static int node_done(struct chakra_run *x, uint32_t g)
{
	uint32_t k;
	int err = 0;

	x->done++;
	for (k = x->start[g]; !err && k < x->start[g + 1]; k++)
		if (!--x->wait[x->child[k]])
			err = arrive(x, x->child[k]);
	return err;
}

int chakra_run_ended(struct chakra_run *x, const struct chakra_op *op)
{
	const uint32_t *m;
	size_t n, i;
	int err = 0;

	m = chakra_run_members(x, op, &n);
	for (i = 0; !err && i < n; i++)
		err = node_done(x, m[i]);
	return err;
}

bool chakra_run_finished(const struct chakra_run *x)
{
	return x->done == x->l->base[x->n];
}

void chakra_run_done(struct chakra_run *x)
{
	free(x->start);
	free(x->child);
	free(x->wait);
	free(x->at);
	free(x->have);
	free(x->members);
	vec_free(&x->ready);
	memset(x, 0, sizeof(*x));
}

/* ---- a job that cannot finish ---- */

/* The first node that became ready but waits for a collective or a pair that never
 * completes: its job's index, or UINT32_MAX. */
static uint32_t stuck_node(const struct chakra_run *x)
{
	uint32_t g, id;

	for (g = 0; g < x->l->base[x->n]; g++) {
		id = x->l->id[g];
		if (!x->wait[g] && id != UINT32_MAX &&
		    x->have[id] < (id < x->l->ninst ? x->l->need[id] : 2))
			return g;
	}
	return UINT32_MAX;
}

int chakra_finishes(const struct chakra_rank *ranks, size_t n, const struct chakra_links *l,
		    const char *const *files, struct diag *d)
{
	struct chakra_run x;
	struct chakra_op op;
	char buf[32];
	uint32_t g, r, id, need;
	int err = chakra_run_init(&x, ranks, n, l);

	while (!err && chakra_run_next(&x, &op))
		err = chakra_run_ended(&x, &op);
	if (err) {
		chakra_run_done(&x);
		return diag_set(d, err, "out of memory");
	}
	if (chakra_run_finished(&x) || (g = stuck_node(&x)) == UINT32_MAX) {
		err = chakra_run_finished(&x) ? 0
					      : diag_set(d, -EINVAL,
							 "the job cannot finish: %zu of "
							 "its %u nodes never start",
							 (size_t)l->base[n] - x.done, l->base[n]);
		chakra_run_done(&x);
		return err;
	}
	r = rank_of(&x, g);
	id = l->id[g];
	need = id < l->ninst ? l->need[id] : 2;
	snprintf(buf, sizeof(buf), "rank %u", r);
	err = diag_set(d, -EINVAL,
		       "%s: node %" PRIu64 " (%s) never starts: %s, and %u of its %u %s never "
		       "ready (a cycle through other ranks: the job cannot finish)",
		       files && files[r] ? files[r] : buf, node_of(&x, g)->id,
		       chakra_str(&ranks[r], node_of(&x, g)->name),
		       id < l->ninst ? "its collective waits for every member of its group"
				     : "a send and its receive start together",
		       need - x.have[id], need, id < l->ninst ? "members' nodes are" : "sides is");
	chakra_run_done(&x);
	return err;
}
