// SPDX-License-Identifier: MIT
/* The jobs an MSCCL algorithm XML is read for under fuzzing (msccl_job.h). Reads only
 * text[0 .. len): libFuzzer's input has no NUL after it. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tests/fuzz/msccl_job.h"

/* The value of the first key="..." (or '...') in the text, as an unsigned decimal. */
static bool attr_u64(const char *t, size_t len, const char *key, uint64_t *v)
{
	size_t k = strlen(key), i;
	const char *a = memmem(t, len, key, k);
	uint64_t u = 0;

	if (!a)
		return false;
	i = (size_t)(a - t) + k;
	if (i + 1 >= len || t[i] != '=' || (t[i + 1] != '"' && t[i + 1] != '\''))
		return false;
	for (i += 2; i < len && t[i] >= '0' && t[i] <= '9'; i++) {
		if (u > (UINT64_MAX - 9) / 10)
			return false;
		u = u * 10 + (uint64_t)(t[i] - '0');
	}
	*v = u;
	return i < len && t[i] == t[(size_t)(a - t) + k + 1];
}

/* The value of coll="...": the bytes between the quotes, or NULL. */
static const char *attr_str(const char *t, size_t len, const char *key, size_t *n)
{
	const char *a = memmem(t, len, key, strlen(key)), *end;
	size_t i;

	if (!a)
		return NULL;
	i = (size_t)(a - t) + strlen(key);
	if (i + 1 >= len || t[i] != '=' || (t[i + 1] != '"' && t[i + 1] != '\''))
		return NULL;
	end = memchr(t + i + 2, t[i + 1], len - i - 2);
	if (!end)
		return NULL;
	*n = (size_t)(end - (t + i + 2));
	return t + i + 2;
}

static bool is(const char *v, size_t n, const char *s)
{
	return v && n == strlen(s) && !memcmp(v, s, n);
}

size_t fuzz_msccl_jobs(const char *text, size_t len, struct coll_params p[FUZZ_MSCCL_JOBS])
{
	struct coll_params base = {.kind = COLL_ALLREDUCE, .algo = COLL_MSCCL, .elem = 4};
	uint64_t ranks = 4, chunks = 1, bytes;
	const char *coll;
	size_t n = 0;

	if (!attr_u64(text, len, " ngpus", &ranks) || !ranks || ranks > COLL_MAX_RANKS)
		ranks = 4;
	if (!attr_u64(text, len, " nchunksperloop", &chunks) || !chunks || chunks > 1u << 30)
		chunks = 1;
	base.nranks = (uint32_t)ranks;
	base.bytes = chunks * ranks * base.elem;
	if (attr_u64(text, len, " maxBytes", &bytes))
		base.bytes = bytes;
	coll = attr_str(text, len, " coll", &n);
	if (is(coll, n, "allgather"))
		base.kind = COLL_ALLGATHER;
	else if (is(coll, n, "reducescatter") || is(coll, n, "reduce_scatter"))
		base.kind = COLL_REDUCESCATTER;
	else if (is(coll, n, "alltoall"))
		base.kind = COLL_ALLTOALL;
	p[0] = p[1] = p[2] = base;
	if (!is(coll, n, "custom"))
		return 1;
	p[1].kind = COLL_ALLGATHER;
	p[2].kind = COLL_REDUCESCATTER;
	return 3;
}
