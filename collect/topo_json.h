/* SPDX-License-Identifier: MIT */
/* topology.json (docs/results.md): the topology a run was built on, nodes with names, roles
 * and addresses, links with their ends, emulated rates, shaping, tiers and dimensions; and
 * what the reports read back from it (struct col_topo_info). Pure (jansson in memory). */
#ifndef COLLECT_TOPO_JSON_H
#define COLLECT_TOPO_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "collect/metrics.h"
#include "lib/diag.h"
#include "model/topo.h"

#define COL_TOPO_SCHEMA "testbed-topology/1"
#define COL_TIER_NAME_MAX 12

/* topology.json of t, as a new object (NULL on ENOMEM). shaped[link * 2 + dir] is nonzero
 * where a shaping qdisc sits on that egress (borrowed). */
json_t *col_topo_json(const struct topo *t, const uint8_t *shaped);

/* One link as the reports see it. */
struct col_topo_link {
	char end[2][TOPO_NAME_MAX]; /* node names, port 0 and port 1 */
	uint64_t rate_bps[2]; /* per direction (0: unshaped) */
	uint8_t shaped[2];
	uint8_t endpoint[2]; /* the end (its egress: the direction of that index) is an endpoint */
	uint16_t dim;
	char tier[COL_TIER_NAME_MAX];
};

struct col_topo_info {
	VEC(struct col_topo_link) links; /* by link id */
	uint64_t *rate_bps; /* [link * 2 + dir], for struct col_links_cfg */
	uint8_t *shaped;
	uint8_t *endpoint;
	uint32_t dims; /* highest dimension tag + 1 (1 when no link has a dimension) */
};

/* Reads topology.json (as parsed by jansson) into out. 0, -EINVAL with a message for a
 * document that is not one, or -ENOMEM. Release with col_topo_info_done. */
int col_topo_info_parse(const json_t *j, struct col_topo_info *out, struct diag *d);
void col_topo_info_done(struct col_topo_info *ti);

/* The links configuration the metrics take, borrowing ti's arrays. */
struct col_links_cfg col_topo_links_cfg(const struct col_topo_info *ti);

/* "l0>s1" (direction 0 of a link between l0 and s1, "s1>l0" for 1) into buf (16 * 2 bytes). */
void col_topo_dir_label(const struct col_topo_info *ti, uint32_t link, uint32_t dir, char *buf,
			size_t len);

const char *col_tier_name(enum topo_tier t);

#endif
