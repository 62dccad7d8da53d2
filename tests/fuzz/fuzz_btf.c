// SPDX-License-Identifier: MIT
/* libFuzzer target for the BTF reader (kernel/kbtf.c) and the qdisc layout over it
 * (kernel/qstat_prog.c): any bytes must give an error or an index whose lookups stay inside
 * the input (ASan), and a layout found must build programs or refuse them, never overrun. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>

#include "kernel/kbtf.h"
#include "kernel/qstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_paths(const struct kbtf *k)
{
	static const char *const paths[][2] = {
		{"Qdisc", "qstats.drops"},
		{"Qdisc", "bstats.bytes"},
		{"sk_buff", "dev"},
		{"net_device", "qdisc"},
		{"bits", "a"},
		{"Qdisc", "handle.x"},
	};
	uint32_t off, sz, i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		(void)kbtf_member(k, paths[i][0], paths[i][1], &off, &sz);
	(void)kbtf_find(k, BTF_KIND_FUNC, "bpf_cast_to_kern_ctx");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly size bytes, so that ASan sees any read past the input */
	uint8_t *blob = malloc(size ? size : 1);
	struct qstat_layout l;
	uint8_t insns[QSTAT_INSNS_MAX * 8];
	struct diag d = {0};
	struct kbtf k;

	if (!blob)
		return 0;
	memcpy(blob, data, size);
	if (!kbtf_init(&k, blob, size)) {
		fuzz_paths(&k);
		kbtf_done(&k);
	}
	if (!qstat_layout_find(blob, size, &l, &d)) {
		(void)qstat_reader_build(insns, &l, 3, 4);
		(void)qstat_locator_build(insns, &l, 3);
	}
	free(blob);
	return 0;
}
