/* SPDX-License-Identifier: MIT */
/* failures.csv (docs/results.md): one row per network event of a run — a cable or node that
 * went down or came back, an OCS reconfiguration — with how long the control plane took to
 * reroute and how long until a probe between affected endpoints got through again. Pure: rows
 * are built into and parsed from caller buffers, as collect/records.h does. */
#ifndef COLLECT_NETEV_H
#define COLLECT_NETEV_H

#include <stddef.h>
#include <stdint.h>

#include "collect/records.h"

#define REC_NETEV_HEADER                                                                      \
	"t_ns,event,state,target,routes_ns,probe_ns,probe,probe_answered,probe_sent,dark_ns," \
	"nodes,route_ops,nft_ops,plan_ns,apply_ns,result"

struct rec_netev {
	int64_t t; /* when it happened, emulated ns since the run's start */
	char event[REC_NAME_MAX]; /* link, node, rewire */
	char state[REC_NAME_MAX]; /* down, up, rewire */
	char target[256]; /* "s3", "l0-s1", "o0:l0-s1 o0:l1-s1", "job 4: o0:l0-s1 ..." */
	int64_t routes_ns; /* event to routes, rules and hash groups reinstalled; REC_NEVER: not */
	int64_t probe_ns; /* event to every probe answered; REC_NEVER: not (or no probe) */
	char probe[40]; /* "h0>h4": the endpoints probed */
	uint32_t probe_answered, probe_sent;
	int64_t dark_ns; /* rewire: how long the changed ports were dark; REC_NEVER otherwise */
	uint32_t nodes; /* namespaces whose routing changed */
	uint32_t route_ops; /* routes, rules and neighbours set or removed */
	uint32_t nft_ops; /* nftables rulesets replaced */
	int64_t plan_ns, apply_ns; /* the control plane's compute and kernel times */
	char result[REC_REASON_MAX]; /* "ok", or why not ("refused: ...") */
};

/* A row, its newline included; returns the length needed, as snprintf does. */
int rec_netev_format(char *buf, size_t len, const struct rec_netev *e);
/* Parses a row; 0 or -EINVAL. */
int rec_netev_parse(const char *line, struct rec_netev *out);

#endif
