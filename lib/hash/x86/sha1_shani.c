/*
 * SHA-1 block compression with the x86 SHA extensions (SHA-NI).
 *
 * The state lives in two registers: ABCD (A in the top lane) and E (in the
 * top lane of its own register).  sha1rnds4 does four rounds; sha1nexte
 * derives the next E from the A of four rounds back and adds the next four
 * message words; sha1msg1/sha1msg2 compute the message expansion four words
 * at a time.  Only compiled for x86-64; the caller checks CPUID first.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "hash/sha1.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TARGET __attribute__((target("sha,sse4.1,ssse3")))

/*
 * Four rounds of group g (0..19): m[g % 4] holds W[4g..4g+3] once
 * expanded.  e is the E-plus-message input, prev the ABCD before the group.
 */
#define EXPAND(g) \
	m[(g) & 3] = _mm_sha1msg2_epu32(_mm_xor_si128( \
		_mm_sha1msg1_epu32(m[(g) & 3], m[((g) + 1) & 3]), \
		m[((g) + 2) & 3]), m[((g) + 3) & 3])
#define ROUNDS(g) do { \
	e = _mm_sha1nexte_epu32(prev, m[(g) & 3]); \
	prev = abcd; \
	abcd = _mm_sha1rnds4_epu32(abcd, e, (g) / 5); \
} while (0)
#define ROUNDS_X(g) do { EXPAND(g); ROUNDS(g); } while (0)

TARGET
void fgit_sha1_blocks_shani(uint32_t h[5], const unsigned char *data, size_t nblocks)
{
	const __m128i bswap = _mm_set_epi64x(0x0001020304050607ULL,
					     0x08090a0b0c0d0e0fULL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0x1b);
	__m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);

	while (nblocks--) {
		__m128i abcd_in = abcd, e0_in = e0, prev, e, m[4];

		m[0] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)data), bswap);
		m[1] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), bswap);
		m[2] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), bswap);
		m[3] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), bswap);

		e = _mm_add_epi32(e0, m[0]);
		prev = abcd;
		abcd = _mm_sha1rnds4_epu32(abcd, e, 0);
		ROUNDS(1); ROUNDS(2); ROUNDS(3);
		ROUNDS_X(4); ROUNDS_X(5); ROUNDS_X(6); ROUNDS_X(7);
		ROUNDS_X(8); ROUNDS_X(9); ROUNDS_X(10); ROUNDS_X(11);
		ROUNDS_X(12); ROUNDS_X(13); ROUNDS_X(14); ROUNDS_X(15);
		ROUNDS_X(16); ROUNDS_X(17); ROUNDS_X(18); ROUNDS_X(19);

		e0 = _mm_sha1nexte_epu32(prev, e0_in);
		abcd = _mm_add_epi32(abcd, abcd_in);
		data += 64;
	}
	_mm_storeu_si128((__m128i *)h, _mm_shuffle_epi32(abcd, 0x1b));
	h[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}

TARGET
void fgit_sha1_blocks_shani_ihv(uint32_t h[5], const unsigned char *data, size_t nblocks,
				uint32_t (*ihv)[5])
{
	const __m128i bswap = _mm_set_epi64x(0x0001020304050607ULL,
					     0x08090a0b0c0d0e0fULL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0x1b);
	__m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);

	while (nblocks--) {
		__m128i abcd_in = abcd, e0_in = e0, prev, e, m[4];

		_mm_storeu_si128((__m128i *)ihv[0], _mm_shuffle_epi32(abcd, 0x1b));
		ihv[0][4] = (uint32_t)_mm_extract_epi32(e0, 3);
		ihv++;
		m[0] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)data), bswap);
		m[1] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), bswap);
		m[2] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), bswap);
		m[3] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), bswap);

		e = _mm_add_epi32(e0, m[0]);
		prev = abcd;
		abcd = _mm_sha1rnds4_epu32(abcd, e, 0);
		ROUNDS(1); ROUNDS(2); ROUNDS(3);
		ROUNDS_X(4); ROUNDS_X(5); ROUNDS_X(6); ROUNDS_X(7);
		ROUNDS_X(8); ROUNDS_X(9); ROUNDS_X(10); ROUNDS_X(11);
		ROUNDS_X(12); ROUNDS_X(13); ROUNDS_X(14); ROUNDS_X(15);
		ROUNDS_X(16); ROUNDS_X(17); ROUNDS_X(18); ROUNDS_X(19);

		e0 = _mm_sha1nexte_epu32(prev, e0_in);
		abcd = _mm_add_epi32(abcd, abcd_in);
		data += 64;
	}
	_mm_storeu_si128((__m128i *)h, _mm_shuffle_epi32(abcd, 0x1b));
	h[4] = (uint32_t)_mm_extract_epi32(e0, 3);
	memcpy(ihv[0], h, 20);
}

/*
 * The states before steps 56, 60, 64 and 68 of one block: after 4k rounds
 * ABCD is the register and E is rol30 of the A four rounds earlier, the
 * top lane of `prev`.
 */
#define SAVE(k) do { \
	_mm_storeu_si128((__m128i *)states[k], _mm_shuffle_epi32(abcd, 0x1b)); \
	a4 = (uint32_t)_mm_extract_epi32(prev, 3); \
	states[k][4] = (a4 << 30) | (a4 >> 2); \
} while (0)

TARGET
void fgit_sha1_shani_states(const uint32_t h[5], const unsigned char *data,
			    uint32_t states[4][5])
{
	const __m128i bswap = _mm_set_epi64x(0x0001020304050607ULL,
					     0x08090a0b0c0d0e0fULL);
	__m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0x1b);
	__m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);
	__m128i prev, e, m[4];
	uint32_t a4;

	m[0] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)data), bswap);
	m[1] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16)), bswap);
	m[2] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 32)), bswap);
	m[3] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 48)), bswap);
	e = _mm_add_epi32(e0, m[0]);
	prev = abcd;
	abcd = _mm_sha1rnds4_epu32(abcd, e, 0);
	ROUNDS(1); ROUNDS(2); ROUNDS(3);
	ROUNDS_X(4); ROUNDS_X(5); ROUNDS_X(6); ROUNDS_X(7);
	ROUNDS_X(8); ROUNDS_X(9); ROUNDS_X(10); ROUNDS_X(11);
	ROUNDS_X(12); ROUNDS_X(13);
	SAVE(0);
	ROUNDS_X(14);
	SAVE(1);
	ROUNDS_X(15);
	SAVE(2);
	ROUNDS_X(16);
	SAVE(3);
}

int fgit_sha1_have_shani(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1") &&
		__builtin_cpu_supports("ssse3");
}
#else
int fgit_sha1_have_shani(void)
{
	return 0;
}
#endif
