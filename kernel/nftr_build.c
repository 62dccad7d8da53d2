// SPDX-License-Identifier: MIT
/* nftables effector, objects: the table, its base and group chains, and the sets and maps of
 * a node's ECMP groups with their elements, as libnftnl messages in a caller's batch (see
 * nftr.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/udata.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "lib/vec.h"
#include "kernel/nftr_priv.h"

struct elem {
	uint8_t key[4];
	uint32_t data; /* a mark, or in a verdict map the group whose chain to go to */
	uint32_t flags;
};

/* A set or map before it becomes messages. */
struct set_desc {
	char name[NFTR_NAME_MAX];
	uint32_t flags;
	uint32_t key_type, key_len, key_order;
	/* 0 for a plain set; NFT_DATA_VERDICT for a verdict map (goto the group chains of hook);
	 * else map data is a host-order 4-byte mark */
	uint32_t data_type;
	enum nftr_hook hook;
	VEC(struct elem) elems;
};

void nftr_set_name(char *buf, size_t len, uint32_t gid, enum nftr_set_kind kind)
{
	static const char *const what[] = {"hash", "tag"};

	snprintf(buf, len, "g%u_%s", gid, what[kind]);
}

const char *nftr_hook_chain(enum nftr_hook h)
{
	return h == NFTR_PRE ? NFTR_CHAIN_PRE : NFTR_CHAIN_OUT;
}

const char *nftr_hook_map(enum nftr_hook h)
{
	return h == NFTR_PRE ? "dst_pre" : "dst_out";
}

void nftr_group_chain(char *buf, size_t len, uint32_t gid, enum nftr_hook h)
{
	snprintf(buf, len, "g%u_%s", gid, h == NFTR_PRE ? "pre" : "out");
}

uint32_t nftr_member_mark(const struct topo *t, const struct route_plan *plan,
			  const struct route_group *g, uint32_t i)
{
	/* port position = ifindex - 2, as route.c numbers the per-next-hop tables */
	return route_port_table(t->ports.v[plan->ports.v[g->nh_off + i]].ifindex - 2);
}

uint32_t nftr_tag_count(const struct route_group *g)
{
	return g->nh_n < ROUTE_TAG_MAX ? g->nh_n : ROUTE_TAG_MAX;
}

struct nlmsghdr *nftr_msg_start(struct mnl_nlmsg_batch *b, uint32_t *seq, uint16_t type,
				uint16_t flags)
{
	return nftnl_nlmsg_build_hdr(mnl_nlmsg_batch_current(b), type, NFPROTO_IPV4,
				     NLM_F_ACK | flags, (*seq)++);
}

int nftr_msg_end(struct mnl_nlmsg_batch *b)
{
	/* false means this message did not fit under the limit: it is not in the batch */
	return mnl_nlmsg_batch_next(b) ? 0 : -EMSGSIZE;
}

int nftr_batch_begin(struct mnl_nlmsg_batch *b, uint32_t *seq)
{
	nftnl_batch_begin(mnl_nlmsg_batch_current(b), (*seq)++);
	return nftr_msg_end(b);
}

int nftr_batch_end(struct mnl_nlmsg_batch *b, uint32_t *seq)
{
	nftnl_batch_end(mnl_nlmsg_batch_current(b), (*seq)++);
	return nftr_msg_end(b);
}

static int table_put(struct mnl_nlmsg_batch *b, uint32_t *seq, uint16_t type)
{
	struct nftnl_table *tb = nftnl_table_alloc();
	struct nlmsghdr *nlh;
	int r = -ENOMEM;

	if (!tb)
		return -ENOMEM;
	nftnl_table_set_u32(tb, NFTNL_TABLE_FAMILY, NFPROTO_IPV4);
	if (nftnl_table_set_str(tb, NFTNL_TABLE_NAME, NFTR_TABLE) < 0)
		goto out;
	nlh = nftr_msg_start(b, seq, type, type == NFT_MSG_NEWTABLE ? NLM_F_CREATE : 0);
	nftnl_table_nlmsg_build_payload(nlh, tb);
	r = nftr_msg_end(b);
out:
	nftnl_table_free(tb);
	return r;
}

int nftr_node_clear(struct mnl_nlmsg_batch *b, uint32_t *seq)
{
	uint32_t seq0 = *seq;
	int r;

	/* "add" is a no-op on an existing table, so the delete always finds one */
	r = table_put(b, seq, NFT_MSG_NEWTABLE);
	r = r ? r : table_put(b, seq, NFT_MSG_DELTABLE);
	return r ? r : (int)(*seq - seq0);
}

static int chain_put(struct mnl_nlmsg_batch *b, uint32_t *seq, const char *name, const char *type,
		     uint32_t hook)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr *nlh;
	int r = -ENOMEM;

	if (!c)
		return -ENOMEM;
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, NFPROTO_IPV4);
	if (type) { /* a base chain; without, a chain only goto reaches */
		nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, hook);
		nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, NFTR_PRIO_MANGLE);
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
	}
	if (nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, NFTR_TABLE) < 0 ||
	    nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name) < 0 ||
	    (type && nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, type) < 0))
		goto out;
	nlh = nftr_msg_start(b, seq, NFT_MSG_NEWCHAIN, NLM_F_CREATE);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	r = nftr_msg_end(b);
out:
	nftnl_chain_free(c);
	return r;
}

/* What nft itself stores with a set: the byte order of keys and data. */
static int set_udata(struct nftnl_set *s, const struct set_desc *sd)
{
	struct nftnl_udata_buf *u = nftnl_udata_buf_alloc(32);
	int r = -ENOMEM;

	if (!u)
		return -ENOMEM;
	if (nftnl_udata_put_u32(u, NFTNL_UDATA_SET_KEYBYTEORDER, sd->key_order) &&
	    (!sd->data_type || sd->data_type == NFT_DATA_VERDICT ||
	     nftnl_udata_put_u32(u, NFTNL_UDATA_SET_DATABYTEORDER, NFTR_ORDER_HOST)) &&
	    !nftnl_set_set_data(s, NFTNL_SET_USERDATA, nftnl_udata_buf_data(u),
				nftnl_udata_buf_len(u)))
		r = 0;
	nftnl_udata_buf_free(u);
	return r;
}

static int set_put(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct set_desc *sd)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct nlmsghdr *nlh;
	int r = -ENOMEM;

	if (!s)
		return -ENOMEM;
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_IPV4);
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, sd->flags);
	/* the kernel wants a transaction-unique id; the message's seq is one */
	nftnl_set_set_u32(s, NFTNL_SET_ID, *seq);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, sd->key_type);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, sd->key_len);
	if (sd->data_type)
		nftnl_set_set_u32(s, NFTNL_SET_DATA_TYPE, sd->data_type);
	if (sd->data_type && sd->data_type != NFT_DATA_VERDICT) /* a verdict's is the kernel's */
		nftnl_set_set_u32(s, NFTNL_SET_DATA_LEN, sizeof(uint32_t));
	if (nftnl_set_set_str(s, NFTNL_SET_TABLE, NFTR_TABLE) < 0 ||
	    nftnl_set_set_str(s, NFTNL_SET_NAME, sd->name) < 0 || set_udata(s, sd))
		goto out;
	nlh = nftr_msg_start(b, seq, NFT_MSG_NEWSET, NLM_F_CREATE);
	nftnl_set_nlmsg_build_payload(nlh, s);
	r = nftr_msg_end(b);
out:
	nftnl_set_free(s);
	return r;
}

/* An element's data: a mark, or goto the chain of group el->data (not on an interval's end). */
static int elem_data(struct nftnl_set_elem *e, const struct set_desc *sd, const struct elem *el)
{
	char chain[NFTR_NAME_MAX];

	if (!sd->data_type || (el->flags & NFT_SET_ELEM_INTERVAL_END))
		return 0;
	if (sd->data_type != NFT_DATA_VERDICT)
		return nftnl_set_elem_set(e, NFTNL_SET_ELEM_DATA, &el->data, sizeof(el->data));
	nftr_group_chain(chain, sizeof(chain), el->data, sd->hook);
	nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_VERDICT, (uint32_t)NFT_GOTO);
	return nftnl_set_elem_set_str(e, NFTNL_SET_ELEM_CHAIN, chain);
}

static int elem_fill(struct nftnl_set *s, const struct set_desc *sd, const struct elem *el)
{
	struct nftnl_set_elem *e = nftnl_set_elem_alloc();

	if (!e)
		return -ENOMEM;
	if (nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, el->key, sd->key_len) < 0 ||
	    elem_data(e, sd, el) < 0) {
		nftnl_set_elem_free(e);
		return -ENOMEM;
	}
	if (el->flags)
		nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_FLAGS, el->flags);
	nftnl_set_elem_add(s, e);
	return 0;
}

/* One NEWSETELEM message with elements [lo, hi) of sd. */
static int elems_put(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct set_desc *sd, size_t lo,
		     size_t hi)
{
	struct nftnl_set *s = nftnl_set_alloc();
	struct nlmsghdr *nlh;
	int r = -ENOMEM;
	size_t i;

	if (!s)
		return -ENOMEM;
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_IPV4);
	if (nftnl_set_set_str(s, NFTNL_SET_TABLE, NFTR_TABLE) < 0 ||
	    nftnl_set_set_str(s, NFTNL_SET_NAME, sd->name) < 0)
		goto out;
	for (i = lo, r = 0; i < hi && !r; i++)
		r = elem_fill(s, sd, &sd->elems.v[i]);
	if (r)
		goto out;
	nlh = nftr_msg_start(b, seq, NFT_MSG_NEWSETELEM, NLM_F_CREATE);
	nftnl_set_elems_nlmsg_build_payload(nlh, s);
	r = nftr_msg_end(b);
out:
	nftnl_set_free(s);
	return r;
}

/* The set, then its elements in messages of at most NFTR_ELEMS_PER_MSG. */
static int set_emit(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct set_desc *sd)
{
	size_t i, hi;
	int r;

	r = set_put(b, seq, sd);
	for (i = 0; !r && i < sd->elems.n; i += NFTR_ELEMS_PER_MSG) {
		hi = i + NFTR_ELEMS_PER_MSG < sd->elems.n ? i + NFTR_ELEMS_PER_MSG : sd->elems.n;
		r = elems_put(b, seq, sd, i, hi);
	}
	return r;
}

static int elem_add(struct set_desc *sd, const void *key, uint32_t data, uint32_t flags)
{
	struct elem *el = vec_grow(&sd->elems);

	if (!el)
		return -ENOMEM;
	memcpy(el->key, key, sd->key_len);
	el->data = data;
	el->flags = flags;
	return 0;
}

static void desc_init(struct set_desc *sd, uint32_t flags, uint32_t key_type, uint32_t key_len,
		      uint32_t data_type)
{
	memset(sd, 0, sizeof(*sd));
	sd->flags = flags;
	sd->key_type = key_type;
	sd->key_len = key_len;
	/* packet fields are big endian; meta values (iif, mark, a hash) are host order */
	sd->key_order = key_type == NFTR_TYPE_IPADDR || key_type == NFTR_TYPE_DSCP
				? NFTR_ORDER_BIG
				: NFTR_ORDER_HOST;
	sd->data_type = data_type;
}

/* `edge`: the ifindexes (host order, as meta iif loads them) of the node's edge ports. */
static int edge_desc(const struct topo *t, const struct route_plan *plan,
		     const struct route_node *rn, struct set_desc *sd)
{
	uint32_t i, ifindex;
	int r = 0;

	desc_init(sd, 0, NFTR_TYPE_IFINDEX, sizeof(uint32_t), 0);
	snprintf(sd->name, sizeof(sd->name), "%s", NFTR_SET_EDGE);
	for (i = 0; i < rn->edge_n && !r; i++) {
		ifindex = t->ports.v[plan->ports.v[rn->edge_off + i]].ifindex;
		r = elem_add(sd, &ifindex, 0, 0);
	}
	return r;
}

/* dst_pre or dst_out: each prefix of every group as an interval going to the group's chain of
 * hook h, its start and (unless it reaches the end of the address space) the first address
 * after it, flagged as an end. Keys in network order. The groups' prefixes are disjoint
 * (route.c aggregates a node's routes), as one interval map needs. */
static int dst_desc(const struct route_plan *plan, const struct route_node *rn, enum nftr_hook h,
		    struct set_desc *sd)
{
	const struct route_group *g;
	const struct route_prefix *p;
	uint32_t i, start, end, gi;
	uint64_t size;
	int r = 0;

	desc_init(sd, NFT_SET_MAP | NFT_SET_INTERVAL, NFTR_TYPE_IPADDR, sizeof(uint32_t),
		  NFT_DATA_VERDICT);
	sd->hook = h;
	snprintf(sd->name, sizeof(sd->name), "%s", nftr_hook_map(h));
	for (gi = 0; gi < rn->group_n && !r; gi++) {
		g = &plan->groups.v[rn->group_off + gi];
		for (i = 0; i < g->pfx_n && !r; i++) {
			p = &plan->prefixes.v[g->pfx_off + i];
			size = 1ULL << (32 - p->plen);
			start = htonl(p->addr);
			end = htonl((uint32_t)(p->addr + size));
			r = elem_add(sd, &start, g->id, 0);
			if (!r && p->addr + size <= UINT32_MAX)
				r = elem_add(sd, &end, 0, NFT_SET_ELEM_INTERVAL_END);
		}
	}
	return r;
}

/* gN_hash: member index (the jhash result, host order) -> mark. nft has no `type` for a bare
 * integer key, so the key is typed as a mark: same size and byte order, and listable. */
static int hash_desc(const struct topo *t, const struct route_plan *plan,
		     const struct route_group *g, struct set_desc *sd)
{
	uint32_t i;
	int r = 0;

	desc_init(sd, NFT_SET_MAP, NFTR_TYPE_MARK, sizeof(uint32_t), NFTR_TYPE_MARK);
	nftr_set_name(sd->name, sizeof(sd->name), g->id, NFTR_HASH);
	for (i = 0; i < g->nh_n && !r; i++)
		r = elem_add(sd, &i, nftr_member_mark(t, plan, g, i), 0);
	return r;
}

/* gN_tag: DSCP tag k (1-based) -> mark of member k-1; tag 0 and tags past the group's size
 * are absent, so the lookup fails and the hash's mark stays. */
static int tag_desc(const struct topo *t, const struct route_plan *plan,
		    const struct route_group *g, struct set_desc *sd)
{
	uint32_t k;
	uint8_t key;
	int r = 0;

	desc_init(sd, NFT_SET_MAP, NFTR_TYPE_DSCP, 1, NFTR_TYPE_MARK);
	nftr_set_name(sd->name, sizeof(sd->name), g->id, NFTR_TAG);
	for (k = 1; k <= nftr_tag_count(g) && !r; k++) {
		key = (uint8_t)k;
		r = elem_add(sd, &key, nftr_member_mark(t, plan, g, k - 1), 0);
	}
	return r;
}

static int group_sets(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct topo *t,
		      const struct route_plan *plan, const struct route_group *g)
{
	struct set_desc sd;
	int r;

	r = hash_desc(t, plan, g, &sd);
	r = r ? r : set_emit(b, seq, &sd);
	vec_free(&sd.elems);
	r = r ? r : tag_desc(t, plan, g, &sd);
	r = r ? r : set_emit(b, seq, &sd);
	vec_free(&sd.elems);
	return r;
}

static int node_sets(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct topo *t,
		     const struct route_plan *plan, uint32_t node)
{
	const struct route_node *rn = &plan->nodes.v[node];
	struct set_desc sd;
	uint32_t g;
	int h, r = 0;

	if (rn->edge_n) {
		r = edge_desc(t, plan, rn, &sd);
		r = r ? r : set_emit(b, seq, &sd);
		vec_free(&sd.elems);
	}
	for (g = rn->group_off; g < rn->group_off + rn->group_n && !r; g++)
		r = group_sets(b, seq, t, plan, &plan->groups.v[g]);
	for (h = NFTR_PRE; h <= NFTR_OUT && !r; h++) { /* after the chains they go to */
		r = dst_desc(plan, rn, (enum nftr_hook)h, &sd);
		r = r ? r : set_emit(b, seq, &sd);
		vec_free(&sd.elems);
	}
	return r;
}

/* The base chains, then every group's two chains (the verdict maps go to them). */
static int node_chains(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct route_plan *plan,
		       uint32_t node)
{
	const struct route_node *rn = &plan->nodes.v[node];
	char name[NFTR_NAME_MAX];
	uint32_t g;
	int h, r;

	r = chain_put(b, seq, NFTR_CHAIN_PRE, "filter", NF_INET_PRE_ROUTING);
	r = r ? r : chain_put(b, seq, NFTR_CHAIN_OUT, "route", NF_INET_LOCAL_OUT);
	for (g = rn->group_off; g < rn->group_off + rn->group_n && !r; g++)
		for (h = NFTR_PRE; h <= NFTR_OUT && !r; h++) {
			nftr_group_chain(name, sizeof(name), plan->groups.v[g].id,
					 (enum nftr_hook)h);
			r = chain_put(b, seq, name, NULL, 0);
		}
	return r;
}

int nftr_node_build(struct mnl_nlmsg_batch *b, uint32_t *seq, const struct topo *t,
		    const struct route_plan *plan, uint32_t node)
{
	uint32_t seq0 = *seq;
	int r;

	if (!plan->nodes.v[node].group_n)
		return 0;
	/* add + delete + add: one transaction that replaces whatever was there */
	r = nftr_node_clear(b, seq);
	r = r < 0 ? r : table_put(b, seq, NFT_MSG_NEWTABLE);
	r = r < 0 ? r : node_chains(b, seq, plan, node);
	r = r < 0 ? r : node_sets(b, seq, t, plan, node);
	r = r < 0 ? r : nftr_rules_build(b, seq, plan, node);
	return r < 0 ? r : (int)(*seq - seq0);
}
