/* SPDX-License-Identifier: MIT */
/* `testbed reproduce`: which scenarios reproduce which paper, on which backend (the
 * catalogue), which of them a run takes, and the report it writes from their comparisons.
 * Pure: the command (cmd_reproduce.c) runs the scenarios and reads their results. */
#ifndef ORCH_REPRO_H
#define ORCH_REPRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/diag.h"
#include "lib/vec.h"

enum repro_backend {
	REPRO_NONE, /* (quick) not part of --quick */
	REPRO_UP, /* emulated: testbed up */
	REPRO_SIM, /* virtual time: testbed sim */
};

struct repro_paper {
	const char
		*id; /* what `testbed reproduce` takes: greedy, vclos, tacos, themis, hammingmesh */
	const char *title; /* the paper's title and short name */
	const char *cite; /* authors, venue, year */
};

struct repro_item {
	const char *paper; /* a repro_paper id */
	const char *file; /* the scenario, relative to the scenarios directory */
	enum repro_backend full, quick; /* how a full run and --quick run it */
	const char *metric; /* the comparison's metric the report lists for every variant */
	const char *shows; /* the paper's result it reproduces */
};

extern const struct repro_paper repro_papers[];
extern const size_t repro_npapers;
#define REPRO_ITEMS_MAX 64 /* the catalogue's room (a unit test holds it to it) */
extern const struct repro_item repro_items[];
extern const size_t repro_nitems;

/* The paper with this id, or NULL. */
const struct repro_paper *repro_paper_find(const char *id);

/* The items of the given papers (all, for none) a run takes, in catalogue order, into idx
 * (room for repro_nitems): every item, or with quick the ones --quick runs. -EINVAL with a
 * message naming the known papers for an unknown one. */
int repro_select(const char *const *papers, size_t npapers, bool quick, uint32_t *idx, size_t *n,
		 struct diag *d);

/* The backend an item runs on: its full or quick one, or virtual time for every item when
 * sim is asked for. */
enum repro_backend repro_backend_of(const struct repro_item *it, bool quick, bool sim);

/* One figure of a sweep's comparison: a variant's metric, as a ratio to its baseline, and the
 * paper's ratio where the scenario gives one (NAN: none). */
struct repro_row {
	char variant[128];
	char metric[16];
	double measured, paper;
};

/* What one item's run left: how it ended, its runs and their fidelity verdicts, the figures. */
struct repro_result {
	const struct repro_item *it;
	enum repro_backend be;
	int status; /* the command's exit code; -1: not run (interrupted before it) */
	double secs;
	char file[512]; /* the scenario as run */
	char dir[512]; /* its sweep (or run) folder, relative to the report */
	char log[512]; /* its log, relative to the report */
	uint32_t runs, ok, degraded; /* runs of the sweep, ended ok, fidelity degraded */
	uint32_t missing; /* of the runs, those whose shard has not run (--shard) */
	VEC(struct repro_row) rows;
};

/* Whether the report lists a variant's metric: the item's own, or one the paper gives. */
bool repro_row_wanted(const struct repro_item *it, const char *metric, double paper);

/* A result's one-line verdict for the summary: "ok", "3 of 4 runs failed", ... */
void repro_verdict(const struct repro_result *r, char *buf, size_t len);

/* Writes report.md: the run's header (version, mode, machine), a summary table, and per
 * paper each scenario's command, verdicts, the paper's figures beside the measured ones with
 * their ratio, its plots and log. */
void repro_report(FILE *f, const char *header, const struct repro_result *res, size_t n);

#endif
