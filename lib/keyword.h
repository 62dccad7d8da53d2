/* SPDX-License-Identifier: MIT */
/* A name table of an enum: one per enum, in the layer that owns the enum, read by the scenario
 * parser (a value's YAML spelling) and by whatever prints the value. A table ends with a NULL
 * name. Pure. */
#ifndef LIB_KEYWORD_H
#define LIB_KEYWORD_H

#include <stddef.h>

struct keyword {
	const char *name;
	int value;
};

/* The name of value in kw, or `none` if the table has no such value. */
static inline const char *keyword_name(const struct keyword *kw, int value, const char *none)
{
	for (; kw->name; kw++)
		if (kw->value == value)
			return kw->name;
	return none;
}

#endif
