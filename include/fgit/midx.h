/*
 * Reading a multi-pack-index (objects/pack/multi-pack-index, format in
 * git's gitformat-pack "multi-pack-index files"): one sorted table of every
 * object of many packs, naming for each the pack and offset git chose.
 *
 * The object database (fgit_odb) opens the repository's midx by itself and
 * looks objects up through it before the packs it does not cover, as git
 * does; this header is for commands that inspect or rewrite one
 * (multi-pack-index verify/write/expire).
 *
 * Opening validates the header, the chunk table (offsets in order and in
 * bounds, no duplicate ids), the required chunks and their sizes, the
 * fan-out's monotonicity and the pack names' order, so that every accessor
 * below is a plain bounds-safe load.  The trailing checksum is checked only
 * on request (fgit_midx_checksum_ok), as git checks it on verify and write.
 *
 * Thread safety: an open fgit_midx is immutable; any number of threads may
 * use it at once.
 */
#ifndef FGIT_MIDX_H
#define FGIT_MIDX_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"

struct fgit_midx;

/*
 * Map and validate the midx file at `path`.  FGIT_ENOTFOUND if it does not
 * exist; FGIT_EINVALID with git's wording ("multi-pack-index file %s is too
 * small", "multi-pack-index signature ...", "improper chunk offset(s) ...")
 * if it is malformed.  *out is owned by the caller (fgit_midx_free).
 */
int fgit_midx_open(struct fgit_midx **out, const char *path, int algo);
void fgit_midx_free(struct fgit_midx *m);

uint32_t fgit_midx_num_packs(const struct fgit_midx *m);
/* Name of pack i ("pack-<hash>.idx"), borrowed; names are sorted. */
const char *fgit_midx_pack_name(const struct fgit_midx *m, uint32_t i);
uint32_t fgit_midx_num_objects(const struct fgit_midx *m);
/* fan-out entry b (0..255): objects whose first byte is <= b. */
uint32_t fgit_midx_fanout(const struct fgit_midx *m, unsigned b);
/* Object id at position pos (< num_objects). */
void fgit_midx_oid_at(struct fgit_oid *out, const struct fgit_midx *m, uint32_t pos);
/* Pack number and offset of the object at pos; FGIT_EINVALID for a large
 * offset pointing outside the LOFF chunk or a pack number out of range. */
int fgit_midx_entry_at(uint32_t *pack, uint64_t *offset, const struct fgit_midx *m,
		       uint32_t pos);
/* 1 and *pos if oid is in the midx, else 0. */
int fgit_midx_find(uint32_t *pos, const struct fgit_midx *m, const struct fgit_oid *oid);
/* 1 if the trailing checksum matches the content (reads the whole file). */
int fgit_midx_checksum_ok(const struct fgit_midx *m);
/* The trailing checksum (rawsz bytes), borrowed. */
const unsigned char *fgit_midx_checksum(const struct fgit_midx *m);
/* Path the midx was opened from, borrowed. */
const char *fgit_midx_path(const struct fgit_midx *m);

#endif
