// SPDX-License-Identifier: MIT
/* Independent work over threads (kernel/par.h): every index done exactly once, whatever
 * the count (none, fewer than a thread's share, not a multiple of the threads), and an error
 * returned. test_sim_exec runs a simulated job's plans under it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/par.h"

struct t_count {
	uint32_t *hits;
	uint32_t fail_at; /* an index whose call fails, UINT32_MAX: none */
	int err;
};

static int t_hit(void *arg, uint32_t i)
{
	struct t_count *c = arg;

	c->hits[i]++;
	return i == c->fail_at ? c->err : 0;
}

static void test_each_once(void **state)
{
	static const uint32_t sizes[] = {0, 1, 63, 64, 65, 1000, 1024, 100003};
	struct t_count c = {.fail_at = UINT32_MAX};
	size_t s;
	uint32_t i;

	(void)state;
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		c.hits = calloc(sizes[s] + 1, sizeof(*c.hits));
		assert_non_null(c.hits);
		assert_int_equal(par_each(sizes[s], t_hit, &c), 0);
		for (i = 0; i < sizes[s]; i++)
			assert_int_equal(c.hits[i], 1);
		assert_int_equal(c.hits[sizes[s]], 0);
		free(c.hits);
	}
}

/* A failing call is reported; its range stops there, the others may run to their end. */
static void test_error(void **state)
{
	struct t_count c = {.fail_at = 700, .err = -ENOMEM};
	uint32_t i;

	(void)state;
	c.hits = calloc(1000, sizeof(*c.hits));
	assert_non_null(c.hits);
	assert_int_equal(par_each(1000, t_hit, &c), -ENOMEM);
	assert_int_equal(c.hits[700], 1);
	for (i = 0; i < 1000; i++)
		assert_true(c.hits[i] <= 1);
	c.fail_at = 5; /* below the size one thread does alone */
	memset(c.hits, 0, 1000 * sizeof(*c.hits));
	assert_int_equal(par_each(10, t_hit, &c), -ENOMEM);
	assert_int_equal(c.hits[6], 0);
	free(c.hits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_once),
		cmocka_unit_test(test_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
