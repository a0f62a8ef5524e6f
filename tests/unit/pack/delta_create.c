/*
 * The delta encoder against the decoder: random sources, targets made by
 * inserting, deleting, changing and moving runs (and unrelated data,
 * repeated bytes, empty and tiny buffers); every delta must rebuild the
 * target exactly, and respect max_size.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "fgit/common.h"
#include "odb/delta.h"
#include "pack/pack_internal.h"

static uint32_t rng = 12345;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void fill(unsigned char *p, size_t n, int text)
{
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = text ? (unsigned char)("abcdefgh \n"[next() % 10]) : (unsigned char)next();
}

/* Build target from source with a few random edits. */
static size_t mutate(unsigned char *dst, size_t cap, const unsigned char *src, size_t n)
{
	size_t i = 0, o = 0;
	while (i < n && o < cap) {
		uint32_t r = next() % 1000;
		if (r < 3) {			/* insert */
			size_t k = next() % 40;
			while (k-- && o < cap)
				dst[o++] = (unsigned char)next();
		} else if (r < 6) {		/* delete */
			i += next() % 40;
		} else if (r < 8) {		/* change */
			dst[o++] = (unsigned char)next();
			i++;
		} else {
			dst[o++] = src[i++];
		}
	}
	return o;
}

static int roundtrip(const unsigned char *src, size_t sn, const unsigned char *trg, size_t tn,
		     size_t max)
{
	struct delta_index *ix = delta_index_new(src, sn);
	unsigned char *d = NULL, *out;
	size_t dn;
	uint64_t a, b;
	int ok;

	if (!ix)
		return sn < 16 ? 1 : 0;	/* small sources are not indexed */
	if (delta_create(&d, &dn, ix, trg, tn, max) < 0) {
		delta_index_free(ix);
		return max ? 1 : 0;	/* over the limit: allowed only with one */
	}
	delta_index_free(ix);
	if (max && dn > max) {
		free(d);
		return 0;
	}
	out = malloc(tn + 1);
	ok = fgit_delta_sizes(d, dn, &a, &b) > 0 && a == sn && b == tn &&
	     fgit_delta_apply(out, tn, src, sn, d, dn) == 0 && !memcmp(out, trg, tn);
	free(out);
	free(d);
	return ok;
}

TEST(delta_create, random_edits)
{
	int t;
	for (t = 0; t < 300; t++) {
		size_t sn = 16 + next() % 20000, tn;
		unsigned char *src = malloc(sn), *trg = malloc(sn * 2 + 100);
		fill(src, sn, t & 1);
		tn = mutate(trg, sn * 2 + 100, src, sn);
		CHECK_MSG(roundtrip(src, sn, trg, tn, 0), "case %d (%zu -> %zu)", t, sn, tn);
		CHECK_MSG(roundtrip(src, sn, trg, tn, tn / 8 + 1), "case %d limited", t);
		free(src);
		free(trg);
	}
}

TEST(delta_create, edge_cases)
{
	unsigned char a[200000], b[200000];
	memset(a, 'x', sizeof(a));
	memset(b, 'x', sizeof(b));
	b[100000] = 'y';
	CHECK(roundtrip(a, sizeof(a), b, sizeof(b), 0));	/* long runs: copies > 64 KiB */
	CHECK(roundtrip(a, sizeof(a), b, 0, 0));		/* empty target */
	CHECK(roundtrip(a, sizeof(a), b, 5, 0));		/* tiny target */
	fill(a, sizeof(a), 0);
	fill(b, sizeof(b), 0);
	CHECK(roundtrip(a, sizeof(a), b, sizeof(b), 0));	/* unrelated: all inserts */
	CHECK(roundtrip(a, 16, b, 1000, 0));			/* minimal source */
	memcpy(b + 5000, a, 100000);				/* moved block */
	CHECK(roundtrip(a, sizeof(a), b, sizeof(b), 0));
}

static int sketch_overlap(const unsigned char *a, size_t an, const unsigned char *b, size_t bn,
			  uint32_t *na_out)
{
	uint32_t *sa, *sb, na, nb, i;
	int r;
	if (delta_sketch(&sa, &na, a, an) < 0 || delta_sketch(&sb, &nb, b, bn) < 0)
		return -1;
	for (i = 1; i < na; i++)
		if (sa[i - 1] >= sa[i])
			return -1;	/* not sorted and unique */
	r = delta_sketch_overlap(sa, na, sb, nb);
	if (r != delta_sketch_overlap(sb, nb, sa, na))
		r = -1;
	*na_out = na;
	free(sa);
	free(sb);
	return r;
}

/* Related buffers (edits, a shift, a part) share fingerprints; unrelated
 * random ones of the same length do not; the same bytes give the same set. */
TEST(delta_create, sketches)
{
	static unsigned char a[100000], b[200200];
	uint32_t n = 0;
	size_t bn;
	int t;

	for (t = 0; t < 20; t++) {
		fill(a, sizeof(a), t & 1);
		bn = mutate(b, sizeof(b), a, sizeof(a));
		CHECK_MSG(sketch_overlap(b, bn, a, sizeof(a), &n) == 1, "edited, case %d", t);
		CHECK_MSG(n > sizeof(a) / 256, "case %d: %u fingerprints", t, n);
		memmove(b + 7, a, sizeof(a));
		CHECK_MSG(sketch_overlap(b, sizeof(a) + 7, a, sizeof(a), &n) == 1, "shifted, case %d", t);
		CHECK_MSG(sketch_overlap(a + 50000, 1000, a, sizeof(a), &n) == 1, "part, case %d", t);
		fill(b, sizeof(a), 0);
		fill(a, sizeof(a), 0);
		CHECK_MSG(sketch_overlap(a, sizeof(a), b, sizeof(a), &n) == 0, "unrelated, case %d", t);
	}
	CHECK(sketch_overlap(a, 0, a, 0, &n) == 0 && n == 0);
	CHECK(sketch_overlap(a, 63, a, 63, &n) == 0 && n == 0);	/* shorter than a window */
	memset(a, 'x', sizeof(a));
	CHECK(sketch_overlap(a, sizeof(a), a, 5000, &n) >= 0 && n <= 1);	/* one repeated window */
}
