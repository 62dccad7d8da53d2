// SPDX-License-Identifier: MIT
/* Control packets: the node's check of what the runner sends (emu-node/msg.c) and the
 * runner's check of what a node sends (run/emu/emu_spawn.c), for every type, the
 * variable-length ones at their limits, and each way a packet can be malformed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu-node/msg.h"
#include "run/emu/emu_spawn.h"

static void *t_msg(enum ctl_type type, size_t len)
{
	void *m = calloc(1, len);

	assert_non_null(m);
	emu_msg_init(m, type, (uint32_t)len);
	return m;
}

/* A packet of len bytes whose header says type and len; checked by check, freed. */
static int t_check(int (*check)(const void *, size_t, struct diag *), enum ctl_type type,
		   size_t len, struct diag *d)
{
	void *m = t_msg(type, len);
	int r;

	diag_clear(d);
	r = check(m, len, d);
	free(m);
	return r;
}

static void test_node_accepts(void **state)
{
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_check(msg_check, CTL_HELLO, sizeof(struct ctl_hello), &d), CTL_HELLO);
	assert_int_equal(t_check(msg_check, CTL_TAG, sizeof(struct ctl_tag), &d), CTL_TAG);
	assert_int_equal(t_check(msg_check, CTL_ABORT, sizeof(struct ctl_abort), &d), CTL_ABORT);
	assert_int_equal(t_check(msg_check, CTL_STOP, sizeof(struct ctl_hdr), &d), CTL_STOP);
}

static int t_job_chan(uint32_t nranks, uint32_t rank, size_t len, uint32_t channels, struct diag *d)
{
	struct ctl_job *j = t_msg(CTL_JOB, len < sizeof(*j) ? sizeof(*j) : len);
	int r;

	j->h.len = (uint32_t)len;
	j->coll.nranks = nranks;
	j->rank = rank;
	j->channels = channels;
	diag_clear(d);
	r = msg_check(j, len, d);
	free(j);
	return r;
}

static int t_job(uint32_t nranks, uint32_t rank, size_t len, struct diag *d)
{
	return t_job_chan(nranks, rank, len, 1, d);
}

static void test_node_job(void **state)
{
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_job(1, 0, ctl_job_len(1), &d), CTL_JOB);
	assert_int_equal(t_job(16, 15, ctl_job_len(16), &d), CTL_JOB);
	assert_int_equal(t_job(COLL_MAX_RANKS, 7, ctl_job_len(COLL_MAX_RANKS), &d), CTL_JOB);
	assert_true(ctl_job_len(COLL_MAX_RANKS) <= CTL_MAX_MSG);
	assert_int_equal(t_job(16, 16, ctl_job_len(16), &d), -EBADMSG);
	assert_non_null(strstr(d.msg, "rank 16 of 16"));
	assert_int_equal(t_job(0, 0, ctl_job_len(0), &d), -EBADMSG);
	assert_int_equal(t_job(COLL_MAX_RANKS + 1, 0, ctl_job_len(COLL_MAX_RANKS + 1), &d),
			 -EBADMSG);
	assert_int_equal(t_job(16, 0, ctl_job_len(15), &d), -EBADMSG); /* peers missing */
	assert_non_null(strstr(d.msg, "for 16 ranks"));
	assert_int_equal(t_job(4, 0, sizeof(struct ctl_hdr) + 4, &d), -EBADMSG);
	/* connections per pair: 1 to COLL_CHANNELS_MAX */
	assert_int_equal(t_job_chan(4, 0, ctl_job_len(4), COLL_CHANNELS_MAX, &d), CTL_JOB);
	assert_int_equal(t_job_chan(4, 0, ctl_job_len(4), 0, &d), -EBADMSG);
	assert_non_null(strstr(d.msg, "0 channels, expected 1 to 32"));
	assert_int_equal(t_job_chan(4, 0, ctl_job_len(4), COLL_CHANNELS_MAX + 1, &d), -EBADMSG);
}

/* A shipped schedule's steps and dependencies follow the peers: the length must count exactly
 * the ones it says. */
static int t_regions_job(uint32_t nsteps, uint32_t ndeps, uint32_t nregions, uint32_t nmembers,
			 uint64_t len, struct diag *d)
{
	struct ctl_job *j = t_msg(CTL_JOB, (size_t)len);
	int r;

	j->h.len = (uint32_t)len;
	j->coll.nranks = 4;
	j->channels = 1;
	j->nsteps = nsteps;
	j->ndeps = ndeps;
	j->nregions = nregions;
	j->nmembers = nmembers;
	diag_clear(d);
	r = msg_check(j, (size_t)len, d);
	free(j);
	return r;
}

static int t_steps_job(uint32_t nsteps, uint32_t ndeps, uint64_t len, struct diag *d)
{
	return t_regions_job(nsteps, ndeps, 0, 0, len, d);
}

static void test_node_steps_job(void **state)
{
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_steps_job(3, 5, ctl_job_len_steps(4, 3, 5), &d), CTL_JOB);
	assert_int_equal(t_steps_job(0, 0, ctl_job_len(4), &d), CTL_JOB);
	assert_int_equal(t_steps_job(3, 5, ctl_job_len_steps(4, 3, 4), &d), -EBADMSG);
	assert_non_null(strstr(d.msg, "3 steps, 5 dependencies, 0 regions and 0 members"));
	assert_int_equal(t_steps_job(3, 0, ctl_job_len(4), &d), -EBADMSG);
	/* counts that would wrap 32 bits do not pass for a short packet */
	assert_int_equal(t_steps_job(UINT32_MAX, 2, ctl_job_len_steps(4, 1, 0), &d), -EBADMSG);
	/* a Chakra job's regions and members after the dependencies, 8-byte aligned */
	assert_int_equal(ctl_job_len_all(4, 3, 5, 2, 3), (ctl_job_len_steps(4, 3, 5) + 7) / 8 * 8 +
								 2 * sizeof(struct chakra_region) +
								 3 * sizeof(struct chakra_member));
	assert_int_equal(t_regions_job(3, 5, 2, 3, ctl_job_len_all(4, 3, 5, 2, 3), &d), CTL_JOB);
	assert_int_equal(t_regions_job(3, 5, 2, 3, ctl_job_len_all(4, 3, 5, 2, 2), &d), -EBADMSG);
	assert_non_null(strstr(d.msg, "2 regions and 3 members"));
}

static void test_node_refuses(void **state)
{
	struct ctl_hello *h = t_msg(CTL_HELLO, sizeof(*h));
	struct diag d = {0};

	(void)state;
	assert_int_equal(msg_check(h, 4, &d), -EBADMSG); /* shorter than a header */
	diag_clear(&d);
	assert_int_equal(msg_check(h, sizeof(*h) - 1, &d), -EBADMSG); /* len field disagrees */
	h->h.version = CTL_VERSION + 1;
	diag_clear(&d);
	assert_int_equal(msg_check(h, sizeof(*h), &d), -EPROTO);
	free(h);
	/* right header, wrong size for the type */
	assert_int_equal(t_check(msg_check, CTL_TAG, sizeof(struct ctl_tag) + 8, &d), -EBADMSG);
	assert_int_equal(t_check(msg_check, CTL_STOP, sizeof(struct ctl_abort), &d), -EBADMSG);
	/* what a node sends, never the runner */
	assert_int_equal(t_check(msg_check, CTL_READY, sizeof(struct ctl_ready), &d), -EBADMSG);
	assert_int_equal(t_check(msg_check, CTL_DONE, sizeof(struct ctl_done), &d), -EBADMSG);
	assert_int_equal(t_check(msg_check, 99, sizeof(struct ctl_hdr), &d), -EBADMSG);
	assert_non_null(strstr(d.msg, "type 99"));
}

static void test_runner_accepts(void **state)
{
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_check(emu_msg_check, CTL_READY, sizeof(struct ctl_ready), &d),
			 CTL_READY);
	assert_int_equal(t_check(emu_msg_check, CTL_REC_ITER, sizeof(struct ctl_rec_iter), &d),
			 CTL_REC_ITER);
	assert_int_equal(t_check(emu_msg_check, CTL_DONE, sizeof(struct ctl_done), &d), CTL_DONE);
	assert_int_equal(t_check(emu_msg_check, CTL_ERROR, sizeof(struct ctl_error), &d),
			 CTL_ERROR);
	assert_int_equal(t_check(emu_msg_check, CTL_PHASE, sizeof(struct ctl_phase), &d),
			 CTL_PHASE);
	assert_int_equal(t_check(emu_msg_check, CTL_PHASE, sizeof(struct ctl_phase) - 4, &d),
			 -EBADMSG);
	assert_int_equal(t_check(emu_msg_check, CTL_JOB, ctl_job_len(2), &d), -EBADMSG);
}

static int t_flows(uint32_t n, size_t len, struct diag *d)
{
	struct ctl_rec_flows *m = t_msg(CTL_REC_FLOWS, len);
	int r;

	m->n = n;
	diag_clear(d);
	r = emu_msg_check(m, len, d);
	free(m);
	return r;
}

static void test_runner_flows(void **state)
{
	size_t one = sizeof(struct ctl_flow), hdr = sizeof(struct ctl_rec_flows);
	struct diag d = {0};

	(void)state;
	assert_int_equal(t_flows(0, hdr, &d), CTL_REC_FLOWS);
	assert_int_equal(t_flows(3, hdr + 3 * one, &d), CTL_REC_FLOWS);
	assert_int_equal(t_flows(CTL_FLOWS_MAX, hdr + CTL_FLOWS_MAX * one, &d), CTL_REC_FLOWS);
	assert_true(hdr + CTL_FLOWS_MAX * one <= CTL_MAX_MSG);
	assert_int_equal(t_flows(CTL_FLOWS_MAX + 1, hdr + (CTL_FLOWS_MAX + 1) * one, &d), -EBADMSG);
	assert_int_equal(t_flows(4, hdr + 3 * one, &d), -EBADMSG);
	assert_non_null(strstr(d.msg, "for 4 records"));
	assert_int_equal(t_flows(0, hdr - 4, &d), -EBADMSG);
}

/* A reason is printed with %s, so one that fills its field without a NUL is refused. */
static void test_runner_reason(void **state)
{
	struct ctl_done *m = t_msg(CTL_DONE, sizeof(*m));
	struct ctl_error *e = t_msg(CTL_ERROR, sizeof(*e));
	struct diag d = {0};

	(void)state;
	memset(m->reason, 'x', sizeof(m->reason));
	assert_int_equal(emu_msg_check(m, sizeof(*m), &d), -EBADMSG);
	m->reason[sizeof(m->reason) - 1] = '\0';
	assert_int_equal(emu_msg_check(m, sizeof(*m), &d), CTL_DONE);
	memset(e->reason, 'y', sizeof(e->reason));
	assert_int_equal(emu_msg_check(e, sizeof(*e), &d), -EBADMSG);
	free(m);
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_accepts),   cmocka_unit_test(test_node_job),
		cmocka_unit_test(test_node_steps_job), cmocka_unit_test(test_node_refuses),
		cmocka_unit_test(test_runner_accepts), cmocka_unit_test(test_runner_flows),
		cmocka_unit_test(test_runner_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
