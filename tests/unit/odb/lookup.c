/*
 * pack_lower_bound (the .idx name search) against a linear scan: uniform
 * names, names crowded into one corner of a bucket (the interpolation
 * guess is then far off), tiny and empty buckets, v1's wider stride, and
 * probes that are present, absent, before the first and after the last
 * name of their bucket.
 */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "odb/odb_internal.h"

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

static int cmp20(const void *a, const void *b)
{
	return memcmp(a, b, 20);
}

/* A v2-like (stride 20) or v1-like (stride 24, names after a 4-byte
 * offset) table of n sorted names; `skew` crowds bucket 7's names into its
 * lowest 1/4096th. */
struct table {
	struct pack p;
	unsigned char fanout[1024];
	unsigned char *names, *buf;
};

static void table_build(struct table *t, size_t n, size_t stride, int skew)
{
	size_t i, b;
	unsigned char *flat = malloc(n * 20 + 1);
	uint32_t count[256] = { 0 }, sum = 0;

	for (i = 0; i < n * 20; i++)
		flat[i] = (unsigned char)rnd();
	for (i = 0; i < n; i++) {
		unsigned char *x = flat + i * 20;
		if (skew && x[0] == 7) {
			x[1] = 0;
			x[2] &= 0x0f;
		}
		if (x[0] == 200)	/* an empty bucket */
			x[0] = 201;
		if (x[0] == 3 && i % 50)	/* a tiny one */
			x[0] = 4;
	}
	qsort(flat, n, 20, cmp20);
	t->buf = calloc(n * stride + 1, 1);
	t->names = t->buf + (stride - 20);
	for (i = 0; i < n; i++) {
		memcpy(t->names + i * stride, flat + i * 20, 20);
		count[flat[i * 20]]++;
	}
	for (b = 0; b < 256; b++) {
		sum += count[b];
		t->fanout[4 * b] = (unsigned char)(sum >> 24);
		t->fanout[4 * b + 1] = (unsigned char)(sum >> 16);
		t->fanout[4 * b + 2] = (unsigned char)(sum >> 8);
		t->fanout[4 * b + 3] = (unsigned char)sum;
	}
	memset(&t->p, 0, sizeof(t->p));
	t->p.rawsz = 20;
	t->p.nr = (uint32_t)n;
	t->p.fanout = t->fanout;
	t->p.names = t->names;
	t->p.name_stride = stride;
	free(flat);
}

static uint32_t linear(const struct table *t, const unsigned char *key)
{
	uint32_t i;
	for (i = 0; i < t->p.nr; i++)
		if (memcmp(t->names + (size_t)i * t->p.name_stride, key, 20) >= 0)
			break;
	return i;
}

static int check_table(size_t n, size_t stride, int skew)
{
	struct table t;
	struct fgit_oid oid;
	size_t k;
	int bad = 0;

	table_build(&t, n, stride, skew);
	memset(&oid, 0, sizeof(oid));
	for (k = 0; k < 4000 && !bad; k++) {
		unsigned char *h = oid.hash;
		size_t i = n ? rnd() % n : 0;

		switch (k % 5) {
		case 0:	/* present */
			if (!n)
				continue;
			memcpy(h, t.names + i * stride, 20);
			break;
		case 1:	/* just after a present name */
			if (!n)
				continue;
			memcpy(h, t.names + i * stride, 20);
			h[19] ^= 1;
			break;
		case 2:	/* random */
			for (i = 0; i < 20; i++)
				h[i] = (unsigned char)rnd();
			break;
		case 3:	/* bucket edges, the skewed bucket, the empty one */
			memset(h, k % 2 ? 0xff : 0, 20);
			h[0] = (unsigned char)(k % 3 == 0 ? 7 : k % 3 == 1 ? 200 : rnd());
			break;
		default:	/* the skewed bucket, random rest */
			for (i = 0; i < 20; i++)
				h[i] = (unsigned char)rnd();
			h[0] = 7;
			h[1] = k % 2 ? 0 : h[1];
			break;
		}
		if (pack_lower_bound(&t.p, &oid) != linear(&t, h))
			bad = 1;
	}
	free(t.buf);
	return bad;
}

TEST(lookup, uniform_v2)
{
	CHECK(check_table(20000, 20, 0) == 0);
}

TEST(lookup, skewed_v2)
{
	CHECK(check_table(20000, 20, 1) == 0);
}

TEST(lookup, v1_stride)
{
	CHECK(check_table(9000, 24, 1) == 0);
}

TEST(lookup, small_and_empty)
{
	CHECK(check_table(0, 20, 0) == 0);
	CHECK(check_table(1, 20, 0) == 0);
	CHECK(check_table(300, 20, 1) == 0);
}
