// SPDX-License-Identifier: MIT
/* Reports beyond the summary: topology.json written from a model and read back
 * (collect/topo_json.c), the plots' scripts and data (collect/plot*.c) with their time axes
 * named by the run's clock and the empty ones left out with why, a sweep's comparison.json
 * (collect/sweep_out.c) and the growing text buffer (collect/text.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/plot.h"
#include "collect/summary.h"
#include "collect/text.h"
#include "collect/topo_json.h"
#include "model/gen.h"

#define S 1000000000LL

/* h0 h1 on l0, h2 h3 on l1, one spine: links h0-l0, h1-l0, h2-l1, h3-l1, l0-s0, l1-s0. */
static struct topo *t_topo(void)
{
	struct scenario s;
	struct topo *t = NULL;
	struct diag d = {0};

	scn_init(&s);
	strcpy(s.name, "t");
	s.topology.gen = SCN_GEN_LEAFSPINE;
	s.topology.ls = (struct scn_leafspine){2, 2, 1, 1, 2000000000ULL, 1000000000ULL, 1, 0, {0}};
	if (topo_build(&s, &t, &d))
		fail_msg("%s", d.msg);
	scn_done(&s);
	return t;
}

/* topology.json of t_topo with the fabric's directions unshaped, read back. */
static void t_info(struct col_topo_info *ti, json_t **out)
{
	struct topo *t = t_topo();
	uint8_t shaped[12] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
	json_t *j = col_topo_json(t, shaped);
	char *text = json_dumps(j, 0);
	json_t *back = json_loads(text, 0, NULL);
	struct diag d = {0};

	assert_non_null(back);
	if (col_topo_info_parse(back, ti, &d))
		fail_msg("%s", d.msg);
	free(text);
	json_decref(j);
	if (out)
		*out = back;
	else
		json_decref(back);
	topo_free(t);
}

static void test_topo_json(void **state)
{
	struct col_topo_info ti;
	struct col_links_cfg lc;
	json_t *j, *n0, *l0;
	char label[40];

	(void)state;
	t_info(&ti, &j);
	assert_int_equal(ti.links.n, 6);
	assert_int_equal(ti.dims, 1);
	assert_string_equal(ti.links.v[0].end[0], "h0");
	assert_string_equal(ti.links.v[0].end[1], "l0");
	assert_int_equal(ti.links.v[0].rate_bps[0], 2000000000ULL);
	assert_int_equal(ti.links.v[4].rate_bps[1], 1000000000ULL);
	assert_string_equal(ti.links.v[0].tier, "edge");
	assert_string_equal(ti.links.v[4].tier, "fabric");
	assert_int_equal(ti.shaped[0], 1);
	assert_int_equal(ti.shaped[9], 0);
	assert_int_equal(ti.endpoint[0], 1); /* h0's egress */
	assert_int_equal(ti.endpoint[1], 0);
	assert_int_equal(ti.endpoint[8], 0);
	lc = col_topo_links_cfg(&ti);
	assert_int_equal(lc.nlinks, 6);
	assert_int_equal(lc.rate_bps[8], 1000000000ULL);
	col_topo_dir_label(&ti, 4, 1, label, sizeof(label));
	assert_string_equal(label, "s0>l0");
	col_topo_dir_label(&ti, 9, 0, label, sizeof(label));
	assert_string_equal(label, "9.0");
	n0 = json_array_get(json_object_get(j, "nodes"), 0);
	assert_string_equal(json_string_value(json_object_get(n0, "name")), "h0");
	assert_string_equal(json_string_value(json_object_get(n0, "role")), "host");
	assert_non_null(json_string_value(json_object_get(n0, "addr")));
	l0 = json_array_get(json_object_get(j, "links"), 0);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(l0, "ends"), 1), "ifname")),
			    "h0");
	json_decref(j);
	col_topo_info_done(&ti);
}

static void test_topo_json_refusals(void **state)
{
	static const char *const bad[] = {
		"{\"schema\": \"testbed-topology/0\", \"links\": []}",
		"{\"schema\": \"testbed-topology/1\"}",
		"{\"schema\": \"testbed-topology/1\", \"links\": [{\"id\": 1}]}",
		"{\"schema\": \"testbed-topology/1\", \"links\": [{\"id\": 0, \"ends\": "
		"[{\"node\": "
		"\"a\"}, {\"node\": \"b\"}], \"rate_bps\": [1, -1], \"shaped\": [true, true], "
		"\"dim\": 0}]}",
		"{\"schema\": \"testbed-topology/1\", \"links\": [{\"id\": 0, \"ends\": "
		"[{\"node\": "
		"\"a\"}, {}], \"rate_bps\": [1, 1], \"shaped\": [true, true], \"dim\": 0}]}",
	};
	struct col_topo_info ti;
	struct diag d;
	json_t *j;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		diag_clear(&d);
		j = json_loads(bad[i], 0, NULL);
		assert_non_null(j);
		assert_int_equal(col_topo_info_parse(j, &ti, &d), -EINVAL);
		assert_true(strncmp(d.msg, "topology.json", 13) == 0);
		assert_null(ti.rate_bps);
		json_decref(j);
	}
}

/* Samples of link 4 (l0-s0, 1 Gbit/s) dir 0 at 100% and of link 0 dir 0 (2 Gbit/s) at 25%
 * every 100 ms for 1 s; two jobs with flows. */
static void t_run(struct rec_run *r)
{
	struct rec_job j = {.id = 3, .model = "gpt3", .gpus = 2, .status = REC_OK};
	struct rec_flow f = {.job = 3, .bytes = 100};
	int64_t k;

	*r = (struct rec_run){.dilation = 10, .t_end = S};
	for (k = 0; k <= 10; k++) {
		struct rec_sample a = {k * S / 10, 4, 0, (uint64_t)k * 12500000, 0, 0, 0};
		struct rec_sample b = {k * S / 10, 0, 0, (uint64_t)k * 6250000, 0, 0, 0};

		vec_push(&r->samples, a);
		vec_push(&r->samples, b);
	}
	j.arrival = 0;
	j.start = S / 10;
	j.finish = S;
	vec_push(&r->jobs, j);
	j.id = 5;
	j.status = REC_NOT_STARTED;
	j.start = j.finish = REC_NEVER;
	vec_push(&r->jobs, j);
	for (k = 1; k <= 50; k++) { /* 1 ms .. 50 ms, out of order: the CDF sorts them */
		f.t_start = 0;
		f.t_end = (k * 37 % 50 + 1) * 1000000;
		vec_push(&r->flows, f);
	}
}

/* The first curve of an FCT CDF block: 50 points, each flow 1 ms / D after the one before. */
static void t_cdf_sorted(const char *text)
{
	const char *p = strchr(text, '\n') + 1;
	double x, y;
	int k;

	for (k = 1; k <= 50; k++) {
		assert_int_equal(sscanf(p, "%lf %lf", &x, &y), 2);
		assert_true(fabs(x - k * 0.0001) < 1e-12 && fabs(y - k / 50.0) < 1e-12);
		p = strchr(p, '\n') + 1;
	}
}

static const struct col_plot_file *t_file(const struct col_plots *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->files.n; i++)
		if (!strcmp(p->files.v[i].name, name))
			return &p->files.v[i];
	fail_msg("no %s", name);
	return NULL;
}

static void t_labelled(const struct col_plot_file *f)
{
	assert_non_null(strstr(f->text, "set xlabel '"));
	assert_non_null(strstr(f->text, "set ylabel '"));
	assert_non_null(strstr(f->text, "set title '"));
	assert_non_null(strstr(f->text, "set output '"));
	assert_non_null(strstr(f->text, ".png'"));
	assert_non_null(strstr(f->text, ".svg'"));
	assert_int_equal(strlen(f->text), f->len);
}

static void test_run_plots(void **state)
{
	struct col_topo_info ti;
	struct col_metrics m;
	struct col_plots p = {0};
	struct rec_run r;
	struct diag d = {0};
	const struct col_plot_file *f;
	struct col_links_cfg lc;

	(void)state;
	t_info(&ti, NULL);
	t_run(&r);
	lc = col_topo_links_cfg(&ti);
	if (col_metrics_build(&r, &lc, NULL, &m, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(col_plot_run(&p, &r, &m, &ti, "t run", COL_CLOCK_EMULATED), 0);
	assert_int_equal(p.files.n, 8);
	f = t_file(&p, "util_heatmap.dat"); /* 2 directions x 10 bins of 100 ms */
	assert_string_equal(f->text, "0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25 0.25\n"
				     "1 1 1 1 1 1 1 1 1 1\n");
	t_labelled(t_file(&p, "util_heatmap.gp"));
	assert_non_null(strstr(t_file(&p, "util_heatmap.gp")->text, "'h0>l0' 0, 'l0>s0' 1"));
	f = t_file(&p, "util_groups.dat"); /* edge, fabric */
	assert_true(!strncmp(f->text, "0.05 0.25 1\n0.15 0.25 1\n", 24));
	t_labelled(t_file(&p, "util_tier.gp"));
	t_labelled(t_file(&p, "fct_cdf.gp"));
	f = t_file(&p, "fct_cdf.dat"); /* job 3's 50 flows, then all: 1 ms .. 50 ms / D */
	assert_true(!strncmp(f->text, "# job 3 (gpt3)\n0.0001 0.02\n", 27));
	t_cdf_sorted(f->text);
	t_labelled(t_file(&p, "jct.gp"));
	assert_string_equal(t_file(&p, "jct.dat")->text, "3 0.01 0.09\n5* 0.1 -\n");
	col_plots_done(&p);
	col_metrics_done(&m);
	rec_run_done(&r);
	col_topo_info_done(&ti);
}

/* Links with dimensions: utilization per dimension; without a topology no link plots. */
static void test_dims_and_none(void **state)
{
	struct col_topo_info ti, none = {0};
	struct col_metrics m;
	struct col_plots p = {0};
	struct rec_run r;
	struct diag d = {0};

	(void)state;
	t_info(&ti, NULL);
	ti.links.v[4].dim = 2;
	ti.dims = 3;
	t_run(&r);
	assert_int_equal(col_metrics_build(&r, NULL, NULL, &m, &d), 0);
	assert_int_equal(col_plot_run(&p, &r, &m, &ti, "t", COL_CLOCK_EMULATED), 0);
	assert_non_null(strstr(t_file(&p, "util_dim.gp")->text, "title 'dim 2'"));
	assert_true(!strncmp(t_file(&p, "util_groups.dat")->text, "0.05 0.25 - 1\n", 14));
	col_plots_done(&p);
	assert_int_equal(col_plot_run(&p, &r, &m, &none, "t", COL_CLOCK_EMULATED), 0);
	assert_int_equal(p.files.n, 4); /* FCT and JCT only */
	col_plots_done(&p);
	col_metrics_done(&m);
	rec_run_done(&r);
	col_topo_info_done(&ti);
}

/* Whether plot `name` was left out, with a reason containing why. */
static bool t_skipped(const struct col_plots *p, const char *name, const char *why)
{
	size_t i;

	for (i = 0; i < p->skipped.n; i++)
		if (!strcmp(p->skipped.v[i].name, name))
			return strstr(p->skipped.v[i].why, why) != NULL;
	return false;
}

static bool t_has(const struct col_plots *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->files.n; i++)
		if (!strcmp(p->files.v[i].name, name))
			return true;
	return false;
}

/* Axes name the clock: virtual seconds under testbed sim; emulated seconds for link times and
 * paper seconds for job and flow times under testbed up. */
static void test_plot_clock(void **state)
{
	static const char *const gp[] = {"util_heatmap.gp", "util_tier.gp", "fct_cdf.gp", "jct.gp"};
	struct col_topo_info ti;
	struct col_metrics m;
	struct col_plots p = {0};
	struct rec_run r;
	struct diag d = {0};
	size_t i;

	(void)state;
	assert_int_equal(col_clock_of("sim"), COL_CLOCK_VIRTUAL);
	assert_int_equal(col_clock_of("emulation"), COL_CLOCK_EMULATED);
	assert_int_equal(col_clock_of(NULL), COL_CLOCK_EMULATED);
	assert_string_equal(col_clock_unit(COL_CLOCK_VIRTUAL, true), "virtual seconds");
	assert_string_equal(col_clock_unit(COL_CLOCK_EMULATED, false), "emulated seconds");
	assert_string_equal(col_clock_unit(COL_CLOCK_EMULATED, true), "paper seconds");
	t_info(&ti, NULL);
	t_run(&r);
	assert_int_equal(col_metrics_build(&r, NULL, NULL, &m, &d), 0);
	assert_int_equal(col_plot_run(&p, &r, &m, &ti, "t", COL_CLOCK_VIRTUAL), 0);
	for (i = 0; i < sizeof(gp) / sizeof(gp[0]); i++) {
		assert_non_null(strstr(t_file(&p, gp[i])->text, "virtual seconds"));
		assert_null(strstr(t_file(&p, gp[i])->text, "emulated"));
		assert_null(strstr(t_file(&p, gp[i])->text, "paper"));
	}
	assert_non_null(strstr(t_file(&p, "util_heatmap.gp")->text,
			       "set xlabel 'time (virtual seconds; 10 bins of 100 ms)'"));
	col_plots_done(&p);
	assert_int_equal(col_plot_run(&p, &r, &m, &ti, "t", COL_CLOCK_EMULATED), 0);
	assert_non_null(strstr(t_file(&p, "util_heatmap.gp")->text, "time (emulated seconds;"));
	assert_non_null(strstr(t_file(&p, "util_tier.gp")->text, "time (emulated seconds)"));
	assert_non_null(strstr(t_file(&p, "fct_cdf.gp")->text, "(paper seconds, log scale)"));
	assert_non_null(strstr(t_file(&p, "jct.gp")->text, "set ylabel 'paper seconds'"));
	for (i = 0; i < sizeof(gp) / sizeof(gp[0]); i++)
		assert_null(strstr(t_file(&p, gp[i])->text, "virtual"));
	col_plots_done(&p);
	col_metrics_done(&m);
	rec_run_done(&r);
	col_topo_info_done(&ti);
}

/* A plot that would be empty is not made, and says why: links sampled at the start and the
 * end only (one bin: no heatmap, no line), one flow (a CDF of one value), no jobs (no bars);
 * links not sampled at all, no flows. */
static void test_plot_empty(void **state)
{
	struct col_topo_info ti;
	struct col_metrics m;
	struct col_plots p = {0};
	struct rec_run r;
	struct diag d = {0};
	size_t i, w = 0;

	(void)state;
	t_info(&ti, NULL);
	t_run(&r);
	for (i = 0; i < r.samples.n; i++) /* 0 and 1 s only: one interval */
		if (r.samples.v[i].t == 0 || r.samples.v[i].t == S)
			r.samples.v[w++] = r.samples.v[i];
	r.samples.n = w;
	r.flows.n = 1;
	r.jobs.n = 0;
	assert_int_equal(col_metrics_build(&r, NULL, NULL, &m, &d), 0);
	assert_int_equal(col_plot_run(&p, &r, &m, &ti, "t", COL_CLOCK_VIRTUAL), 0);
	assert_int_equal(p.files.n, 0);
	assert_int_equal(p.skipped.n, 4);
	assert_true(t_skipped(&p, "util_heatmap",
			      "a single time bin: the link counters were read only at the start "
			      "and the end of the run (1 s)"));
	assert_true(t_skipped(&p, "util_tier", "run.sample_interval"));
	assert_true(t_skipped(&p, "fct_cdf", "only one flow completed"));
	assert_true(t_skipped(&p, "jct", "there are no jobs"));
	col_plots_done(&p);
	col_metrics_done(&m);
	r.samples.n = 0;
	r.flows.n = 0;
	assert_int_equal(col_metrics_build(&r, NULL, NULL, &m, &d), 0);
	assert_int_equal(col_plot_run(&p, &r, &m, &ti, "t", COL_CLOCK_EMULATED), 0);
	assert_true(t_skipped(&p, "util_heatmap", "not sampled (run.sample_interval is 0)"));
	assert_true(t_skipped(&p, "fct_cdf", "no flow completed"));
	assert_false(t_has(&p, "util_tier.gp"));
	col_plots_done(&p);
	col_metrics_done(&m);
	rec_run_done(&r);
	col_topo_info_done(&ti);
}

static void test_sweep_plots_and_json(void **state)
{
	struct col_sweep_run sr[3] = {{0, 1, {0}, 0}, {1, 1, {0}, 0}, {1, 2, {0}, 0}};
	const struct col_metrics *mm[3];
	struct col_plot_variant v[2] = {{"base", mm, 1, {0}}, {"other", mm + 1, 2, {0}}};
	const char *const names[2] = {"base", "other"};
	struct col_metrics m[3];
	struct col_plots p = {0};
	struct col_sweep cs;
	struct rec_run r[3];
	struct diag d = {0};
	json_t *j, *c;
	int i, k;

	(void)state;
	for (i = 0; i < 3; i++) {
		t_run(&r[i]);
		r[i].jobs.v[0].finish = (i + 1) * S; /* JCT 1, 2, 3 s = 0.1, 0.2, 0.3 paper s */
		assert_int_equal(col_metrics_build(&r[i], NULL, NULL, &m[i], &d), 0);
		mm[i] = &m[i];
		assert_int_equal(col_fcts_add(&v[i > 0].fct, &r[i], &m[i]), 0);
		for (k = 0; k < COL_M_N; k++)
			sr[i].v[k] = NAN;
		sr[i].v[COL_M_AVG_JCT] = col_paper_s(&m[i], m[i].totals.avg_jct);
	}
	assert_int_equal(col_plot_sweep(&p, v, 2, "t sweep", COL_CLOCK_EMULATED), 0);
	assert_int_equal(p.files.n, 4);
	assert_string_equal(t_file(&p, "jct.dat")->text, "3 0.1 0.25\n5* - -\n");
	assert_non_null(strstr(t_file(&p, "jct.gp")->text, "title 'other'"));
	assert_non_null(strstr(t_file(&p, "fct_cdf.gp")->text, "index 1 using 1:2"));
	/* each run's 50 FCTs (1..50 ms, dilation 10): "other" has both of its runs' */
	assert_non_null(strstr(t_file(&p, "fct_cdf.dat")->text, "# base\n0.0001 0.02\n"));
	assert_non_null(strstr(t_file(&p, "fct_cdf.dat")->text,
			       "# other\n0.0001 0.01\n0.0001 0.02\n0.0002 0.03\n"));
	assert_non_null(strstr(t_file(&p, "fct_cdf.dat")->text, "\n0.005 1\n\n\n"));
	col_plots_done(&p);
	vec_free(&v[0].fct);
	vec_free(&v[1].fct);
	assert_int_equal(col_sweep_build(sr, 3, &cs, &d), 0);
	j = col_sweep_json(&cs, names);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), COL_SWEEP_SCHEMA);
	assert_string_equal(json_string_value(json_object_get(j, "baseline")), "base");
	c = json_object_get(
		json_object_get(json_array_get(json_object_get(j, "variants"), 1), "metrics"),
		"avg_jct");
	assert_float_equal(json_real_value(json_object_get(c, "ratio")), 2.5, 1e-12);
	assert_float_equal(json_real_value(json_object_get(c, "min")), 2, 1e-12);
	assert_float_equal(json_real_value(json_object_get(c, "max")), 3, 1e-12);
	assert_true(json_is_null(json_object_get(
		json_object_get(json_object_get(json_array_get(json_object_get(j, "variants"), 1),
						"metrics"),
				"busbw"),
		"ratio")));
	json_decref(j);
	col_sweep_done(&cs);
	for (i = 0; i < 3; i++) {
		col_metrics_done(&m[i]);
		rec_run_done(&r[i]);
	}
}

/* A direction backlogged at half its rate is judged slow out of a switch, not out of an
 * endpoint, whose queue its own TCP fills in GSO packets. */
static void test_fidelity_endpoint(void **state)
{
	struct col_topo_info ti;
	struct col_links_cfg lc;
	struct col_metrics m;
	struct rec_run r = {.dilation = 1, .t_end = S};
	struct diag d = {0};
	int64_t k;

	(void)state;
	t_info(&ti, NULL);
	for (k = 0; k <= 10; k++) {
		struct rec_sample h = {k * S / 10, 0, 0, (uint64_t)k * 12500000, 0, 0, 68130};
		struct rec_sample l = {k * S / 10, 0, 1, (uint64_t)k * 12500000, 0, 0, 68130};

		vec_push(&r.samples, h); /* h0 -> l0 at 2 Gbit/s: 50% */
		vec_push(&r.samples, l); /* l0 -> h0 */
	}
	lc = col_topo_links_cfg(&ti);
	assert_int_equal(col_metrics_build(&r, &lc, NULL, &m, &d), 0);
	assert_true(m.fid.degraded);
	assert_int_equal(m.fid.reasons.n, 1);
	assert_int_equal(m.fid.reasons.v[0].kind, COL_FID_BACKLOG_SLOW);
	assert_int_equal(m.fid.reasons.v[0].dir, 1);
	assert_float_equal(m.fid.reasons.v[0].value, 0.5, 1e-9);
	col_metrics_done(&m);
	rec_run_done(&r);
	col_topo_info_done(&ti);
}

static void test_text(void **state)
{
	struct col_text t = {0};
	size_t len, i;
	char *s;

	(void)state;
	for (i = 0; i < 1000; i++)
		col_text_printf(&t, "%04zu,", i);
	s = col_text_take(&t, &len);
	assert_int_equal(len, 5000);
	assert_int_equal(strlen(s), 5000);
	assert_true(!strncmp(s + 4995, "0999,", 5));
	free(s);
	assert_null(t.s);
	s = col_text_take(&t, &len); /* nothing written: an empty string */
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topo_json),
		cmocka_unit_test(test_topo_json_refusals),
		cmocka_unit_test(test_run_plots),
		cmocka_unit_test(test_dims_and_none),
		cmocka_unit_test(test_plot_clock),
		cmocka_unit_test(test_plot_empty),
		cmocka_unit_test(test_sweep_plots_and_json),
		cmocka_unit_test(test_fidelity_endpoint),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
