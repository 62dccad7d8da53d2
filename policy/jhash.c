// SPDX-License-Identifier: MIT
/* The kernel's jhash (Bob Jenkins' lookup3, include/linux/jhash.h) and nft's use of it in
 * the `jhash ... mod N` expression (net/netfilter/nft_hash.c), so the model predicts which
 * next hop the kernel picks for a flow. */
#include <string.h>

#include "policy/route.h"

#define JHASH_INITVAL 0xdeadbeefu

static inline uint32_t rol32(uint32_t w, unsigned s)
{
	return (w << s) | (w >> (32 - s));
}

/* clang-format off */
#define JHASH_MIX(a, b, c)                                  \
	do {                                                \
		a -= c; a ^= rol32(c, 4);  c += b;          \
		b -= a; b ^= rol32(a, 6);  a += c;          \
		c -= b; c ^= rol32(b, 8);  b += a;          \
		a -= c; a ^= rol32(c, 16); c += b;          \
		b -= a; b ^= rol32(a, 19); a += c;          \
		c -= b; c ^= rol32(b, 4);  b += a;          \
	} while (0)

#define JHASH_FINAL(a, b, c)                                \
	do {                                                \
		c ^= b; c -= rol32(b, 14);                  \
		a ^= c; a -= rol32(c, 11);                  \
		b ^= a; b -= rol32(a, 25);                  \
		c ^= b; c -= rol32(b, 16);                  \
		a ^= c; a -= rol32(c, 4);                   \
		b ^= a; b -= rol32(a, 14);                  \
		c ^= b; c -= rol32(b, 24);                  \
	} while (0)

/* clang-format on */

/* Little-endian 32-bit load: the kernel's get_unaligned_cpu32 on x86-64. */
static uint32_t load_le32(const uint8_t *k)
{
	return (uint32_t)k[0] | (uint32_t)k[1] << 8 | (uint32_t)k[2] << 16 | (uint32_t)k[3] << 24;
}

uint32_t route_jhash(const void *key, uint32_t len, uint32_t seed)
{
	const uint8_t *k = key;
	uint32_t a, b, c;

	a = b = c = JHASH_INITVAL + len + seed;
	while (len > 12) {
		a += load_le32(k);
		b += load_le32(k + 4);
		c += load_le32(k + 8);
		JHASH_MIX(a, b, c);
		len -= 12;
		k += 12;
	}
	/* clang-format off */
	switch (len) {
	case 12: c += (uint32_t)k[11] << 24; /* fall through */
	case 11: c += (uint32_t)k[10] << 16; /* fall through */
	case 10: c += (uint32_t)k[9] << 8;   /* fall through */
	case 9:  c += k[8];                  /* fall through */
	case 8:  b += (uint32_t)k[7] << 24;  /* fall through */
	case 7:  b += (uint32_t)k[6] << 16;  /* fall through */
	case 6:  b += (uint32_t)k[5] << 8;   /* fall through */
	case 5:  b += k[4];                  /* fall through */
	case 4:  a += (uint32_t)k[3] << 24;  /* fall through */
	case 3:  a += (uint32_t)k[2] << 16;  /* fall through */
	case 2:  a += (uint32_t)k[1] << 8;   /* fall through */
	case 1:  a += k[0];
		JHASH_FINAL(a, b, c);
		break;
	default:
		break;
	}
	/* clang-format on */
	return c;
}

static void put_be(uint8_t *p, uint32_t v, int bytes)
{
	int i;

	for (i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

uint32_t route_hash_pick(const struct route_flow *f, uint32_t seed, uint32_t nh_n)
{
	uint8_t key[20];

	/* five 32-bit registers: saddr, daddr, protocol, sport, dport in wire byte order,
	 * short fields zero-padded (nft_payload zeroes the rest of a partial register) */
	memset(key, 0, sizeof(key));
	put_be(key, f->saddr, 4);
	put_be(key + 4, f->daddr, 4);
	key[8] = f->proto;
	put_be(key + 12, f->sport, 2);
	put_be(key + 16, f->dport, 2);
	/* reciprocal_scale() */
	return (uint32_t)(((uint64_t)route_jhash(key, sizeof(key), seed) * nh_n) >> 32);
}
