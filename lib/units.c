// SPDX-License-Identifier: MIT
/* Parsing and printing of rates, sizes and times with units; exact decimal arithmetic. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/units.h"

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit rate_units[] = {
	{"bit", 1ULL},
	{"Kbit", 1000ULL},
	{"kbit", 1000ULL},
	{"Mbit", 1000000ULL},
	{"mbit", 1000000ULL},
	{"Gbit", 1000000000ULL},
	{"gbit", 1000000000ULL},
	{"Tbit", 1000000000000ULL},
	{"tbit", 1000000000000ULL},
	{NULL, 0},
};

static const struct unit size_units[] = {
	{"B", 1ULL},
	{"KB", 1000ULL},
	{"MB", 1000000ULL},
	{"GB", 1000000000ULL},
	{"TB", 1000000000000ULL},
	{"KiB", 1ULL << 10},
	{"MiB", 1ULL << 20},
	{"GiB", 1ULL << 30},
	{"TiB", 1ULL << 40},
	{NULL, 0},
};

static const struct unit time_units[] = {
	{"ns", 1ULL},
	{"us", 1000ULL},
	{"ms", 1000000ULL},
	{"s", 1000000000ULL},
	{"min", 60000000000ULL},
	{"h", 3600000000000ULL},
	{NULL, 0},
};

/* Splits "12.5Gbit" into mantissa 125, scale 10 and the unit "Gbit". */
static int split_number(const char *s, uint64_t *mant, uint64_t *scale, const char **unit)
{
	uint64_t m = 0, sc = 1;
	int digits = 0, frac = 0;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			if (m > (UINT64_MAX - (uint64_t)(*s - '0')) / 10 || sc > UINT64_MAX / 10)
				return -ERANGE;
			m = m * 10 + (uint64_t)(*s - '0');
			if (frac)
				sc *= 10;
			digits++;
		} else if (*s == '.' && !frac) {
			frac = 1;
		} else {
			break;
		}
	}
	if (!digits)
		return -EINVAL;
	*mant = m;
	*scale = sc;
	*unit = s;
	return 0;
}

static int parse_with(const char *s, const struct unit *units, const char *opt_suffix,
		      uint64_t *out)
{
	uint64_t mant, scale, v;
	const char *unit;
	size_t ulen;
	int r;

	if (!s)
		return -EINVAL;
	r = split_number(s, &mant, &scale, &unit);
	if (r)
		return r;
	if (!*unit) {
		if (mant != 0)
			return -EINVAL;
		*out = 0;
		return 0;
	}
	ulen = strlen(unit);
	if (opt_suffix && ulen > strlen(opt_suffix) &&
	    !strcmp(unit + ulen - strlen(opt_suffix), opt_suffix))
		ulen -= strlen(opt_suffix);
	for (; units->name; units++) {
		if (strlen(units->name) != ulen || strncmp(units->name, unit, ulen))
			continue;
		if (mant > UINT64_MAX / units->mult)
			return -ERANGE;
		v = mant * units->mult;
		if (v % scale)
			return -EINVAL; /* finer than the base unit */
		*out = v / scale;
		return 0;
	}
	return -EINVAL;
}

int units_parse_rate(const char *s, uint64_t *bps)
{
	return parse_with(s, rate_units, "/s", bps);
}

int units_parse_size(const char *s, uint64_t *bytes)
{
	return parse_with(s, size_units, NULL, bytes);
}

int units_parse_time(const char *s, uint64_t *ns)
{
	return parse_with(s, time_units, NULL, ns);
}

const char *units_rate_hint(const char *s)
{
	if (s && strstr(s, "bps"))
		return "write rates in bits, such as 100Gbit or 400Mbit (tc reads 'bps' as bytes "
		       "per second)";
	return "a rate with a unit, such as 100Gbit or 400Mbit";
}

/* Prints v/div with up to three decimals, trimming trailing zeros. */
static char *fmt_scaled(char *buf, size_t len, uint64_t v, uint64_t div, const char *unit)
{
	uint64_t whole = v / div, rem = v % div;
	unsigned frac = (unsigned)((rem * 1000 + div / 2) / div);
	char num[32];
	int n;

	if (frac == 1000) {
		whole++;
		frac = 0;
	}
	if (!frac) {
		snprintf(buf, len, "%llu%s", (unsigned long long)whole, unit);
		return buf;
	}
	/* trimmed in a scratch buffer: writing after a truncated number would overrun buf */
	n = snprintf(num, sizeof(num), "%llu.%03u", (unsigned long long)whole, frac);
	while (n > 0 && num[n - 1] == '0')
		num[--n] = '\0';
	snprintf(buf, len, "%s%s", num, unit);
	return buf;
}

static char *fmt_with(char *buf, size_t len, uint64_t v, const struct unit *u, size_t nu)
{
	size_t i;

	for (i = nu; i-- > 1;)
		if (v >= u[i].mult)
			return fmt_scaled(buf, len, v, u[i].mult, u[i].name);
	return fmt_scaled(buf, len, v, u[0].mult, u[0].name);
}

char *units_fmt_rate(char *buf, size_t len, uint64_t bps)
{
	static const struct unit u[] = {{"bit", 1ULL},
					{"Kbit", 1000ULL},
					{"Mbit", 1000000ULL},
					{"Gbit", 1000000000ULL},
					{"Tbit", 1000000000000ULL}};
	return fmt_with(buf, len, bps, u, 5);
}

char *units_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const struct unit u[] = {{"B", 1ULL},
					{"KiB", 1ULL << 10},
					{"MiB", 1ULL << 20},
					{"GiB", 1ULL << 30},
					{"TiB", 1ULL << 40}};
	return fmt_with(buf, len, bytes, u, 5);
}

char *units_fmt_time(char *buf, size_t len, uint64_t ns)
{
	static const struct unit u[] = {
		{"ns", 1ULL}, {"us", 1000ULL}, {"ms", 1000000ULL}, {"s", 1000000000ULL}};
	return fmt_with(buf, len, ns, u, 4);
}
