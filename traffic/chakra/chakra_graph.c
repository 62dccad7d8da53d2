// SPDX-License-Identifier: MIT
/* The job a Chakra trace's ranks make, checked (chakra.h, chakra_check): no rank's graph has a
 * cycle, every send meets its receive, and every process group's members run the same
 * collectives in the same order (ASTRA-sim matches them by issue order; the file's order is
 * the issue order a trace's producers write). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/chakra/chakra.h"

/* Where a node is, for messages. */
static const char *file_of(const char *const *files, size_t rank, char *buf, size_t len)
{
	if (files && files[rank])
		return files[rank];
	snprintf(buf, len, "rank %zu", rank);
	return buf;
}

/* ---- cycles ---- */

/* A node on a cycle of r, given that left[] marks the nodes Kahn's order could not reach: from
 * any of them, parents still left lead onto the cycle within n steps. */
static uint32_t on_cycle(const struct chakra_rank *r, const uint8_t *left)
{
	uint32_t i = 0, k, step;

	while (!left[i])
		i++;
	for (step = 0; step < r->nodes.n; step++) {
		const struct chakra_node *n = &r->nodes.v[i];

		for (k = n->dep; k < n->dep + n->ndeps && !left[r->deps.v[k]]; k++)
			;
		i = r->deps.v[k]; /* a node left has a parent left */
	}
	return i;
}

/* r's children as CSR: the children of p are child[start[p] .. start[p + 1]); indeg[i], node
 * i's parents (a parent named twice counts twice, and is met twice). */
static void children(const struct chakra_rank *r, uint32_t *start, uint32_t *child, uint32_t *indeg,
		     uint32_t *cur)
{
	size_t n = r->nodes.n, i, k;

	for (i = 0; i < n; i++)
		for (k = r->nodes.v[i].dep; k < r->nodes.v[i].dep + r->nodes.v[i].ndeps; k++) {
			start[r->deps.v[k] + 1]++;
			indeg[i]++;
		}
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	memcpy(cur, start, n * sizeof(*cur));
	for (i = 0; i < n; i++)
		for (k = r->nodes.v[i].dep; k < r->nodes.v[i].dep + r->nodes.v[i].ndeps; k++)
			child[cur[r->deps.v[k]]++] = (uint32_t)i;
}

/* Kahn's order over r's nodes: -EINVAL naming a node on a cycle if some are never reached. */
static int no_cycle(const struct chakra_rank *r, const char *file, struct diag *d)
{
	size_t n = r->nodes.n, i, head = 0, tail = 0;
	uint32_t *start = calloc(n + 2, sizeof(*start)), *child = malloc((r->deps.n + 1) * 4);
	uint32_t *indeg = calloc(n + 1, sizeof(*indeg)), *queue = malloc((n + 1) * 4);
	uint8_t *left = malloc(n + 1);
	int err = start && child && indeg && queue && left ? 0 : -ENOMEM;

	if (!err)
		children(r, start, child, indeg, queue);
	for (i = 0; !err && i < n; i++)
		if (!indeg[i])
			queue[tail++] = (uint32_t)i;
	while (!err && head < tail) {
		uint32_t p = queue[head++], k;

		for (k = start[p]; k < start[p + 1]; k++)
			if (!--indeg[child[k]])
				queue[tail++] = child[k];
	}
	if (!err && tail < n) {
		const struct chakra_node *c;

		for (i = 0; i < n; i++)
			left[i] = indeg[i] != 0;
		c = &r->nodes.v[on_cycle(r, left)];
		err = diag_set(d, -EINVAL,
			       "%s: node %" PRIu64 " (%s) depends on itself through a cycle of "
			       "dependencies (%zu of the file's %zu nodes can never start)",
			       file, c->id, chakra_str(r, c->name), n - tail, n);
	}
	free(start);
	free(child);
	free(indeg);
	free(queue);
	free(left);
	return err == -ENOMEM ? diag_set(d, err, "%s: out of memory", file) : err;
}

/* ---- sends and receives ---- */

/* A send or receive: from src to dst with tag, the rank and node it is. */
struct p2p {
	int32_t src, dst, tag;
	uint32_t rank, node;
};

/* By source, destination and tag. */
static int key_cmp(const struct p2p *x, const struct p2p *y)
{
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return 0;
}

/* By key, then in file order (all of a key's sends are one rank's, and so its receives). */
static int p2p_cmp(const void *a, const void *b)
{
	const struct p2p *x = a, *y = b;
	int c = key_cmp(x, y);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

/* Every send (send true) or receive of the job into v (sorted), its peer checked. */
static int gather_p2p(const struct chakra_rank *ranks, size_t nr, const char *const *files,
		      bool send, struct p2p **v, size_t *nv, struct diag *d)
{
	size_t r, i, n = 0;
	char buf[32];

	for (r = 0; r < nr; r++)
		for (i = 0; i < ranks[r].nodes.n; i++)
			n += ranks[r].nodes.v[i].kind == (send ? CHAKRA_SEND : CHAKRA_RECV);
	*v = malloc((n + 1) * sizeof(**v));
	*nv = 0;
	if (!*v)
		return diag_set(d, -ENOMEM, "out of memory");
	for (r = 0; r < nr; r++)
		for (i = 0; i < ranks[r].nodes.n; i++) {
			const struct chakra_node *x = &ranks[r].nodes.v[i];

			if (x->kind != (send ? CHAKRA_SEND : CHAKRA_RECV))
				continue;
			if (x->peer < 0 || (size_t)x->peer >= nr || (size_t)x->peer == r)
				return diag_set(d, -EINVAL,
						"%s: node %" PRIu64 " (%s): %s %d is not another "
						"rank of the job (0 to %zu)",
						file_of(files, r, buf, sizeof(buf)), x->id,
						chakra_str(&ranks[r], x->name),
						send ? "comm_dst" : "comm_src", x->peer, nr - 1);
			(*v)[(*nv)++] = (struct p2p){send ? (int32_t)r : x->peer,
						     send ? x->peer : (int32_t)r, x->tag,
						     (uint32_t)r, (uint32_t)i};
		}
	qsort(*v, *nv, sizeof(**v), p2p_cmp);
	return 0;
}

/* One side with nothing to meet it. */
static int unpaired(const struct chakra_rank *ranks, const char *const *files, const struct p2p *x,
		    bool send, struct diag *d)
{
	const struct chakra_node *n = &ranks[x->rank].nodes.v[x->node];
	char buf[32];

	return diag_set(d, -EINVAL,
			"%s: node %" PRIu64 " (%s): a %s rank %d with comm_tag %d that no %s at "
			"rank %d meets (the k-th send from a to b with a tag meets the k-th "
			"receive at b from a with that tag)",
			file_of(files, x->rank, buf, sizeof(buf)), n->id,
			chakra_str(&ranks[x->rank], n->name), send ? "send to" : "receive from",
			send ? x->dst : x->src, x->tag, send ? "receive" : "send",
			send ? x->dst : x->src);
}

/* Sends and receives paired in order, their sizes the same. */
static int pair_p2p(const struct chakra_rank *ranks, size_t nr, const char *const *files,
		    struct chakra_stats *st, struct chakra_links *l, struct diag *d)
{
	struct p2p *s = NULL, *v = NULL;
	size_t ns = 0, nv = 0, i = 0, k = 0;
	char b1[32], b2[32];
	int err = gather_p2p(ranks, nr, files, true, &s, &ns, d);

	err = err ? err : gather_p2p(ranks, nr, files, false, &v, &nv, d);
	while (!err && (i < ns || k < nv)) {
		int c = i == ns ? 1 : k == nv ? -1 : key_cmp(&s[i], &v[k]);

		if (c) {
			err = unpaired(ranks, files, c < 0 ? &s[i] : &v[k], c < 0, d);
			break;
		}
		{
			const struct chakra_node *a = &ranks[s[i].rank].nodes.v[s[i].node];
			const struct chakra_node *b = &ranks[v[k].rank].nodes.v[v[k].node];

			if (a->bytes != b->bytes)
				err = diag_set(
					d, -EINVAL,
					"%s: node %" PRIu64 " (%s) sends %" PRIu64
					" bytes to rank %d, and %s: node %" PRIu64
					" (%s), the receive it meets (comm_tag %d), takes %" PRIu64,
					file_of(files, s[i].rank, b1, sizeof(b1)), a->id,
					chakra_str(&ranks[s[i].rank], a->name), a->bytes, s[i].dst,
					file_of(files, v[k].rank, b2, sizeof(b2)), b->id,
					chakra_str(&ranks[v[k].rank], b->name), s[i].tag, b->bytes);
			st->p2p_bytes += a->bytes;
		}
		{ /* pair ids follow the collectives' instances */
			l->id[l->base[s[i].rank] + s[i].node] = (uint32_t)(l->ninst + st->pairs);
			l->id[l->base[v[k].rank] + v[k].node] = (uint32_t)(l->ninst + st->pairs);
		}
		st->pairs++;
		i++;
		k++;
	}
	free(s);
	free(v);
	return err;
}

/* ---- collectives ---- */

/* A collective: its group's name (as the rank writes it), the rank and the node. */
struct coll_at {
	const char *pg;
	uint32_t rank, node;
};

static int coll_cmp(const void *a, const void *b)
{
	const struct coll_at *x = a, *y = b;
	int c = strcmp(x->pg, y->pg);

	if (c)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

/* Rank r's collectives of the group starting at v[i] (sorted): their count. */
static size_t run_of(const struct coll_at *v, size_t n, size_t i, uint32_t r)
{
	size_t k = i;

	while (k < n && !strcmp(v[k].pg, v[i].pg) && v[k].rank == r)
		k++;
	return k - i;
}

/* Member a's collectives of a group (at x, na of them) against the first member's (at f, nf):
 * the same kinds and sizes in the same order. */
static int same_colls(const struct chakra_rank *ranks, const char *const *files,
		      const struct coll_at *f, size_t nf, const struct coll_at *x, size_t na,
		      struct diag *d)
{
	size_t i;
	char b1[32], b2[32];

	for (i = 0; i < nf && i < na; i++) {
		const struct chakra_node *p = &ranks[f[i].rank].nodes.v[f[i].node];
		const struct chakra_node *q = &ranks[x[i].rank].nodes.v[x[i].node];

		if (p->coll != q->coll || p->bytes != q->bytes)
			return diag_set(d, -EINVAL,
					"%s: node %" PRIu64
					" (%s), collective %zu of process group "
					"'%s': %s of %" PRIu64 " bytes, where %s has %s of %" PRIu64
					" (node %" PRIu64 ")",
					file_of(files, x[i].rank, b1, sizeof(b1)), q->id,
					chakra_str(&ranks[x[i].rank], q->name), i + 1, x[i].pg,
					chakra_coll_name(q->coll), q->bytes,
					file_of(files, f[i].rank, b2, sizeof(b2)),
					chakra_coll_name(p->coll), p->bytes, p->id);
	}
	if (nf == na)
		return 0;
	return diag_set(d, -EINVAL,
			"process group '%s': %s has %zu collectives and %s %zu: every member runs "
			"the same ones",
			f[0].pg, file_of(files, f[0].rank, b1, sizeof(b1)), nf,
			file_of(files, x[0].rank, b2, sizeof(b2)), na);
}

/* Every rank's collectives, sorted by group, rank and file order. */
static int gather_colls(const struct chakra_rank *ranks, size_t nr, struct coll_at **v, size_t *nv,
			struct chakra_stats *st)
{
	size_t r, i, n = 0;

	for (r = 0; r < nr; r++)
		for (i = 0; i < ranks[r].nodes.n; i++)
			n += ranks[r].nodes.v[i].kind == CHAKRA_COLL;
	*v = malloc((n + 1) * sizeof(**v));
	*nv = 0;
	if (!*v)
		return -ENOMEM;
	for (r = 0; r < nr; r++)
		for (i = 0; i < ranks[r].nodes.n; i++) {
			const struct chakra_node *x = &ranks[r].nodes.v[i];

			if (x->kind != CHAKRA_COLL)
				continue;
			(*v)[(*nv)++] = (struct coll_at){chakra_str(&ranks[r], x->pg), (uint32_t)r,
							 (uint32_t)i};
			st->colls[x->coll]++;
			st->coll_bytes += x->bytes;
		}
	qsort(*v, *nv, sizeof(**v), coll_cmp);
	return 0;
}

/* Each group's members run the same collectives; the group of every rank ("") has them all. */
static int match_colls(const struct chakra_rank *ranks, size_t nr, const char *const *files,
		       struct chakra_stats *st, struct chakra_links *l, struct diag *d)
{
	struct coll_at *v;
	size_t nv, i = 0, first, nf, na, members, k;
	char buf[32];
	int err = gather_colls(ranks, nr, &v, &nv, st) ? diag_set(d, -ENOMEM, "out of memory") : 0;

	while (!err && i < nv) {
		first = i;
		nf = run_of(v, nv, i, v[i].rank);
		members = 0;
		for (; !err && i < nv && !strcmp(v[i].pg, v[first].pg); i += na, members++) {
			na = run_of(v, nv, i, v[i].rank);
			err = same_colls(ranks, files, &v[first], nf, &v[i], na, d);
			for (k = 0; !err && k < na; k++) /* member's k-th: the group's k-th */
				l->id[l->base[v[i + k].rank] + v[i + k].node] =
					(uint32_t)(l->ninst + k);
		}
		for (k = 0; !err && k < nf; k++)
			l->need[l->ninst++] = (uint32_t)members;
		if (!err && !v[first].pg[0] && members < nr)
			err = diag_set(d, -EINVAL,
				       "the collectives of every rank (no pg_name): %s has %zu and "
				       "%zu of the job's %zu ranks have none",
				       file_of(files, v[first].rank, buf, sizeof(buf)), nf,
				       nr - members, nr);
	}
	free(v);
	return err;
}

/* l's arrays for n ranks, every node linked to nothing yet. 0 or -ENOMEM. */
static int links_alloc(const struct chakra_rank *ranks, size_t n, struct chakra_links *l)
{
	size_t r, total = 0, colls = 0, i;

	memset(l, 0, sizeof(*l));
	l->base = calloc(n + 1, sizeof(*l->base));
	for (r = 0; l->base && r < n; r++) {
		l->base[r] = (uint32_t)total;
		total += ranks[r].nodes.n;
		for (i = 0; i < ranks[r].nodes.n; i++)
			colls += ranks[r].nodes.v[i].kind == CHAKRA_COLL;
	}
	if (l->base)
		l->base[n] = (uint32_t)total;
	l->id = malloc((total + 1) * sizeof(*l->id));
	l->need = malloc((colls + 1) * sizeof(*l->need));
	if (!l->base || !l->id || !l->need || total > UINT32_MAX / 2) {
		chakra_links_done(l);
		return -ENOMEM;
	}
	memset(l->id, 0xff, (total + 1) * sizeof(*l->id));
	return 0;
}

void chakra_links_done(struct chakra_links *l)
{
	free(l->base);
	free(l->id);
	free(l->need);
	memset(l, 0, sizeof(*l));
}

int chakra_check(const struct chakra_rank *ranks, size_t n, const char *const *files,
		 struct chakra_stats *st, struct chakra_links *l, struct diag *d)
{
	struct chakra_links mine;
	char buf[32];
	size_t r, i;
	int err;

	l = l ? l : &mine;
	err = links_alloc(ranks, n, l) ? diag_set(d, -ENOMEM, "out of memory") : 0;

	memset(st, 0, sizeof(*st));
	for (r = 0; r < n; r++) {
		for (i = 0; i < ranks[r].nodes.n; i++)
			st->nodes[ranks[r].nodes.v[i].kind]++;
		st->deps += ranks[r].deps.n;
	}
	for (r = 0; !err && r < n; r++)
		err = no_cycle(&ranks[r], file_of(files, r, buf, sizeof(buf)), d);
	/* the collectives first: their instances number from 0, the pairs after them */
	err = err ? err : match_colls(ranks, n, files, st, l, d);
	err = err ? err : pair_p2p(ranks, n, files, st, l, d);
	if (!err)
		l->npairs = st->pairs;
	err = err ? err : chakra_finishes(ranks, n, l, files, d);
	if (err || l == &mine)
		chakra_links_done(l);
	return err;
}
