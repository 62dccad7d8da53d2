// SPDX-License-Identifier: MIT
/* Scenario defaults and ownership (see scenario.h). */
#include <stdlib.h>
#include <string.h>

#include "model/scenario.h"

void scn_init(struct scenario *s)
{
	memset(s, 0, sizeof(*s));
	s->topology.ls.links_per_pair = 1;
	s->topology.ls.gpus_per_server = 1;
	s->topology.ls.ocs.delay_ns = 50000000; /* vClos §7: OCS switching takes 50 ms */
	s->topology.hx.radix = 64; /* HammingMesh §III-C: 64-port switches */
	s->topology.hx.taper = 1;
	s->topology.hx.planes = 1;
	s->shaping.qdisc = SCN_QDISC_HTB;
	s->shaping.ack_priority = true;
	s->shaping.mtu = 1500;
	s->routing.policy = SCN_POLICY_ECMP;
	s->routing.optimal_limit = 1000000000ULL;
	s->routing.seed = 1;
	s->addressing.base = (198u << 24) | (18u << 16);
	s->addressing.plen = 15;
	s->emulation.rate_scale = 1.0;
	s->emulation.size_scale = 1.0;
}

void scn_done(struct scenario *s)
{
	if (!s)
		return;
	free(s->path);
	s->path = NULL;
	vec_free(&s->routing.seeds);
	vec_free(&s->topology.ls.ocs.circuits);
}

double scn_dilation(const struct scenario *s)
{
	if (s->emulation.rate_scale <= 0)
		return 1.0;
	return s->emulation.size_scale / s->emulation.rate_scale;
}

const struct keyword scn_cc_names[] = {
	{"reno", SCN_CC_RENO},
	{"cubic", SCN_CC_CUBIC},
	{"bbr", SCN_CC_BBR},
	{NULL, 0},
};

const struct keyword scn_policy_names[] = {
	{"ecmp", SCN_POLICY_ECMP},	     {"greedy", SCN_POLICY_GREEDY},
	{"optimal", SCN_POLICY_OPTIMAL},     {"edge-coloring", SCN_POLICY_EDGE_COLORING},
	{"annealing", SCN_POLICY_ANNEALING}, {"source", SCN_POLICY_SOURCE},
	{"balanced", SCN_POLICY_BALANCED},   {NULL, 0},
};

const char *scn_cc_name(enum scn_cc cc)
{
	return keyword_name(scn_cc_names, (int)cc, "reno");
}

const char *scn_policy_name(enum scn_policy p)
{
	return keyword_name(scn_policy_names, (int)p, "?");
}
