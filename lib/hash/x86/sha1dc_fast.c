/*
 * Collision-detecting SHA-1 at SHA-extension speed.
 *
 * The unavoidable-bit-condition check (sha1dc.c) reads only the expanded
 * message W, never the chaining state.  So it runs on 16 blocks at once,
 * one block per 32-bit lane of an AVX-512 register: gather word k of 16
 * blocks, expand, form the rotated-XOR words the conditions read, and
 * test each disturbance vector's conditions on all lanes together (one
 * ternary-logic instruction per condition, no branches).
 *
 * Then the SHA extensions compress the 16 blocks; for a block whose mask
 * is not empty (about one in 17) the input and output chaining values are
 * kept, and each flagged (block, DV) pair is queued for the recompression,
 * sixteen pairs at a time in AVX-512 lanes (sha1dc_batch.c), or one by one
 * in the portable code's recheck (states before steps 56-68 from SHA-NI
 * rounds); both compute what the portable detector does, bit for bit.
 *
 * Interleaving the check with the SHA-NI rounds in one instruction stream
 * does not pay here: sha1rnds4 and friends exist only in legacy SSE
 * encoding, and mixing them with AVX-512 costs a state transition each time
 * (measured, TSC ticks per block, best of 300 in-cache runs: 1100 without
 * vzeroupper, 236-326 with it, against 218 for check-then-compress; again
 * with the final branch-free check cut into 16 slices: 178-190 interleaved
 * against 145 sequential, plain SHA-NI 104).  Registers zmm16-31 avoid the
 * transition (legacy SSE only sees the upper state of registers 0-15), but
 * the extra work still does not hide behind the SHA-NI latency: filler
 * instructions in an SHA-NI loop cost 0.5-0.9 ticks per 512-bit instruction
 * and 0.2-0.27 per 256-bit one (2026-12-01, inline-asm filler on ymm/zmm16+),
 * against ~0.6 per 512-bit instruction for the check run on its own.  So
 * one thread pays SHA-NI plus the check (~88 + ~35 ticks per block; the
 * batched recompression adds ~3.5).  What does pay is a second core:
 * for big inputs a helper thread runs the check ahead of the SHA-NI thread
 * and the rechecks behind it (chunks_threaded below).
 *
 * Without AVX-512 the check runs on 8 lanes of AVX2 (the same generated
 * conditions, two instructions each), without AVX2 per block in scalar
 * code.  Compiled on x86 only; the selector checks CPUID first.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hash/sha1.h"
#include "hash/sha1dc.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw")))

#define AVX2 __attribute__((target("avx2")))

/* Which vector check this CPU runs (FGIT_SHA1DC_CHECK forces one, for tests). */
enum check_kind { CHECK_SCALAR, CHECK_AVX2, CHECK_AVX512 };
static pthread_once_t check_once = PTHREAD_ONCE_INIT;
static _Atomic int check_kind;
static int check_best;

static void choose_check(void)
{
	const char *env = getenv("FGIT_SHA1DC_CHECK");

	__builtin_cpu_init();
	check_best = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
		? CHECK_AVX512 : __builtin_cpu_supports("avx2") ? CHECK_AVX2 : CHECK_SCALAR;
	check_kind = check_best;
	if (env && !strcmp(env, "scalar"))
		check_kind = CHECK_SCALAR;
	else if (env && !strcmp(env, "avx2") && check_best >= CHECK_AVX2)
		check_kind = CHECK_AVX2;
}

int fgit_sha1dc_force_check(const char *name)
{
	int want = !strcmp(name, "avx512") ? CHECK_AVX512 : !strcmp(name, "avx2")
		? CHECK_AVX2 : !strcmp(name, "scalar") ? CHECK_SCALAR : -1;

	pthread_once(&check_once, choose_check);
	if (!strcmp(name, "best"))
		want = check_best;
	if (want < 0 || want > check_best)
		return -1;
	atomic_store(&check_kind, want);
	return 0;
}

/* Scalar reads of one lane of the vector W (second phase of the check). */
typedef uint32_t __attribute__((may_alias)) u32_lane;
#define WLANE(i, l) (((const u32_lane *)&W[i])[l])
#define ROL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

struct ubc_work {
	__m512i W[80];
	uint32_t masks[16];
};

/*
 * The check of cnt (1..16) consecutive blocks at data: masks[n] gets the
 * DVs block n must be recompressed for.  Returns the OR of the masks.
 */
AVX512
static uint32_t ubc16(struct ubc_work *w, const unsigned char *data, unsigned cnt)
{
	const __m512i idx = _mm512_set_epi32(240, 224, 208, 192, 176, 160, 144, 128,
					     112, 96, 80, 64, 48, 32, 16, 0);
	const __m512i bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b,
						0x04050607, 0x00010203);
	const __mmask16 lanes = (__mmask16)((1u << cnt) - 1);
	__m512i *W = w->W;
	__mmask16 alive[FGIT_SHA1DC_NDV];
	uint32_t any = 0;
	unsigned k, dv;

	/*
	 * Gathers: a 16x16 transpose of loaded blocks measured slower here
	 * (170-207 TSC ticks/block for the whole path against 150-175).
	 */
	for (k = 0; k < 16; k++)
		W[k] = _mm512_shuffle_epi8(_mm512_mask_i32gather_epi32(
			_mm512_setzero_si512(), lanes,
			_mm512_add_epi32(idx, _mm512_set1_epi32(k)),
			(const void *)data, 4), bswap);
	for (; k <= FGIT_SHA1DC_MAXW; k++)
		W[k] = _mm512_rol_epi32(_mm512_ternarylogic_epi32(W[k - 3], W[k - 8],
			_mm512_xor_si512(W[k - 14], W[k - 16]), 0x96), 1);
	{
#include "hash/x86/sha1dc_ubc_avx512.inc"
	}
	memset(w->masks, 0, sizeof(w->masks));
	{
		/* Usually no lane survives any DV: skip the transposition. */
		unsigned all = 0;
		for (dv = 0; dv < FGIT_SHA1DC_NDV; dv++)
			all |= alive[dv];
		if (!all)
			return 0;
	}
	for (dv = 0; dv < FGIT_SHA1DC_NDV; dv++) {
		unsigned a = alive[dv];
		while (a) {
			unsigned lane = __builtin_ctz(a);
			a &= a - 1;
			w->masks[lane] |= 1u << dv;
			any = 1;
		}
	}
	return any;
}

#define ROL256(x, n) _mm256_or_si256(_mm256_slli_epi32(x, n), _mm256_srli_epi32(x, 32 - (n)))

/* The same with AVX2, eight blocks (cnt 1..8) into masks[0..7]. */
AVX2
static uint32_t ubc8(uint32_t *masks, const unsigned char *data, unsigned cnt)
{
	const __m256i idx = _mm256_set_epi32(112, 96, 80, 64, 48, 32, 16, 0);
	const __m256i bswap = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7,
					      0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11,
					      4, 5, 6, 7, 0, 1, 2, 3);
	const unsigned lanes = (1u << cnt) - 1;
	const __m256i lanemask = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)cnt),
						    _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
	__m256i W[FGIT_SHA1DC_MAXW + 1];
	unsigned alive[FGIT_SHA1DC_NDV], k, dv;
	uint32_t any = 0;

	for (k = 0; k < 16; k++)
		W[k] = _mm256_shuffle_epi8(_mm256_mask_i32gather_epi32(
			_mm256_setzero_si256(), (const int *)data,
			_mm256_add_epi32(idx, _mm256_set1_epi32(k)), lanemask, 4), bswap);
	for (; k <= FGIT_SHA1DC_MAXW; k++) {
		__m256i t = _mm256_xor_si256(_mm256_xor_si256(W[k - 3], W[k - 8]),
					     _mm256_xor_si256(W[k - 14], W[k - 16]));
		W[k] = ROL256(t, 1);
	}
	{
#include "hash/x86/sha1dc_ubc_avx2.inc"
	}
	memset(masks, 0, 8 * sizeof(*masks));
	for (dv = 0; dv < FGIT_SHA1DC_NDV; dv++) {
		unsigned a = alive[dv];
		while (a) {
			unsigned lane = __builtin_ctz(a);
			a &= a - 1;
			masks[lane] |= 1u << dv;
			any = 1;
		}
	}
	return any;
}

/* The check of cnt (1..16) blocks with the best (or forced) code: masks[0..15]. */
static uint32_t check16(struct ubc_work *w, const unsigned char *data, unsigned cnt)
{
	unsigned b;
	uint32_t any = 0;

	switch (atomic_load_explicit(&check_kind, memory_order_relaxed)) {
	case CHECK_AVX512:
		return ubc16(w, data, cnt);
	case CHECK_AVX2:
		memset(w->masks, 0, sizeof(w->masks));
		any = ubc8(w->masks, data, cnt < 8 ? cnt : 8);
		if (cnt > 8)
			any |= ubc8(w->masks + 8, data + 512, cnt - 8);
		return any;
	default:
		memset(w->masks, 0, sizeof(w->masks));
		for (b = 0; b < cnt; b++) {
			uint32_t W[80];
			fgit_sha1dc_expand(W, data + 64 * b);
			w->masks[b] = fgit_sha1dc_ubc(W);
			any |= w->masks[b];
		}
		return any;
	}
}

/*
 * Flagged (block, DV) pairs wait here until sixteen can be recompressed at
 * once (sha1dc_batch.c: ~58 TSC ticks per pair against ~490 for the scalar
 * recheck of one block, measured on the development Xeon).  Blocks are
 * pointers into the caller's data, valid until the detecting call returns,
 * which runs what is left.
 */
struct batch {
	unsigned n;
	int found;
	struct fgit_sha1dc_job job[16];
};

/*
 * A single pair costs less in scalar code (the vector kernel always runs
 * all sixteen lanes); so does every pair without AVX-512 (or with the
 * check forced to AVX2 or scalar, which tests use to cover this path).
 */
#define BATCH_MIN 2

static void batch_run(struct batch *bt)
{
	uint32_t other[16][5];
	unsigned i, hits = 0;

	if (!bt->n)
		return;
	if (bt->n < BATCH_MIN ||
	    atomic_load_explicit(&check_kind, memory_order_relaxed) != CHECK_AVX512 ||
	    fgit_sha1dc_other_ihv16(other, bt->job, bt->n)) {
		for (i = 0; i < bt->n; i++) {
			const struct fgit_sha1dc_job *j = &bt->job[i];
			uint32_t W[80], states[FGIT_SHA1DC_NSTATES][5];
			/* SHA-NI gives the saved states faster than 68 scalar steps. */
			fgit_sha1_shani_states(j->in, j->block, states);
			fgit_sha1dc_expand(W, j->block);
			bt->found |= fgit_sha1dc_recheck(W, j->in, j->out, 1u << j->dv,
							 (const uint32_t (*)[5])states);
		}
		bt->n = 0;
		return;
	}
	for (i = 0; i < bt->n; i++)
		hits += !memcmp(other[i], bt->job[i].out, sizeof(other[i]));
	fgit_sha1dc_count(0, 0, bt->n, hits);
	bt->found |= hits != 0;
	bt->n = 0;
}

/* Queue the flagged blocks of a compressed chunk; ihv[b] = input of block b. */
static void recheck_chunk(struct batch *bt, const unsigned char *data, unsigned cnt,
			  const uint32_t *masks, uint32_t ihv[17][5], uint64_t *flagged)
{
	unsigned b;

	for (b = 0; b < cnt; b++) {
		uint32_t mask = masks[b];
		if (!mask)
			continue;
		(*flagged)++;
		while (mask) {
			struct fgit_sha1dc_job *j = &bt->job[bt->n];
			j->block = data + 64 * b;
			memcpy(j->in, ihv[b], sizeof(j->in));
			memcpy(j->out, ihv[b + 1], sizeof(j->out));
			j->dv = __builtin_ctz(mask);
			mask &= mask - 1;
			if (++bt->n == 16)
				batch_run(bt);
		}
	}
}

/*
 * Two cores on one stream: this thread compresses with the SHA extensions
 * and keeps every block's input chaining value; a helper thread runs the
 * vectorised check ahead of it and the software recheck of flagged blocks
 * behind it.  They share a ring of RING chunks (16 blocks each) and two
 * counters; neither waits unless it gets RING chunks ahead of the other.
 */
#define RING 64

struct pipe {
	const unsigned char *data;
	size_t nchunks;
	uint32_t masks[RING][16];
	uint32_t ihv[RING][17][5];
	_Atomic size_t compressed;	/* chunks whose ihv[] are written */
	_Atomic size_t rechecked;	/* chunks fully checked */
	int found;
	uint64_t flagged;
	struct batch batch;	/* the helper's */
	struct ubc_work *work;	/* the helper's, 64-byte aligned */
	uint64_t helper_ns;	/* helper's CPU time, waits excluded */
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * Wait for *v >= at_least; returns the CPU time spent waiting (so the
 * benchmark can report each thread's work without its waits).
 */
static uint64_t wait_until(_Atomic size_t *v, size_t at_least)
{
	unsigned spins = 0;
	uint64_t t0;

	if (atomic_load_explicit(v, memory_order_acquire) >= at_least)
		return 0;
	t0 = thread_cpu_ns();
	while (atomic_load_explicit(v, memory_order_acquire) < at_least) {
		if (++spins < 64)
			_mm_pause();
		else
			sched_yield();
	}
	return thread_cpu_ns() - t0;
}

/* Recheck every chunk the main thread has compressed, up to `limit`. */
static void catch_up(struct pipe *p, size_t *done, size_t limit)
{
	size_t avail = atomic_load_explicit(&p->compressed, memory_order_acquire);
	if (avail > limit)
		avail = limit;
	for (; *done < avail; (*done)++) {
		size_t slot = *done % RING;
		recheck_chunk(&p->batch, p->data + 1024 * *done, 16, p->masks[slot],
			      p->ihv[slot], &p->flagged);
		atomic_store_explicit(&p->rechecked, *done + 1, memory_order_release);
	}
}

static void *helper(void *arg)
{
	struct pipe *p = arg;
	struct ubc_work *w = p->work;
	size_t c, done = 0;
	uint64_t t0 = thread_cpu_ns(), waited = 0;

	for (c = 0; c < p->nchunks; c++) {
		/* Slot c % RING is free once chunk c - RING is rechecked. */
		if (c >= RING) {
			catch_up(p, &done, c);
			if (done < c + 1 - RING) {
				waited += wait_until(&p->compressed, c + 1 - RING);
				catch_up(p, &done, c);
			}
		}
		check16(w, p->data + 1024 * c, 16);
		memcpy(p->masks[c % RING], w->masks, sizeof(w->masks));
		catch_up(p, &done, c + 1);
	}
	waited += wait_until(&p->compressed, p->nchunks);
	catch_up(p, &done, p->nchunks);
	batch_run(&p->batch);
	p->found = p->batch.found;
	p->helper_ns = thread_cpu_ns() - t0 - waited;
	return NULL;
}

static _Atomic int threads_enabled = -1;

void fgit_sha1dc_set_threads(int on)
{
	atomic_store(&threads_enabled, on < 0 ? -1 : !!on);
}

static int use_threads(void)
{
	int on = atomic_load(&threads_enabled);
	if (on < 0) {
		const char *env = getenv("FGIT_SHA1DC_THREADS");
		on = env ? atoi(env) != 0 : sysconf(_SC_NPROCESSORS_ONLN) > 1;
		atomic_store(&threads_enabled, on);
	}
	return on;
}

/* Returns -1 if the helper could not be started (caller goes single-threaded). */
static int chunks_threaded(uint32_t h[5], const unsigned char *data, size_t nchunks,
			   uint64_t *flagged)
{
	struct pipe *p = calloc(1, sizeof(*p));
	pthread_t tid;
	size_t c;
	int found;
	uint64_t t0, waited = 0;

	if (!p)
		return -1;
	p->work = aligned_alloc(64, (sizeof(struct ubc_work) + 63) & ~(size_t)63);
	if (!p->work) {
		free(p);
		return -1;
	}
	p->data = data;
	p->nchunks = nchunks;
	if (pthread_create(&tid, NULL, helper, p)) {
		free(p->work);
		free(p);
		return -1;
	}
	t0 = thread_cpu_ns();
	for (c = 0; c < nchunks; c++) {
		if (c >= RING)
			waited += wait_until(&p->rechecked, c + 1 - RING);
		fgit_sha1_blocks_shani_ihv(h, data + 1024 * c, 16, p->ihv[c % RING]);
		atomic_store_explicit(&p->compressed, c + 1, memory_order_release);
	}
	fgit_sha1dc_count_pipeline(thread_cpu_ns() - t0 - waited, 0);
	pthread_join(tid, NULL);
	fgit_sha1dc_count_pipeline(0, p->helper_ns);
	found = p->found;
	*flagged += p->flagged;
	free(p->work);
	free(p);
	return found;
}

int fgit_sha1dc_fast_available(void)
{
	return fgit_sha1_have_shani();
}

int fgit_sha1dc_ubc_multi(uint32_t *masks, const unsigned char *data, unsigned cnt)
{
	struct ubc_work w;

	pthread_once(&check_once, choose_check);
	if (cnt < 1 || cnt > 16)
		return -1;
	check16(&w, data, cnt);
	memcpy(masks, w.masks, sizeof(w.masks));
	return 0;
}

/* Up to 16 blocks, check first (vector or scalar), then compress. */
static void tail_blocks(struct batch *bt, uint32_t h[5], const unsigned char *data,
			unsigned cnt, uint64_t *flagged)
{
	uint32_t masks[16], ihv[17][5], any = 0;
	unsigned b;

	if (check_kind != CHECK_SCALAR && cnt > 1) {
		struct ubc_work w;
		check16(&w, data, cnt);
		memcpy(masks, w.masks, sizeof(masks));
	} else {
		for (b = 0; b < cnt; b++) {
			uint32_t W[80];
			fgit_sha1dc_expand(W, data + 64 * b);
			masks[b] = fgit_sha1dc_ubc(W);
		}
	}
	for (b = 0; b < cnt; b++)
		any |= masks[b];
	if (!any) {
		fgit_sha1_blocks_shani(h, data, cnt);
		return;
	}
	fgit_sha1_blocks_shani_ihv(h, data, cnt, ihv);
	recheck_chunk(bt, data, cnt, masks, ihv, flagged);
}

/*
 * Below this a helper thread costs more to start (tens of microseconds)
 * than it saves.  NEEDSWORK: measure the break-even; 4 MiB is a guess that
 * keeps thread creation under 2% of the hashing time.
 */
#define THREAD_MIN_BLOCKS (4u << 20) / 64

int fgit_sha1dc_blocks_fast(uint32_t h[5], const unsigned char *data, size_t nblocks)
{
	uint64_t flagged = 0, total = nblocks;
	struct batch bt;
	int found = 0;

	bt.n = 0;
	bt.found = 0;
	pthread_once(&check_once, choose_check);
	if (check_kind != CHECK_SCALAR && nblocks >= THREAD_MIN_BLOCKS && use_threads()) {
		size_t nchunks = nblocks / 16;
		int ret = chunks_threaded(h, data, nchunks, &flagged);
		if (ret >= 0) {
			found |= ret;
			data += 1024 * nchunks;
			nblocks -= 16 * nchunks;
		}
	}
	while (nblocks) {
		unsigned cnt = nblocks < 16 ? (unsigned)nblocks : 16;
		tail_blocks(&bt, h, data, cnt, &flagged);
		data += 64 * (size_t)cnt;
		nblocks -= cnt;
	}
	batch_run(&bt);
	fgit_sha1dc_count(total, flagged, 0, 0);
	return found | bt.found;
}
#else
void fgit_sha1dc_set_threads(int on)
{
}

int fgit_sha1dc_fast_available(void)
{
	return 0;
}

int fgit_sha1dc_ubc_multi(uint32_t *masks, const unsigned char *data, unsigned cnt)
{
	return -1;
}

int fgit_sha1dc_force_check(const char *name)
{
	return -1;
}

/*
 * Below this a helper thread costs more to start (tens of microseconds)
 * than it saves.  NEEDSWORK: measure the break-even; 4 MiB is a guess that
 * keeps thread creation under 2% of the hashing time.
 */
#define THREAD_MIN_BLOCKS (4u << 20) / 64

int fgit_sha1dc_blocks_fast(uint32_t h[5], const unsigned char *data, size_t nblocks)
{
	return fgit_sha1dc_blocks_portable(h, data, nblocks);
}
#endif
