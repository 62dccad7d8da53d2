// SPDX-License-Identifier: MIT
/* A sweep's comparison table (comparison.txt): per metric and variant the mean value and the
 * ratio to its baseline with its range over seeds, and the paper's figures beside them. */
#include <math.h>
#include <stdio.h>

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

static void sweep_row(struct col_out *o, const struct col_sweep_cell *c, const char *metric,
		      const char *unit, const char *name, uint32_t v, const double *paper)
{
	char b[5][VAL_MAX], label[24];

	if (!name)
		snprintf(label, sizeof(label), "v%u", v);
	col_out_printf(o, "%-10s %-8s %-20.20s %11s %8s %8s %8s %5u", metric, unit,
		       name ? name : label, col_val(b[0], c->value, ""), col_val(b[1], c->mean, ""),
		       col_val(b[2], c->min, ""), col_val(b[3], c->max, ""), c->n);
	col_out_printf(o, paper ? " %8s\n" : "\n", paper ? col_val(b[4], *paper, "") : "");
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
	uint32_t v;
	unsigned k;

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
	col_out_printf(&o, "%-10s %-8s %-20s %11s %8s %8s %8s %5s%s\n", "metric", "unit", "variant",
		       "value", "ratio", "min", "max", "runs", paper ? "    paper" : "");
	for (k = 0; k < COL_M_N; k++) {
		for (v = 0; v < s->variants; v++) {
			double p = paper_ratio(b, v, k);

			sweep_row(&o, col_sweep_cell(s, v, (enum col_metric)k),
				  v ? "" : col_metric_name((enum col_metric)k), v ? "" : units[k],
				  names ? names[v] : NULL, v, paper ? &p : NULL);
		}
	}
	if (paper)
		paper_lines(&o, s, names, b);
	return col_out_ret(&o);
}
