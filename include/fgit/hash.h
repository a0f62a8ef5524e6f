/*
 * Hashing.  Two entry points, on purpose:
 *
 *  - object names (fgit_objname_*, fgit_hash_object): SHA-1 WITH collision
 *    detection, always.  Every id fgit computes from content goes through
 *    here, so detection switches on everywhere at once.  A detected attack
 *    makes the final call return FGIT_ECOLLISION.
 *  - checksums (fgit_checksum_*): plain SHA-1 for the trailers of packs, .idx
 *    and index files, which name nothing.
 *
 * The implementation is picked once at first use (SHA extensions where the
 * CPU has them, portable C otherwise; FGIT_SHA1_IMPL=portable|shani forces
 * one).  Contexts are plain values owned by the caller; all functions are
 * thread-safe.
 *
 * Detection (lib/hash/sha1dc.c) is counter-cryptanalysis as in git's
 * sha1dc: the digest is always the plain SHA-1; a block that is half of a
 * known-style collision attack makes fgit_objname_final() return
 * FGIT_ECOLLISION with git's message.  Speed: with SHA-NI and AVX-512 about
 * 0.55 of plain SHA-NI on one core; one fgit_objname_update() of 4 MiB or
 * more also uses a helper thread (measured 0.88 of plain on a quiet
 * two-core machine; see bench/RESULTS-hash.md;
 * FGIT_SHA1DC_THREADS=0 turns it off), so hash big inputs in big pieces.
 */
#ifndef FGIT_HASH_H
#define FGIT_HASH_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"
#include "object.h"

/* Caller-owned; fields are private (layout may grow). */
struct fgit_hash_ctx {
	int algo;
	unsigned int detect;		/* collision detection on */
	uint64_t total;			/* bytes hashed */
	uint32_t h[8];			/* chaining value */
	unsigned char block[1024];	/* pending bytes (16 blocks) */
	unsigned int used;		/* bytes in block */
	int collision;			/* set when an attack was detected */
};

/*
 * Object-name hashing (detecting).  fgit_objname_init() starts a raw
 * detecting hash (no object header): tests hash the published collision
 * files with it.
 */
void fgit_objname_init(struct fgit_hash_ctx *c, int algo);
/* Start an object name: hashes the "<type> <size>\0" header. */
void fgit_objname_init_header(struct fgit_hash_ctx *c, int algo,
			      enum fgit_object_type type, uint64_t size);
void fgit_objname_update(struct fgit_hash_ctx *c, const void *data, size_t len);
/*
 * Writes the digest to out and returns 0, or FGIT_ECOLLISION with the
 * message "SHA-1 appears to be part of a collision attack: <hex>" (git's
 * die() text; out still holds the digest).
 */
int fgit_objname_final(struct fgit_oid *out, struct fgit_hash_ctx *c);

/* Name of an object held in memory: hash of header + data. */
int fgit_hash_object(struct fgit_oid *out, int algo, enum fgit_object_type type,
		     const void *data, size_t len);

/* Checksums (plain, non-detecting). out receives rawsz(algo) bytes. */
void fgit_checksum_init(struct fgit_hash_ctx *c, int algo);
void fgit_checksum_update(struct fgit_hash_ctx *c, const void *data, size_t len);
void fgit_checksum_final(unsigned char *out, struct fgit_hash_ctx *c);

/* Format "<type> <size>" + NUL into hdr (>= 32 bytes); returns its length incl. NUL. */
int fgit_object_header(char *hdr, size_t hdrsz, enum fgit_object_type type, uint64_t size);

#endif
