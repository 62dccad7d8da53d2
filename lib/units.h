/* SPDX-License-Identifier: MIT */
/* Quantities with units, as written in scenarios: rates (100Gbit), sizes (64MiB), times (50ms). */
#ifndef LIB_UNITS_H
#define LIB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Each parser returns 0 and stores the value, or -EINVAL (unknown unit, malformed number)
 * or -ERANGE (overflow) and leaves *out alone. "0" alone is accepted for all three.
 * Rates: bit Kbit Mbit Gbit Tbit (decimal, optional "/s"), result in bit/s.
 * Sizes: B KB MB GB TB (decimal), KiB MiB GiB TiB (binary), result in bytes.
 * Times: ns us ms s min h, result in nanoseconds. Fractions are allowed (1.5Gbit). */
int units_parse_rate(const char *s, uint64_t *bps);
int units_parse_size(const char *s, uint64_t *bytes);
int units_parse_time(const char *s, uint64_t *ns);

/* A hint on what a rejected string should look like, for error messages. */
const char *units_rate_hint(const char *s);

/* Human-readable forms ("1.5Gbit", "64MiB", "50ms"), written into buf; return buf. */
char *units_fmt_rate(char *buf, size_t len, uint64_t bps);
char *units_fmt_size(char *buf, size_t len, uint64_t bytes);
char *units_fmt_time(char *buf, size_t len, uint64_t ns);

#endif
