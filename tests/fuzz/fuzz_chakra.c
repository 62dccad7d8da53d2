// SPDX-License-Identifier: MIT
/* libFuzzer target for the Chakra trace reader (traffic/chakra/): any bytes must give 0 with a
 * graph whose dependencies are node indices, or -EINVAL / -ENOMEM with a message; a graph read
 * is then checked as a one-rank job (its cycles, its sends and receives, which on one rank
 * meet nothing), which must not crash either (ASan's leak check runs at exit). */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "traffic/chakra/chakra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct chakra_rank r;
	struct chakra_stats st;
	struct diag d = {0};
	int err = chakra_read(data, size, "fuzz.0.et", &r, &d);
	size_t i;

	assert(!err || ((err == -EINVAL || err == -ENOMEM) && d.msg[0]));
	for (i = 0; !err && i < r.deps.n; i++)
		assert(r.deps.v[i] < r.nodes.n);
	if (!err) {
		d = (struct diag){0};
		err = chakra_check(&r, 1, NULL, &st, NULL, &d);
		assert(!err || d.msg[0]);
	}
	chakra_rank_done(&r);
	return 0;
}
