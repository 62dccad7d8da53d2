// SPDX-License-Identifier: MIT
/* libFuzzer target for the scenario parser: any bytes must give 0 or -errno with a message,
 * and leave nothing allocated (ASan's leak check runs at exit). */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scenario/scenario_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d = {0};
	struct experiment e;
	int r;

	r = exp_parse_buffer("fuzz.yaml", (const char *)data, size, &e, &d);
	/* a refusal always says why, and only -EINVAL and -ENOMEM can come from a buffer */
	assert(r == 0 || r == -EINVAL || r == -ENOMEM);
	assert(!r == !d.msg[0]);
	assert(r || (strlen(e.s.name) >= 1 && strlen(e.s.name) <= SCN_YAML_NAME_LEN));
	/* the leaf-spine tiers always have rates; other kinds may give them per dimension */
	assert(r || e.s.topology.gen > SCN_GEN_BEST ||
	       (e.s.topology.ls.host_rate && e.s.topology.ls.fabric_rate));
	assert(r || (uint64_t)e.s.topology.ls.hosts_per_leaf * e.s.topology.ls.leaves <= 65536);
	exp_done(&e);
	return 0;
}
