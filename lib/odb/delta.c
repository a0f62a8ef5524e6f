/*
 * Delta application.  Each instruction is bounds-checked against the base,
 * the delta and the output before any byte moves, so a hostile delta can
 * make us fail but never read or write outside the three buffers.
 */
#include <string.h>
#include "fgit/common.h"
#include "odb/delta.h"

static int read_varint(const unsigned char **pp, const unsigned char *end, uint64_t *out)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	unsigned shift = 0;
	unsigned char c;

	do {
		if (p >= end || shift > 63)
			return -1;
		c = *p++;
		if (shift == 63 && (c & 0x7e))
			return -1;
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*pp = p;
	*out = v;
	return 0;
}

int fgit_delta_sizes(const unsigned char *delta, size_t len,
		     uint64_t *src_size, uint64_t *dst_size)
{
	const unsigned char *p = delta, *end = delta + len;
	if (read_varint(&p, end, src_size) < 0 || read_varint(&p, end, dst_size) < 0)
		return -1;
	return (int)(p - delta);
}

int fgit_delta_apply(unsigned char *out, size_t out_size,
		     const unsigned char *base, size_t base_size,
		     const unsigned char *delta, size_t delta_len)
{
	const unsigned char *p = delta, *end = delta + delta_len;
	uint64_t src, dst;
	size_t pos = 0;

	if (read_varint(&p, end, &src) < 0 || read_varint(&p, end, &dst) < 0)
		return fgit_error_set(FGIT_EINVALID, "delta header is truncated");
	if (src != base_size)
		return fgit_error_set(FGIT_EINVALID, "delta base size mismatch");
	if (dst != out_size)
		return fgit_error_set(FGIT_EINVALID, "delta result size mismatch");
	while (p < end) {
		unsigned char op = *p++;
		if (op & 0x80) {
			uint64_t off = 0, n = 0;
			int i;
			for (i = 0; i < 4; i++)
				if (op & (1u << i)) {
					if (p >= end)
						goto truncated;
					off |= (uint64_t)*p++ << (8 * i);
				}
			for (i = 0; i < 3; i++)
				if (op & (0x10u << i)) {
					if (p >= end)
						goto truncated;
					n |= (uint64_t)*p++ << (8 * i);
				}
			if (!n)
				n = 0x10000;
			if (off > base_size || n > base_size - off)
				return fgit_error_set(FGIT_EINVALID,
						      "delta copies outside its base");
			if (n > out_size - pos)
				return fgit_error_set(FGIT_EINVALID,
						      "delta writes past its result");
			memcpy(out + pos, base + off, n);
			pos += n;
		} else if (op) {
			if (op > (size_t)(end - p))
				goto truncated;
			if (op > out_size - pos)
				return fgit_error_set(FGIT_EINVALID,
						      "delta writes past its result");
			memcpy(out + pos, p, op);
			p += op;
			pos += op;
		} else {
			return fgit_error_set(FGIT_EINVALID,
					      "unexpected delta opcode 0");
		}
	}
	if (pos != out_size)
		return fgit_error_set(FGIT_EINVALID, "delta result is short");
	return 0;
truncated:
	return fgit_error_set(FGIT_EINVALID, "delta is truncated");
}
