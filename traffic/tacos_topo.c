// SPDX-License-Identifier: MIT
/* The graph TACOS synthesizes over for a job on a direct topology (tacos.h), and the
 * synthesis of the job's collective on it. */
#include <errno.h>
#include <stdlib.h>

#include "model/gen_direct.h"
#include "traffic/tacos.h"

/* The far end of link l from port side s, or TOPO_NONE. */
static uint32_t far_node(const struct topo *t, const struct topo_link *l, uint8_t s)
{
	return t->ports.v[l->port[!s]].node;
}

/* NPU of endpoint node v in the job (rank), or TOPO_NONE. */
static uint32_t npu_of(const struct topo *t, const uint32_t *rank_of, uint32_t v)
{
	uint32_t ep = t->nodes.v[v].ep;

	return ep == TOPO_NONE ? TOPO_NONE : rank_of[ep];
}

/* Adds the direction of l leaving side s if both ends are the job's NPUs and dp grants it
 * (by NPU id, the node's index: failed NPUs leave gaps in the endpoints, not in the ids). */
static void add_dir(const struct topo *t, const struct tacos_topo_in *in, const uint32_t *rank_of,
		    uint32_t li, uint8_t s, struct tacos_link *out, uint32_t *n)
{
	const struct topo_link *l = &t->links.v[li];
	uint32_t a = t->ports.v[l->port[s]].node, b = far_node(t, l, s);
	uint32_t ra = npu_of(t, rank_of, a), rb = npu_of(t, rank_of, b);

	if (l->tier != TOPO_TIER_DIRECT || ra == TOPO_NONE || rb == TOPO_NONE ||
	    !gen_direct_granted(in->dp, t->nodes.v[a].index, t->nodes.v[b].index))
		return;
	out[*n] =
		(struct tacos_link){.src = ra,
				    .dst = rb,
				    .alpha = in->alpha,
				    .rate = (uint64_t)((double)l->rate[s] / in->rate_scale + 0.5)};
	++*n;
}

int tacos_topo_graph(const struct tacos_topo_in *in, struct tacos_link **links, uint32_t *nlinks,
		     struct diag *d)
{
	const struct topo *t = in->t;
	uint32_t *rank_of = malloc((t->endpoints.n + 1) * sizeof(*rank_of)), i, n = 0;
	struct tacos_link *out = calloc(2 * t->links.n + 1, sizeof(*out));

	*links = NULL;
	*nlinks = 0;
	if (!rank_of || !out) {
		free(rank_of);
		free(out);
		return diag_set(d, -ENOMEM, "tacos: out of memory for the graph");
	}
	for (i = 0; i < t->endpoints.n; i++)
		rank_of[i] = TOPO_NONE;
	for (i = 0; i < in->n; i++)
		rank_of[in->eps[i]] = i;
	for (i = 0; i < t->links.n; i++) {
		add_dir(t, in, rank_of, i, 0, out, &n);
		add_dir(t, in, rank_of, i, 1, out, &n);
	}
	free(rank_of);
	*links = out;
	*nlinks = n;
	return 0;
}

int tacos_topo_synth(const struct tacos_topo_in *in, enum coll_kind kind,
		     const struct tacos_cfg *cfg, struct tacos_result *r, struct diag *d)
{
	struct tacos_link *links;
	struct tacos_graph g;
	uint32_t n;
	int err = tacos_topo_graph(in, &links, &n, d);

	if (err)
		return err;
	g = (struct tacos_graph){.n = in->n, .nlinks = n, .links = links};
	if (kind == COLL_ALLREDUCE)
		err = tacos_allreduce(&g, cfg, r, d);
	else if (kind == COLL_ALLGATHER)
		err = tacos_allgather(&g, cfg, r, d);
	else if (kind == COLL_REDUCESCATTER)
		err = tacos_reducescatter(&g, cfg, r, d);
	else
		err = diag_set(d, -EINVAL,
			       "tacos: builds allreduce, allgather and reducescatter, "
			       "not %s",
			       coll_kind_name(kind));
	free(links);
	return err;
}
