// SPDX-License-Identifier: MIT
/* schema_check SCHEMA JSON...: validates JSON files (a results folder's summary.json) against
 * a schema with the unit tests' validator (tests/unit/json_schema.h). Exit 0 if every file
 * validates, 1 naming the first failure of each file that does not, 2 on bad input. */
#include <stdio.h>

#include "tests/unit/json_schema.h"

int main(int argc, char **argv)
{
	json_error_t e;
	json_t *schema, *j;
	char err[2048];
	int i, bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: schema_check SCHEMA JSON...\n");
		return 2;
	}
	schema = json_load_file(argv[1], 0, &e);
	if (!schema) {
		fprintf(stderr, "%s:%d: %s\n", argv[1], e.line, e.text);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		j = json_load_file(argv[i], 0, &e);
		if (!j) {
			fprintf(stderr, "%s:%d: %s\n", argv[i], e.line, e.text);
			bad = 1;
			continue;
		}
		if (t_schema_validate(schema, j, err, sizeof(err))) {
			fprintf(stderr, "%s: does not validate: %s\n", argv[i], err);
			bad = 1;
		} else {
			printf("%s: valid\n", argv[i]);
		}
		json_decref(j);
	}
	json_decref(schema);
	return bad;
}
