// SPDX-License-Identifier: MIT
/* Field types of the scenario parser: how one YAML value becomes a number, rate, size, time,
 * keyword, name or prefix, and the "file:line:col: field: expected ..., found ..." messages. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/units.h"
#include "model/addr.h"
#include "scenario/scenario_yaml.h"
#include "scenario/scenario_yaml_types.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define NAME_WHAT "1 to " STR(SCN_YAML_NAME_LEN) " characters from a-z, 0-9 and '-'"

/* "file:line:col: " and the message, at mark m (0-based in libyaml). */
int scn_yaml_fail_at(struct scn_yaml_ctx *c, const yaml_mark_t *m, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(c->d, -EINVAL, "%s:%zu:%zu: %s", c->file, m->line + 1, m->column + 1, msg);
}

/* 'text' for a message: at most 40 bytes, control bytes and NULs shown as '?'. */
static const char *quote(char *buf, size_t len, const unsigned char *v, size_t vlen)
{
	size_t i, n = vlen > 40 ? 40 : vlen;

	while (n < vlen && n > 0 && (v[n] & 0xc0) == 0x80)
		n--; /* do not cut a UTF-8 sequence */
	assert(len >= n + 6);
	buf[0] = '\'';
	for (i = 0; i < n; i++)
		buf[i + 1] = v[i] < 0x20 || v[i] == 0x7f ? '?' : (char)v[i];
	snprintf(buf + n + 1, len - n - 1, "'%s", n < vlen ? "..." : "");
	return buf;
}

bool scn_yaml_is_empty(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       !n->data.scalar.length;
}

/* What a node is, for "found ...". */
const char *scn_yaml_found(char *buf, size_t len, const yaml_node_t *n)
{
	if (n->type == YAML_SEQUENCE_NODE)
		return "a sequence";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (scn_yaml_is_empty(n))
		return "nothing";
	return quote(buf, len, n->data.scalar.value, n->data.scalar.length);
}

/* "path: expected <what>, found <n><why>" at n. */
int scn_yaml_fail_value(struct scn_yaml_ctx *c, const yaml_node_t *n, const char *what,
			const char *why)
{
	char q[64];

	if (!c->path[0])
		return scn_yaml_fail_at(c, &n->start_mark,
					"expected %s at the top level, found %s%s", what,
					scn_yaml_found(q, sizeof(q), n), why);
	return scn_yaml_fail_at(c, &n->start_mark, "%s: expected %s, found %s%s", c->path, what,
				scn_yaml_found(q, sizeof(q), n), why);
}

/* A scalar's text, or NULL for collections and text with a NUL inside (never valid here). */
const char *scn_yaml_text(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE)
		return NULL;
	v = (const char *)n->data.scalar.value;
	return strlen(v) == n->data.scalar.length ? v : NULL;
}

size_t scn_yaml_path_push(struct scn_yaml_ctx *c, const char *name)
{
	size_t old = strlen(c->path);

	snprintf(c->path + old, sizeof(c->path) - old, "%s%s", old ? "." : "", name);
	return old;
}

/* ---- scalar types ---- */

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static const char *digits(const char *p)
{
	while (is_digit(*p))
		p++;
	return p;
}

/* A plain decimal: digits, an optional fraction and exponent, no sign ("1.5", ".5", "1e-3").
 * *whole says it has neither fraction nor exponent. */
static bool is_decimal(const char *v, bool *whole)
{
	const char *p = digits(v);
	bool any = p > v;

	*whole = true;
	if (*p == '.') {
		*whole = false;
		any |= digits(p + 1) > p + 1;
		p = digits(p + 1);
	}
	if (any && (*p == 'e' || *p == 'E')) {
		*whole = false;
		p += (p[1] == '+' || p[1] == '-') ? 2 : 1;
		if (!is_digit(*p))
			return false;
		p = digits(p);
	}
	return any && !*p;
}

/* Why a non-integer was refused, as precisely as the text allows. */
static const char *uint_why(const char *v)
{
	bool whole;

	if ((v[0] == '-' || v[0] == '+') && is_decimal(v + 1, &whole))
		return v[0] == '-' ? " (negative)" : " (write it without '+')";
	if (is_decimal(v, &whole))
		return " (not a whole number)";
	return "";
}

/* A decimal integer in [min, max]. */
int scn_yaml_read_uint(struct scn_yaml_ctx *c, yaml_node_t *n, uint64_t min, uint64_t max,
		       uint64_t *out)
{
	const char *v = scn_yaml_text(n),
		   *type = min ? "a positive integer" : "a non-negative integer";
	char range[64];
	uint64_t x = 0;

	snprintf(range, sizeof(range), "an integer from %llu to %llu", (unsigned long long)min,
		 (unsigned long long)max);
	if (min > 1 || max < UINT32_MAX) /* a bounded field says its bounds in every message */
		type = range;
	if (!v || !*v || *digits(v))
		return scn_yaml_fail_value(c, n, type, v ? uint_why(v) : "");
	if (v[0] == '0' && v[1])
		return scn_yaml_fail_value(c, n, type,
					   " (no leading zeros: YAML 1.1 reads them as octal)");
	for (; *v; v++) {
		uint64_t d = (uint64_t)(*v - '0');

		if (x > UINT64_MAX / 10 || x * 10 > UINT64_MAX - d)
			break; /* past UINT64_MAX */
		x = x * 10 + d;
	}
	if (*v || x < min || x > max)
		return scn_yaml_fail_value(c, n, range, "");
	*out = x;
	return 0;
}

void *scn_yaml_field_ptr(struct scn_yaml_ctx *c, const struct scn_yaml_field *f)
{
	return (char *)c->base + f->off;
}

#define field_ptr scn_yaml_field_ptr

int scn_yaml_u32(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	uint64_t x;
	int r = scn_yaml_read_uint(c, n, f->min, f->max, &x);

	if (!r)
		*(uint32_t *)field_ptr(c, f) = (uint32_t)x;
	return r;
}

/* "a, b or c" */
static void join_or(char *buf, size_t len, const struct keyword *kw)
{
	size_t o = 0;

	buf[0] = '\0';
	for (; kw->name && o < len; kw++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s",
				      o ? (kw[1].name ? ", " : " or ") : "", kw->name);
}

int scn_yaml_enum(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const struct keyword *kw;
	const char *v = scn_yaml_text(n);
	char what[128];

	for (kw = f->arg; v && kw->name; kw++) {
		if (!strcmp(v, kw->name)) {
			*(int *)field_ptr(c, f) = kw->value;
			return 0;
		}
	}
	join_or(what, sizeof(what), f->arg);
	return scn_yaml_fail_value(c, n, what, "");
}

int scn_yaml_rate(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);
	char why[160];
	uint64_t x;
	int r;

	if (!v)
		return scn_yaml_fail_value(c, n, "a rate", "");
	r = units_parse_rate(v, &x);
	if (r == -ERANGE)
		return scn_yaml_fail_value(c, n, "a rate", ": too large");
	if (r) {
		snprintf(why, sizeof(why), ": %s", units_rate_hint(v));
		return scn_yaml_fail_value(c, n, "a rate", why);
	}
	if (!x)
		return scn_yaml_fail_value(c, n, "a positive rate", "");
	*(uint64_t *)field_ptr(c, f) = x;
	return 0;
}

/* A size, or `auto` (stored as 0: derived from the rate later). */
int scn_yaml_size_auto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);
	uint64_t x = 0;
	int r = 0;

	if (v && strcmp(v, "auto"))
		r = units_parse_size(v, &x);
	if (!v || r || (!x && strcmp(v, "auto")))
		return scn_yaml_fail_value(c, n, "a size such as 64KiB or 1MB, or auto",
					   r == -ERANGE ? " (too large)" : "");
	*(uint64_t *)field_ptr(c, f) = x;
	return 0;
}

int scn_yaml_time(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);
	int r = v ? units_parse_time(v, field_ptr(c, f)) : -EINVAL;

	if (r)
		return scn_yaml_fail_value(c, n, "a time such as 50us or 1.5ms",
					   r == -ERANGE ? " (too large)" : "");
	return 0;
}

/* A positive decimal number, or `auto` (stored as 0) when auto_ok. */
static int read_scale(struct scn_yaml_ctx *c, yaml_node_t *n, bool auto_ok, double *out)
{
	const char *v = scn_yaml_text(n);
	bool whole;
	double x;

	if (auto_ok && v && !strcmp(v, "auto")) {
		*out = 0;
		return 0;
	}
	/* the syntax is checked first: strtod would also take hex, inf, nan and spaces */
	x = v && is_decimal(v, &whole) ? strtod(v, NULL) : 0;
	if (!isfinite(x) || x <= 0)
		return scn_yaml_fail_value(
			c, n, auto_ok ? "a positive number or auto" : "a positive number", "");
	*out = x;
	return 0;
}

int scn_yaml_read_positive(struct scn_yaml_ctx *c, yaml_node_t *n, double *out)
{
	return read_scale(c, n, false, out);
}

int scn_yaml_scale(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return read_scale(c, n, false, field_ptr(c, f));
}

int scn_yaml_scale_auto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return read_scale(c, n, true, field_ptr(c, f));
}

/* NULL if v is a valid name of 1..max characters [a-z0-9-], else why not. */
const char *scn_yaml_name_why(const char *v, size_t max, char *buf, size_t len)
{
	const char *p;

	for (p = v; *p; p++) {
		if (!is_digit(*p) && !(*p >= 'a' && *p <= 'z') && *p != '-') {
			snprintf(buf, len, " ('%c' is not allowed)",
				 *p >= 0x20 && *p < 0x7f ? *p : '?');
			return buf;
		}
	}
	if (p == v || (size_t)(p - v) <= max)
		return p == v ? "" : NULL;
	snprintf(buf, len, " (%zu characters)", (size_t)(p - v));
	return buf;
}

int scn_yaml_name(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n), *why = "";
	char buf[32];

	if (v)
		why = scn_yaml_name_why(v, SCN_YAML_NAME_LEN, buf, sizeof(buf));
	if (why)
		return scn_yaml_fail_value(c, n, NAME_WHAT, why);
	snprintf(field_ptr(c, f), SCN_NAME_MAX, "%s", v);
	return 0;
}

int scn_yaml_prefix(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	struct scn_addressing *a = field_ptr(c, f);
	const char *v = scn_yaml_text(n);
	char what[64], buf[16];
	uint32_t base, mask;
	uint8_t plen;

	if (!v || addr_parse_prefix(v, &base, &plen))
		return scn_yaml_fail_value(c, n, "an IPv4 prefix such as 198.18.0.0/15", "");
	if (plen < 8 || plen > 24)
		return scn_yaml_fail_value(c, n, "a prefix length from /8 to /24", "");
	mask = ~0u << (32 - plen);
	if (base & ~mask) {
		snprintf(what, sizeof(what), "an aligned prefix such as %s/%u",
			 addr_fmt(buf, sizeof(buf), base & mask), plen);
		return scn_yaml_fail_value(c, n, what, "");
	}
	a->base = base;
	a->plen = plen;
	return 0;
}

int scn_yaml_u64(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return scn_yaml_read_uint(c, n, 0, UINT64_MAX, field_ptr(c, f));
}

int scn_yaml_bool(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);

	if (v && (!strcmp(v, "true") || !strcmp(v, "false"))) {
		*(bool *)field_ptr(c, f) = v[0] == 't';
		return 0;
	}
	return scn_yaml_fail_value(c, n, "true or false", "");
}

int scn_yaml_size(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);
	uint64_t x = 0;
	int r = v ? units_parse_size(v, &x) : -EINVAL;

	if (r || !x)
		return scn_yaml_fail_value(c, n, "a positive size such as 64MiB or 1GB",
					   r == -ERANGE ? " (too large)" : "");
	*(uint64_t *)field_ptr(c, f) = x;
	return 0;
}

/* A time, or `auto` (stored as 0: derived later). */
int scn_yaml_time_auto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n);

	if (v && !strcmp(v, "auto")) {
		*(uint64_t *)field_ptr(c, f) = 0;
		return 0;
	}
	return scn_yaml_time(c, n, f);
}

/* The kernel keeps RTAX_RTO_MIN in ms and caps a timeout at TCP_RTO_MAX, 120 s. */
int scn_yaml_rto(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	struct scn_rto *r = field_ptr(c, f);
	const char *v = scn_yaml_text(n);
	uint64_t ns = 0;

	if (v && (!strcmp(v, "auto") || !strcmp(v, "off"))) {
		*r = (struct scn_rto){v[0] == 'a' ? SCN_RTO_AUTO : SCN_RTO_OFF, 0};
		return 0;
	}
	if (!v || units_parse_time(v, &ns) || ns < 1000000 || ns > 120000000000ULL)
		return scn_yaml_fail_value(c, n, "auto, off or a time from 1ms to 120s", "");
	*r = (struct scn_rto){SCN_RTO_FIXED, ns};
	return 0;
}

int scn_yaml_number(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return read_scale(c, n, false, field_ptr(c, f));
}

int scn_yaml_fraction(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	double *x = field_ptr(c, f);
	int r = read_scale(c, n, false, x);

	if (!r && *x >= 1.0)
		return scn_yaml_fail_value(c, n, "a fraction between 0 and 1", "");
	return r == -EINVAL ? scn_yaml_fail_value(c, n, "a fraction between 0 and 1", "") : r;
}

/* NULL if v is 1..max characters of [A-Za-z0-9._/-]. */
static const char *word_why(const char *v, size_t max)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if (!isalnum((unsigned char)v[i]) && !strchr("._/-", v[i]))
			return " (only letters, digits and . _ / -)";
	return i && i <= max ? NULL : (i ? " (too long)" : "");
}

int scn_yaml_word(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	const char *v = scn_yaml_text(n), *why = "";

	if (v)
		why = word_why(v, f->max);
	if (why)
		return scn_yaml_fail_value(c, n, "a name", why);
	snprintf(field_ptr(c, f), f->max + 1, "%s", v);
	return 0;
}

int scn_yaml_path(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f)
{
	return scn_yaml_path_to(c, n, field_ptr(c, f));
}

size_t scn_yaml_seq_n(const yaml_node_t *n)
{
	return n->type == YAML_SEQUENCE_NODE
		       ? (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)
		       : 0;
}

int scn_yaml_path_to(struct scn_yaml_ctx *c, yaml_node_t *n, char **out)
{
	const char *v = scn_yaml_text(n), *why = "";

	if (v)
		why = word_why(v, 4095);
	if (why)
		return scn_yaml_fail_value(c, n, "a file path", why);
	free(*out);
	*out = strdup(v);
	return *out ? 0 : diag_set(c->d, -ENOMEM, "%s: out of memory", c->file);
}
