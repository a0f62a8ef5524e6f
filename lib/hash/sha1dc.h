/*
 * Internal: SHA-1 collision detection (counter-cryptanalysis).  See
 * sha1dc.c for how it works and tools/gen-sha1dc-table.py for where the
 * tables come from.
 */
#ifndef FGIT_LIB_HASH_SHA1DC_H
#define FGIT_LIB_HASH_SHA1DC_H
#include <stddef.h>
#include <stdint.h>
#include "hash/sha1dc_table.h"

#define FGIT_SHA1DC_NDV 32

/* A disturbance vector: I(k,b) (type 1) or II(k,b) (type 2). */
struct fgit_sha1dc_dv {
	uint8_t type, k, b;
	uint8_t testt;		/* recompress from the state before this step */
	uint32_t dm[80];	/* expanded message XOR difference */
};

/* T = W[i] ^ rol(W[j], r): one word the bit conditions read. */
struct fgit_sha1dc_group {
	uint8_t i, j, r;
};

/*
 * DV `dv` survives only if (T[group] & must0) == 0 and
 * (~T[group] & must1) == 0.  Sorted by group.
 */
struct fgit_sha1dc_cond {
	uint8_t group, dv;
	uint32_t must0, must1;
};

extern const struct fgit_sha1dc_dv fgit_sha1dc_dvs[FGIT_SHA1DC_NDV];
extern const struct fgit_sha1dc_group fgit_sha1dc_groups[FGIT_SHA1DC_NGROUPS];
extern const struct fgit_sha1dc_cond fgit_sha1dc_conds[FGIT_SHA1DC_NCONDS];

/* States are kept before steps 56, 60, 64 and 68 (every testt used). */
#define FGIT_SHA1DC_FIRST_TESTT 56
#define FGIT_SHA1DC_NSTATES 4

/* Expand a 64-byte block (big-endian words) into W[0..79]. */
void fgit_sha1dc_expand(uint32_t W[80], const unsigned char *block);

/* The unavoidable-bit-condition check: bit n set = DV n must be tested. */
uint32_t fgit_sha1dc_ubc(const uint32_t W[80]);

/*
 * Given a block (expanded W), its input and output chaining values and the
 * UBC mask, recompress for every DV in the mask.  states: the states before
 * steps 56, 60, 64, 68 of the block's compression, or NULL to recompute them
 * from ihv_in.  Returns 1 if the block is one half of a collision attack.
 */
int fgit_sha1dc_recheck(const uint32_t W[80], const uint32_t ihv_in[5],
			const uint32_t ihv_out[5], uint32_t mask,
			const uint32_t states[FGIT_SHA1DC_NSTATES][5]);

/*
 * One recompression: a 64-byte block, its input and output chaining values
 * and one DV the check flagged it for.
 */
struct fgit_sha1dc_job {
	const unsigned char *block;
	uint32_t in[5], out[5];
	unsigned dv;
};

/*
 * The chaining output of the other message of the DV pair (the block is
 * half of a collision iff it equals job->out).  Portable C, one job.
 */
void fgit_sha1dc_other_ihv(uint32_t other[5], const struct fgit_sha1dc_job *job);

/*
 * The same for cnt (1..16) jobs at once, one per AVX-512 lane (x86 with
 * AVX-512 only; returns -1 elsewhere, 0 on success).
 */
int fgit_sha1dc_other_ihv16(uint32_t other[][5], const struct fgit_sha1dc_job *jobs,
			    unsigned cnt);

/*
 * Detecting block functions: compress nblocks into h, return 1 if any
 * block was detected as part of a collision attack (h is the plain SHA-1
 * chaining value either way).
 */
typedef int (*fgit_sha1dc_blocks_fn)(uint32_t h[5], const unsigned char *data,
				     size_t nblocks);
int fgit_sha1dc_blocks_portable(uint32_t h[5], const unsigned char *data, size_t nblocks);
/* SHA extensions + vectorised check; only when fgit_sha1dc_fast_available(). */
int fgit_sha1dc_blocks_fast(uint32_t h[5], const unsigned char *data, size_t nblocks);
int fgit_sha1dc_fast_available(void);
/*
 * Let the fast path use a helper thread for big inputs (>= 4 MiB in one
 * call): 1 on, 0 off, -1 back to the default.  Default: on when the machine has more than one CPU,
 * unless FGIT_SHA1DC_THREADS=0 in the environment.
 */
void fgit_sha1dc_set_threads(int on);
/*
 * The fast path's UBC check alone, for tests: masks of cnt (1..16) blocks
 * into masks[0..15] (lanes >= cnt come out 0), with the check chosen for
 * this CPU or forced by fgit_sha1dc_force_check().  -1 without SHA-NI/x86.
 */
int fgit_sha1dc_ubc_multi(uint32_t *masks, const unsigned char *data, unsigned cnt);
/*
 * Tests only: make the fast path use the "avx512", "avx2" or "scalar"
 * check, or the "best" this CPU has (FGIT_SHA1DC_CHECK in the environment
 * does the same at startup).  -1 if the CPU lacks it.
 */
int fgit_sha1dc_force_check(const char *name);

/* The detecting block function chosen with the plain one (see sha1.h). */
fgit_sha1dc_blocks_fn fgit_sha1dc_blocks(void);

/* Counters since start (or the last reset), for benchmarks and tests. */
struct fgit_sha1dc_stats {
	uint64_t blocks;	/* blocks run through the UBC check */
	uint64_t flagged;	/* blocks with a non-empty UBC mask */
	uint64_t recompressions;	/* DV recompressions done */
	uint64_t detected;	/* blocks detected as collision blocks */
	/*
	 * Two-thread pipeline: CPU time of the SHA-NI thread and of the
	 * checking helper, waits excluded.  With a free core each, the
	 * pipeline's wall time is about the larger of the two.
	 */
	uint64_t pipeline_main_ns, pipeline_helper_ns;
};
void fgit_sha1dc_stats(struct fgit_sha1dc_stats *out);
void fgit_sha1dc_stats_reset(void);
void fgit_sha1dc_count_pipeline(uint64_t main_ns, uint64_t helper_ns);
void fgit_sha1dc_count(uint64_t blocks, uint64_t flagged, uint64_t recompressions,
		       uint64_t detected);

#endif
