// SPDX-License-Identifier: MIT
/* `testbed export`'s formatters (collect/topo_export.h) on a small leaf-spine (2 leaves, 2
 * spines, 2 hosts per leaf; with parallel links, with an OCS layer) and a 2x2 direct mesh:
 * the Graphviz graph's nodes, edges, clusters and labels, the containerlab file read back by
 * libyaml, its interfaces numbered in port order, and the same bytes every time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <yaml.h>

#include "collect/topo_export.h"
#include "model/gen.h"

#define T_GBIT 1000000000ULL

typedef int t_fmt_fn(struct col_text *o, const struct topo *t, const char *name);

/* Leaf-spine 2 x 2 x 2: host links 1Gbit, lpp links of 4Gbit per leaf-spine pair, an OCS
 * layer of `ocs` OCSes between them, `delay` ns on every link. */
static struct topo *t_leafspine(uint32_t lpp, uint32_t ocs, uint64_t delay)
{
	struct scenario s;
	struct topo *t = NULL;
	struct diag d = {0};

	scn_init(&s);
	s.topology.gen = SCN_GEN_LEAFSPINE;
	s.topology.ls.hosts_per_leaf = 2;
	s.topology.ls.leaves = 2;
	s.topology.ls.spines = 2;
	s.topology.ls.links_per_pair = lpp;
	s.topology.ls.host_rate = 1 * T_GBIT;
	s.topology.ls.fabric_rate = 4 * T_GBIT;
	s.topology.ls.ocs.count = ocs;
	s.topology.delay_ns = delay;
	assert_int_equal(topo_build(&s, &t, &d), 0);
	scn_done(&s);
	return t;
}

/* A 2x2 mesh n0..n3 at 100Gbit with 2us on every link: rows {n0, n1} and {n2, n3}. */
static struct topo *t_mesh(void)
{
	struct scenario s;
	struct topo *t = NULL;
	struct diag d = {0};

	scn_init(&s);
	s.topology.gen = SCN_GEN_DIRECT;
	s.topology.dr.kind = GEN_DIRECT_MESH2D;
	s.topology.dr.size[0] = 2;
	s.topology.dr.size[1] = 2;
	s.topology.dr.rate = 100 * T_GBIT;
	s.topology.delay_ns = 2000;
	assert_int_equal(topo_build(&s, &t, &d), 0);
	scn_done(&s);
	return t;
}

/* f's text for t, named "t"; the caller frees it. Made twice: the bytes must not differ. */
static char *t_export(t_fmt_fn *f, const struct topo *t)
{
	struct col_text o = {0}, o2 = {0};
	char *s, *s2;

	assert_int_equal(f(&o, t, "t"), 0);
	assert_int_equal(f(&o2, t, "t"), 0);
	s = col_text_take(&o, NULL);
	s2 = col_text_take(&o2, NULL);
	assert_non_null(s);
	assert_non_null(s2);
	assert_string_equal(s, s2);
	free(s2);
	return s;
}

static size_t t_count(const char *s, const char *needle)
{
	size_t n = 0;

	for (s = strstr(s, needle); s; s = strstr(s + 1, needle))
		n++;
	return n;
}

static const struct topo *t_cables(const struct topo *t)
{
	return t->phys ? t->phys : t;
}

/* ---- Graphviz ---- */

/* Every line is empty, a comment, or ends a statement or opens or closes a block, and the
 * blocks nest: the shape `dot` parses (the integration test runs dot itself). */
static void t_dot_shape(const char *s)
{
	int depth = 0;
	const char *l, *e;

	assert_true(strstr(s, "graph \"t\" {\n") != NULL);
	assert_null(strstr(s, "digraph"));
	for (l = s; *l; l = e + 1) {
		e = strchr(l, '\n');
		assert_non_null(e);
		while (*l == '\t')
			l++;
		if (l == e || !strncmp(l, "//", 2))
			continue;
		depth += e[-1] == '{';
		depth -= e[-1] == '}';
		assert_true(depth >= 0);
		assert_true(e[-1] == '{' || e[-1] == '}' || e[-1] == ';');
	}
	assert_int_equal(depth, 0);
	assert_string_equal(s + strlen(s) - 2, "}\n");
}

/* Node name's one declaration in dot text s. */
static const char *t_dot_decl(const char *s, const char *name)
{
	char k[48];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\" [shape=", name);
	p = strstr(s, k);
	assert_non_null(p);
	assert_null(strstr(p + 1, k));
	return p;
}

/* Node name is declared inside cluster_g<g>. */
static void t_dot_in_cluster(const char *s, const char *name, unsigned g)
{
	char k[48];
	const char *c, *end, *p = t_dot_decl(s, name);

	snprintf(k, sizeof(k), "subgraph cluster_g%u {\n", g);
	c = strstr(s, k);
	assert_non_null(c);
	end = strstr(c, "\n\t}\n");
	assert_non_null(end);
	assert_true(c < p && p < end);
}

/* One declaration per node (the cables' view), one edge per link. */
static void t_dot_counts(const char *s, const struct topo *t)
{
	const struct topo *c = t_cables(t);
	size_t i;

	assert_int_equal(t_count(s, " [shape="), c->nodes.n);
	assert_int_equal(t_count(s, "\" -- \""), c->links.n);
	for (i = 0; i < c->nodes.n; i++)
		t_dot_decl(s, c->nodes.v[i].name);
}

static void test_dot_leafspine(void **state)
{
	struct topo *t = t_leafspine(2, 0, 0);
	char *s = t_export(col_topo_dot, t);

	(void)state;
	t_dot_shape(s);
	assert_int_equal(t->nodes.n, 8);
	assert_int_equal(t->links.n, 4 + 2 * 2 * 2);
	t_dot_counts(s, t);
	/* parallel links: each leaf-spine pair twice, each its own edge */
	assert_int_equal(t_count(s, "\"l0\" -- \"s0\" [label=\"4Gbit\"];\n"), 2);
	assert_int_equal(t_count(s, "\"l1\" -- \"s1\" [label=\"4Gbit\"];\n"), 2);
	assert_int_equal(t_count(s, "[label=\"4Gbit\"]"), 8);
	assert_int_equal(t_count(s, "[label=\"1Gbit\"]"), 4);
	assert_non_null(strstr(s, "\t\"h0\" -- \"l0\" [label=\"1Gbit\"];\n"));
	/* roles: hosts are boxes with their address, leaves and spines shaped apart */
	assert_non_null(strstr(s, "\"h0\" [shape=box, fillcolor=\"#cfe2f3\", "
				  "label=\"h0\\n198.18.0.0\"];\n"));
	assert_non_null(strstr(s, "\"h3\" [shape=box, fillcolor=\"#cfe2f3\", "
				  "label=\"h3\\n198.18.0.3\"];\n"));
	assert_non_null(strstr(s, "\t\"l1\" [shape=ellipse, fillcolor=\"#fce5cd\"];\n"));
	assert_non_null(strstr(s, "\t\"s0\" [shape=octagon, fillcolor=\"#f4cccc\"];\n"));
	/* a cluster per leaf's hosts */
	assert_int_equal(t_count(s, "subgraph cluster_"), 2);
	assert_non_null(strstr(s, "label=\"leaf 1\";"));
	t_dot_in_cluster(s, "h0", 0);
	t_dot_in_cluster(s, "h1", 0);
	t_dot_in_cluster(s, "h2", 1);
	t_dot_in_cluster(s, "h3", 1);
	assert_null(strstr(s, "// at `up`")); /* no OCS, no circuits */
	free(s);
	topo_free(t);
}

static void test_dot_mesh(void **state)
{
	struct topo *t = t_mesh();
	char *s = t_export(col_topo_dot, t);

	(void)state;
	t_dot_shape(s);
	assert_int_equal(t->nodes.n, 4);
	assert_int_equal(t->links.n, 4);
	t_dot_counts(s, t);
	assert_int_equal(t_count(s, "[label=\"100Gbit, 2us\"]"), 4);
	assert_int_equal(t_count(s, "subgraph cluster_"), 2);
	assert_non_null(strstr(s, "label=\"group 0\";"));
	t_dot_in_cluster(s, "n1", 0);
	t_dot_in_cluster(s, "n2", 1);
	assert_int_equal(t_count(s, "shape=box"), 4); /* only endpoints, no switch */
	free(s);
	topo_free(t);
}

/* One group only: no clusters, the endpoints at the graph's top level. */
static void test_dot_one_group(void **state)
{
	struct scenario sc;
	struct topo *t = NULL;
	struct diag d = {0};
	char *s;

	(void)state;
	scn_init(&sc);
	sc.topology.gen = SCN_GEN_LEAFSPINE;
	sc.topology.ls = (struct scn_leafspine){.hosts_per_leaf = 3,
						.leaves = 1,
						.spines = 1,
						.links_per_pair = 1,
						.host_rate = T_GBIT,
						.fabric_rate = T_GBIT,
						.gpus_per_server = 1};
	assert_int_equal(topo_build(&sc, &t, &d), 0);
	s = t_export(col_topo_dot, t);
	t_dot_shape(s);
	t_dot_counts(s, t);
	assert_null(strstr(s, "subgraph"));
	assert_non_null(strstr(s, "\n\t\"h2\" [shape=box"));
	free(s);
	topo_free(t);
	scn_done(&sc);
}

/* With an OCS layer the cables are drawn: OCS nodes, the leaf and spine cables to them, and
 * the circuits at `up` in comments. */
static void test_dot_ocs(void **state)
{
	struct topo *t = t_leafspine(1, 2, 0);
	char *s = t_export(col_topo_dot, t);

	(void)state;
	assert_non_null(t->phys);
	t_dot_shape(s);
	t_dot_counts(s, t);
	assert_int_equal(t->phys->nodes.n, 8 + 2);
	assert_non_null(strstr(s, "\t\"o1\" [shape=diamond, fillcolor=\"#d9d2e9\"];\n"));
	assert_null(strstr(s, "\"l0\" -- \"s0\"")); /* no leaf-spine cable: through the OCSes */
	assert_int_equal(t_count(s, "\"l0\" -- \"o0\""), 1);
	assert_int_equal(t_count(s, "style=dashed"), t->phys->links.n - 4);
	/* the default circuits (model/ocs.h): on o_k, leaf n to spine (k + n) mod 2 */
	assert_int_equal(t_count(s, "// at `up`: circuit "), 4);
	assert_non_null(strstr(s, "// at `up`: circuit o0:l0-s0\n"));
	assert_non_null(strstr(s, "// at `up`: circuit o1:l0-s1\n"));
	free(s);
	topo_free(t);
}

/* ---- containerlab ---- */

static yaml_node_t *t_yaml_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	assert_int_equal(map->type, YAML_MAPPING_NODE);
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp((char *)k->data.scalar.value, key))
			return yaml_document_get_node(doc, p->value);
	}
	fail_msg("no key %s", key);
	return NULL;
}

static const char *t_yaml_str(yaml_node_t *n)
{
	assert_int_equal(n->type, YAML_SCALAR_NODE);
	return (const char *)n->data.scalar.value;
}

/* s parses as YAML into name, topology.nodes (one per node, kind linux, the image) and
 * topology.links (one per link, two endpoints each). */
static void t_clab_yaml(const char *s, const struct topo *t)
{
	const struct topo *c = t_cables(t);
	yaml_parser_t p;
	yaml_document_t doc;
	yaml_node_t *root, *topo, *nodes, *links, *h0;

	assert_true(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)s, strlen(s));
	assert_true(yaml_parser_load(&p, &doc));
	root = yaml_document_get_root_node(&doc);
	assert_non_null(root);
	assert_string_equal(t_yaml_str(t_yaml_get(&doc, root, "name")), "t");
	topo = t_yaml_get(&doc, root, "topology");
	nodes = t_yaml_get(&doc, topo, "nodes");
	links = t_yaml_get(&doc, topo, "links");
	assert_int_equal(nodes->data.mapping.pairs.top - nodes->data.mapping.pairs.start,
			 c->nodes.n);
	assert_int_equal(links->type, YAML_SEQUENCE_NODE);
	assert_int_equal(links->data.sequence.items.top - links->data.sequence.items.start,
			 c->links.n);
	h0 = t_yaml_get(&doc, nodes, c->nodes.v[0].name);
	assert_string_equal(t_yaml_str(t_yaml_get(&doc, h0, "kind")), "linux");
	assert_string_equal(t_yaml_str(t_yaml_get(&doc, h0, "image")), COL_CLAB_IMAGE);
	assert_int_equal(t_yaml_get(&doc, h0, "exec")->type, YAML_SEQUENCE_NODE);
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
}

/* Port p's position among its node's ports, plus one: the interface containerlab numbers it. */
static unsigned t_eth_of(const struct topo *t, uint32_t p)
{
	uint32_t n = t->ports.v[p].node, i;

	for (i = 0; i < t->nodes.v[n].nports; i++)
		if (topo_node_port(t, n, i) == p)
			return i + 1;
	fail_msg("port %u not on its node", p);
	return 0;
}

/* Link i's line names its two ends' nodes, each at the interface of its port's position; over
 * all lines, every interface eth1..eth<nports> of every node is used once. */
static void t_clab_links(const char *s, const struct topo *t)
{
	const struct topo *c = t_cables(t);
	uint8_t *used = calloc(c->ports.n + 1, 1);
	const char *l = strstr(s, "\n  links:\n");
	char a[TOPO_NAME_MAX], b[TOPO_NAME_MAX];
	unsigned ea, eb;
	size_t i;
	int k;

	assert_non_null(used);
	assert_non_null(l);
	for (i = 0; i < c->links.n; i++) {
		const struct topo_link *lk = &c->links.v[i];

		l = strstr(l, "\n    - endpoints: [");
		assert_non_null(l);
		l++;
		assert_int_equal(sscanf(l,
					"    - endpoints: [\"%15[^:]:eth%u\", \"%15[^:]:eth%u\"]",
					a, &ea, b, &eb),
				 4);
		assert_string_equal(a, c->nodes.v[c->ports.v[lk->port[0]].node].name);
		assert_string_equal(b, c->nodes.v[c->ports.v[lk->port[1]].node].name);
		assert_int_equal(ea, t_eth_of(c, lk->port[0]));
		assert_int_equal(eb, t_eth_of(c, lk->port[1]));
		for (k = 0; k < 2; k++) {
			assert_int_equal(used[lk->port[k]], 0);
			used[lk->port[k]] = 1;
		}
	}
	assert_null(strstr(l, "\n    - endpoints: ["));
	for (i = 0; i < c->ports.n; i++) /* each node's eth1..ethN: its N ports, each once */
		assert_int_equal(used[i], 1);
	free(used);
}

static void t_clab_header(const char *s)
{
	assert_int_equal(strncmp(s, "# t: ", 5), 0);
	assert_non_null(strstr(s, "routing, ECMP, shaping"));
	assert_non_null(strstr(s, "are not"));
	assert_non_null(strstr(s, "image " COL_CLAB_IMAGE));
	assert_non_null(strstr(s, "\nname: t\n\ntopology:\n  nodes:\n"));
}

static void test_clab_leafspine(void **state)
{
	struct topo *t = t_leafspine(2, 0, 0);
	char *s = t_export(col_topo_clab, t);

	(void)state;
	t_clab_header(s);
	t_clab_yaml(s, t);
	t_clab_links(s, t);
	assert_non_null(strstr(s, "\n    h0: # host\n      kind: linux\n      image: alpine:3\n"
				  "      group: leaf0\n      exec:\n"
				  "        - ip addr add 198.18.0.0/32 dev lo\n"
				  "        - ip addr add "));
	/* l0's ports: its two hosts, then two cables to each spine (named s0.0, s0.1, ...) */
	assert_non_null(strstr(s, " dev eth3 # s0.0\n"));
	assert_non_null(strstr(s, " dev eth6 # s1.1\n"));
	assert_non_null(strstr(s, "    - endpoints: [\"h0:eth1\", \"l0:eth1\"] # 1Gbit\n"));
	assert_non_null(strstr(s, "    - endpoints: [\"l0:eth4\", \"s0:eth2\"] # 4Gbit\n"));
	assert_int_equal(t_count(s, "\n    s1: # spine\n"), 1);
	free(s);
	topo_free(t);
}

static void test_clab_mesh(void **state)
{
	struct topo *t = t_mesh();
	char *s = t_export(col_topo_clab, t);

	(void)state;
	t_clab_header(s);
	t_clab_yaml(s, t);
	t_clab_links(s, t);
	assert_int_equal(t_count(s, "] # 100Gbit, 2us\n"), 4);
	assert_int_equal(t_count(s, "      group: group1\n"), 2);
	assert_int_equal(t_count(s, "/31 dev eth"), 8); /* two ports per node, a /31 each */
	free(s);
	topo_free(t);
}

/* OCS nodes carry no address, their circuits as comments with containerlab's interfaces. */
static void test_clab_ocs(void **state)
{
	struct topo *t = t_leafspine(1, 2, 0);
	char *s = t_export(col_topo_clab, t);
	const char *o0;

	(void)state;
	t_clab_header(s);
	t_clab_yaml(s, t);
	t_clab_links(s, t);
	o0 = strstr(s, "\n    o0: # ocs\n      kind: linux\n      image: alpine:3\n");
	assert_non_null(o0);
	/* o0's ports: l0, l1, then s0, s1: circuits l0-s0 and l1-s1 */
	assert_non_null(strstr(o0, "      # circuit o0:l0-s0: eth1-eth3\n"
				   "      # circuit o0:l1-s1: eth2-eth4\n"
				   "    o1: # ocs\n"));
	assert_non_null(strstr(s, "An OCS joins its ports in pairs"));
	assert_int_equal(t_count(s, "/32 dev eth"), 8); /* leaves and spines toward the OCSes */
	free(s);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dot_leafspine),  cmocka_unit_test(test_dot_mesh),
		cmocka_unit_test(test_dot_one_group),  cmocka_unit_test(test_dot_ocs),
		cmocka_unit_test(test_clab_leafspine), cmocka_unit_test(test_clab_mesh),
		cmocka_unit_test(test_clab_ocs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
