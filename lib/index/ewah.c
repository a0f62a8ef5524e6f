/*
 * Reading git's EWAH-compressed bitmaps (split index, untracked cache):
 * 32-bit bit count, 32-bit word count, that many big-endian 64-bit words,
 * 32-bit position of the last run-length word.  Each run-length word holds
 * a run bit (bit 0), a run length in words (bits 1-32) and the number of
 * literal words that follow it (bits 33-63).
 *
 * NEEDSWORK: pack bitmaps use the same encoding; move to lib/util/ when
 * lib/pack/ needs it.
 */
#include <string.h>
#include "index/index_internal.h"

static uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

long ewah_parse(struct ewah *out, const unsigned char *p, size_t len)
{
	uint32_t nwords;
	size_t need;

	if (len < 8)
		return -1;
	nwords = get_be32(p + 4);
	need = 8 + (size_t)nwords * 8 + 4;
	if (need > len || need > (size_t)0x7fffffff)
		return -1;
	out->bit_size = get_be32(p);
	out->nwords = nwords;
	out->words = p + 8;
	return (long)need;
}

int ewah_each_bit(const struct ewah *e, int (*fn)(size_t pos, void *payload), void *payload)
{
	size_t ptr = 0, pos = 0;
	int ret;

	while (ptr < e->nwords) {
		uint64_t rlw = get_be64(e->words + 8 * ptr);
		uint64_t run = (rlw >> 1) & 0xffffffffu;
		uint64_t lit = rlw >> 33;
		uint64_t k;

		if (run > (SIZE_MAX - pos) / 64)
			return -1;
		if (rlw & 1) {
			for (k = 0; k < run * 64; k++)
				if ((ret = fn(pos + k, payload)))
					return ret;
		}
		pos += run * 64;
		ptr++;
		if (lit > e->nwords - ptr)
			return -1;
		for (k = 0; k < lit; k++, ptr++) {
			uint64_t w = get_be64(e->words + 8 * ptr);
			int b;
			for (b = 0; b < 64; b++)
				if ((w >> b) & 1 && (ret = fn(pos + b, payload)))
					return ret;
			pos += 64;
		}
	}
	return 0;
}
