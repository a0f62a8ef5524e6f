/*
 * Delta application against an independent model: random copy/insert
 * programs are run directly on the base to get the expected target, then
 * encoded in git's delta format and applied; and random or mutated deltas
 * must fail cleanly (run under ASan to prove no access outside buffers).
 */
#include "unit.h"
#include "fgit/common.h"
#include "odb/delta.h"

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;
	do {
		p[n] = v & 0x7f;
		v >>= 7;
		if (v)
			p[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

/* Encode a copy of [off, off+len) (len <= 0x10000, 0x10000 coded as 0). */
static size_t put_copy(unsigned char *p, uint32_t off, uint32_t len)
{
	unsigned char op = 0x80;
	size_t n = 1;
	int i;
	if (len == 0x10000)
		len = 0;
	for (i = 0; i < 4; i++)
		if ((off >> (8 * i)) & 0xff) {
			op |= 1 << i;
			p[n++] = (off >> (8 * i)) & 0xff;
		}
	for (i = 0; i < 3; i++)
		if ((len >> (8 * i)) & 0xff) {
			op |= 0x10 << i;
			p[n++] = (len >> (8 * i)) & 0xff;
		}
	p[0] = op;
	return n;
}

TEST(delta, random_programs_match_model)
{
	int round;
	for (round = 0; round < 300; round++) {
		size_t base_len = 1 + rnd() % 70000, i, tlen = 0, dlen, ops = 1 + rnd() % 40;
		unsigned char *base = malloc(base_len), *target = malloc(ops * 0x10000 + 1);
		unsigned char *body = malloc(ops * 140 + 64), *delta, *out;
		size_t blen = 0;
		for (i = 0; i < base_len; i++)
			base[i] = (unsigned char)rnd();
		for (i = 0; i < ops; i++) {
			if (rnd() % 2) {
				uint32_t off = rnd() % base_len;
				uint32_t len = 1 + rnd() % (base_len - off);
				if (len > 0x10000)
					len = 0x10000;
				memcpy(target + tlen, base + off, len);
				tlen += len;
				blen += put_copy(body + blen, off, len);
			} else {
				unsigned n = 1 + rnd() % 127, k;
				body[blen++] = (unsigned char)n;
				for (k = 0; k < n; k++)
					body[blen++] = target[tlen++] = (unsigned char)rnd();
			}
		}
		delta = malloc(blen + 20);
		dlen = put_varint(delta, base_len);
		dlen += put_varint(delta + dlen, tlen);
		memcpy(delta + dlen, body, blen);
		dlen += blen;
		out = malloc(tlen ? tlen : 1);
		CHECK_MSG(fgit_delta_apply(out, tlen, base, base_len, delta, dlen) == 0,
			  "round %d: %s", round, fgit_error_last());
		CHECK(!memcmp(out, target, tlen));
		/* every truncation fails cleanly */
		for (i = 0; i < dlen; i += 1 + dlen / 50)
			CHECK(fgit_delta_apply(out, tlen, base, base_len, delta, i) < 0);
		/* a wrong base size or result size is refused */
		CHECK(fgit_delta_apply(out, tlen, base, base_len - 1, delta, dlen) < 0);
		free(base);
		free(target);
		free(body);
		free(delta);
		free(out);
	}
}

TEST(delta, hostile_instructions)
{
	unsigned char base[100], out[200], d[64];
	size_t n;
	memset(base, 'b', sizeof(base));
	/* copy past the end of the base */
	n = put_varint(d, 100);
	n += put_varint(d + n, 50);
	n += put_copy(d + n, 90, 50);
	CHECK(fgit_delta_apply(out, 50, base, 100, d, n) == FGIT_EINVALID);
	/* copy with an offset near 2^32 (wrap-around) */
	n = put_varint(d, 100);
	n += put_varint(d + n, 10);
	n += put_copy(d + n, 0xfffffff8u, 10);
	CHECK(fgit_delta_apply(out, 10, base, 100, d, n) == FGIT_EINVALID);
	/* output overflow by an insert */
	n = put_varint(d, 100);
	n += put_varint(d + n, 2);
	d[n++] = 3;
	memcpy(d + n, "xyz", 3);
	n += 3;
	CHECK(fgit_delta_apply(out, 2, base, 100, d, n) == FGIT_EINVALID);
	/* opcode 0 */
	n = put_varint(d, 100);
	n += put_varint(d + n, 1);
	d[n++] = 0;
	CHECK(fgit_delta_apply(out, 1, base, 100, d, n) == FGIT_EINVALID);
	/* a varint that never ends */
	memset(d, 0xff, sizeof(d));
	CHECK(fgit_delta_apply(out, 1, base, 100, d, sizeof(d)) == FGIT_EINVALID);
}

TEST(delta, random_bytes_never_crash)
{
	int round;
	unsigned char base[300], out[300], d[256];
	for (round = 0; round < 20000; round++) {
		size_t n = rnd() % sizeof(d), i, outn = rnd() % sizeof(out);
		for (i = 0; i < n; i++)
			d[i] = (unsigned char)rnd();
		if (n > 2 && round % 2) {	/* plausible header */
			d[0] = 100;
			d[1] = (unsigned char)(outn & 0x7f);
			outn &= 0x7f;
		}
		fgit_delta_apply(out, outn, base, 100, d, n);
	}
	CHECK(1);
}
