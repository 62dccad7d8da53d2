// SPDX-License-Identifier: MIT
/* greedy_time: how long one decision of the greedy routing controller (policy/greedy.h)
 * takes at the greedy routing paper's scale, model only (§5.3, Fig. 7): 64 ToRs x 32 spines,
 * the commodities of its five-job mix at ring size 4 (BLOOM, LLaMA2-70B, GPT-3, LLaMA2-70B,
 * GPT-3: 1,728 ring connections, each replica on consecutive ToR slots of 32 NICs, as
 * scenarios/paper/greedy-2048.yaml places them). Prints the median and the spread over many
 * decisions in both orders, and the ratio to the paper's "roughly 10 ms"; then the medians of
 * the paper's Edge-Coloring and Simulated Annealing baselines (policy/greedy_base.h) on the
 * same commodities. Usage: greedy_time [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "policy/greedy.h"
#include "policy/greedy_base.h"

#define TORS 64
#define SPINES 32
#define NICS 32 /* per ToR */
#define PAPER_MS 10.0

static const unsigned shards[] = {48, 128, 64, 128, 64}; /* the five jobs' TP x PP */
#define DP 4 /* ring size: replicas */

static struct greedy_comm comms[TORS * NICS];
static struct greedy_cand cands[TORS * NICS * SPINES];
static uint32_t links[TORS * NICS * SPINES * 2];
static uint32_t dst_nic[TORS * NICS], dst_slot[TORS * NICS]; /* for the annealing */

static uint32_t up(uint32_t tor, uint32_t s)
{
	return tor * SPINES + s;
}

static uint32_t down(uint32_t s, uint32_t tor)
{
	return TORS * SPINES + s * TORS + tor;
}

/* Ring edges of every job: shard i of replica r sends to shard i of replica r+1 (mod DP). */
static uint32_t build(void)
{
	uint32_t n = 0, nc = 0, nl = 0, nic = 0, j, r, i, s;

	for (j = 0; j < sizeof(shards) / sizeof(shards[0]); j++) {
		for (r = 0; r < DP; r++)
			for (i = 0; i < shards[j]; i++) {
				uint32_t a = (nic + r * shards[j] + i) / NICS;
				uint32_t d = nic + ((r + 1) % DP) * shards[j] + i, b = d / NICS;

				dst_nic[n] = d;
				dst_slot[n] = d % NICS;
				comms[n] = (struct greedy_comm){a, b, nc, a == b ? 0 : SPINES};
				for (s = 0; a != b && s < SPINES; s++) {
					cands[nc++] = (struct greedy_cand){nl, 2};
					links[nl++] = up(a, s);
					links[nl++] = down(s, b);
				}
				n++;
			}
		nic += DP * shards[j];
	}
	return n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, p10 and p90 of one baseline (0: edge coloring, 1: annealing) over runs decisions. */
static int time_base(const struct greedy_in *in, int which, int runs, double *ms, uint32_t *choice)
{
	int k, load = 0;

	for (k = 0; k < runs; k++) {
		double t0 = now_ms();

		load = which ? greedy_anneal(in, dst_nic, dst_slot, 1, choice)
			     : greedy_edge_color(in, choice);
		ms[k] = now_ms() - t0;
		if (load < 0)
			return load;
	}
	qsort(ms, (size_t)runs, sizeof(*ms), cmp);
	printf("%s, %u commodities, %u spines x %u ToRs: median %.3f ms (p10 %.3f, p90 %.3f), max "
	       "load %d\n",
	       which ? "simulated annealing (Hedera)" : "edge coloring", in->ncomm, SPINES, TORS,
	       ms[runs / 2], ms[runs / 10], ms[runs * 9 / 10], load);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 200, k, o, load = 0;
	struct greedy_in in = {comms, 0, cands, links, 2 * TORS * SPINES};
	static uint32_t choice[TORS * NICS];
	double *ms = calloc((size_t)(runs > 0 ? runs : 1), sizeof(*ms));

	if (runs <= 0 || !ms)
		return 2;
	in.ncomm = build();
	for (o = 0; o < 2; o++) {
		for (k = 0; k < runs; k++) {
			double t0 = now_ms();

			load = greedy_assign(&in, o ? GREEDY_ORDER_INPUT : GREEDY_ORDER_BUSIEST_TOR,
					     choice);
			ms[k] = now_ms() - t0;
		}
		if (load < 0)
			return 1;
		qsort(ms, (size_t)runs, sizeof(*ms), cmp);
		printf("greedy (%s order), %u commodities, %u spines x %u ToRs: median %.3f ms "
		       "(p10 %.3f, p90 %.3f; target < 1 ms), max load %d (lower bound %d); the "
		       "paper's roughly %.0f ms is %.0f x that\n",
		       o ? "input" : "busiest-ToR", in.ncomm, SPINES, TORS, ms[runs / 2],
		       ms[runs / 10], ms[runs * 9 / 10], load, greedy_lower_bound(&in), PAPER_MS,
		       PAPER_MS / ms[runs / 2]);
	}
	for (o = 0; o < 2; o++) {
		if (time_base(&in, o, runs, ms, choice) < 0)
			return 1;
	}
	free(ms);
	return 0;
}
