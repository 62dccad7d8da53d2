/* SPDX-License-Identifier: MIT */
/* TACOS (Won et al., "TACOS: Topology-Aware Collective Algorithm Synthesizer for Distributed
 * Training"): TACOS-Greedy synthesis of an all-gather on a directed graph of NPUs, and the
 * all-reduce composed of a reduce-scatter (the time-reversed all-gather of the transposed graph)
 * and an all-gather. Pure and deterministic for a seed: no syscalls, no global state.
 *
 * Model (TACOS §IV-A, §VI). Every link is directed and carries one chunk at a time; a chunk
 * of `chunk_bytes` takes alpha + 8 * chunk_bytes / rate seconds on it. Time is continuous. Chunk
 * c of the n * k chunks starts at NPU c / k; an all-gather ends when every NPU holds every
 * chunk, a reduce-scatter when NPU c / k holds chunk c summed over all NPUs. */
#ifndef TRAFFIC_TACOS_H
#define TRAFFIC_TACOS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "traffic/coll.h"

#define TACOS_MAX_NPUS 4096
#define TACOS_MAX_CELLS (1u << 26) /* n * n * k: the (chunk, NPU) table of a run */

struct tacos_link {
	uint32_t src, dst; /* NPUs */
	double alpha; /* seconds, >= 0 */
	uint64_t rate; /* bit/s, > 0 */
};

/* A directed graph; links are borrowed from the caller. */
struct tacos_graph {
	uint32_t n; /* NPUs 0 .. n-1 */
	uint32_t nlinks;
	const struct tacos_link *links;
};

struct tacos_cfg {
	uint64_t chunk_bytes; /* size of one chunk, >= 1 */
	uint32_t k; /* chunks per NPU, >= 1 */
	uint32_t runs; /* randomized runs R, >= 1; the fastest is kept (TACOS §VI-C) */
	uint64_t seed;
};

/* One transmission of a chunk over the link src -> dst during [t0, t1]. */
struct tacos_send {
	uint32_t chunk, src, dst;
	uint32_t link; /* index in the graph's links (the transposed graph's are the same) */
	double t0, t1;
};

/* A synthesized collective: sends sorted by (t0, t1, link, chunk); time is the last arrival. */
struct tacos_sched {
	struct tacos_send *sends;
	size_t nsends;
	double time;
};

struct tacos_result {
	uint32_t n, k;
	uint64_t chunk_bytes;
	struct tacos_sched rs; /* empty for an all-gather alone; REDUCE sends, times in [0, t_rs] */
	struct tacos_sched ag; /* COPY sends, times in [0, t_ag] from the all-gather's start */
	double t_rs, t_ag; /* t_rs 0 for an all-gather alone */
};

/* 0, or -EINVAL naming the first problem: n 0 or above TACOS_MAX_NPUS, a link to or from an
 * NPU out of range, a self link, rate 0, a negative alpha, a duplicate directed link, or a pair
 * of NPUs where the second is unreachable from the first. */
int tacos_graph_check(const struct tacos_graph *g, struct diag *d);

/* TACOS-Greedy all-gather (TACOS §VI), the best of cfg->runs runs (the first among equals).
 * Fills r (overwritten, not freed): ag pruned to first arrivals, rs empty. 0, -EINVAL (graph or
 * cfg refused, with the reason) or -ENOMEM. Release with tacos_result_done. */
int tacos_allgather(const struct tacos_graph *g, const struct tacos_cfg *cfg,
		    struct tacos_result *r, struct diag *d);

/* All-reduce (TACOS §VII-A): reduce-scatter = the all-gather synthesized on the transposed
 * graph, pruned and time-reversed (so it only uses links of g), then the all-gather. Returns
 * as tacos_allgather; r->t_rs + r->t_ag is the collective time. */
int tacos_allreduce(const struct tacos_graph *g, const struct tacos_cfg *cfg,
		    struct tacos_result *r, struct diag *d);

/* Reduce-scatter alone (TACOS §VII-A): the all-gather synthesized on the transposed graph,
 * time-reversed; r->ag empty. Returns as tacos_allgather. */
int tacos_reducescatter(const struct tacos_graph *g, const struct tacos_cfg *cfg,
			struct tacos_result *r, struct diag *d);

/* Keeps only the first arrival of each chunk at each NPU (a tree per chunk rooted at its
 * owner). Returns the number of sends dropped. */
size_t tacos_prune(struct tacos_sched *s, uint32_t n, uint32_t k);

/* Frees r's sends (NULL-safe) and empties it. */
void tacos_result_done(struct tacos_result *r);

/* r as text (traffic/tacos_text.c: a header line, then one line per send, times exact): the
 * length the whole text needs, written into buf as far as size allows (NUL-terminated). */
size_t tacos_result_format(const struct tacos_result *r, char *buf, size_t size);

/* tacos_result_format's text back into r (overwritten): 0, or -EINVAL naming the line and what
 * is wrong with it (r left empty), or -ENOMEM. Release with tacos_result_done. */
int tacos_result_parse(const char *text, size_t len, struct tacos_result *r, struct diag *d);

/* Whether r's sends are in range for its n and k, with finite times, t0 <= t1: 0, or -EINVAL
 * naming the first that is not (what a rank checks before it runs shipped sends). */
int tacos_result_check(const struct tacos_result *r, struct diag *d);

struct topo;
struct gen_direct_params;

/* A job on a direct topology (traffic/tacos_topo.c). */
struct tacos_topo_in {
	const struct topo *t;
	/* t's generator: the directions TACOS may use (an unwound switch grants some) */
	const struct gen_direct_params *dp;
	const uint32_t *eps; /* endpoint of NPU (rank) i */
	uint32_t n; /* NPUs */
	double alpha; /* seconds per link crossing */
	double rate_scale; /* t's rates are paper rates times this */
};

/* The directed graph of the job's NPUs: each direct link between two of them in each
 * direction dp grants, at the paper rate leaving that end. *links is malloc'd (free it). 0 or
 * -ENOMEM. */
int tacos_topo_graph(const struct tacos_topo_in *in, struct tacos_link **links, uint32_t *nlinks,
		     struct diag *d);

/* TACOS over that graph: tacos_allreduce, tacos_allgather or tacos_reducescatter for kind;
 * as those return. */
int tacos_topo_synth(const struct tacos_topo_in *in, enum coll_kind kind,
		     const struct tacos_cfg *cfg, struct tacos_result *r, struct diag *d);

/* The steps of r for all ranks (traffic/coll_tacos.c): p->kind COLL_ALLREDUCE (r from
 * tacos_allreduce), COLL_ALLGATHER (rs unused) or COLL_REDUCESCATTER (ag unused; r from
 * tacos_reducescatter or tacos_allreduce); for the last two k 1 or bytes / elem a multiple of
 * n * k, so that rank j's chunk is its k parts, p->nranks == r->n, the buffer cut into n * k parts
 * with coll_chunk_off. out is overwritten; 0, -EINVAL, -E2BIG (a rank with more tree children than
 * COLL_DEPS_MAX) or -ENOMEM, out left empty on error. Release with coll_sched_done. */
int tacos_coll_sched(const struct tacos_result *r, const struct coll_params *p,
		     struct coll_sched *out, struct diag *d);

#endif
