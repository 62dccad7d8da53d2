/* SPDX-License-Identifier: MIT */
/* Internal to the MSCCL algorithm XML code (msccl.c reads, msccl_out.c writes, msccl_head.c
 * chooses, msccl_xml.c is the small XML reader they share): how MSCCL's buffers sit in ours,
 * the parsed document and its attribute helpers. msccl.c's opening comment says what of the
 * format is read and written. Pure. */
#ifndef TRAFFIC_MSCCL_INT_H
#define TRAFFIC_MSCCL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"

#define MSCCL_NONE UINT32_MAX

/* How MSCCL's i and o sit in our buffers (msccl.c's table). */
enum bufmap {
	BM_SAME, /* allreduce, custom: i and o are our buffer */
	BM_AG, /* allgather: o is our buffer, i the rank's share of it */
	BM_RS, /* reducescatter: i is our buffer, o the rank's share of it */
	BM_A2A, /* alltoall: i is in, o is out */
};

static inline uint64_t msccl_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* ---- The XML document (msccl_xml.c): elements and attributes as offsets into the text ---- */

struct xat {
	size_t pos, klen; /* its name: offset (where it starts) and length */
	size_t val, vlen; /* its value, inside the quotes */
};

struct xel {
	size_t pos, name, nlen;
	uint32_t at0, nat; /* its attributes: at[at0 .. at0 + nat) */
	uint32_t parent, child, last, next; /* first and last child, next sibling; MSCCL_NONE */
	uint32_t nchild;
};

struct xdoc {
	const char *t;
	size_t n, p; /* length, cursor */
	size_t tag; /* where the tag being read starts */
	uint32_t root, cur; /* the root, the innermost open element; MSCCL_NONE */
	VEC(struct xel) el;
	VEC(struct xat) at;
	struct diag *d;
};

/* Line and column (from 1) of byte pos of t. */
void msccl_xpos(const char *t, size_t pos, unsigned *line, unsigned *col);
/* -EINVAL with "MSCCL XML line:column: " and the message, in x->d. */
int msccl_xbad(const struct xdoc *x, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* -ENOMEM, said in x->d. */
int msccl_xnomem(const struct xdoc *x);
/* Reads the whole text x->t[0 .. x->n) into elements and attributes: 0, or -EINVAL at the
 * first thing that is not well-formed XML, or -ENOMEM. */
int msccl_xml_read(struct xdoc *x);
/* Whether e is the element `name`. */
bool msccl_el_is(const struct xdoc *x, const struct xel *e, const char *name);
/* e's attribute key, or NULL. */
const struct xat *msccl_xattr(const struct xdoc *x, const struct xel *e, const char *key);
/* Whether a's value is s. */
bool msccl_val_is(const struct xdoc *x, const struct xat *a, const char *s);
/* e's attribute key into *a, or -EINVAL saying it lacks it. */
int msccl_xneed(const struct xdoc *x, const struct xel *e, const char *key, const struct xat **a);
/* Attribute key of e as an integer in [lo, hi]; absent: dflt if optional, else an error. */
int msccl_xint_or(const struct xdoc *x, const struct xel *e, const char *key, int64_t lo,
		  int64_t hi, bool optional, int64_t dflt, int64_t *v);
int msccl_xint(const struct xdoc *x, const struct xel *e, const char *key, int64_t lo, int64_t hi,
	       int64_t *v);

#endif
