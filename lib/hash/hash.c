/*
 * The two hashing entry points over SHA-1 block functions chosen at first
 * use: object names go through the collision-detecting block function
 * (sha1dc.h), checksums through the plain one (sha1.h).  A detected attack
 * is sticky in the context and reported by fgit_objname_final(), with the
 * message git prints; the digest is still the plain SHA-1 (git builds its
 * detector with the "safe hash" off, so it names that digest too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/hash.h"
#include "hash/sha1.h"
#include "hash/sha1dc.h"


/*
 * NEEDSWORK: SHA-256 repositories.  The algorithm is recorded but every
 * context computes SHA-1 (20 bytes; the rest of an id stays zero).
 */
static void ctx_init(struct fgit_hash_ctx *c, int algo, unsigned detect)
{
	memset(c, 0, sizeof(*c));
	c->algo = algo ? algo : FGIT_HASH_SHA1;
	c->detect = detect;
	c->h[0] = 0x67452301;
	c->h[1] = 0xefcdab89;
	c->h[2] = 0x98badcfe;
	c->h[3] = 0x10325476;
	c->h[4] = 0xc3d2e1f0;
}

static void compress(struct fgit_hash_ctx *c, const unsigned char *p, size_t nblocks)
{
	if (c->detect) {
		if (fgit_sha1dc_blocks()(c->h, p, nblocks))
			c->collision = 1;
	} else {
		fgit_sha1_blocks()(c->h, p, nblocks);
	}
}

/*
 * Bytes a context buffers before compressing.  The detector checks up to 16
 * blocks per vector instruction and a check costs about the same for 1
 * block as for 16 (the scalar check for a lone block costs ~2/3 of it), so a
 * detecting context collects up to 16 blocks: a small object (a commit, a
 * tree, a 900-byte blob) is then one check in all, padding included.
 * Checksum contexts compress each 64-byte block as it fills.
 */
static size_t buffer_size(const struct fgit_hash_ctx *c)
{
	return c->detect ? sizeof(c->block) : 64;
}

static void ctx_update(struct fgit_hash_ctx *c, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t cap = buffer_size(c);

	c->total += len;
	if (c->used) {
		size_t n = cap - c->used;
		if (n > len)
			n = len;
		memcpy(c->block + c->used, p, n);
		c->used += n;
		p += n;
		len -= n;
		if (c->used < cap)
			return;
		compress(c, c->block, cap / 64);
		c->used = 0;
	}
	if (len >= cap) {
		compress(c, p, len / 64);
		p += len & ~(size_t)63;
		len &= 63;
	}
	if (len) {
		memcpy(c->block, p, len);
		c->used = len;
	}
}

static void ctx_final(unsigned char *out, struct fgit_hash_ctx *c)
{
	uint64_t bits = c->total * 8;
	unsigned char pad[72];
	size_t tail = c->total % 64;
	size_t padlen = (tail < 56 ? 56 : 120) - tail;
	int i;

	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	for (i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	ctx_update(c, pad, padlen + 8);
	/* Whole blocks may remain buffered (detecting contexts). */
	if (c->used % 64)
		abort();	/* a bug: padding always ends a block */
	if (c->used) {
		compress(c, c->block, c->used / 64);
		c->used = 0;
	}
	for (i = 0; i < 5; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}

void fgit_objname_init(struct fgit_hash_ctx *c, int algo)
{
	ctx_init(c, algo, 1);
}

int fgit_object_header(char *hdr, size_t hdrsz, enum fgit_object_type type, uint64_t size)
{
	const char *name = fgit_object_type_name(type);
	int n = snprintf(hdr, hdrsz, "%s %llu", name ? name : "unknown",
			 (unsigned long long)size);
	return n + 1;
}

void fgit_objname_init_header(struct fgit_hash_ctx *c, int algo,
			      enum fgit_object_type type, uint64_t size)
{
	char hdr[48];
	int n = fgit_object_header(hdr, sizeof(hdr), type, size);
	fgit_objname_init(c, algo);
	ctx_update(c, hdr, (size_t)n);
}

void fgit_objname_update(struct fgit_hash_ctx *c, const void *data, size_t len)
{
	ctx_update(c, data, len);
}

int fgit_objname_final(struct fgit_oid *out, struct fgit_hash_ctx *c)
{
	unsigned char raw[FGIT_MAX_RAWSZ] = { 0 };
	ctx_final(raw, c);
	fgit_oid_from_raw(out, raw, c->algo);
	if (c->collision) {
		char hex[FGIT_MAX_HEXSZ + 1];
		return fgit_error_set(FGIT_ECOLLISION,
				      "SHA-1 appears to be part of a collision attack: %s",
				      fgit_oid_to_hex(hex, out));
	}
	return 0;
}

int fgit_hash_object(struct fgit_oid *out, int algo, enum fgit_object_type type,
		     const void *data, size_t len)
{
	struct fgit_hash_ctx c;
	fgit_objname_init_header(&c, algo, type, len);
	ctx_update(&c, data, len);
	return fgit_objname_final(out, &c);
}

void fgit_checksum_init(struct fgit_hash_ctx *c, int algo)
{
	ctx_init(c, algo, 0);
}

void fgit_checksum_update(struct fgit_hash_ctx *c, const void *data, size_t len)
{
	ctx_update(c, data, len);
}

void fgit_checksum_final(unsigned char *out, struct fgit_hash_ctx *c)
{
	ctx_final(out, c);
}
