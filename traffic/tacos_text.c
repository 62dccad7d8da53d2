// SPDX-License-Identifier: MIT
/* A synthesized TACOS collective as text (tacos.h): what the orchestrator writes into the
 * results folder once per job and what every emu-node of the job reads back, so all ranks run
 * one synthesis. Times print with 17 significant digits, which read back to the same double.
 *
 *   # comment lines
 *   tacos 1 <n> <k> <chunk_bytes> <t_rs> <t_ag> <rs sends> <ag sends>
 *   rs <chunk> <src> <dst> <link> <t0> <t1>      (the reduce-scatter's sends, in order)
 *   ag <chunk> <src> <dst> <link> <t0> <t1>      (then the all-gather's) */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sbuf.h"
#include "traffic/tacos.h"

static void put_sends(struct sbuf *o, const char *tag, const struct tacos_sched *s)
{
	const struct tacos_send *x;
	size_t i;

	for (i = 0; i < s->nsends; i++) {
		x = &s->sends[i];
		sbuf_put(o, "%s %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 " %.17g %.17g\n", tag,
			 x->chunk, x->src, x->dst, x->link, x->t0, x->t1);
	}
}

size_t tacos_result_format(const struct tacos_result *r, char *buf, size_t size)
{
	struct sbuf o = {buf, size, 0};

	if (buf && size)
		buf[0] = '\0';
	sbuf_put(&o,
		 "# TACOS-Greedy schedule (Won et al.): every send of a chunk over a link, with\n"
		 "# its synthesized start and end in seconds\n"
		 "tacos 1 %" PRIu32 " %" PRIu32 " %" PRIu64 " %.17g %.17g %zu %zu\n",
		 r->n, r->k, r->chunk_bytes, r->t_rs, r->t_ag, r->rs.nsends, r->ag.nsends);
	put_sends(&o, "rs", &r->rs);
	put_sends(&o, "ag", &r->ag);
	return o.len;
}

/* A cursor over the text, by line. */
struct tp {
	const char *p, *end;
	uint32_t line;
	struct diag *d;
};

/* The next line that is not blank or a comment into buf (NUL-terminated); false at the end. */
static bool next_line(struct tp *t, char *buf, size_t size)
{
	const char *nl;
	size_t n;

	while (t->p < t->end) {
		nl = memchr(t->p, '\n', (size_t)(t->end - t->p));
		n = (size_t)((nl ? nl : t->end) - t->p);
		t->line++;
		if (n >= size)
			n = size - 1; /* too long for any valid line: it fails to parse */
		memcpy(buf, t->p, n);
		buf[n] = '\0';
		t->p = nl ? nl + 1 : t->end;
		if (buf[strspn(buf, " \t\r")] && buf[strspn(buf, " \t\r")] != '#')
			return true;
	}
	return false;
}

static int bad(struct tp *t, const char *what)
{
	return diag_set(t->d, -EINVAL, "TACOS schedule line %u: %s", t->line, what);
}

/* What is wrong with send x of a result of n NPUs and k chunks each, or NULL. */
static const char *send_fault(const struct tacos_send *x, uint32_t n, uint32_t k)
{
	if ((uint64_t)x->chunk >= (uint64_t)n * k || x->src >= n || x->dst >= n || x->src == x->dst)
		return "a chunk or NPU out of range, or a send to itself";
	if (!isfinite(x->t0) || !isfinite(x->t1) || x->t0 < 0 || x->t1 < x->t0)
		return "times must be finite, t0 >= 0 and t1 >= t0";
	return NULL;
}

int tacos_result_check(const struct tacos_result *r, struct diag *d)
{
	const struct tacos_sched *s[2] = {&r->rs, &r->ag};
	const char *why;
	size_t i, j;

	if (!r->n || r->n > TACOS_MAX_NPUS || !r->k)
		return diag_set(d, -EINVAL, "TACOS schedule: %u NPUs with %u chunks each", r->n,
				r->k);
	for (j = 0; j < 2; j++)
		for (i = 0; i < s[j]->nsends; i++)
			if ((why = send_fault(&s[j]->sends[i], r->n, r->k)))
				return diag_set(d, -EINVAL, "TACOS schedule: %s send %zu: %s",
						j ? "all-gather" : "reduce-scatter", i, why);
	return 0;
}

/* "rs|ag chunk src dst link t0 t1" into x, checked against r's n and k. */
static int parse_send(struct tp *t, const char *line, const char *tag, const struct tacos_result *r,
		      struct tacos_send *x)
{
	const char *why;
	char word[4];
	int used = 0;

	if (sscanf(line, "%3s %" SCNu32 " %" SCNu32 " %" SCNu32 " %" SCNu32 " %lf %lf %n", word,
		   &x->chunk, &x->src, &x->dst, &x->link, &x->t0, &x->t1, &used) != 7 ||
	    line[used])
		return bad(t, "expected 'rs|ag chunk src dst link t0 t1'");
	if (strcmp(word, tag))
		return bad(t,
			   strcmp(tag, "rs") ? "expected an 'ag' send" : "expected an 'rs' send");
	why = send_fault(x, r->n, r->k);
	return why ? bad(t, why) : 0;
}

static int parse_sends(struct tp *t, const char *tag, const struct tacos_result *r,
		       struct tacos_sched *s, size_t n)
{
	char line[256];
	size_t i;
	int err;

	s->sends = calloc(n + 1, sizeof(*s->sends));
	if (!s->sends)
		return diag_set(t->d, -ENOMEM, "TACOS schedule: out of memory for %zu sends", n);
	for (i = 0; i < n; i++) {
		if (!next_line(t, line, sizeof(line)))
			return bad(t, "the text ends before the sends the header counts");
		err = parse_send(t, line, tag, r, &s->sends[i]);
		if (err)
			return err;
		s->nsends = i + 1;
	}
	s->time = n ? s->sends[n - 1].t1 : 0;
	for (i = 0; i < n; i++)
		s->time = fmax(s->time, s->sends[i].t1);
	return 0;
}

static int parse_header(struct tp *t, struct tacos_result *r, size_t *nrs, size_t *nag)
{
	char line[256];
	unsigned version;
	int used = 0;

	if (!next_line(t, line, sizeof(line)))
		return diag_set(t->d, -EINVAL, "TACOS schedule: empty");
	if (sscanf(line, "tacos %u %" SCNu32 " %" SCNu32 " %" SCNu64 " %lf %lf %zu %zu %n",
		   &version, &r->n, &r->k, &r->chunk_bytes, &r->t_rs, &r->t_ag, nrs, nag,
		   &used) != 8 ||
	    line[used])
		return bad(t, "expected 'tacos 1 n k chunk_bytes t_rs t_ag rs_sends ag_sends'");
	if (version != 1)
		return bad(t, "format version other than 1");
	if (!r->n || r->n > TACOS_MAX_NPUS || !r->k || !r->chunk_bytes ||
	    (uint64_t)r->n * r->n * r->k > TACOS_MAX_CELLS)
		return bad(t, "NPUs, chunks per NPU or chunk size out of range");
	if (!isfinite(r->t_rs) || !isfinite(r->t_ag) || r->t_rs < 0 || r->t_ag < 0)
		return bad(t, "collective times must be finite and >= 0");
	if (*nrs > (uint64_t)r->n * r->n * r->k || *nag > (uint64_t)r->n * r->n * r->k)
		return bad(t, "more sends than chunks times NPUs");
	return 0;
}

int tacos_result_parse(const char *text, size_t len, struct tacos_result *r, struct diag *d)
{
	struct tp t = {text, text + len, 0, d};
	char line[256];
	size_t nrs = 0, nag = 0;
	int err;

	memset(r, 0, sizeof(*r));
	err = parse_header(&t, r, &nrs, &nag);
	if (!err)
		err = parse_sends(&t, "rs", r, &r->rs, nrs);
	if (!err)
		err = parse_sends(&t, "ag", r, &r->ag, nag);
	if (!err && next_line(&t, line, sizeof(line)))
		err = bad(&t, "more sends than the header counts");
	if (err)
		tacos_result_done(r);
	return err;
}
