/*
 * The literal search's vector loop with AVX2 (see grep_scan_avx2 in
 * grep_internal.h and lib/grep/search.c): 64 candidate positions per
 * iteration, two anchor bytes each in up to two cases.  Picked at run
 * time by grep_have_avx2(); search.c's SSE2 loop serves other CPUs.
 */
#include "grep/grep_internal.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,bmi")))

int grep_have_avx2(void)
{
	static int have = -1;
	if (have < 0)
		have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi");
	return have;
}

static inline int full_match(const char *at, const char *needle, size_t nlen, int icase)
{
	return icase ? grep_eq_icase(at, needle, nlen) : !memcmp(at, needle, nlen);
}

AVX2 static inline unsigned long long candidates(const char *p, size_t a, size_t b,
						  __m256i lo, __m256i up, __m256i lo2, __m256i up2)
{
	__m256i v = _mm256_loadu_si256((const __m256i *)(p + a));
	__m256i w = _mm256_loadu_si256((const __m256i *)(p + b));
	__m256i m1 = _mm256_or_si256(_mm256_cmpeq_epi8(v, lo), _mm256_cmpeq_epi8(v, up));
	__m256i m2 = _mm256_or_si256(_mm256_cmpeq_epi8(w, lo2), _mm256_cmpeq_epi8(w, up2));
	return (unsigned)_mm256_movemask_epi8(_mm256_and_si256(m1, m2));
}

AVX2 const char *grep_scan_avx2(const char *hay, size_t last, const char *needle,
				size_t nlen, size_t a, size_t b,
				const unsigned char anchor[4], int icase, size_t *next)
{
	__m256i lo = _mm256_set1_epi8((char)anchor[0]), up = _mm256_set1_epi8((char)anchor[1]);
	__m256i lo2 = _mm256_set1_epi8((char)anchor[2]), up2 = _mm256_set1_epi8((char)anchor[3]);
	size_t pos = 0;

	while (pos + 32 <= last + 1) {
		unsigned long long m = candidates(hay + pos, a, b, lo, up, lo2, up2);
		size_t step = 32;
		if (pos + 64 <= last + 1) {
			m |= candidates(hay + pos + 32, a, b, lo, up, lo2, up2) << 32;
			step = 64;
		}
		while (m) {
			size_t s = pos + (size_t)__builtin_ctzll(m);
			if (full_match(hay + s, needle, nlen, icase))
				return hay + s;
			m &= m - 1;
		}
		pos += step;
	}
	*next = pos;
	return NULL;
}
#else
int grep_have_avx2(void)
{
	return 0;
}

const char *grep_scan_avx2(const char *hay, size_t last, const char *needle,
			   size_t nlen, size_t a, size_t b,
			   const unsigned char anchor[4], int icase, size_t *next)
{
	*next = 0;
	return NULL;
}
#endif
