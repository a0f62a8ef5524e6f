/*
 * Recompression of flagged blocks, sixteen at a time (AVX-512).
 *
 * When the unavoidable-bit-condition check flags a block for a DV, the
 * detector must run the block with the DV's message difference backwards
 * from the state before step testt to step 0 and forwards to step 80
 * (sha1dc.c).  Done in scalar code that costs ~490 TSC ticks per flagged
 * block on the development Xeon (SHA-NI for the saved states, 80 scalar
 * steps backwards and forwards), and with 3.6% of random blocks flagged it
 * was ~18 ticks per block of the whole stream: a fifth of the SHA-NI time.
 *
 * Here each (block, DV) job is one 32-bit lane: the lanes run the same
 * steps in lock step, each with its own message, difference and chaining
 * value.  Lanes whose DVs start at different steps (testt is 56, 60, 64 or
 * 68) are merged by loading a lane's start state when the loop passes its
 * testt; until then the lane computes garbage that is overwritten.  So a
 * batch always runs 68 steps forward (to the states), 68 back and 24
 * forward: ~160 vector steps for up to 16 jobs.
 */
#include <pthread.h>
#include <string.h>
#include "hash/sha1dc.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw")))

/* dm of every DV by step: dmt[i][dv], so one permute picks each lane's word. */
static uint32_t dmt[80][FGIT_SHA1DC_NDV] __attribute__((aligned(64)));
static pthread_once_t dmt_once = PTHREAD_ONCE_INIT;
static int have_avx512;

static void init_dmt(void)
{
	unsigned i, n;

	__builtin_cpu_init();
	have_avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
	for (i = 0; i < 80; i++)
		for (n = 0; n < FGIT_SHA1DC_NDV; n++)
			dmt[i][n] = fgit_sha1dc_dvs[n].dm[i];
}

#define ROL(x, n) _mm512_rol_epi32(x, n)
#define ADD(x, y) _mm512_add_epi32(x, y)
#define SUB(x, y) _mm512_sub_epi32(x, y)
/* Ternary-logic immediates: b ? c : d, parity, majority. */
#define F_IF 0xca
#define F_XOR 0x96
#define F_MAJ 0xe8

struct lanes {
	__m512i a, b, c, d, e;
};

/* Round constants and boolean functions by step. */
static const uint32_t round_k[4] = { 0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6 };

#define FWD(s, F, wk) do { \
	__m512i t_ = ADD(ADD(ROL((s).a, 5), _mm512_ternarylogic_epi32((s).b, (s).c, (s).d, F)), \
			 ADD((s).e, wk)); \
	(s).e = (s).d; (s).d = (s).c; (s).c = ROL((s).b, 30); (s).b = (s).a; (s).a = t_; \
} while (0)

#define BWD(s, F, wk) do { \
	__m512i a_ = (s).b, b_ = ROL((s).c, 2), c_ = (s).d, d_ = (s).e; \
	(s).e = SUB(SUB((s).a, ROL(a_, 5)), \
		    ADD(_mm512_ternarylogic_epi32(b_, c_, d_, F), wk)); \
	(s).a = a_; (s).b = b_; (s).c = c_; (s).d = d_; \
} while (0)

AVX512
static inline void blend(struct lanes *s, __mmask16 k, const struct lanes *from)
{
	s->a = _mm512_mask_mov_epi32(s->a, k, from->a);
	s->b = _mm512_mask_mov_epi32(s->b, k, from->b);
	s->c = _mm512_mask_mov_epi32(s->c, k, from->c);
	s->d = _mm512_mask_mov_epi32(s->d, k, from->d);
	s->e = _mm512_mask_mov_epi32(s->e, k, from->e);
}

/* Lanes whose testt is step i (0 when i is not a multiple of 4 in 56..68). */
AVX512
static inline __mmask16 starts_at(__m512i testt, unsigned i)
{
	if (i < FGIT_SHA1DC_FIRST_TESTT || i % 4 ||
	    i >= FGIT_SHA1DC_FIRST_TESTT + 4 * FGIT_SHA1DC_NSTATES)
		return 0;
	return _mm512_cmpeq_epi32_mask(testt, _mm512_set1_epi32((int)i));
}

AVX512
static void run16(uint32_t other[][5], const struct fgit_sha1dc_job *jobs, unsigned cnt)
{
	uint32_t m[16][16] __attribute__((aligned(64))), tt[16] __attribute__((aligned(64)));
	uint32_t dvs[16] __attribute__((aligned(64))), in[5][16] __attribute__((aligned(64)));
	__m512i wk1[80], wk2[80], dvidx, testt;
	struct lanes s, start;
	unsigned i, l;

	memset(in, 0, sizeof(in));
	for (l = 0; l < 16; l++) {
		const struct fgit_sha1dc_job *j = &jobs[l < cnt ? l : 0];
		_mm512_store_si512(m[l], _mm512_loadu_si512(j->block));
		for (i = 0; i < 5; i++)
			in[i][l] = j->in[i];
		dvs[l] = j->dv;
		tt[l] = fgit_sha1dc_dvs[j->dv].testt;
	}
	dvidx = _mm512_load_si512(dvs);
	testt = _mm512_load_si512(tt);

	/* Message expansion; W + K with and without the DV's difference. */
	{
		__m512i W[80];
		const __m512i rows = _mm512_set_epi32(240, 224, 208, 192, 176, 160, 144, 128,
						      112, 96, 80, 64, 48, 32, 16, 0);
		const __m512i bswap = _mm512_set4_epi32(0x0c0d0e0f, 0x08090a0b,
							0x04050607, 0x00010203);
		/* m holds the blocks as rows; gather columns, big-endian words. */
		for (i = 0; i < 16; i++)
			W[i] = _mm512_shuffle_epi8(_mm512_i32gather_epi32(
				_mm512_add_epi32(rows, _mm512_set1_epi32((int)i)), m, 4), bswap);
		_Pragma("GCC unroll 80")
		for (; i < 80; i++)
			W[i] = ROL(_mm512_ternarylogic_epi32(W[i - 3], W[i - 8],
				_mm512_xor_si512(W[i - 14], W[i - 16]), F_XOR), 1);
		_Pragma("GCC unroll 80")
		for (i = 0; i < 80; i++) {
			__m512i k = _mm512_set1_epi32((int)round_k[i / 20]);
			__m512i dm = _mm512_permutex2var_epi32(_mm512_load_si512(dmt[i]), dvidx,
							       _mm512_load_si512(dmt[i] + 16));
			wk1[i] = ADD(W[i], k);
			wk2[i] = ADD(_mm512_xor_si512(W[i], dm), k);
		}
	}

	/* Forward from the chaining input, keeping each lane's state at testt. */
	s.a = _mm512_load_si512(in[0]);
	s.b = _mm512_load_si512(in[1]);
	s.c = _mm512_load_si512(in[2]);
	s.d = _mm512_load_si512(in[3]);
	s.e = _mm512_load_si512(in[4]);
	start = s;
	_Pragma("GCC unroll 80")
	for (i = 0; i < 20; i++)
		FWD(s, F_IF, wk1[i]);
	_Pragma("GCC unroll 80")
	for (; i < 40; i++)
		FWD(s, F_XOR, wk1[i]);
	_Pragma("GCC unroll 80")
	for (; i < 60; i++) {
		blend(&start, starts_at(testt, i), &s);
		FWD(s, F_MAJ, wk1[i]);
	}
	_Pragma("GCC unroll 80")
	for (; i < FGIT_SHA1DC_FIRST_TESTT + 4 * FGIT_SHA1DC_NSTATES; i++) {
		blend(&start, starts_at(testt, i), &s);
		FWD(s, F_XOR, wk1[i]);
	}
	blend(&start, starts_at(testt, i), &s);

	/* Backwards with the difference: the other message's chaining input. */
	s = start;
	_Pragma("GCC unroll 80")
	for (i = FGIT_SHA1DC_FIRST_TESTT + 4 * FGIT_SHA1DC_NSTATES; i-- > 60;) {
		blend(&s, starts_at(testt, i + 1), &start);
		BWD(s, F_XOR, wk2[i]);
	}
	_Pragma("GCC unroll 80")
	for (i++; i-- > 40;) {
		blend(&s, starts_at(testt, i + 1), &start);
		BWD(s, F_MAJ, wk2[i]);
	}
	_Pragma("GCC unroll 80")
	for (i++; i-- > 20;)
		BWD(s, F_XOR, wk2[i]);
	_Pragma("GCC unroll 80")
	for (i++; i-- > 0;)
		BWD(s, F_IF, wk2[i]);
	{
		struct lanes back = s;

		/* Forwards with the difference to step 80. */
		s = start;
		_Pragma("GCC unroll 80")
		for (i = FGIT_SHA1DC_FIRST_TESTT; i < 60; i++) {
			blend(&s, starts_at(testt, i), &start);
			FWD(s, F_MAJ, wk2[i]);
		}
		_Pragma("GCC unroll 80")
		for (; i < 80; i++) {
			blend(&s, starts_at(testt, i), &start);
			FWD(s, F_XOR, wk2[i]);
		}
		_mm512_store_si512(in[0], ADD(s.a, back.a));
		_mm512_store_si512(in[1], ADD(s.b, back.b));
		_mm512_store_si512(in[2], ADD(s.c, back.c));
		_mm512_store_si512(in[3], ADD(s.d, back.d));
		_mm512_store_si512(in[4], ADD(s.e, back.e));
	}
	for (l = 0; l < cnt; l++)
		for (i = 0; i < 5; i++)
			other[l][i] = in[i][l];
}

int fgit_sha1dc_other_ihv16(uint32_t other[][5], const struct fgit_sha1dc_job *jobs,
			    unsigned cnt)
{
	pthread_once(&dmt_once, init_dmt);
	if (!have_avx512 || cnt < 1 || cnt > 16)
		return -1;
	run16(other, jobs, cnt);
	return 0;
}
#else
int fgit_sha1dc_other_ihv16(uint32_t other[][5], const struct fgit_sha1dc_job *jobs,
			    unsigned cnt)
{
	return -1;
}
#endif
