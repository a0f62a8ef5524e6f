/*
 * Applying git deltas (gitformat-pack: "Deltified representation").
 *
 * A delta is two size varints (base, result) and then instructions: a byte
 * with the top bit set copies a range of the base (offset and size bytes
 * selected by its low seven bits; size 0 means 0x10000), a byte 1..127
 * inserts that many literal bytes, 0 is reserved.  Everything is untrusted:
 * each instruction is checked against the base, the delta and the declared
 * result size before any byte moves, so a hostile delta can neither read
 * nor write out of bounds.
 *
 * NEEDSWORK: lib/odb (branch odb) will carry the object database's own
 * delta application; fold the two together when it lands.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/pack.h"

static int read_varint(uint64_t *out, const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char c;

	do {
		if (p >= end || shift > 63)
			return FGIT_EINVALID;
		c = *p++;
		if (shift == 63 && (c & 0x7e))
			return FGIT_EINVALID;
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*out = v;
	*pp = p;
	return 0;
}

int fgit_delta_sizes(uint64_t *base_size, uint64_t *result_size,
		     const void *delta, size_t delta_size)
{
	const unsigned char *p = delta, *end = p + delta_size;
	if (read_varint(base_size, &p, end) || read_varint(result_size, &p, end))
		return FGIT_EINVALID;
	return 0;
}

int fgit_delta_apply(void **out, size_t *out_size, const void *base, size_t base_size,
		     const void *delta, size_t delta_size)
{
	const unsigned char *p = delta, *end = p + delta_size;
	const unsigned char *src = base;
	unsigned char *dst, *d, *dend;
	uint64_t bsz, rsz;

	if (read_varint(&bsz, &p, end) || read_varint(&rsz, &p, end))
		return FGIT_EINVALID;
	if (bsz != base_size || rsz >= SIZE_MAX)
		return fgit_error_set(FGIT_EINVALID, "%s", "");
	dst = malloc((size_t)rsz + 1);
	if (!dst)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	d = dst;
	dend = dst + rsz;
	while (p < end) {
		unsigned char cmd = *p++;
		if (cmd & 0x80) {
			uint64_t off = 0, sz = 0;
			int i;
			for (i = 0; i < 4; i++)
				if (cmd & (1u << i)) {
					if (p >= end)
						goto bad;
					off |= (uint64_t)*p++ << (8 * i);
				}
			for (i = 0; i < 3; i++)
				if (cmd & (0x10u << i)) {
					if (p >= end)
						goto bad;
					sz |= (uint64_t)*p++ << (8 * i);
				}
			if (!sz)
				sz = 0x10000;
			if (off > base_size || sz > base_size - off ||
			    sz > (uint64_t)(dend - d))
				goto bad;
			memcpy(d, src + off, (size_t)sz);
			d += sz;
		} else if (cmd) {
			if (cmd > end - p || cmd > dend - d)
				goto bad;
			memcpy(d, p, cmd);
			d += cmd;
			p += cmd;
		} else {
			free(dst);
			return fgit_error_set(FGIT_EINVALID, "unexpected delta opcode 0");
		}
	}
	if (d != dend)
		goto bad;
	*d = 0;
	*out = dst;
	*out_size = (size_t)rsz;
	return 0;
bad:
	free(dst);
	return fgit_error_set(FGIT_EINVALID, "delta replay has gone wild");
}
