/* SPDX-License-Identifier: MIT */
/* YAML scenario files -> struct scenario (libyaml). The schema is docs/scenario.md. */
#ifndef ORCHESTRATOR_SCENARIO_YAML_H
#define ORCHESTRATOR_SCENARIO_YAML_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "scenario/experiment.h"

/* Longest scenario name: it goes into namespace names (tb-<name>-<node>), which stay short. */
#define SCN_YAML_NAME_LEN 12

/* Largest file scn_parse_file reads; a scenario is a page of text. */
#define SCN_YAML_FILE_MAX (4u << 20)
#define SCN_YAML_DEPTH_MAX 32 /* nested mappings and sequences (a scenario needs 5) */

/* Parses the file at path into *e (exp_init'd by the function). 0, or -EINVAL (bad input: d
 * says "file:line:col: field: what was expected, what was found"), -ENOENT/-EACCES etc.
 * (cannot read). On failure *e holds defaults only; exp_done(e) is right either way. */
int exp_parse_file(const char *path, struct experiment *e, struct diag *d);

/* Same, from a buffer; `name` is used as the file name in messages, for e->s.path and for the
 * default scenario name. */
int exp_parse_buffer(const char *name, const char *buf, size_t len, struct experiment *e,
		     struct diag *d);

/* The same for one run of the file's sweep: choice[i] is the index of the value axis i takes
 * (exp_sweep_choice; NULL: every first value, as exp_parse_file does). */
int exp_parse_file_variant(const char *path, const uint32_t *choice, struct experiment *e,
			   struct diag *d);
int exp_parse_buffer_variant(const char *name, const char *buf, size_t len, const uint32_t *choice,
			     struct experiment *e, struct diag *d);

#endif
