// SPDX-License-Identifier: MIT
/* A sweep's comparison table (comparison.txt): per metric and variant the mean value and the
 * ratio to its baseline with its range over seeds, and the paper's figures beside them; with
 * sweep.baseline one block per baseline (per load, when the baseline is a case). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collect/csv.h"
#include "collect/internal.h"
#include "collect/summary.h"

#define VAL_MAX COL_VAL_MAX

static const char *const units[COL_M_N] = {
	[COL_M_AVG_JWT] = "paper s",  [COL_M_AVG_JRT] = "paper s",   [COL_M_AVG_JCT] = "paper s",
	[COL_M_AVG_COMM] = "paper s", [COL_M_STABILITY] = "paper s", [COL_M_FCT_P50] = "paper s",
	[COL_M_FCT_P99] = "paper s",  [COL_M_BUSBW] = "B/s",	     [COL_M_UTIL] = "share",
};

const char *col_metric_unit(enum col_metric k)
{
	return (unsigned)k < COL_M_N ? units[k] : "?";
}

/* The paper's ratio for variant v's metric k, NAN if b gives none. */
static double paper_ratio(const struct col_sweep_base *b, uint32_t v, unsigned k)
{
	return b && b->paper ? b->paper[(size_t)v * COL_M_N + k] : NAN;
}

static bool any_paper(const struct col_sweep *s, const struct col_sweep_base *b)
{
	size_t i;

	for (i = 0; b && b->paper && i < (size_t)s->variants * COL_M_N; i++)
		if (isfinite(b->paper[i]))
			return true;
	return false;
}

#define NAME_W 20 /* the variant column's width, unless sweep.baseline's blocks need more */

static void sweep_row(struct col_out *o, const struct col_sweep_cell *c, const char *metric,
		      const char *unit, const char *name, int w, uint32_t v, const double *paper)
{
	char b[5][VAL_MAX], label[24];

	if (!name)
		snprintf(label, sizeof(label), "v%u", v);
	col_out_printf(o, "%-10s %-8s %-*.*s %11s %8s %8s %8s %5u", metric, unit, w, w,
		       name ? name : label, col_val(b[0], c->value, ""), col_val(b[1], c->mean, ""),
		       col_val(b[2], c->min, ""), col_val(b[3], c->max, ""), c->n);
	col_out_printf(o, paper ? " %8s\n" : "\n", paper ? col_val(b[4], *paper, "") : "");
}

/* The table of the variants vs[0] to vs[n - 1] (NULL: 0 to n - 1), metric by metric, each
 * named by name[v] (name NULL: "v<v>") in a column w wide. */
static void table(struct col_out *o, const struct col_sweep *s, const uint32_t *vs, uint32_t n,
		  const char *const *name, int w, const struct col_sweep_base *b, bool paper)
{
	/* a variant after s's last with a run (col_sweep_pad not called) */
	static const struct col_sweep_cell none = {
		.mean = NAN, .min = NAN, .max = NAN, .value = NAN};
	const struct col_sweep_cell *c;
	uint32_t i, v;
	unsigned k;

	col_out_printf(o, "%-10s %-8s %-*s %11s %8s %8s %8s %5s%s\n", "metric", "unit", w,
		       "variant", "value", "ratio", "min", "max", "runs", paper ? "    paper" : "");
	for (k = 0; k < COL_M_N; k++) {
		for (i = 0; i < n; i++) {
			double p;

			v = vs ? vs[i] : i;
			p = paper_ratio(b, v, k);
			c = col_sweep_cell(s, v, (enum col_metric)k);
			sweep_row(o, c ? c : &none, i ? "" : col_metric_name((enum col_metric)k),
				  i ? "" : units[k], name ? name[v] : NULL, w, v,
				  paper ? &p : NULL);
		}
	}
}

/* A block's first line: what its variants share, and their baseline or that it never ran. */
static void block_head(struct col_out *o, const struct col_sweep *s, const struct col_sweep_base *b,
		       uint32_t base, uint32_t first)
{
	const char *shared = b->group && b->group[first][0] ? b->group[first] : "all variants";
	bool ran = base < s->runs.n && s->runs.v[base];

	col_out_printf(o, "\n%s: %s v%u%s%s%s%s\n", shared, ran ? "ratios to" : "no ratios,", base,
		       b->own ? " (" : "", b->own ? b->own[base] : "", b->own ? ")" : "",
		       ran ? "" : " has no run");
}

/* sweep.baseline's table: one block per group of variants sharing a baseline, each row named
 * by its own value on the baseline's axis (or, without those, by names), the column as wide
 * as the longest. */
static void blocks(struct col_out *o, const struct col_sweep *s, const char *const *names,
		   const struct col_sweep_base *b, bool paper)
{
	const struct col_sweep_groups *g = b->groups;
	const char *const *name = b->own ? b->own : names;
	int w = NAME_W;
	uint32_t i;
	size_t n;

	for (i = 0; name && i < s->variants; i++) {
		n = strlen(name[i]);
		w = n > (size_t)w && n < 1000 ? (int)n : w;
	}
	for (i = 0; i < g->n; i++) {
		block_head(o, s, b, g->baseline[i], g->order[g->start[i]]);
		table(o, s, g->order + g->start[i], g->start[i + 1] - g->start[i], name, w, b,
		      paper);
	}
}

/* Each figure the paper gives, measured beside it; a running or communication time's ratio r
 * also as the throughput change 1/r - 1 (fixed work: "a throughput decrease of about 60%" is
 * a ratio of 2.5). */
static void paper_lines(struct col_out *o, const struct col_sweep *s, const char *const *names,
			const struct col_sweep_base *b)
{
	char x[3][VAL_MAX];
	uint32_t v;
	unsigned k;

	col_out_printf(o, "\nbeside the paper (ratios to the baseline):\n");
	for (v = 0; v < s->variants; v++)
		for (k = 0; k < COL_M_N; k++) {
			const struct col_sweep_cell *c = col_sweep_cell(s, v, (enum col_metric)k);
			double p = paper_ratio(b, v, k), m = c->mean;

			if (!isfinite(p))
				continue;
			col_out_printf(o, "  v%-3u %-9s measured %-7s paper %-7s measured/paper %s",
				       v, col_metric_name((enum col_metric)k), col_val(x[0], m, ""),
				       col_val(x[1], p, ""), col_val(x[2], m / p, ""));
			if ((k == COL_M_AVG_JRT || k == COL_M_AVG_COMM) && isfinite(m) && m > 0)
				col_out_printf(o, "  (throughput %+.0f%% vs %+.0f%%)",
					       100.0 * (1.0 / m - 1.0), 100.0 * (1.0 / p - 1.0));
			col_out_printf(o, "%s%s\n", names ? "  " : "", names ? names[v] : "");
		}
}

int col_sweep_txt(char *buf, size_t len, const struct col_sweep *s, const char *const *names)
{
	return col_sweep_txt_base(buf, len, s, names, NULL);
}

int col_sweep_txt_base(char *buf, size_t len, const struct col_sweep *s, const char *const *names,
		       const struct col_sweep_base *b)
{
	bool paper = any_paper(s, b);
	struct col_out o;

	col_out_init(&o, buf, len);
	if (b && b->label)
		col_out_printf(&o,
			       "ratios to each variant's baseline (the same values with %s), mean "
			       "over seeds and range\n",
			       b->label);
	else
		col_out_printf(
			&o,
			"ratios to the baseline (the first variant), mean over seeds and range\n");
	if (b && b->label && b->groups)
		blocks(&o, s, names, b, paper);
	else
		table(&o, s, NULL, s->variants, names, NAME_W, b, paper);
	if (paper)
		paper_lines(&o, s, names, b);
	return col_out_ret(&o);
}
