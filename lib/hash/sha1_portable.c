/*
 * Portable SHA-1 block compression (FIPS 180-4), used where the CPU has no
 * SHA extensions.  Straight-line rounds; the compiler keeps the state in
 * registers.
 */
/*
 * GCC's vectoriser turns the message expansion W[i] = rol(W[i-3] ^ ...)
 * into 8-byte loads that overlap the previous 8-byte store: every one
 * misses store forwarding (measured: 760 cycles per block for expansion
 * alone on the development Xeon, ~100 without).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif
#include <stdint.h>
#include <stddef.h>
#include "hash/sha1.h"

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static inline uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void fgit_sha1_blocks_portable(uint32_t h[5], const unsigned char *data, size_t nblocks)
{
	while (nblocks--) {
		uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], t;
		int i;

		for (i = 0; i < 16; i++)
			w[i] = be32(data + 4 * i);
		for (; i < 80; i++)
			w[i] = ROL(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
		for (i = 0; i < 20; i++) {
			t = ROL(a, 5) + ((b & c) | (~b & d)) + e + 0x5a827999 + w[i];
			e = d; d = c; c = ROL(b, 30); b = a; a = t;
		}
		for (; i < 40; i++) {
			t = ROL(a, 5) + (b ^ c ^ d) + e + 0x6ed9eba1 + w[i];
			e = d; d = c; c = ROL(b, 30); b = a; a = t;
		}
		for (; i < 60; i++) {
			t = ROL(a, 5) + ((b & c) | (b & d) | (c & d)) + e + 0x8f1bbcdc + w[i];
			e = d; d = c; c = ROL(b, 30); b = a; a = t;
		}
		for (; i < 80; i++) {
			t = ROL(a, 5) + (b ^ c ^ d) + e + 0xca62c1d6 + w[i];
			e = d; d = c; c = ROL(b, 30); b = a; a = t;
		}
		h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
		data += 64;
	}
}
