// SPDX-License-Identifier: MIT
/* JSON Schema subset validator (json_schema.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/json_schema.h"

struct t_v {
	const json_t *root; /* the schema, for $ref */
	char err[2048];
};

static int t_check(struct t_v *t, const json_t *s, const json_t *v, const char *path);

static int t_fail(struct t_v *t, const char *path, const char *what)
{
	snprintf(t->err, sizeof(t->err), "%s: %s", path, what);
	return -1;
}

static bool t_type1(const char *type, const json_t *v)
{
	return (!strcmp(type, "object") && json_is_object(v)) ||
	       (!strcmp(type, "array") && json_is_array(v)) ||
	       (!strcmp(type, "string") && json_is_string(v)) ||
	       (!strcmp(type, "integer") && json_is_integer(v)) ||
	       (!strcmp(type, "number") && json_is_number(v)) ||
	       (!strcmp(type, "boolean") && json_is_boolean(v)) ||
	       (!strcmp(type, "null") && json_is_null(v));
}

static bool t_type(const json_t *type, const json_t *v)
{
	const json_t *e;
	size_t i;

	if (json_is_string(type))
		return t_type1(json_string_value(type), v);
	json_array_foreach(type, i, e)
	{
		if (t_type1(json_string_value(e), v))
			return true;
	}
	return false;
}

static bool t_in_enum(const json_t *en, const json_t *v)
{
	const json_t *e;
	size_t i;

	json_array_foreach(en, i, e)
	{
		if (json_equal(e, v))
			return true;
	}
	return false;
}

static int t_object(struct t_v *t, const json_t *s, const json_t *v, const char *path)
{
	const json_t *props = json_object_get(s, "properties"),
		     *req = json_object_get(s, "required");
	const json_t *ap = json_object_get(s, "additionalProperties"), *e, *sub;
	const char *k;
	char p[512];
	size_t i;

	json_array_foreach(req, i, e)
	{
		if (!json_object_get(v, json_string_value(e)))
			return t_fail(t, path, json_string_value(e));
	}
	json_object_foreach((json_t *)v, k, e)
	{
		snprintf(p, sizeof(p), "%s.%s", path, k);
		sub = props ? json_object_get(props, k) : NULL;
		if (!sub && json_is_false(ap))
			return t_fail(t, p, "not in the schema");
		if (sub && t_check(t, sub, e, p))
			return -1;
	}
	return 0;
}

static int t_array(struct t_v *t, const json_t *s, const json_t *v, const char *path)
{
	const json_t *items = json_object_get(s, "items"), *e;
	char p[512];
	size_t i;

	json_array_foreach(v, i, e)
	{
		snprintf(p, sizeof(p), "%s[%zu]", path, i);
		if (items && t_check(t, items, e, p))
			return -1;
	}
	return 0;
}

static int t_known(struct t_v *t, const json_t *s, const char *path)
{
	static const char *const known[] = {
		"$schema",
		"$id",
		"$defs",
		"title",
		"description",
		"$ref",
		"type",
		"const",
		"enum",
		"minimum",
		"exclusiveMinimum",
		"required",
		"properties",
		"additionalProperties",
		"items",
	};
	const char *k;
	const json_t *e;
	size_t i;

	json_object_foreach((json_t *)s, k, e)
	{
		for (i = 0; i < sizeof(known) / sizeof(known[0]) && strcmp(k, known[i]); i++)
			;
		if (i == sizeof(known) / sizeof(known[0]))
			return t_fail(t, path, k); /* a keyword this validator does not know */
	}
	return 0;
}

static int t_check(struct t_v *t, const json_t *s, const json_t *v, const char *path)
{
	const json_t *ref = json_object_get(s, "$ref"), *x;

	if (t_known(t, s, path))
		return -1;
	if (ref) {
		if (!json_is_string(ref) || strncmp(json_string_value(ref), "#/$defs/", 8))
			return t_fail(t, path, "a $ref outside #/$defs/");
		s = json_object_get(json_object_get(t->root, "$defs"), json_string_value(ref) + 8);
		if (!s)
			return t_fail(t, path, "a $ref to nothing");
	}
	if ((x = json_object_get(s, "type")) && !t_type(x, v))
		return t_fail(t, path, "wrong type");
	if ((x = json_object_get(s, "const")) && !json_equal(x, v))
		return t_fail(t, path, "not the constant");
	if ((x = json_object_get(s, "enum")) && !t_in_enum(x, v))
		return t_fail(t, path, "not in the enum");
	if ((x = json_object_get(s, "minimum")) && json_is_number(v) &&
	    json_number_value(v) < json_number_value(x))
		return t_fail(t, path, "below the minimum");
	if ((x = json_object_get(s, "exclusiveMinimum")) && json_is_number(v) &&
	    json_number_value(v) <= json_number_value(x))
		return t_fail(t, path, "not above the minimum");
	if (json_is_object(v) && t_object(t, s, v, path))
		return -1;
	return json_is_array(v) ? t_array(t, s, v, path) : 0;
}

int t_schema_validate(const json_t *schema, const json_t *v, char *err, size_t len)
{
	struct t_v t = {.root = schema};
	int rc = t_check(&t, schema, v, "$");

	snprintf(err, len, "%.*s", (int)len - 1, rc ? t.err : "");
	return rc;
}
