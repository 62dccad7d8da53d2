/* SPDX-License-Identifier: MIT */
/* fabric/ owns a topology in the kernel: built, changed at run time (netctl: failures, repairs,
 * routes; OCS reconfiguration), torn down from its journal (state). May include: kernel/,
 * scenario/, doctor/ and the pure layers. */
/* Realizes a topology and its routing plan in the kernel (namespaces, veths, addresses,
 * qdiscs, routes, rules, nftables) and removes it again from the journal alone. */
#ifndef ORCH_FABRIC_H
#define ORCH_FABRIC_H

#include <signal.h>
#include <stdbool.h>

#include "lib/diag.h"
#include "model/scenario.h"
#include "model/topo.h"
#include "fabric/state.h"
#include "policy/route.h"

/* Build phases, reported to the progress callback. */
enum fabric_phase {
	FABRIC_NETNS,
	FABRIC_LINKS,
	FABRIC_CONFIG, /* addresses, qdiscs, routes, rules */
	FABRIC_NFT,
	FABRIC_PHASES,
};

struct fabric {
	const char *name; /* the testbed's name (namespaces are tb-<name>-<node>) */
	const struct scenario *s;
	const struct topo *t;
	const struct route_plan *plan;
	struct state *st;
	int root_fd;
	int *nsfd; /* per node, -1 when not open */
	volatile sig_atomic_t *stop; /* set by a signal handler: abandon the build */
	void (*progress)(void *arg, enum fabric_phase ph, size_t done, size_t total);
	void *progress_arg;
};

/* The namespace name of node n of testbed `tb`: "tb-<tb>-<node>". */
void fabric_ns_name(char *buf, size_t len, const char *tb, const char *node);

/* Builds everything, journaling each namespace before making it. On failure returns -errno
 * with d set and leaves cleanup to fabric_down (the journal has what was made). */
int fabric_up(struct fabric *f, struct diag *d) __attribute__((warn_unused_result));

/* Closes the namespace fds f holds. */
void fabric_close(struct fabric *f);

/* What fabric_down did, for the command to say. */
struct fabric_down_info {
	pid_t runner; /* a running `up` of the testbed it stopped first, 0 if none */
	bool runner_killed; /* that `up` did not stop within the grace and was killed */
	size_t removed; /* namespaces removed */
	size_t foreign; /* journal entries it could not prove `up` made: left alone */
	char first_foreign[128];
	pid_t waited_for; /* another `down` at work when it came, waited for (0: none) */
};

/* Stops the testbed's running `up` if there is one, kills processes inside its namespaces,
 * deletes the namespaces and the state. Acts only on namespaces whose identity the journal
 * recorded as they were made (state.h); tolerates what is already gone. One `down` at a time:
 * another at work is waited for (info->waited_for). info may be NULL. Returns 0, -ENOENT (no
 * such testbed), -EALREADY (the `down` waited for removed it), -EINVAL (a bad name) or -errno. */
int fabric_down(const char *name, struct fabric_down_info *info, struct diag *d);

/* Name of a build phase, for progress lines. */
const char *fabric_phase_name(enum fabric_phase ph);

#endif
