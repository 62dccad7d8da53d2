// SPDX-License-Identifier: MIT
/* testbed up FILE: build the scenario's topology in namespaces; roll back on failure or on
 * Ctrl-C, so nothing half-built is left in the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orchestrator/cmd.h"
#include "orchestrator/cmd_run.h"
#include "orchestrator/fabric.h"
#include "orchestrator/scenario_yaml.h"
#include "orchestrator/scenario_yaml_types.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct progress {
	struct timespec t0;
	int tty;
	enum fabric_phase last;
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void on_progress(void *arg, enum fabric_phase ph, size_t done, size_t total)
{
	struct progress *p = arg;

	if (p->tty) {
		fprintf(stderr, "\r  %-24s %6zu/%-6zu %6.2fs", fabric_phase_name(ph), done, total,
			since(&p->t0));
		if (done == total)
			fputc('\n', stderr);
	} else if (done == total) {
		fprintf(stderr, "  %-24s %6zu done at %6.2fs\n", fabric_phase_name(ph), total,
			since(&p->t0));
	}
	p->last = ph;
}

static void up_usage(FILE *f)
{
	fprintf(f,
		"Usage: testbed up [--name NAME] FILE\n\n"
		"Builds the scenario's topology: one network namespace per node, shaped veth\n"
		"links, routes, ECMP hashing. NAME (default: the scenario's name) tells testbeds\n"
		"apart; 'testbed down NAME' removes everything. Needs root.\n");
}

static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int copy_scenario(const char *name, const char *path)
{
	char dst[512], buf[8192];
	int in, out, r = 0;
	ssize_t n;

	state_path(dst, sizeof(dst), name, "scenario.yaml");
	in = open(path, O_RDONLY | O_CLOEXEC);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			r = -EIO;
	if (in < 0 || out < 0)
		r = -errno;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return r;
}

/* After a run the testbed goes, unless kept; without a workload it stays up. */
static int finish(struct cmd_world *w, const char *name, bool keep, struct diag *d)
{
	struct diag dd = {0};

	if (!exp_has_workload(&w->e) || keep) {
		fprintf(stderr, "testbed up: 'testbed down %s' removes it\n", name);
		return 0;
	}
	if (fabric_down(name, &dd))
		return diag_set(d, dd.err, "tearing down: %s", dd.msg);
	fprintf(stderr, "testbed up: '%s' torn down\n", name);
	if (stop_requested)
		return diag_set(d, -EINTR, "stopped by the user; the results so far are written");
	return 0;
}

/* Claims the name, builds, runs the workload if there is one, and tears down when the run
 * is over (unless keep) or on failure. */
static int build(struct cmd_world *w, const char *name, bool keep, struct diag *d)
{
	struct progress pg = {.tty = isatty(STDERR_FILENO)};
	struct state st;
	struct fabric f = {.name = name,
			   .s = &w->e.s,
			   .t = w->t,
			   .plan = &w->plan,
			   .st = &st,
			   .stop = &stop_requested,
			   .progress = on_progress,
			   .progress_arg = &pg};
	size_t i;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &pg.t0);
	r = state_create(name, &st, d);
	if (r)
		return r;
	(void)state_record(&st, "scenario %s", w->e.s.path);
	(void)copy_scenario(name, w->e.s.path);
	f.root_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	f.nsfd = malloc(w->t->nodes.n * sizeof(int) + 1);
	if (f.root_fd < 0 || !f.nsfd) {
		r = diag_set(d, -ENOMEM, "opening the root namespace: %s", strerror(errno));
	} else {
		for (i = 0; i < w->t->nodes.n; i++)
			f.nsfd[i] = -1;
		fprintf(stderr, "testbed up: building '%s' (%zu namespaces, %zu links)\n", name,
			w->t->nodes.n, w->t->links.n);
		r = fabric_up(&f, d);
		if (!r)
			fprintf(stderr, "testbed up: '%s' is up after %.2fs\n", name,
				since(&pg.t0));
		if (!r && exp_has_workload(&w->e))
			r = cmd_run(w, name, f.nsfd, &stop_requested, d);
		fabric_close(&f);
	}
	state_close(&st);
	free(f.nsfd);
	if (f.root_fd >= 0)
		close(f.root_fd);
	if (r) {
		struct diag dd = {0};

		fprintf(stderr, "testbed up: %s\ntestbed up: rolling back\n", d->msg);
		if (fabric_down(name, &dd))
			fprintf(stderr, "testbed up: rollback: %s\n", dd.msg);
		d->msg[0] = '\0';
		return diag_set(d, r == -EINVAL ? -EIO : r, "'%s' failed; nothing is left", name);
	}
	return finish(w, name, keep, d);
}

int cmd_up(int argc, char **argv)
{
	struct cmd_world w;
	struct diag d = {0};
	const char *name = NULL, *why;
	bool keep = false;
	char buf[32];
	int r;

	if (cmd_wants_help(argc, argv)) {
		up_usage(stdout);
		return CMD_OK;
	}
	while (argc > 2 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--keep")) {
			keep = true;
			argv++;
			argc--;
		} else if (argc > 3 && !strcmp(argv[1], "--name")) {
			name = argv[2];
			argv += 2;
			argc -= 2;
		} else {
			break;
		}
	}
	if (argc != 2) {
		up_usage(stderr);
		return CMD_USAGE;
	}
	if (name && (why = scn_yaml_name_why(name, SCN_YAML_NAME_LEN, buf, sizeof(buf)))) {
		fprintf(stderr,
			"testbed up: --name: expected 1 to %d characters [a-z0-9-], found '%s'%s\n",
			SCN_YAML_NAME_LEN, name, why);
		return CMD_USAGE;
	}
	r = cmd_world_load(argv[1], &w, &d);
	if (!r && cmd_need_root("up"))
		r = -EPERM;
	if (!r) {
		catch_signals();
		r = build(&w, name ? name : w.e.s.name, keep, &d);
	}
	cmd_world_done(&w);
	if (r == -EPERM && !d.msg[0])
		return CMD_FAIL;
	return r ? cmd_fail("up", r, &d) : CMD_OK;
}
