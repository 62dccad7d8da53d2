// SPDX-License-Identifier: MIT
/* Choosing among MSCCL algorithms as MSCCL's executor does (msccl.h, msccl_head_*): what an
 * <algo> says of the collective it runs, whether it takes a call, and the size nearest a
 * given one that its chunks divide. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "traffic/msccl/msccl.h"
#include "traffic/msccl/msccl_int.h"

/* The kind coll= names (custom: -1), or -EINVAL. */
static int head_kind(const struct xdoc *x, const struct xat *a, int *kind)
{
	static const char *const names[] = {"allreduce", "allgather", "reducescatter", "alltoall",
					    "reduce_scatter"};
	static const int kinds[] = {COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
				    COLL_ALLTOALL, COLL_REDUCESCATTER};
	size_t i;

	*kind = -1;
	if (msccl_val_is(x, a, "custom"))
		return 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (msccl_val_is(x, a, names[i])) {
			*kind = kinds[i];
			return 0;
		}
	return msccl_xbad(x, a->pos,
			  "coll=\"%.*s\": read are allreduce, allgather, reducescatter, "
			  "alltoall and custom",
			  (int)a->vlen, x->t + a->val);
}

static int read_head(const struct xdoc *x, struct msccl_head *h)
{
	const struct xel *e = &x->el.v[x->root];
	const struct xat *a;
	int64_t v[6];
	int err;

	if (!msccl_el_is(x, e, "algo"))
		return msccl_xbad(x, e->pos, "the root element is <%.*s>, expected <algo>",
				  (int)e->nlen, x->t + e->name);
	err = msccl_xint(x, e, "ngpus", 1, INT32_MAX, &v[0]);
	if (!err)
		err = msccl_xint(x, e, "nchunksperloop", 0, INT32_MAX, &v[1]);
	if (!err)
		err = msccl_xint(x, e, "inplace", 0, 1, &v[2]);
	if (!err)
		err = msccl_xint_or(x, e, "outofplace", 0, 1, true, !v[2], &v[3]);
	if (!err)
		err = msccl_xint_or(x, e, "minBytes", 0, INT64_MAX, true, 0, &v[4]);
	if (!err)
		err = msccl_xint_or(x, e, "maxBytes", 0, INT64_MAX, true, 0, &v[5]);
	if (!err)
		err = msccl_xneed(x, e, "coll", &a);
	if (!err)
		err = head_kind(x, a, &h->kind);
	if (err)
		return err;
	h->ngpus = (uint32_t)v[0], h->nchunks = (uint64_t)v[1];
	h->inplace = v[2], h->outofplace = v[3];
	h->min_bytes = (uint64_t)v[4], h->max_bytes = (uint64_t)v[5];
	return 0;
}

int msccl_head(const char *text, size_t len, struct msccl_head *h, struct diag *d)
{
	struct xdoc x = {.t = text ? text : "",
			 .n = text ? len : 0,
			 .root = MSCCL_NONE,
			 .cur = MSCCL_NONE,
			 .d = d};
	int err = msccl_xml_read(&x);

	memset(h, 0, sizeof(*h));
	if (!err)
		err = read_head(&x, h);
	vec_free(&x.el);
	vec_free(&x.at);
	return err;
}

bool msccl_head_takes(const struct msccl_head *h, enum coll_kind kind, uint32_t nranks,
		      uint64_t bytes)
{
	bool a2a = kind == COLL_ALLTOALL;

	if (h->ngpus != nranks || (h->kind < 0 ? a2a : h->kind != (int)kind))
		return false;
	return (a2a ? h->outofplace : h->inplace) && msccl_head_range(h, bytes);
}

bool msccl_head_range(const struct msccl_head *h, uint64_t bytes)
{
	return bytes >= h->min_bytes && (!h->max_bytes || bytes <= h->max_bytes);
}

uint64_t msccl_head_bytes(const struct msccl_head *h, enum coll_kind kind, uint32_t nranks,
			  uint32_t elem, uint64_t bytes)
{
	uint64_t unit = (h->nchunks ? h->nchunks : 1) * (uint64_t)elem, g, k;

	if (kind == COLL_ALLTOALL) { /* also whole blocks of the ranks */
		g = msccl_gcd(unit, (uint64_t)nranks * elem);
		unit = unit / g * ((uint64_t)nranks * elem);
	}
	if (!bytes)
		return 0;
	k = (bytes + unit / 2) / unit;
	return (k ? k : 1) * unit;
}
