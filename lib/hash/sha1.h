/*
 * Internal SHA-1 block functions and the run-time selector.  hash.c picks
 * one implementation at first use (SHA extensions when CPUID reports them,
 * portable C otherwise); FGIT_SHA1_IMPL=portable|shani in the environment
 * forces one, for tests and benchmarks.
 */
#ifndef FGIT_LIB_HASH_SHA1_H
#define FGIT_LIB_HASH_SHA1_H
#include <stddef.h>
#include <stdint.h>

typedef void (*fgit_sha1_blocks_fn)(uint32_t h[5], const unsigned char *data, size_t nblocks);

/* Compress nblocks 64-byte blocks into h.  Portable C; always available. */
void fgit_sha1_blocks_portable(uint32_t h[5], const unsigned char *data, size_t nblocks);

/* 1 when this CPU has the SHA extensions (and SSSE3/SSE4.1). */
int fgit_sha1_have_shani(void);
#if defined(__x86_64__) || defined(__i386__)
/* The same with SHA-NI; call only when fgit_sha1_have_shani(). */
void fgit_sha1_blocks_shani(uint32_t h[5], const unsigned char *data, size_t nblocks);
/* The same, storing the chaining value before each block in ihv[0..n-1]
 * and the final one in ihv[n] (for the collision detector's recheck). */
void fgit_sha1_blocks_shani_ihv(uint32_t h[5], const unsigned char *data, size_t nblocks,
				uint32_t (*ihv)[5]);
/* States {a,b,c,d,e} before steps 56, 60, 64, 68 of block data from h. */
void fgit_sha1_shani_states(const uint32_t h[5], const unsigned char *data,
			    uint32_t states[4][5]);
#endif

enum fgit_sha1_impl {
	FGIT_SHA1_PORTABLE = 0,
	FGIT_SHA1_SHANI = 1,
};

/*
 * The implementation in use, chosen once (thread-safe) on first call:
 * FGIT_SHA1_IMPL if set and usable, else the fastest the CPU supports.
 */
enum fgit_sha1_impl fgit_sha1_impl(void);
/* Its plain block function. */
fgit_sha1_blocks_fn fgit_sha1_blocks(void);
/*
 * Tests only: switch the implementation in use (after the first choice).
 * Returns -1 when impl is not available on this CPU.  Not thread-safe
 * against concurrent hashing.
 */
int fgit_sha1_impl_force(enum fgit_sha1_impl impl);
/* "portable" or "shani". */
const char *fgit_sha1_impl_name(enum fgit_sha1_impl impl);

#endif
