// SPDX-License-Identifier: MIT
/* nftables effector: build leaf l0's ruleset of a 2-leaf x 2-host x 2-spine leaf-spine into a
 * batch, parse every message back with libnftnl and compare it with the plan; the rendered
 * text against tests/golden/nft-leafspine-l0.nft (TB_GOLDEN_UPDATE=1 rewrites it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/udata.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include "model/gen.h"
#include "model/paths.h"
#include "kernel/nftr.h"
#include "kernel/nftr_priv.h"
#include "policy/route.h"

#define T_GOLDEN "tests/golden/nft-leafspine-l0.nft"
#define T_BUF 65536
#define T_MAX_MSG 256
#define T_SEQ0 1000

struct t_world {
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
	uint32_t l0;
	const struct route_group *g; /* l0's one group */
	/* the batch l0 builds, message by message */
	char buf[T_BUF];
	struct mnl_nlmsg_batch *b;
	const struct nlmsghdr *msg[T_MAX_MSG];
	uint32_t n;
};

static int t_setup(void **state)
{
	struct t_world *w = calloc(1, sizeof(*w));
	struct diag d = {0};

	assert_non_null(w);
	scn_init(&w->s);
	w->s.topology.gen = SCN_GEN_LEAFSPINE;
	w->s.topology.ls =
		(struct scn_leafspine){2, 2, 2, 1, 1000000000ULL, 4000000000ULL, 1, 0, {0}};
	assert_int_equal(topo_build(&w->s, &w->t, &d), 0);
	assert_int_equal(paths_compute(w->t, &w->p), 0);
	assert_int_equal(route_plan_build(w->t, &w->p, &w->plan, &d), 0);
	w->l0 = (uint32_t)topo_node_find(w->t, "l0");
	assert_int_equal(w->plan.nodes.v[w->l0].group_n, 1);
	w->g = &w->plan.groups.v[w->plan.nodes.v[w->l0].group_off];
	*state = w;
	return 0;
}

static int t_teardown(void **state)
{
	struct t_world *w = *state;

	if (w->b)
		mnl_nlmsg_batch_stop(w->b);
	route_plan_done(&w->plan);
	paths_done(&w->p);
	topo_free(w->t);
	scn_done(&w->s);
	free(w);
	return 0;
}

/* Builds node's ruleset with sequence numbers from T_SEQ0 and indexes the messages. */
static int t_build(struct t_world *w, uint32_t node)
{
	const struct nlmsghdr *nlh;
	uint32_t seq = T_SEQ0;
	int r, len;

	w->b = mnl_nlmsg_batch_start(w->buf, T_BUF - NFTR_MSG_MAX);
	assert_non_null(w->b);
	r = nftr_node_build(w->b, &seq, w->t, &w->plan, node);
	if (r < 0)
		return r;
	assert_int_equal(seq - T_SEQ0, r);
	len = (int)mnl_nlmsg_batch_size(w->b);
	for (nlh = (const struct nlmsghdr *)w->buf; mnl_nlmsg_ok(nlh, len);
	     nlh = mnl_nlmsg_next(nlh, &len)) {
		assert_true(w->n < T_MAX_MSG);
		assert_true(nlh->nlmsg_len <= NFTR_MSG_MAX);
		assert_int_equal(nlh->nlmsg_seq, T_SEQ0 + w->n);
		assert_true(nlh->nlmsg_flags & NLM_F_ACK);
		assert_int_equal(NFNL_SUBSYS_ID(nlh->nlmsg_type), NFNL_SUBSYS_NFTABLES);
		w->msg[w->n++] = nlh;
	}
	assert_int_equal(w->n, r);
	return r;
}

static uint16_t t_type(const struct nlmsghdr *nlh)
{
	return NFNL_MSG_TYPE(nlh->nlmsg_type);
}

/* The k-th (0-based) message of type type, or NULL. */
static const struct nlmsghdr *t_nth(const struct t_world *w, uint16_t type, uint32_t k)
{
	uint32_t i;

	for (i = 0; i < w->n; i++)
		if (t_type(w->msg[i]) == type && !k--)
			return w->msg[i];
	return NULL;
}

static uint32_t t_count(const struct t_world *w, uint16_t type)
{
	uint32_t i, n = 0;

	for (i = 0; i < w->n; i++)
		n += t_type(w->msg[i]) == type;
	return n;
}

static uint32_t t_mark(const struct t_world *w, uint32_t member)
{
	uint32_t port = w->plan.ports.v[w->g->nh_off + member];

	return route_port_table(w->t->ports.v[port].ifindex - 2);
}

static void test_table_replaced(void **state)
{
	struct t_world *w = *state;
	static const uint16_t want[] = {NFT_MSG_NEWTABLE, NFT_MSG_DELTABLE, NFT_MSG_NEWTABLE};
	struct nftnl_table *tb;
	uint32_t i;

	assert_true(t_build(w, w->l0) > 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(t_type(w->msg[i]), want[i]);
		tb = nftnl_table_alloc();
		assert_int_equal(nftnl_table_nlmsg_parse(w->msg[i], tb), 0);
		assert_string_equal(nftnl_table_get_str(tb, NFTNL_TABLE_NAME), NFTR_TABLE);
		assert_int_equal(nftnl_table_get_u32(tb, NFTNL_TABLE_FAMILY), NFPROTO_IPV4);
		nftnl_table_free(tb);
	}
	assert_int_equal(t_count(w, NFT_MSG_NEWTABLE), 2);
	assert_int_equal(t_count(w, NFT_MSG_DELTABLE), 1);
}

static void t_check_chain(const struct nlmsghdr *nlh, const char *name, const char *type,
			  uint32_t hook)
{
	struct nftnl_chain *c = nftnl_chain_alloc();

	assert_non_null(nlh);
	assert_int_equal(nftnl_chain_nlmsg_parse(nlh, c), 0);
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE), NFTR_TABLE);
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME), name);
	if (!type) { /* a group's chain: no hook, reached by goto only */
		assert_false(nftnl_chain_is_set(c, NFTNL_CHAIN_TYPE));
		assert_false(nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM));
		assert_false(nftnl_chain_is_set(c, NFTNL_CHAIN_POLICY));
		nftnl_chain_free(c);
		return;
	}
	assert_string_equal(nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE), type);
	assert_int_equal(nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM), hook);
	assert_int_equal(nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO), -150);
	assert_int_equal(nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY), NF_ACCEPT);
	nftnl_chain_free(c);
}

static void test_chains(void **state)
{
	struct t_world *w = *state;

	t_build(w, w->l0);
	assert_int_equal(t_count(w, NFT_MSG_NEWCHAIN), 4);
	t_check_chain(t_nth(w, NFT_MSG_NEWCHAIN, 0), "prerouting", "filter", NF_INET_PRE_ROUTING);
	t_check_chain(t_nth(w, NFT_MSG_NEWCHAIN, 1), "output", "route", NF_INET_LOCAL_OUT);
	t_check_chain(t_nth(w, NFT_MSG_NEWCHAIN, 2), "g0_pre", NULL, 0);
	t_check_chain(t_nth(w, NFT_MSG_NEWCHAIN, 3), "g0_out", NULL, 0);
	/* the chains before the verdict maps that go to them */
	assert_true(t_nth(w, NFT_MSG_NEWCHAIN, 3) < t_nth(w, NFT_MSG_NEWSET, 0));
}

/* The set named name among the NEWSET messages, parsed; the caller frees it. */
static struct nftnl_set *t_set(const struct t_world *w, const char *name)
{
	const struct nlmsghdr *nlh;
	struct nftnl_set *s;
	uint32_t k;

	for (k = 0; (nlh = t_nth(w, NFT_MSG_NEWSET, k)); k++) {
		s = nftnl_set_alloc();
		assert_int_equal(nftnl_set_nlmsg_parse(nlh, s), 0);
		if (!strcmp(nftnl_set_get_str(s, NFTNL_SET_NAME), name))
			return s;
		nftnl_set_free(s);
	}
	fail_msg("no set %s", name);
	return NULL;
}

struct t_udata {
	uint8_t type;
	uint32_t val;
};

static int t_udata_cb(const struct nftnl_udata *a, void *data)
{
	struct t_udata *u = data;

	if (nftnl_udata_type(a) == u->type)
		u->val = nftnl_udata_get_u32(a);
	return 0;
}

/* A byte order nft keeps in a set's user data; 0 when absent. */
static uint32_t t_udata_order(const struct nftnl_set *s, uint8_t type)
{
	struct t_udata u = {type, 0};
	const void *data;
	uint32_t len;

	data = nftnl_set_get_data(s, NFTNL_SET_USERDATA, &len);
	assert_non_null(data);
	assert_int_equal(nftnl_udata_parse(data, len, t_udata_cb, &u), 0);
	return u.val;
}

static void t_check_set(const struct t_world *w, const char *name, uint32_t flags,
			uint32_t key_type, uint32_t key_len, uint32_t data_type)
{
	struct nftnl_set *s = t_set(w, name);

	assert_string_equal(nftnl_set_get_str(s, NFTNL_SET_TABLE), NFTR_TABLE);
	assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_FLAGS), flags);
	assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE), key_type);
	assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN), key_len);
	assert_true(nftnl_set_is_set(s, NFTNL_SET_ID));
	assert_int_equal(t_udata_order(s, NFTNL_UDATA_SET_KEYBYTEORDER),
			 key_type == NFTR_TYPE_IPADDR || key_type == NFTR_TYPE_DSCP ? 2 : 1);
	if (data_type == NFT_DATA_VERDICT) { /* the kernel knows a verdict's length */
		assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE), data_type);
		assert_false(nftnl_set_is_set(s, NFTNL_SET_DATA_LEN));
	} else if (data_type) {
		assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE), data_type);
		assert_int_equal(nftnl_set_get_u32(s, NFTNL_SET_DATA_LEN), 4);
		assert_int_equal(t_udata_order(s, NFTNL_UDATA_SET_DATABYTEORDER), 1);
	} else {
		assert_false(nftnl_set_is_set(s, NFTNL_SET_DATA_TYPE));
	}
	nftnl_set_free(s);
}

static void test_sets(void **state)
{
	struct t_world *w = *state;

	t_build(w, w->l0);
	assert_int_equal(t_count(w, NFT_MSG_NEWSET), 5);
	t_check_set(w, "edge", 0, NFTR_TYPE_IFINDEX, 4, 0);
	t_check_set(w, "dst_pre", NFT_SET_MAP | NFT_SET_INTERVAL, NFTR_TYPE_IPADDR, 4,
		    NFT_DATA_VERDICT);
	t_check_set(w, "dst_out", NFT_SET_MAP | NFT_SET_INTERVAL, NFTR_TYPE_IPADDR, 4,
		    NFT_DATA_VERDICT);
	t_check_set(w, "g0_hash", NFT_SET_MAP, NFTR_TYPE_MARK, 4, NFTR_TYPE_MARK);
	t_check_set(w, "g0_tag", NFT_SET_MAP, NFTR_TYPE_DSCP, 1, NFTR_TYPE_MARK);
}

struct t_elem {
	uint32_t key, data, flags;
	char chain[32]; /* a verdict map's: the chain goto goes to */
};

struct t_elems {
	struct t_elem *v;
	uint32_t n, max;
};

static int t_elem_cb(struct nftnl_set_elem *e, void *data)
{
	struct t_elems *out = data;
	struct t_elem *el = &out->v[out->n];
	const void *key;
	uint32_t len;

	assert_true(out->n < out->max);
	memset(el, 0, sizeof(*el));
	key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
	assert_true(len <= sizeof(el->key));
	memcpy(&el->key, key, len);
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_DATA))
		el->data = nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_DATA);
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS))
		el->flags = nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS);
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT)) {
		assert_int_equal((int32_t)nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_VERDICT),
				 NFT_GOTO);
		snprintf(el->chain, sizeof(el->chain), "%s",
			 nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN));
	}
	out->n++;
	return 0;
}

static int t_relabel_cb(const struct nlattr *a, void *data)
{
	(void)data;
	((struct nlattr *)a)->nla_type = NFTA_LIST_ELEM; /* our own copy */
	return MNL_CB_OK;
}

static int t_list_cb(const struct nlattr *a, void *data)
{
	(void)data;
	if (mnl_attr_get_type(a) == NFTA_SET_ELEM_LIST_ELEMENTS)
		assert_true(mnl_attr_parse_nested(a, t_relabel_cb, NULL) >= 0);
	return MNL_CB_OK;
}

/* A copy of a NEWSETELEM message as the kernel would dump it: libnftnl numbers element nests
 * 1, 2, ... when building (the kernel ignores their type) but its parser, written for dumps,
 * wants NFTA_LIST_ELEM on each. */
static struct nlmsghdr *t_as_dump(const struct nlmsghdr *nlh, char *buf)
{
	struct nlmsghdr *copy = memcpy(buf, nlh, nlh->nlmsg_len);

	assert_true(mnl_attr_parse(copy, sizeof(struct nfgenmsg), t_list_cb, NULL) >= 0);
	return copy;
}

/* All elements of set name, over its NEWSETELEM messages, in order; returns the count. */
static uint32_t t_elems(const struct t_world *w, const char *name, struct t_elem *v, uint32_t max)
{
	struct t_elems out = {v, 0, max};
	const struct nlmsghdr *nlh;
	char copy[NFTR_MSG_MAX];
	struct nftnl_set *s;
	uint32_t k;

	for (k = 0; (nlh = t_nth(w, NFT_MSG_NEWSETELEM, k)); k++) {
		s = nftnl_set_alloc();
		assert_int_equal(nftnl_set_elems_nlmsg_parse(t_as_dump(nlh, copy), s), 0);
		assert_string_equal(nftnl_set_get_str(s, NFTNL_SET_TABLE), NFTR_TABLE);
		if (!strcmp(nftnl_set_get_str(s, NFTNL_SET_NAME), name))
			nftnl_set_elem_foreach(s, t_elem_cb, &out);
		nftnl_set_free(s);
	}
	return out.n;
}

static void test_dst_intervals(void **state)
{
	struct t_world *w = *state;
	const struct route_prefix *p;
	struct t_elem el[16];
	uint32_t n, i;

	t_build(w, w->l0);
	n = t_elems(w, "dst_pre", el, 16);
	assert_int_equal(n, 2 * w->g->pfx_n);
	for (i = 0; i < w->g->pfx_n; i++) {
		p = &w->plan.prefixes.v[w->g->pfx_off + i];
		assert_int_equal(el[2 * i].key, htonl(p->addr));
		assert_int_equal(el[2 * i].flags, 0);
		assert_string_equal(el[2 * i].chain, "g0_pre"); /* goto the group's chain */
		assert_int_equal(el[2 * i + 1].key, htonl(p->addr + (1u << (32 - p->plen))));
		assert_int_equal(el[2 * i + 1].flags, NFT_SET_ELEM_INTERVAL_END);
		assert_string_equal(el[2 * i + 1].chain, ""); /* an end has no data */
	}
	/* hosts h2, h3 behind leaf l1: 198.18.0.2/31 */
	assert_int_equal(w->g->pfx_n, 1);
	assert_int_equal(el[0].key, htonl(0xc6120002));
	assert_int_equal(el[1].key, htonl(0xc6120004));
	assert_int_equal(t_elems(w, "dst_out", el, 16), 2);
	assert_string_equal(el[0].chain, "g0_out");
}

/* A node of several groups (a HammingMesh accelerator: four): one verdict map per hook holds
 * every group's prefixes, each going to its own group's chain, so a packet takes one lookup
 * whatever the group count; the prefixes are disjoint, as an interval map needs. */
static void test_groups_one_map(void **state)
{
	struct t_world *w = *state;
	struct scenario s;
	struct topo *t;
	struct topo_paths p;
	struct route_plan plan;
	struct diag d = {0};
	struct t_elem el[64];
	const struct route_node *rn;
	const struct route_group *g;
	const struct route_prefix *x;
	char want[32];
	uint32_t node, n, i, k, j, m, seen;

	scn_init(&s);
	s.topology.gen = SCN_GEN_HAMMINGMESH;
	s.topology.hx.a = s.topology.hx.b = s.topology.hx.x = s.topology.hx.y = 2;
	s.topology.hx.board_rate = s.topology.hx.net_rate = 1000000000ULL;
	assert_int_equal(topo_build(&s, &t, &d), 0);
	assert_int_equal(paths_compute(t, &p), 0);
	assert_int_equal(route_plan_build(t, &p, &plan, &d), 0);
	node = (uint32_t)topo_node_find(t, "a0-0");
	rn = &plan.nodes.v[node];
	assert_true(rn->group_n >= 2);
	w->b = mnl_nlmsg_batch_start(w->buf, T_BUF - NFTR_MSG_MAX);
	{
		uint32_t seq = T_SEQ0;
		int r, len;
		const struct nlmsghdr *nlh;

		r = nftr_node_build(w->b, &seq, t, &plan, node);
		assert_true(r > 0);
		len = (int)mnl_nlmsg_batch_size(w->b);
		for (nlh = (const struct nlmsghdr *)w->buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len))
			w->msg[w->n++] = nlh;
	}
	assert_int_equal(t_count(w, NFT_MSG_NEWCHAIN), 2 + 2 * rn->group_n);
	/* two rules in the base chains: the vmap lookups, whatever the groups */
	for (k = 0, n = 0; k < t_count(w, NFT_MSG_NEWRULE); k++) {
		struct nftnl_rule *r = nftnl_rule_alloc();
		const char *c;

		assert_int_equal(nftnl_rule_nlmsg_parse(t_nth(w, NFT_MSG_NEWRULE, k), r), 0);
		c = nftnl_rule_get_str(r, NFTNL_RULE_CHAIN);
		n += !strcmp(c, "prerouting") || !strcmp(c, "output");
		nftnl_rule_free(r);
	}
	assert_int_equal(n, 2);
	n = t_elems(w, "dst_pre", el, 64);
	for (k = 0, m = 0; k < rn->group_n; k++)
		m += plan.groups.v[rn->group_off + k].pfx_n;
	assert_true(n >= m && n <= 2 * m); /* a start each, and an end unless the next starts */
	seen = 0;
	for (k = 0; k < rn->group_n; k++) {
		g = &plan.groups.v[rn->group_off + k];
		snprintf(want, sizeof(want), "g%u_pre", g->id);
		for (i = 0; i < g->pfx_n; i++) {
			x = &plan.prefixes.v[g->pfx_off + i];
			for (j = 0; j < n && !(el[j].key == htonl(x->addr) && !el[j].flags); j++)
				;
			assert_true(j < n);
			assert_string_equal(el[j].chain, want);
			seen++;
		}
	}
	assert_int_equal(seen, m);
	/* disjoint: no prefix of the node's groups starts inside another (they are contiguous in
	 * plan.prefixes, group after group) */
	x = &plan.prefixes.v[plan.groups.v[rn->group_off].pfx_off];
	for (k = 0; k < m; k++)
		for (i = 0; i < m; i++)
			assert_true(k == i || x[i].addr < x[k].addr ||
				    x[i].addr >= (uint64_t)x[k].addr + (1ULL << (32 - x[k].plen)));
	route_plan_done(&plan);
	paths_done(&p);
	topo_free(t);
	scn_done(&s);
}

static void test_maps(void **state)
{
	struct t_world *w = *state;
	struct t_elem el[16];
	uint32_t n, i;

	t_build(w, w->l0);
	n = t_elems(w, "g0_hash", el, 16);
	assert_int_equal(n, w->g->nh_n);
	for (i = 0; i < n; i++) {
		assert_int_equal(el[i].key, i);
		assert_int_equal(el[i].data, t_mark(w, i));
	}
	/* l0's ports: h0 h1 s0 s1, so the spines' tables are 102 and 103 */
	assert_int_equal(el[0].data, 102);
	assert_int_equal(el[1].data, 103);
	n = t_elems(w, "g0_tag", el, 16);
	assert_int_equal(n, w->g->nh_n);
	for (i = 0; i < n; i++) {
		assert_int_equal(el[i].key, i + 1); /* tag k (the DSCP value) -> member k-1 */
		assert_int_equal(el[i].data, t_mark(w, i));
	}
	n = t_elems(w, "edge", el, 16);
	assert_int_equal(n, 2);
	assert_int_equal(el[0].key, 2); /* h0, h1: ifindex 2 and 3 */
	assert_int_equal(el[1].key, 3);
}

/* Expressions of a rule message as "name" plus the attributes a test looks at. */
struct t_expr {
	const char *name;
	const struct nftnl_expr *e;
};

static uint32_t t_exprs(struct nftnl_rule *r, struct t_expr *out, uint32_t max)
{
	struct nftnl_expr_iter *it = nftnl_expr_iter_create(r);
	struct nftnl_expr *e;
	uint32_t n = 0;

	while ((e = nftnl_expr_iter_next(it))) {
		assert_true(n < max);
		out[n].name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
		out[n++].e = e;
	}
	nftnl_expr_iter_destroy(it);
	return n;
}

static void t_check_payload(const struct t_expr *x, uint32_t base, uint32_t off, uint32_t len,
			    uint32_t dreg)
{
	assert_string_equal(x->name, "payload");
	assert_int_equal(nftnl_expr_get_u32(x->e, NFTNL_EXPR_PAYLOAD_BASE), base);
	assert_int_equal(nftnl_expr_get_u32(x->e, NFTNL_EXPR_PAYLOAD_OFFSET), off);
	assert_int_equal(nftnl_expr_get_u32(x->e, NFTNL_EXPR_PAYLOAD_LEN), len);
	assert_int_equal(nftnl_expr_get_u32(x->e, NFTNL_EXPR_PAYLOAD_DREG), dreg);
}

static void t_check_lookup(const struct t_expr *x, const char *set, bool map)
{
	assert_string_equal(x->name, "lookup");
	assert_string_equal(nftnl_expr_get_str(x->e, NFTNL_EXPR_LOOKUP_SET), set);
	assert_int_equal(nftnl_expr_get_u32(x->e, NFTNL_EXPR_LOOKUP_SREG), NFT_REG_1);
	assert_int_equal(nftnl_expr_is_set(x->e, NFTNL_EXPR_LOOKUP_DREG), map);
	if (map)
		assert_int_equal(nftnl_expr_get_u32(x->e, NFTNL_EXPR_LOOKUP_DREG), NFT_REG_1);
}

static void t_check_meta(const struct t_expr *x, uint32_t key, uint16_t reg_attr)
{
	assert_string_equal(x->name, "meta");
	assert_int_equal(nftnl_expr_get_u32(x->e, NFTNL_EXPR_META_KEY), key);
	assert_int_equal(nftnl_expr_get_u32(x->e, reg_attr), NFT_REG_1);
}

/* ip daddr vmap @dst_pre (or dst_out): the destination's group chain, in one lookup */
static void t_check_vmap_rule(struct nftnl_rule *r, const char *map)
{
	struct t_expr x[16];

	assert_int_equal(t_exprs(r, x, 16), 2);
	t_check_payload(&x[0], NFT_PAYLOAD_NETWORK_HEADER, 16, 4, NFT_REG_1);
	assert_string_equal(x[1].name, "lookup");
	assert_string_equal(nftnl_expr_get_str(x[1].e, NFTNL_EXPR_LOOKUP_SET), map);
	assert_int_equal(nftnl_expr_get_u32(x[1].e, NFTNL_EXPR_LOOKUP_SREG), NFT_REG_1);
	assert_int_equal(nftnl_expr_get_u32(x[1].e, NFTNL_EXPR_LOOKUP_DREG), NFT_REG_VERDICT);
}

/* meta mark set jhash ip saddr . ip daddr . ip protocol . th sport . th dport mod 2 seed S
 * map @g0_hash */
static void t_check_hash_rule(const struct t_world *w, struct nftnl_rule *r)
{
	const uint32_t nh = NFT_PAYLOAD_NETWORK_HEADER, th = NFT_PAYLOAD_TRANSPORT_HEADER;
	struct t_expr x[16];
	const struct nftnl_expr *h;

	assert_int_equal(t_exprs(r, x, 16), 8);
	t_check_payload(&x[0], nh, 12, 4, NFT_REG32_00);
	t_check_payload(&x[1], nh, 16, 4, NFT_REG32_01);
	t_check_payload(&x[2], nh, 9, 1, NFT_REG32_02);
	t_check_payload(&x[3], th, 0, 2, NFT_REG32_03);
	t_check_payload(&x[4], th, 2, 2, NFT_REG32_04);
	assert_string_equal(x[5].name, "hash");
	h = x[5].e;
	assert_int_equal(nftnl_expr_get_u32(h, NFTNL_EXPR_HASH_TYPE), NFT_HASH_JENKINS);
	assert_int_equal(nftnl_expr_get_u32(h, NFTNL_EXPR_HASH_SREG), NFT_REG32_00);
	assert_int_equal(nftnl_expr_get_u32(h, NFTNL_EXPR_HASH_DREG), NFT_REG_1);
	assert_int_equal(nftnl_expr_get_u32(h, NFTNL_EXPR_HASH_LEN), 20);
	assert_int_equal(nftnl_expr_get_u32(h, NFTNL_EXPR_HASH_MODULUS), w->g->nh_n);
	assert_int_equal(nftnl_expr_get_u32(h, NFTNL_EXPR_HASH_SEED), w->g->seed);
	assert_int_equal(nftnl_expr_get_u32(h, NFTNL_EXPR_HASH_OFFSET), 0);
	assert_int_equal(w->g->seed, w->t->nodes.v[w->l0].seed);
	t_check_lookup(&x[6], "g0_hash", true);
	t_check_meta(&x[7], NFT_META_MARK, NFTNL_EXPR_META_SREG);
}

/* [iif @edge] meta mark set ip dscp map @g0_tag */
static void t_check_tag_rule(struct nftnl_rule *r, bool edge)
{
	struct t_expr x[16];
	uint32_t n = t_exprs(r, x, 16), i = 0, len;
	const uint8_t *mask;

	assert_int_equal(n, edge ? 7 : 5);
	if (edge) {
		t_check_meta(&x[i++], NFT_META_IIF, NFTNL_EXPR_META_DREG);
		t_check_lookup(&x[i++], "edge", false);
	}
	t_check_payload(&x[i++], NFT_PAYLOAD_NETWORK_HEADER, 1, 1, NFT_REG_1);
	assert_string_equal(x[i].name, "bitwise");
	assert_int_equal(nftnl_expr_get_u32(x[i].e, NFTNL_EXPR_BITWISE_LEN), 1);
	mask = nftnl_expr_get(x[i].e, NFTNL_EXPR_BITWISE_MASK, &len);
	assert_int_equal(len, 1);
	assert_int_equal(mask[0], 0xfc);
	i++;
	assert_string_equal(x[i].name, "bitwise");
	assert_int_equal(nftnl_expr_get_u32(x[i].e, NFTNL_EXPR_BITWISE_OP), NFT_BITWISE_RSHIFT);
	assert_int_equal(*(const uint32_t *)nftnl_expr_get(x[i].e, NFTNL_EXPR_BITWISE_DATA, &len),
			 2);
	i++;
	t_check_lookup(&x[i++], "g0_tag", true);
	t_check_meta(&x[i], NFT_META_MARK, NFTNL_EXPR_META_SREG);
}

static struct nftnl_rule *t_rule(const struct t_world *w, uint32_t k, const char *chain)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	const struct nlmsghdr *nlh = t_nth(w, NFT_MSG_NEWRULE, k);

	assert_non_null(nlh);
	assert_true(nlh->nlmsg_flags & NLM_F_APPEND);
	assert_int_equal(nftnl_rule_nlmsg_parse(nlh, r), 0);
	assert_string_equal(nftnl_rule_get_str(r, NFTNL_RULE_TABLE), NFTR_TABLE);
	assert_string_equal(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN), chain);
	return r;
}

static void test_rules(void **state)
{
	struct t_world *w = *state;
	struct nftnl_rule *r;

	t_build(w, w->l0);
	assert_int_equal(t_count(w, NFT_MSG_NEWRULE), 6);
	r = t_rule(w, 0, "prerouting");
	t_check_vmap_rule(r, "dst_pre");
	nftnl_rule_free(r);
	r = t_rule(w, 1, "output");
	t_check_vmap_rule(r, "dst_out");
	nftnl_rule_free(r);
	r = t_rule(w, 2, "g0_pre");
	t_check_hash_rule(w, r);
	nftnl_rule_free(r);
	r = t_rule(w, 3, "g0_pre");
	t_check_tag_rule(r, true);
	nftnl_rule_free(r);
	r = t_rule(w, 4, "g0_out");
	t_check_hash_rule(w, r);
	nftnl_rule_free(r);
	r = t_rule(w, 5, "g0_out");
	t_check_tag_rule(r, false);
	nftnl_rule_free(r);
	/* objects before the rules that use them */
	assert_true(t_nth(w, NFT_MSG_NEWSETELEM, t_count(w, NFT_MSG_NEWSETELEM) - 1) <
		    t_nth(w, NFT_MSG_NEWRULE, 0));
}

/* meta mark set numgen random mod 2 map @g0_hash */
static void t_check_spray_rule(const struct t_world *w, struct nftnl_rule *r)
{
	struct t_expr x[16];
	const struct nftnl_expr *ng;

	assert_int_equal(t_exprs(r, x, 16), 3);
	assert_string_equal(x[0].name, "numgen");
	ng = x[0].e;
	assert_int_equal(nftnl_expr_get_u32(ng, NFTNL_EXPR_NG_TYPE), NFT_NG_RANDOM);
	assert_int_equal(nftnl_expr_get_u32(ng, NFTNL_EXPR_NG_DREG), NFT_REG_1);
	assert_int_equal(nftnl_expr_get_u32(ng, NFTNL_EXPR_NG_MODULUS), w->g->nh_n);
	assert_int_equal(nftnl_expr_get_u32(ng, NFTNL_EXPR_NG_OFFSET), 0);
	t_check_lookup(&x[1], "g0_hash", true);
	t_check_meta(&x[2], NFT_META_MARK, NFTNL_EXPR_META_SREG);
}

/* routing.spray: topo_build marks every group, whose rules then use numgen instead of jhash
 * in both chains, tags and maps unchanged. */
static void test_spray(void **state)
{
	struct t_world *w = *state;
	struct diag d = {0};
	struct nftnl_rule *r;
	struct t_elem el[16];
	char text[4096];
	size_t i;

	assert_false(w->g->spray);
	route_plan_done(&w->plan);
	paths_done(&w->p);
	topo_free(w->t);
	w->s.routing.spray = true;
	assert_int_equal(topo_build(&w->s, &w->t, &d), 0);
	assert_int_equal(paths_compute(w->t, &w->p), 0);
	assert_int_equal(route_plan_build(w->t, &w->p, &w->plan, &d), 0);
	for (i = 0; i < w->plan.groups.n; i++)
		assert_true(w->plan.groups.v[i].spray);
	w->g = &w->plan.groups.v[w->plan.nodes.v[w->l0].group_off];
	t_build(w, w->l0);
	assert_int_equal(t_count(w, NFT_MSG_NEWRULE), 6);
	r = t_rule(w, 2, "g0_pre");
	t_check_spray_rule(w, r);
	nftnl_rule_free(r);
	r = t_rule(w, 3, "g0_pre");
	t_check_tag_rule(r, true);
	nftnl_rule_free(r);
	r = t_rule(w, 4, "g0_out");
	t_check_spray_rule(w, r);
	nftnl_rule_free(r);
	r = t_rule(w, 5, "g0_out");
	t_check_tag_rule(r, false);
	nftnl_rule_free(r);
	assert_int_equal(t_elems(w, "g0_hash", el, 16), w->g->nh_n);
	assert_true(nftr_node_render(text, sizeof(text), w->t, &w->plan, w->l0) > 0);
	assert_non_null(strstr(text, "\tchain g0_pre {\n\t\tmeta mark set numgen random mod 2 "
				     "map @g0_hash\n"));
	assert_null(strstr(text, "jhash"));
}

static void test_no_group(void **state)
{
	struct t_world *w = *state;
	uint32_t s0 = (uint32_t)topo_node_find(w->t, "s0");
	uint32_t h0 = (uint32_t)topo_node_find(w->t, "h0");
	char text[16] = "x";

	/* a spine with one link per leaf has no choice to make; a host forwards nothing */
	assert_int_equal(t_build(w, s0), 0);
	assert_int_equal(mnl_nlmsg_batch_size(w->b), 0);
	mnl_nlmsg_batch_stop(w->b);
	w->b = NULL;
	assert_int_equal(t_build(w, h0), 0);
	assert_int_equal(nftr_node_render(text, sizeof(text), w->t, &w->plan, s0), 0);
	assert_string_equal(text, "");
}

static void test_batch_full(void **state)
{
	struct t_world *w = *state;
	uint32_t seq = 1;

	w->b = mnl_nlmsg_batch_start(w->buf, 512);
	assert_int_equal(nftr_node_build(w->b, &seq, w->t, &w->plan, w->l0), -EMSGSIZE);
	assert_true(mnl_nlmsg_batch_size(w->b) <= 512);
}

static void test_begin_end_clear(void **state)
{
	struct t_world *w = *state;
	const struct nlmsghdr *nlh;
	uint32_t seq = 7;
	int len;

	w->b = mnl_nlmsg_batch_start(w->buf, T_BUF - NFTR_MSG_MAX);
	assert_int_equal(nftr_batch_begin(w->b, &seq), 0);
	assert_int_equal(nftr_node_clear(w->b, &seq), 2);
	assert_int_equal(nftr_batch_end(w->b, &seq), 0);
	assert_int_equal(seq, 11);
	nlh = (const struct nlmsghdr *)w->buf;
	len = (int)mnl_nlmsg_batch_size(w->b);
	assert_int_equal(nlh->nlmsg_type, NFNL_MSG_BATCH_BEGIN);
	assert_int_equal(nlh->nlmsg_seq, 7);
	nlh = mnl_nlmsg_next(nlh, &len);
	assert_int_equal(t_type(nlh), NFT_MSG_NEWTABLE);
	nlh = mnl_nlmsg_next(nlh, &len);
	assert_int_equal(t_type(nlh), NFT_MSG_DELTABLE);
	nlh = mnl_nlmsg_next(nlh, &len);
	assert_int_equal(nlh->nlmsg_type, NFNL_MSG_BATCH_END);
	assert_int_equal(nlh->nlmsg_seq, 10);
	assert_false(mnl_nlmsg_ok(mnl_nlmsg_next(nlh, &len), len));
}

/* A group with more prefixes than one message holds: elements spread over several. */
static void test_many_prefixes(void **state)
{
	struct t_world *w = *state;
	struct route_group *g = &w->plan.groups.v[w->plan.nodes.v[w->l0].group_off];
	struct t_elem *el = calloc(512, sizeof(*el));
	struct route_prefix p = {0xc6130000, 32};
	uint32_t i, n, msgs = 0;

	assert_non_null(el);
	g->pfx_off = (uint32_t)w->plan.prefixes.n;
	g->pfx_n = 150;
	for (i = 0; i < 150; i++, p.addr += 2)
		assert_int_equal(vec_push(&w->plan.prefixes, p), 0);
	t_build(w, w->l0);
	n = t_elems(w, "dst_pre", el, 512);
	assert_int_equal(n, 300);
	for (i = 0; i < w->n; i++)
		msgs += t_type(w->msg[i]) == NFT_MSG_NEWSETELEM;
	/* 300 interval elements in messages of 64, in each of the two maps, plus edge, hash and
	 * tag */
	assert_int_equal(msgs, 2 * 5 + 3);
	assert_int_equal(el[298].key, htonl(0xc6130000 + 2 * 149));
	assert_int_equal(el[299].flags, NFT_SET_ELEM_INTERVAL_END);
	free(el);
}

static char *t_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void test_render_golden(void **state)
{
	struct t_world *w = *state;
	int n = nftr_node_render(NULL, 0, w->t, &w->plan, w->l0);
	char *text, *golden;
	const char *upd = getenv("TB_GOLDEN_UPDATE");
	size_t len = 0;
	FILE *f;

	assert_true(n > 0);
	text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(nftr_node_render(text, (size_t)n + 1, w->t, &w->plan, w->l0), n);
	assert_int_equal(strlen(text), n);
	if (upd && !strcmp(upd, "1")) {
		f = fopen(T_GOLDEN, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(text, 1, (size_t)n, f), n);
		fclose(f);
	}
	golden = t_read(T_GOLDEN, &len);
	if (!golden)
		fail_msg("cannot read %s (run from the repository root)", T_GOLDEN);
	if (strcmp(golden, text))
		fail_msg("render differs from %s; got:\n%s", T_GOLDEN, text);
	free(golden);
	free(text);
}

static void test_render_truncates(void **state)
{
	struct t_world *w = *state;
	int n = nftr_node_render(NULL, 0, w->t, &w->plan, w->l0);
	char small[24];

	assert_int_equal(nftr_node_render(small, sizeof(small), w->t, &w->plan, w->l0), n);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, "table ip testbed {\n\tset", sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_table_replaced, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_chains, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_sets, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_dst_intervals, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_groups_one_map, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_maps, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_rules, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_spray, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_no_group, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_batch_full, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_begin_end_clear, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_many_prefixes, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_render_golden, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_render_truncates, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
