/* SPDX-License-Identifier: MIT */
/* Internal to the schedule executor (coll_sim.c, coll_sim_hb.c): its state and the pieces the
 * two files share. */
#ifndef TESTS_UNIT_COLL_SIM_INT_H
#define TESTS_UNIT_COLL_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/unit/coll_sim.h"

#define T_NONE UINT32_MAX
#define T_MAX_EVENTS 12000 /* the closure takes T_MAX_EVENTS^2 bits */

/* Each step is three events: start; a SEND's read done or a RECV's data arriving; end. */
enum { T_EV_S, T_EV_X, T_EV_E };

struct t_edge {
	uint32_t from, to;
	bool hb; /* false: rendezvous only, for deadlock, not for ordering */
};

struct t_sim {
	const struct coll_sched *s;
	const struct coll_params *p;
	uint32_t n;
	uint32_t ns;
	uint32_t *rank_of; /* rank of each step */
	uint32_t *match; /* matching step */
	uint32_t *fifo_prev; /* previous step on the same connection, same direction */
	VEC(struct t_edge) edges;
	uint32_t *order; /* events, topologically sorted */
	size_t words;
	uint64_t *reach; /* reach[e * words ..]: events that happen before e */
	uint64_t elems;
	uint64_t *buf, *in;
	uint64_t **payload; /* per SEND: the values it read */
	uint32_t *chunk; /* part (of n) of each element */
	bool oom;
	char *msg;
	size_t len;
};

static inline const struct coll_step *t_step(const struct t_sim *m, uint32_t g)
{
	return &m->s->steps.v[g];
}

/* Writes the message and returns -1. */
int t_sim_fail(struct t_sim *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "rank r step i (send to p, [off+len), phase k)" for global step g, into b. */
const char *t_sim_desc(const struct t_sim *m, uint32_t g, char *b, size_t len);
/* Builds the happens-before graph, orders the events (finding deadlocks) and closes it. */
int t_sim_graph(struct t_sim *m);
/* Finds two accesses to the same bytes of one rank that nothing orders. */
int t_sim_races(struct t_sim *m);

#endif
