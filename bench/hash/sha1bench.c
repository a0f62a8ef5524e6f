/*
 * SHA-1 throughput on a buffer of random data (default 1 GiB):
 *   plain-shani      SHA extensions, no detection (checksums)
 *   plain-portable   portable C, no detection
 *   dc-portable      portable C with collision detection
 *   dc-fast-1t       SHA extensions + vectorised detection check, one thread
 *   dc-fast-2t       the same with the helper thread (check ahead, rechecks
 *                    behind; inputs >= 4 MiB)
 *   obj1k-plain      the buffer as 1 KiB blobs: header + data through the
 *                    plain checksum entry point (fgit_checksum_*)
 *   obj1k-dc         the same through fgit_hash_object (detecting), as
 *                    hash-object --stdin-paths on small files does
 * Each variant runs `runs` times (interleaved, so drift hits all alike);
 * prints median, min and max in MB/s (10^6 bytes/s), the ratios of the
 * detecting paths to plain SHA-NI, and the detector's counters.
 *
 * usage: sha1bench [MiB] [runs] [variant,variant,...]
 *        sha1bench ticks
 * The second form times each single-thread variant on 1024 blocks (64 KiB,
 * in cache) 300 times and prints the fastest, in TSC ticks per 64-byte
 * block: on a loaded machine the minimum is the least disturbed figure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "fgit/hash.h"
#include "hash/sha1.h"
#include "hash/sha1dc.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

enum { PLAIN_SHANI, PLAIN_PORTABLE, DC_PORTABLE, DC_FAST1, DC_FAST2, OBJ_PLAIN, OBJ_DC, NVAR };
static const char *names[NVAR] = { "plain-shani", "plain-portable", "dc-portable",
				   "dc-fast-1t", "dc-fast-2t", "obj1k-plain", "obj1k-dc" };

/*
 * The buffer as blobs of obj_size bytes (1 KiB, or SHA1BENCH_OBJ_SIZE); h
 * receives the XOR of all ids (for a check).
 */
static size_t obj_size = 1024;
static void objects(uint32_t h[5], const unsigned char *buf, size_t len, int detect)
{
	size_t off;
	memset(h, 0, 20);
	for (off = 0; off + obj_size <= len; off += obj_size) {
		unsigned char raw[20];
		struct fgit_oid oid;
		int i;
		if (detect) {
			fgit_hash_object(&oid, FGIT_HASH_SHA1, FGIT_OBJ_BLOB, buf + off, obj_size);
			memcpy(raw, oid.hash, 20);
		} else {
			struct fgit_hash_ctx c;
			char hdr[32];
			int n = fgit_object_header(hdr, sizeof(hdr), FGIT_OBJ_BLOB, obj_size);
			fgit_checksum_init(&c, FGIT_HASH_SHA1);
			fgit_checksum_update(&c, hdr, n);
			fgit_checksum_update(&c, buf + off, obj_size);
			fgit_checksum_final(raw, &c);
		}
		for (i = 0; i < 20; i++)
			((unsigned char *)h)[i] ^= raw[i];
	}
}

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/*
 * Where the detecting fast path's ticks go: the vectorised check alone
 * (per block), and the recompression of one flagged (block, DV) pair in
 * a batch of sixteen and in portable C.
 */
static void parts(const unsigned char *buf, size_t nb)
{
	struct fgit_sha1dc_job jobs[16];
	uint32_t masks[16], other[16][5];
	unsigned long long best[3] = { ~0ULL, ~0ULL, ~0ULL };
	size_t c;
	int r, k;

	for (k = 0; k < 16; k++) {
		jobs[k].block = buf + 64 * (size_t)k;
		memset(jobs[k].in, k, sizeof(jobs[k].in));
		memset(jobs[k].out, 0, sizeof(jobs[k].out));
		jobs[k].dv = (unsigned)(2 * k + 1) % FGIT_SHA1DC_NDV;
	}
	for (r = 0; r < 300; r++) {
		unsigned long long t0 = __rdtsc(), t1, t2, t3;
		for (c = 0; c + 16 <= nb; c += 16)
			fgit_sha1dc_ubc_multi(masks, buf + 64 * c, 16);
		t1 = __rdtsc();
		for (k = 0; k < 16; k++)
			fgit_sha1dc_other_ihv16(other, jobs, 16);
		t2 = __rdtsc();
		for (k = 0; k < 16; k++)
			fgit_sha1dc_other_ihv(other[k], &jobs[k]);
		t3 = __rdtsc();
		if (t1 - t0 < best[0])
			best[0] = t1 - t0;
		if (t2 - t1 < best[1])
			best[1] = t2 - t1;
		if (t3 - t2 < best[2])
			best[2] = t3 - t2;
	}
	printf("check only, per block    %7.1f\n", (double)best[0] / nb);
	if (!fgit_sha1dc_other_ihv16(other, jobs, 16))
		printf("recompression, per pair, batch of 16 %7.1f\n", (double)best[1] / 256);
	printf("recompression, per pair, portable    %7.1f\n", (double)best[2] / 16);
}

static int ticks(void)
{
	size_t nb = 1024, i;
	unsigned char *buf = malloc(64 * nb);
	const char *label[] = { "plain-shani", "plain-portable", "dc-portable",
				"dc-fast (avx512)", "dc-fast (avx2)", "dc-fast (scalar check)" };
	const char *check[] = { NULL, NULL, NULL, "avx512", "avx2", "scalar" };
	int v, r;

	if (!buf)
		return 1;
	for (i = 0; i < 64 * nb; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 11);
	fgit_sha1dc_set_threads(0);
	printf("TSC ticks per 64-byte block, best of 300 runs over 64 KiB in cache\n");
	for (v = 0; v < 6; v++) {
		unsigned long long best = ~0ULL;
		if ((v == 0 || v >= 3) && !fgit_sha1_have_shani())
			continue;
		if (check[v] && fgit_sha1dc_force_check(check[v]))
			continue;
		for (r = 0; r < 300; r++) {
			uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
			unsigned long long t0 = __rdtsc(), t;
			switch (v) {
			case 0: fgit_sha1_blocks_shani(h, buf, nb); break;
			case 1: fgit_sha1_blocks_portable(h, buf, nb); break;
			case 2: fgit_sha1dc_blocks_portable(h, buf, nb); break;
			default: fgit_sha1dc_blocks_fast(h, buf, nb); break;
			}
			t = __rdtsc() - t0;
			if (t < best)
				best = t;
		}
		printf("%-24s %7.1f\n", label[v], (double)best / nb);
	}
	fgit_sha1dc_force_check("best");
	if (fgit_sha1_have_shani())
		parts(buf, nb);
	free(buf);
	return 0;
}
#else
static int ticks(void)
{
	return 1;
}
#endif

int main(int argc, char **argv)
{
	size_t mib = argc < 2 ? 1024 : strcmp(argv[1], "ticks") ? strtoul(argv[1], NULL, 10) : 1;
	int runs = argc > 2 ? atoi(argv[2]) : 5, r, v;
	size_t len = mib << 20, i;
	unsigned char *buf = malloc(len);
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	double t[NVAR][64], cpu[NVAR][64], pipe_main[64], pipe_helper[64];
	uint32_t digest[NVAR][5];
	struct fgit_sha1dc_stats st[NVAR];
	int have_shani = fgit_sha1_have_shani(), have_fast = fgit_sha1dc_fast_available();
	const char *only = argc > 3 ? argv[3] : NULL;
	int want[NVAR];

	for (v = 0; v < NVAR; v++)
		want[v] = !only || strstr(only, names[v]) != NULL;

	if (argc > 1 && !strcmp(argv[1], "ticks")) {
		free(buf);
		return ticks();
	}
	if (getenv("SHA1BENCH_OBJ_SIZE"))
		obj_size = strtoul(getenv("SHA1BENCH_OBJ_SIZE"), NULL, 10);
	if (!buf || runs < 1 || runs > 64 || obj_size < 1) {
		fprintf(stderr, "usage: sha1bench [MiB] [runs<=64]\n");
		return 1;
	}
	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
		uint64_t y = x * 0x2545f4914f6cdd1dULL;
		memcpy(buf + i, &y, 8);
	}
	memset(st, 0, sizeof(st));
	for (r = 0; r < runs; r++) {
		for (v = 0; v < NVAR; v++) {
			uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
			double t0;
			if (!want[v] || (v == PLAIN_SHANI && !have_shani) ||
			    (v >= DC_FAST1 && !have_fast)) {
				t[v][r] = 0;
				continue;
			}
			fgit_sha1dc_stats_reset();
			double c0 = cpu_now();
			t0 = now();
			switch (v) {
#if defined(__x86_64__) || defined(__i386__)
			case PLAIN_SHANI: fgit_sha1_blocks_shani(h, buf, len / 64); break;
#endif
			case PLAIN_PORTABLE: fgit_sha1_blocks_portable(h, buf, len / 64); break;
			case DC_PORTABLE: fgit_sha1dc_blocks_portable(h, buf, len / 64); break;
			case DC_FAST1:
				fgit_sha1dc_set_threads(0);
				fgit_sha1dc_blocks_fast(h, buf, len / 64);
				break;
			case DC_FAST2:
				fgit_sha1dc_set_threads(1);
				fgit_sha1dc_blocks_fast(h, buf, len / 64);
				break;
			case OBJ_PLAIN: objects(h, buf, len, 0); break;
			case OBJ_DC: objects(h, buf, len, 1); break;
			}
			t[v][r] = now() - t0;
			cpu[v][r] = cpu_now() - c0;
			fgit_sha1dc_stats(&st[v]);
			if (v == DC_FAST2) {
				pipe_main[r] = st[v].pipeline_main_ns / 1e9;
				pipe_helper[r] = st[v].pipeline_helper_ns / 1e9;
			}
			memcpy(digest[v], h, sizeof(h));
		}
	}
	printf("buffer %zu MiB random, %d runs each (interleaved); obj1k-* use %zu-byte blobs\n",
	       mib, runs, obj_size);
	printf("wall-clock throughput, and throughput per CPU-second of the calling thread\n"
	       "(best run: least disturbed by other load on the machine)\n");
	printf("%-15s %10s %10s %10s %14s\n", "variant", "median", "min", "max", "cpu-best");
	double med[NVAR];
	for (v = 0; v < NVAR; v++) {
		if (!t[v][0]) {
			printf("%-15s (not run)\n", names[v]);
			med[v] = 0;
			continue;
		}
		qsort(t[v], runs, sizeof(double), cmp_double);
		qsort(cpu[v], runs, sizeof(double), cmp_double);
		med[v] = len / t[v][runs / 2] / 1e6;
		printf("%-15s %7.0f MB/s %6.0f MB/s %6.0f MB/s %9.0f MB/s\n", names[v], med[v],
		       len / t[v][runs - 1] / 1e6, len / t[v][0] / 1e6, len / cpu[v][0] / 1e6);
	}
	for (v = 0; v < NVAR; v++) {
		int ref;
		for (ref = v >= OBJ_PLAIN ? OBJ_PLAIN : 0; ref < v && !t[ref][0]; ref++)
			;
		if (ref < v && t[v][0] && memcmp(digest[v], digest[ref], 20)) {
			printf("DIGEST MISMATCH: %s\n", names[v]);
			return 1;
		}
	}
	if (med[OBJ_DC] && med[OBJ_PLAIN])
		printf("ratio obj1k-dc / obj1k-plain (medians): %.3f\n", med[OBJ_DC] / med[OBJ_PLAIN]);
	for (v = PLAIN_PORTABLE; v < OBJ_PLAIN; v++)
		if (med[v] && med[PLAIN_SHANI])
			printf("ratio %s / plain-shani (medians): %.3f\n", names[v],
			       med[v] / med[PLAIN_SHANI]);
	if (t[DC_FAST2][0] && t[PLAIN_SHANI][0]) {
		double best = 1e30, sh = cpu[PLAIN_SHANI][0];
		int br = 0;
		for (r = 0; r < runs; r++) {
			double m = pipe_main[r] > pipe_helper[r] ? pipe_main[r] : pipe_helper[r];
			if (m > 0 && m < best) {
				best = m;
				br = r;
			}
		}
		printf("dc-fast-2t pipeline, best run: SHA-NI thread %.0f MB/s, helper %.0f MB/s "
		       "per CPU-second (waits excluded);\n  with a free core each: "
		       "~%.0f MB/s, ratio to plain-shani (cpu-best) %.3f\n",
		       len / pipe_main[br] / 1e6, len / pipe_helper[br] / 1e6, len / best / 1e6,
		       (len / best) / (len / sh));
	}
	for (v = DC_PORTABLE; v < NVAR; v++)
		if (t[v][0])
			printf("%s counters (last run): blocks checked %llu, flagged %llu, "
			       "DV recompressions %llu, detected %llu\n", names[v],
			       (unsigned long long)st[v].blocks, (unsigned long long)st[v].flagged,
			       (unsigned long long)st[v].recompressions,
			       (unsigned long long)st[v].detected);
	free(buf);
	return 0;
}
