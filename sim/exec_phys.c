// SPDX-License-Identifier: MIT
/* The simulator's physics checks as the jobs see them (sim/exec_int.h): a link's breach named
 * as the topology names it, and each job's bus bandwidth against what its ranks can inject.
 *
 * The bound. In an iteration rank k sends its payload B_k while in the collective, T_k =
 * t_end - t_compute_end, over its endpoint's egress links, at most at their capacity c_k,
 * of which a goodput share g is payload: B_k <= g c_k T_k. Whatever the algorithm, the ranks send
 * at least n f S together (f the nccl-tests factor, S the bytes per rank: all-reduce's
 * 2 (n-1) S, all-gather's, reduce-scatter's and all-to-all's (n-1) S), so the mean T the
 * results divide by is at least f S / (g max c_k), and busbw = f S / T <= g max c_k.
 * With n the ranks each buffer is reduced among (coll_busbw_ranks): under shard-rings a ring
 * of replicas, not the job (collect/iters.c still takes the job's ranks there, a busbw up to
 * (n-1)/n / ((dp-1)/dp) over this one, and over the bound: the results' to fix). */
#include <errno.h>
#include <math.h>

#include "sim/exec_int.h"

/* How far busbw may pass its bound, relative: the links' own SIM_PHYS_TOL (sim/phys.h) and
 * a few roundings of sums held exact in doubles (integer ns); a real flaw (headers left
 * uncharged: 0.6% at MTU 9000, a flow over its share) is thousands of times more. */
#define JOB_TOL 1e-6

/* Bit/s leaving endpoint ep over every link, INFINITY with an unshaped one. */
static double egress(const struct topo *t, uint32_t ep)
{
	uint32_t n = t->endpoints.v[ep], i;
	double sum = 0, rate;

	for (i = 0; i < t->nodes.v[n].nports; i++) {
		rate = (double)topo_port_rate(t, topo_node_port(t, n, i));
		sum += rate > 0 ? rate : INFINITY;
	}
	return sum;
}

double sim_job_inj(const struct sim_exec *x, const struct sim_job *j)
{
	double most = 0, e;
	uint32_t k;

	for (k = 0; k < j->nranks; k++) {
		e = egress(x->t, j->eps[k]);
		most = e > most ? e : most;
	}
	return x->goodput * most / 8;
}

int sim_job_check(struct sim_exec *x, const struct sim_job *j, uint32_t iter)
{
	uint32_t n = coll_busbw_ranks(j->algo, j->nranks, j->group);
	double f = coll_busbw_factor(j->kind, n), coll, busbw;

	/* a Chakra trace's job is many operations, not one collective of bytes: its links'
	 * checks hold it, not this one */
	if (x->net.unchecked || f <= 0 || j->coll_ns[iter] <= 0 || isinf(j->inj) ||
	    j->algo == COLL_CHAKRA)
		return 0;
	coll = j->coll_ns[iter] / j->nranks; /* ns, collect/iters.c's mean over ranks */
	busbw = (double)j->bytes / (coll / 1e9) * f;
	if (busbw <= j->inj * (1 + JOB_TOL))
		return 0;
	return diag_set(
		&x->fault, -EFAULT,
		"physics breach at %.9f s of virtual time: job %u (%u ranks), iteration %u, "
		"reached a bus bandwidth of %.9g GB/s, over its injection bound of %.9g GB/s "
		"(goodput %.6g of its ranks' fastest egress, %.9g Gbit/s; x%.9g): a bug in "
		"testbed's simulator, not the scenario's doing: please report it",
		(double)x->net.now / 1e9, j->id, j->nranks, iter, busbw / 1e9, j->inj / 1e9,
		x->goodput, j->inj * 8 / x->goodput / 1e9, busbw / j->inj);
}

int sim_exec_breach(struct sim_exec *x)
{
	const struct sim_breach *b = &x->net.breach;
	const struct topo *t = x->t;
	const struct topo_port *p = &t->ports.v[b->link];
	double cap = x->net.links.v[b->link].cap; /* not 0: an unlimited link is never over */

	return diag_set(
		&x->fault, -EFAULT,
		"physics breach at %.9f s of virtual time: link %u direction %u (%s -> %s) "
		"carries %.9g Gbit/s, %s %.9g Gbit/s (x%.9g): a bug in testbed's flow model, "
		"not the scenario's doing: please report it",
		(double)b->t / 1e9, p->link, p->side, t->nodes.v[p->node].name,
		t->nodes.v[topo_port_peer_node(t, b->link)].name, b->load / 1e9,
		b->cap > 0 ? "over its capacity of" : "while down, its capacity", cap / 1e9,
		b->load / cap);
}
