/*
 * EWAH bitmaps (see include/fgit/ewah.h): the split index and untracked
 * cache (lib/index/) and pack reachability bitmaps (lib/pack/) read and
 * write them here.
 *
 * The writer is greedy: each run-length word takes the longest run of
 * identical clean words (all zero or all one) at the cursor, then every
 * following literal word up to the next clean one.  That is the form git
 * builds word by word, so git reads it, and equal inputs encode equally.
 */
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/ewah.h"

#define MAX_RUN 0xffffffffu
#define MAX_LIT 0x7fffffffu

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get_be64(const unsigned char *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static void put_be64(unsigned char *p, uint64_t v)
{
	int i;
	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (unsigned char)v;
}

long fgit_ewah_parse(struct fgit_ewah *out, const unsigned char *p, size_t len)
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

int fgit_ewah_each_bit(const struct fgit_ewah *e, int (*fn)(size_t pos, void *payload),
		       void *payload)
{
	size_t ptr = 0, pos = 0;
	int ret;

	while (ptr < e->nwords) {
		uint64_t rlw = get_be64(e->words + 8 * ptr);
		uint64_t run = (rlw >> 1) & MAX_RUN;
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
			while (w) {
				int b = __builtin_ctzll(w);
				if ((ret = fn(pos + (size_t)b, payload)))
					return ret;
				w &= w - 1;
			}
			pos += 64;
		}
	}
	return 0;
}

int fgit_ewah_decode(uint64_t *out, size_t nwords, const struct fgit_ewah *e)
{
	size_t ptr = 0, pos = 0;

	memset(out, 0, nwords * sizeof(*out));
	while (ptr < e->nwords) {
		uint64_t rlw = get_be64(e->words + 8 * ptr++);
		uint64_t run = (rlw >> 1) & MAX_RUN, lit = rlw >> 33, k;

		if (rlw & 1)
			for (k = 0; k < run && pos + k < nwords; k++)
				out[pos + k] = ~(uint64_t)0;
		pos += run;
		if (lit > e->nwords - ptr)
			return -1;
		for (k = 0; k < lit; k++, ptr++, pos++)
			if (pos < nwords)
				out[pos] = get_be64(e->words + 8 * ptr);
	}
	return 0;
}

static int clean(uint64_t w)
{
	return !w || w == ~(uint64_t)0;
}

/* One run-length word at words[i]: the run and literal counts; returns
 * the index past them. */
static size_t next_group(uint64_t *rlw, const uint64_t *words, size_t nwords, size_t i)
{
	uint64_t run = 0, lit = 0;
	int ones = i < nwords && words[i] == ~(uint64_t)0;

	while (i < nwords && clean(words[i]) && (words[i] != 0) == ones && run < MAX_RUN) {
		run++;
		i++;
	}
	while (i < nwords && !clean(words[i]) && lit < MAX_LIT) {
		lit++;
		i++;
	}
	*rlw = (uint64_t)(ones && run) | run << 1 | lit << 33;
	return i;
}

size_t fgit_ewah_cost(const uint64_t *words, size_t nwords)
{
	size_t i = 0, n = 0;
	uint64_t rlw;

	if (!nwords)
		return 1;
	while (i < nwords) {
		i = next_group(&rlw, words, nwords, i);
		n += 1 + (size_t)(rlw >> 33);
	}
	return n;
}

int fgit_ewah_write(struct fgit_buf *out, const uint64_t *words, size_t nwords,
		    uint32_t bit_size)
{
	size_t cost = fgit_ewah_cost(words, nwords), i = 0, at, last = 0, n = 0;
	unsigned char *p;
	uint64_t rlw = 0, k;

	if (cost > UINT32_MAX || fgit_buf_grow(out, 12 + 8 * cost) < 0)
		return FGIT_ENOMEM;
	at = out->len;
	p = (unsigned char *)out->ptr + at;
	p[0] = (unsigned char)(bit_size >> 24);
	p[1] = (unsigned char)(bit_size >> 16);
	p[2] = (unsigned char)(bit_size >> 8);
	p[3] = (unsigned char)bit_size;
	p[4] = (unsigned char)(cost >> 24);
	p[5] = (unsigned char)(cost >> 16);
	p[6] = (unsigned char)(cost >> 8);
	p[7] = (unsigned char)cost;
	p += 8;
	if (!nwords)
		put_be64(p + 8 * n++, 0);
	while (i < nwords) {
		size_t start;
		i = next_group(&rlw, words, nwords, i);
		last = n;
		put_be64(p + 8 * n++, rlw);
		start = i - (size_t)(rlw >> 33);
		for (k = 0; k < rlw >> 33; k++)
			put_be64(p + 8 * n++, words[start + k]);
	}
	p += 8 * n;
	p[0] = (unsigned char)(last >> 24);
	p[1] = (unsigned char)(last >> 16);
	p[2] = (unsigned char)(last >> 8);
	p[3] = (unsigned char)last;
	fgit_buf_setlen(out, at + 12 + 8 * n);
	return 0;
}
