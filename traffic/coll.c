// SPDX-License-Identifier: MIT
/* Collective schedules (see coll.h): parameter checks, the per-rank build loop over the
 * algorithm table, names, and the nccl-tests bus-bandwidth factors. */
#include <errno.h>
#include <string.h>

#include "traffic/coll_build.h"
#include "traffic/coll_hx.h"
#include "traffic/chakra/chakra.h"
#include "traffic/msccl/msccl.h"
#include "traffic/tacos.h"

#define KIND_BIT(k) (1u << (k))

struct algo_desc {
	const char *name;
	unsigned kinds; /* KIND_BIT mask of the kinds it builds */
	void (*build)(struct coll_bld *b);
	const char *group_is; /* what `group` means, NULL if unused */
	int (*check)(const struct coll_params *p, struct diag *d); /* its own parameters */
	int (*prep)(struct coll_bld *b, struct diag *d); /* once per build, before the ranks */
	void (*release)(struct coll_bld *b); /* undoes prep */
};

static const struct algo_desc algos[] = {
	[COLL_RING] = {"ring",
		       KIND_BIT(COLL_ALLREDUCE) | KIND_BIT(COLL_ALLGATHER) |
			       KIND_BIT(COLL_REDUCESCATTER),
		       coll_ring_build, NULL},
	[COLL_HD] = {"hd", KIND_BIT(COLL_ALLREDUCE), coll_hd_build, NULL},
	[COLL_PAIRWISE] = {"pairwise", KIND_BIT(COLL_ALLTOALL), coll_a2a_build, NULL},
	[COLL_HIER_RING] = {"hier-ring", KIND_BIT(COLL_ALLREDUCE), coll_hier_build,
			    "ranks per server"},
	[COLL_SHARD_RINGS] = {"shard-rings", KIND_BIT(COLL_ALLREDUCE), coll_shard_build,
			      "shards per replica"},
	[COLL_DIRECT] = {"direct",
			 KIND_BIT(COLL_ALLTOALL) | KIND_BIT(COLL_ALLREDUCE) |
				 KIND_BIT(COLL_ALLGATHER) | KIND_BIT(COLL_REDUCESCATTER),
			 coll_direct_build, NULL, coll_direct_check},
	[COLL_TACOS] = {"tacos",
			KIND_BIT(COLL_ALLREDUCE) | KIND_BIT(COLL_ALLGATHER) |
				KIND_BIT(COLL_REDUCESCATTER),
			NULL, NULL},
	[COLL_HX_RINGS] = {"hx-rings", KIND_BIT(COLL_ALLREDUCE), coll_hx_rings_build,
			   "columns of the torus", coll_hx_rings_check},
	[COLL_TORUS2D] = {"torus2d", KIND_BIT(COLL_ALLREDUCE), coll_torus2d_build,
			  "columns of the torus", coll_torus2d_check},
	[COLL_MSCCL] = {"msccl",
			KIND_BIT(COLL_ALLREDUCE) | KIND_BIT(COLL_ALLGATHER) |
				KIND_BIT(COLL_REDUCESCATTER) | KIND_BIT(COLL_ALLTOALL),
			NULL, NULL},
	[COLL_MULTIDIM] = {"multidim",
			   KIND_BIT(COLL_ALLREDUCE) | KIND_BIT(COLL_REDUCESCATTER) |
				   KIND_BIT(COLL_ALLGATHER),
			   coll_md_build, NULL, coll_md_check, coll_md_prep, coll_md_release},
	[COLL_CHAKRA] = {"chakra",
			 KIND_BIT(COLL_ALLREDUCE) | KIND_BIT(COLL_ALLGATHER) |
				 KIND_BIT(COLL_REDUCESCATTER) | KIND_BIT(COLL_ALLTOALL),
			 NULL, NULL},
};

const struct keyword coll_kind_names[] = {
	{"allreduce", COLL_ALLREDUCE},
	{"allgather", COLL_ALLGATHER},
	{"reducescatter", COLL_REDUCESCATTER},
	{"alltoall", COLL_ALLTOALL},
	{NULL, 0},
};

#define N_ALGOS (sizeof(algos) / sizeof(algos[0]))
#define N_KINDS (COLL_ALLTOALL + 1u)
const char *coll_kind_name(enum coll_kind k)
{
	return keyword_name(coll_kind_names, (int)k, "?");
}

const char *coll_algo_name(enum coll_algo a)
{
	return (unsigned)a < N_ALGOS ? algos[a].name : "?";
}

int coll_kind_parse(const char *s, enum coll_kind *out)
{
	const struct keyword *kw;

	for (kw = coll_kind_names; s && kw->name; kw++) {
		if (!strcmp(s, kw->name)) {
			*out = (enum coll_kind)kw->value;
			return 0;
		}
	}
	return -EINVAL;
}

int coll_algo_parse(const char *s, enum coll_algo *out)
{
	unsigned i;

	for (i = 0; s && i < N_ALGOS; i++) {
		if (!strcmp(s, algos[i].name)) {
			*out = (enum coll_algo)i;
			return 0;
		}
	}
	return -EINVAL;
}

double coll_busbw_factor(enum coll_kind kind, uint32_t nranks)
{
	double n = nranks;

	if (!nranks)
		return 0.0;
	return (kind == COLL_ALLREDUCE ? 2.0 : 1.0) * (n - 1) / n;
}

uint32_t coll_busbw_ranks(enum coll_algo algo, uint32_t nranks, uint32_t group)
{
	return algo == COLL_SHARD_RINGS && group ? nranks / group : nranks;
}

static int check_group(const struct coll_params *p, const struct algo_desc *a, struct diag *d)
{
	if (!a->group_is)
		return 0;
	if (!p->group)
		return diag_set(d, -EINVAL, "%s: group (%s) must be at least 1", a->name,
				a->group_is);
	if (p->nranks % p->group)
		return diag_set(d, -EINVAL, "%s: %u ranks are not a multiple of group %u (%s)",
				a->name, p->nranks, p->group, a->group_is);
	return 0;
}

static int check_sizes(const struct coll_params *p, struct diag *d)
{
	if (!p->elem)
		return diag_set(d, -EINVAL, "element size must be at least 1 byte");
	if (p->bytes % p->elem)
		return diag_set(d, -EINVAL, "%llu bytes are not a whole number of %u-byte elements",
				(unsigned long long)p->bytes, p->elem);
	if (p->kind == COLL_ALLTOALL && p->bytes % ((uint64_t)p->nranks * p->elem))
		return diag_set(d, -EINVAL,
				"alltoall: %llu bytes do not split into %u equal blocks of whole "
				"%u-byte elements",
				(unsigned long long)p->bytes, p->nranks, p->elem);
	return 0;
}

bool coll_algo_builds(enum coll_algo a, enum coll_kind k)
{
	return (unsigned)a < N_ALGOS && (unsigned)k < N_KINDS && (algos[a].kinds & KIND_BIT(k));
}

enum coll_algo coll_algo_default(enum coll_kind k)
{
	return k == COLL_ALLTOALL ? COLL_PAIRWISE : COLL_RING;
}

static int check_params(const struct coll_params *p, struct diag *d)
{
	const struct algo_desc *a;

	if ((unsigned)p->kind >= N_KINDS)
		return diag_set(d, -EINVAL, "unknown collective kind %d", (int)p->kind);
	if ((unsigned)p->algo >= N_ALGOS)
		return diag_set(d, -EINVAL, "unknown collective algorithm %d", (int)p->algo);
	a = &algos[p->algo];
	if (!(a->kinds & KIND_BIT(p->kind)))
		return diag_set(d, -EINVAL, "algorithm %s does not build %s", a->name,
				coll_kind_name(p->kind));
	if (!p->nranks || p->nranks > COLL_MAX_RANKS)
		return diag_set(d, -EINVAL, "%s: %u ranks, expected 1 to %u", a->name, p->nranks,
				COLL_MAX_RANKS);
	if (check_sizes(p, d))
		return -EINVAL;
	if (a->check && a->check(p, d))
		return -EINVAL;
	return check_group(p, a, d);
}

/* Builds the steps of ranks [lo, hi); the others keep an empty entry, so a partial build
 * indexes like the full one. */
static int build_ranks(struct coll_sched *s, struct coll_bld *b, uint32_t lo, uint32_t hi)
{
	uint32_t r;

	if (vec_reserve(&s->ranks, s->params.nranks))
		return -ENOMEM;
	memset(s->ranks.v, 0, s->params.nranks * sizeof(*s->ranks.v));
	s->ranks.n = s->params.nranks;
	for (r = lo; r < hi && !b->err; r++) {
		b->rank = r;
		b->first = s->steps.n;
		algos[s->params.algo].build(b);
		s->ranks.v[r].step_off = (uint32_t)b->first;
		s->ranks.v[r].step_n = (uint32_t)(s->steps.n - b->first);
	}
	return b->err;
}

static int build_range(const struct coll_params *p, uint32_t lo, uint32_t hi, struct coll_sched *s,
		       struct diag *d)
{
	struct coll_bld b = {.s = s, .p = &s->params};
	const struct algo_desc *a;
	int err;

	memset(s, 0, sizeof(*s));
	err = check_params(p, d);
	if (err)
		return err;
	s->params = *p;
	a = &algos[p->algo];
	err = a->prep ? a->prep(&b, d) : 0;
	if (err) {
		coll_sched_done(s);
		return err;
	}
	err = build_ranks(s, &b, lo, hi < p->nranks ? hi : p->nranks);
	if (a->release)
		a->release(&b);
	if (err) {
		coll_sched_done(s);
		return diag_set(d, err, "%s %s over %u ranks: %s", algos[p->algo].name,
				coll_kind_name(p->kind), p->nranks,
				err == -ENOMEM ? "out of memory" : "too many dependencies");
	}
	return 0;
}

/* Whether p's algorithm takes its schedule from x (the orchestrator's synthesis or import). */
static bool from_ext(const struct coll_params *p)
{
	return p->algo == COLL_TACOS || p->algo == COLL_MSCCL || p->algo == COLL_CHAKRA;
}

/* A Chakra job lowered (chakra_lower): the parameters must be the ones it gives, the
 * largest operation's bytes among them. */
static int build_chakra(const struct coll_params *p, const struct chakra_job *j,
			struct coll_sched *s, struct diag *d)
{
	int err = chakra_lower(j, s, NULL, d);

	if (!err && (s->params.nranks != p->nranks || s->params.bytes != p->bytes ||
		     s->params.elem != p->elem)) {
		err = diag_set(d, -EINVAL,
			       "chakra: the job's %u ranks of %llu bytes (elements of %u) are not "
			       "the trace's %u of %llu (of %u)",
			       p->nranks, (unsigned long long)p->bytes, p->elem, s->params.nranks,
			       (unsigned long long)s->params.bytes, s->params.elem);
		coll_sched_done(s);
	}
	return err;
}

/* TACOS's synthesis or an MSCCL XML: the steps x gives, for parameters checked as the others'
 * are. */
static int build_from_ext(const struct coll_params *p, const struct coll_ext *x,
			  struct coll_sched *s, struct diag *d)
{
	bool tacos = p->algo == COLL_TACOS;
	int err;

	memset(s, 0, sizeof(*s));
	err = check_params(p, d);
	if (err)
		return err;
	if (p->algo == COLL_CHAKRA)
		return x && x->chakra ? build_chakra(p, x->chakra, s, d)
				      : diag_set(d, -EINVAL, "chakra: no trace was given");
	if (!x || !(tacos ? (const void *)x->tacos : (const void *)x->msccl))
		return diag_set(d, -EINVAL, "%s",
				tacos ? "tacos: the schedule is synthesized over the job's NPUs by "
					"the orchestrator, and none was given"
				      : "msccl: no algorithm XML was given");
	return tacos ? tacos_coll_sched(x->tacos, p, s, d)
		     : msccl_parse(x->msccl, x->msccl_len, p, s, d);
}

int coll_sched_build_ext(const struct coll_params *p, const struct coll_ext *x,
			 struct coll_sched *s, struct diag *d)
{
	return from_ext(p) ? build_from_ext(p, x, s, d) : build_range(p, 0, p->nranks, s, d);
}

int coll_sched_build_rank_ext(const struct coll_params *p, const struct coll_ext *x, uint32_t rank,
			      struct coll_sched *s, struct diag *d)
{
	if (rank >= p->nranks) {
		memset(s, 0, sizeof(*s));
		return diag_set(d, -EINVAL, "rank %u of %u ranks", rank, p->nranks);
	}
	return coll_sched_build_range_ext(p, x, rank, rank + 1, s, d);
}

int coll_sched_build_range_ext(const struct coll_params *p, const struct coll_ext *x, uint32_t lo,
			       uint32_t hi, struct coll_sched *s, struct diag *d)
{
	if (lo >= hi || hi > p->nranks) {
		memset(s, 0, sizeof(*s));
		return diag_set(d, -EINVAL, "ranks %u to %u of %u ranks", lo, hi, p->nranks);
	}
	return from_ext(p) ? build_from_ext(p, x, s, d) : build_range(p, lo, hi, s, d);
}

bool coll_sched_ranged(const struct coll_params *p)
{
	return !from_ext(p);
}

int coll_sched_build(const struct coll_params *p, struct coll_sched *s, struct diag *d)
{
	return coll_sched_build_ext(p, NULL, s, d);
}

int coll_sched_build_rank(const struct coll_params *p, uint32_t rank, struct coll_sched *s,
			  struct diag *d)
{
	return coll_sched_build_rank_ext(p, NULL, rank, s, d);
}

void coll_sched_done(struct coll_sched *s)
{
	if (!s)
		return;
	vec_free(&s->ranks);
	vec_free(&s->steps);
	vec_free(&s->deps);
	memset(&s->params, 0, sizeof(s->params));
}

uint64_t coll_sched_bytes_sent(const struct coll_sched *s, uint32_t rank)
{
	const struct coll_step *st;
	uint64_t sum = 0;
	uint32_t i;

	if (rank >= s->ranks.n)
		return 0;
	st = &s->steps.v[s->ranks.v[rank].step_off];
	for (i = 0; i < s->ranks.v[rank].step_n; i++)
		if (st[i].op == COLL_SEND)
			sum += st[i].len;
	return sum;
}
