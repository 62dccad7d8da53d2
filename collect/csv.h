/* SPDX-License-Identifier: MIT */
/* Internal to collect/: a bounded text writer that counts what it needed (as snprintf does),
 * and RFC 4180 CSV fields written and read through it. Errors are sticky: the readers return
 * 0 after a failure and col_csv_r_end reports it once. */
#ifndef COLLECT_CSV_H
#define COLLECT_CSV_H

#include <stddef.h>
#include <stdint.h>

struct col_out {
	char *buf;
	size_t len; /* capacity, NUL included */
	size_t need; /* bytes written or wanted so far, NUL excluded */
};

void col_out_init(struct col_out *o, char *buf, size_t len);
void col_out_printf(struct col_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void col_out_putc(struct col_out *o, char c);
/* The length needed, as an int (INT_MAX if more). */
int col_out_ret(const struct col_out *o);

struct col_csv_w {
	struct col_out o;
	unsigned nf; /* fields written on this line */
};

void col_csv_w_init(struct col_csv_w *w, char *buf, size_t len);
void col_csv_u64(struct col_csv_w *w, uint64_t v);
void col_csv_time(struct col_csv_w *w, int64_t t); /* REC_NEVER: empty */
void col_csv_dbl(struct col_csv_w *w, double v); /* %.17g: reads back exactly */
void col_csv_str(struct col_csv_w *w, const char *s, size_t max); /* quoted if needed */
/* Ends the line; returns the length needed. */
int col_csv_w_end(struct col_csv_w *w);

struct col_csv_r {
	const char *p;
	int err;
	int at_end; /* the last field read ended the record */
};

void col_csv_r_init(struct col_csv_r *r, const char *line);
uint32_t col_csv_get_u32(struct col_csv_r *r);
uint64_t col_csv_get_u64(struct col_csv_r *r);
int64_t col_csv_get_time(struct col_csv_r *r);
double col_csv_get_dbl(struct col_csv_r *r);
void col_csv_get_str(struct col_csv_r *r, char *out, size_t cap);
/* Index of the field's text in names[0..n), or 0 with an error. */
unsigned col_csv_get_name(struct col_csv_r *r, const char *const *names, unsigned n);
/* 0 if every field parsed and the record ended after the last one, else -EINVAL. */
int col_csv_r_end(struct col_csv_r *r);

#endif
