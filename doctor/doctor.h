/* SPDX-License-Identifier: MIT */
/* doctor/ owns what the testbed needs of the kernel and the machine: the features, their probes in
 * a throwaway namespace, the verdict. May include: kernel/, scenario/ and the pure layers. */
/* What the testbed needs of the kernel and the machine, and the verdict on what the probes
 * found (doctor_probe.h finds it): the features, which scenario field needs which, the line
 * `testbed doctor` prints per feature, and `up`'s refusal. Pure: no syscalls. */
#ifndef ORCH_DOCTOR_H
#define ORCH_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/diag.h"
#include "model/paths.h"
#include "model/scenario.h"
#include "model/topo.h"
#include "scenario/experiment.h"
#include "policy/route.h"

enum doctor_feat {
	DOCTOR_ROOT,
	DOCTOR_NETNS,
	DOCTOR_VETH,
	DOCTOR_TBF,
	DOCTOR_HTB,
	DOCTOR_PFIFO,
	DOCTOR_BFIFO,
	DOCTOR_NETEM,
	DOCTOR_INGRESS,
	DOCTOR_MQ, /* informational: the testbed does not use it */
	DOCTOR_BPF, /* informational: the sampler reads shapers by BPF, else by netlink */
	DOCTOR_U32,
	DOCTOR_MIRRED,
	DOCTOR_NFT, /* tables, chains, sets, maps and the jhash rule nftr.h emits */
	DOCTOR_NUMGEN,
	DOCTOR_RULE,
	DOCTOR_MULTIPATH,
	DOCTOR_URING,
	DOCTOR_MEMORY, /* informational */
	DOCTOR_NOFILE,
	DOCTOR_FEATS,
};

enum doctor_state {
	DOCTOR_UNTRIED, /* not probed: not asked for, or what its probe needs is missing */
	DOCTOR_OK,
	DOCTOR_MISSING,
};

/* What the probe of one feature found. */
struct doctor_result {
	enum doctor_state state;
	char detail[256]; /* what was found, or the kernel's words on the failure */
};

/* Sets r's state and detail. */
void doctor_say(struct doctor_result *r, enum doctor_state st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The machine's limits, as probed. */
struct doctor_limits {
	uint64_t nofile_hard; /* RLIMIT_NOFILE's hard limit */
	uint64_t nr_open; /* fs.nr_open: the most a hard limit can be raised to */
	bool nofile_raise; /* this process may raise its hard limit (CAP_SYS_RESOURCE) */
	uint64_t mem_avail; /* bytes (MemAvailable) */
};

/* Why a feature is needed: the scenario field (NULL: it is not), where the file gives it. */
struct doctor_need {
	const char *field; /* "topology.delay" */
	const char *remedy; /* what to do instead when it is missing; NULL: load it */
	struct scn_at at;
	bool either; /* one of the features needed with `either` will do (tbf or htb) */
};

struct doctor_needs {
	const char *file; /* the scenario (borrowed); NULL: what every scenario needs */
	struct doctor_need f[DOCTOR_FEATS];
	uint64_t namespaces, veths; /* of the largest topology */
	uint32_t conns; /* the most connections one emu-node opens (estimated) */
	uint64_t nofile_up; /* open files `up` needs: a namespace each, and its sockets */
	uint64_t nofile_node; /* open files an emu-node needs: its connections and its own */
};

/* The name `testbed doctor` prints for f ("netem"). */
const char *doctor_feat_name(enum doctor_feat f);

/* Whether a link of t has a delay, which only the netem qdisc gives (DOCTOR_NETEM). */
bool doctor_delayed(const struct topo *t);

/* Open files `up` keeps for a topology of n namespaces: one each, plus its sockets. */
uint64_t doctor_nofile_up(size_t n);

/* What every scenario needs: root, namespaces, veth, tbf or htb, nftables with jhash and
 * io_uring. */
void doctor_needs_core(struct doctor_needs *n);

/* What scenario e needs, built into topology t with its routing plan and resolved jobs
 * (all borrowed; e names the file in messages). */
void doctor_needs_of(const struct experiment *e, const struct topo *t,
		     const struct route_plan *plan, const job_list *jobs, struct doctor_needs *n);

/* Adds b's needs to a's (a sweep's variants): a feature either needs, with a's reason first;
 * the larger of each count. */
void doctor_needs_merge(struct doctor_needs *a, const struct doctor_needs *b);

/* The features to probe into want: those n needs (every one with all), and those their probes
 * stand on (a namespace, veths to put qdiscs on). */
void doctor_wanted(const struct doctor_needs *n, bool all, bool want[DOCTOR_FEATS]);

/* Judges memory and open files from lim against n into res. */
void doctor_judge_limits(const struct doctor_needs *n, const struct doctor_limits *lim,
			 struct doctor_result res[DOCTOR_FEATS]);

/* Whether f is needed and missing with nothing standing in for it: the run cannot go on. */
bool doctor_blocks(const struct doctor_needs *n, const struct doctor_result res[DOCTOR_FEATS],
		   enum doctor_feat f);

/* Feature f's line: its status ("ok", "missing", "info", "-") into *status and what it means
 * (who needs it, what to do) into buf. Returns doctor_blocks. */
bool doctor_line(const struct doctor_needs *n, const struct doctor_result res[DOCTOR_FEATS],
		 enum doctor_feat f, const char **status, char *buf, size_t len);

/* `up`'s refusal: the first blocking feature, named with the field that needs it ("file:l:c:
 * topology.delay needs the netem qdisc (sch_netem), which this kernel does not have; remove
 * the delay or load sch_netem"), as -EOPNOTSUPP with d set. 0 when nothing blocks. */
int doctor_refusal(const struct doctor_needs *n, const struct doctor_result res[DOCTOR_FEATS],
		   struct diag *d);

/* A leaf-spine of two leaves and two spines, whose leaf has one ECMP group: the ruleset
 * nftables is probed with (nftr_node_install of node), hashing or, with spray, spraying. */
struct doctor_nft_world {
	struct topo *t;
	struct topo_paths paths;
	struct route_plan plan;
	uint32_t node;
};
int doctor_nft_world_init(struct doctor_nft_world *w, bool spray, struct diag *d);
void doctor_nft_world_done(struct doctor_nft_world *w);

#endif
