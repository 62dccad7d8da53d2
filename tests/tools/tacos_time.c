// SPDX-License-Identifier: MIT
/* tacos_time: how long TACOS-Greedy (traffic/tacos.h) takes to synthesize an all-gather on a
 * 64-NPU 8x8 mesh (100 GB/s) and on the paper's largest Ring_FC_Switch, 512 NPUs (TACOS
 * Table I): a node is a ring of 2 (200 GB/s) by a fully connected 4 (100 GB/s), 64 nodes on a
 * degree-1 unwound switch (a uni-directional ring at 50 GB/s per local NPU, TACOS §IV-D).
 * alpha 0.5 us, a 1 GiB all-gather cut into one chunk per NPU. Prints the wall time of one
 * randomized run (the paper's unit) against its target (the acceptance: under 0.5 s
 * for the mesh, under 10 s for 512 NPUs) and, for each graph, its ratio to the paper's 6.09
 * minutes for 512 NPUs. Usage: tacos_time [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "traffic/tacos.h"

#define GBYTE 8000000000ull /* 1 GB/s in bit/s */
#define ALPHA 0.5e-6
#define PAPER_S (6.09 * 60)
#define MAX_LINKS 8192

static struct tacos_link links[MAX_LINKS];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void add(uint32_t *m, uint32_t u, uint32_t v, uint64_t rate)
{
	links[(*m)++] = (struct tacos_link){u, v, ALPHA, rate};
}

static struct tacos_graph mesh8x8(void)
{
	uint32_t m = 0, r, c;

	for (r = 0; r < 8; r++)
		for (c = 0; c < 8; c++) {
			if (c + 1 < 8)
				add(&m, r * 8 + c, r * 8 + c + 1, 100 * GBYTE),
					add(&m, r * 8 + c + 1, r * 8 + c, 100 * GBYTE);
			if (r + 1 < 8)
				add(&m, r * 8 + c, r * 8 + c + 8, 100 * GBYTE),
					add(&m, r * 8 + c + 8, r * 8 + c, 100 * GBYTE);
		}
	return (struct tacos_graph){64, m, links};
}

/* NPU = a + 2 (b + 4 node): a on the ring of 2, b on the fully connected 4. */
static struct tacos_graph ring_fc_switch(uint32_t nodes)
{
	uint32_t m = 0, j, a, b, b2, id;

	for (j = 0; j < nodes; j++)
		for (b = 0; b < 4; b++)
			for (a = 0; a < 2; a++) {
				id = a + 2 * (b + 4 * j);
				add(&m, id, (1 - a) + 2 * (b + 4 * j), 200 * GBYTE);
				for (b2 = 0; b2 < 4; b2++)
					if (b2 != b)
						add(&m, id, a + 2 * (b2 + 4 * j), 100 * GBYTE);
				add(&m, id, a + 2 * (b + 4 * ((j + 1) % nodes)), 50 * GBYTE);
			}
	return (struct tacos_graph){8 * nodes, m, links};
}

static int run(const char *name, struct tacos_graph g, uint32_t runs, double target_s)
{
	struct tacos_cfg c = {.chunk_bytes = (1ull << 30) / g.n, .k = 1, .runs = runs, .seed = 1};
	struct tacos_result r;
	struct diag d = {0};
	double t0 = now_s(), wall;

	if (tacos_allgather(&g, &c, &r, &d)) {
		fprintf(stderr, "tacos_time: %s: %s\n", name, d.msg);
		return 1;
	}
	wall = now_s() - t0;
	printf("tacos-greedy %s (%u NPUs, %u links), %u run%s: %.3f s, %.3f s per run (target < "
	       "%g s); all-gather %.1f us\n",
	       name, g.n, g.nlinks, runs, runs == 1 ? "" : "s", wall, wall / runs, target_s,
	       r.t_ag * 1e6);
	printf("  %s per run against the paper's 6.09 min for 512 NPUs (Table I): %.3g\n", name,
	       wall / runs / PAPER_S);
	tacos_result_done(&r);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t runs = argc > 1 ? (uint32_t)atoi(argv[1]) : 1;

	if (!runs)
		runs = 1;
	return run("8x8 mesh", mesh8x8(), runs, 0.5) ||
	       run("Ring_FC_Switch 2x4x64", ring_fc_switch(64), runs, 10);
}
