// SPDX-License-Identifier: MIT
/* libFuzzer target for the trace reader: any bytes must give 0 with well-formed jobs, or
 * -EINVAL / -ENOMEM with a message and nothing appended (ASan's leak check runs at exit). The
 * input's last byte, if any, also picks the options: states kept, columns mapped by hand. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/trace/job_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Options from bits of b: the reader's paths for states and workload.trace.columns. */
static void fuzz_opts(uint8_t b, struct job_trace_opts *o)
{
	static const char *const states[] = {"COMPLETED", "Pass", "terminated"};

	*o = (struct job_trace_opts){
		.default_model = "resnet50", .algo = COLL_RING, .iterations = 1};
	if (b & 1) {
		o->states = states;
		o->states_n = 3;
	}
	if (b & 2)
		o->columns[JT_SUBMIT] = "start_time";
	if (b & 4)
		o->columns[JT_GPU_PCT] = "g";
	if (b & 8)
		o->columns[JT_DURATION] = "end_time";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_trace_opts o;
	struct job_trace_left left = {{0}};
	job_list jobs = {0};
	struct diag d = {0};
	char *text = malloc(size + 1);
	size_t i;
	int r;

	if (!text)
		return 0;
	fuzz_opts(size ? data[size - 1] : 0, &o);
	memcpy(text, data, size);
	text[size] = '\0'; /* the reader gets a NUL-terminated file, as input_read gives it */
	r = workload_trace_parse("fuzz.csv", text, size, &o, &jobs, &left, &d);
	assert(r == 0 || r == -EINVAL || r == -ENOMEM);
	assert(!r == !d.msg[0]);
	assert(!r || (!jobs.n && !job_trace_left_total(&left)));
	for (i = 0; !r && i < jobs.n; i++)
		assert(jobs.v[i].gpus >= 1 && jobs.v[i].line >= 2 && !jobs.v[i].col);
	for (i = 0; !r && i < JT_LEFT_N; i++) /* the reader leaves out rows, never whole jobs */
		assert(i < JT_LEFT_LIMIT || !left.n[i]);
	vec_free(&jobs);
	free(text);
	return 0;
}
