// SPDX-License-Identifier: MIT
/* TACOS-Greedy (see tacos.h): the graph check, the event-driven link-chunk matching of one
 * randomized run, the best of R runs, and the all-reduce composed from two all-gathers.
 * Speed: per event, only the requests an idle link can serve are found (per-NPU chunk bitsets)
 * and followed through the random order; the result is the same as shuffling and scanning all
 * open requests, draw for draw. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/rng.h"
#include "lib/vec.h"
#include "traffic/tacos.h"

#define TG_NONE UINT32_MAX

static int check_link(const struct tacos_graph *g, uint32_t i, struct diag *d)
{
	const struct tacos_link *l = &g->links[i];

	if (l->src >= g->n || l->dst >= g->n)
		return diag_set(d, -EINVAL, "tacos: link %u (%u -> %u) names an NPU out of 0..%u",
				i, l->src, l->dst, g->n - 1);
	if (l->src == l->dst)
		return diag_set(d, -EINVAL, "tacos: link %u is a self link on NPU %u", i, l->src);
	if (!l->rate)
		return diag_set(d, -EINVAL, "tacos: link %u (%u -> %u) has rate 0", i, l->src,
				l->dst);
	if (!(l->alpha >= 0) || isinf(l->alpha))
		return diag_set(d, -EINVAL, "tacos: link %u (%u -> %u) has alpha %g, expected >= 0",
				i, l->src, l->dst, l->alpha);
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int check_dups(const struct tacos_graph *g, struct diag *d)
{
	uint64_t *k = malloc(((size_t)g->nlinks + 1) * sizeof(*k));
	uint32_t i;
	int err = 0;

	if (!k)
		return diag_set(d, -ENOMEM, "tacos: out of memory");
	for (i = 0; i < g->nlinks; i++)
		k[i] = (uint64_t)g->links[i].src << 32 | g->links[i].dst;
	qsort(k, g->nlinks, sizeof(*k), cmp_pair);
	for (i = 1; i < g->nlinks && !err; i++)
		if (k[i] == k[i - 1])
			err = diag_set(d, -EINVAL, "tacos: duplicate link %u -> %u",
				       (uint32_t)(k[i] >> 32), (uint32_t)k[i]);
	free(k);
	return err;
}

/* Marks in seen[] the NPUs reachable from 0 (backward: that reach 0); returns one that is not
 * marked, or TG_NONE. Repeated relaxation: O(n * links) at worst, links in any order. */
static uint32_t reach_miss(const struct tacos_graph *g, bool backward, uint8_t *seen)
{
	const struct tacos_link *l;
	bool grew = true;
	uint32_t i, from, to;

	memset(seen, 0, g->n);
	seen[0] = 1;
	while (grew) {
		grew = false;
		for (i = 0; i < g->nlinks; i++) {
			l = &g->links[i];
			from = backward ? l->dst : l->src;
			to = backward ? l->src : l->dst;
			if (seen[from] && !seen[to])
				seen[to] = 1, grew = true;
		}
	}
	for (i = 0; i < g->n; i++)
		if (!seen[i])
			return i;
	return TG_NONE;
}

static int check_reach(const struct tacos_graph *g, struct diag *d)
{
	uint8_t *seen = malloc(g->n);
	uint32_t miss;
	int err = 0;

	if (!seen)
		return diag_set(d, -ENOMEM, "tacos: out of memory");
	miss = reach_miss(g, false, seen);
	if (miss != TG_NONE)
		err = diag_set(d, -EINVAL, "tacos: NPU %u cannot reach NPU %u", 0, miss);
	else if ((miss = reach_miss(g, true, seen)) != TG_NONE)
		err = diag_set(d, -EINVAL, "tacos: NPU %u cannot reach NPU %u", miss, 0);
	free(seen);
	return err;
}

int tacos_graph_check(const struct tacos_graph *g, struct diag *d)
{
	uint32_t i;
	int err;

	if (!g->n || g->n > TACOS_MAX_NPUS)
		return diag_set(d, -EINVAL, "tacos: %u NPUs, expected 1 to %u", g->n,
				TACOS_MAX_NPUS);
	for (i = 0; i < g->nlinks; i++)
		if ((err = check_link(g, i, d)))
			return err;
	err = check_dups(g, d);
	return err ? err : check_reach(g, d);
}

static int check_cfg(const struct tacos_graph *g, const struct tacos_cfg *c, struct diag *d)
{
	int err = tacos_graph_check(g, d);

	if (err)
		return err;
	if (!c->chunk_bytes || !c->k || !c->runs)
		return diag_set(d, -EINVAL,
				"tacos: chunk bytes %llu, k %u, runs %u: each must be >= 1",
				(unsigned long long)c->chunk_bytes, c->k, c->runs);
	if ((uint64_t)g->n * g->n * c->k > TACOS_MAX_CELLS)
		return diag_set(d, -EINVAL,
				"tacos: %u NPUs x %u chunks each exceed %u (chunk, NPU) "
				"pairs",
				g->n, c->k, TACOS_MAX_CELLS);
	return 0;
}

/* One synthesis: the graph (maybe transposed), its per-link cost and in-links, and the state of
 * the current run. Cells are (chunk, NPU) pairs, id c * n + v. */
struct tg {
	const struct tacos_graph *g;
	bool transpose;
	uint32_t n, k, nc; /* nc = n * k chunks */
	uint32_t words; /* 64-bit words of a bitset of nc chunks */
	double *cost; /* per link */
	uint32_t *in_off, *in_link; /* in-links of NPU v: in_link[in_off[v] .. in_off[v+1]) */
	double *arrive; /* per cell: when the NPU got the chunk, INFINITY if not yet */
	uint64_t *held; /* per NPU, words each: the chunks it holds (arrive not INFINITY) */
	uint64_t *reach; /* words: the chunks an NPU's idle in-links could bring */
	uint32_t *open, *pos, nopen; /* cells still requested; pos[cell] = index in open */
	uint64_t *track; /* per index in open: a candidate is there (tg_order; clear between) */
	uint32_t *who; /* per tracked index: that candidate's cell */
	VEC(uint32_t) cand; /* this event's candidate requests whose order matters, then ordered */
	VEC(uint32_t) lone; /* this event's candidate requests whose order does not */
	double *busy; /* per link: end of its send */
	uint32_t *act; /* per link: its send (index in sends) or TG_NONE */
	uint32_t *idle; /* per NPU: idle in-links */
	VEC(struct tacos_send) sends; /* chunk TG_NONE: dropped */
	uint64_t rng;
	double time;
};

static bool bit_get(const uint64_t *b, uint32_t i)
{
	return b[i / 64] >> (i % 64) & 1;
}

static void bit_set(uint64_t *b, uint32_t i)
{
	b[i / 64] |= 1ull << (i % 64);
}

static void bit_clear(uint64_t *b, uint32_t i)
{
	b[i / 64] &= ~(1ull << (i % 64));
}

static uint64_t *tg_held(const struct tg *t, uint32_t v)
{
	return &t->held[(size_t)v * t->words];
}

static uint32_t tg_src(const struct tg *t, uint32_t e)
{
	return t->transpose ? t->g->links[e].dst : t->g->links[e].src;
}

static uint32_t tg_dst(const struct tg *t, uint32_t e)
{
	return t->transpose ? t->g->links[e].src : t->g->links[e].dst;
}

static void tg_free(struct tg *t)
{
	free(t->cost);
	free(t->in_off);
	free(t->in_link);
	free(t->arrive);
	free(t->held);
	free(t->reach);
	free(t->open);
	free(t->pos);
	free(t->track);
	free(t->who);
	vec_free(&t->cand);
	vec_free(&t->lone);
	free(t->busy);
	free(t->act);
	free(t->idle);
	vec_free(&t->sends);
}

/* In-links grouped by destination, each group in link order (a counting sort). */
static void tg_index(struct tg *t)
{
	uint32_t m = t->g->nlinks, e, v;

	for (e = 0; e < m; e++)
		t->in_off[tg_dst(t, e) + 1]++;
	for (v = 0; v < t->n; v++)
		t->in_off[v + 1] += t->in_off[v];
	for (e = 0; e < m; e++)
		t->in_link[t->in_off[tg_dst(t, e)] + t->idle[tg_dst(t, e)]++] = e;
}

static int tg_init(struct tg *t, const struct tacos_graph *g, const struct tacos_cfg *c,
		   bool transpose)
{
	size_t cells = (size_t)g->n * g->n * c->k, m = g->nlinks;
	uint32_t e;

	memset(t, 0, sizeof(*t));
	t->g = g, t->transpose = transpose, t->n = g->n, t->k = c->k, t->nc = g->n * c->k;
	t->words = (t->nc + 63) / 64;
	t->cost = calloc(m + 1, sizeof(*t->cost));
	t->in_off = calloc(g->n + 1, sizeof(*t->in_off));
	t->in_link = calloc(m + 1, sizeof(*t->in_link));
	t->arrive = calloc(cells, sizeof(*t->arrive));
	t->held = calloc((size_t)g->n * t->words, sizeof(*t->held));
	t->reach = calloc(t->words, sizeof(*t->reach));
	t->open = calloc(cells, sizeof(*t->open));
	t->pos = calloc(cells, sizeof(*t->pos));
	t->track = calloc(cells / 64 + 1, sizeof(*t->track));
	t->who = calloc(cells, sizeof(*t->who));
	t->busy = calloc(m + 1, sizeof(*t->busy));
	t->act = calloc(m + 1, sizeof(*t->act));
	t->idle = calloc(g->n, sizeof(*t->idle));
	if (!t->cost || !t->in_off || !t->in_link || !t->arrive || !t->held || !t->reach ||
	    !t->open || !t->pos || !t->track || !t->who || !t->busy || !t->act || !t->idle)
		return -ENOMEM;
	for (e = 0; e < m; e++)
		t->cost[e] =
			g->links[e].alpha + 8.0 * (double)c->chunk_bytes / (double)g->links[e].rate;
	tg_index(t);
	return 0;
}

/* Start of a run: every NPU holds its own chunks and requests all others; links idle. */
static void tg_reset(struct tg *t, uint64_t seed)
{
	uint32_t c, v, e, cell;

	t->nopen = 0;
	memset(t->held, 0, (size_t)t->n * t->words * sizeof(*t->held));
	for (c = 0; c < t->nc; c++) {
		bit_set(tg_held(t, c / t->k), c);
		for (v = 0; v < t->n; v++) {
			cell = c * t->n + v;
			t->arrive[cell] = c / t->k == v ? 0 : INFINITY;
			if (c / t->k != v) {
				t->pos[cell] = t->nopen;
				t->open[t->nopen++] = cell;
			}
		}
	}
	for (e = 0; e < t->g->nlinks; e++)
		t->act[e] = TG_NONE;
	for (v = 0; v < t->n; v++)
		t->idle[v] = t->in_off[v + 1] - t->in_off[v];
	t->sends.n = 0;
	t->rng = seed;
	t->time = 0;
}

static uint32_t tg_rand(struct tg *t, uint32_t n)
{
	return (uint32_t)(rng_next(&t->rng) % n);
}

/* TACOS §VI-B, chunk replacement: a chunk v still requests and u held when the send started
 * (not merely now: the send could not have carried it otherwise), at random; TG_NONE if none.
 * Candidates in chunk order, each drawing once (reservoir sampling); those u holds now are a
 * superset, read from the bitsets, so only they need their arrival time looked up. */
static uint32_t tg_replace(struct tg *t, const struct tacos_send *s)
{
	const uint64_t *have = tg_held(t, s->dst), *from = tg_held(t, s->src);
	uint32_t w, c, cnt = 0, pick = TG_NONE;
	uint64_t bits;

	for (w = 0; w < t->words; w++)
		for (bits = from[w] & ~have[w]; bits; bits &= bits - 1) {
			c = w * 64 + (uint32_t)__builtin_ctzll(bits);
			if (!(t->arrive[c * t->n + s->src] <= s->t0))
				continue;
			if (!tg_rand(t, ++cnt)) /* each candidate with probability 1/cnt */
				pick = c;
		}
	return pick;
}

static void tg_deliver(struct tg *t, uint32_t c, uint32_t v, double now)
{
	uint32_t cell = c * t->n + v, i = t->pos[cell], last = t->open[--t->nopen];

	t->arrive[cell] = now;
	bit_set(tg_held(t, v), c);
	t->open[i] = last;
	t->pos[last] = i;
	t->time = now;
}

/* TACOS §VI-B, arrival-time analysis: the sends ending now deliver their chunk, or another one
 * if it already arrived by another path, or are dropped. */
static void tg_arrivals(struct tg *t, double now)
{
	struct tacos_send *s;
	uint32_t e;

	for (e = 0; e < t->g->nlinks; e++) {
		if (t->act[e] == TG_NONE || t->busy[e] > now)
			continue;
		s = &t->sends.v[t->act[e]];
		if (bit_get(tg_held(t, s->dst), s->chunk))
			s->chunk = tg_replace(t, s);
		if (s->chunk != TG_NONE)
			tg_deliver(t, s->chunk, s->dst, now);
		t->act[e] = TG_NONE;
		t->idle[tg_dst(t, e)]++;
	}
}

/* TACOS §VI-B, shorter-link-first: the idle in-link of v whose source holds c and that
 * finishes first, ties at random; TG_NONE if none. */
static uint32_t tg_pick(struct tg *t, uint32_t c, uint32_t v)
{
	uint32_t i, e, best = TG_NONE, ties = 0;

	for (i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
		e = t->in_link[i];
		if (t->act[e] != TG_NONE || !bit_get(tg_held(t, tg_src(t, e)), c))
			continue;
		if (best == TG_NONE || t->cost[e] < t->cost[best])
			best = e, ties = 1;
		else if (t->cost[e] == t->cost[best] && !tg_rand(t, ++ties))
			best = e;
	}
	return best;
}

/* Whether tg_pick(t, c, v) would draw: its scan meets a candidate link as fast as the best one
 * before it. */
static bool tg_draws(const struct tg *t, uint32_t c, uint32_t v)
{
	uint32_t i, e, best = TG_NONE;

	for (i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
		e = t->in_link[i];
		if (t->act[e] != TG_NONE || !bit_get(tg_held(t, tg_src(t, e)), c))
			continue;
		if (best != TG_NONE && t->cost[e] == t->cost[best])
			return true;
		if (best == TG_NONE || t->cost[e] < t->cost[best])
			best = e;
	}
	return false;
}

static int tg_start(struct tg *t, uint32_t c, uint32_t e, double now)
{
	struct tacos_send s = {
		.chunk = c,
		.src = tg_src(t, e),
		.dst = tg_dst(t, e),
		.link = e,
		.t0 = now,
		.t1 = now + t->cost[e],
	};

	if (vec_push(&t->sends, s))
		return -ENOMEM;
	t->act[e] = (uint32_t)(t->sends.n - 1);
	t->busy[e] = s.t1;
	t->idle[s.dst]--;
	return 0;
}

/* Adds to cand the requests of v that an idle in-link can serve now: chunks v lacks that the
 * link's source holds. A request alone at v that draws no tie goes to lone instead: only
 * requests of v take v's links, so it gets the same link wherever it comes in the order. */
static int tg_candidates_of(struct tg *t, uint32_t v)
{
	const uint64_t *have = tg_held(t, v), *src;
	size_t first = t->cand.n;
	uint32_t i, e, w, cell;
	uint64_t bits;

	memset(t->reach, 0, t->words * sizeof(*t->reach));
	for (i = t->in_off[v]; i < t->in_off[v + 1]; i++) {
		e = t->in_link[i];
		if (t->act[e] != TG_NONE)
			continue;
		src = tg_held(t, tg_src(t, e));
		for (w = 0; w < t->words; w++)
			t->reach[w] |= src[w];
	}
	for (w = 0; w < t->words; w++)
		for (bits = t->reach[w] & ~have[w]; bits; bits &= bits - 1)
			if (vec_push(&t->cand,
				     (w * 64 + (uint32_t)__builtin_ctzll(bits)) * t->n + v))
				return -ENOMEM;
	if (t->cand.n != first + 1)
		return 0;
	cell = t->cand.v[first];
	if (tg_draws(t, cell / t->n, v))
		return 0;
	t->cand.n = first;
	return vec_push(&t->lone, cell);
}

/* TACOS §VI: the requests a matching can serve at all. Any other open request finds no idle
 * in-link whose source holds its chunk, now or later in the matching (links only get busy), so
 * it takes no link and draws no tie wherever the random order puts it. */
static int tg_candidates(struct tg *t)
{
	uint32_t v;

	t->cand.n = t->lone.n = 0;
	for (v = 0; v < t->n; v++)
		if (t->idle[v] && tg_candidates_of(t, v))
			return -ENOMEM;
	return 0;
}

/* TACOS §VI: the matching visits the open requests in random order, the Fisher-Yates shuffle of
 * open[] from the run's stream (nopen - 1 draws). Only the candidates' order matters, so rather
 * than permute all requests this follows the candidates through the same swaps, drawing each
 * swap's index as the shuffle would, until every candidate has its final place; the stream then
 * skips the draws left. Leaves cand in visiting order. */
static void tg_order(struct tg *t)
{
	uint32_t *cand = t->cand.v, left = (uint32_t)t->cand.n, i, j, p;
	uint64_t rng = t->rng; /* a local: the draws do not wait on stores to t */

	if (left < 2) { /* nothing to order */
		rng_skip(&t->rng, t->nopen - 1);
		return;
	}
	for (j = 0; j < left; j++) {
		p = t->pos[cand[j]];
		bit_set(t->track, p);
		t->who[p] = cand[j];
	}
	/* Step i swaps indices i - 1 and j: what was at j stays at i - 1 for good, what was at
	 * i - 1 moves to j. Places are taken from the back, so cand fills from its end. */
	for (i = t->nopen; i > 1 && left; i--) {
		j = (uint32_t)(rng_next(&rng) % i);
		if (!bit_get(t->track, j) && !bit_get(t->track, i - 1))
			continue;
		if (bit_get(t->track, j)) {
			cand[--left] = t->who[j];
			bit_clear(t->track, j);
		}
		if (bit_get(t->track, i - 1)) {
			t->who[j] = t->who[i - 1];
			bit_set(t->track, j);
			bit_clear(t->track, i - 1);
		}
	}
	if (left) { /* the last one left, at index 0 */
		cand[0] = t->who[0];
		bit_clear(t->track, 0);
	}
	rng_skip(&rng, i - 1);
	t->rng = rng;
}

/* Matches the requests of cells[0 .. n) in that order, each on one idle in-link. */
static int tg_serve(struct tg *t, const uint32_t *cells, size_t n, double now)
{
	uint32_t c, v, e;
	size_t i;

	for (i = 0; i < n; i++) {
		c = cells[i] / t->n, v = cells[i] % t->n;
		if (!t->idle[v])
			continue;
		e = tg_pick(t, c, v);
		if (e != TG_NONE && tg_start(t, c, e, now))
			return -ENOMEM;
	}
	return 0;
}

/* TACOS §VI, one matching: the open requests in random order, each on one idle in-link. A
 * request stays open while its chunk is in flight, as in the paper. The lone requests neither
 * share links with the others nor draw, so they can go first. */
static int tg_match(struct tg *t, double now)
{
	if (tg_candidates(t) || tg_serve(t, t->lone.v, t->lone.n, now))
		return -ENOMEM;
	tg_order(t);
	return tg_serve(t, t->cand.v, t->cand.n, now);
}

/* The next event: the earliest end of a send in flight, INFINITY if none. */
static double tg_next(const struct tg *t)
{
	double next = INFINITY;
	uint32_t e;

	for (e = 0; e < t->g->nlinks; e++)
		if (t->act[e] != TG_NONE && t->busy[e] < next)
			next = t->busy[e];
	return next;
}

/* One randomized run; 0, -ENOMEM, or -EIO if it stalls (a graph that is not strongly
 * connected, which the check refuses). */
static int tg_run(struct tg *t, uint64_t seed)
{
	double now = 0;
	int err;

	tg_reset(t, seed);
	while (now != INFINITY) {
		tg_arrivals(t, now);
		if (t->nopen && (err = tg_match(t, now)))
			return err;
		now = tg_next(t);
	}
	return t->nopen ? -EIO : 0;
}

static int cmp_send(const void *a, const void *b)
{
	const struct tacos_send *x = a, *y = b;

	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	if (x->t1 != y->t1)
		return x->t1 < y->t1 ? -1 : 1;
	if (x->link != y->link)
		return x->link < y->link ? -1 : 1;
	return (x->chunk > y->chunk) - (x->chunk < y->chunk);
}

/* Copies the run's sends that were not dropped into out, sorted. */
static int tg_keep(const struct tg *t, struct tacos_sched *out)
{
	size_t i, n = 0;

	free(out->sends);
	out->sends = malloc((t->sends.n + 1) * sizeof(*out->sends));
	if (!out->sends)
		return -ENOMEM;
	for (i = 0; i < t->sends.n; i++)
		if (t->sends.v[i].chunk != TG_NONE)
			out->sends[n++] = t->sends.v[i];
	qsort(out->sends, n, sizeof(*out->sends), cmp_send);
	out->nsends = n;
	out->time = t->time;
	return 0;
}

/* TACOS §VI-C: R runs with seeds drawn from the seed's stream; the fastest, the first of
 * equals, pruned to trees. */
static int tg_synth(const struct tacos_graph *g, const struct tacos_cfg *c, bool transpose,
		    struct tacos_sched *out, struct diag *d)
{
	struct tg t;
	uint64_t stream = c->seed;
	uint32_t run;
	int err = tg_init(&t, g, c, transpose);

	memset(out, 0, sizeof(*out));
	for (run = 0; run < c->runs && !err; run++) {
		err = tg_run(&t, rng_next(&stream));
		if (!err && (!out->sends || t.time < out->time))
			err = tg_keep(&t, out);
	}
	tg_free(&t);
	if (!err) {
		tacos_prune(out, g->n, c->k);
		return 0;
	}
	free(out->sends);
	memset(out, 0, sizeof(*out));
	return diag_set(d, err, "tacos: %s",
			err == -ENOMEM ? "out of memory" : "synthesis stalled");
}

static int cmp_arrival(const void *a, const void *b, void *arg)
{
	const struct tacos_send *s = arg, *x = &s[*(const size_t *)a], *y = &s[*(const size_t *)b];

	if (x->t1 != y->t1)
		return x->t1 < y->t1 ? -1 : 1;
	return cmp_send(x, y);
}

size_t tacos_prune(struct tacos_sched *s, uint32_t n, uint32_t k)
{
	size_t *idx = malloc((s->nsends + 1) * sizeof(*idx)), i, kept = 0;
	uint8_t *got = calloc((size_t)n * n * k + 1, 1);
	bool *keep = calloc(s->nsends + 1, sizeof(*keep));
	struct tacos_send *x;

	if (!idx || !got || !keep) {
		free(idx), free(got), free(keep);
		return 0;
	}
	for (i = 0; i < s->nsends; i++)
		idx[i] = i;
	qsort_r(idx, s->nsends, sizeof(*idx), cmp_arrival, s->sends);
	for (i = 0; i < s->nsends; i++) {
		x = &s->sends[idx[i]];
		keep[idx[i]] = x->chunk / k != x->dst && !got[(size_t)x->chunk * n + x->dst];
		got[(size_t)x->chunk * n + x->dst] = 1;
	}
	for (i = 0; i < s->nsends; i++)
		if (keep[i])
			s->sends[kept++] = s->sends[i];
	i = s->nsends - kept;
	s->nsends = kept;
	free(idx), free(got), free(keep);
	return i;
}

void tacos_result_done(struct tacos_result *r)
{
	if (!r)
		return;
	free(r->rs.sends);
	free(r->ag.sends);
	memset(r, 0, sizeof(*r));
}

/* An empty result for g and cfg, once they are checked. */
static int result_init(const struct tacos_graph *g, const struct tacos_cfg *cfg,
		       struct tacos_result *r, struct diag *d)
{
	int err;

	memset(r, 0, sizeof(*r));
	if ((err = check_cfg(g, cfg, d)))
		return err;
	r->n = g->n, r->k = cfg->k, r->chunk_bytes = cfg->chunk_bytes;
	return 0;
}

int tacos_allgather(const struct tacos_graph *g, const struct tacos_cfg *cfg,
		    struct tacos_result *r, struct diag *d)
{
	int err = result_init(g, cfg, r, d);

	if (err)
		return err;
	err = tg_synth(g, cfg, false, &r->ag, d);
	r->t_ag = r->ag.time;
	return err;
}

/* TACOS §VII-A: the send c: u -> v over [t0, t1] of the transposed graph's all-gather becomes
 * c: v -> u over [T - t1, T - t0], a partial sum on a link of the graph. */
static void reverse(struct tacos_sched *s)
{
	struct tacos_send *x;
	uint32_t u;
	double t0;
	size_t i;

	for (i = 0; i < s->nsends; i++) {
		x = &s->sends[i];
		u = x->src, x->src = x->dst, x->dst = u;
		t0 = x->t0, x->t0 = s->time - x->t1, x->t1 = s->time - t0;
	}
	qsort(s->sends, s->nsends, sizeof(*s->sends), cmp_send);
}

/* TACOS §VII-A: r's reduce-scatter, the transposed graph's all-gather time-reversed; on
 * error r is emptied. */
static int add_rs(const struct tacos_graph *g, const struct tacos_cfg *cfg, struct tacos_result *r,
		  struct diag *d)
{
	int err = tg_synth(g, cfg, true, &r->rs, d);

	if (err) {
		tacos_result_done(r);
		return err;
	}
	reverse(&r->rs);
	r->t_rs = r->rs.time;
	return 0;
}

int tacos_reducescatter(const struct tacos_graph *g, const struct tacos_cfg *cfg,
			struct tacos_result *r, struct diag *d)
{
	int err = result_init(g, cfg, r, d);

	return err ? err : add_rs(g, cfg, r, d);
}

int tacos_allreduce(const struct tacos_graph *g, const struct tacos_cfg *cfg,
		    struct tacos_result *r, struct diag *d)
{
	int err = tacos_allgather(g, cfg, r, d);

	if (err) {
		tacos_result_done(r);
		return err;
	}
	return add_rs(g, cfg, r, d);
}
