// SPDX-License-Identifier: MIT
/* A trace row's fields as values: GPUs (a count, or percent of one GPU rounded up), times
 * (seconds or UTC date-times), a job's length (its duration, or end - start) and deadline.
 * Every refusal names file:line:col (the field's number) and the column's header. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "traffic/trace/job_trace_int.h"

#define TR_MAX_SEC 18000000000ULL /* keeps seconds x 1e9 within 64 bits */

int tr_fail(struct tr_ctx *c, enum job_trace_role r, const char *fmt, ...)
{
	char m[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	return diag_set(c->d, -EINVAL, "%s:%u:%d: %s: %s", c->file, c->line, c->col[r].idx + 1,
			c->col[r].name, m);
}

int tr_value(struct tr_ctx *c, enum job_trace_role r, const char **s)
{
	*s = tr_get(c, c->col[r].idx);
	if (*s)
		return 0;
	return tr_fail(c, r, "missing (the row has %zu fields, the header %zu)", c->off.n,
		       c->nfields);
}

bool tr_missing(const char *s)
{
	return !*s || !strcasecmp(s, "None") || !strcasecmp(s, "NaN");
}

static bool negative(const char *s)
{
	return s[0] == '-' && (isdigit((unsigned char)s[1]) || s[1] == '.');
}

static int gpu_count(struct tr_ctx *c, uint32_t *gpus)
{
	const char *s, *p;
	uint64_t v = 0;
	int err = tr_value(c, JT_GPUS, &s);

	if (err)
		return err;
	if (negative(s))
		return tr_fail(c, JT_GPUS, "got '" TR_SHOW "', a negative GPU count", s);
	for (p = s; isdigit((unsigned char)*p) && v <= UINT32_MAX; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (p == s || *p || v > UINT32_MAX)
		return tr_fail(c, JT_GPUS, "expected a whole number of GPUs, got '" TR_SHOW "'", s);
	*gpus = (uint32_t)v;
	return 0;
}

/* Percent of one GPU (PAI's plan_gpu), rounded up to whole GPUs: a GPU is not shared, so
 * 50 takes one GPU, 100 one, 150 two; 0 is none. */
static int gpu_percent(struct tr_ctx *c, uint32_t *gpus)
{
	const uint64_t max = 100ULL * UINT32_MAX;
	const char *s, *p;
	uint64_t v = 0;
	bool frac = false;
	int err = tr_value(c, JT_GPU_PCT, &s);

	if (err)
		return err;
	if (negative(s))
		return tr_fail(c, JT_GPU_PCT, "got '" TR_SHOW "', a negative share of a GPU", s);
	for (p = s; isdigit((unsigned char)*p) && v <= max; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (p > s && *p == '.' && isdigit((unsigned char)p[1]))
		for (p++; isdigit((unsigned char)*p); p++)
			frac |= *p != '0';
	if (p == s || *p || v > max)
		return tr_fail(c, JT_GPU_PCT,
			       "expected a percentage of one GPU (50 is half a GPU), got '" TR_SHOW
			       "'",
			       s);
	*gpus = (uint32_t)(v / 100 + (v % 100 || frac));
	return 0;
}

int tr_gpus(struct tr_ctx *c, uint32_t *gpus)
{
	return tr_has(c, JT_GPUS) ? gpu_count(c, gpus) : gpu_percent(c, gpus);
}

/* Reads 'ddd' after a decimal point into nanoseconds (digits past 9 are dropped). */
static int frac_ns(const char **pp, uint64_t *ns)
{
	const char *p = *pp;
	uint64_t scale = 1000000000;

	*ns = 0;
	if (*p != '.')
		return 0;
	if (!isdigit((unsigned char)*++p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		scale /= 10;
		*ns += (uint64_t)(*p - '0') * scale;
	}
	*pp = p;
	return 0;
}

/* Seconds (digits, an optional fraction) into ns; -EINVAL if s is not such or too large. */
static int seconds(const char *s, uint64_t *ns)
{
	const char *p = s;
	uint64_t sec = 0, frac;

	for (; isdigit((unsigned char)*p) && sec <= TR_MAX_SEC; p++)
		sec = sec * 10 + (uint64_t)(*p - '0');
	if (p == s || frac_ns(&p, &frac) || *p || sec > TR_MAX_SEC)
		return -EINVAL;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

static int digits(const char **pp, int n, int *v)
{
	*v = 0;
	for (; n > 0; n--, (*pp)++) {
		if (!isdigit((unsigned char)**pp))
			return -EINVAL;
		*v = *v * 10 + (**pp - '0');
	}
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static int64_t days(int y, int m, int d)
{
	int64_t era;
	int yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (int)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* YYYY-MM-DD HH:MM:SS[.fff] (or a 'T' between), UTC, from 1970 on. */
static int datetime(const char *s, uint64_t *ns)
{
	const char *p = s;
	int y, mo, da, h, mi, se;
	uint64_t frac;

	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
	    digits(&p, 2, &da) || (*p != ' ' && *p != 'T'))
		return -EINVAL;
	p++;
	if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) || *p++ != ':' ||
	    digits(&p, 2, &se) || frac_ns(&p, &frac) || *p)
		return -EINVAL;
	if (y < 1970 || mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || se > 60)
		return -EINVAL;
	*ns = ((uint64_t)days(y, mo, da) * 86400 + (uint64_t)(h * 3600 + mi * 60 + se)) *
		      1000000000ULL +
	      frac;
	return 0;
}

static enum tr_time_kind kind_of(const char *s)
{
	return strlen(s) > 4 && s[4] == '-' ? TR_TIME_DATE : TR_TIME_SECONDS;
}

int tr_time(struct tr_ctx *c, enum job_trace_role r, uint64_t *ns)
{
	const char *s;
	enum tr_time_kind k;
	int err = tr_value(c, r, &s);

	if (err)
		return err;
	if (negative(s))
		return tr_fail(c, r, "got '" TR_SHOW "', a negative time", s);
	k = kind_of(s);
	err = k == TR_TIME_DATE ? datetime(s, ns) : seconds(s, ns);
	if (err)
		return tr_fail(c, r, "expected seconds or YYYY-MM-DD HH:MM:SS, got '" TR_SHOW "'",
			       s);
	if (c->time_kind != TR_TIME_UNSEEN && c->time_kind != k)
		return tr_fail(c, r, "'" TR_SHOW "' mixes %s with earlier %s", s,
			       k == TR_TIME_DATE ? "a date-time" : "seconds",
			       k == TR_TIME_DATE ? "seconds" : "date-times");
	c->time_kind = k;
	return 0;
}

/* The duration column: seconds above 0. */
static int length(struct tr_ctx *c, uint64_t *ns, bool *none)
{
	const char *s;
	int err = tr_value(c, JT_DURATION, &s);

	if (err)
		return err;
	*none = tr_missing(s);
	if (*none)
		return 0;
	if (seconds(s, ns) || !*ns)
		return tr_fail(c, JT_DURATION, "expected seconds above 0, got '" TR_SHOW "'", s);
	return 0;
}

/* end - start, both of the file's kind of time; the end after the start. */
static int span(struct tr_ctx *c, uint64_t *ns, bool *none)
{
	const struct tr_col *st = &c->col[JT_START];
	const char *a, *b;
	uint64_t t0, t1;
	int err = tr_value(c, JT_START, &a);

	err = err ? err : tr_value(c, JT_END, &b);
	if (err)
		return err;
	*none = tr_missing(a) || tr_missing(b);
	if (*none)
		return 0;
	err = tr_time(c, JT_START, &t0);
	err = err ? err : tr_time(c, JT_END, &t1);
	if (!err && t1 <= t0)
		return tr_fail(c, JT_END,
			       "'" TR_SHOW "' is not after %s '" TR_SHOW
			       "' (column %d): a job lasts more than 0 s",
			       b, st->name, a, st->idx + 1);
	*ns = err ? 0 : t1 - t0;
	return err;
}

int tr_duration(struct tr_ctx *c, uint64_t *ns, bool *none)
{
	*ns = 0;
	*none = false;
	if (tr_has(c, JT_DURATION))
		return length(c, ns, none);
	if (tr_has(c, JT_START) && tr_has(c, JT_END))
		return span(c, ns, none);
	return 0;
}

/* The optional deadline column: seconds after the submit time; empty or absent: none. */
int tr_deadline(struct tr_ctx *c, uint64_t *ns)
{
	const char *s;
	int err;

	*ns = 0;
	if (!tr_has(c, JT_DEADLINE))
		return 0;
	err = tr_value(c, JT_DEADLINE, &s);
	if (err || !*s)
		return err;
	if (seconds(s, ns) || !*ns)
		return tr_fail(c, JT_DEADLINE,
			       "expected seconds after the submit time (> 0), got '" TR_SHOW "'",
			       s);
	return 0;
}
