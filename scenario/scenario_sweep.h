/* SPDX-License-Identifier: MIT */
/* `sweep:` in a scenario file (docs/scenario.md): dotted field paths, each with a list of
 * values; variants are their cartesian product, the paths under `sweep.seeds:` are averaged
 * over instead of compared, and `sweep.baseline:` names the axis and value (its first, or a
 * case by its label) each variant's baseline has, its other values the variant's own (without
 * it, variant 0 is every variant's baseline). A variant is parsed by rewriting the document's
 * scalar nodes before the section tables read it: the value node of the sweep's list takes the
 * field's place, so messages about it point at the sweep's line. */
#ifndef ORCH_SCENARIO_SWEEP_H
#define ORCH_SCENARIO_SWEEP_H

#include <stdint.h>

#include "scenario/experiment.h"
#include "scenario/scenario_yaml_types.h"

#define SWEEP_RUNS_MAX 10000 /* variants x seeds */

/* Reads the sweep section of c's document (if any) into c->e->sweep and sets each path to the
 * value c->choice picks (NULL: every first value). Runs before the tables read the document.
 * 0 or -EINVAL with a message at the sweep's line, or -ENOMEM. */
int scn_sweep_apply(struct scn_yaml_ctx *c);

/* The top-level `sweep` field: already read by scn_sweep_apply. */
int scn_sweep_field(struct scn_yaml_ctx *c, yaml_node_t *n, const struct scn_yaml_field *f);

/* The value index of every axis for run k of the sweep (k < variants x seeds, variant k /
 * seeds, seed combination k % seeds), into choice[s->axes.n]. The first axis varies slowest. */
void exp_sweep_choice(const struct exp_sweep *s, uint32_t k, uint32_t *choice);

/* The variant that variant v (< s->variants) is compared with: with sweep.baseline, v with the
 * baseline's value on that axis (its first, or the case it names) and its own on the other
 * compared axes; without it, variant 0. */
uint32_t exp_sweep_baseline(const struct exp_sweep *s, uint32_t v);

/* "kind=best algorithm=hd" for the compared axes (seed = false) or the seed axes (seed =
 * true) of choice; "baseline" / "-" when there are none. Each path is shown by its last
 * component unless two axes share it. */
void exp_sweep_label(const struct exp_sweep *s, const uint32_t *choice, bool seed, char *buf,
		     size_t len);

/* Axis axis at its value k as exp_sweep_label shows it: "spines=2", a case's "kind=best". */
void exp_sweep_value_label(const struct exp_sweep *s, size_t axis, uint32_t k, char *buf,
			   size_t len);

/* "spines=4", "kind=best": sweep.baseline's axis at the baseline's value, as exp_sweep_label
 * shows it; "" without sweep.baseline. */
void exp_sweep_base_label(const struct exp_sweep *s, char *buf, size_t len);

/* With sweep.baseline, what a variant (choice) shares with its baseline: its compared axes but
 * the baseline's ("mean_interarrival=100s"; "" if there are none), and its own value on the
 * baseline's axis ("kind=leafspine policy=ecmp"); "" without sweep.baseline. */
void exp_sweep_group_label(const struct exp_sweep *s, const uint32_t *choice, char *buf,
			   size_t len);
void exp_sweep_own_label(const struct exp_sweep *s, const uint32_t *choice, char *buf, size_t len);

/* The compared axis's value that name labels: the value's whole label as exp_sweep_label shows
 * it ("spines=2", a case's "kind=best"), or some of its words ("policy=ecmp" of a case labelled
 * "policy=ecmp placement=locality"), a whole label winning over values that only have its
 * words. Returns how many values match, the first in *axis and *value; list (len bytes, NULL for
 * none) gets their labels, "a; b" (every compared value's, when none matches). */
uint32_t exp_sweep_find(const struct exp_sweep *s, const char *name, uint32_t *axis,
			uint32_t *value, char *list, size_t len);

/* Parses the file for every run of its sweep s, so a bad value is found before anything runs.
 * 0 or the first run's error (-EINVAL with its file:line:col). */
int exp_sweep_check(const char *path, const struct exp_sweep *s, struct diag *d);

#endif
