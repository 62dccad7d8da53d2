// SPDX-License-Identifier: MIT
/* `testbed reproduce`'s catalogue and report (report/repro.c): every item names a
 * known paper and a scenario that exists, every paper has a --quick item, the catalogue fits
 * its room; the selection by paper and --quick, an unknown paper refused with the known ones;
 * the backend an item runs on; and the report: the summary's verdicts, the paper's figure
 * beside the measured one with their ratio, "-" where the paper gives none. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "report/repro.h"

static void test_catalogue(void **state)
{
	char path[256];
	struct stat st;
	size_t i, p;

	(void)state;
	assert_true(repro_nitems <= REPRO_ITEMS_MAX);
	for (i = 0; i < repro_nitems; i++) {
		const struct repro_item *it = &repro_items[i];

		assert_non_null(repro_paper_find(it->paper));
		assert_int_not_equal(it->full, REPRO_NONE);
		snprintf(path, sizeof(path), "scenarios/%s", it->file);
		if (stat(path, &st))
			fail_msg("%s: no such scenario", path);
		assert_non_null(it->metric);
	}
	for (p = 0; p < repro_npapers; p++) {
		for (i = 0; i < repro_nitems; i++)
			if (!strcmp(repro_items[i].paper, repro_papers[p].id) &&
			    repro_items[i].quick != REPRO_NONE)
				break;
		if (i == repro_nitems)
			fail_msg("%s has no --quick scenario", repro_papers[p].id);
	}
}

static void test_select(void **state)
{
	const char *themis[] = {"themis"}, *two[] = {"tacos", "vclos"},
		   *bad[] = {"tacos", "themsi"};
	uint32_t idx[REPRO_ITEMS_MAX];
	struct diag d = {0};
	size_t n, i, q;

	(void)state;
	assert_int_equal(repro_select(NULL, 0, false, idx, &n, &d), 0);
	assert_int_equal(n, repro_nitems);
	for (i = 0; i < n; i++)
		assert_int_equal(idx[i], i); /* catalogue order */
	assert_int_equal(repro_select(themis, 1, false, idx, &n, &d), 0);
	assert_true(n >= 10);
	for (i = 0; i < n; i++)
		assert_string_equal(repro_items[idx[i]].paper, "themis");
	assert_int_equal(repro_select(two, 2, true, idx, &n, &d), 0);
	assert_int_equal(n, 2); /* one quick scenario each */
	for (i = 0; i < n; i++)
		assert_int_not_equal(repro_items[idx[i]].quick, REPRO_NONE);
	assert_int_equal(repro_select(NULL, 0, true, idx, &q, &d), 0);
	assert_true(q >= repro_npapers && q < repro_nitems);
	assert_int_equal(repro_select(bad, 2, false, idx, &n, &d), -EINVAL);
	assert_string_equal(
		d.msg, "unknown paper 'themsi' (known: greedy, vclos, tacos, themis, hammingmesh)");
	assert_int_equal(n, 0);
}

static void test_backend(void **state)
{
	const struct repro_item it = {"themis", "x.yaml", REPRO_UP, REPRO_SIM, "avg_comm", "x"};

	(void)state;
	assert_int_equal(repro_backend_of(&it, false, false), REPRO_UP);
	assert_int_equal(repro_backend_of(&it, true, false), REPRO_SIM);
	assert_int_equal(repro_backend_of(&it, false, true), REPRO_SIM);
	assert_true(repro_row_wanted(&it, "avg_comm", NAN));
	assert_false(repro_row_wanted(&it, "avg_jct", NAN));
	assert_true(repro_row_wanted(&it, "avg_jct", 0.5));
}

static void test_report(void **state)
{
	static const struct repro_item a = {"themis", "themis-s2.yaml", REPRO_UP,
					    REPRO_UP, "avg_comm",	"S2"};
	static const struct repro_item b = {"tacos",	"tacos-fail.yaml", REPRO_UP,
					    REPRO_NONE, "avg_comm",	   "Table III"};
	static const struct repro_item c = {"tacos",	"tacos-swsw.yaml", REPRO_UP,
					    REPRO_NONE, "avg_comm",	   "Fig. 19"};
	struct repro_result res[3];
	struct repro_row *w;
	char *text = NULL, v[96];
	size_t len = 0;
	FILE *f;

	(void)state;
	memset(res, 0, sizeof(res));
	res[0] = (struct repro_result){.it = &a, .be = REPRO_UP, .runs = 3, .ok = 3, .degraded = 1};
	snprintf(res[0].dir, sizeof(res[0].dir), "themis/themis-s2/x-sweep");
	w = vec_grow(&res[0].rows);
	assert_non_null(w);
	*w = (struct repro_row){"intra=scf", "avg_comm", 0.42, 0.418};
	w = vec_grow(&res[0].rows);
	assert_non_null(w);
	*w = (struct repro_row){"baseline", "avg_comm", 1, NAN};
	res[1] = (struct repro_result){.it = &b, .be = REPRO_UP, .status = 1, .runs = 3, .ok = 1};
	res[2] = (struct repro_result){.it = &c, .be = REPRO_SIM, .status = -1};
	repro_verdict(&res[0], v, sizeof(v));
	assert_string_equal(v, "3 runs ok, 1 degraded by the machine");
	repro_verdict(&res[1], v, sizeof(v));
	assert_string_equal(v, "2 of 3 runs failed");
	repro_verdict(&res[2], v, sizeof(v));
	assert_string_equal(v, "not run");

	f = open_memstream(&text, &len);
	assert_non_null(f);
	repro_report(f, "header", res, 3);
	fclose(f);
	assert_non_null(strstr(text, "# Reproduction report\n\nheader\n"));
	assert_non_null(strstr(text, "| themis | `themis-s2.yaml` | emulated | 3 runs ok, 1 "
				     "degraded by the machine |"));
	assert_non_null(strstr(text, "| tacos | `tacos-swsw.yaml` | virtual time | not run |"));
	assert_non_null(strstr(text, "| intra=scf | avg_comm | 0.418 | 0.42 | 1.005 |"));
	assert_non_null(strstr(text, "| baseline | avg_comm | - | 1 | - |"));
	assert_non_null(strstr(text, "[comparison](themis/themis-s2/x-sweep/comparison.txt)"));
	/* papers in catalogue order, each once: TACOS before Themis */
	assert_true(strstr(text, "## TACOS") < strstr(text, "## Themis"));
	assert_null(strstr(strstr(text, "## TACOS") + 1, "## TACOS"));
	free(text);
	vec_free(&res[0].rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_backend),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
