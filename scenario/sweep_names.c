// SPDX-License-Identifier: MIT
/* A sweep's runs and their names (scenario_sweep.h): the values each run takes, the variant
 * each is compared with, and the labels the reports show. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario_sweep.h"
#include "scenario/scenario_yaml.h"

void exp_sweep_choice(const struct exp_sweep *s, uint32_t k, uint32_t *choice)
{
	uint32_t v = s->seeds ? k / s->seeds : 0, sd = s->seeds ? k % s->seeds : 0;
	size_t i;

	for (i = s->axes.n; i-- > 0;) {
		uint32_t n = (uint32_t)s->axes.v[i].values.n, *x = s->axes.v[i].seed ? &sd : &v;

		choice[i] = *x % n;
		*x /= n;
	}
}

uint32_t exp_sweep_baseline(const struct exp_sweep *s, uint32_t v)
{
	uint32_t stride = 1, n;
	size_t i;

	if (!s->base_given)
		return 0;
	for (i = s->axes.n; i-- > s->base_axis + 1;) /* the compared axes varying faster */
		if (!s->axes.v[i].seed)
			stride *= (uint32_t)s->axes.v[i].values.n;
	n = (uint32_t)s->axes.v[s->base_axis].values.n;
	return v - v / stride % n * stride + s->base_value * stride;
}

/* The path's last component, or the whole path if another axis ends the same way. */
static const char *short_name(const struct exp_sweep *s, size_t i)
{
	const char *p = s->axes.v[i].path, *dot = strrchr(p, '.'), *last = dot ? dot + 1 : p;
	const char *o, *od;
	size_t k;

	for (k = 0; k < s->axes.n; k++) {
		o = s->axes.v[k].path;
		od = strrchr(o, '.');
		if (k != i && !strcmp(od ? od + 1 : o, last))
			return p;
	}
	return last;
}

/* Axis i at value k as labels show it ("spines=4", a case's own label), after a space unless
 * at o == 0; the length it needed, as snprintf. */
static size_t axis_label(const struct exp_sweep *s, size_t i, uint32_t k, char *buf, size_t o,
			 size_t len)
{
	const struct exp_sweep_axis *a = &s->axes.v[i];

	if (a->cases)
		return (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", a->values.v[k]);
	return (size_t)snprintf(buf + o, len - o, "%s%s=%s", o ? " " : "", short_name(s, i),
				a->values.v[k]);
}

/* The labels of choice's axes that are seeds (or compared ones), but axis skip; the length. */
static size_t labels(const struct exp_sweep *s, const uint32_t *choice, bool seed, size_t skip,
		     char *buf, size_t len)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < s->axes.n && o < len; i++)
		if (s->axes.v[i].seed == seed && i != skip)
			o += axis_label(s, i, choice[i], buf, o, len);
	return o;
}

void exp_sweep_label(const struct exp_sweep *s, const uint32_t *choice, bool seed, char *buf,
		     size_t len)
{
	if (!labels(s, choice, seed, s->axes.n, buf, len))
		snprintf(buf, len, "%s", seed ? "-" : "baseline");
}

void exp_sweep_group_label(const struct exp_sweep *s, const uint32_t *choice, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->base_given)
		labels(s, choice, false, s->base_axis, buf, len);
}

void exp_sweep_own_label(const struct exp_sweep *s, const uint32_t *choice, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->base_given)
		axis_label(s, s->base_axis, choice[s->base_axis], buf, 0, len);
}

void exp_sweep_value_label(const struct exp_sweep *s, size_t axis, uint32_t k, char *buf,
			   size_t len)
{
	axis_label(s, axis, k, buf, 0, len);
}

void exp_sweep_base_label(const struct exp_sweep *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->base_given)
		axis_label(s, s->base_axis, s->base_value, buf, 0, len);
}

/* Whether label has the word w (n bytes); words are separated by spaces. */
static bool has_word(const char *label, const char *w, size_t n)
{
	size_t m;

	for (label += strspn(label, " "); *label; label += strspn(label, " ")) {
		m = strcspn(label, " ");
		if (m == n && !strncmp(label, w, n))
			return true;
		label += m;
	}
	return false;
}

/* Whether every word of name is a word of label. */
static bool words_in(const char *name, const char *label)
{
	size_t n;

	for (name += strspn(name, " "); *name; name += strspn(name, " ")) {
		n = strcspn(name, " ");
		if (!has_word(label, name, n))
			return false;
		name += n;
	}
	return true;
}

/* Appends label to list ("a; b"), ending it with "..." once it is full. */
static void list_add(char *list, size_t len, const char *label)
{
	size_t o = list && len ? strlen(list) : 0;

	if (!list || !len || (o >= 3 && !strcmp(list + o - 3, "...")))
		return;
	if (o + 2 + strlen(label) + 4 > len) {
		snprintf(list + o, len - o, "%s...", o ? "; " : "");
		return;
	}
	snprintf(list + o, len - o, "%s%s", o ? "; " : "", label);
}

/* 2: label is name; 1: label has name's words; 0: neither. */
static int match(const char *name, const char *label)
{
	return !strcmp(label, name) ? 2 : words_in(name, label);
}

/* The compared values whose labels match name as want says (-1: every value): their number,
 * the first in *axis and *value, their labels appended to list. */
static uint32_t scan(const struct exp_sweep *s, const char *name, int want, uint32_t *axis,
		     uint32_t *value, char *list, size_t len)
{
	char label[256];
	uint32_t n = 0, k;
	size_t i;

	for (i = 0; i < s->axes.n; i++)
		for (k = 0; !s->axes.v[i].seed && k < s->axes.v[i].values.n; k++) {
			axis_label(s, i, k, label, 0, sizeof(label));
			if (want >= 0 && match(name, label) != want)
				continue;
			if (!n++) {
				*axis = (uint32_t)i;
				*value = k;
			}
			list_add(list, len, label);
		}
	return n;
}

uint32_t exp_sweep_find(const struct exp_sweep *s, const char *name, uint32_t *axis,
			uint32_t *value, char *list, size_t len)
{
	uint32_t n, a, v;

	if (list && len)
		list[0] = '\0';
	n = scan(s, name, 2, axis, value, list, len);
	if (!n)
		n = scan(s, name, 1, axis, value, list, len);
	if (!n)
		scan(s, name, -1, &a, &v, list, len);
	return n;
}

int exp_sweep_check(const char *path, const struct exp_sweep *s, struct diag *d)
{
	uint32_t *choice = calloc(s->axes.n + 1, sizeof(*choice)), k;
	struct experiment e;
	int r = choice ? 0 : diag_set(d, -ENOMEM, "out of memory");

	for (k = 0; !r && k < s->variants * s->seeds; k++) {
		exp_sweep_choice(s, k, choice);
		r = exp_parse_file_variant(path, choice, &e, d);
		exp_done(&e);
	}
	free(choice);
	return r;
}
