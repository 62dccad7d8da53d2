/* SPDX-License-Identifier: MIT */
/* cli/ owns main and one file per `testbed` command; the only code that prints (stdout, stderr)
 * and picks exit codes. May include: every other folder. */
/* The command layer: one file per subcommand, the only code that prints. */
#ifndef ORCH_CMD_H
#define ORCH_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/diag.h"
#include "scenario/world.h"
#include "model/topo.h"
#include "policy/route.h"

/* Exit codes. */
#define CMD_OK 0
#define CMD_FAIL 1
#define CMD_USAGE 2
#define CMD_DEGRADED 3 /* --strict: a run's fidelity verdict is degraded */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

struct chakra_job;
/* A Chakra trace's job j of w (cmd_chakra.c): its ranks, nodes by type, collectives, pairs,
 * bytes and its critical path with nothing shared, at the paper's rates. 0 or -errno. */
int cmd_chakra_print(FILE *f, const struct world *w, const struct job_spec *j, struct diag *d);
/* The critical path of cj (alpha s per message, bps per pair), on one line. 0 or -errno. */
int cmd_chakra_path(FILE *f, const struct chakra_job *cj, double alpha, double bps, struct diag *d);

/* Whether a Chakra trace's job of w gives a rank more of its schedule than emulation ships
 * in one control packet (emu-node/ctl.h), said in buf: `up` refuses it, `sim` runs it. */
bool cmd_emu_ship_over(const struct world *w, char *buf, size_t len);

/* Emulation's wall-time lower bound for w's jobs (emu_wall_ns), written as "at least X
 * of wall time here (...)" into buf. Returns whether it exceeds run.max_wall, in which case
 * `up` refuses the file and `testbed sim` is the way to run it. */
bool cmd_emu_too_long(const struct world *w, char *buf, size_t len);
/* Whether w's fastest shaped link, after emulation.rate_scale, is beyond what the kernel's
 * shapers accept (SHAPE_MAX_BPS), in which case buf says by how much and which rate_scale
 * would do: `up` refuses the file, `testbed sim` runs it. */
bool cmd_emu_rate_over(const struct world *w, char *buf, size_t len);

/* The connections per pair of the workload's first job (channels). */
uint32_t cmd_first_channels(const struct world *w);

/* A workload of one all-to-all job: where the scheduler puts its ranks (as the run will,
 * from an empty cluster), into eps (t->endpoints.n long). Its GPU count, or 0 for any other
 * workload. */
uint32_t cmd_lone_alltoall(const struct world *w, uint32_t *eps);

/* Whether a lone all-to-all job's connections, with transport.window set, keep more in flight
 * on some link direction than SHAPE_INFLIGHT_MAX times its queue (policy/shape.h); if so, buf
 * says where, by how much, and the channels whose windows the queues hold (or, with none, the
 * window or the queue that would do), after the "LINE:COL: workload.channels: " of the field
 * when the file gives it. With report, buf says it also when it is within and never names the
 * field (for `check`), and the return is still whether it is over. */
bool cmd_emu_window_over(const struct world *w, bool report, char *buf, size_t len);

/* What goes between a file's path and a message that may start with its LINE:COL (as
 * cmd_emu_window_over's does): ":" before a digit, else ": ". */
const char *cmd_at_sep(const char *msg);

/* Whether those windows overflow the queue without reaching SHAPE_INFLIGHT_MAX (`up` warns):
 * buf as cmd_emu_window_over's, with the channels that keep within it. */
bool cmd_emu_window_full(const struct world *w, char *buf, size_t len);

/* What the machine cannot emulate, which `up` refuses before it makes anything: w, one run of
 * path, too long (cmd_emu_too_long), past the control packet (cmd_emu_ship_over), past its
 * queues (cmd_emu_window_over) or past the shapers (cmd_emu_rate_over). 0, or -EINVAL with d
 * saying why and what would do. `up` checks every variant of a sweep with it
 * (world_ask.check), `check` reports them (world_check_variants). */
int cmd_up_refuses(const struct world *w, const char *path, struct diag *d);

/* Prints d (or a fallback) as "testbed <cmd>: <message>" and returns the exit code for r. */
int cmd_fail(const char *cmd, int r, const struct diag *d);

/* The emu-node binary `up` would start (emu_find.h: beside this one, or the installed one), into
 * buf; where it is missing (beside this one) when there is none. */
void cmd_emu_path(char *buf, size_t len);

/* The example scenarios: given, else ./scenarios, else the installed ones beside this
 * executable (../share/testbed/scenarios). 0, or -ENOENT when there is no such folder. */
int cmd_scenarios_dir(const char *given, char *out, size_t len);

/* text into path (over a file of ours or yours, never through a link: wdir.h), or to standard
 * output if path is NULL. 0, or -errno with d set. */
int cmd_write_out(const char *path, const char *text, size_t len, struct diag *d);

/* One option of a command, "--name": with arg it takes a value, kept in *arg (NULL until
 * given); set, if not NULL, is set true when it is given. A table ends with a NULL name. */
struct cmd_opt {
	const char *name;
	const char **arg;
	bool *set;
};
#define CMD_OPTS_MAX 16

/* Parses argv[1..argc) (argv[0]: the command's name) with getopt_long against opts and the
 * options every command takes: -q/--quiet (progress off), -v/--verbose, -h/--help (*help
 * set). Options may stand among the operands, or with first_only before the first only
 * (`exec`'s command keeps its own); "--" ends them. An option with a value given twice, an
 * unknown one or one missing its value is said on stderr. Returns the number of operands,
 * left in order in argv[1..], or -EINVAL. */
int cmd_opts_parse(const char *cmd, int argc, char **argv, const struct cmd_opt *opts,
		   bool first_only, bool *help);

/* --jobs (-j) N: runs of a sweep at once, 1 to CMD_JOBS_MAX; NULL: this machine's cores.
 * 0, or -EINVAL for anything else. */
#define CMD_JOBS_MAX 256
int cmd_jobs(const char *arg, uint32_t *n);

/* --shard I/N: the I-th (from 1) of N parts of a sweep or catalogue (report/sweep_report.h,
 * sweep_shard_of); n 0: not sharded. */
struct cmd_shard {
	uint32_t i, n; /* 1 <= i <= n */
};
/* "I/N" into s (NULL arg: not sharded). 0, or -EINVAL for anything else, said on stderr as
 * testbed cmd's. */
int cmd_shard_parse(const char *cmd, const char *arg, struct cmd_shard *s);

/* Whether -q asked for quiet: progress and notes off, warnings, errors and results on. */
bool cmd_quiet(void);

/* A progress or informational line on stderr, unless -q. */
void cmd_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct fabric_down_info;
/* Says which namespaces named like the testbed's a teardown left alone, if any. */
void cmd_said_foreign(const char *cmd, const struct fabric_down_info *in);

/* A results folder refused before anything ran (d says why): the message made to say so and
 * how to choose another, and -EINVAL (bad input: exit 2). */
int cmd_results_refused(struct diag *d);

/* One line per reason the trace's rows were left out for (none when none were), each
 * "<lead><n> trace rows <reason>: left out", with the field that decides it in parentheses
 * when fields. */
void cmd_trace_left(FILE *f, const char *lead, const struct job_trace_left *l, bool fields);

/* Fails with a clear message unless running as root. */
int cmd_need_root(const char *cmd);

int cmd_check(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_up(int argc, char **argv);
int cmd_down(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_exec(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
