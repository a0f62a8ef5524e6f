/*
 * SHA-1 collision detection: the published collisions are detected when
 * their raw bytes are hashed through the object-name entry point, with
 * git's message; the same files hashed as blobs are not (the header shifts
 * the blocks), and give git's blob ids; random data never triggers it and
 * gives OpenSSL's digests; every implementation agrees.
 */
#include "unit.h"
#include <openssl/sha.h>
#include "fgit/hash.h"
#include "fgit/common.h"
#include "hash/sha1.h"
#include "hash/sha1dc.h"

#define DATA "tests/data/shattered/"

static const struct {
	const char *name, *sha1, *blob;
} files[] = {
	/* SHA-1 from the README (sha1sum); blob ids from `git hash-object`. */
	{ "shattered-1.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
	  "ba9aaa145ccd24ef760cf31c74d8f7ca1a2e47b0" },
	{ "shattered-2.pdf", "38762cf7f55934b34d179ae6a4c80cadccbb7f0a",
	  "b621eeccd5c7edac9b7dcba35a8d5afd075e24f2" },
	{ "sha-mbles-1.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
	  "5a7c30e97646c66422abe0a9793a5fcb9f1cf8d6" },
	{ "sha-mbles-2.bin", "8ac60ba76f1999a1ab70223f225aefdc78d4ddc0",
	  "fe39178400a7ebeedca8ccfd0f3a64ceecdb9cda" },
};

static const enum fgit_sha1_impl impls[] = { FGIT_SHA1_PORTABLE, FGIT_SHA1_SHANI };

static void restore_impl(void)
{
	fgit_sha1_impl_force(fgit_sha1_have_shani() ? FGIT_SHA1_SHANI : FGIT_SHA1_PORTABLE);
}

static unsigned char *slurp(const char *name, size_t *len)
{
	char path[256];
	FILE *f;
	unsigned char *buf;
	long n;

	snprintf(path, sizeof(path), DATA "%s", name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? n : 1);
	if (buf && fread(buf, 1, n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static uint64_t rng_state = 0x0123456789abcdefULL;
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

/* Raw detecting hash in chunks of `chunk` bytes (0: one update). */
static int raw_objname(struct fgit_oid *out, const unsigned char *p, size_t n, size_t chunk)
{
	struct fgit_hash_ctx c;
	size_t off = 0;
	fgit_objname_init(&c, FGIT_HASH_SHA1);
	if (!chunk)
		chunk = n ? n : 1;
	while (off < n) {
		size_t k = n - off < chunk ? n - off : chunk;
		fgit_objname_update(&c, p + off, k);
		off += k;
	}
	return fgit_objname_final(out, &c);
}

TEST(sha1dc, table_matches_attacks)
{
	/*
	 * The XOR of the colliding blocks of both attacks, expanded, is the
	 * message difference of II(52,0) in our table.
	 */
	size_t l1, l2, i;
	unsigned char *a = slurp("shattered-1.pdf", &l1), *b = slurp("shattered-2.pdf", &l2);
	uint32_t Wa[80], Wb[80];
	int dv = -1;

	CHECK(a && b && l1 == l2);
	for (i = 0; i < FGIT_SHA1DC_NDV; i++)
		if (fgit_sha1dc_dvs[i].type == 2 && fgit_sha1dc_dvs[i].k == 52 &&
		    fgit_sha1dc_dvs[i].b == 0)
			dv = (int)i;
	CHECK(dv >= 0);
	/* Blocks 3 and 4 (bytes 192..319) differ. */
	fgit_sha1dc_expand(Wa, a + 4 * 64);
	fgit_sha1dc_expand(Wb, b + 4 * 64);
	for (i = 0; i < 80; i++)
		CHECK((Wa[i] ^ Wb[i]) == fgit_sha1dc_dvs[dv].dm[i]);
	/* And the colliding block passes the unavoidable conditions of II(52,0). */
	CHECK(fgit_sha1dc_ubc(Wa) & (1u << dv));
	CHECK(fgit_sha1dc_ubc(Wb) & (1u << dv));
	free(a);
	free(b);
}

TEST(sha1dc, detects_published_collisions)
{
	size_t i, k, len, chunks[] = { 0, 1, 63, 64, 65, 4096 };
	struct fgit_oid oid;
	char hex[FGIT_MAX_HEXSZ + 1], msg[128];

	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			unsigned char *buf = slurp(files[i].name, &len);
			size_t c;
			CHECK_MSG(buf, "cannot read %s", files[i].name);
			for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
				int ret = raw_objname(&oid, buf, len, chunks[c]);
				if (ret != FGIT_ECOLLISION)
					free(buf);
				CHECK_MSG(ret == FGIT_ECOLLISION, "%s (%s, chunk %zu) not detected",
					  files[i].name, fgit_sha1_impl_name(impls[k]), chunks[c]);
				snprintf(msg, sizeof(msg),
					 "SHA-1 appears to be part of a collision attack: %s",
					 files[i].sha1);
				CHECK(!strcmp(fgit_error_last(), msg));
				CHECK(fgit_error_last_code() == FGIT_ECOLLISION);
				CHECK(!strcmp(fgit_oid_to_hex(hex, &oid), files[i].sha1));
			}
			free(buf);
		}
	}
	restore_impl();
}

TEST(sha1dc, blobs_of_collisions_match_git)
{
	size_t i, k, len;
	struct fgit_oid oid;
	char hex[FGIT_MAX_HEXSZ + 1];

	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			unsigned char *buf = slurp(files[i].name, &len);
			int ret;
			CHECK(buf);
			ret = fgit_hash_object(&oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, buf, len);
			free(buf);
			CHECK_MSG(ret == 0, "%s as a blob: %d", files[i].name, ret);
			CHECK(!strcmp(fgit_oid_to_hex(hex, &oid), files[i].blob));
		}
	}
	restore_impl();
}

TEST(sha1dc, checksum_does_not_detect)
{
	size_t len;
	unsigned char *buf = slurp("shattered-1.pdf", &len), raw[20], want[20];
	struct fgit_hash_ctx c;
	CHECK(buf);
	fgit_checksum_init(&c, FGIT_HASH_SHA1);
	fgit_checksum_update(&c, buf, len);
	fgit_checksum_final(raw, &c);
	SHA1(buf, len, want);
	free(buf);
	CHECK(!memcmp(raw, want, 20));
}

TEST(sha1dc, random_no_false_positive)
{
	static unsigned char buf[1 << 20];
	unsigned char want[20];
	struct fgit_oid oid;
	size_t k, n;

	fill(buf, sizeof(buf));
	for (k = 0; k < 2; k++) {
		if (fgit_sha1_impl_force(impls[k]))
			continue;
		for (n = 0; n <= 64 * 5; n++) {
			SHA1(buf + 3, n, want);
			CHECK_MSG(raw_objname(&oid, buf + 3, n, 0) == 0, "len %zu", n);
			CHECK(!memcmp(oid.hash, want, 20));
		}
		SHA1(buf, sizeof(buf), want);
		CHECK(raw_objname(&oid, buf, sizeof(buf), 0) == 0);
		CHECK(!memcmp(oid.hash, want, 20));
		CHECK(raw_objname(&oid, buf, sizeof(buf), 1000) == 0);
		CHECK(!memcmp(oid.hash, want, 20));
	}
	restore_impl();
}

TEST(sha1dc, ubc_flags_some_random_blocks)
{
	/*
	 * About one random block in twenty passes the check for some DV (the
	 * conditions proven unavoidable, W[35..65] only); the recompression
	 * then runs (and finds nothing).  Counted, so a broken
	 * check that flags nothing or everything shows.
	 */
	static unsigned char buf[64 * 4096];
	struct fgit_sha1dc_stats st;
	uint32_t h[5] = { 1, 2, 3, 4, 5 };

	fill(buf, sizeof(buf));
	fgit_sha1dc_stats_reset();
	CHECK(fgit_sha1dc_blocks_portable(h, buf, 4096) == 0);
	fgit_sha1dc_stats(&st);
	CHECK(st.blocks == 4096);
	CHECK_MSG(st.flagged > 4096 / 60 && st.flagged < 4096 / 10, "flagged %llu of 4096",
		  (unsigned long long)st.flagged);
	CHECK(st.recompressions >= st.flagged);
	CHECK(st.detected == 0);
}

static const char *checks[] = { "avx512", "avx2", "scalar" };

TEST(sha1dc, vector_check_equals_scalar)
{
	/*
	 * Every lane count, random blocks, each check this CPU has: the same
	 * masks as the portable scalar check.
	 */
	static unsigned char buf[64 * 16 * 64];
	uint32_t masks[16], W[80];
	unsigned cnt, b, round, flagged = 0, k, ran = 0;

	fill(buf, sizeof(buf));
	for (k = 0; k < 3; k++) {
		if (fgit_sha1dc_force_check(checks[k]))
			continue;
		ran++;
		for (round = 0; round < 64; round++) {
			for (cnt = 1; cnt <= 16; cnt++) {
				const unsigned char *p = buf + 64 * 16 * round;
				CHECK(fgit_sha1dc_ubc_multi(masks, p, cnt) == 0);
				for (b = 0; b < 16; b++) {
					uint32_t want = 0;
					if (b < cnt) {
						fgit_sha1dc_expand(W, p + 64 * b);
						want = fgit_sha1dc_ubc(W);
					}
					CHECK_MSG(masks[b] == want, "%s: round %u cnt %u block %u",
						  checks[k], round, cnt, b);
					flagged += masks[b] != 0;
				}
			}
		}
	}
	fgit_sha1dc_force_check("best");
	if (!fgit_sha1dc_fast_available())
		return;
	CHECK(ran >= 2);
	CHECK(flagged > 0);
}

/* Hash with one detecting block function; returns its verdict. */
static int blocks_digest(fgit_sha1dc_blocks_fn fn, uint32_t h[5],
			 const unsigned char *p, size_t nblocks)
{
	h[0] = 0x67452301; h[1] = 0xefcdab89; h[2] = 0x98badcfe;
	h[3] = 0x10325476; h[4] = 0xc3d2e1f0;
	return fn(h, p, nblocks);
}

TEST(sha1dc, fast_equals_portable_flagged_blocks)
{
	/*
	 * Random data: about one block in 28 passes the check for some
	 * DV, so these exercise the recompression path of both detectors (the
	 * counters prove it); verdicts and chaining values must be identical,
	 * for every length from 1 to 40 blocks (tails, partial vectors) and
	 * for a big buffer (whole vectors, and the two-thread pipeline when
	 * it is enabled).
	 */
	static unsigned char buf[64 * 40];
	size_t big = (9u << 20) + 64 * 7, n;
	unsigned char *p = malloc(big);
	uint32_t h1[5], h2[5];
	struct fgit_sha1dc_stats st;
	int threads;

	unsigned k;

	CHECK(p);
	if (!fgit_sha1dc_fast_available()) {
		free(p);
		return;
	}
	fill(buf, sizeof(buf));
	for (k = 0; k < 3; k++) {
		if (fgit_sha1dc_force_check(checks[k]))
			continue;
		for (n = 1; n <= 40; n++) {
			int a = blocks_digest(fgit_sha1dc_blocks_portable, h1, buf, n);
			int b = blocks_digest(fgit_sha1dc_blocks_fast, h2, buf, n);
			if (a || b || memcmp(h1, h2, sizeof(h1))) {
				free(p);
				CHECK_MSG(0, "%s: %zu blocks", checks[k], n);
			}
		}
	}
	fgit_sha1dc_force_check("best");
	fill(p, big);
	for (threads = 0; threads < 2; threads++) {
		fgit_sha1dc_set_threads(threads);
		fgit_sha1dc_stats_reset();
		CHECK(blocks_digest(fgit_sha1dc_blocks_fast, h2, p, big / 64) == 0);
		fgit_sha1dc_stats(&st);
		if (st.blocks != big / 64 || st.flagged < big / 64 / 200) {
			free(p);
			CHECK_MSG(0, "counters: %llu blocks, %llu flagged",
				  (unsigned long long)st.blocks, (unsigned long long)st.flagged);
		}
		CHECK(blocks_digest(fgit_sha1dc_blocks_portable, h1, p, big / 64) == 0);
		if (memcmp(h1, h2, sizeof(h1))) {
			free(p);
			CHECK_MSG(0, "big buffer differs (threads %d)", threads);
		}
	}
	fgit_sha1dc_set_threads(-1);
	free(p);
}

/* The block of f that the portable detector flags, with its chaining values. */
static int find_attack_block(struct fgit_sha1dc_job *job, const unsigned char *f, size_t len)
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	size_t b;

	for (b = 0; b < len / 64; b++) {
		uint32_t in[5], W[80], mask, dv;
		memcpy(in, h, sizeof(in));
		if (!fgit_sha1dc_blocks_portable(h, f + 64 * b, 1))
			continue;
		fgit_sha1dc_expand(W, f + 64 * b);
		mask = fgit_sha1dc_ubc(W);
		for (dv = 0; dv < FGIT_SHA1DC_NDV; dv++) {
			if (!(mask & (1u << dv)))
				continue;
			job->block = f + 64 * b;
			memcpy(job->in, in, sizeof(in));
			memcpy(job->out, h, sizeof(h));
			job->dv = dv;
			if (fgit_sha1dc_recheck(W, in, h, 1u << dv, NULL))
				return 0;
		}
	}
	return -1;
}

TEST(sha1dc, batch_recompression_equals_scalar)
{
	/*
	 * The sixteen-lane recompression computes, for every job, the same
	 * "other message" chaining output as the portable code: random jobs
	 * (every DV, so every testt, in mixed lanes; 1..16 lanes), and the
	 * real attack blocks of both published collisions in every lane
	 * position, where it must equal the block's own output.
	 */
	static unsigned char buf[64 * 64];
	struct fgit_sha1dc_job jobs[16], attack[2];
	uint32_t vec[16][5], ref[5];
	const char *names[2] = { "shattered-1.pdf", "sha-mbles-1.bin" };
	unsigned char *files_buf[2];
	unsigned it, l, i, f;

	memset(jobs, 0, sizeof(jobs));
	if (fgit_sha1dc_other_ihv16(vec, jobs, 0) != -1)
		CHECK_MSG(0, "cnt 0 accepted");
	fill(buf, sizeof(buf));
	for (it = 0; it < 400; it++) {
		unsigned cnt = 1 + it % 16;
		for (l = 0; l < cnt; l++) {
			jobs[l].block = buf + 64 * (rng() % 64);
			for (i = 0; i < 5; i++)
				jobs[l].in[i] = (uint32_t)rng();
			jobs[l].dv = (it + l) % FGIT_SHA1DC_NDV;
		}
		if (fgit_sha1dc_other_ihv16(vec, jobs, cnt))
			return;	/* no AVX-512 here */
		for (l = 0; l < cnt; l++) {
			fgit_sha1dc_other_ihv(ref, &jobs[l]);
			CHECK_MSG(!memcmp(ref, vec[l], sizeof(ref)), "lane %u of %u, dv %u",
				  l, cnt, jobs[l].dv);
		}
	}
	for (f = 0; f < 2; f++) {
		size_t len;
		files_buf[f] = slurp(names[f], &len);
		CHECK(files_buf[f]);
		CHECK_MSG(!find_attack_block(&attack[f], files_buf[f], len), "%s", names[f]);
		fgit_sha1dc_other_ihv(ref, &attack[f]);
		CHECK(!memcmp(ref, attack[f].out, sizeof(ref)));
	}
	for (l = 0; l < 16; l++) {
		for (i = 0; i < 16; i++) {
			jobs[i].block = buf + 64 * i;
			memcpy(jobs[i].in, attack[i % 2].in, sizeof(jobs[i].in));
			jobs[i].dv = i;
		}
		jobs[l] = attack[l % 2];
		CHECK(!fgit_sha1dc_other_ihv16(vec, jobs, 16));
		for (i = 0; i < 16; i++)
			CHECK_MSG(!memcmp(vec[i], attack[l % 2].out, sizeof(vec[i])) == (i == l),
				  "attack in lane %u, lane %u", l, i);
	}
	free(files_buf[0]);
	free(files_buf[1]);
}

TEST(sha1dc, detected_in_big_stream)
{
	/*
	 * A collision file followed by megabytes of random data, in one call:
	 * the attack blocks sit in the first vector of the pipeline.
	 */
	size_t len, big = 9u << 20;
	unsigned char *f = slurp("shattered-2.pdf", &len), *p = malloc(big);
	uint32_t h1[5], h2[5];
	int threads;

	CHECK(f && p && len < big);
	fill(p, big);
	memcpy(p, f, len & ~(size_t)63);
	free(f);
	CHECK(blocks_digest(fgit_sha1dc_blocks_portable, h1, p, big / 64) == 1);
	for (threads = 0; threads < 6 && fgit_sha1dc_fast_available(); threads++) {
		if (fgit_sha1dc_force_check(checks[threads / 2]))
			continue;
		fgit_sha1dc_set_threads(threads % 2);
		if (blocks_digest(fgit_sha1dc_blocks_fast, h2, p, big / 64) != 1 ||
		    memcmp(h1, h2, sizeof(h1))) {
			free(p);
			CHECK_MSG(0, "fast path (%s, threads %d) missed it",
				  checks[threads / 2], threads % 2);
		}
	}
	fgit_sha1dc_force_check("best");
	fgit_sha1dc_set_threads(-1);
	free(p);
}

/*
 * Union-find with parity over the 80 x 32 message bits: each condition of
 * DV dv says bit a ^ bit b = v.  Then write a solution into W.
 */
static int uf_parent[80 * 32], uf_parity[80 * 32];

static int uf_find(int x, int *par)
{
	int p = 0;
	while (uf_parent[x] != x) {
		p ^= uf_parity[x];
		x = uf_parent[x];
	}
	*par = p;
	return x;
}

static void satisfy(uint32_t W[80], unsigned dv)
{
	unsigned n, x, k;

	for (k = 0; k < 80 * 32; k++) {
		uf_parent[k] = (int)k;
		uf_parity[k] = 0;
	}
	for (n = 0; n < FGIT_SHA1DC_NCONDS; n++) {
		const struct fgit_sha1dc_cond *c = &fgit_sha1dc_conds[n];
		const struct fgit_sha1dc_group *g = &fgit_sha1dc_groups[c->group];
		if (c->dv != dv)
			continue;
		for (x = 0; x < 32; x++) {
			uint32_t bit = 1u << x;
			int a, b, pa, pb, v;
			if (!((c->must0 | c->must1) & bit))
				continue;
			/* T bit x = W[i] bit x ^ W[j] bit (x - r). */
			v = (c->must1 & bit) != 0;
			a = uf_find((int)(g->i * 32 + x), &pa);
			b = uf_find((int)(g->j * 32 + ((x - g->r) & 31)), &pb);
			if (a != b) {
				uf_parent[a] = b;
				uf_parity[a] = pa ^ pb ^ v;
			}
		}
	}
	/* Roots keep their random value; every other bit follows its root. */
	for (k = 0; k < 80 * 32; k++) {
		int p, r = uf_find((int)k, &p);
		uint32_t rootbit = W[r / 32] >> (r % 32) & 1;
		uint32_t want = rootbit ^ (uint32_t)p;
		W[k / 32] = (W[k / 32] & ~(1u << (k % 32))) | want << (k % 32);
	}
}

TEST(sha1dc, generated_check_equals_table)
{
	/*
	 * The straight-line check (generated code) against the condition table
	 * read one entry at a time, on random W and on W made to satisfy
	 * every condition of one DV (so each DV's bit is seen set).
	 */
	uint32_t W[80];
	unsigned round, n;
	unsigned char blk[64];

	for (round = 0; round < 2000 + 32; round++) {
		uint32_t want = ~0u, T[FGIT_SHA1DC_NGROUPS];
		fill(blk, sizeof(blk));
		fgit_sha1dc_expand(W, blk);
		if (round >= 2000)
			satisfy(W, round - 2000);
		for (n = 0; n < FGIT_SHA1DC_NGROUPS; n++) {
			const struct fgit_sha1dc_group *g = &fgit_sha1dc_groups[n];
			uint32_t r = g->r ? W[g->j] << g->r | W[g->j] >> (32 - g->r) : W[g->j];
			T[n] = W[g->i] ^ r;
		}
		for (n = 0; n < FGIT_SHA1DC_NCONDS; n++) {
			const struct fgit_sha1dc_cond *c = &fgit_sha1dc_conds[n];
			if ((T[c->group] & c->must0) | (~T[c->group] & c->must1))
				want &= ~(1u << c->dv);
		}
		CHECK_MSG(fgit_sha1dc_ubc(W) == want, "round %u", round);
		if (round >= 2000)
			CHECK_MSG(want & (1u << (round - 2000)), "DV %u not satisfiable", round - 2000);
	}
}
