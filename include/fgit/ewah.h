/*
 * git's EWAH-compressed bitmaps, as the split index, the untracked cache
 * and pack reachability bitmaps (.bitmap) store them: a 32-bit bit count,
 * a 32-bit word count, that many big-endian 64-bit words, and the 32-bit
 * position of the last run-length word.  A run-length word holds a run bit
 * (bit 0), a run length in words (bits 1-32) and the number of literal
 * words that follow it (bits 33-63).
 *
 * One implementation for every reader and writer in fgit.  Pure functions
 * over caller memory: thread-safe.
 */
#ifndef FGIT_EWAH_H
#define FGIT_EWAH_H

#include <stddef.h>
#include <stdint.h>

struct fgit_buf;

struct fgit_ewah {
	uint32_t bit_size;
	uint32_t nwords;
	const unsigned char *words;	/* big-endian 64-bit words, borrowed */
};

/* Parse the bitmap at p (len bytes available); returns the bytes it
 * takes, or -1 when malformed or truncated. */
long fgit_ewah_parse(struct fgit_ewah *out, const unsigned char *p, size_t len);

/*
 * Call fn(pos, payload) for every set bit in increasing order; stops and
 * returns fn's value when it is non-zero; -1 when the words are malformed.
 */
int fgit_ewah_each_bit(const struct fgit_ewah *e, int (*fn)(size_t pos, void *payload),
		       void *payload);

/*
 * Decode into nwords plain words (bit n is bit n % 64 of word n / 64);
 * bits past nwords * 64 are dropped.  -1 when the words are malformed.
 */
int fgit_ewah_decode(uint64_t *out, size_t nwords, const struct fgit_ewah *e);

/*
 * Append the EWAH serialisation of nwords plain words (runs of all-zero
 * and all-one words compressed, git's canonical form) with the given bit
 * count.  0, or FGIT_ENOMEM.
 */
int fgit_ewah_write(struct fgit_buf *out, const uint64_t *words, size_t nwords,
		    uint32_t bit_size);

/* The number of 64-bit words (run-length and literal) fgit_ewah_write
 * would store for these words: the cost of a bitmap, to compare. */
size_t fgit_ewah_cost(const uint64_t *words, size_t nwords);

#endif
