// SPDX-License-Identifier: MIT
/* Step builder shared by the collective algorithms (see coll_build.h): appends one rank's
 * steps and their dependency lists, drops empty parts, cuts ranges into element chunks. */
#include <errno.h>
#include <string.h>

#include "traffic/coll_build.h"

void coll_deps_add(struct coll_bld *b, struct coll_deps *d, uint32_t idx)
{
	uint32_t i;

	if (idx == COLL_NONE)
		return;
	for (i = 0; i < d->n; i++)
		if (d->v[i] == idx)
			return;
	if (d->n == COLL_DEPS_MAX) {
		if (!b->err)
			b->err = -E2BIG;
		return;
	}
	d->v[d->n++] = idx;
}

void coll_deps_merge(struct coll_bld *b, struct coll_deps *d, const struct coll_deps *src)
{
	uint32_t i;

	for (i = 0; src && i < src->n; i++)
		coll_deps_add(b, d, src->v[i]);
}

static uint32_t bld_add(struct coll_bld *b, const struct coll_step *st,
			const struct coll_deps *deps)
{
	struct coll_sched *s = b->s;
	uint32_t n = deps ? deps->n : 0;
	struct coll_step *out;

	if (b->err || !st->len)
		return COLL_NONE;
	if (vec_reserve(&s->deps, s->deps.n + n) || !(out = vec_grow(&s->steps))) {
		b->err = -ENOMEM;
		return COLL_NONE;
	}
	*out = *st;
	out->dep_off = (uint32_t)s->deps.n;
	out->dep_n = n;
	if (n)
		memcpy(&s->deps.v[s->deps.n], deps->v, n * sizeof(*deps->v));
	s->deps.n += n;
	return (uint32_t)(s->steps.n - 1 - b->first);
}

uint32_t coll_bld_send(struct coll_bld *b, uint16_t phase, uint32_t peer, struct coll_range r,
		       const struct coll_deps *deps)
{
	struct coll_step st = {
		.op = COLL_SEND,
		.phase = phase,
		.peer = peer,
		.off = r.off,
		.len = r.len,
	};

	return bld_add(b, &st, deps);
}

uint32_t coll_bld_recv(struct coll_bld *b, uint16_t phase, uint32_t peer, uint8_t flags,
		       struct coll_range r, const struct coll_deps *deps)
{
	struct coll_step st = {
		.op = COLL_RECV,
		.flags = flags,
		.phase = phase,
		.peer = peer,
		.off = r.off,
		.len = r.len,
	};

	return bld_add(b, &st, deps);
}

uint64_t coll_chunk_off(uint64_t bytes, uint32_t elem, uint32_t n, uint32_t c)
{
	uint64_t e, base, rem;

	if (!elem || !n || c >= n)
		return bytes;
	e = bytes / elem;
	base = e / n;
	rem = e % n;
	return elem * (c * base + (c < rem ? c : rem));
}

struct coll_range coll_parts(struct coll_range r, uint32_t elem, uint32_t n, uint32_t lo,
			     uint32_t hi)
{
	uint64_t a = coll_chunk_off(r.len, elem, n, lo);
	uint64_t z = coll_chunk_off(r.len, elem, n, hi);

	return (struct coll_range){.off = r.off + a, .len = z - a};
}

struct coll_range coll_part(struct coll_range r, uint32_t elem, uint32_t n, uint32_t c)
{
	return coll_parts(r, elem, n, c, c + 1);
}
