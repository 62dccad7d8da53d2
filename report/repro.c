// SPDX-License-Identifier: MIT
/* The reproduction catalogue and its report (repro.h). Each paper's scenarios run emulated in
 * a full run, the paper-scale files (scenarios/paper/) in virtual time; --quick takes one or
 * two per paper, small enough together for about ten minutes here, in virtual time where the
 * emulated sweep is long. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/repro.h"

const struct repro_paper repro_papers[] = {
	{"greedy", "Routing for Large ML Models (greedy routing)",
	 "Cohen, Yallouz, Schapira, Belkar, Mizrahi. arXiv preprint."},
	{"vclos", "Isolated Scheduling for Distributed Training Tasks in GPU Clusters (vClos)",
	 "Han, Jiang, Cao, Yang, Liu, Qi, Lin, Zhao. arXiv preprint."},
	{"tacos", "TACOS: Topology-Aware Collective Algorithm Synthesizer for Distributed Training",
	 "Won, Elavazhagan, Srinivasan, Durg, Gupta, Krishna. arXiv preprint, 2023."},
	{"themis",
	 "Themis: A Network Bandwidth-Aware Collective Scheduling Policy for Distributed "
	 "Training of DL Models",
	 "Rashidi, Won, Srinivasan, Sridharan, Krishna. ISCA 2022."},
	{"hammingmesh", "HammingMesh: A Network Topology for Large-Scale Deep Learning",
	 "Hoefler, Bonato, De Sensi, Di Girolamo, Li, Heddes, Belk, Goel, Castro, Scott. SC 2022."},
};
const size_t repro_npapers = sizeof(repro_papers) / sizeof(repro_papers[0]);

const struct repro_item repro_items[] = {
	{"greedy", "greedy-s1.yaml", REPRO_UP, REPRO_SIM, "avg_comm",
	 "§5.2 Figs. 4-6: all-reduce time under greedy, the optimum, edge coloring, annealing, "
	 "ECMP"},
	{"greedy", "greedy-s3.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "§5.2 Fig. 8: the same with a spine down"},
	{"greedy", "paper/greedy-2048.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§5.1: the 2,048-NIC cluster with 0-8 spines failed"},
	{"vclos", "vclos-s2.yaml", REPRO_UP, REPRO_UP, "avg_jrt",
	 "Fig. 6: each model's slowdown under forced link contention"},
	{"vclos", "vclos-s4.yaml", REPRO_UP, REPRO_NONE, "avg_jrt",
	 "Table 4: Avg.JRT and Avg.JWT of ECMP, source routing and OCS-vClos against vClos"},
	{"vclos", "paper/vclos-cluster512.yaml", REPRO_SIM, REPRO_NONE, "avg_jct",
	 "Table 5 (§9.4-9.6): CLUSTER512, 5,000 jobs, each policy's Avg.JCT over the "
	 "non-blocking switch's at the same lambda"},
	{"vclos", "paper/vclos-cluster512-rapidnetsim.yaml", REPRO_SIM, REPRO_NONE, "avg_jct",
	 "Table 5 again, with the authors' simulator's choices where the paper is silent (servers "
	 "of 4 GPUs, one iteration, its collective mix, leaf-blind baselines)"},
	{"vclos", "paper/vclos-cluster2048.yaml", REPRO_SIM, REPRO_NONE, "avg_jwt",
	 "§9.5 (Fig. 13b): CLUSTER2048 at lambda 15 s, OCS-vClos's and vClos's Avg.JWT over "
	 "source routing's"},
	{"tacos", "tacos-mesh5.yaml", REPRO_UP, REPRO_UP, "avg_comm",
	 "Fig. 19: TACOS against ring and direct all-reduce on a 5x5 mesh"},
	{"tacos", "tacos-swsw.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "Fig. 19: the same on Switch_Switch"},
	{"tacos", "tacos-fail.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "Table III: a mesh with failed NPUs"},
	{"tacos", "tacos-mesh10.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "Fig. 6: TACOS 3.94x faster than the ring on a 10x10 mesh"},
	{"themis", "themis-t0.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "§5.1 toy: baseline / FIFO / SCF"},
	{"themis", "themis-s1.yaml", REPRO_UP, REPRO_NONE, "avg_comm", "S1: a 2D platform"},
	{"themis", "themis-s2.yaml", REPRO_UP, REPRO_UP, "avg_comm",
	 "S2: a 3D platform, utilization 56% to 95% (Fig. 10)"},
	{"themis", "themis-s3.yaml", REPRO_UP, REPRO_NONE, "avg_comm", "S3: a 3D platform"},
	{"themis", "themis-s4.yaml", REPRO_UP, REPRO_NONE, "avg_comm", "S4: a 4D platform"},
	{"themis", "themis-s5.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "S5: 64 nodes, in virtual time (too many for this machine's CPU emulated)"},
	{"themis", "themis-c1.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "C1: heterogeneous dimensions"},
	{"themis", "themis-c2.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "C2: heterogeneous dimensions"},
	{"themis", "themis-rsag.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "reduce-scatter and all-gather alone"},
	{"themis", "themis-chunk.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "the chunk-count sweep on S3"},
	{"themis", "themis-sizes.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "the all-reduce size sweep"},
	{"themis", "paper/themis-2d-swsw.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1: the 1,024-NPU 2D platform"},
	{"themis", "paper/themis-3d-homo.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1: the 1,024-NPU homogeneous 3D platform"},
	{"themis", "paper/themis-3d-het.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1: the 1,024-NPU heterogeneous 3D platform"},
	{"themis", "paper/themis-3d-fcrs.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1: 3D FC_Ring_Switch"},
	{"themis", "paper/themis-4d-rsss.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1: 4D R_SW_SW_SW"},
	{"themis", "paper/themis-4d-rfrs.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1: 4D R_FC_R_SW"},
	{"themis", "paper/themis-chunks-3d-het.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1 chunk granularity: 4 to 512 chunks on the 1,024-NPU heterogeneous 3D platform "
	 "(the paper's Themis+SCF 48.58% to 91.18%, averaged with 4D R_FC_R_SW)"},
	{"themis", "paper/themis-chunks-4d-rfrs.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "§6.1 chunk granularity: the same on 4D R_FC_R_SW"},
	{"hammingmesh", "hxmesh-ar.yaml", REPRO_UP, REPRO_SIM, "avg_comm",
	 "§V-A2: all-reduce on the Hx2Mesh, two Hamiltonian rings against the 2D torus and a "
	 "ring"},
	{"hammingmesh", "hxmesh-a2a.yaml", REPRO_UP, REPRO_NONE, "avg_comm",
	 "§V-A1 Table II: global (all-to-all) bandwidth"},
	{"hammingmesh", "paper/hxmesh-a2a-hx2.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "Table II: the small Hx2Mesh's global bandwidth, 1,024 accelerators (paper 25.4% of "
	 "injection, about busbw / 200 GB/s)"},
	{"hammingmesh", "paper/hxmesh-a2a-hx4.yaml", REPRO_SIM, REPRO_NONE, "avg_comm",
	 "Table II: the small Hx4Mesh's global bandwidth, 1,024 accelerators (paper 11.3% of "
	 "injection)"},
};
const size_t repro_nitems = sizeof(repro_items) / sizeof(repro_items[0]);

const struct repro_paper *repro_paper_find(const char *id)
{
	size_t i;

	for (i = 0; i < repro_npapers; i++)
		if (!strcmp(repro_papers[i].id, id))
			return &repro_papers[i];
	return NULL;
}

static bool wanted(const char *const *papers, size_t np, const char *id)
{
	size_t i;

	for (i = 0; i < np; i++)
		if (!strcmp(papers[i], id))
			return true;
	return !np;
}

static int unknown_paper(const char *id, struct diag *d)
{
	char known[128];
	size_t i, o = 0;

	known[0] = '\0';
	for (i = 0; i < repro_npapers && o < sizeof(known); i++)
		o += (size_t)snprintf(known + o, sizeof(known) - o, "%s%s", i ? ", " : "",
				      repro_papers[i].id);
	return diag_set(d, -EINVAL, "unknown paper '%s' (known: %s)", id, known);
}

int repro_select(const char *const *papers, size_t np, bool quick, uint32_t *idx, size_t *n,
		 struct diag *d)
{
	size_t i;

	*n = 0;
	for (i = 0; i < np; i++)
		if (!repro_paper_find(papers[i]))
			return unknown_paper(papers[i], d);
	for (i = 0; i < repro_nitems; i++)
		if (wanted(papers, np, repro_items[i].paper) &&
		    (!quick || repro_items[i].quick != REPRO_NONE))
			idx[(*n)++] = (uint32_t)i;
	return 0;
}

enum repro_backend repro_backend_of(const struct repro_item *it, bool quick, bool sim)
{
	if (sim)
		return REPRO_SIM;
	return quick ? it->quick : it->full;
}

bool repro_row_wanted(const struct repro_item *it, const char *metric, double paper)
{
	return isfinite(paper) || !strcmp(metric, it->metric);
}

void repro_verdict(const struct repro_result *r, char *buf, size_t len)
{
	if (r->status < 0)
		snprintf(buf, len, "not run");
	else if (!r->runs)
		snprintf(buf, len, "failed (exit %d): see its log", r->status);
	else if (r->missing)
		snprintf(buf, len, "%u of %u runs missing (their shard has not run)", r->missing,
			 r->runs);
	else if (r->ok < r->runs)
		snprintf(buf, len, "%u of %u runs failed", r->runs - r->ok, r->runs);
	else if (r->degraded)
		snprintf(buf, len, "%u runs ok, %u degraded by the machine", r->runs, r->degraded);
	else
		snprintf(buf, len, "%u runs ok", r->runs);
}

static const char *be_cmd(enum repro_backend be)
{
	return be == REPRO_SIM ? "sim" : "up";
}

static void report_summary(FILE *f, const struct repro_result *res, size_t n)
{
	char v[96];
	size_t i;

	fprintf(f,
		"| paper | scenario | backend | runs | time |\n| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < n; i++) {
		repro_verdict(&res[i], v, sizeof(v));
		fprintf(f, "| %s | `%s` | %s | %s | %.0f s |\n", res[i].it->paper, res[i].it->file,
			res[i].be == REPRO_SIM ? "virtual time" : "emulated", v, res[i].secs);
	}
}

/* The paper's figure, the measured one and measured / paper; "-" where there is none. */
static void report_row(FILE *f, const struct repro_row *w)
{
	fprintf(f, "| %s | %s | ", w->variant, w->metric);
	if (isfinite(w->paper))
		fprintf(f, "%.3g | ", w->paper);
	else
		fprintf(f, "- | ");
	if (isfinite(w->measured))
		fprintf(f, "%.3g | ", w->measured);
	else
		fprintf(f, "- | ");
	if (isfinite(w->paper) && isfinite(w->measured) && w->paper > 0)
		fprintf(f, "%.3f |\n", w->measured / w->paper);
	else
		fprintf(f, "- |\n");
}

static void report_item(FILE *f, const struct repro_result *r)
{
	char v[96];
	size_t i;

	repro_verdict(r, v, sizeof(v));
	fprintf(f, "### `%s`: %s\n\n", r->it->file, r->it->shows);
	fprintf(f, "`testbed %s %s` (%s): %s in %.0f s. Log: [%s](%s).\n\n", be_cmd(r->be),
		r->file[0] ? r->file : r->it->file,
		r->be == REPRO_SIM ? "virtual time" : "emulated", v, r->secs, r->log, r->log);
	if (r->status < 0)
		return;
	if (!r->rows.n) {
		fprintf(f, "No comparison to report.\n\n");
		return;
	}
	fprintf(f, "Each figure is a ratio to the variant's baseline in the scenario's sweep; the "
		   "paper's where the scenario gives it.\n\n");
	fprintf(f, "| variant | metric | paper | measured | measured / paper |\n"
		   "| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < r->rows.n; i++)
		report_row(f, &r->rows.v[i]);
	if (r->dir[0])
		fprintf(f,
			"\nResults: [%s](%s), its [comparison](%s/comparison.txt) and "
			"[plots](%s/plots).\n",
			r->dir, r->dir, r->dir, r->dir);
	fprintf(f, "\n");
}

void repro_report(FILE *f, const char *header, const struct repro_result *res, size_t n)
{
	size_t p, i;

	fprintf(f, "# Reproduction report\n\n%s\n\n", header);
	report_summary(f, res, n);
	fprintf(f, "\n");
	for (p = 0; p < repro_npapers; p++) {
		for (i = 0; i < n && strcmp(res[i].it->paper, repro_papers[p].id); i++)
			;
		if (i == n)
			continue;
		fprintf(f, "## %s\n\n%s\n\n", repro_papers[p].title, repro_papers[p].cite);
		for (i = 0; i < n; i++)
			if (!strcmp(res[i].it->paper, repro_papers[p].id))
				report_item(f, &res[i]);
	}
}
