// SPDX-License-Identifier: MIT
/* Deterministic addressing (see addr.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/addr.h"

void addr_endpoint_region(uint32_t base, uint8_t plen, uint32_t *lo, uint64_t *size)
{
	*lo = base;
	*size = (1ULL << (32 - plen)) / 2;
}

static uint64_t pow2_ceil(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* Block size per group: the largest group rounded up to a power of two. */
static int group_blocks(const struct topo *t, uint64_t *bsize, uint32_t *ngroups)
{
	uint32_t *count, maxg = 0, maxc = 0;
	size_t i;

	for (i = 0; i < t->endpoints.n; i++)
		if (t->nodes.v[t->endpoints.v[i]].group + 1 > maxg)
			maxg = t->nodes.v[t->endpoints.v[i]].group + 1;
	count = calloc(maxg ? maxg : 1, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (i = 0; i < t->endpoints.n; i++) {
		uint32_t g = t->nodes.v[t->endpoints.v[i]].group;

		if (++count[g] > maxc)
			maxc = count[g];
	}
	free(count);
	*bsize = pow2_ceil(maxc ? maxc : 1);
	*ngroups = maxg;
	return 0;
}

static int assign_endpoints(struct topo *t, uint32_t base, uint8_t plen, struct diag *d)
{
	uint64_t bsize, size;
	uint32_t ngroups, lo, *used;
	size_t i;
	int r;

	r = group_blocks(t, &bsize, &ngroups);
	if (r)
		return diag_set(d, r, "out of memory");
	addr_endpoint_region(base, plen, &lo, &size);
	if (bsize * ngroups > size)
		return diag_set(
			d, -E2BIG,
			"addressing prefix /%u is too small: %u groups of up to %llu endpoints "
			"need %llu addresses, the prefix's endpoint half has %llu",
			plen, ngroups, (unsigned long long)bsize,
			(unsigned long long)(bsize * ngroups), (unsigned long long)size);
	used = calloc(ngroups ? ngroups : 1, sizeof(*used));
	if (!used)
		return diag_set(d, -ENOMEM, "out of memory");
	for (i = 0; i < t->endpoints.n; i++) {
		struct topo_node *n = &t->nodes.v[t->endpoints.v[i]];

		n->addr = lo + (uint32_t)(n->group * bsize) + used[n->group]++;
	}
	free(used);
	return 0;
}

int addr_assign(struct topo *t, uint32_t base, uint8_t plen, struct diag *d)
{
	uint64_t size = (1ULL << (32 - plen)) / 2;
	uint32_t links = base + (uint32_t)size;
	size_t i;
	int r;

	if (plen > 30 || (base & (uint32_t)(((1ULL << (32 - plen)) - 1))))
		return diag_set(d, -EINVAL,
				"addressing prefix must be an aligned prefix of /30 or shorter");
	r = assign_endpoints(t, base, plen, d);
	if (r)
		return r;
	if (2 * t->links.n > size)
		return diag_set(d, -E2BIG,
				"addressing prefix /%u is too small: %zu links need %zu addresses, "
				"the prefix's link half has %llu",
				plen, t->links.n, 2 * t->links.n, (unsigned long long)size);
	for (i = 0; i < t->ports.n; i++) {
		struct topo_port *p = &t->ports.v[i];

		p->addr = links + 2 * p->link + p->side;
		p->plen = 31;
	}
	return 0;
}

void addr_mac(uint32_t port, uint8_t mac[6])
{
	mac[0] = 0x02; /* locally administered, unicast */
	mac[1] = 0x74; /* 't' */
	mac[2] = (uint8_t)(port >> 24);
	mac[3] = (uint8_t)(port >> 16);
	mac[4] = (uint8_t)(port >> 8);
	mac[5] = (uint8_t)port;
}

int addr_neigh(const struct topo *t, uint32_t p, uint32_t *addr, uint8_t mac[6])
{
	uint32_t q = topo_port_peer(t, p);

	if (t->phys || !t->ports.v[p].plen || q == TOPO_NONE || !t->ports.v[q].plen ||
	    t->nodes.v[t->ports.v[q].node].kind == TOPO_OCS)
		return -ENOENT;
	*addr = t->ports.v[q].addr;
	addr_mac(q, mac);
	return 0;
}

char *addr_fmt(char *buf, size_t len, uint32_t a)
{
	snprintf(buf, len, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
	return buf;
}

int addr_parse_prefix(const char *s, uint32_t *addr, uint8_t *plen)
{
	unsigned a, b, c, e, l;
	char tail;

	if (sscanf(s, "%u.%u.%u.%u/%u%c", &a, &b, &c, &e, &l, &tail) != 5)
		return -EINVAL;
	if (a > 255 || b > 255 || c > 255 || e > 255 || l > 32)
		return -EINVAL;
	*addr = (a << 24) | (b << 16) | (c << 8) | e;
	*plen = (uint8_t)l;
	return 0;
}
