// SPDX-License-Identifier: MIT
/* A small XML reader for MSCCL algorithm files (msccl_int.h): elements, attributes in single
 * or double quotes, comments, the declaration and other processing instructions; no DTD,
 * CDATA or text; entities in values are not expanded (no value MSCCL uses can hold one).
 * Errors say the line and column. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "traffic/msccl/msccl_int.h"

#define NONE MSCCL_NONE

void msccl_xpos(const char *t, size_t pos, unsigned *line, unsigned *col)
{
	size_t i, bol = 0;

	*line = 1;
	for (i = 0; i < pos; i++)
		if (t[i] == '\n')
			(*line)++, bol = i + 1;
	*col = (unsigned)(pos - bol + 1);
}

/* -EINVAL with "MSCCL XML line:column: " and the message. */
int msccl_xbad(const struct xdoc *x, size_t pos, const char *fmt, ...)
{
	char msg[768];
	unsigned line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	msccl_xpos(x->t, pos, &line, &col);
	return diag_set(x->d, -EINVAL, "MSCCL XML %u:%u: %s", line, col, msg);
}

int msccl_xnomem(const struct xdoc *x)
{
	return diag_set(x->d, -ENOMEM, "MSCCL XML: out of memory");
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Skips white space; whether there was any. */
static bool skip_ws(struct xdoc *x)
{
	size_t p0 = x->p;

	while (x->p < x->n && is_ws(x->t[x->p]))
		x->p++;
	return x->p > p0;
}

static bool at_str(const struct xdoc *x, const char *s)
{
	size_t k = strlen(s);

	return x->n - x->p >= k && !memcmp(x->t + x->p, s, k);
}

static int ends_in_tag(const struct xdoc *x)
{
	return msccl_xbad(x, x->tag, "the text ends inside this tag");
}

/* Past a comment or processing instruction: open is its opening, close its end. */
static int skip_markup(struct xdoc *x, const char *open, const char *close, const char *what)
{
	const char *e;

	x->tag = x->p;
	x->p += strlen(open);
	e = memmem(x->t + x->p, x->n - x->p, close, strlen(close));
	if (!e)
		return msccl_xbad(x, x->tag, "%s never ends (no '%s' follows)", what, close);
	x->p = (size_t)(e - x->t) + strlen(close);
	return 0;
}

static int lex_name(struct xdoc *x, size_t *name, size_t *len, const char *what)
{
	if (x->p >= x->n)
		return ends_in_tag(x);
	if (!is_name_start(x->t[x->p]))
		return msccl_xbad(x, x->p, "expected %s, found '%c'", what, x->t[x->p]);
	*name = x->p;
	while (x->p < x->n && is_name_char(x->t[x->p]))
		x->p++;
	*len = x->p - *name;
	return 0;
}

static bool span_eq(const struct xdoc *x, size_t a, size_t alen, size_t b, size_t blen)
{
	return alen == blen && !memcmp(x->t + a, x->t + b, alen);
}

/* name="value" or name='value' at the cursor, for the element whose attributes start at at0. */
static int lex_attr(struct xdoc *x, uint32_t at0)
{
	struct xat a = {0};
	const char *end;
	size_t i;
	char q;
	int err = lex_name(x, &a.pos, &a.klen, "an attribute name, '>' or '/>'");

	if (err)
		return err;
	skip_ws(x);
	if (x->p >= x->n)
		return ends_in_tag(x);
	if (x->t[x->p] != '=')
		return msccl_xbad(x, x->p, "expected '=' after %.*s", (int)a.klen, x->t + a.pos);
	x->p++;
	skip_ws(x);
	if (x->p >= x->n)
		return ends_in_tag(x);
	q = x->t[x->p];
	if (q != '"' && q != '\'')
		return msccl_xbad(x, x->p, "the value of %.*s must be in quotes", (int)a.klen,
				  x->t + a.pos);
	end = memchr(x->t + x->p + 1, q, x->n - x->p - 1);
	if (!end)
		return ends_in_tag(x);
	a.val = x->p + 1;
	a.vlen = (size_t)(end - x->t) - a.val;
	if (memchr(x->t + a.val, '<', a.vlen))
		return msccl_xbad(x, a.val, "'<' in the value of %.*s", (int)a.klen, x->t + a.pos);
	x->p = (size_t)(end - x->t) + 1;
	for (i = at0; i < x->at.n; i++)
		if (span_eq(x, x->at.v[i].pos, x->at.v[i].klen, a.pos, a.klen))
			return msccl_xbad(x, a.pos, "attribute %.*s appears twice", (int)a.klen,
					  x->t + a.pos);
	return vec_push(&x->at, a) ? msccl_xnomem(x) : 0;
}

/* Links element idx under the open element (or as the root). */
static int link_el(struct xdoc *x, uint32_t idx)
{
	struct xel *e = &x->el.v[idx], *par;

	if (x->cur == NONE) {
		if (x->root != NONE)
			return msccl_xbad(
				x, e->pos,
				"a second root element <%.*s>: the document is one <algo>",
				(int)e->nlen, x->t + e->name);
		x->root = idx;
		return 0;
	}
	par = &x->el.v[x->cur];
	if (par->last != NONE)
		x->el.v[par->last].next = idx;
	else
		par->child = idx;
	par->last = idx;
	par->nchild++;
	return 0;
}

/* "<name attr="v" ...>" or "<name .../>" at the cursor. */
static int lex_start(struct xdoc *x)
{
	struct xel e = {.pos = x->p, .parent = x->cur, .child = NONE, .last = NONE, .next = NONE};
	bool self = false, ws;
	int err;

	x->tag = x->p++;
	err = lex_name(x, &e.name, &e.nlen, "an element name");
	e.at0 = (uint32_t)x->at.n;
	while (!err) {
		ws = skip_ws(x);
		if (x->p >= x->n)
			return ends_in_tag(x);
		if (x->t[x->p] == '>' || at_str(x, "/>")) {
			self = x->t[x->p] == '/';
			x->p += self ? 2 : 1;
			break;
		}
		if (!ws)
			return msccl_xbad(x, x->p, "expected white space, '>' or '/>' in <%.*s>",
					  (int)e.nlen, x->t + e.name);
		err = lex_attr(x, e.at0);
	}
	if (err)
		return err;
	e.nat = (uint32_t)x->at.n - e.at0;
	if (vec_push(&x->el, e))
		return msccl_xnomem(x);
	err = link_el(x, (uint32_t)x->el.n - 1);
	if (!err && !self)
		x->cur = (uint32_t)x->el.n - 1;
	return err;
}

/* "</name>" at the cursor: closes the innermost open element, which must be name. */
static int lex_end(struct xdoc *x)
{
	const struct xel *o;
	size_t pos = x->p, name, len;
	unsigned line, col;
	int err;

	x->tag = pos;
	x->p += 2;
	err = lex_name(x, &name, &len, "an element name");
	if (err)
		return err;
	skip_ws(x);
	if (x->p >= x->n)
		return ends_in_tag(x);
	if (x->t[x->p++] != '>')
		return msccl_xbad(x, x->p - 1, "expected '>' to end </%.*s", (int)len, x->t + name);
	if (x->cur == NONE)
		return msccl_xbad(x, pos, "</%.*s> closes no element", (int)len, x->t + name);
	o = &x->el.v[x->cur];
	if (!span_eq(x, o->name, o->nlen, name, len)) {
		msccl_xpos(x->t, o->pos, &line, &col);
		return msccl_xbad(x, pos, "</%.*s> where <%.*s> (opened at %u:%u) must close",
				  (int)len, x->t + name, (int)o->nlen, x->t + o->name, line, col);
	}
	x->cur = o->parent;
	return 0;
}

int msccl_xml_read(struct xdoc *x)
{
	const struct xel *o;
	unsigned line, col;
	int err = 0;

	while (!err) {
		skip_ws(x);
		if (x->p >= x->n)
			break;
		if (x->t[x->p] != '<')
			err = msccl_xbad(x, x->p, "text outside a tag (the format has none)");
		else if (at_str(x, "<!--"))
			err = skip_markup(x, "<!--", "-->", "this comment");
		else if (at_str(x, "<?"))
			err = skip_markup(x, "<?", "?>", "this processing instruction");
		else if (at_str(x, "<!"))
			err = msccl_xbad(x, x->p, "unsupported markup '<!' (a DTD or CDATA)");
		else if (at_str(x, "</"))
			err = lex_end(x);
		else
			err = lex_start(x);
	}
	if (err)
		return err;
	if (x->cur != NONE) {
		o = &x->el.v[x->cur];
		msccl_xpos(x->t, x->n, &line, &col);
		return msccl_xbad(x, o->pos, "<%.*s> is never closed: the text ends at %u:%u",
				  (int)o->nlen, x->t + o->name, line, col);
	}
	if (x->root == NONE)
		return msccl_xbad(x, x->p, "no element: expected <algo>");
	return 0;
}

bool msccl_el_is(const struct xdoc *x, const struct xel *e, const char *name)
{
	return e->nlen == strlen(name) && !memcmp(x->t + e->name, name, e->nlen);
}

const struct xat *msccl_xattr(const struct xdoc *x, const struct xel *e, const char *key)
{
	uint32_t i;

	for (i = 0; i < e->nat; i++) {
		const struct xat *a = &x->at.v[e->at0 + i];

		if (a->klen == strlen(key) && !memcmp(x->t + a->pos, key, a->klen))
			return a;
	}
	return NULL;
}

bool msccl_val_is(const struct xdoc *x, const struct xat *a, const char *s)
{
	return a->vlen == strlen(s) && !memcmp(x->t + a->val, s, a->vlen);
}

int msccl_xneed(const struct xdoc *x, const struct xel *e, const char *key, const struct xat **a)
{
	*a = msccl_xattr(x, e, key);
	if (!*a)
		return msccl_xbad(x, e->pos, "<%.*s> lacks attribute %s", (int)e->nlen,
				  x->t + e->name, key);
	return 0;
}

/* A decimal integer, optionally negative; false if the text is not one or is too large. */
static bool parse_int(const char *s, size_t n, int64_t *v)
{
	bool neg = n && s[0] == '-';
	uint64_t u = 0;
	size_t i;

	if (n == (size_t)neg)
		return false;
	for (i = neg; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || u > (INT64_MAX - 9) / 10)
			return false;
		u = u * 10 + (uint64_t)(s[i] - '0');
	}
	*v = neg ? -(int64_t)u : (int64_t)u;
	return true;
}

/* Attribute key of e as an integer in [lo, hi]; absent: dflt if optional, else an error. */
int msccl_xint_or(const struct xdoc *x, const struct xel *e, const char *key, int64_t lo,
		  int64_t hi, bool optional, int64_t dflt, int64_t *v)
{
	const struct xat *a = msccl_xattr(x, e, key);

	if (!a && optional) {
		*v = dflt;
		return 0;
	}
	if (!a)
		return msccl_xneed(x, e, key, &a);
	if (!parse_int(x->t + a->val, a->vlen, v) || *v < lo || *v > hi)
		return msccl_xbad(x, a->pos,
				  "%s=\"%.*s\": expected an integer from %" PRId64 " to %" PRId64,
				  key, (int)a->vlen, x->t + a->val, lo, hi);
	return 0;
}

int msccl_xint(const struct xdoc *x, const struct xel *e, const char *key, int64_t lo, int64_t hi,
	       int64_t *v)
{
	return msccl_xint_or(x, e, key, lo, hi, false, 0, v);
}
