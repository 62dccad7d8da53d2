/* SPDX-License-Identifier: MIT */
/* A scenario as parsed from YAML: plain data in paper units, before scaling and generation.
 * Every field is documented in docs/scenario.md. Pure: no syscalls. */
#ifndef MODEL_SCENARIO_H
#define MODEL_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/keyword.h"
#include "lib/vec.h"
#include "model/gen_direct.h"
#include "model/gen_hxmesh.h"
#include "model/gen_multidim.h"

#define SCN_NAME_MAX 24 /* testbed names: [a-z0-9-], used in namespace names */

/* Where a file gives a field: its key's line and column, 1-based; 0:0 when it does not. */
struct scn_at {
	uint32_t line, col;
};

enum scn_gen {
	SCN_GEN_LEAFSPINE,
	SCN_GEN_BEST, /* one non-blocking switch joining the same endpoints */
	SCN_GEN_HAMMINGMESH, /* HammingMesh */
	SCN_GEN_MULTIDIM, /* Themis */
	SCN_GEN_DIRECT, /* TACOS */
};

/* One circuit of topology.ocs.circuits: OCS `ocs` joins its ports toward nodes a and b. */
struct scn_ocs_circuit {
	char ocs[SCN_NAME_MAX], a[SCN_NAME_MAX], b[SCN_NAME_MAX]; /* "o0", "l0", "s1" */
	uint32_t line; /* where the file gives it, for messages */
};

/* An OCS layer between leaves and spines (model/ocs.h, vClos §7): `count` OCSes, one per
 * leaf uplink; each leaf has one port on every OCS, each spine `spine_ports`. */
struct scn_ocs {
	uint32_t count; /* 0 = no OCS layer: leaves and spines are cabled directly */
	uint32_t spine_ports; /* ports of each spine on each OCS, 0 = default (model/ocs.h) */
	uint64_t delay_ns; /* reconfiguration delay: rewired ports stay dark this long */
	VEC(struct scn_ocs_circuit) circuits; /* the circuits at `up`; none = the default set */
};

struct scn_leafspine {
	uint32_t hosts_per_leaf;
	uint32_t leaves;
	uint32_t spines;
	uint32_t links_per_pair; /* parallel links between each leaf and each spine */
	uint64_t host_rate; /* bit/s, host <-> leaf, paper units */
	uint64_t fabric_rate; /* bit/s, leaf <-> spine, paper units */
	uint32_t gpus_per_server; /* hosts (GPU NICs) per server, joined by a full mesh */
	uint64_t server_rate; /* bit/s of that mesh (NVLink); default 10 x host_rate */
	struct scn_ocs ocs; /* leafspine only */
};

/* The other kinds are described by their generators' parameters, in paper units (rates as
 * written; the parser fills those the file leaves to topology.host_rate). */
struct scn_topology {
	enum scn_gen gen;
	struct scn_leafspine ls; /* leafspine and best (best uses hosts_per_leaf x leaves); every
				  * kind keeps topology.host_rate in ls.host_rate */
	struct gen_hxmesh_params hx; /* hammingmesh */
	struct gen_multidim_params md; /* multidim */
	struct gen_direct_params dr; /* direct */
	uint64_t delay_ns; /* one-way delay added on every link (needs netem) */
	uint32_t line, col; /* where the file gives the topology, for its size errors; 0 if not */
	struct scn_at delay_at, ocs_at; /* where delay and ocs are given, for `testbed doctor` */
};

enum scn_qdisc {
	SCN_QDISC_TBF,
	SCN_QDISC_HTB,
	SCN_QDISC_NONE,
};

struct scn_shaping {
	enum scn_qdisc qdisc;
	bool ack_priority; /* htb: pure ACKs ahead of data (policy/shape.h says why) */
	uint64_t burst_bytes; /* 0 = derived from the rate (about 1 ms of data) */
	uint64_t queue_bytes; /* 0 = derived from the rate */
	uint32_t mtu; /* every veth's MTU, bytes (68..65535); shaping counts frames of mtu + 14 */
	struct scn_at qdisc_at, ack_at; /* where qdisc and ack_priority are given */
};

enum scn_policy {
	SCN_POLICY_ECMP,
	SCN_POLICY_GREEDY, /* greedy routing §3.4.1: the runner tags every connection's path */
	SCN_POLICY_OPTIMAL, /* the least maximum link load, by exact search (the paper's ILP) */
	SCN_POLICY_EDGE_COLORING, /* the paper's baseline: a Koenig edge coloring of ToR pairs */
	SCN_POLICY_ANNEALING, /* the paper's baseline: Hedera's simulated annealing */
	SCN_POLICY_SOURCE, /* vClos §5.2: server port i of a leaf to uplink f(i) */
	SCN_POLICY_BALANCED, /* vClos's baseline: a new flow on the least used uplink */
};

enum scn_greedy_order {
	SCN_GREEDY_BUSIEST_TOR, /* the authors' code: ToRs with the most commodities first */
	SCN_GREEDY_INPUT, /* jobs in start order, each rank's connections in rank order */
};

/* When a policy other than ECMP decides, and over which jobs. */
enum scn_trigger {
	SCN_TRIGGER_JOB, /* a job's start and end: every running job's connections */
	SCN_TRIGGER_PHASE, /* greedy routing §3.4.2 as its authors' code runs it: each collective
			    * phase's start and end, over the jobs then in one */
};

/* How the runner pins the paths a policy chose. */
enum scn_enforce {
	SCN_ENFORCE_TAG, /* a DSCP path tag on the connection, honoured by every switch */
	SCN_ENFORCE_SPORT, /* greedy routing §3.5.3: a source port the switches' hash lands */
};

struct scn_seed {
	char node[SCN_NAME_MAX]; /* a switch name such as "l3" */
	uint32_t seed;
};

struct scn_routing {
	enum scn_policy policy;
	uint32_t seed; /* base ECMP seed; each switch derives its own */
	VEC(struct scn_seed) seeds; /* per-switch overrides */
	bool spray; /* untagged packets pick a next hop per packet (nft numgen), not per flow */
	enum scn_greedy_order order; /* greedy: the order commodities are assigned in */
	uint64_t optimal_limit; /* optimal: the most assignments its search may face */
	enum scn_enforce enforce; /* greedy and optimal: how their paths are pinned */
	enum scn_trigger trigger; /* when they decide */
	uint32_t line, col; /* where the file gives routing.policy; 0 if it does not */
	struct scn_at spray_at; /* where the file gives routing.spray */
};

struct scn_addressing {
	uint32_t base; /* host byte order; default 198.18.0.0 */
	uint8_t plen; /* default 15 */
};

/* Endpoint TCP congestion control. The papers model max-min fair sharing (greedy routing's
 * floodns, vClos's flow-level simulator, DCQCN on RoCE); on microsecond-RTT veth paths
 * Reno's AIMD converges to a fair share within seconds, CUBIC's time-based growth does not. */
enum scn_cc {
	SCN_CC_RENO,
	SCN_CC_CUBIC,
	SCN_CC_BBR,
};

struct scn_transport {
	enum scn_cc cc;
	/* Receive buffer cap per connection (tcp_rmem max), 0 = the kernel's autotuning: bounds
	 * what each flow keeps in flight, as the credits of the papers' lossless fabrics do. */
	uint64_t window_bytes;
};

/* emulation.rto_min: the RTAX_RTO_MIN metric of the endpoints' routes (policy/rto.h). */
enum scn_rto_mode {
	SCN_RTO_AUTO, /* from each route's paths' deepest queues in time */
	SCN_RTO_OFF, /* none: the kernel's 200 ms (a test switch) */
	SCN_RTO_FIXED, /* ns on every endpoint route */
};

struct scn_rto {
	enum scn_rto_mode mode;
	uint64_t ns; /* SCN_RTO_FIXED */
};

struct scn_emulation {
	double rate_scale; /* multiplies link rates; 0 = auto */
	double size_scale; /* multiplies message sizes */
	struct scn_rto rto_min;
};

struct scenario {
	char name[SCN_NAME_MAX];
	char *path; /* the file it was read from (owned) */
	struct scn_topology topology;
	struct scn_shaping shaping;
	struct scn_routing routing;
	struct scn_addressing addressing;
	struct scn_transport transport;
	struct scn_emulation emulation;
};

/* The kernel's name of a congestion control ("reno"). */
/* The YAML spellings of routing.policy and emulation.cc (one table each), and a value's. */
extern const struct keyword scn_policy_names[];
extern const struct keyword scn_cc_names[];
const char *scn_cc_name(enum scn_cc cc);
const char *scn_policy_name(enum scn_policy p);

/* Fills s with the documented defaults (no topology). */
void scn_init(struct scenario *s);
/* Frees what s owns; s itself is the caller's. NULL is fine. */
void scn_done(struct scenario *s);

/* Time dilation D = size_scale / rate_scale: compute times are multiplied by D, and reports
 * give paper-equivalent seconds as emulated seconds / D. */
double scn_dilation(const struct scenario *s);

#endif
