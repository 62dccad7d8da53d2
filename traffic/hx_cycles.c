// SPDX-License-Identifier: MIT
/* Two edge-disjoint Hamiltonian cycles on an r x c torus (see hx_cycles.h): the shape
 * condition, O(1) next/previous/position, and the walk with its verification.
 * HammingMesh Appendix A-D */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/hx_cycles.h"

#define HX_NO_EDGE UINT32_MAX
/* edge ids are 2 * rank + {0, 1} in 32 bits */
#define HX_MAX_NODES (UINT32_MAX / 2)

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The inverse of a modulo m (gcd(a, m) = 1; 0 for m = 1), by extended Euclid. */
static uint32_t inv_mod(uint32_t a, uint32_t m)
{
	int64_t r0 = m, r1 = a % m, t0 = 0, t1 = 1;

	while (r1) {
		int64_t q = r0 / r1, t;

		t = r0 - q * r1;
		r0 = r1;
		r1 = t;
		t = t0 - q * t1;
		t0 = t1;
		t1 = t;
	}
	return (uint32_t)((t0 % m + m) % m);
}

static bool shape_ok(uint32_t r, uint32_t c)
{
	return r >= 3 && c >= 3 && r % c == 0 && gcd32(r, c - 1) == 1;
}

static int narrow(uint32_t r, uint32_t c, struct diag *d)
{
	if (!r || !c)
		return diag_set(d, -EINVAL, "a %ux%u torus has no nodes", r, c);
	return diag_set(
		d, -EINVAL,
		"a %ux%u torus is too narrow for two edge-disjoint Hamiltonian cycles: with "
		"%u %s, neighbours share both of their torus links; r >= 3 rows and c >= 3 "
		"columns needed",
		r, c, c < 3 ? c : r, c < 3 ? "columns" : "rows");
}

int hx_cycles_shape(uint32_t r, uint32_t c, struct diag *d)
{
	const char *hint;

	if (r < 3 || c < 3)
		return narrow(r, c, d);
	if ((uint64_t)r * c > HX_MAX_NODES)
		return diag_set(d, -EINVAL, "a %ux%u torus has more than %u nodes", r, c,
				HX_MAX_NODES);
	if (shape_ok(r, c))
		return 0;
	/* the layout is the user's choice (columns = group): say when the other one works */
	hint = shape_ok(c, r) ? "; the transposed shape has them" : "";
	if (r % c)
		return diag_set(
			d, -EINVAL,
			"a %ux%u torus has no pair of edge-disjoint Hamiltonian cycles of this "
			"construction: r = c*k and gcd(r, c-1) = 1 needed (%u rows are not a "
			"multiple of %u columns)%s",
			r, c, r, c, hint);
	return diag_set(d, -EINVAL,
			"a %ux%u torus has no pair of edge-disjoint Hamiltonian cycles of this "
			"construction: r = c*k and gcd(r, c-1) = 1 needed (gcd(%u, %u) = %u)%s",
			r, c, r, c - 1, gcd32(r, c - 1), hint);
}

/* A turning node leaves A to the South and B to the East. */
static bool turns(uint32_t c, uint32_t i, uint32_t j)
{
	return j == (c - i % c) % c;
}

static uint32_t node(uint32_t c, uint32_t i, uint32_t j)
{
	return i * c + j;
}

uint32_t hx_cycle_next(uint32_t r, uint32_t c, enum hx_cycle w, uint32_t rank)
{
	uint32_t i = rank / c, j = rank % c;
	bool south = turns(c, i, j) == (w == HX_CYCLE_A);

	return south ? node(c, (i + 1) % r, j) : node(c, i, (j + 1) % c);
}

/* The in-edges are complementary too: A arrives from the North exactly when the node above
 * turns, which is exactly when the node to the West turns (c divides r); B from the other. */
uint32_t hx_cycle_prev(uint32_t r, uint32_t c, enum hx_cycle w, uint32_t rank)
{
	uint32_t i = rank / c, j = rank % c;
	uint32_t up = (i + r - 1) % r, left = (j + c - 1) % c;
	bool north = turns(c, up, j) == (w == HX_CYCLE_A);

	return north ? node(c, up, j) : node(c, i, left);
}

/* A runs each row East from the column after the previous row's turning node to its own
 * turning node, then one step South: row i (i >= 1) fills positions (i-1)c + 1 .. ic, and
 * row 0 closes the cycle at position n = 0. */
static uint32_t pos_a(uint32_t r, uint32_t c, uint32_t i, uint32_t j)
{
	uint64_t p = (uint64_t)((i + r - 1) % r) * c + 1 + (j + i % c + c - 1) % c;

	return (uint32_t)(p % ((uint64_t)r * c));
}

/* B runs in blocks of one East step and c-1 South steps: position p = t*c + s + 1 (s < c) is
 * row t(c-1) + s mod r, column t+1 mod c. Given the node, s and t mod c follow from reducing
 * mod c; t = t0 + c*m then needs m (c-1) = dist/c mod k with k = r/c, solvable as
 * gcd(c-1, r) = 1. */
static uint32_t pos_b(uint32_t r, uint32_t c, uint32_t i, uint32_t j)
{
	uint32_t k = r / c, s = (i % c + j + c - 1) % c, t0 = (j + c - 1) % c;
	uint64_t back = ((uint64_t)t0 * (c - 1) + s) % r;
	uint64_t dist = (i + r - back) % r; /* a multiple of c */
	uint64_t m, p;

	if (!k) /* r < c: no such cycle; an answer, not a division by zero */
		return 0;
	m = (dist / c) * inv_mod((c - 1) % k, k) % k;
	p = (t0 + c * m) * c + s + 1;
	return (uint32_t)(p % ((uint64_t)r * c));
}

uint32_t hx_cycle_pos(uint32_t r, uint32_t c, enum hx_cycle w, uint32_t rank)
{
	uint32_t i = rank / c, j = rank % c;

	if (!rank)
		return 0;
	return w == HX_CYCLE_A ? pos_a(r, c, i, j) : pos_b(r, c, i, j);
}

/* The undirected torus edge between u and v, 2u (East of u) or 2u + 1 (South of u), or
 * HX_NO_EDGE if they are not neighbours. r, c >= 3 makes the id unique. */
static uint32_t edge_id(uint32_t r, uint32_t c, uint32_t u, uint32_t v)
{
	uint32_t i = u / c, j = u % c;

	if (v == node(c, i, (j + 1) % c))
		return 2 * u;
	if (v == node(c, (i + 1) % r, j))
		return 2 * u + 1;
	i = v / c;
	j = v % c;
	if (u == node(c, i, (j + 1) % c))
		return 2 * v;
	if (u == node(c, (i + 1) % r, j))
		return 2 * v + 1;
	return HX_NO_EDGE;
}

static void walk(uint32_t r, uint32_t c, enum hx_cycle w, uint32_t *out)
{
	uint32_t p, n = r * c, u = 0;

	for (p = 0; p < n; p++) {
		out[p] = u;
		u = hx_cycle_next(r, c, w, u);
	}
}

/* seen: n zeroed flags; edge: 2n flags, A's marked before B is checked. */
static int verify(uint32_t r, uint32_t c, const uint32_t *cyc, char name, uint8_t *seen,
		  uint8_t *edge, struct diag *d)
{
	uint32_t p, e, n = r * c;

	for (p = 0; p < n; p++) {
		if (seen[cyc[p]]++)
			return diag_set(d, -EINVAL,
					"%ux%u torus: cycle %c visits rank %u twice (position %u)",
					r, c, name, cyc[p], p);
		e = edge_id(r, c, cyc[p], cyc[(p + 1) % n]);
		if (e == HX_NO_EDGE)
			return diag_set(d, -EINVAL,
					"%ux%u torus: cycle %c steps from rank %u to rank %u, "
					"not a torus neighbour",
					r, c, name, cyc[p], cyc[(p + 1) % n]);
		if (edge[e]++)
			return diag_set(d, -EINVAL,
					"%ux%u torus: cycle %c takes the link between ranks %u and "
					"%u, which a cycle took before",
					r, c, name, cyc[p], cyc[(p + 1) % n]);
	}
	return 0;
}

int hx_cycles(uint32_t r, uint32_t c, uint32_t *a, uint32_t *b, struct diag *d)
{
	uint8_t *seen;
	uint32_t n;
	int err;

	err = hx_cycles_shape(r, c, d);
	if (err)
		return err;
	n = r * c;
	seen = calloc(3, n);
	if (!seen)
		return diag_set(d, -ENOMEM, "%ux%u torus: out of memory checking its cycles", r, c);
	walk(r, c, HX_CYCLE_A, a);
	walk(r, c, HX_CYCLE_B, b);
	err = verify(r, c, a, 'A', seen, seen + n, d);
	if (!err) {
		memset(seen, 0, n);
		err = verify(r, c, b, 'B', seen, seen + n, d);
	}
	free(seen);
	return err;
}
