// SPDX-License-Identifier: MIT
/* The model catalogue (every model the papers train, each with where its numbers come from),
 * job specs made from it, and the alpha-derived compute time of vClos. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "traffic/job.h"

#define FP32 4
#define FP16 2

const struct job_model job_models[] = {
	/* greedy routing §5.1, Table 2: one ring per parameter shard across the DP replicas */
	{"bloom",
	 "greedy routing §5.1 Table 2 (TP 4 x PP 12 = 48 GPUs per replica), 176 B params, fp32; "
	 "compute 6 P T / 312 TFLOPS from the authors' code (its job generator)",
	 176e9, FP32, 48, 1238769231, 0, COLL_ALLREDUCE},
	{"gpt3",
	 "greedy routing §5.1 Table 2 (TP 8 x PP 8 = 64), 175 B params, fp32; compute from "
	 "the authors' code",
	 175e9, FP32, 64, 1009615385, 0, COLL_ALLREDUCE},
	{"llama2-70b",
	 "greedy routing §5.1 Table 2 (TP 8 x PP 16 = 128), 70 B params, fp32; compute from "
	 "the authors' code",
	 70e9, FP32, 128, 2692307693, 0, COLL_ALLREDUCE},
	/* vClos §9.1: alpha from the authors' simulator at its smallest size (4); the paper
	 * gives no sizes for these, fp32 is assumed (V100, Horovod/NCCL, §8.1) */
	{"vgg16",
	 "vClos §9.1 alpha 0.25 (RapidNetSim VGG16_4); 138 M params external, not from "
	 "the paper; fp32 assumed",
	 138e6, FP32, 1, 0, 0.25, COLL_ALLREDUCE},
	{"resnet50",
	 "vClos §9.1 alpha 0.04 (RapidNetSim ResNet50_4); 25.6 M params external, not "
	 "from the paper; fp32 assumed",
	 25.6e6, FP32, 1, 0, 0.04, COLL_ALLREDUCE},
	{"resnet101",
	 "vClos §9.1 alpha 0.05 (RapidNetSim ResNet101_4); 44.5 M params external, not "
	 "from the paper; fp32 assumed",
	 44.5e6, FP32, 1, 0, 0.05, COLL_ALLREDUCE},
	{"bert",
	 "vClos §9.1 alpha 0.12 (RapidNetSim Bert_4); 300 M params from the paper "
	 "(§2.1); fp32 assumed",
	 300e6, FP32, 1, 0, 0.12, COLL_ALLREDUCE},
	{"moe",
	 "vClos §4.2 all-to-all 25.8% of a 600 B-param MoE model, alpha 0.258 (§9.1, "
	 "RapidNetSim Pangu); no size: flows of 'tens of megabytes' (§4.2), give bytes",
	 0, FP32, 1, 0, 0.258, COLL_ALLTOALL},
	/* Themis §5.2: FP16 gradients, pure data parallel but Transformer-1T */
	{"resnet152",
	 "Themis §5.2 (DP, FP16, 32 per NPU); 60.2 M params and 108 ms compute from "
	 "HammingMesh §V-B2 (A100, 32 per GPU, fp32 run); Themis gives neither",
	 60.2e6, FP16, 1, 108000000, 0, COLL_ALLREDUCE},
	{"gnmt",
	 "Themis §5.2 (DP, FP16, 128 per NPU); no size or compute in the papers: give "
	 "bytes and compute",
	 0, FP16, 1, 0, 0, COLL_ALLREDUCE},
	{"dlrm",
	 "Themis §5.2 (DP MLPs, FP16, 512 per NPU; embedding all-to-all overlapped, not "
	 "modelled); M 2.96 MB and compute 95+209+796 us from HammingMesh §V-B4 (its DLRM)",
	 1.48e6, FP16, 1, 1100000, 0, COLL_ALLREDUCE},
	{"transformer-1t",
	 "Themis §5.2: 1 T params (the name), FP16, model parallel over 128 NPUs, data "
	 "parallel across the rest; no compute in the paper: give it",
	 1e12, FP16, 128, 0, 0, COLL_ALLREDUCE},
};

const size_t job_models_n = sizeof(job_models) / sizeof(job_models[0]);

const struct job_model *job_model_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < job_models_n; i++) {
		if (!strcmp(job_models[i].name, name))
			return &job_models[i];
	}
	return NULL;
}

/* The per-GPU shard in whole parameters, so M is a multiple of the element size (coll.h);
 * the ring step ceil(M / N) then matches the greedy routing authors' code for N = 2, 4, 8. */
static uint64_t job_model_bytes(const struct job_model *m)
{
	uint64_t p = (uint64_t)llround(m->params);
	uint64_t shards = m->shards ? m->shards : 1;

	return (p + shards - 1) / shards * m->bytes_per_param;
}

static int job_model_check(const struct job_model *m, uint32_t gpus, struct diag *d)
{
	if (!m)
		return diag_set(d, -EINVAL, "no model given");
	if (m->params <= 0)
		return diag_set(d, -EINVAL, "model %s has no size in the papers (%s)", m->name,
				m->source);
	if (!gpus || gpus > COLL_MAX_RANKS)
		return diag_set(d, -EINVAL, "model %s: %u GPUs, expected 1 to %u", m->name, gpus,
				COLL_MAX_RANKS);
	if (m->shards > 1 && gpus % m->shards)
		return diag_set(d, -EINVAL,
				"model %s needs a multiple of %u GPUs (one replica is %u shards), "
				"not %u",
				m->name, m->shards, m->shards, gpus);
	return 0;
}

int job_from_model(const struct job_model *m, uint32_t gpus, enum coll_algo algo,
		   struct job_spec *out, struct diag *d)
{
	int err = job_model_check(m, gpus, d);

	if (err)
		return err;
	memset(out, 0, sizeof(*out));
	snprintf(out->model, sizeof(out->model), "%s", m->name);
	out->gpus = gpus;
	out->kind = m->kind;
	out->algo = algo;
	if (m->kind == COLL_ALLTOALL)
		out->algo = COLL_PAIRWISE;
	if (m->shards > 1) {
		out->algo = COLL_SHARD_RINGS; /* greedy routing §5.1: one ring per shard */
		out->group = m->shards;
	}
	out->iterations = 1;
	out->bytes = job_model_bytes(m);
	out->elem = m->bytes_per_param;
	out->compute_ns = m->compute_ns;
	out->comm_fraction = m->comm_fraction;
	return 0;
}

uint64_t job_compute_ns(const struct job_spec *j, uint64_t rate_bps)
{
	double a = j->comm_fraction, comm, t;

	if (j->compute_ns)
		return j->compute_ns;
	if (!(a > 0 && a < 1) || !rate_bps)
		return 0;
	/* vClos §9.1: alpha is the uncoverable (non-overlapped) communication share, here of a
	 * contention-free iteration as the authors' simulator sizes its jobs, so compute =
	 * T_comm (1 - alpha) / alpha. T_comm is taken at scale (the bus factor's limit for many
	 * ranks): a GPU's compute does not depend on how many others train with it, and one-GPU
	 * jobs (common in traces) still get a compute time. */
	comm = coll_busbw_factor(j->kind, JOB_RANKS_AT_SCALE) * (double)j->bytes * 8e9 /
	       (double)rate_bps;
	t = comm * (1 - a) / a;
	return t >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(t);
}

void job_fit_duration(struct job_spec *j, uint64_t rate_bps)
{
	double per, a = j->comm_fraction, factor, bytes;
	/* whole elements; an all-to-all's in equal blocks of whole elements, one per rank */
	uint64_t elem =
		(j->elem ? j->elem : 4) * (j->kind == COLL_ALLTOALL && j->gpus ? j->gpus : 1);

	if (!j->duration_ns || !rate_bps)
		return;
	per = (double)j->duration_ns / (j->iterations ? j->iterations : 1);
	factor = coll_busbw_factor(j->kind, j->gpus);
	if (!(a > 0 && a < 1) || !(factor > 0))
		a = 0; /* no communication: one GPU, or a model without alpha */
	j->compute_ns = (uint64_t)llround(per * (1 - a));
	bytes = a > 0 ? per * a * (double)rate_bps / (factor * 8e9) : (double)elem;
	if (bytes < (double)elem)
		bytes = (double)elem;
	j->bytes = bytes >= 1.8e19 ? UINT64_MAX / elem * elem : (uint64_t)bytes / elem * elem;
}

uint64_t job_comm_ns(const struct job_spec *j, uint64_t bytes, uint64_t rate)
{
	double wire = coll_busbw_factor(j->kind, j->gpus) * (double)bytes * 8.0;

	return (uint64_t)(wire / (double)rate * 1e9);
}
