/* SPDX-License-Identifier: MIT */
/* Helpers the netlink request builders (nlk_build.c, nlk_change.c) share. */
#ifndef ORCH_NLK_INT_H
#define ORCH_NLK_INT_H

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>

#include <netlink/addr.h>
#include <netlink/errno.h>

/* libnl reports NLE_* codes; callers speak -errno. */
static inline int nle(int r)
{
	if (r >= 0)
		return 0;
	return r == -NLE_NOMEM ? -ENOMEM : -EINVAL;
}

/* An IPv4 nl_addr of a (host byte order) / plen; NULL when out of memory. */
static inline struct nl_addr *v4(uint32_t a, uint8_t plen)
{
	uint32_t be = htonl(a);
	struct nl_addr *na = nl_addr_build(AF_INET, &be, sizeof(be));

	if (na)
		nl_addr_set_prefixlen(na, plen);
	return na;
}

#endif
