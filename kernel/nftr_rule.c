// SPDX-License-Identifier: MIT
/* nftables effector, rules: in each base chain one lookup of the destination in its verdict
 * map, and in each group's chains a rule that marks by jhash and one that overrides the mark
 * by DSCP path tag, as libnftnl expressions (see nftr.h). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <netinet/ip.h>

#include <libmnl/libmnl.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "kernel/nftr_priv.h"

#define IP_OFF_TOS offsetof(struct iphdr, tos)
#define IP_OFF_PROTO offsetof(struct iphdr, protocol)
#define IP_OFF_SADDR offsetof(struct iphdr, saddr)
#define IP_OFF_DADDR offsetof(struct iphdr, daddr)
#define TH_OFF_SPORT 0
#define TH_OFF_DPORT 2

static int expr_add(struct nftnl_rule *rule, struct nftnl_expr *e)
{
	if (!e)
		return -ENOMEM;
	nftnl_rule_add_expr(rule, e);
	return 0;
}

/* A load of len bytes into dreg: the kernel zeroes the rest of a partial 32-bit register. */
static struct nftnl_expr *payload(uint32_t base, uint32_t off, uint32_t len, uint32_t dreg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	if (!e)
		return NULL;
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	return e;
}

static struct nftnl_expr *meta(uint32_t key, uint16_t reg_attr, uint32_t reg)
{
	struct nftnl_expr *e = nftnl_expr_alloc("meta");

	if (!e)
		return NULL;
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, reg_attr, reg);
	return e;
}

/* Set membership (a match) or, with a dreg, a map lookup; either fails the rule on a miss. */
static struct nftnl_expr *lookup(const char *set, uint32_t sreg, bool map)
{
	struct nftnl_expr *e = nftnl_expr_alloc("lookup");

	if (!e)
		return NULL;
	if (nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, set) < 0) {
		nftnl_expr_free(e);
		return NULL;
	}
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, sreg);
	if (map)
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_DREG, NFT_REG_1);
	return e;
}

static struct nftnl_expr *jhash(uint32_t sreg, uint32_t len, uint32_t mod, uint32_t seed)
{
	struct nftnl_expr *e = nftnl_expr_alloc("hash");

	if (!e)
		return NULL;
	nftnl_expr_set_u32(e, NFTNL_EXPR_HASH_TYPE, NFT_HASH_JENKINS);
	nftnl_expr_set_u32(e, NFTNL_EXPR_HASH_SREG, sreg);
	nftnl_expr_set_u32(e, NFTNL_EXPR_HASH_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_HASH_LEN, len);
	nftnl_expr_set_u32(e, NFTNL_EXPR_HASH_MODULUS, mod);
	nftnl_expr_set_u32(e, NFTNL_EXPR_HASH_SEED, seed);
	nftnl_expr_set_u32(e, NFTNL_EXPR_HASH_OFFSET, 0);
	return e;
}

/* reg1 = (reg1 & mask) ^ 0 over one byte */
static struct nftnl_expr *mask8(uint8_t mask)
{
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");
	uint32_t m = mask, x = 0;

	if (!e)
		return NULL;
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_OP, NFT_BITWISE_BOOL);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, 1);
	if (nftnl_expr_set_data(e, NFTNL_EXPR_BITWISE_MASK, &m, 1) < 0 ||
	    nftnl_expr_set_data(e, NFTNL_EXPR_BITWISE_XOR, &x, 1) < 0) {
		nftnl_expr_free(e);
		return NULL;
	}
	return e;
}

/* reg1 >>= shift over one byte (a 32-bit shift of the register, as nft does for `ip dscp`) */
static struct nftnl_expr *rshift8(uint32_t shift)
{
	struct nftnl_expr *e = nftnl_expr_alloc("bitwise");

	if (!e)
		return NULL;
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_OP, NFT_BITWISE_RSHIFT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, 1);
	if (nftnl_expr_set_data(e, NFTNL_EXPR_BITWISE_DATA, &shift, sizeof(shift)) < 0) {
		nftnl_expr_free(e);
		return NULL;
	}
	return e;
}

/* ip daddr vmap @dst_pre (or dst_out): goto the chain of the group the destination is in */
static int dst_vmap(struct nftnl_rule *rule, enum nftr_hook h)
{
	struct nftnl_expr *e;
	int r;

	r = expr_add(rule, payload(NFT_PAYLOAD_NETWORK_HEADER, IP_OFF_DADDR, 4, NFT_REG_1));
	e = r ? NULL : lookup(nftr_hook_map(h), NFT_REG_1, false);
	if (e)
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_DREG, NFT_REG_VERDICT);
	return r ? r : expr_add(rule, e);
}

/* meta iif @edge */
static int match_edge(struct nftnl_rule *rule)
{
	int r;

	r = expr_add(rule, meta(NFT_META_IIF, NFTNL_EXPR_META_DREG, NFT_REG_1));
	return r ? r : expr_add(rule, lookup(NFTR_SET_EDGE, NFT_REG_1, false));
}

/* reg1 = a random number in [0, mod), drawn per packet */
static struct nftnl_expr *numgen(uint32_t mod)
{
	struct nftnl_expr *e = nftnl_expr_alloc("numgen");

	if (!e)
		return NULL;
	nftnl_expr_set_u32(e, NFTNL_EXPR_NG_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_NG_MODULUS, mod);
	nftnl_expr_set_u32(e, NFTNL_EXPR_NG_TYPE, NFT_NG_RANDOM);
	nftnl_expr_set_u32(e, NFTNL_EXPR_NG_OFFSET, 0);
	return e;
}

/* meta mark set numgen random mod nh_n map @gN_hash: per-packet spraying, the closest Linux
 * has to HammingMesh's adaptive routing over all shortest paths (HammingMesh §IV-C). */
static int mark_spray(struct nftnl_rule *rule, const struct route_group *g)
{
	char name[NFTR_NAME_MAX];
	int r;

	nftr_set_name(name, sizeof(name), g->id, NFTR_HASH);
	r = expr_add(rule, numgen(g->nh_n));
	r = r ? r : expr_add(rule, lookup(name, NFT_REG_1, true));
	return r ? r : expr_add(rule, meta(NFT_META_MARK, NFTNL_EXPR_META_SREG, NFT_REG_1));
}

/* meta mark set jhash ip saddr . ip daddr . ip protocol . th sport . th dport
 *	mod nh_n seed S map @gN_hash
 * Each field in its own 32-bit register, as route_hash_pick lays out its key. */
static int mark_hash(struct nftnl_rule *rule, const struct route_group *g)
{
	const uint32_t nh = NFT_PAYLOAD_NETWORK_HEADER, th = NFT_PAYLOAD_TRANSPORT_HEADER;
	char name[NFTR_NAME_MAX];
	int r;

	if (g->spray)
		return mark_spray(rule, g);
	nftr_set_name(name, sizeof(name), g->id, NFTR_HASH);
	r = expr_add(rule, payload(nh, IP_OFF_SADDR, 4, NFT_REG32_00));
	r = r ? r : expr_add(rule, payload(nh, IP_OFF_DADDR, 4, NFT_REG32_01));
	r = r ? r : expr_add(rule, payload(nh, IP_OFF_PROTO, 1, NFT_REG32_02));
	r = r ? r : expr_add(rule, payload(th, TH_OFF_SPORT, 2, NFT_REG32_03));
	r = r ? r : expr_add(rule, payload(th, TH_OFF_DPORT, 2, NFT_REG32_04));
	r = r ? r : expr_add(rule, jhash(NFT_REG32_00, NFTR_HASH_LEN, g->nh_n, g->seed));
	r = r ? r : expr_add(rule, lookup(name, NFT_REG_1, true));
	return r ? r : expr_add(rule, meta(NFT_META_MARK, NFTNL_EXPR_META_SREG, NFT_REG_1));
}

/* meta mark set ip dscp map @gN_tag */
static int mark_tag(struct nftnl_rule *rule, uint32_t gid)
{
	char name[NFTR_NAME_MAX];
	int r;

	nftr_set_name(name, sizeof(name), gid, NFTR_TAG);
	r = expr_add(rule, payload(NFT_PAYLOAD_NETWORK_HEADER, IP_OFF_TOS, 1, NFT_REG_1));
	r = r ? r : expr_add(rule, mask8(0xfc));
	r = r ? r : expr_add(rule, rshift8(2));
	r = r ? r : expr_add(rule, lookup(name, NFT_REG_1, true));
	return r ? r : expr_add(rule, meta(NFT_META_MARK, NFTNL_EXPR_META_SREG, NFT_REG_1));
}

static struct nftnl_rule *rule_new(const char *chain)
{
	struct nftnl_rule *rule = nftnl_rule_alloc();

	if (!rule)
		return NULL;
	nftnl_rule_set_u32(rule, NFTNL_RULE_FAMILY, NFPROTO_IPV4);
	if (nftnl_rule_set_str(rule, NFTNL_RULE_TABLE, NFTR_TABLE) < 0 ||
	    nftnl_rule_set_str(rule, NFTNL_RULE_CHAIN, chain) < 0) {
		nftnl_rule_free(rule);
		return NULL;
	}
	return rule;
}

static int rule_emit(struct mnl_nlmsg_batch *b, uint32_t *seq, struct nftnl_rule *rule)
{
	struct nlmsghdr *nlh;

	nlh = nftr_msg_start(b, seq, NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND);
	nftnl_rule_nlmsg_build_payload(nlh, rule);
	return nftr_msg_end(b);
}

static int vmap_rule(struct mnl_nlmsg_batch *b, uint32_t *seq, enum nftr_hook h)
{
	struct nftnl_rule *rule = rule_new(nftr_hook_chain(h));
	int r;

	if (!rule)
		return -ENOMEM;
	r = dst_vmap(rule, h);
	r = r ? r : rule_emit(b, seq, rule);
	nftnl_rule_free(rule);
	return r;
}

static int hash_rule(struct mnl_nlmsg_batch *b, uint32_t *seq, const char *chain,
		     const struct route_group *g)
{
	struct nftnl_rule *rule = rule_new(chain);
	int r;

	if (!rule)
		return -ENOMEM;
	r = mark_hash(rule, g);
	r = r ? r : rule_emit(b, seq, rule);
	nftnl_rule_free(rule);
	return r;
}

/* Tags count on packets from an edge port (edge) or from the node itself (output chain). */
static int tag_rule(struct mnl_nlmsg_batch *b, uint32_t *seq, const char *chain,
		    const struct route_group *g, bool edge)
{
	struct nftnl_rule *rule = rule_new(chain);
	int r = 0;

	if (!rule)
		return -ENOMEM;
	if (edge)
		r = match_edge(rule);
	r = r ? r : mark_tag(rule, g->id);
	r = r ? r : rule_emit(b, seq, rule);
	nftnl_rule_free(rule);
	return r;
}

/* Group g's chain for hook h: the hash, then the tag (in prerouting only with edge ports: no
 * forwarded packet may carry a tag that counts here otherwise). */
static int group_rules(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct route_group *g,
		       enum nftr_hook h, bool edge)
{
	char chain[NFTR_NAME_MAX];
	int r;

	nftr_group_chain(chain, sizeof(chain), g->id, h);
	r = hash_rule(b, seq, chain, g);
	if (!r && (h == NFTR_OUT || edge))
		r = tag_rule(b, seq, chain, g, h == NFTR_PRE);
	return r;
}

int nftr_rules_build(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct route_plan *plan,
		     uint32_t node)
{
	const struct route_node *rn = &plan->nodes.v[node];
	uint32_t i, seq0 = *seq;
	int h, r = 0;

	for (h = NFTR_PRE; h <= NFTR_OUT && !r; h++)
		r = vmap_rule(b, seq, (enum nftr_hook)h);
	for (i = 0; i < rn->group_n && !r; i++)
		for (h = NFTR_PRE; h <= NFTR_OUT && !r; h++)
			r = group_rules(b, seq, &plan->groups.v[rn->group_off + i],
					(enum nftr_hook)h, rn->edge_n > 0);
	return r ? r : (int)(*seq - seq0);
}
