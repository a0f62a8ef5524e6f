/*
 * SHA-1 collision detection, portable C.
 *
 * Every practical SHA-1 collision attack (the identical-prefix SHAttered
 * attack of 2017, the chosen-prefix "Shambles" attack of 2020) builds its
 * colliding blocks on a disturbance vector (DV): a pattern of 6-step local
 * collisions laid over the 80 steps.  Counter-cryptanalysis (Stevens, CRYPTO
 * 2013) turns that into a detector: for a block and a DV with message
 * difference dm, take the state at a step testt where an attack following
 * the DV has no state difference, run the block with W ^ dm backwards to
 * step 0 and forwards to step 80, and compare.  If the other message's
 * chaining output equals ours, this block is one half of a collision (the
 * colliding block of the pair); random data reaches that with probability
 * 2^-160.
 *
 * Doing that for 32 DVs on every block costs 32 compressions.  Stevens and
 * Shumow (USENIX Security 2017) observed that an attack following a DV
 * must satisfy some conditions on message bits alone ("unavoidable bit
 * conditions"), so a cheap check over W rules out nearly every DV.  Ours are
 * derived by tools/gen-sha1dc-table.py: for each DV, the relations between
 * message bits implied by the additive step equations of steps 35..65, so
 * they read W[35..65] only.  The model (argued in the generator): the
 * messages differ by dm, each state word A[31..66] differs modularly by
 * +-2^b on the DV's bits, and bitwise in any signed-digit form of that
 * whose carry chains are at most 4 bits long (merges and cancellations
 * included: SHAttered's A[40] has +2^31 - 2^30 written as +2^30); F is
 * modelled exactly, every other bit is free.  Forms no step can absorb are
 * pruned by arc consistency across the steps (a carry has to be absorbed
 * by a later word, and the chain dies out), then relations are read off
 * each step and joined.  Every condition is implied by the model, for
 * either message of the pair; bounds 6 and 8 give the same number of
 * conditions per DV as 4.  tests/unit/hash/sha1dc_ubc.c builds pairs with
 * the real step function, without carries, with random ones and with carry
 * chains chosen per word (an attacker dodging the check), and checks every
 * pair passes; the same pairs violate the carry-free model's extra
 * conditions, so that test fails for a table that keeps a relation carries
 * break.  The 22 real attack blocks pass too.  A random block passes for
 * some DV with probability about 1/17; only then do we recompress.
 *
 * NEEDSWORK (model): chains longer than 4 bits (each costs the attacker
 * an extra bit condition past the message-modification steps, a factor
 * ~2) are covered only by bounds 6 and 8 agreeing and by the random-carry
 * test, not by the derivation.
 *
 * The result does not depend on the chaining state except through the
 * recompression, so a faster compression (SHA extensions, see
 * x86/sha1dc_fast.c) can run the same check and call fgit_sha1dc_recheck()
 * for flagged blocks only; both paths then agree bit for bit.
 */
/*
 * GCC's vectoriser turns the message expansion W[i] = rol(W[i-3] ^ ...)
 * into 8-byte loads that overlap the previous 8-byte store: every one
 * misses store forwarding (measured: 760 cycles per block for expansion
 * alone on the development Xeon, ~100 without).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif
#include <stdatomic.h>
#include <string.h>
#include "hash/sha1dc.h"

#define ROL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static inline uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void fgit_sha1dc_expand(uint32_t W[80], const unsigned char *block)
{
	int i;
	for (i = 0; i < 16; i++)
		W[i] = be32(block + 4 * i);
	for (; i < 80; i++)
		W[i] = ROL(W[i - 3] ^ W[i - 8] ^ W[i - 14] ^ W[i - 16], 1);
}

/* Straight-line code generated with the table: every condition, no branches. */
uint32_t fgit_sha1dc_ubc(const uint32_t W[80])
{
	uint32_t mask = 0;
#include "hash/sha1dc_ubc_scalar.inc"
	return mask;
}

#define F1(b, c, d) (((c ^ d) & b) ^ d)
#define F2(b, c, d) (b ^ c ^ d)
#define F3(b, c, d) ((b & c) | ((b | c) & d))

/*
 * Steps [from, to) forward on s = {a, b, c, d, e}: one loop per round so the
 * boolean function and constant are fixed inside each loop.
 */
#define FWD(F, k) do { \
	t = ROL(a, 5) + F(b, c, d) + e + k + W[i]; \
	e = d; d = c; c = ROL(b, 30); b = a; a = t; \
} while (0)
static void steps_forward(uint32_t s[5], const uint32_t W[80], int from, int to)
{
	uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], t;
	int i = from;
	for (; i < to && i < 20; i++)
		FWD(F1, 0x5a827999);
	for (; i < to && i < 40; i++)
		FWD(F2, 0x6ed9eba1);
	for (; i < to && i < 60; i++)
		FWD(F3, 0x8f1bbcdc);
	for (; i < to; i++)
		FWD(F2, 0xca62c1d6);
	s[0] = a; s[1] = b; s[2] = c; s[3] = d; s[4] = e;
}

/* Undo steps [to, from) on s, last step first. */
#define BWD(F, k) do { \
	t = b; b = ROL(c, 2); c = d; d = e; \
	e = a - ROL(t, 5) - F(b, c, d) - k - W[i]; \
	a = t; \
} while (0)
static void steps_backward(uint32_t s[5], const uint32_t W[80], int from, int to)
{
	uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], t;
	int i = from - 1;
	for (; i >= to && i >= 60; i--)
		BWD(F2, 0xca62c1d6);
	for (; i >= to && i >= 40; i--)
		BWD(F3, 0x8f1bbcdc);
	for (; i >= to && i >= 20; i--)
		BWD(F2, 0x6ed9eba1);
	for (; i >= to; i--)
		BWD(F1, 0x5a827999);
	s[0] = a; s[1] = b; s[2] = c; s[3] = d; s[4] = e;
}

/*
 * The chaining output the other message of a DV pair would have: W ^ dm
 * run backwards from the state before step testt to step 0 (the other
 * message's chaining input) and forwards to step 80.  The block is one half
 * of a collision when that equals our own output.
 */
static void other_ihv(uint32_t other[5], const struct fgit_sha1dc_dv *dv,
		      const uint32_t W[80], const uint32_t state[5])
{
	uint32_t W2[80], in[5];
	int i;

	for (i = 0; i < 80; i++)
		W2[i] = W[i] ^ dv->dm[i];
	memcpy(in, state, sizeof(in));
	steps_backward(in, W2, dv->testt, 0);
	memcpy(other, state, 5 * sizeof(*other));
	steps_forward(other, W2, dv->testt, 80);
	for (i = 0; i < 5; i++)
		other[i] += in[i];
}

static int recompress(const struct fgit_sha1dc_dv *dv, const uint32_t W[80],
		      const uint32_t state[5], const uint32_t ihv_out[5])
{
	uint32_t other[5];

	other_ihv(other, dv, W, state);
	return !memcmp(other, ihv_out, sizeof(other));
}

void fgit_sha1dc_other_ihv(uint32_t other[5], const struct fgit_sha1dc_job *job)
{
	const struct fgit_sha1dc_dv *dv = &fgit_sha1dc_dvs[job->dv];
	uint32_t W[80], state[5];

	fgit_sha1dc_expand(W, job->block);
	memcpy(state, job->in, sizeof(state));
	steps_forward(state, W, 0, dv->testt);
	other_ihv(other, dv, W, state);
}

int fgit_sha1dc_recheck(const uint32_t W[80], const uint32_t ihv_in[5],
			const uint32_t ihv_out[5], uint32_t mask,
			const uint32_t states[FGIT_SHA1DC_NSTATES][5])
{
	uint32_t own[FGIT_SHA1DC_NSTATES][5];
	uint64_t n = 0;
	int found = 0;

	if (!mask)
		return 0;
	if (!states) {
		int k;
		memcpy(own[0], ihv_in, sizeof(own[0]));
		steps_forward(own[0], W, 0, FGIT_SHA1DC_FIRST_TESTT);
		for (k = 1; k < FGIT_SHA1DC_NSTATES; k++) {
			memcpy(own[k], own[k - 1], sizeof(own[k]));
			steps_forward(own[k], W, FGIT_SHA1DC_FIRST_TESTT + 4 * (k - 1),
				      FGIT_SHA1DC_FIRST_TESTT + 4 * k);
		}
		states = (const uint32_t (*)[5])own;
	}
	while (mask) {
		int dv = __builtin_ctz(mask);
		const struct fgit_sha1dc_dv *d = &fgit_sha1dc_dvs[dv];
		mask &= mask - 1;
		n++;
		if (recompress(d, W, states[(d->testt - FGIT_SHA1DC_FIRST_TESTT) / 4], ihv_out)) {
			found = 1;
			break;
		}
	}
	fgit_sha1dc_count(0, 0, n, found);
	return found;
}

int fgit_sha1dc_blocks_portable(uint32_t h[5], const unsigned char *data, size_t nblocks)
{
	uint64_t flagged = 0, count = nblocks;
	int found = 0;

	while (nblocks--) {
		uint32_t W[80], states[FGIT_SHA1DC_NSTATES][5], in[5], s[5], mask;
		int i, k;

		fgit_sha1dc_expand(W, data);
		memcpy(in, h, sizeof(in));
		memcpy(s, h, sizeof(s));
		steps_forward(s, W, 0, FGIT_SHA1DC_FIRST_TESTT);
		for (k = 0; k < FGIT_SHA1DC_NSTATES; k++) {
			memcpy(states[k], s, sizeof(s));
			steps_forward(s, W, FGIT_SHA1DC_FIRST_TESTT + 4 * k,
				      k + 1 < FGIT_SHA1DC_NSTATES
				      ? FGIT_SHA1DC_FIRST_TESTT + 4 * (k + 1) : 80);
		}
		for (i = 0; i < 5; i++)
			h[i] += s[i];
		mask = fgit_sha1dc_ubc(W);
		if (mask) {
			flagged++;
			found |= fgit_sha1dc_recheck(W, in, h, mask,
						     (const uint32_t (*)[5])states);
		}
		data += 64;
	}
	fgit_sha1dc_count(count, flagged, 0, 0);
	return found;
}

static _Atomic uint64_t st_blocks, st_flagged, st_recomp, st_detected, st_main, st_helper;

void fgit_sha1dc_count_pipeline(uint64_t main_ns, uint64_t helper_ns)
{
	atomic_fetch_add_explicit(&st_main, main_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&st_helper, helper_ns, memory_order_relaxed);
}

void fgit_sha1dc_count(uint64_t blocks, uint64_t flagged, uint64_t recompressions,
		       uint64_t detected)
{
	if (blocks)
		atomic_fetch_add_explicit(&st_blocks, blocks, memory_order_relaxed);
	if (flagged)
		atomic_fetch_add_explicit(&st_flagged, flagged, memory_order_relaxed);
	if (recompressions)
		atomic_fetch_add_explicit(&st_recomp, recompressions, memory_order_relaxed);
	if (detected)
		atomic_fetch_add_explicit(&st_detected, detected, memory_order_relaxed);
}

void fgit_sha1dc_stats(struct fgit_sha1dc_stats *out)
{
	out->blocks = atomic_load_explicit(&st_blocks, memory_order_relaxed);
	out->flagged = atomic_load_explicit(&st_flagged, memory_order_relaxed);
	out->recompressions = atomic_load_explicit(&st_recomp, memory_order_relaxed);
	out->detected = atomic_load_explicit(&st_detected, memory_order_relaxed);
	out->pipeline_main_ns = atomic_load_explicit(&st_main, memory_order_relaxed);
	out->pipeline_helper_ns = atomic_load_explicit(&st_helper, memory_order_relaxed);
}

void fgit_sha1dc_stats_reset(void)
{
	atomic_store(&st_blocks, 0);
	atomic_store(&st_flagged, 0);
	atomic_store(&st_recomp, 0);
	atomic_store(&st_detected, 0);
	atomic_store(&st_main, 0);
	atomic_store(&st_helper, 0);
}
