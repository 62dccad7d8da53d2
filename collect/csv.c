// SPDX-License-Identifier: MIT
/* RFC 4180 CSV fields for the records, and the bounded writer the text renderers share. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/csv.h"
#include "collect/records.h"

#define NUM_MAX 40 /* longest numeric field accepted */
#define DIGITS_MAX 20 /* of a uint64_t in decimal */

void col_out_init(struct col_out *o, char *buf, size_t len)
{
	o->buf = buf;
	o->len = buf ? len : 0;
	o->need = 0;
	if (o->len)
		buf[0] = '\0';
}

void col_out_printf(struct col_out *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = o->need < o->len ? o->len - o->need : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->need : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->need += (size_t)n;
}

/* Appends the n bytes at s. */
static void col_out_put(struct col_out *o, const char *s, size_t n)
{
	if (o->need + n < o->len) {
		memcpy(o->buf + o->need, s, n);
		o->buf[o->need + n] = '\0';
	} else if (o->need < o->len) { /* what fits, as vsnprintf would */
		memcpy(o->buf + o->need, s, o->len - 1 - o->need);
		o->buf[o->len - 1] = '\0';
	}
	o->need += n;
}

void col_out_putc(struct col_out *o, char c)
{
	if (o->need + 1 < o->len) {
		o->buf[o->need] = c;
		o->buf[o->need + 1] = '\0';
	}
	o->need++;
}

int col_out_ret(const struct col_out *o)
{
	return o->need > INT_MAX ? INT_MAX : (int)o->need;
}

void col_csv_w_init(struct col_csv_w *w, char *buf, size_t len)
{
	col_out_init(&w->o, buf, len);
	w->nf = 0;
}

static void sep(struct col_csv_w *w)
{
	if (w->nf++)
		col_out_putc(&w->o, ',');
}

/* v in decimal, as printf's %llu writes it (records hold millions of numbers: no printf), two
 * digits per division, from the end of a scratch buffer. */
static void put_u64(struct col_out *o, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char b[2 * DIGITS_MAX];
	size_t i = DIGITS_MAX, n;

	for (; v >= 100; v /= 100) {
		i -= 2;
		memcpy(b + i, pairs + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(b + i, pairs + 2 * v, 2);
	} else {
		b[--i] = (char)('0' + v);
	}
	n = DIGITS_MAX - i;
	if (o->need + DIGITS_MAX < o->len) { /* room: a copy of constant size, the tail ignored */
		memcpy(o->buf + o->need, b + i, DIGITS_MAX);
		o->buf[o->need + n] = '\0';
		o->need += n;
		return;
	}
	col_out_put(o, b + i, n);
}

void col_csv_u64(struct col_csv_w *w, uint64_t v)
{
	sep(w);
	put_u64(&w->o, v);
}

void col_csv_time(struct col_csv_w *w, int64_t t)
{
	sep(w);
	if (t == REC_NEVER)
		return;
	if (t < 0)
		col_out_putc(&w->o, '-');
	put_u64(&w->o, t < 0 ? 0 - (uint64_t)t : (uint64_t)t);
}

void col_csv_dbl(struct col_csv_w *w, double v)
{
	sep(w);
	col_out_printf(&w->o, "%.17g", v);
}

/* RFC 4180: a field holding a comma, a quote, CR or LF is quoted. */
static bool needs_quotes(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
			return true;
	}
	return false;
}

void col_csv_str(struct col_csv_w *w, const char *s, size_t max)
{
	size_t i, n = strnlen(s, max);

	sep(w);
	if (!needs_quotes(s, n)) {
		col_out_put(&w->o, s, n);
		return;
	}
	col_out_putc(&w->o, '"');
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			col_out_putc(&w->o, '"');
		col_out_putc(&w->o, s[i]);
	}
	col_out_putc(&w->o, '"');
}

int col_csv_w_end(struct col_csv_w *w)
{
	col_out_putc(&w->o, '\n');
	return col_out_ret(&w->o);
}

void col_csv_r_init(struct col_csv_r *r, const char *line)
{
	r->p = line ? line : "";
	r->err = line ? 0 : -EINVAL;
	r->at_end = 0;
}

static void put(struct col_csv_r *r, char *out, size_t cap, size_t *n, char c)
{
	if (*n + 1 >= cap) {
		r->err = -EINVAL;
		return;
	}
	out[(*n)++] = c;
}

static size_t plain(struct col_csv_r *r, char *out, size_t cap)
{
	size_t n = 0;

	while (!r->err && *r->p && *r->p != ',' && *r->p != '\r' && *r->p != '\n') {
		if (*r->p == '"')
			r->err = -EINVAL; /* a quote inside an unquoted field */
		put(r, out, cap, &n, *r->p++);
	}
	return n;
}

static size_t quoted(struct col_csv_r *r, char *out, size_t cap)
{
	size_t n = 0;

	r->p++;
	while (!r->err) {
		if (!*r->p) {
			r->err = -EINVAL; /* unterminated */
		} else if (*r->p != '"') {
			put(r, out, cap, &n, *r->p++);
		} else if (r->p[1] == '"') {
			put(r, out, cap, &n, '"');
			r->p += 2;
		} else {
			r->p++;
			break;
		}
	}
	return n;
}

/* After a field: a comma (another field follows) or the record's end. */
static void field_end(struct col_csv_r *r)
{
	if (*r->p == ',')
		r->p++;
	else if (!strcmp(r->p, "") || !strcmp(r->p, "\n") || !strcmp(r->p, "\r\n"))
		r->at_end = 1;
	else
		r->err = -EINVAL;
}

/* Copies the next field, unquoted and NUL-terminated, into out; returns its length. */
static size_t field(struct col_csv_r *r, char *out, size_t cap)
{
	size_t n;

	out[0] = '\0';
	if (!r->err && r->at_end)
		r->err = -EINVAL; /* fewer fields than the record type has */
	if (r->err)
		return 0;
	n = *r->p == '"' ? quoted(r, out, cap) : plain(r, out, cap);
	if (!r->err)
		field_end(r);
	out[r->err ? 0 : n] = '\0';
	return r->err ? 0 : n;
}

/* The common field, an unquoted decimal, read in place: its value in *v and true, the reader
 * past it; false, the reader untouched, for anything else (field() then reads it, or fails). */
static bool fast_digits(struct col_csv_r *r, uint64_t *v)
{
	const char *p = r->p;
	uint64_t x = 0;
	unsigned d;

	if (r->err || r->at_end || *p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		d = (unsigned)(*p - '0');
		if (p - r->p >= NUM_MAX - 1 || x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	if (*p == ',') {
		r->p = p + 1;
	} else if (!strcmp(p, "") || !strcmp(p, "\n") || !strcmp(p, "\r\n")) {
		r->p = p;
		r->at_end = 1;
	} else {
		return false;
	}
	*v = x;
	return true;
}

uint64_t col_csv_get_u64(struct col_csv_r *r)
{
	char b[NUM_MAX];
	uint64_t v;
	size_t n;

	if (fast_digits(r, &v))
		return v;
	n = field(r, b, sizeof(b));
	if (r->err || !n || strspn(b, "0123456789") != n) {
		r->err = -EINVAL;
		return 0;
	}
	errno = 0;
	v = strtoull(b, NULL, 10);
	if (errno)
		r->err = -EINVAL;
	return r->err ? 0 : v;
}

uint32_t col_csv_get_u32(struct col_csv_r *r)
{
	uint64_t v = col_csv_get_u64(r);

	if (v > UINT32_MAX)
		r->err = -EINVAL;
	return r->err ? 0 : (uint32_t)v;
}

int64_t col_csv_get_time(struct col_csv_r *r)
{
	char b[NUM_MAX];
	size_t n, sign;
	uint64_t u;
	long long v;

	if (fast_digits(r, &u)) { /* out of range fails, as strtoll's would */
		if (u > INT64_MAX)
			r->err = -EINVAL;
		return r->err ? 0 : (int64_t)u;
	}
	n = field(r, b, sizeof(b));
	sign = b[0] == '-';
	if (r->err)
		return 0;
	if (!n)
		return REC_NEVER;
	if (n == sign || strspn(b + sign, "0123456789") != n - sign) {
		r->err = -EINVAL;
		return 0;
	}
	errno = 0;
	v = strtoll(b, NULL, 10);
	if (errno)
		r->err = -EINVAL;
	return r->err ? 0 : v;
}

double col_csv_get_dbl(struct col_csv_r *r)
{
	char b[NUM_MAX], *end;
	size_t n = field(r, b, sizeof(b));
	double v;

	if (r->err)
		return 0;
	if (!n || isspace((unsigned char)b[0])) {
		r->err = -EINVAL;
		return 0;
	}
	v = strtod(b, &end);
	if (end != b + n)
		r->err = -EINVAL;
	return r->err ? 0 : v;
}

void col_csv_get_str(struct col_csv_r *r, char *out, size_t cap)
{
	field(r, out, cap);
}

unsigned col_csv_get_name(struct col_csv_r *r, const char *const *names, unsigned n)
{
	char b[REC_NAME_MAX];
	unsigned i;

	field(r, b, sizeof(b));
	for (i = 0; !r->err && i < n; i++) {
		if (names[i] && !strcmp(b, names[i]))
			return i;
	}
	r->err = -EINVAL;
	return 0;
}

int col_csv_r_end(struct col_csv_r *r)
{
	return !r->err && r->at_end ? 0 : -EINVAL;
}
