// SPDX-License-Identifier: MIT
/* Torus rank order (torus_order.h). */
#include "policy/torus_order.h"

uint32_t torus_columns(const struct gen_hxmesh_params *hx)
{
	return hx ? hx->a * hx->x : 0;
}

/* The accelerator's place on the torus, row-major; its endpoint index without hx. */
static uint64_t torus_key(const struct topo *t, const struct gen_hxmesh_params *hx, uint32_t ep)
{
	const struct topo_node *v = &t->nodes.v[t->endpoints.v[ep]];
	uint64_t col, row;

	if (!hx)
		return ep;
	col = (uint64_t)v->coord[0] * hx->a + (uint64_t)v->coord[2];
	row = (uint64_t)v->coord[1] * hx->b + (uint64_t)v->coord[3];
	return row * torus_columns(hx) + col;
}

/* Insertion sort: n is a job's ranks, and the order is almost right already (board-major). */
void torus_order(const struct topo *t, const struct gen_hxmesh_params *hx, uint32_t *eps,
		 uint32_t n)
{
	uint32_t i, j, e;

	for (i = 1; i < n; i++) {
		e = eps[i];
		for (j = i; j > 0 && torus_key(t, hx, eps[j - 1]) > torus_key(t, hx, e); j--)
			eps[j] = eps[j - 1];
		eps[j] = e;
	}
}
