// SPDX-License-Identifier: MIT
/* lib/units: rates, sizes and times, parsed and printed; refusals leave the output alone. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lib/units.h"

struct t_case {
	const char *text;
	int ret;
	uint64_t value; /* when ret is 0 */
};

#define T_UNTOUCHED 0x5a5a5a5a5a5a5a5aULL

static void t_run(int (*parse)(const char *, uint64_t *), const struct t_case *c, size_t n)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < n; i++) {
		v = T_UNTOUCHED;
		if (parse(c[i].text, &v) != c[i].ret || v != (c[i].ret ? T_UNTOUCHED : c[i].value))
			fail_msg("'%s': got %d %llu, want %d %llu", c[i].text, parse(c[i].text, &v),
				 (unsigned long long)v, c[i].ret, (unsigned long long)c[i].value);
	}
}

static void test_rates(void **state)
{
	static const struct t_case c[] = {
		{"100Gbit", 0, 100000000000ULL},
		{"100Gbit/s", 0, 100000000000ULL},
		{"400Mbit", 0, 400000000ULL},
		{"1.5Gbit", 0, 1500000000ULL},
		{"0.001Gbit", 0, 1000000ULL},
		{"1kbit", 0, 1000ULL},
		{"1Kbit", 0, 1000ULL},
		{"2tbit", 0, 2000000000000ULL},
		{"7bit", 0, 7ULL},
		{"0", 0, 0},
		{"0Gbit", 0, 0},
		{".5Mbit", 0, 500000ULL},
		{"18446744073709551615bit", 0, UINT64_MAX},
		{"18446744073709551616bit", -ERANGE, 0},
		{"18446744073.709551616Gbit", -ERANGE, 0},
		{"20000000Tbit", -ERANGE, 0},
		{"100", -EINVAL, 0},
		{"100Gbps", -EINVAL, 0},
		{"100gbps", -EINVAL, 0},
		{"1.5bit", -EINVAL, 0},
		{"-1Gbit", -EINVAL, 0},
		{"+1Gbit", -EINVAL, 0},
		{"1 Gbit", -EINVAL, 0},
		{"1Gbit ", -EINVAL, 0},
		{"1Gbit/", -EINVAL, 0},
		{"/s", -EINVAL, 0},
		{"Gbit", -EINVAL, 0},
		{".", -EINVAL, 0},
		{"1..5Gbit", -EINVAL, 0},
		{"1e9bit", -EINVAL, 0},
		{"", -EINVAL, 0},
		{NULL, -EINVAL, 0},
	};

	(void)state;
	t_run(units_parse_rate, c, sizeof(c) / sizeof(c[0]));
}

static void test_sizes(void **state)
{
	static const struct t_case c[] = {
		{"64MiB", 0, 64ULL << 20},   {"1GB", 0, 1000000000ULL}, {"1.5KiB", 0, 1536ULL},
		{"1TiB", 0, 1ULL << 40},     {"12B", 0, 12ULL},		{"0", 0, 0},
		{"16777216TiB", -ERANGE, 0}, {"0.5B", -EINVAL, 0},	{"1kb", -EINVAL, 0},
		{"1MB/s", -EINVAL, 0},	     {"64", -EINVAL, 0},	{"64 MiB", -EINVAL, 0},
	};

	(void)state;
	t_run(units_parse_size, c, sizeof(c) / sizeof(c[0]));
}

static void test_times(void **state)
{
	static const struct t_case c[] = {
		{"50ms", 0, 50000000ULL},     {"1.5s", 0, 1500000000ULL},
		{"2min", 0, 120000000000ULL}, {"1h", 0, 3600000000000ULL},
		{"10us", 0, 10000ULL},	      {"3ns", 0, 3ULL},
		{"0.5us", 0, 500ULL},	      {"0", 0, 0},
		{"1.5ns", -EINVAL, 0},	      {"50msec", -EINVAL, 0},
		{"1m", -EINVAL, 0},	      {"50", -EINVAL, 0},
		{"9999999h", -ERANGE, 0},
	};

	(void)state;
	t_run(units_parse_time, c, sizeof(c) / sizeof(c[0]));
}

static void test_rate_hint(void **state)
{
	(void)state;
	assert_non_null(strstr(units_rate_hint("100Gbps"), "bytes"));
	assert_non_null(strstr(units_rate_hint("100Mbps"), "100Gbit"));
	assert_null(strstr(units_rate_hint("100"), "bytes"));
	assert_non_null(strstr(units_rate_hint(NULL), "Gbit"));
}

static void test_format(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(units_fmt_rate(b, sizeof(b), 1500000000ULL), "1.5Gbit");
	assert_string_equal(units_fmt_rate(b, sizeof(b), 100000000000ULL), "100Gbit");
	assert_string_equal(units_fmt_rate(b, sizeof(b), 400000000ULL), "400Mbit");
	assert_string_equal(units_fmt_rate(b, sizeof(b), 1234567ULL), "1.235Mbit");
	assert_string_equal(units_fmt_rate(b, sizeof(b), 999ULL), "999bit");
	assert_string_equal(units_fmt_rate(b, sizeof(b), 0), "0bit");
	assert_string_equal(units_fmt_rate(b, sizeof(b), 1999999ULL), "2Mbit");
	assert_string_equal(units_fmt_rate(b, sizeof(b), UINT64_MAX), "18446744.074Tbit");
	assert_string_equal(units_fmt_size(b, sizeof(b), 64ULL << 20), "64MiB");
	assert_string_equal(units_fmt_size(b, sizeof(b), 1536), "1.5KiB");
	assert_string_equal(units_fmt_size(b, sizeof(b), 1000), "1000B");
	assert_string_equal(units_fmt_time(b, sizeof(b), 50000000ULL), "50ms");
	assert_string_equal(units_fmt_time(b, sizeof(b), 1500000000ULL), "1.5s");
	assert_string_equal(units_fmt_time(b, sizeof(b), 120000000000ULL), "120s");
	assert_string_equal(units_fmt_time(b, sizeof(b), 1), "1ns");
}

/* Printing then parsing gives the value back whenever the print is exact. */
static void test_round_trip(void **state)
{
	static const uint64_t rates[] = {1, 1000, 1500, 2500000, 100000000000ULL, 1250000000000ULL};
	uint64_t v;
	char b[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		assert_int_equal(units_parse_rate(units_fmt_rate(b, sizeof(b), rates[i]), &v), 0);
		assert_int_equal(v, rates[i]);
	}
	assert_int_equal(units_parse_size(units_fmt_size(b, sizeof(b), 3ULL << 29), &v), 0);
	assert_int_equal(v, 3ULL << 29);
	assert_int_equal(units_parse_time(units_fmt_time(b, sizeof(b), 250000), &v), 0);
	assert_int_equal(v, 250000);
}

/* A short buffer gets the printed form cut short and terminated, never overrun. */
static void test_format_short_buffer(void **state)
{
	char b[16];
	size_t len;

	(void)state;
	for (len = 1; len < 10; len++) {
		memset(b, '#', sizeof(b));
		units_fmt_rate(b, len, 1500000000ULL);
		assert_memory_equal(b, "1.5Gbit", strlen(b));
		assert_int_equal(strlen(b), len - 1 < 7 ? len - 1 : 7);
		assert_int_equal(b[len], '#');
		memset(b, '#', sizeof(b));
		units_fmt_time(b, len, 1500000000ULL);
		assert_int_equal(strlen(b), len - 1 < 4 ? len - 1 : 4);
		assert_int_equal(b[len], '#');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_rate_hint),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_format_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
