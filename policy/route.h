/* SPDX-License-Identifier: MIT */
/* The routing plan: what each forwarding namespace gets. Destination routes aggregated into
 * prefixes; where a node has several next hops toward a prefix, an ECMP group: nftables hashes
 * the 5-tuple with the node's seed (or maps a DSCP path tag) to a mark, `ip rule fwmark M`
 * selects the per-next-hop table M whose one default route leaves through that port. Pure:
 * built from the model, no syscalls. */
#ifndef POLICY_ROUTE_H
#define POLICY_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/diag.h"
#include "lib/vec.h"
#include "model/paths.h"
#include "model/topo.h"

#define ROUTE_TABLE_MAIN 254
#define ROUTE_TABLE_BASE 100 /* per-next-hop table of port position i is BASE + i */
#define ROUTE_RULE_PRIO 1000 /* rule priority of table BASE + i is PRIO + i */
#define ROUTE_TAG_MAX 63 /* DSCP path tags 1..63; 0 means "hash" */

struct route_prefix {
	uint32_t addr; /* host byte order */
	uint8_t plen;
};

/* One route: in table `table` of `node`, dst/plen leaves through nh_n ports (nh_n > 1 only
 * in the main table, as the fallback for locally generated packets). */
struct route_entry {
	uint32_t node;
	uint32_t table;
	struct route_prefix dst;
	uint32_t nh_off, nh_n; /* ports in plan.ports */
	uint32_t src; /* preferred source address, 0 for none */
	uint32_t rto_min_ms; /* the RTAX_RTO_MIN metric, 0 for none (policy/route_rto.h) */
};

struct route_rule {
	uint32_t node;
	uint32_t prio;
	uint32_t mark;
	uint32_t table;
};

/* An ECMP group of one node: destinations sharing the same set of >1 next-hop ports. */
struct route_group {
	uint32_t node;
	uint32_t id; /* 0, 1, ... within the node */
	uint32_t seed; /* jhash seed */
	bool spray; /* untagged packets pick a member at random per packet (nft numgen) */
	uint32_t nh_off, nh_n; /* ports in plan.ports; DSCP tag k selects the k-th (1-based) */
	uint32_t pfx_off, pfx_n; /* destination prefixes in plan.prefixes */
};

/* Everything a node gets, as ranges into the plan's arrays. */
struct route_node {
	uint32_t route_off, route_n;
	uint32_t rule_off, rule_n;
	uint32_t group_off, group_n;
	uint32_t edge_off, edge_n; /* ports facing non-forwarding endpoints, in plan.ports */
};

struct route_plan {
	VEC(struct route_node) nodes; /* one per topo node */
	VEC(struct route_entry) routes;
	VEC(struct route_rule) rules;
	VEC(struct route_group) groups;
	VEC(uint32_t) ports;
	VEC(struct route_prefix) prefixes;
};

/* Builds the plan for every node of t from shortest paths p. 0 or -ENOMEM.
 * Release with route_plan_done (also after failure). */
int route_plan_build(const struct topo *t, const struct topo_paths *p, struct route_plan *out,
		     struct diag *d);
void route_plan_done(struct route_plan *plan);

/* Shortest paths of t into *p, then its plan into *plan: what a topology change rebuilds (the
 * control plane, virtual time). 0 or -ENOMEM with d set; release both either way. */
int route_plan_for(const struct topo *t, struct topo_paths *p, struct route_plan *plan,
		   struct diag *d);

/* Mark and table of the per-next-hop table for port position i of a node. */
static inline uint32_t route_port_table(uint32_t pos)
{
	return ROUTE_TABLE_BASE + pos;
}

/* The Linux kernel's jhash() over a byte string, as nft's `jhash` expression computes it. */
uint32_t route_jhash(const void *key, uint32_t len, uint32_t seed);

/* A flow's 5-tuple, host byte order. */
struct route_flow {
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint8_t proto;
	uint8_t tag; /* DSCP path tag */
};

/* The member index (0-based) of a group that nft picks for flow f at this node:
 * jhash over saddr . daddr . proto . sport . dport (each padded to 32 bits as nft's
 * registers hold them), scaled to nh_n. */
uint32_t route_hash_pick(const struct route_flow *f, uint32_t seed, uint32_t nh_n);

/* An all-to-all's fraction of injection bandwidth under per-flow ECMP, over random draws. */
struct route_a2a_bound {
	double mean, min, max;
};

/* All-to-all with `channels` flows per ordered pair of endpoints (each 1 / channels of the
 * pair's block), each with a random source port (stream `seed`) to emu-node's port, routed
 * as route_trace hashes it: the per-pair rate at which the busiest link direction is full, as
 * a fraction of injection bandwidth like fluid_alltoall, for `trials` draws. Parallel links
 * count as their first. The bound hashing puts on a transport that fills every link it can;
 * compare fluid_alltoall's equal split (spraying), which many channels approach. 0, -EINVAL
 * (an unreachable pair, fewer than two endpoints) or -ENOMEM. */
int route_alltoall_hashed(const struct topo *t, const struct route_plan *plan, uint32_t trials,
			  uint64_t seed, uint32_t channels, struct route_a2a_bound *out);

/* The same bound for the flows one job will make: n ranks on endpoints eps[rank] (indexes
 * into t->endpoints, as the scheduler places them), `channels` TCP connections per pair with
 * the source ports emu-node binds (traffic/sport.h, first candidates), both directions routed.
 * What a run of this scenario should approach under per-flow ECMP, rather than a mean over
 * random ports. 0, -EINVAL or -ENOMEM. */
int route_alltoall_conns(const struct topo *t, const struct route_plan *plan, const uint32_t *eps,
			 uint32_t n, uint32_t job, uint32_t channels, double *out);

/* The link loads behind route_alltoall_conns: load[p] = how many blocks of the job's n (n - 1)
 * leave through port p (t->ports.n entries, caller's; parallel links count as their first),
 * each flow carrying 1 / channels of one. A run's bytes through p over an iteration are about
 * load[p] x block plus headers and ACKs: `testbed check --loads` prints them for comparing
 * with links.csv. 0, -EINVAL (n < 2, an unreachable pair) or -ENOMEM. */
int route_alltoall_conn_loads(const struct topo *t, const struct route_plan *plan,
			      const uint32_t *eps, uint32_t n, uint32_t job, uint32_t channels,
			      double *load);

/* Walks flow f from endpoint node src through the plan as the kernel would, writing up to
 * max node ids (src first) into hops. Tags apply at the first node that has a choice and
 * received the packet on an edge port. A spraying group is walked as if it hashed: its
 * packets take any member. Returns the hop count, or -EHOSTUNREACH, -ELOOP. */
int route_trace(const struct topo *t, const struct route_plan *plan, uint32_t src,
		const struct route_flow *f, uint32_t *hops, uint32_t max);

/* The same walk, giving the ports the flow leaves through, one per hop (port p is the link
 * direction leaving p): up to max into ports. The hop count, or -EHOSTUNREACH, -ELOOP. */
int route_trace_ports(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f, uint32_t *ports, uint32_t max);

/* One link direction a split flow crosses: the port it leaves through, and the share of the
 * flow's bytes that cross it. */
struct route_share {
	uint32_t port;
	double w;
};

/* Where a split walk stands: at node, arrived through in_port, with mass of the flow. */
struct route_split_at {
	uint32_t node, in_port;
	double mass;
};

/* What route_trace_split fills, and its scratch, made once for many walks over one topology:
 * out holds up to max shares; at a slot per port and walk (UINT32_MAX between walks), so that
 * a walk finds a port in constant time, whatever the size of the split. */
struct route_split {
	struct route_share *out;
	uint32_t max;
	uint32_t *at; /* 2 per port of the topology: in out, in the walk's next states */
	uint32_t nports;
	struct route_split_at *walk; /* 2 x max */
};

/* For walks of up to max shares over t's ports. 0 or -ENOMEM; route_split_done either way. */
int route_split_init(struct route_split *s, const struct topo *t, uint32_t max);
void route_split_done(struct route_split *s);

/* The walk of route_trace_ports where a spraying group that no tag overrides splits the
 * flow equally over its members (the fluid limit of per-packet spraying, as the virtual-time
 * backend models it), and a hash or a tag picks one member as in route_trace: every port the
 * flow's bytes leave through, each once in the order the walk first reaches it, with its share
 * (a cut between source and destination carries 1 in all), into s->out. Up to s->max entries;
 * the count, or -E2BIG (more than max), -EHOSTUNREACH, -ELOOP. t must have the ports s was
 * made for. */
int route_trace_split(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f, struct route_split *s);

#define ROUTE_TRACE_MAX 64 /* hops route_trace_width follows */

/* How many paths a DSCP tag can choose between for flow f from src: the member count of the
 * first hash group on its path that honours a tag (tags 1..that pick them), 0 when there is
 * none (one path only). Or -EHOSTUNREACH, -ELOOP. */
int route_trace_width(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f);

/* The index into plan->groups of the hash group whose member a DSCP tag picks for flow f from
 * src (the one route_trace_width counts), -ENOENT when there is none, or -EHOSTUNREACH,
 * -ELOOP. Its member route_hash_pick(f, seed, nh_n) is the path the untagged flow takes. */
int route_trace_group(const struct topo *t, const struct route_plan *plan, uint32_t src,
		      const struct route_flow *f);

/* The flow from rank a to rank b of job `job` placed on endpoints eps (indexes into
 * t->endpoints) on the one TCP connection the pair shares (traffic/sport.h): the lower rank's
 * bound source port (first candidate) to the higher rank's FLOW_DPORT, and back. */
struct route_flow route_job_flow(const struct topo *t, const uint32_t *eps, uint32_t job,
				 uint32_t a, uint32_t b);

/* The same with the lower rank bound to source port sport (0: flow_sport's first candidate),
 * as routing.enforce sport has it. */
struct route_flow route_job_flow_port(const struct topo *t, const uint32_t *eps, uint32_t job,
				      uint32_t a, uint32_t b, uint16_t sport);

/* The flow of the pair's connection `chan` of a job with channels (traffic/plan.h): the lower
 * rank bound to flow_sport_chan's first candidate. Channel 0 is route_job_flow's. */
struct route_flow route_job_flow_chan(const struct topo *t, const uint32_t *eps, uint32_t job,
				      uint32_t a, uint32_t b, uint32_t chan);

#endif
