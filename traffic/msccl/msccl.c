// SPDX-License-Identifier: MIT
/* Collective schedules as MSCCL algorithm XML (msccl.h), out and in. The format is the one
 * msccl-tools writes (msccl/language/ir.py, ir_to_xml, its default "old format") and MSCCL
 * reads (microsoft/msccl src/graph/topo.cc, mscclGetAlgoFromXMLAndSetAlgo; the MSCCL
 * executor's src/misc/msccl/msccl_parser.cc in NCCL and RCCL), with the meaning the
 * interpreter gives it (src/collectives/device/msccl_interpreter.h):
 *
 *   <algo name proto nchannels nchunksperloop ngpus coll inplace outofplace minBytes maxBytes>
 *     <gpu id i_chunks o_chunks s_chunks>
 *       <tb id send recv chan>             a threadblock: runs its steps in order, one at a time
 *         <step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep [seq phase]/>
 *
 * Chunks. MSCCL cuts each buffer into nchunksperloop equal chunks (the interpreter's
 * sizePerMscclChunk) and a step moves cnt chunks from chunk srcoff/dstoff on. Our steps start
 * on any element, so the export takes chunks of g elements, g the greatest common divisor of
 * the buffer's elements and of every step's offset and length in elements (and of the share
 * or all-to-all block, where the kind names one): every step is whole chunks, exactly. Read
 * back, a chunk is p->bytes / nchunksperloop bytes, which must be whole elements.
 *
 * Buffers (i input, o output, s scratch). Our all-reduce, reduce-scatter and all-gather work
 * in one buffer, in place; all-to-all has in and out (coll.h). So coll and the buffers map:
 *   allreduce      in place: o is i (msccl-tools' AllReduce.get_buffer_index); written as i.
 *   allgather      in place: i is chunks rank*n/N.. of o (AllGather.get_buffer_index); o.
 *   reducescatter  in place: o is chunks rank*n/N.. of i; written as i. msccl and msccl-tools
 *                  spell it "reduce_scatter", the executor "reducescatter": both are read,
 *                  the executor's is written.
 *   custom         i and o are one buffer: written for an all-gather or reduce-scatter whose
 *                  shares are not MSCCL's equal ones (elements not a multiple of N, or
 *                  multidim's layout, coll.h), read for any kind but all-to-all.
 *   alltoall       out of place: sends read i, receives write o. Our out starts as a copy of
 *                  in, MSCCL's does not: the export adds the rank's own block as a cpy i -> o
 *                  in a threadblock of its own (send = recv = -1); reading drops that cpy.
 *   s              the rank's scratch (coll.h: s_chunks chunks, read as the most any gpu
 *                  has), on either side of a step; an all-to-all's sends may also read it
 *                  and its receives write it.
 * An out-of-place all-reduce, all-gather or reduce-scatter and an in-place all-to-all are
 * refused. Scratch and local steps are only read, not written (an export has neither).
 *
 * Steps. A step names its own rank's chunks on one side, a send (s) as src, a receive (r,
 * rrc) as dst; the other side names the peer's chunks (msccl-tools keeps the sender's
 * ChunkRef as src and the receiver's as dst), written from the matching step and not read
 * back, except where the interpreter reads it too: rrc computes dst = src + received, so src
 * must name dst's chunks (we reduce in place). Written: s (SEND), r (RECV COPY), rrc (RECV
 * REDUCE), nop. Also read: rcs = r, then s of the same chunks; rrcs = rrc, then s; rrs, which
 * sends the sum on without keeping it, as rrcs (the chunk keeps the partial sum: the proof
 * refuses a file that reads its old value afterwards); cpy and re as a LOCAL step (coll.h)
 * copying or adding src onto dst, but a cpy onto the same bytes (in place, or the all-to-all's
 * own block), which is no step, its dependency passing to the threadblock's next step. Any
 * other type is refused. Read back, every send must meet its receive (as many per ordered
 * pair of ranks, the same length in FIFO order).
 *
 * Threadblocks. One has at most one send and one receive peer; sends and receives between two
 * ranks match in the order of the two threadblocks' steps (one connection per channel and
 * peer). We write one threadblock per (rank, peer, direction) holding that connection's steps
 * in list order, which is our FIFO order per ordered pair, with ids in msccl-tools' order
 * (sorted by send, recv, chan): the all-to-all copy, receives by peer, sends by peer. chan is
 * ((receiver - sender) mod N) / 32, the same at both ends, so no channel has more than
 * MSCCL's 32 send or 32 receive threadblocks. A rank read may have several threadblocks to
 * one peer in one direction on different channels (msccl-tools' instances, the executor's
 * production files): each channel is a connection of its own with its own order, and ours is
 * one per pair, so msccl_order.c fixes one order both ends list (a rendezvous run); two on one
 * channel are refused. A threadblock runs its steps in order; where that matters to the data
 * it becomes a dependency: a step depends on the last earlier step of the other direction in
 * its threadblock whose bytes overlap its own, and a local step, or a step after one, on
 * every earlier step of its threadblock that touches the same bytes (one of them writing).
 * Within one direction our FIFO order already holds; and a dependency on every earlier step
 * would make a receive wait for an unrelated send to complete, which deadlocks msccl-tools'
 * one-threadblock ring under rendezvous sends (coll.h) where MSCCL's buffered sends run it.
 *
 * Dependencies. depid/deps: threadblock id and step s of the same gpu that must be done
 * first. MSCCL takes one per step, so a step with k is written as k - 1 nop steps carrying the
 * first k - 1 and the step with the last (msccl-tools' "Expand extra dependencies into nop
 * operations": the interpreter waits for them all before the step and counts nops in s);
 * hasdep = 1 on every step something depends on (it then signals its completion). All our
 * dependencies are written, also those within one threadblock, which msccl-tools leaves out:
 * MSCCL's flags only grow, so such a dependency is met already. Read, a dependency on step s
 * of a threadblock is one on its steps up to s (on a nop or a dropped cpy: the step before):
 * the last of each kind (send, receive, local) up to there, each kind completing in list
 * order; hasdep is read for its value only (0 or 1). minBytes and maxBytes choose among files
 * (msccl_head_takes), proto is checked and otherwise ignored (it picks GPU kernels).
 *
 * Order and phases: seq (the step's index in its rank's list) and phase are testbed's own
 * attributes; MSCCL's reader keeps up to 16 attributes and looks them up by name, so it
 * ignores them (a step has 12). Read, a rank's steps follow their dependencies and their
 * threadblocks' order, ties by seq, else by MSCCL's s and then threadblock id; a step without
 * phase gets its s. So a round trip gives each rank's steps back in their order, with the
 * same dependency lists in the same order.
 *
 * Text. We write what MSCCL's own reader (src/graph/xml.cc) takes: double quotes (it ends a
 * value only at '"'), one space between attributes, none before "/>", no XML declaration (it
 * would take "<?xml" for an element and fail at '?'), one comment first. We read XML
 * elements, attributes in single or double quotes, comments, the declaration and other
 * processing instructions; no DTD, CDATA or text; entities in values are not expanded (no
 * value we use can hold one). msccl-tools' newer format (<op> with buf and off) is not read.
 *
 * Not checked: MSCCL's runtime limits (cnt < 72, 256 steps and 216 threadblocks a gpu,
 * 16-bit chunk offsets). An export is exact for our model; a big one can exceed them.
 * minBytes = maxBytes = 0: any size (MSCCL scales its chunks with the size, and so does the
 * reading: a chunk is the job's buffer over nchunksperloop), so that a schedule written at one
 * size runs at another. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"
#include "traffic/msccl/msccl.h"
#include "traffic/msccl/msccl_int.h"
#include "traffic/msccl/msccl_order.h"

#define NONE MSCCL_NONE
#define SEQ_NONE UINT64_MAX

/* ---- Reading the algorithm ---- */

enum mtype { MT_S, MT_R, MT_RRC, MT_RCS, MT_RRCS, MT_RRS, MT_CPY, MT_RE, MT_NOP };

static const char *const mtype_names[] = {
	[MT_S] = "s",	  [MT_R] = "r",	    [MT_RRC] = "rrc", [MT_RCS] = "rcs", [MT_RRCS] = "rrcs",
	[MT_RRS] = "rrs", [MT_CPY] = "cpy", [MT_RE] = "re",   [MT_NOP] = "nop",
};

/* A threadblock of the gpu being read, by id. */
struct ptb {
	uint32_t el;
	int32_t send, recv; /* peers, -1 for none */
	uint32_t chan;
	uint32_t st0, nst; /* its MSCCL steps: upto[st0 .. st0 + nst) */
	uint32_t op0, nop; /* the steps of ours they became: pop[op0 .. op0 + nop) */
};

/* One of our steps, while its rank is read. */
struct pop {
	uint8_t op, flags; /* flags with coll.h's scratch bits */
	uint16_t phase;
	uint32_t peer;
	uint64_t c0, cnt; /* chunks: a send's source, a receive's or local step's destination */
	uint64_t s0; /* a local step's source chunk */
	uint64_t seq; /* SEQ_NONE without */
	uint32_t tb, s;
	uint32_t rd0, rdn; /* MSCCL dependencies: raw[rd0 .. rd0 + rdn) */
	uint32_t impl0, impln; /* the threadblock's earlier steps it must follow: impl[..] */
	uint32_t dep0, depn; /* resolved: dep[dep0 .. dep0 + depn) */
	size_t pos;
};

/* A (depid, deps) pair, checked to name a step of the gpu. */
struct praw {
	uint32_t tb, s;
};

struct ps {
	const struct xdoc *x;
	const struct coll_params *p;
	struct diag *d;
	enum bufmap map;
	uint64_t n; /* chunks in a buffer */
	uint64_t chunk; /* bytes */
	uint32_t rank; /* the gpu being read */
	uint64_t s_chunks; /* its scratch, in chunks */
	uint64_t s_most; /* the most scratch of any gpu, in chunks */
	uint32_t *gpu_el; /* element of each rank's <gpu> */
	uint32_t *send_tb, *recv_tb; /* per peer: the gpu's (first) threadblock id, NONE */
	bool multi; /* some gpu has two threadblocks to one peer (on different channels) */
	bool custom; /* coll="custom": proven as the job's kind */
	VEC(struct ptb) tb;
	VEC(uint32_t) upto; /* per MSCCL step: its threadblock's last step of ours so far, NONE */
	VEC(struct pop) op;
	VEC(uint32_t) impl;
	VEC(struct praw) raw;
	VEC(uint32_t) dep;
	VEC(uint32_t) order; /* our steps of the rank in list order */
	VEC(uint32_t) newidx; /* list index of each pop */
	VEC(uint32_t) miss, rs, rev, heap, cursor; /* order_ops' */
	VEC(uint32_t) mark; /* resolve_deps': mark[j] = i + 1 once step i lists j */
	VEC(size_t) spos; /* where each step of out comes from in the text */
	VEC(uint32_t) schan; /* and its threadblock's channel */
};

/* Running state of one threadblock while its steps are read. */
struct tbrun {
	uint32_t t; /* id */
	uint32_t pend; /* raw dependencies from here on wait for the next step of ours */
	uint32_t last; /* its latest step of ours, NONE */
	uint32_t nsend, nrecv, nlocal; /* its steps of ours so far, by kind */
};

static int check_job(const struct coll_params *p, struct diag *d)
{
	if ((unsigned)p->kind > COLL_ALLTOALL)
		return diag_set(d, -EINVAL, "MSCCL XML: unknown collective kind %d", (int)p->kind);
	if (!p->nranks || p->nranks > COLL_MAX_RANKS)
		return diag_set(d, -EINVAL, "MSCCL XML: the job has %u ranks, expected 1 to %u",
				p->nranks, COLL_MAX_RANKS);
	if (!p->elem || p->bytes % p->elem)
		return diag_set(d, -EINVAL,
				"MSCCL XML: %" PRIu64 " bytes are not whole %u-byte elements",
				p->bytes, p->elem);
	if (p->kind == COLL_ALLTOALL && p->bytes % ((uint64_t)p->nranks * p->elem))
		return diag_set(d, -EINVAL,
				"MSCCL XML: alltoall: %" PRIu64 " bytes do not split into %u "
				"blocks of whole %u-byte elements",
				p->bytes, p->nranks, p->elem);
	return 0;
}

/* coll= against the job's kind: how i and o map. */
static int read_coll(struct ps *ps, const struct xel *e)
{
	static const struct {
		const char *name;
		enum coll_kind kind;
		enum bufmap map;
	} colls[] = {
		{"allreduce", COLL_ALLREDUCE, BM_SAME},
		{"allgather", COLL_ALLGATHER, BM_AG},
		{"reducescatter", COLL_REDUCESCATTER, BM_RS},
		{"reduce_scatter", COLL_REDUCESCATTER, BM_RS},
		{"alltoall", COLL_ALLTOALL, BM_A2A},
	};
	const struct xdoc *x = ps->x;
	const struct xat *a;
	size_t i;
	int err = msccl_xneed(x, e, "coll", &a);

	if (err)
		return err;
	if (msccl_val_is(x, a, "custom") && ps->p->kind != COLL_ALLTOALL) {
		ps->map = BM_SAME;
		ps->custom = true;
		return 0;
	}
	for (i = 0; i < sizeof(colls) / sizeof(colls[0]); i++) {
		if (!msccl_val_is(x, a, colls[i].name))
			continue;
		if (colls[i].kind != ps->p->kind)
			break;
		ps->map = colls[i].map;
		return 0;
	}
	return msccl_xbad(x, a->pos,
			  "coll=\"%.*s\", but the job's collective is %s (read: allreduce, "
			  "allgather, reducescatter, alltoall; custom for all but alltoall)",
			  (int)a->vlen, x->t + a->val, coll_kind_name(ps->p->kind));
}

/* inplace and outofplace: ours are in place but for all-to-all's two buffers. */
static int read_place(struct ps *ps, const struct xel *e)
{
	const struct xdoc *x = ps->x;
	bool a2a = ps->p->kind == COLL_ALLTOALL;
	int64_t in, out;
	int err = msccl_xint(x, e, "inplace", 0, 1, &in);

	if (!err)
		err = msccl_xint_or(x, e, "outofplace", 0, 1, true, !in, &out);
	if (err)
		return err;
	if (a2a && !out)
		return msccl_xbad(x, e->pos,
				  "an in-place alltoall: testbed's has separate in and out "
				  "buffers (outofplace=\"1\")");
	if (!a2a && !in)
		return msccl_xbad(
			x, e->pos,
			"an out-of-place %s: testbed's works in one buffer (inplace=\"1\")",
			coll_kind_name(ps->p->kind));
	return 0;
}

/* nchunksperloop cuts the job's buffer into equal chunks of whole elements. */
static int read_chunks(struct ps *ps, const struct xel *e)
{
	const struct xdoc *x = ps->x;
	const struct coll_params *p = ps->p;
	int64_t n;
	int err = msccl_xint(x, e, "nchunksperloop", 0, INT64_MAX, &n);

	if (err)
		return err;
	ps->n = (uint64_t)n;
	if (!n && !p->bytes)
		return 0;
	if (!n || p->bytes % ps->n || (p->bytes / ps->n) % p->elem)
		return msccl_xbad(x, e->pos,
				  "nchunksperloop=\"%" PRId64 "\" does not cut %" PRIu64
				  " bytes into equal chunks of whole %u-byte elements",
				  n, p->bytes, p->elem);
	ps->chunk = p->bytes / ps->n;
	return 0;
}

static int read_algo(struct ps *ps)
{
	const struct xdoc *x = ps->x;
	const struct xel *e = &x->el.v[x->root];
	const struct xat *a;
	int64_t v;
	int err;

	if (!msccl_el_is(x, e, "algo"))
		return msccl_xbad(x, e->pos, "the root element is <%.*s>, expected <algo>",
				  (int)e->nlen, x->t + e->name);
	err = msccl_xneed(x, e, "name", &a);
	if (!err)
		err = msccl_xneed(x, e, "proto", &a);
	if (!err && !msccl_val_is(x, a, "Simple") && !msccl_val_is(x, a, "LL") &&
	    !msccl_val_is(x, a, "LL128"))
		err = msccl_xbad(x, a->pos, "proto=\"%.*s\": MSCCL's are Simple, LL and LL128",
				 (int)a->vlen, x->t + a->val);
	if (!err)
		err = msccl_xint(x, e, "nchannels", 0, INT32_MAX, &v);
	if (!err)
		err = msccl_xint(x, e, "ngpus", 1, INT32_MAX, &v);
	if (!err && v != ps->p->nranks)
		err = msccl_xbad(x, e->pos,
				 "<algo> names %" PRId64 " ranks (ngpus), the job has %u", v,
				 ps->p->nranks);
	if (!err)
		err = read_coll(ps, e);
	if (!err)
		err = read_place(ps, e);
	if (!err)
		err = msccl_xint_or(x, e, "minBytes", 0, INT64_MAX, true, 0, &v);
	if (!err)
		err = msccl_xint_or(x, e, "maxBytes", 0, INT64_MAX, true, 0, &v);
	return err ? err : read_chunks(ps, e);
}

/* The <gpu> of every rank, once each. */
static int read_gpu_ids(struct ps *ps)
{
	const struct xdoc *x = ps->x;
	const struct xel *a = &x->el.v[x->root], *e;
	unsigned line, col;
	uint32_t i, r;
	int64_t id;
	int err;

	for (r = 0; r < ps->p->nranks; r++)
		ps->gpu_el[r] = NONE;
	for (i = a->child; i != NONE; i = e->next) {
		e = &x->el.v[i];
		if (!msccl_el_is(x, e, "gpu"))
			return msccl_xbad(x, e->pos, "<%.*s> in <algo>: expected <gpu>",
					  (int)e->nlen, x->t + e->name);
		err = msccl_xint(x, e, "id", 0, INT32_MAX, &id);
		if (err)
			return err;
		if (id >= ps->p->nranks)
			return msccl_xbad(x, e->pos,
					  "gpu id %" PRId64
					  " is out of range: the job has %u ranks",
					  id, ps->p->nranks);
		if (ps->gpu_el[id] != NONE) {
			msccl_xpos(x->t, x->el.v[ps->gpu_el[id]].pos, &line, &col);
			return msccl_xbad(x, e->pos,
					  "a second <gpu id=\"%" PRId64 "\"> (the first at %u:%u)",
					  id, line, col);
		}
		ps->gpu_el[id] = i;
	}
	for (r = 0; r < ps->p->nranks; r++)
		if (ps->gpu_el[r] == NONE)
			return msccl_xbad(x, a->pos, "no <gpu id=\"%u\">: every rank needs one", r);
	return 0;
}

/* Threadblock t's connection to peer the other way as t's (send: its send peer): a second
 * threadblock to one peer is a connection of its own only on another channel (MSCCL's). */
static int same_conn(struct ps *ps, const struct xat *a, uint32_t t, int32_t peer, bool send)
{
	const struct ptb *b = &ps->tb.v[t], *o;
	uint32_t i;

	ps->multi = true;
	for (i = 0; i < ps->tb.n; i++) {
		o = &ps->tb.v[i];
		if (i != t && o->el != NONE && (send ? o->send : o->recv) == peer &&
		    o->chan == b->chan)
			return msccl_xbad(
				ps->x, a->pos,
				"%s=\"%d\": threadblock %u has this connection already (%s gpu "
				"%d on channel %u); a second threadblock to one peer needs "
				"another chan",
				send ? "send" : "recv", peer, i,
				send ? "sends to" : "receives from", peer, b->chan);
	}
	return 0;
}

/* A peer attribute of threadblock t's <tb>: -1, or another rank. */
static int read_peer(struct ps *ps, const struct xel *e, uint32_t t, bool send, int32_t *v)
{
	const struct xdoc *x = ps->x;
	const char *key = send ? "send" : "recv";
	uint32_t *conn = send ? ps->send_tb : ps->recv_tb;
	const struct xat *a;
	int64_t peer;
	int err = msccl_xint(x, e, key, -1, INT32_MAX, &peer);

	if (err || peer < 0) {
		*v = -1;
		return err;
	}
	a = msccl_xattr(x, e, key);
	if (peer >= ps->p->nranks)
		return msccl_xbad(x, a->pos,
				  "%s=\"%" PRId64 "\": peer out of range, the job has %u ranks",
				  key, peer, ps->p->nranks);
	if (peer == ps->rank)
		return msccl_xbad(x, a->pos,
				  "%s=\"%" PRId64 "\": a threadblock of gpu %u with itself", key,
				  peer, ps->rank);
	*v = (int32_t)peer;
	if (conn[peer] == NONE) {
		conn[peer] = t;
		return 0;
	}
	return same_conn(ps, a, t, (int32_t)peer, send);
}

static int read_tb(struct ps *ps, uint32_t el)
{
	const struct xdoc *x = ps->x;
	const struct xel *e = &x->el.v[el];
	struct ptb *t;
	int64_t id, chan;
	int err = msccl_xint(x, e, "id", 0, INT32_MAX, &id);

	if (!err && id >= (int64_t)ps->tb.n)
		err = msccl_xbad(x, e->pos,
				 "threadblock id %" PRId64 ": gpu %u has %zu, so ids 0 to %zu", id,
				 ps->rank, ps->tb.n, ps->tb.n - 1);
	if (!err && ps->tb.v[id].el != NONE)
		err = msccl_xbad(x, e->pos, "a second threadblock id %" PRId64, id);
	if (!err)
		err = msccl_xint(x, e, "chan", 0, INT32_MAX, &chan);
	if (err)
		return err;
	t = &ps->tb.v[id];
	t->el = el;
	t->nst = e->nchild;
	t->chan = (uint32_t)chan;
	err = read_peer(ps, e, (uint32_t)id, true, &t->send);
	return err ? err : read_peer(ps, e, (uint32_t)id, false, &t->recv);
}

/* The gpu's threadblocks by id, with where their steps go in ps->upto. */
static int read_tbs(struct ps *ps, const struct xel *g)
{
	const struct xdoc *x = ps->x;
	uint32_t i, st0 = 0;
	int err;

	ps->tb.n = 0;
	if (vec_reserve(&ps->tb, g->nchild))
		return msccl_xnomem(x);
	ps->tb.n = g->nchild;
	for (i = 0; i < g->nchild; i++)
		ps->tb.v[i] = (struct ptb){.el = NONE, .send = -1, .recv = -1};
	for (i = g->child; i != NONE; i = x->el.v[i].next) {
		const struct xel *e = &x->el.v[i];

		if (!msccl_el_is(x, e, "tb"))
			return msccl_xbad(x, e->pos, "<%.*s> in <gpu>: expected <tb>", (int)e->nlen,
					  x->t + e->name);
		err = read_tb(ps, i);
		if (err)
			return err;
	}
	for (i = 0; i < ps->tb.n; i++)
		ps->tb.v[i].st0 = st0, st0 += ps->tb.v[i].nst;
	ps->upto.n = 0;
	return vec_reserve(&ps->upto, st0 + 1) ? msccl_xnomem(x) : 0;
}

static void clear_conns(struct ps *ps)
{
	size_t i;

	for (i = 0; i < ps->tb.n; i++) { /* NONE already for a second one: no matter */
		if (ps->tb.v[i].send >= 0)
			ps->send_tb[ps->tb.v[i].send] = NONE;
		if (ps->tb.v[i].recv >= 0)
			ps->recv_tb[ps->tb.v[i].recv] = NONE;
	}
}

/* The fields of one <step> that every type has. */
struct pstep {
	const struct xel *e;
	enum mtype type;
	int64_t s, cnt, depid, deps, hasdep, seq, phase;
};

static int read_type(struct ps *ps, struct pstep *st)
{
	const struct xdoc *x = ps->x;
	const struct xat *a;
	size_t i;
	int err = msccl_xneed(x, st->e, "type", &a);

	if (err)
		return err;
	for (i = 0; i < sizeof(mtype_names) / sizeof(mtype_names[0]); i++)
		if (msccl_val_is(x, a, mtype_names[i])) {
			st->type = (enum mtype)i;
			return 0;
		}
	if (msccl_val_is(x, a, "re") || msccl_val_is(x, a, "ra"))
		return msccl_xbad(
			x, a->pos,
			"unsupported step type %.*s: a local reduction, which testbed's steps "
			"do not have",
			(int)a->vlen, x->t + a->val);
	return msccl_xbad(
		x, a->pos,
		"unsupported step type '%.*s' (read: s, r, rrc, rcs, rrcs, rrs, nop, cpy)",
		(int)a->vlen, x->t + a->val);
}

/* depid/deps: a step of this gpu, checked now that every threadblock's length is known. */
static int read_dep(struct ps *ps, struct pstep *st)
{
	const struct xdoc *x = ps->x;
	int err = msccl_xint(x, st->e, "depid", -1, INT32_MAX, &st->depid);

	if (!err)
		err = msccl_xint(x, st->e, "deps", -1, INT32_MAX, &st->deps);
	if (err || st->depid < 0)
		return err;
	if (st->depid >= (int64_t)ps->tb.n)
		return msccl_xbad(x, msccl_xattr(x, st->e, "depid")->pos,
				  "depends on threadblock %" PRId64 ", gpu %u has %zu", st->depid,
				  ps->rank, ps->tb.n);
	if (st->deps < 0 || st->deps >= ps->tb.v[st->depid].nst)
		return msccl_xbad(x, msccl_xattr(x, st->e, "deps")->pos,
				  "depends on step %" PRId64 " of threadblock %" PRId64
				  ", which has %u steps",
				  st->deps, st->depid, ps->tb.v[st->depid].nst);
	return vec_push(&ps->raw, ((struct praw){(uint32_t)st->depid, (uint32_t)st->deps}))
		       ? msccl_xnomem(x)
		       : 0;
}

static int read_step_fields(struct ps *ps, struct pstep *st, uint32_t k)
{
	const struct xdoc *x = ps->x;
	const struct xel *e = st->e;
	int err = msccl_xint(x, e, "s", 0, INT32_MAX, &st->s);

	if (!err && st->s != k)
		err = msccl_xbad(x, e->pos,
				 "s=\"%" PRId64 "\", but it is step %u of its threadblock "
				 "(s counts the steps from 0)",
				 st->s, k);
	if (!err)
		err = read_type(ps, st);
	if (!err)
		err = msccl_xint(x, e, "cnt", 0, INT32_MAX, &st->cnt);
	if (!err && !st->cnt && st->type != MT_NOP)
		err = msccl_xbad(x, msccl_xattr(x, e, "cnt")->pos,
				 "cnt=\"0\": a %s step moves chunks", mtype_names[st->type]);
	if (!err)
		err = msccl_xint(x, e, "hasdep", 0, 1, &st->hasdep);
	if (!err)
		err = msccl_xint_or(x, e, "seq", 0, UINT32_MAX, true, -1, &st->seq);
	if (!err)
		err = msccl_xint_or(x, e, "phase", 0, UINT16_MAX, true,
				    st->s < UINT16_MAX ? st->s : UINT16_MAX, &st->phase);
	return err ? err : read_dep(ps, st);
}

/* Chunk *c0 of the rank's buffer that buffer bkey, offset okey name for cnt chunks, or of its
 * scratch (*scr set). a2a: the buffer an all-to-all's side must be, scratch aside ('i' sends
 * read, 'o' receives write). */
static int own_chunks(struct ps *ps, const struct pstep *st, const char *bkey, const char *okey,
		      char a2a, uint64_t *c0, bool *scr)
{
	const struct xdoc *x = ps->x;
	const struct xat *b, *o;
	uint64_t base = 0, lim = ps->n, share = ps->n / ps->p->nranks;
	int64_t off;
	char c;
	int err = msccl_xneed(x, st->e, bkey, &b);

	if (!err)
		err = msccl_xint(x, st->e, okey, -1, INT32_MAX, &off);
	if (err)
		return err;
	o = msccl_xattr(x, st->e, okey);
	c = b->vlen == 1 ? x->t[b->val] : '?';
	*scr = c == 's';
	if (c != 'i' && c != 'o' && c != 's')
		return msccl_xbad(x, b->pos, "%s=\"%.*s\": MSCCL's buffers are i, o and s", bkey,
				  (int)b->vlen, x->t + b->val);
	if (ps->map == BM_A2A && c != a2a && c != 's')
		return msccl_xbad(
			x, b->pos,
			"%s=\"%c\": an alltoall's sends read i (or s) and receives write o "
			"(or s)",
			bkey, c);
	if (c == 's')
		lim = ps->s_chunks;
	if ((ps->map == BM_AG && c == 'i') || (ps->map == BM_RS && c == 'o')) {
		if (ps->n % ps->p->nranks)
			return msccl_xbad(
				x, b->pos,
				"%s=\"%c\" is 1/ngpus of the buffer, but nchunksperloop=%" PRIu64
				" is not a multiple of ngpus",
				bkey, c, ps->n);
		base = ps->rank * share, lim = share;
	}
	if (off < 0 || (uint64_t)off + (uint64_t)st->cnt > lim)
		return msccl_xbad(x, o->pos,
				  "chunks %" PRId64 " to %" PRId64 " of buffer %c: it has %" PRIu64
				  " chunks%s",
				  off, off + st->cnt - 1, c, lim, c == 's' ? " (s_chunks)" : "");
	*c0 = base + (uint64_t)off;
	return 0;
}

/* Whether two ranges of chunks of one rank, in the buffer or scratch, overlap. An
 * all-to-all's in (what sends read) and out (what receives write) are apart. */
static bool ranges_meet(uint64_t a0, uint64_t an, uint8_t ar, uint64_t b0, uint64_t bn, uint8_t br)
{
	if (ar != br)
		return false;
	return a0 < b0 + bn && b0 < a0 + an;
}

/* Regions, for ranges_meet: 0 all-to-all's in, 1 the buffer (all-to-all's out), 2 scratch. */
static uint8_t rd_region(const struct ps *ps, const struct pop *o)
{
	return o->flags & COLL_F_SRC_SCRATCH ? 2 : ps->map == BM_A2A ? 0 : 1;
}

static uint8_t wr_region(const struct pop *o)
{
	return o->flags & COLL_F_DST_SCRATCH ? 2 : 1;
}

/* Whether pops a and b of one threadblock touch the same bytes, one of them writing. */
static bool pops_conflict(const struct ps *ps, const struct pop *a, const struct pop *b)
{
	bool ar = a->op != COLL_RECV, aw = a->op != COLL_SEND;
	bool br = b->op != COLL_RECV, bw = b->op != COLL_SEND;
	uint64_t as = a->op == COLL_LOCAL ? a->s0 : a->c0, bs = b->op == COLL_LOCAL ? b->s0 : b->c0;

	if (aw && bw && ranges_meet(a->c0, a->cnt, wr_region(a), b->c0, b->cnt, wr_region(b)))
		return true;
	if (aw && br && ranges_meet(a->c0, a->cnt, wr_region(a), bs, b->cnt, rd_region(ps, b)))
		return true;
	return ar && bw && ranges_meet(as, a->cnt, rd_region(ps, a), b->c0, b->cnt, wr_region(b));
}

/* The threadblock's earlier steps o must follow (o not yet appended): the latest of the other
 * direction whose bytes it also touches (one direction alone keeps its FIFO order), and,
 * where o or the earlier one is local, every earlier one touching the same bytes with one of
 * them writing (MSCCL runs a threadblock's steps in order). */
static int find_impl(struct ps *ps, const struct tbrun *run, struct pop *o)
{
	const struct ptb *t = &ps->tb.v[run->t];
	uint32_t j, other = o->op == COLL_SEND ? run->nrecv : run->nsend;
	const struct pop *q;

	o->impl0 = (uint32_t)ps->impl.n, o->impln = 0;
	for (j = (uint32_t)ps->op.n; o->op != COLL_LOCAL && other && j-- > t->op0;) {
		q = &ps->op.v[j];
		if (q->op != COLL_LOCAL && q->op != o->op && pops_conflict(ps, o, q)) {
			if (vec_push(&ps->impl, j))
				return msccl_xnomem(ps->x);
			o->impln++;
			break;
		}
	}
	for (j = t->op0; (o->op == COLL_LOCAL || run->nlocal) && j < ps->op.n; j++) {
		q = &ps->op.v[j];
		if ((o->op == COLL_LOCAL || q->op == COLL_LOCAL) && pops_conflict(ps, o, q)) {
			if (vec_push(&ps->impl, j))
				return msccl_xnomem(ps->x);
			o->impln++;
		}
	}
	return 0;
}

/* Appends one of our steps for threadblock run->t, taking the pending dependencies. c0: a
 * send's source, a receive's or local step's destination; s0: a local step's source. */
static int emit(struct ps *ps, struct tbrun *run, const struct pstep *st, uint8_t op, uint8_t flags,
		uint64_t c0, uint64_t s0)
{
	const struct ptb *t = &ps->tb.v[run->t];
	struct pop o = {.op = op, .flags = flags, .phase = (uint16_t)st->phase, .c0 = c0, .s0 = s0};
	int err;

	o.cnt = (uint64_t)st->cnt;
	o.peer = op == COLL_LOCAL ? ps->rank : (uint32_t)(op == COLL_SEND ? t->send : t->recv);
	o.seq = st->seq < 0 ? SEQ_NONE : (uint64_t)st->seq;
	o.tb = run->t, o.s = (uint32_t)st->s, o.pos = st->e->pos;
	o.rd0 = run->pend, o.rdn = (uint32_t)ps->raw.n - run->pend;
	run->pend = (uint32_t)ps->raw.n;
	err = find_impl(ps, run, &o);
	if (err || vec_push(&ps->op, o))
		return err ? err : msccl_xnomem(ps->x);
	run->last = (uint32_t)ps->op.n - 1;
	if (op == COLL_SEND)
		run->nsend++;
	else if (op == COLL_RECV)
		run->nrecv++;
	else
		run->nlocal++;
	return 0;
}

static int need_peer(struct ps *ps, const struct pstep *st, uint32_t t, bool send)
{
	const struct ptb *b = &ps->tb.v[t];

	if ((send ? b->send : b->recv) >= 0)
		return 0;
	return msccl_xbad(ps->x, st->e->pos, "a %s step in a threadblock with %s=\"-1\"",
			  mtype_names[st->type], send ? "send" : "recv");
}

/* The flag rules of coll.h's kinds for what lands in the buffer: all-gather and all-to-all
 * copy, reduce-scatter reduces; all-to-all never adds, also not in scratch. */
static int check_flags(struct ps *ps, const struct pstep *st, uint8_t flags, bool scr)
{
	enum coll_kind k = ps->p->kind;

	if (flags == COLL_F_REDUCE && (k == COLL_ALLTOALL || (k == COLL_ALLGATHER && !scr)))
		return msccl_xbad(ps->x, st->e->pos, "a %s step reduces, but an %s copies",
				  mtype_names[st->type], coll_kind_name(k));
	if (flags == COLL_F_COPY && k == COLL_REDUCESCATTER && !scr && st->type != MT_CPY)
		return msccl_xbad(ps->x, st->e->pos,
				  "a %s step copies, but a reducescatter reduces",
				  mtype_names[st->type]);
	return 0;
}

/* rrc, rrcs and rrs compute dst = src + received: src must be dst's chunks. */
static int same_chunks(struct ps *ps, const struct pstep *st, uint64_t dst, bool dscr)
{
	uint64_t src;
	bool sscr;
	int err = own_chunks(ps, st, "srcbuf", "srcoff", 'o', &src, &sscr);

	if (err || (src == dst && sscr == dscr))
		return err;
	return msccl_xbad(ps->x, st->e->pos,
			  "%s adds chunk %" PRIu64 "%s into chunk %" PRIu64
			  "%s: testbed's receives reduce in place",
			  mtype_names[st->type], src, sscr ? " of scratch" : "", dst,
			  dscr ? " of scratch" : "");
}

/* cpy and re: a local step, src onto (re: added into) dst. A cpy onto the same bytes is no
 * step: in place, or the all-to-all's own block, which our out holds from the start. */
static int read_local(struct ps *ps, struct tbrun *run, const struct pstep *st)
{
	uint64_t src, dst, b = ps->n / ps->p->nranks, lo = ps->rank * b;
	bool reduce = st->type == MT_RE, sscr, dscr;
	uint8_t flags = reduce ? COLL_F_REDUCE : COLL_F_COPY;
	int err = own_chunks(ps, st, "srcbuf", "srcoff", 'i', &src, &sscr);

	if (!err)
		err = own_chunks(ps, st, "dstbuf", "dstoff", 'o', &dst, &dscr);
	if (!err)
		err = check_flags(ps, st, flags, dscr);
	if (err)
		return err;
	if (!reduce && !sscr && !dscr && src == dst &&
	    (ps->map != BM_A2A || (src >= lo && src + (uint64_t)st->cnt <= lo + b)))
		return 0;
	if (reduce && src == dst && sscr == dscr)
		return msccl_xbad(ps->x, st->e->pos, "re adds chunk %" PRIu64 " to itself", src);
	flags |= (sscr ? COLL_F_SRC_SCRATCH : 0) | (dscr ? COLL_F_DST_SCRATCH : 0);
	return emit(ps, run, st, COLL_LOCAL, flags, dst, src);
}

/* One <step>: our steps for it (none for nop and a cpy onto itself). */
static int read_step(struct ps *ps, struct tbrun *run, const struct xel *e, uint32_t k)
{
	struct pstep st = {.e = e};
	bool send, recv, scr;
	uint8_t flags;
	uint64_t c0;
	int err = read_step_fields(ps, &st, k);

	if (err || st.type == MT_NOP)
		return err;
	if (st.type == MT_CPY || st.type == MT_RE)
		return read_local(ps, run, &st);
	send = st.type == MT_S || st.type == MT_RCS || st.type == MT_RRCS || st.type == MT_RRS;
	recv = st.type != MT_S;
	flags = st.type == MT_RRC || st.type == MT_RRCS || st.type == MT_RRS ? COLL_F_REDUCE
									     : COLL_F_COPY;
	err = send ? need_peer(ps, &st, run->t, true) : 0;
	if (!err && recv)
		err = need_peer(ps, &st, run->t, false);
	if (err)
		return err;
	if (st.type == MT_S) {
		err = own_chunks(ps, &st, "srcbuf", "srcoff", 'i', &c0, &scr);
		return err ? err
			   : emit(ps, run, &st, COLL_SEND, scr ? COLL_F_SRC_SCRATCH : 0, c0, 0);
	}
	/* a fused step sends what it received: from o, which an all-to-all's send cannot */
	err = own_chunks(ps, &st, "dstbuf", "dstoff", send ? 'i' : 'o', &c0, &scr);
	if (!err)
		err = check_flags(ps, &st, flags, scr);
	if (!err && flags == COLL_F_REDUCE)
		err = same_chunks(ps, &st, c0, scr);
	if (!err)
		err = emit(ps, run, &st, COLL_RECV, flags | (scr ? COLL_F_DST_SCRATCH : 0), c0, 0);
	if (!err && send)
		err = emit(ps, run, &st, COLL_SEND, scr ? COLL_F_SRC_SCRATCH : 0, c0, 0);
	return err;
}

static int read_tb_steps(struct ps *ps, uint32_t t)
{
	const struct xdoc *x = ps->x;
	struct ptb *b = &ps->tb.v[t];
	struct tbrun run = {t, (uint32_t)ps->raw.n, NONE, 0, 0, 0};
	uint32_t i, k = 0;
	int err;

	b->op0 = (uint32_t)ps->op.n;
	for (i = x->el.v[b->el].child; i != NONE; i = x->el.v[i].next, k++) {
		const struct xel *e = &x->el.v[i];

		if (!msccl_el_is(x, e, "step"))
			return msccl_xbad(
				x, e->pos,
				"<%.*s> in <tb>: expected <step> (MSCCL's format; msccl-tools' "
				"newer <op> is not read)",
				(int)e->nlen, x->t + e->name);
		err = read_step(ps, &run, e, k);
		if (err)
			return err;
		ps->upto.v[ps->upto.n++] = run.last;
	}
	ps->tb.v[t].nop = (uint32_t)ps->op.n - ps->tb.v[t].op0;
	return 0;
}

static int add_dep(struct ps *ps, struct pop *o, uint32_t self, uint32_t j)
{
	if (ps->mark.v[j] == self + 1) /* already listed for this step */
		return 0;
	ps->mark.v[j] = self + 1;
	if (vec_push(&ps->dep, j))
		return msccl_xnomem(ps->x);
	o->depn++;
	return 0;
}

/* Whether every step of the rank carries seq: a file testbed wrote, which lists every
 * dependency of every step (msccl_format), so it is read as written. */
static bool lists_all(const struct ps *ps)
{
	uint32_t i;

	for (i = 0; i < ps->op.n; i++)
		if (ps->op.v[i].seq == SEQ_NONE)
			return false;
	return true;
}

#define NKINDS 3 /* send, receive, local (enum coll_op) */

/* The last of our steps of threadblock b up to j (inclusive) of kind op, or NONE. */
static uint32_t last_of(const struct ps *ps, const struct ptb *b, uint32_t j, uint8_t op)
{
	uint32_t k;

	for (k = j + 1; k-- > b->op0;)
		if (ps->op.v[k].op == op)
			return k;
	return NONE;
}

/* front[NKINDS * tb + op]: the latest step of ours of threadblock tb of kind op (enum
 * coll_op) that the step being resolved must follow, NONE. */
static void front_raise(const struct ps *ps, uint32_t *front, uint32_t tb, uint32_t j)
{
	uint32_t *f;

	if (j == NONE)
		return;
	f = &front[NKINDS * tb + ps->op.v[j].op];
	if (*f == NONE || *f < j)
		*f = j;
}

/* Step i's dependencies (o = op[i] of threadblock t) onto dep. A dependency on MSCCL step s
 * of threadblock tb: MSCCL's threadblock runs its steps in order, so once step s is done, all
 * of tb's steps up to it are; ours of one threadblock and one direction (one connection)
 * complete in list order (coll.h), and a rank's local steps too (plan.h: they share one
 * channel), so the last of each kind up to there says as much. A later step of t still follows
 * them, as in MSCCL (front is kept from step to step of t). In a file testbed wrote (exact), only
 * the steps named, its dependencies being listed in full. */
static int resolve_op(struct ps *ps, uint32_t t, uint32_t i, uint32_t *front, bool exact)
{
	struct pop *o = &ps->op.v[i];
	uint32_t k, j;
	uint8_t op;
	int err = 0;

	o->dep0 = (uint32_t)ps->dep.n, o->depn = 0;
	for (k = 0; k < o->rdn && !err; k++) {
		const struct praw *r = &ps->raw.v[o->rd0 + k];

		j = ps->upto.v[ps->tb.v[r->tb].st0 + r->s];
		if (j != NONE && (exact || r->tb == t)) /* own threadblock's: only the one named */
			err = add_dep(ps, o, i, j);
		else if (j != NONE)
			for (op = 0; op < NKINDS; op++)
				front_raise(ps, front, r->tb, last_of(ps, &ps->tb.v[r->tb], j, op));
	}
	for (k = 0; k < NKINDS * ps->tb.n && !err && !exact; k++)
		if (front[k] != NONE)
			err = add_dep(ps, o, i, front[k]);
	for (k = 0; k < o->impln && !err; k++)
		err = add_dep(ps, o, i, ps->impl.v[o->impl0 + k]);
	return err;
}

/* Each step's dependencies as indexes of our steps. Our steps of one threadblock do not wait
 * for each other (msccl.c's opening comment says why), but a step still waits for what the
 * threadblock's earlier steps waited for, as under MSCCL's in-order threadblocks it does:
 * else a step that msccl-tools left without the dependency an earlier step of its
 * threadblock carries would run before its data is there (allreduce_recursive_doubling_halving
 * sent a partial sum). */
static int resolve_deps(struct ps *ps)
{
	bool exact = lists_all(ps);
	uint32_t t, i, *front = malloc((NKINDS * ps->tb.n + 1) * sizeof(*front));
	int err = !front || vec_reserve(&ps->mark, ps->op.n + 1) ? msccl_xnomem(ps->x) : 0;

	if (!err)
		memset(ps->mark.v, 0, (ps->op.n + 1) * sizeof(uint32_t));
	ps->dep.n = 0;
	for (t = 0; t < ps->tb.n && !err; t++) {
		memset(front, 0xff, NKINDS * ps->tb.n * sizeof(*front)); /* NONE */
		for (i = ps->tb.v[t].op0; i < ps->tb.v[t].op0 + ps->tb.v[t].nop && !err; i++)
			err = resolve_op(ps, t, i, front, exact);
	}
	free(front);
	return err;
}

/* Whether op a goes before op b among ready ones: seq, then MSCCL's s, threadblock, index. */
static bool op_before(const struct ps *ps, uint32_t a, uint32_t b)
{
	const struct pop *x = &ps->op.v[a], *y = &ps->op.v[b];

	if (x->seq != y->seq)
		return x->seq < y->seq;
	if (x->s != y->s)
		return x->s < y->s;
	if (x->tb != y->tb)
		return x->tb < y->tb;
	return a < b;
}

/* A binary heap of our steps, the first by op_before on top. */
static void heap_push(const struct ps *ps, uint32_t *h, uint32_t *n, uint32_t op)
{
	uint32_t i = (*n)++, up;

	while (i && op_before(ps, op, h[up = (i - 1) / 2])) {
		h[i] = h[up];
		i = up;
	}
	h[i] = op;
}

static uint32_t heap_pop(const struct ps *ps, uint32_t *h, uint32_t *n)
{
	uint32_t top = h[0], last = h[--(*n)], i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && op_before(ps, h[c + 1], h[c]))
			c++;
		if (!op_before(ps, h[c], last))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
	return top;
}

/* For each step, how many dependencies it still waits for (miss) and who waits for it:
 * rev[rs[j] .. rs[j + 1]) depend on j. */
static int build_waits(struct ps *ps)
{
	uint32_t n = (uint32_t)ps->op.n, i, k, j;

	if (vec_reserve(&ps->miss, n + 1) || vec_reserve(&ps->rs, n + 1) ||
	    vec_reserve(&ps->rev, ps->dep.n + 1) || vec_reserve(&ps->newidx, n + 1) ||
	    vec_reserve(&ps->order, n + 1) || vec_reserve(&ps->heap, ps->tb.n + 1) ||
	    vec_reserve(&ps->cursor, ps->tb.n + 1))
		return msccl_xnomem(ps->x);
	memset(ps->rs.v, 0, (n + 1) * sizeof(uint32_t));
	for (i = 0; i < n; i++) {
		ps->miss.v[i] = ps->op.v[i].depn;
		for (k = 0; k < ps->op.v[i].depn; k++)
			ps->rs.v[ps->dep.v[ps->op.v[i].dep0 + k]]++;
	}
	for (j = 1; j <= n; j++) /* running ends, then filled down to the starts */
		ps->rs.v[j] += ps->rs.v[j - 1];
	for (i = 0; i < n; i++)
		for (k = 0; k < ps->op.v[i].depn; k++)
			ps->rev.v[--ps->rs.v[ps->dep.v[ps->op.v[i].dep0 + k]]] = i;
	return 0;
}

/* Makes step i of threadblock t a candidate if it heads t and waits for nothing. */
static void offer(struct ps *ps, uint32_t *nh, uint32_t t, uint32_t i)
{
	if (i < ps->tb.v[t].op0 + ps->tb.v[t].nop && ps->cursor.v[t] == i && !ps->miss.v[i])
		heap_push(ps, ps->heap.v, nh, i);
}

/* The rank's list order: threadblock order and dependencies (Kahn), ties by op_before. */
static int order_ops(struct ps *ps)
{
	uint32_t nh = 0, k = 0, t, j, o;
	int err = build_waits(ps);

	if (err)
		return err;
	for (t = 0; t < ps->tb.n; t++)
		ps->cursor.v[t] = ps->tb.v[t].op0;
	for (t = 0; t < ps->tb.n; t++)
		offer(ps, &nh, t, ps->tb.v[t].op0);
	while (nh) {
		o = heap_pop(ps, ps->heap.v, &nh);
		ps->newidx.v[o] = k;
		ps->order.v[k++] = o;
		for (j = ps->rs.v[o]; j < ps->rs.v[o + 1]; j++)
			if (!--ps->miss.v[ps->rev.v[j]])
				offer(ps, &nh, ps->op.v[ps->rev.v[j]].tb, ps->rev.v[j]);
		t = ps->op.v[o].tb;
		offer(ps, &nh, t, ++ps->cursor.v[t]);
	}
	for (t = 0; k < ps->op.n && t < ps->tb.n; t++)
		if (ps->cursor.v[t] < ps->tb.v[t].op0 + ps->tb.v[t].nop)
			return msccl_xbad(ps->x, ps->op.v[ps->cursor.v[t]].pos,
					  "gpu %u: this step of threadblock %u waits in a cycle of "
					  "dependencies",
					  ps->rank, t);
	return 0;
}

/* The rank's steps, in order, onto out. */
static int put_rank(struct ps *ps, struct coll_sched *out)
{
	struct coll_rank *rk = &out->ranks.v[ps->rank];
	uint32_t k, j;

	rk->step_off = (uint32_t)out->steps.n;
	rk->step_n = (uint32_t)ps->op.n;
	for (k = 0; k < ps->op.n; k++) {
		const struct pop *o = &ps->op.v[ps->order.v[k]];
		struct coll_step st = {
			.op = o->op,
			.flags = o->flags,
			.phase = o->phase,
			.peer = o->peer,
			.off = o->c0 * ps->chunk,
			.len = o->cnt * ps->chunk,
			.dep_off = (uint32_t)out->deps.n,
			.dep_n = o->depn,
			.src = o->op == COLL_LOCAL ? o->s0 * ps->chunk : 0,
		};

		for (j = 0; j < o->depn; j++)
			if (vec_push(&out->deps, ps->newidx.v[ps->dep.v[o->dep0 + j]]))
				return msccl_xnomem(ps->x);
		if (vec_push(&out->steps, st) || vec_push(&ps->spos, o->pos) ||
		    vec_push(&ps->schan, ps->tb.v[o->tb].chan))
			return msccl_xnomem(ps->x);
	}
	return 0;
}

static int read_gpu(struct ps *ps, uint32_t r, struct coll_sched *out)
{
	const struct xel *g = &ps->x->el.v[ps->gpu_el[r]];
	uint32_t t;
	int64_t v;
	int err;

	ps->rank = r;
	ps->op.n = ps->raw.n = 0;
	err = msccl_xint(ps->x, g, "i_chunks", 0, INT32_MAX, &v);
	if (!err)
		err = msccl_xint(ps->x, g, "o_chunks", 0, INT32_MAX, &v);
	if (!err)
		err = msccl_xint(ps->x, g, "s_chunks", 0, INT32_MAX, &v);
	ps->s_chunks = err ? 0 : (uint64_t)v;
	if (ps->s_chunks > ps->s_most)
		ps->s_most = ps->s_chunks;
	if (!err)
		err = read_tbs(ps, g);
	for (t = 0; t < ps->tb.n && !err; t++)
		err = read_tb_steps(ps, t);
	if (!err)
		err = resolve_deps(ps);
	if (!err)
		err = order_ops(ps);
	if (!err)
		err = put_rank(ps, out);
	clear_conns(ps);
	return err;
}

static void ps_done(struct ps *ps)
{
	free(ps->gpu_el);
	free(ps->send_tb);
	free(ps->recv_tb);
	vec_free(&ps->tb);
	vec_free(&ps->upto);
	vec_free(&ps->op);
	vec_free(&ps->impl);
	vec_free(&ps->raw);
	vec_free(&ps->dep);
	vec_free(&ps->order);
	vec_free(&ps->newidx);
	vec_free(&ps->miss);
	vec_free(&ps->rs);
	vec_free(&ps->rev);
	vec_free(&ps->heap);
	vec_free(&ps->cursor);
	vec_free(&ps->mark);
	vec_free(&ps->spos);
	vec_free(&ps->schan);
}

/* One end of a message: the k-th send of rank `from` to rank `to`, or the k-th receive of
 * `to` from `from`, in list order (our FIFO per ordered pair). */
struct mend {
	uint32_t from, to, k, step;
	uint8_t send;
};

static int mend_cmp(const void *a, const void *b)
{
	const struct mend *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (int)y->send - (int)x->send;
}

/* The ends of every message of out into m, sorted so that a send and its receive meet; how
 * many (local steps have none). */
static size_t list_ends(const struct coll_sched *out, struct mend *m, uint32_t *nsend,
			uint32_t *nrecv)
{
	size_t k = 0;
	uint32_t r, i;

	for (r = 0; r < out->ranks.n; r++) {
		const struct coll_rank *rk = &out->ranks.v[r];

		for (i = 0; i < rk->step_n; i++) {
			size_t g = rk->step_off + i;
			const struct coll_step *st = &out->steps.v[g];
			bool send = st->op == COLL_SEND;

			if (st->op == COLL_LOCAL)
				continue;
			m[k++] = (struct mend){send ? r : st->peer, send ? st->peer : r,
					       send ? nsend[st->peer]++ : nrecv[st->peer]++,
					       (uint32_t)g, send};
		}
		for (i = 0; i < rk->step_n; i++)
			nsend[out->steps.v[rk->step_off + i].peer] =
				nrecv[out->steps.v[rk->step_off + i].peer] = 0;
	}
	qsort(m, k, sizeof(*m), mend_cmp);
	return k;
}

/* x has no other end: its peer has only x->k of them. */
static int unmatched(struct ps *ps, const struct mend *x)
{
	size_t pos = ps->spos.v[x->step];

	if (x->send)
		return msccl_xbad(
			ps->x, pos,
			"send %u from gpu %u to gpu %u has no receive: gpu %u takes %u from gpu %u",
			x->k + 1, x->from, x->to, x->to, x->k, x->from);
	return msccl_xbad(ps->x, pos,
			  "receive %u at gpu %u from gpu %u has no send: gpu %u sends %u to gpu %u",
			  x->k + 1, x->to, x->from, x->from, x->k, x->to);
}

/* Every send meets its receive: as many per ordered pair of ranks, and the same length. */
static int check_pairs(struct ps *ps, const struct coll_sched *out)
{
	uint32_t n = ps->p->nranks, *ns = calloc(n, sizeof(*ns)), *nr = calloc(n, sizeof(*nr));
	struct mend *m = calloc(out->steps.n + 1, sizeof(*m));
	const struct coll_step *a, *b;
	unsigned line, col;
	size_t i, k = 0;
	int err = 0;

	if (!ns || !nr || !m)
		err = msccl_xnomem(ps->x);
	if (!err)
		k = list_ends(out, m, ns, nr);
	for (i = 0; !err && i < k; i += 2) {
		const struct mend *x = &m[i], *y = &m[i + 1];

		if (i + 1 == k || y->from != x->from || y->to != x->to || y->k != x->k) {
			err = unmatched(ps, x);
			break;
		}
		a = &out->steps.v[x->step], b = &out->steps.v[y->step];
		if (a->len != b->len) {
			msccl_xpos(ps->x->t, ps->spos.v[x->step], &line, &col);
			err = msccl_xbad(ps->x, ps->spos.v[y->step],
					 "this receive takes %" PRIu64
					 " bytes, its send (at %u:%u) %" PRIu64,
					 b->len, line, col, a->len);
		}
	}
	free(ns);
	free(nr);
	free(m);
	return err;
}

/* Several threadblocks to one peer: their channels onto our one FIFO (msccl_order.h). */
static int order_channels(struct ps *ps, struct coll_sched *out)
{
	struct msccl_order_err e;
	const struct coll_step *a, *b;
	unsigned line = 0, col = 0;
	int err = msccl_order_channels(out, ps->schan.v, ps->spos.v, &e);

	if (err != -EINVAL)
		return err == -ENOMEM ? msccl_xnomem(ps->x) : err;
	a = &out->steps.v[e.step];
	if (e.other != NONE)
		msccl_xpos(ps->x->t, ps->spos.v[e.other], &line, &col);
	switch (e.why) {
	case MSCCL_ORDER_NO_RECV:
		return msccl_xbad(ps->x, ps->spos.v[e.step],
				  "send %u to gpu %u on channel %u has no receive there", e.k + 1,
				  a->peer, ps->schan.v[e.step]);
	case MSCCL_ORDER_NO_SEND:
		return msccl_xbad(ps->x, ps->spos.v[e.step],
				  "receive %u from gpu %u on channel %u has no send there", e.k + 1,
				  a->peer, ps->schan.v[e.step]);
	case MSCCL_ORDER_LEN:
		b = &out->steps.v[e.other];
		return msccl_xbad(ps->x, ps->spos.v[e.step],
				  "this receive takes %" PRIu64
				  " bytes, its send (at %u:%u) %" PRIu64,
				  a->len, line, col, b->len);
	default:
		if (e.other == NONE)
			return msccl_xbad(
				ps->x, ps->spos.v[e.step],
				"this step never starts: its dependencies wait in a cycle");
		return msccl_xbad(
			ps->x, ps->spos.v[e.step],
			"this %s never goes: its other end (at %u:%u) waits for steps that "
			"wait for it (a deadlock over the channels)",
			a->op == COLL_SEND ? "send" : "receive", line, col);
	}
}

static int read_ranks(struct ps *ps, struct coll_sched *out)
{
	uint32_t r, n = ps->p->nranks;
	int err;

	ps->gpu_el = malloc(n * sizeof(uint32_t));
	ps->send_tb = malloc(n * sizeof(uint32_t));
	ps->recv_tb = malloc(n * sizeof(uint32_t));
	if (!ps->gpu_el || !ps->send_tb || !ps->recv_tb || vec_reserve(&out->ranks, n))
		return msccl_xnomem(ps->x);
	memset(ps->send_tb, 0xff, n * sizeof(uint32_t)); /* NONE */
	memset(ps->recv_tb, 0xff, n * sizeof(uint32_t));
	memset(out->ranks.v, 0, n * sizeof(*out->ranks.v));
	out->ranks.n = n;
	err = read_gpu_ids(ps);
	for (r = 0; r < n && !err; r++)
		err = read_gpu(ps, r, out);
	if (!err && ps->multi)
		err = order_channels(ps, out);
	out->params.scratch = ps->s_most * ps->chunk;
	return err ? err : check_pairs(ps, out);
}

/* Every rank without steps. */
static void empty(struct coll_sched *out)
{
	size_t r;

	out->steps.n = out->deps.n = 0;
	for (r = 0; r < out->ranks.n; r++)
		out->ranks.v[r] = (struct coll_rank){0, 0};
}

/* out proven (coll_prove): -EINVAL at the line:column of the step the problem is about. */
static int prove(struct ps *ps, const struct coll_sched *out)
{
	const char *says =
		ps->custom ? "the job runs (the file says coll=\"custom\")" : "it says it is";
	struct diag pd = {0};
	uint32_t where;
	int err = coll_prove(out, &where, &pd);

	if (err != -EINVAL)
		return err ? diag_set(ps->d, err, "MSCCL XML: %s", pd.msg) : 0;

	if (where == UINT32_MAX || where >= ps->spos.n)
		return diag_set(ps->d, err, "MSCCL XML: not the %s %s: %s",
				coll_kind_name(ps->p->kind), says, pd.msg);
	return msccl_xbad(ps->x, ps->spos.v[where], "not the %s %s: %s",
			  coll_kind_name(ps->p->kind), says, pd.msg);
}

static int parse(const char *text, size_t len, const struct coll_params *p, struct coll_sched *out,
		 bool proven, struct diag *d)
{
	struct xdoc x = {
		.t = text ? text : "", .n = text ? len : 0, .root = NONE, .cur = NONE, .d = d};
	struct ps ps = {.x = &x, .p = p, .d = d};
	int err;

	memset(out, 0, sizeof(*out));
	err = check_job(p, d);
	if (!err)
		err = msccl_xml_read(&x);
	if (!err)
		err = read_algo(&ps);
	if (!err) {
		out->params = *p;
		err = read_ranks(&ps, out);
	}
	if (!err && !p->bytes) /* chunks of no bytes: no steps (coll.h: none has len 0) */
		empty(out);
	if (!err && proven)
		err = prove(&ps, out);
	ps_done(&ps);
	vec_free(&x.el);
	vec_free(&x.at);
	if (err) {
		coll_sched_done(out);
		memset(out, 0, sizeof(*out));
	}
	return err;
}

int msccl_parse(const char *text, size_t len, const struct coll_params *p, struct coll_sched *out,
		struct diag *d)
{
	return parse(text, len, p, out, false, d);
}

int msccl_parse_proven(const char *text, size_t len, const struct coll_params *p,
		       struct coll_sched *out, struct diag *d)
{
	return parse(text, len, p, out, true, d);
}
