/*
 * Delta encoding (gitformat-pack "Deltified representation"): the target
 * as copies from the source and literal inserts.
 *
 * The source is indexed once per window slot: a 32-bit polynomial hash of
 * each non-overlapping 16-byte block, in a chained table of power-of-two
 * size (blocks of a very common hash are capped at BUCKET_CAP, the latest
 * kept, so a source of repeated bytes cannot make matching quadratic).
 * The target is scanned with the same hash rolled one byte at a time; a
 * hit is verified and extended forward as far as the bytes agree, and
 * backward into the pending literal run, and the longest candidate wins.
 * Encoding stops as soon as the output passes max_size, which is what
 * makes trying ten bases per object affordable.
 *
 * Sketches rule out pairs before any encoding: the set of content-defined
 * fingerprints of a buffer (a gear hash of the last 64 bytes, kept where
 * six of its bits are zero: one position in 64 on average, the same
 * positions wherever the same bytes occur).  A copy of 64 bytes or more
 * from source to target almost always carries one of them, so a target
 * with a fair number of fingerprints that shares none with a source can
 * only be a delta of scattered short copies.  On the history split into
 * 5 packs (no path names, so the window holds objects of similar size
 * only), blobs were tried against 324,947 bases, 2.8 GB of targets, and
 * 7 deltas came out; 99.3% of those bytes were in pairs without a shared
 * fingerprint, and 3 of the 7 deltas (repetitive hex tables, about 40%
 * of their target's size).  Trees: 291k tries, 27k deltas, 48% of the
 * failing bytes ruled out for 36 deltas lost (see SKETCH_MIN).
 */
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include "fgit/common.h"
#include "pack/pack_internal.h"

#define BLK 16
#define BUCKET_CAP 32
#define MAX_COPY 0x10000
#define MUL 0x01000193u

struct delta_index {
	const unsigned char *src;
	size_t src_len;
	uint32_t mask;
	uint32_t *head;		/* bucket -> 1 + block number, 0: empty */
	uint32_t *next;		/* block -> 1 + next block in bucket */
	uint32_t *hv;		/* block -> its full hash: rejects most
				 * candidates of a bucket without touching
				 * the source bytes */
	size_t mem;
};

static uint32_t mulpow;	/* MUL^BLK, set on first use */

static inline uint32_t block_hash(const unsigned char *p)
{
	uint32_t h = 0;
	int i;
	for (i = 0; i < BLK; i++)
		h = h * MUL + p[i];
	return h;
}

static inline uint32_t mix(uint32_t h)
{
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h;
}

size_t delta_index_size(const struct delta_index *ix)
{
	return ix ? ix->mem : 0;
}

struct delta_index *delta_index_new(const void *src, size_t len)
{
	struct delta_index *ix;
	size_t nblk = len / BLK, i;
	uint32_t cap = 16, *count;

	if (len < BLK || len > UINT32_MAX)
		return NULL;
	if (!mulpow) {
		uint32_t m = 1;
		for (i = 0; i < BLK; i++)
			m *= MUL;
		mulpow = m;
	}
	while (cap < nblk && cap < (1u << 30))
		cap <<= 1;
	ix = malloc(sizeof(*ix));
	if (!ix)
		return NULL;
	ix->src = src;
	ix->src_len = len;
	ix->mask = cap - 1;
	ix->head = calloc(cap, sizeof(*ix->head));
	ix->next = malloc((nblk + 1) * sizeof(*ix->next));
	ix->hv = malloc((nblk + 1) * sizeof(*ix->hv));
	count = calloc(cap, sizeof(*count));
	if (!ix->head || !ix->next || !ix->hv || !count) {
		free(count);
		delta_index_free(ix);
		return NULL;
	}
	/* from the end, so that each chain lists earlier blocks last and the
	 * cap keeps the latest blocks (matches near the end of an edited file
	 * are as good as any, and later blocks are likelier to align) */
	for (i = nblk; i-- > 0;) {
		uint32_t h = block_hash(ix->src + i * BLK), b = mix(h) & ix->mask;
		if (count[b] >= BUCKET_CAP)
			continue;
		ix->hv[i] = h;
		count[b]++;
		ix->next[i] = ix->head[b];
		ix->head[b] = (uint32_t)i + 1;
	}
	free(count);
	ix->mem = sizeof(*ix) + cap * 4 + (nblk + 1) * 8;
	return ix;
}

void delta_index_free(struct delta_index *ix)
{
	if (!ix)
		return;
	free(ix->head);
	free(ix->next);
	free(ix->hv);
	free(ix);
}

struct out {
	unsigned char *p;
	size_t len, alloc, max;
};

static int out_grow(struct out *o, size_t n)
{
	if (o->len + n > o->max)
		return -1;
	if (o->len + n > o->alloc) {
		size_t na = o->alloc * 2;
		unsigned char *np;
		if (na < o->len + n)
			na = o->len + n;
		if (na > o->max + 32)
			na = o->max + 32;
		np = realloc(o->p, na);
		if (!np)
			return -1;
		o->p = np;
		o->alloc = na;
	}
	return 0;
}

static int put_varint(struct out *o, uint64_t v)
{
	if (out_grow(o, 10) < 0)
		return -1;
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		o->p[o->len++] = c;
	} while (v);
	return 0;
}

static int put_insert(struct out *o, const unsigned char *d, size_t n)
{
	while (n) {
		size_t k = n > 127 ? 127 : n;
		if (out_grow(o, k + 1) < 0)
			return -1;
		o->p[o->len++] = (unsigned char)k;
		memcpy(o->p + o->len, d, k);
		o->len += k;
		d += k;
		n -= k;
	}
	return 0;
}

static int put_copy(struct out *o, size_t off, size_t n)
{
	while (n) {
		size_t k = n > MAX_COPY ? MAX_COPY : n;
		unsigned char *op;
		unsigned char cmd = 0x80;
		int i;
		if (out_grow(o, 8) < 0)
			return -1;
		op = o->p + o->len++;
		for (i = 0; i < 4; i++)
			if ((off >> (8 * i)) & 0xff) {
				o->p[o->len++] = (unsigned char)(off >> (8 * i));
				cmd |= (unsigned char)(1 << i);
			}
		if (k != MAX_COPY)
			for (i = 0; i < 2; i++)
				if ((k >> (8 * i)) & 0xff) {
					o->p[o->len++] = (unsigned char)(k >> (8 * i));
					cmd |= (unsigned char)(0x10 << i);
				}
		*op = cmd;
		off += k;
		n -= k;
	}
	return 0;
}

int delta_create(unsigned char **out, size_t *out_len, const struct delta_index *ix,
		 const void *trg_buf, size_t trg_len, size_t max_size)
{
	const unsigned char *trg = trg_buf, *src = ix->src;
	size_t src_len = ix->src_len, i = 0, lit = 0;
	struct out o = { NULL, 0, 0, max_size ? max_size : (size_t)-1 / 2 };
	uint32_t h = 0;
	int have_hash = 0;

	if (src_len > UINT32_MAX)
		return -1;
	o.alloc = trg_len / 4 + 64;
	if (max_size && o.alloc > max_size + 32)
		o.alloc = max_size + 32;
	o.p = malloc(o.alloc);
	if (!o.p)
		return -1;
	if (put_varint(&o, src_len) < 0 || put_varint(&o, trg_len) < 0)
		goto fail;
	while (i + BLK <= trg_len) {
		uint32_t b, cand;
		size_t best_len = 0, best_off = 0;

		if (!have_hash) {
			h = block_hash(trg + i);
			have_hash = 1;
		}
		b = mix(h) & ix->mask;
		for (cand = ix->head[b]; cand; cand = ix->next[cand - 1]) {
			size_t so = (size_t)(cand - 1) * BLK, n = 0;
			size_t lim = src_len - so;
			if (ix->hv[cand - 1] != h)
				continue;
			if (lim > trg_len - i)
				lim = trg_len - i;
			while (n + 8 <= lim) {
				uint64_t x, y;
				memcpy(&x, src + so + n, 8);
				memcpy(&y, trg + i + n, 8);
				if (x != y)
					break;
				n += 8;
			}
			while (n < lim && src[so + n] == trg[i + n])
				n++;
			if (n > best_len) {
				best_len = n;
				best_off = so;
				if (n == lim)
					break;
			}
		}
		if (best_len >= BLK) {
			/* extend backward into the pending literals */
			while (lit && best_off && src[best_off - 1] == trg[i - 1]) {
				best_off--;
				i--;
				lit--;
				best_len++;
			}
			if (lit && put_insert(&o, trg + i - lit, lit) < 0)
				goto fail;
			lit = 0;
			if (put_copy(&o, best_off, best_len) < 0)
				goto fail;
			i += best_len;
			have_hash = 0;
			continue;
		}
		/* roll one byte */
		if (i + BLK < trg_len)
			h = h * MUL + trg[i + BLK] - mulpow * trg[i];
		i++;
		lit++;
		if (lit >= 127 * 64 && put_insert(&o, trg + i - lit, lit) < 0)
			goto fail;
		else if (lit >= 127 * 64)
			lit = 0;
	}
	lit += trg_len - i;
	if (lit && put_insert(&o, trg + trg_len - lit, lit) < 0)
		goto fail;
	*out = o.p;
	*out_len = o.len;
	return 0;
fail:
	free(o.p);
	return -1;
}

/* ---- sketches ---- */

/* bits 40-45 of the gear hash: they depend on the last 41-46 bytes */
#define SKETCH_MASK (63ull << 40)

static uint64_t gear[256];
static pthread_once_t gear_once = PTHREAD_ONCE_INIT;

static void gear_init(void)
{
	uint64_t x = 0;
	int i;
	for (i = 0; i < 256; i++) {	/* splitmix64: fixed, well-mixed */
		uint64_t z = (x += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		gear[i] = z ^ (z >> 31);
	}
}

/* LSD radix sort, 4 x 8 bits (the result ends in a); tmp holds n */
static void sort_u32(uint32_t *a, uint32_t *tmp, uint32_t n)
{
	uint32_t *from = a, *to = tmp, i;
	int sh;

	if (n < 64) {
		for (i = 1; i < n; i++) {
			uint32_t v = a[i], j = i;
			while (j && a[j - 1] > v) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = v;
		}
		return;
	}
	for (sh = 0; sh < 32; sh += 8) {
		uint32_t cnt[256] = { 0 }, sum = 0, *t;
		for (i = 0; i < n; i++)
			cnt[(from[i] >> sh) & 0xff]++;
		for (i = 0; i < 256; i++) {
			uint32_t c = cnt[i];
			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[cnt[(from[i] >> sh) & 0xff]++] = from[i];
		t = from;
		from = to;
		to = t;
	}
}

int delta_sketch(uint32_t **out, uint32_t *out_n, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t *f, *tmp, n = 0, k, m;
	size_t cap = len / 32 + 16, i;
	uint64_t h = 0;

	pthread_once(&gear_once, gear_init);
	if (len / 32 > UINT32_MAX / 4)
		return -1;
	f = malloc(cap * sizeof(*f));
	if (!f)
		return -1;
	for (i = 0; i < len; i++) {
		h = (h << 1) + gear[p[i]];
		if (!(h & SKETCH_MASK) && i >= 63) {
			uint64_t z = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
			if (n == cap) {
				uint32_t *nf = realloc(f, cap * 2 * sizeof(*f));
				if (!nf) {
					free(f);
					return -1;
				}
				f = nf;
				cap *= 2;
			}
			f[n++] = (uint32_t)(z >> 32);
		}
	}
	tmp = n >= 64 ? malloc(n * sizeof(*tmp)) : NULL;
	if (n >= 64 && !tmp) {
		free(f);
		return -1;
	}
	sort_u32(f, tmp, n);
	free(tmp);
	for (k = m = 0; k < n; k++)
		if (!m || f[m - 1] != f[k])
			f[m++] = f[k];
	*out = f;
	*out_n = m;
	return 0;
}

int delta_sketch_overlap(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t i = 0, j = 0;
	while (i < na && j < nb) {
		if (a[i] < b[j])
			i++;
		else if (a[i] > b[j])
			j++;
		else
			return 1;
	}
	return 0;
}
