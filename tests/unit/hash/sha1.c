/*
 * SHA-1: published test vectors (FIPS 180-2 appendix A and the NIST short
 * messages), and agreement with OpenSSL's SHA1() on random input, for every
 * implementation this CPU has, through both entry points (checksum and
 * object name) and with updates split at every kind of boundary.
 */
#include "unit.h"
#include <openssl/sha.h>
#include "fgit/hash.h"
#include "fgit/common.h"
#include "hash/sha1.h"

static const enum fgit_sha1_impl impls[] = { FGIT_SHA1_PORTABLE, FGIT_SHA1_SHANI };

/* Deterministic pseudo-random bytes (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}
static void fill(unsigned char *p, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(rng() >> 56);
}

static void tohex(char *out, const unsigned char *raw)
{
	int i;
	for (i = 0; i < 20; i++)
		sprintf(out + 2 * i, "%02x", raw[i]);
}

static void checksum(unsigned char *out, const void *p, size_t n)
{
	struct fgit_hash_ctx c;
	fgit_checksum_init(&c, FGIT_HASH_SHA1);
	fgit_checksum_update(&c, p, n);
	fgit_checksum_final(out, &c);
}

static int objname_raw(unsigned char *out, const void *p, size_t n)
{
	struct fgit_hash_ctx c;
	struct fgit_oid oid;
	int ret;
	fgit_objname_init(&c, FGIT_HASH_SHA1);
	fgit_objname_update(&c, p, n);
	ret = fgit_objname_final(&oid, &c);
	memcpy(out, oid.hash, 20);
	return ret;
}

static const struct { const char *msg; const char *hex; } vectors[] = {
	{ "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	{ "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
	{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	  "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
	{ "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
	  "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
	  "a49b2446a02c645bf419f995b67091253a04a259" },
	{ "The quick brown fox jumps over the lazy dog",
	  "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12" },
};

TEST(sha1, fips_vectors)
{
	size_t i, k;
	unsigned char raw[20];
	char hex[41];

	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
			checksum(raw, vectors[i].msg, strlen(vectors[i].msg));
			tohex(hex, raw);
			CHECK_MSG(!strcmp(hex, vectors[i].hex), "%s: \"%s\" gave %s",
				  fgit_sha1_impl_name(impls[k]), vectors[i].msg, hex);
			CHECK(objname_raw(raw, vectors[i].msg, strlen(vectors[i].msg)) == 0);
			tohex(hex, raw);
			CHECK(!strcmp(hex, vectors[i].hex));
		}
	}
	fgit_sha1_impl_force(fgit_sha1_have_shani() ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE);
}

TEST(sha1, million_a)
{
	size_t k, i;
	unsigned char raw[20];
	char hex[41];
	char chunk[1000];
	struct fgit_hash_ctx c;

	memset(chunk, 'a', sizeof(chunk));
	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		fgit_checksum_init(&c, FGIT_HASH_SHA1);
		for (i = 0; i < 1000; i++)
			fgit_checksum_update(&c, chunk, sizeof(chunk));
		fgit_checksum_final(raw, &c);
		tohex(hex, raw);
		CHECK_MSG(!strcmp(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
			  "%s gave %s", fgit_sha1_impl_name(impls[k]), hex);
	}
	fgit_sha1_impl_force(fgit_sha1_have_shani() ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE);
}

TEST(sha1, shani_available_here)
{
	/* The development machine has SHA-NI; make sure we really test it. */
	if (!fgit_sha1_have_shani())
		printf("  note: no SHA extensions on this CPU; portable only\n");
	CHECK(fgit_sha1_impl() == (fgit_sha1_have_shani() ? FGIT_SHA1_SHANI
				   : FGIT_SHA1_PORTABLE) || getenv("FGIT_SHA1_IMPL"));
}

TEST(sha1, random_lengths_vs_openssl)
{
	static unsigned char buf[64 * 6 + 1];
	unsigned char want[20], got[20];
	size_t n, k;

	fill(buf, sizeof(buf));
	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		for (n = 0; n <= sizeof(buf) - 1; n++) {
			SHA1(buf + 1, n, want);	/* unaligned on purpose */
			checksum(got, buf + 1, n);
			CHECK_MSG(!memcmp(want, got, 20), "%s checksum len %zu",
				  fgit_sha1_impl_name(impls[k]), n);
			CHECK(objname_raw(got, buf + 1, n) == 0);
			CHECK_MSG(!memcmp(want, got, 20), "%s objname len %zu",
				  fgit_sha1_impl_name(impls[k]), n);
		}
	}
	fgit_sha1_impl_force(fgit_sha1_have_shani() ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE);
}

TEST(sha1, split_updates_vs_openssl)
{
	static unsigned char buf[4096 + 3];
	static const size_t cuts[] = { 1, 3, 55, 56, 57, 63, 64, 65, 127, 128, 129, 1000 };
	unsigned char want[20], got[20];
	size_t k, i, j, n = sizeof(buf);
	struct fgit_hash_ctx c;

	fill(buf, sizeof(buf));
	SHA1(buf, n, want);
	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		/* Constant chunk sizes. */
		for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			fgit_checksum_init(&c, FGIT_HASH_SHA1);
			for (j = 0; j < n; j += cuts[i])
				fgit_checksum_update(&c, buf + j, j + cuts[i] > n ? n - j : cuts[i]);
			fgit_checksum_final(got, &c);
			CHECK_MSG(!memcmp(want, got, 20), "%s chunk %zu",
				  fgit_sha1_impl_name(impls[k]), cuts[i]);
		}
		/* Random chunk sizes, including empty updates. */
		for (i = 0; i < 200; i++) {
			fgit_checksum_init(&c, FGIT_HASH_SHA1);
			for (j = 0; j < n;) {
				size_t step = rng() % 200;
				if (step > n - j)
					step = n - j;
				fgit_checksum_update(&c, buf + j, step);
				j += step;
			}
			fgit_checksum_final(got, &c);
			CHECK(!memcmp(want, got, 20));
		}
	}
	fgit_sha1_impl_force(fgit_sha1_have_shani() ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE);
}

TEST(sha1, multi_megabyte_vs_openssl)
{
	size_t sizes[] = { 3u << 20, (5u << 20) + 37 };
	unsigned char want[20], got[20];
	size_t k, i;

	for (i = 0; i < 2; i++) {
		unsigned char *buf = malloc(sizes[i]);
		CHECK(buf);
		fill(buf, sizes[i]);
		SHA1(buf, sizes[i], want);
		for (k = 0; k < 2; k++) {
			if (fgit_sha1_impl_force(impls[k]))
				continue;
			checksum(got, buf, sizes[i]);
			if (memcmp(want, got, 20)) {
				free(buf);
				CHECK_MSG(0, "%s checksum size %zu", fgit_sha1_impl_name(impls[k]), sizes[i]);
			}
			objname_raw(got, buf, sizes[i]);
			if (memcmp(want, got, 20)) {
				free(buf);
				CHECK_MSG(0, "%s objname size %zu", fgit_sha1_impl_name(impls[k]), sizes[i]);
			}
		}
		free(buf);
	}
	fgit_sha1_impl_force(fgit_sha1_have_shani() ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE);
}

TEST(sha1, blocks_agree_direct)
{
	/* The two block functions on the same random chaining values and data. */
	static unsigned char buf[64 * 37];
	uint32_t h1[5], h2[5];
	size_t i, round;

	if (!fgit_sha1_have_shani())
		return;
	for (round = 0; round < 50; round++) {
		fill(buf, sizeof(buf));
		for (i = 0; i < 5; i++)
			h1[i] = h2[i] = (uint32_t)rng();
		fgit_sha1_blocks_portable(h1, buf, 37 - round % 37);
#if defined(__x86_64__) || defined(__i386__)
		fgit_sha1_blocks_shani(h2, buf, 37 - round % 37);
#endif
		CHECK(!memcmp(h1, h2, sizeof(h1)));
	}
}

TEST(sha1, hash_object_blob_matches_git)
{
	/* From git 2.39: `printf "hello\n" | git hash-object --stdin`, and the empty blob. */
	struct fgit_oid oid;
	char hex[FGIT_MAX_HEXSZ + 1];
	CHECK(fgit_hash_object(&oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, "hello\n", 6) == 0);
	CHECK(!strcmp(fgit_oid_to_hex(hex, &oid), "ce013625030ba8dba906f756967f9e9ca394464a"));
	CHECK(fgit_hash_object(&oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, "", 0) == 0);
	CHECK(!strcmp(fgit_oid_to_hex(hex, &oid), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"));
}

TEST(sha1, shani_states_match_reference)
{
	/* The SHA-NI state extraction against a textbook loop (FIPS 180-4). */
#if defined(__x86_64__) || defined(__i386__)
	static unsigned char buf[64];
	uint32_t h[5], st[4][5], w[80], a, b, c, d, e, t;
	int round, i;

	if (!fgit_sha1_have_shani())
		return;
	for (round = 0; round < 20; round++) {
		fill(buf, sizeof(buf));
		for (i = 0; i < 5; i++)
			h[i] = (uint32_t)rng();
		fgit_sha1_shani_states(h, buf, st);
		for (i = 0; i < 16; i++)
			w[i] = (uint32_t)buf[4 * i] << 24 | buf[4 * i + 1] << 16 |
				buf[4 * i + 2] << 8 | buf[4 * i + 3];
		for (; i < 80; i++) {
			t = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
			w[i] = t << 1 | t >> 31;
		}
		a = h[0]; b = h[1]; c = h[2]; d = h[3]; e = h[4];
		for (i = 0; i < 68; i++) {
			uint32_t f, k;
			if (i >= 56 && i % 4 == 0) {
				uint32_t *s = st[(i - 56) / 4];
				CHECK_MSG(s[0] == a && s[1] == b && s[2] == c && s[3] == d &&
					  s[4] == e, "state before step %d", i);
			}
			if (i < 20) { f = (b & c) | (~b & d); k = 0x5a827999; }
			else if (i < 40) { f = b ^ c ^ d; k = 0x6ed9eba1; }
			else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8f1bbcdc; }
			else { f = b ^ c ^ d; k = 0xca62c1d6; }
			t = (a << 5 | a >> 27) + f + e + k + w[i];
			e = d; d = c; c = b << 30 | b >> 2; b = a; a = t;
		}
	}
#endif
}

TEST(sha1, objname_split_updates_vs_openssl)
{
	/*
	 * Detecting contexts buffer up to 1 KiB: updates of every kind of size
	 * around 64 and 1024, with header, against OpenSSL.
	 */
	static unsigned char buf[5000];
	static const size_t cuts[] = { 1, 10, 63, 64, 65, 1000, 1023, 1024, 1025, 2047, 3000 };
	unsigned char want[20];
	struct fgit_hash_ctx c;
	struct fgit_oid oid;
	size_t k, i, j, n;

	fill(buf, sizeof(buf));
	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		for (n = 0; n < sizeof(buf); n += 1 + n / 3) {
			SHA1(buf, n, want);
			for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
				fgit_objname_init(&c, FGIT_HASH_SHA1);
				for (j = 0; j < n; j += cuts[i])
					fgit_objname_update(&c, buf + j, j + cuts[i] > n ? n - j : cuts[i]);
				CHECK(fgit_objname_final(&oid, &c) == 0);
				CHECK_MSG(!memcmp(oid.hash, want, 20), "%s len %zu chunk %zu",
					  fgit_sha1_impl_name(impls[k]), n, cuts[i]);
			}
		}
	}
	fgit_sha1_impl_force(fgit_sha1_have_shani() ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE);
}
