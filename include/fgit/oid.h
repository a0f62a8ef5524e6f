/*
 * Object ids.  The hash algorithm is a parameter everywhere (SHA-1 today;
 * SHA-256 repositories later), so an id carries its algorithm.
 */
#ifndef FGIT_OID_H
#define FGIT_OID_H

#include <stddef.h>
#include <string.h>

enum fgit_hash_algo {
	FGIT_HASH_UNKNOWN = 0,
	FGIT_HASH_SHA1 = 1,
	FGIT_HASH_SHA256 = 2,
};

#define FGIT_SHA1_RAWSZ 20
#define FGIT_SHA1_HEXSZ 40
#define FGIT_MAX_RAWSZ 32
#define FGIT_MAX_HEXSZ 64

struct fgit_oid {
	unsigned char hash[FGIT_MAX_RAWSZ];
	int algo;
};

/* Raw size of an id of the algorithm (20 or 32), 0 for unknown. */
size_t fgit_hash_rawsz(int algo);
static inline size_t fgit_hash_hexsz(int algo) { return 2 * fgit_hash_rawsz(algo); }

static inline int fgit_oid_cmp(const struct fgit_oid *a, const struct fgit_oid *b)
{
	return memcmp(a->hash, b->hash, FGIT_MAX_RAWSZ);
}
static inline int fgit_oid_equal(const struct fgit_oid *a, const struct fgit_oid *b)
{
	return !memcmp(a->hash, b->hash, FGIT_MAX_RAWSZ);
}
static inline void fgit_oid_from_raw(struct fgit_oid *out, const unsigned char *raw, int algo)
{
	size_t n = fgit_hash_rawsz(algo);
	memcpy(out->hash, raw, n);
	memset(out->hash + n, 0, FGIT_MAX_RAWSZ - n);
	out->algo = algo;
}
int fgit_oid_is_zero(const struct fgit_oid *oid);
void fgit_oid_zero(struct fgit_oid *out, int algo);

/*
 * Parse exactly hexsz(algo) hex digits (upper or lower case).  Returns 0, or
 * FGIT_EINVALID (no error message set: callers decide what to say).
 */
int fgit_oid_from_hex(struct fgit_oid *out, const char *hex, int algo);
/* Parse a hex prefix of n digits (1..hexsz) into out; rest zero-filled. */
int fgit_oid_from_hex_prefix(struct fgit_oid *out, const char *hex, size_t n, int algo);
/* Write hexsz+1 bytes (NUL-terminated) into out; returns out. */
char *fgit_oid_to_hex(char *out, const struct fgit_oid *oid);
/* Hex value of a digit, or -1. */
int fgit_hexval(int c);
/* Does oid start with the first n hex digits of prefix? */
int fgit_oid_match_prefix(const struct fgit_oid *oid, const struct fgit_oid *prefix, size_t n);

#endif
