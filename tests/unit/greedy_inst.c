// SPDX-License-Identifier: MIT
/* Two-tier Clos instances for the greedy unit tests (greedy_inst.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tests/unit/greedy_inst.h"

uint64_t t_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t t_below(uint64_t *x, uint32_t n)
{
	return (uint32_t)(t_rand(x) % n);
}

uint32_t t_up(const struct t_inst *x, uint32_t tor, uint32_t s)
{
	return tor * x->nspine + s;
}

uint32_t t_down(const struct t_inst *x, uint32_t s, uint32_t tor)
{
	return x->ntor * x->nspine + s * x->ntor + tor;
}

/* Commodity (a, b): one candidate per alive spine s, ascending, loading up(a, s) and
 * down(s, b); none when a == b. failed: a bit per failed spine. */
static void t_comm_add(struct t_inst *x, uint32_t c, struct t_pair p, uint64_t failed,
		       uint32_t *ncand, uint32_t *nlink)
{
	struct greedy_comm *cm = &x->comms[c];
	uint32_t s;

	*cm = (struct greedy_comm){.src_grp = p.a, .dst_grp = p.b, .cand_off = *ncand};
	for (s = 0; p.a != p.b && s < x->nspine; s++) {
		if (failed >> s & 1)
			continue;
		x->cands[(*ncand)++] = (struct greedy_cand){.link_off = *nlink, .link_n = 2};
		x->links[(*nlink)++] = t_up(x, p.a, s);
		x->links[(*nlink)++] = t_down(x, s, p.b);
	}
	cm->cand_n = *ncand - cm->cand_off;
}

/* Each commodity's destination is its own host, the next free one under its ToR. */
void t_clos(struct t_inst *x, uint32_t ntor, uint32_t nspine, uint64_t failed,
	    const struct t_pair *p, uint32_t n)
{
	uint32_t c, ncand = 0, nlink = 0, *seen = calloc(ntor, sizeof(*seen));

	memset(x, 0, sizeof(*x));
	x->ntor = ntor;
	x->nspine = nspine;
	x->comms = calloc(n + 1, sizeof(*x->comms));
	x->cands = calloc((size_t)n * nspine + 1, sizeof(*x->cands));
	x->links = calloc(2 * (size_t)n * nspine + 1, sizeof(*x->links));
	x->key = calloc(n + 1, sizeof(*x->key));
	x->slot = calloc(n + 1, sizeof(*x->slot));
	assert_true(x->comms && x->cands && x->links && x->key && x->slot && seen);
	for (c = 0; c < n; c++) {
		t_comm_add(x, c, p[c], failed, &ncand, &nlink);
		x->slot[c] = seen[p[c].b]++;
		x->key[c] = c;
	}
	free(seen);
	x->in = (struct greedy_in){.comms = x->comms,
				   .ncomm = n,
				   .cands = x->cands,
				   .links = x->links,
				   .nlinks = 2 * ntor * nspine};
}

void t_free(struct t_inst *x)
{
	free(x->comms);
	free(x->cands);
	free(x->links);
	free(x->key);
	free(x->slot);
}

/* The maximum link load of an assignment, counted here independently of greedy_max_load. */
uint32_t t_max_load(const struct t_inst *x, const uint32_t *choice)
{
	uint32_t *load = calloc(x->in.nlinks + 1, sizeof(*load)), c, i, top = 0, *l;
	const struct greedy_cand *k;

	assert_non_null(load);
	for (c = 0; c < x->in.ncomm; c++) {
		if (!x->comms[c].cand_n)
			continue;
		assert_true(choice[c] < x->comms[c].cand_n);
		k = &x->cands[x->comms[c].cand_off + choice[c]];
		for (i = 0; i < k->link_n; i++) {
			l = &load[x->links[k->link_off + i]];
			top = ++*l > top ? *l : top;
		}
	}
	free(load);
	return top;
}

/* Every choice names a candidate; 0 for a commodity without. */
void t_check_choice(const struct t_inst *x, const uint32_t *choice)
{
	uint32_t c;

	for (c = 0; c < x->in.ncomm; c++) {
		if (x->comms[c].cand_n)
			assert_true(choice[c] < x->comms[c].cand_n);
		else
			assert_int_equal(choice[c], 0);
	}
}

void t_ring(uint64_t *rng, struct t_pair *p)
{
	uint32_t tor[4], i, j;

	for (i = 0; i < 4; i++) {
		do {
			tor[i] = t_below(rng, 64);
			for (j = 0; j < i && tor[j] != tor[i]; j++)
				;
		} while (j < i);
	}
	for (i = 0; i < 4; i++)
		p[i] = (struct t_pair){tor[i], tor[(i + 1) % 4]};
}
