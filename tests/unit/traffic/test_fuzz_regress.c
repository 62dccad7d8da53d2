// SPDX-License-Identifier: MIT
/* The fuzzers' regression inputs without clang: every file of tests/fuzz/regress/scenario/,
 * trace/, msccl/ and chakra/ goes through the reader its fuzzer calls (exp_parse_buffer,
 * workload_trace_parse, coll_sched_build_ext for an MSCCL job, chakra_read and chakra_check
 * for a Chakra rank), which must read it or refuse it
 * cleanly: 0, or -EINVAL / -ENOMEM with a message, and nothing half-made. Run from the repo
 * root (make check); with SANITIZE=1 a memory error fails it as under libFuzzer. */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "scenario/scenario_yaml.h"
#include "traffic/chakra/chakra.h"
#include "tests/fuzz/msccl_job.h"
#include "traffic/coll.h"
#include "traffic/trace/job_trace.h"

#define T_REGRESS "tests/fuzz/regress"

/* The whole file, with a NUL after its *len bytes (which the readers are not told of). */
static char *t_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	assert_non_null(f);
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)n + 1);
		assert_non_null(buf);
		*len = fread(buf, 1, (size_t)n, f);
		assert_int_equal(*len, (size_t)n);
		buf[n] = '\0';
	}
	fclose(f);
	assert_non_null(buf);
	return buf;
}

/* A reader's answer: read, or refused as bad input (or out of memory) with a message. */
static void t_clean(const char *path, int r, const struct diag *d)
{
	if ((r == 0 && !d->msg[0]) || ((r == -EINVAL || r == -ENOMEM) && d->msg[0]))
		return;
	fail_msg("%s: returned %d with message '%s'", path, r, d->msg);
}

static void t_scenario(const char *path, const char *buf, size_t len)
{
	struct diag d = {0};
	struct experiment e;

	t_clean(path, exp_parse_buffer("fuzz.yaml", buf, len, &e, &d), &d);
	exp_done(&e);
}

static void t_trace(const char *path, const char *buf, size_t len)
{
	job_list jobs = {0};
	struct diag d = {0};
	const struct job_trace_opts o = {
		.default_model = "resnet50", .algo = COLL_RING, .iterations = 1};
	int r = workload_trace_parse("fuzz.csv", buf, len, &o, &jobs, NULL, &d);

	t_clean(path, r, &d);
	if (r)
		assert_int_equal(jobs.n, 0);
	vec_free(&jobs);
}

/* Read, every rank's slice passes the check an emu-node makes of what it is shipped. */
static void t_msccl_slices(const char *path, const struct coll_sched *s)
{
	struct coll_step *steps = malloc((s->steps.n + 1) * sizeof(*steps));
	uint32_t *deps = malloc((s->deps.n + 1) * sizeof(*deps)), r;
	struct coll_sched one;
	struct diag d = {0};

	assert_true(steps && deps);
	assert_int_equal(s->ranks.n, s->params.nranks);
	for (r = 0; r < s->params.nranks; r++) {
		coll_sched_rank_slice(s, r, steps, deps);
		if (coll_sched_from_rank(&s->params, r, steps, s->ranks.v[r].step_n, deps,
					 coll_sched_rank_deps(s, r), &one, &d))
			fail_msg("%s: rank %u: %s", path, r, d.msg);
		coll_sched_done(&one);
	}
	free(steps);
	free(deps);
}

static void t_msccl(const char *path, const char *buf, size_t len)
{
	struct coll_params p[FUZZ_MSCCL_JOBS];
	struct coll_ext x = {.msccl = buf, .msccl_len = len};
	size_t n = fuzz_msccl_jobs(buf, len, p), i;

	for (i = 0; i < n; i++) {
		struct coll_sched s;
		struct diag d = {0};
		int r = coll_sched_build_ext(&p[i], &x, &s, &d);

		t_clean(path, r, &d);
		if (r)
			assert_true(!s.ranks.n && !s.steps.n && !s.deps.n);
		else
			t_msccl_slices(path, &s);
		coll_sched_done(&s);
	}
}

static void t_chakra(const char *path, const char *buf, size_t len)
{
	struct chakra_rank r;
	struct chakra_stats st;
	struct diag d = {0};
	int err = chakra_read((const uint8_t *)buf, len, path, &r, &d);
	size_t i;

	t_clean(path, err, &d);
	for (i = 0; !err && i < r.deps.n; i++)
		assert_true(r.deps.v[i] < r.nodes.n);
	if (!err) {
		d = (struct diag){0};
		t_clean(path, chakra_check(&r, 1, NULL, &st, NULL, &d), &d);
	}
	chakra_rank_done(&r);
}

/* Every file of the target's folder through parse; how many there were. */
static size_t t_folder(const char *target, void (*parse)(const char *, const char *, size_t))
{
	char pattern[256];
	struct stat st;
	size_t i, len, n;
	glob_t g;
	char *buf;
	int r;

	snprintf(pattern, sizeof(pattern), "%s/%s", T_REGRESS, target);
	if (stat(pattern, &st) || !S_ISDIR(st.st_mode))
		fail_msg("no folder %s (run from the repo root)", pattern);
	snprintf(pattern, sizeof(pattern), "%s/%s/*", T_REGRESS, target);
	r = glob(pattern, 0, NULL, &g);
	assert_true(r == 0 || r == GLOB_NOMATCH);
	n = r ? 0 : g.gl_pathc;
	for (i = 0; i < n; i++) {
		buf = t_read(g.gl_pathv[i], &len);
		parse(g.gl_pathv[i], buf, len);
		free(buf);
	}
	if (!r)
		globfree(&g);
	return n;
}

static void test_regress(void **state)
{
	size_t n;

	(void)state;
	n = t_folder("scenario", t_scenario);
	n += t_folder("trace", t_trace);
	n += t_folder("msccl", t_msccl);
	n += t_folder("chakra", t_chakra);
	assert_true(n >= 1); /* the trace reader's one, at least */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
