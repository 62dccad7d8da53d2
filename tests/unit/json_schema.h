/* SPDX-License-Identifier: MIT */
/* A validator for the JSON Schema (2020-12) subset docs/summary.schema.json uses: $ref to
 * $defs, type, const, enum, minimum, exclusiveMinimum, required, properties,
 * additionalProperties: false, items. Any other keyword in a schema is refused, so a schema
 * that grows past the subset fails loudly instead of being half-checked. Shared by the unit
 * tests and tests/tools/schema_check. */
#ifndef TESTS_JSON_SCHEMA_H
#define TESTS_JSON_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

/* 0 if v validates against schema; else -1 with the path and what failed in err. */
int t_schema_validate(const json_t *schema, const json_t *v, char *err, size_t len);

#endif
