/* SPDX-License-Identifier: MIT */
/* `testbed reproduce` (cmd_reproduce.c) and its shards (cmd_repro_shard.c): the options, what
 * a scenario's run left read back, report.md, and with --shard I/N each shard's record of the
 * scenarios it ran, merged by `testbed report`. */
#ifndef ORCH_CMD_REPRO_H
#define ORCH_CMD_REPRO_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/cmd.h"
#include "kernel/wdir.h"
#include "report/repro.h"

struct repro_opts {
	bool quick, sim, strict;
	const char *results, *scenarios, *shard_arg;
	const char *papers[8];
	size_t np;
	struct cmd_shard shard; /* --shard I/N; i 0 with n set: the shards merged (report) */
};

/* What a run left in its folder dir: a sweep's runs, verdicts and figures, or one run's. */
void repro_read_runs(const char *dir, struct repro_result *r);
int repro_read_rows(const char *dir, struct repro_result *r);
void repro_read_one(const char *dir, struct repro_result *r);
/* dir relative to root, when it is inside it, into out. */
void repro_relative(const char *root, const char *dir, char *out, size_t len);
/* report.md in root (over an earlier one). 0 or -errno with d set. */
int repro_write_report(const struct wdir *root, const struct repro_opts *o,
		       const struct repro_result *res, size_t n, struct diag *d);

/* ---- shards (cmd_repro_shard.c) ---- */

/* Before shard o->shard runs anything in root: reproduce-shards.json written, or checked to
 * be this selection cut into as many shards (-EEXIST with a message otherwise). */
int repro_shards_begin(const struct wdir *root, const struct repro_opts *o, struct diag *d);
/* The folder a shard's run of the scenario at file leaves, relative to the report's root,
 * into r->dir: <paper>/<its name>/sweep or .../run (sweep_report.h). 0 or -errno with d set. */
int repro_shard_dir(const char *file, struct repro_result *r, struct diag *d);
/* The shard's record of what it ran (reproduce-shard-I-of-N.json), instead of report.md. */
int repro_shard_write(const struct wdir *root, const struct repro_opts *o,
		      const struct repro_result *res, size_t n, struct diag *d);
/* testbed report on a sharded reproduction's folder: every sweep's shards merged and compared,
 * report.md written from what is there. 0, -ENODATA when shards or runs are missing (named in
 * d), -EIO when a scenario failed, or -errno with d set. */
int repro_shards_merge(const struct wdir *root, struct diag *d);

#define REPRO_SHARDS_FILE "reproduce-shards.json"

#endif
