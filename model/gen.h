/* SPDX-License-Identifier: MIT */
/* Topology generators and the scenario -> topology build. Pure: no syscalls. */
#ifndef MODEL_GEN_H
#define MODEL_GEN_H

#include <stddef.h>

#include "lib/diag.h"
#include "model/scenario.h"
#include "model/topo.h"

/* Leaf-spine: hosts h0.. (group = leaf), leaves l0.., spines s0..; host links at host_rate,
 * links_per_pair parallel links per leaf-spine pair at fabric_rate; rates times scale.
 * Returns 0 or -errno with a message. */
int gen_leafspine(struct topo *t, const struct scn_leafspine *ls, double scale, struct diag *d);

/* "Best": the same hosts (and groups) on one non-blocking switch "sw". */
int gen_best(struct topo *t, const struct scn_leafspine *ls, double scale, struct diag *d);

/* Builds the topology a scenario describes: generator, rate scaling, per-switch ECMP seeds,
 * link delay, finalize, addressing. *out is written only on success; free with topo_free. */
int topo_build(const struct scenario *s, struct topo **out, struct diag *d);

/* The ECMP seed of switch node `id` for base seed `base` (deterministic mix). */
uint32_t gen_switch_seed(uint32_t base, uint32_t id);

/* The fastest link `rate_scale: auto` allows: tbf shaping was measured accurate (95-96% TCP
 * goodput, the 1448/1514 payload ceiling) up to here on the project's machines. */
#define GEN_AUTO_LINK_MAX 2000000000ULL

/* rate_scale: auto for topology t built at scale 1: the largest scale <= 1 at which every
 * endpoint sending at its NIC rate at once stays within capacity_bps, and no link runs faster
 * than link_max_bps. Intra-server (tier server) links count toward link_max only. */
double gen_auto_scale(const struct topo *t, uint64_t capacity_bps, uint64_t link_max_bps);

/* What the scenario's generator builds in its paper's terms (formula counts, diameter), as
 * lines of text for `testbed check`; "" for leafspine and best. Returns the length the whole
 * text needs, as snprintf does. */
int gen_summary(const struct scenario *s, char *buf, size_t size);

/* A rate times a scale, rounded to whole bit/s; 0 stays 0. */
uint64_t gen_scale_rate(uint64_t rate, double scale);

#endif
