// SPDX-License-Identifier: MIT
/* CSV job traces (Helios cluster_log.csv and Philly style, vClos §9.2): a header naming
 * the columns, then one job per row; quoted fields, `#` comments, seconds or UTC date-times. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "traffic/job.h"

#define TR_MAX_SEC 18000000000ULL /* keeps seconds x 1e9 within 64 bits */
#define TR_SHOW "%.48s" /* how much of a bad field a message quotes */

enum tr_time_kind {
	TR_TIME_UNSEEN,
	TR_TIME_SECONDS,
	TR_TIME_DATE,
};

struct tr_col {
	const char *what; /* for messages: "submit time" */
	const char *const *names; /* recognised header names, NULL-terminated */
	int idx; /* field index, -1 if the header lacks it */
	char name[32]; /* as the header spells it */
};

struct tr_ctx {
	const char *file;
	unsigned line;
	bool have_header;
	size_t nfields; /* fields of the header */
	struct tr_col submit, gpus, model, deadline;
	enum tr_time_kind time_kind;
	const char *default_model;
	enum coll_algo algo;
	uint32_t iterations;
	size_t n0; /* jobs in out before this trace */
	job_list *out;
	struct diag *d;
	VEC(char) buf; /* the current line's fields, unquoted, each NUL-terminated */
	VEC(size_t) off; /* where each field starts in buf */
};

static const char *const tr_submit_names[] = {"submit_time", "submitted_time", "arrival", NULL};
static const char *const tr_gpu_names[] = {"gpu_num", "num_gpus", "gpus", NULL};
static const char *const tr_model_names[] = {"model", NULL};
static const char *const tr_deadline_names[] = {"deadline", NULL};

static bool tr_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Copies a quoted field's content ("" is one quote); *pp starts after the opening quote and
 * ends after the closing one. -EPROTO if the line ends first. */
static int tr_quoted(struct tr_ctx *c, const char **pp, const char *end)
{
	const char *p;

	for (p = *pp; p < end; p++) {
		if (*p == '"' && !(p + 1 < end && p[1] == '"')) {
			*pp = p + 1;
			return 0;
		}
		if (*p == '"')
			p++;
		if (vec_push(&c->buf, *p))
			return -ENOMEM;
	}
	return -EPROTO;
}

static int tr_plain(struct tr_ctx *c, const char **pp, const char *end)
{
	const char *p = *pp, *e, *q;

	for (e = p; e < end && *e != ','; e++)
		;
	for (q = e; q > p && tr_blank(q[-1]); q--)
		;
	*pp = e;
	for (; p < q; p++) {
		if (vec_push(&c->buf, *p))
			return -ENOMEM;
	}
	return 0;
}

/* One field, surrounding blanks dropped; *pp ends at the comma or the end of the line.
 * -EBADMSG for text after a closing quote. */
static int tr_field(struct tr_ctx *c, const char **pp, const char *end)
{
	const char *p = *pp;
	int err;

	while (p < end && tr_blank(*p))
		p++;
	if (vec_push(&c->off, c->buf.n))
		return -ENOMEM;
	if (p < end && *p == '"') {
		p++;
		err = tr_quoted(c, &p, end);
		while (!err && p < end && tr_blank(*p))
			p++;
		if (!err && p < end && *p != ',')
			err = -EBADMSG;
	} else {
		err = tr_plain(c, &p, end);
	}
	*pp = p;
	return err ? err : vec_push(&c->buf, '\0');
}

static int tr_split(struct tr_ctx *c, const char *p, const char *end)
{
	int err;

	c->buf.n = c->off.n = 0;
	for (;;) {
		err = tr_field(c, &p, end);
		if (err || p >= end)
			break;
		p++; /* the comma */
	}
	if (err == -EPROTO)
		return diag_set(c->d, -EINVAL, "%s:%u: a quoted field is not closed on its line",
				c->file, c->line);
	if (err == -EBADMSG)
		return diag_set(c->d, -EINVAL,
				"%s:%u: field %zu: expected a comma after the closing quote",
				c->file, c->line, c->off.n);
	return err ? diag_set(c->d, err, "out of memory reading %s", c->file) : 0;
}

/* Field i of the current line, or NULL if the line is shorter. */
static const char *tr_get(const struct tr_ctx *c, int i)
{
	return i >= 0 && (size_t)i < c->off.n ? c->buf.v + c->off.v[i] : NULL;
}

static int tr_col_match(struct tr_ctx *c, struct tr_col *col, const char *f, int i)
{
	const char *const *n;

	for (n = col->names; *n; n++) {
		if (strcasecmp(f, *n))
			continue;
		if (col->idx >= 0)
			return diag_set(c->d, -EINVAL, "%s:%u: both %s and %s name the %s column",
					c->file, c->line, col->name, f, col->what);
		col->idx = i;
		snprintf(col->name, sizeof(col->name), "%s", f);
	}
	return 0;
}

static int tr_col_need(struct tr_ctx *c, const struct tr_col *col)
{
	if (col->idx >= 0)
		return 0;
	return diag_set(c->d, -EINVAL, "%s:%u: the header has no %s column (expected %s, %s or %s)",
			c->file, c->line, col->what, col->names[0], col->names[1], col->names[2]);
}

static int tr_header(struct tr_ctx *c)
{
	size_t i;
	int err = 0;

	for (i = 0; !err && i < c->off.n; i++) {
		err = tr_col_match(c, &c->submit, tr_get(c, (int)i), (int)i);
		if (!err)
			err = tr_col_match(c, &c->gpus, tr_get(c, (int)i), (int)i);
		if (!err)
			err = tr_col_match(c, &c->model, tr_get(c, (int)i), (int)i);
		if (!err)
			err = tr_col_match(c, &c->deadline, tr_get(c, (int)i), (int)i);
	}
	if (!err)
		err = tr_col_need(c, &c->submit);
	if (!err)
		err = tr_col_need(c, &c->gpus);
	if (!err && c->model.idx < 0 && !c->default_model)
		err = diag_set(c->d, -EINVAL,
			       "%s:%u: the header has no model column and no default model is set",
			       c->file, c->line);
	c->nfields = c->off.n;
	c->have_header = true;
	return err;
}

/* The field of a column, or an error naming it when the row is too short. */
static int tr_value(struct tr_ctx *c, const struct tr_col *col, const char **out)
{
	*out = tr_get(c, col->idx);
	if (*out)
		return 0;
	return diag_set(c->d, -EINVAL,
			"%s:%u: no %s field (the row has %zu fields, the header %zu)", c->file,
			c->line, col->name, c->off.n, c->nfields);
}

static int tr_gpus(struct tr_ctx *c, uint32_t *gpus)
{
	const char *s, *p;
	uint64_t v = 0;
	int err = tr_value(c, &c->gpus, &s);

	if (err)
		return err;
	if (s[0] == '-' && isdigit((unsigned char)s[1]))
		return diag_set(c->d, -EINVAL, "%s:%u: %s: got '" TR_SHOW "', a negative GPU count",
				c->file, c->line, c->gpus.name, s);
	for (p = s; isdigit((unsigned char)*p) && v <= UINT32_MAX; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (p == s || *p || v > UINT32_MAX)
		return diag_set(c->d, -EINVAL,
				"%s:%u: %s: expected a whole number of GPUs, got '" TR_SHOW "'",
				c->file, c->line, c->gpus.name, s);
	*gpus = (uint32_t)v;
	return 0;
}

/* Reads 'ddd' after a decimal point into nanoseconds (digits past 9 are dropped). */
static int tr_frac(const char **pp, uint64_t *ns)
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

static int tr_seconds(const char *s, uint64_t *ns)
{
	const char *p = s;
	uint64_t sec = 0, frac;

	for (; isdigit((unsigned char)*p) && sec <= TR_MAX_SEC; p++)
		sec = sec * 10 + (uint64_t)(*p - '0');
	if (p == s || tr_frac(&p, &frac) || *p || sec > TR_MAX_SEC)
		return -EINVAL;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

static int tr_digits(const char **pp, int n, int *v)
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
static int64_t tr_days(int y, int m, int d)
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
static int tr_datetime(const char *s, uint64_t *ns)
{
	const char *p = s;
	int y, mo, da, h, mi, se;
	uint64_t frac;

	if (tr_digits(&p, 4, &y) || *p++ != '-' || tr_digits(&p, 2, &mo) || *p++ != '-' ||
	    tr_digits(&p, 2, &da) || (*p != ' ' && *p != 'T'))
		return -EINVAL;
	p++;
	if (tr_digits(&p, 2, &h) || *p++ != ':' || tr_digits(&p, 2, &mi) || *p++ != ':' ||
	    tr_digits(&p, 2, &se) || tr_frac(&p, &frac) || *p)
		return -EINVAL;
	if (y < 1970 || mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || se > 60)
		return -EINVAL;
	*ns = ((uint64_t)tr_days(y, mo, da) * 86400 + (uint64_t)(h * 3600 + mi * 60 + se)) *
		      1000000000ULL +
	      frac;
	return 0;
}

static enum tr_time_kind tr_time_kind_of(const char *s)
{
	return strlen(s) > 4 && s[4] == '-' ? TR_TIME_DATE : TR_TIME_SECONDS;
}

static int tr_time(struct tr_ctx *c, uint64_t *ns)
{
	const char *s;
	enum tr_time_kind k;
	int err = tr_value(c, &c->submit, &s);

	if (err)
		return err;
	if (s[0] == '-' && isdigit((unsigned char)s[1]))
		return diag_set(c->d, -EINVAL, "%s:%u: %s: got '" TR_SHOW "', a negative time",
				c->file, c->line, c->submit.name, s);
	k = tr_time_kind_of(s);
	err = k == TR_TIME_DATE ? tr_datetime(s, ns) : tr_seconds(s, ns);
	if (err)
		return diag_set(c->d, -EINVAL,
				"%s:%u: %s: expected seconds or YYYY-MM-DD HH:MM:SS, got '" TR_SHOW
				"'",
				c->file, c->line, c->submit.name, s);
	if (c->time_kind != TR_TIME_UNSEEN && c->time_kind != k)
		return diag_set(c->d, -EINVAL, "%s:%u: %s: '" TR_SHOW "' mixes %s with earlier %s",
				c->file, c->line, c->submit.name, s,
				k == TR_TIME_DATE ? "a date-time" : "seconds",
				k == TR_TIME_DATE ? "seconds" : "date-times");
	c->time_kind = k;
	return 0;
}

/* The optional deadline column: seconds after the submit time; empty or absent: none. */
static int tr_deadline(struct tr_ctx *c, uint64_t *ns)
{
	const char *s;
	int err;

	*ns = 0;
	if (c->deadline.idx < 0)
		return 0;
	err = tr_value(c, &c->deadline, &s);
	if (err || !*s)
		return err;
	if (tr_seconds(s, ns) || !*ns)
		return diag_set(c->d, -EINVAL,
				"%s:%u: %s: expected seconds after the submit time (> 0), got "
				"'" TR_SHOW "'",
				c->file, c->line, c->deadline.name, s);
	return 0;
}

static int tr_unknown_model(struct tr_ctx *c, const char *name)
{
	char known[512];
	size_t i, k = 0;

	known[0] = '\0';
	for (i = 0; i < job_models_n && k < sizeof(known); i++)
		k += (size_t)snprintf(known + k, sizeof(known) - k, "%s%s", i ? ", " : "",
				      job_models[i].name);
	return diag_set(c->d, -EINVAL, "%s:%u: unknown model '" TR_SHOW "' (known: %s)", c->file,
			c->line, name, known);
}

static int tr_model(struct tr_ctx *c, const struct job_model **m)
{
	const char *s = NULL;
	int err = c->model.idx >= 0 ? tr_value(c, &c->model, &s) : 0;

	if (err)
		return err;
	if (!s || !*s)
		s = c->default_model;
	if (!s)
		return diag_set(c->d, -EINVAL, "%s:%u: %s is empty and no default model is set",
				c->file, c->line, c->model.name);
	*m = job_model_find(s);
	return *m ? 0 : tr_unknown_model(c, s);
}

static int tr_row(struct tr_ctx *c)
{
	const struct job_model *m = NULL;
	struct job_spec *j;
	uint32_t gpus = 0;
	uint64_t t = 0, due = 0;
	int err;

	if (c->off.n > c->nfields)
		return diag_set(
			c->d, -EINVAL,
			"%s:%u: the row has %zu fields, the header %zu (an unquoted comma?)",
			c->file, c->line, c->off.n, c->nfields);
	err = tr_gpus(c, &gpus);
	if (err || !gpus) /* 0 GPUs: a CPU job, skipped */
		return err;
	err = tr_time(c, &t);
	if (!err)
		err = tr_deadline(c, &due);
	if (!err)
		err = tr_model(c, &m);
	if (err)
		return err;
	j = vec_grow(c->out);
	if (!j)
		return diag_set(c->d, -ENOMEM, "out of memory reading %s", c->file);
	err = job_from_model(m, gpus, c->algo, j, c->d);
	if (err)
		return diag_wrap(c->d, err, "%s:%u: ", c->file, c->line);
	j->id = (uint32_t)(c->out->n - 1 - c->n0); /* file order, the sort's tie-break */
	j->arrival_ns = t;
	j->deadline_ns = due;
	j->iterations = c->iterations;
	j->line = c->line;
	return 0;
}

static int tr_line(struct tr_ctx *c, const char *p, const char *end)
{
	const char *q = p;
	int err;

	while (q < end && isspace((unsigned char)*q))
		q++;
	if (q == end || *q == '#')
		return 0;
	err = tr_split(c, p, end);
	if (err)
		return err;
	return c->have_header ? tr_row(c) : tr_header(c);
}

static int tr_cmp(const void *a, const void *b)
{
	const struct job_spec *x = a, *y = b;

	if (x->arrival_ns != y->arrival_ns)
		return x->arrival_ns < y->arrival_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Arrival order, times relative to the earliest, ids counting on from n0. */
static void tr_finish(struct tr_ctx *c)
{
	size_t i, n = c->out->n - c->n0;
	struct job_spec *v;

	if (!n)
		return; /* and out->v may be NULL: no offset from it */
	v = c->out->v + c->n0;
	qsort(v, n, sizeof(*v), tr_cmp);
	for (i = n; i-- > 0;) {
		v[i].arrival_ns -= v[0].arrival_ns;
		v[i].id = (uint32_t)(c->n0 + i);
	}
}

static int tr_lines(struct tr_ctx *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *e;
	int err = 0;

	if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3; /* a UTF-8 byte order mark */
	while (!err && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		e = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
		c->line++;
		err = tr_line(c, p, e);
		p = nl < end ? nl + 1 : end;
	}
	if (!err && !c->have_header)
		err = diag_set(
			c->d, -EINVAL,
			"%s: no header row (expected column names, e.g. submit_time,gpu_num)",
			c->file);
	return err;
}

int workload_trace_parse(const char *name, const char *text, size_t len, const char *default_model,
			 enum coll_algo algo, uint32_t iterations, job_list *out, struct diag *d)
{
	struct tr_ctx c = {
		.file = name,
		.submit = {"submit time", tr_submit_names, -1, ""},
		.gpus = {"GPU count", tr_gpu_names, -1, ""},
		.model = {"model", tr_model_names, -1, "model"},
		.deadline = {"deadline", tr_deadline_names, -1, "deadline"},
		.default_model = default_model,
		.algo = algo,
		.iterations = iterations,
		.n0 = out->n,
		.out = out,
		.d = d,
	};
	int err = 0;

	if (default_model && !job_model_find(default_model))
		err = diag_set(d, -EINVAL, "%s: unknown default model '" TR_SHOW "'", name,
			       default_model);
	if (!err)
		err = tr_lines(&c, text, len);
	if (!err)
		tr_finish(&c);
	else
		out->n = c.n0;
	vec_free(&c.buf);
	vec_free(&c.off);
	return err;
}
