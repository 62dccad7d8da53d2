/* SPDX-License-Identifier: MIT */
/* Internal to the schedule prover (coll_prove.c, coll_prove_hb.c): its state and the pieces
 * the two files share. */
#ifndef TRAFFIC_COLL_PROVE_INT_H
#define TRAFFIC_COLL_PROVE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "traffic/coll.h"

#define PV_NONE UINT32_MAX
/* The race check's work, edges x a closure row's words x ranks: about a second at most */
#define PV_MAX_WORK 3e9

/* Each step is three events: start; a SEND's read done or a RECV's data arriving; end. */
enum { PV_EV_S, PV_EV_X, PV_EV_E };

struct pv_edge {
	uint32_t from, to;
	bool hb; /* false: rendezvous only, for deadlock, not for ordering */
};

/* What a part of a buffer holds: for a reduction, the sum of the contributing ranks' random
 * 64-bit keys and their count (one set of ranks has one sum, but for a chance of 2^-64); a
 * chunk or block id otherwise. {0, 0} holds nothing yet. */
struct pv_val {
	uint64_t h;
	uint32_t n;
};

struct pv {
	const struct coll_sched *s;
	const struct coll_params *p;
	uint32_t n;
	uint32_t ns;
	uint32_t *rank_of; /* rank of each step */
	uint32_t *match; /* matching step */
	uint32_t *fifo_prev; /* previous step on the same connection, same direction */
	VEC(struct pv_edge) edges;
	uint32_t *order; /* events, topologically sorted */
	uint32_t *pred_start, *pred; /* happens-before predecessors of each event (CSR) */
	size_t words; /* of a closure row: one rank's events */
	/* reach[e * words ..]: which events of one rank happen before e (pv_races) */
	uint64_t *reach;
	/* the buffer cut where any step or chunk starts or ends: segment k is
	 * [cut[k], cut[k + 1]) bytes, whole elements that every step moves alike */
	uint64_t *cut;
	uint32_t segs;
	struct pv_val *buf, *in; /* per rank, per segment */
	struct pv_val **payload; /* per SEND: the values it read */
	uint32_t *chunk; /* part (of n) of each segment, or its owner (multidim) */
	uint32_t first_bad; /* the step that the problem is about, PV_NONE */
	bool oom;
	struct diag *d;
};

static inline const struct coll_step *pv_step(const struct pv *m, uint32_t g)
{
	return &m->s->steps.v[g];
}

/* Sets d (-EINVAL, -ENOMEM for "out of memory") and returns -1. */
int pv_fail(struct pv *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, naming step g as the first offending one. */
int pv_fail_at(struct pv *m, uint32_t g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "rank r step i (send to p, [off+len), phase k)" for global step g, into b. */
const char *pv_desc(const struct pv *m, uint32_t g, char *b, size_t len);
/* Builds the happens-before graph, orders the events (finding deadlocks) and closes it. */
int pv_graph(struct pv *m);
/* Finds two accesses to the same bytes of one rank that nothing orders. */
int pv_races(struct pv *m);
/* The segments, every rank's starting values and the chunks (coll_prove_data.c). */
int pv_data_init(struct pv *m);
/* Runs the steps in the order pv_graph found, checking every value written. */
int pv_execute(struct pv *m);
/* Checks that every rank ends with what the kind defines. */
int pv_final(struct pv *m);
/* Frees what pv_data_init allocated. */
void pv_data_done(struct pv *m);

#endif
