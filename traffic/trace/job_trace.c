// SPDX-License-Identifier: MIT
/* CSV job traces as the public GPU-cluster traces publish them (Helios, Philly, Alibaba PAI,
 * ElasticFlow; vClos §9.2 replays Helios): a header naming the columns, then one job per row;
 * quoted fields, `#` comments. Here the lines, the rows kept or left out, and the jobs. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "traffic/trace/job_trace_int.h"

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
		return diag_set(c->d, -EINVAL,
				"%s:%u:%zu: a quoted field is not closed on its line", c->file,
				c->line, c->off.n);
	if (err == -EBADMSG)
		return diag_set(c->d, -EINVAL,
				"%s:%u:%zu: expected a comma after the closing quote", c->file,
				c->line, c->off.n);
	return err ? diag_set(c->d, err, "out of memory reading %s", c->file) : 0;
}

const char *tr_get(const struct tr_ctx *c, int i)
{
	return i >= 0 && (size_t)i < c->off.n ? c->buf.v + c->off.v[i] : NULL;
}

static int tr_unknown_model(struct tr_ctx *c, const char *name)
{
	char known[512];
	size_t i, k = 0;

	known[0] = '\0';
	for (i = 0; i < job_models_n && k < sizeof(known); i++)
		k += (size_t)snprintf(known + k, sizeof(known) - k, "%s%s", i ? ", " : "",
				      job_models[i].name);
	if (tr_has(c, JT_MODEL))
		return tr_fail(c, JT_MODEL, "unknown model '" TR_SHOW "' (known: %s)", name, known);
	return diag_set(c->d, -EINVAL, "%s:%u: unknown model '" TR_SHOW "' (known: %s)", c->file,
			c->line, name, known);
}

static int tr_model(struct tr_ctx *c, const struct job_model **m)
{
	const char *s = NULL;
	int err = tr_has(c, JT_MODEL) ? tr_value(c, JT_MODEL, &s) : 0;

	if (err)
		return err;
	if (!s || !*s)
		s = c->o->default_model;
	if (!s)
		return tr_fail(c, JT_MODEL, "empty, and no default model is set");
	*m = job_model_find(s);
	return *m ? 0 : tr_unknown_model(c, s);
}

/* Whether the row's state is one workload.trace.states keeps (every state without it). */
static int tr_state(struct tr_ctx *c, bool *kept)
{
	const char *s;
	uint32_t i;
	int err;

	*kept = true;
	if (!c->o->states_n)
		return 0;
	err = tr_value(c, JT_STATE, &s);
	if (err)
		return err;
	*kept = false;
	for (i = 0; !*kept && i < c->o->states_n; i++)
		*kept = !strcasecmp(s, c->o->states[i]);
	return 0;
}

/* Why the row is left out (JT_LEFT_N: it is kept), and a kept row's GPUs and length. A row
 * left out is not read further. */
static int tr_filter(struct tr_ctx *c, enum job_trace_left_why *why, uint32_t *gpus, uint64_t *len)
{
	bool kept = true, none = false;
	int err = tr_state(c, &kept);

	*why = JT_LEFT_STATE;
	if (err || !kept)
		return err;
	*why = JT_LEFT_NO_GPUS;
	err = tr_gpus(c, gpus);
	if (err || !*gpus)
		return err;
	*why = JT_LEFT_NO_DURATION;
	err = tr_duration(c, len, &none);
	if (err || none)
		return err;
	*why = JT_LEFT_N;
	return 0;
}

/* The job of a kept row: its arrival (the submit time, else the start), deadline, model. */
static int tr_job(struct tr_ctx *c, uint32_t gpus, uint64_t len)
{
	const struct tr_col *g = &c->col[tr_has(c, JT_GPUS) ? JT_GPUS : JT_GPU_PCT];
	const struct job_model *m = NULL;
	struct job_spec *j;
	uint64_t t = 0, due = 0;
	int err = tr_time(c, tr_has(c, JT_SUBMIT) ? JT_SUBMIT : JT_START, &t);

	err = err ? err : tr_deadline(c, &due);
	err = err ? err : tr_model(c, &m);
	if (err)
		return err;
	j = vec_grow(c->out);
	if (!j)
		return diag_set(c->d, -ENOMEM, "out of memory reading %s", c->file);
	err = job_from_model(m, gpus, c->o->algo, j, c->d);
	if (err) /* the model and the row's GPUs do not go together */
		return diag_wrap(c->d, err, "%s:%u:%d: %s: ", c->file, c->line, g->idx + 1,
				 g->name);
	j->id = (uint32_t)(c->out->n - 1 - c->n0); /* file order, the sort's tie-break */
	j->arrival_ns = t;
	j->deadline_ns = due;
	j->duration_ns = len;
	j->iterations = c->o->iterations;
	j->line = c->line;
	return 0;
}

static int tr_row(struct tr_ctx *c)
{
	enum job_trace_left_why why;
	uint32_t gpus = 0;
	uint64_t len = 0;
	int err;

	if (c->off.n > c->nfields)
		return diag_set(c->d, -EINVAL,
				"%s:%u:%zu: the row has %zu fields, the header %zu (an unquoted "
				"comma?)",
				c->file, c->line, c->nfields + 1, c->off.n, c->nfields);
	err = tr_filter(c, &why, &gpus, &len);
	if (err)
		return err;
	if (why < JT_LEFT_N) {
		c->left.n[why]++;
		return 0;
	}
	return tr_job(c, gpus, len);
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

/* UTF-16 (a byte order mark, or the NUL bytes of its ASCII characters) is refused as such:
 * read as bytes it would be a header of no known column. */
static int tr_encoding(struct tr_ctx *c, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len), *p;
	unsigned line = 1;

	if (len >= 2 && (!memcmp(text, "\xff\xfe", 2) || !memcmp(text, "\xfe\xff", 2)))
		return diag_set(c->d, -EINVAL,
				"%s:1: UTF-16 text (byte order mark %s): a trace is read as UTF-8 "
				"or ASCII (convert it, e.g. iconv -f UTF-16 -t UTF-8)",
				c->file, text[0] == '\xff' ? "FF FE" : "FE FF");
	if (!nul)
		return 0;
	for (p = text; p < nul; p++)
		line += *p == '\n';
	return diag_set(c->d, -EINVAL,
			"%s:%u: a NUL byte: UTF-16 text without a byte order mark, or not text; "
			"a trace is read as UTF-8 or ASCII",
			c->file, line);
}

static int tr_lines(struct tr_ctx *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl, *e;
	int err = tr_encoding(c, text, len);

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

static void tr_left_add(struct job_trace_left *to, const struct job_trace_left *from)
{
	int k;

	for (k = 0; to && k < JT_LEFT_N; k++)
		to->n[k] += from->n[k];
}

int workload_trace_parse(const char *name, const char *text, size_t len,
			 const struct job_trace_opts *o, job_list *out, struct job_trace_left *left,
			 struct diag *d)
{
	struct tr_ctx c = {.file = name, .o = o, .n0 = out->n, .out = out, .d = d};
	int err = 0, r;

	for (r = 0; r < JT_ROLES; r++)
		c.col[r].idx = -1;
	if (o->default_model && !job_model_find(o->default_model))
		err = diag_set(d, -EINVAL, "%s: unknown default model '" TR_SHOW "'", name,
			       o->default_model);
	if (!err)
		err = tr_lines(&c, text, len);
	if (!err) {
		tr_finish(&c);
		tr_left_add(left, &c.left);
	} else {
		out->n = c.n0;
	}
	vec_free(&c.buf);
	vec_free(&c.off);
	return err;
}
