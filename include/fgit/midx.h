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

struct fgit_odb;
struct fgit_refdb;

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
/* Number of the pack named "pack-X.idx", or -1. */
int fgit_midx_pack_index(const struct fgit_midx *m, const char *name);
uint32_t fgit_midx_num_objects(const struct fgit_midx *m);
/* fan-out entry b (0..255): objects whose first byte is <= b. */
uint32_t fgit_midx_fanout(const struct fgit_midx *m, unsigned b);
/* Object id at position pos (< num_objects). */
void fgit_midx_oid_at(struct fgit_oid *out, const struct fgit_midx *m, uint32_t pos);
/* The raw id at pos (rawsz bytes inside the mapping, borrowed). */
const unsigned char *fgit_midx_oid_raw(const struct fgit_midx *m, uint32_t pos);
/* Pack number and offset of the object at pos; FGIT_EINVALID for a large
 * offset pointing outside the LOFF chunk or a pack number out of range. */
int fgit_midx_entry_at(uint32_t *pack, uint64_t *offset, const struct fgit_midx *m,
		       uint32_t pos);
/* The RIDX chunk (the midx positions of its objects in pseudo-pack order:
 * preferred pack first, then by pack number and offset; 4 bytes each, big
 * endian, borrowed), or NULL if the midx has none. */
const unsigned char *fgit_midx_ridx(const struct fgit_midx *m);
/* 1 and *pos if oid is in the midx, else 0. */
int fgit_midx_find(uint32_t *pos, const struct fgit_midx *m, const struct fgit_oid *oid);
/* 1 if the trailing checksum matches the content (reads the whole file). */
int fgit_midx_checksum_ok(const struct fgit_midx *m);
/* The trailing checksum (rawsz bytes), borrowed. */
const unsigned char *fgit_midx_checksum(const struct fgit_midx *m);
/* Path the midx was opened from, borrowed. */
const char *fgit_midx_path(const struct fgit_midx *m);

/*
 * A pack's .idx on its own (what writing a midx reads): mapped and
 * validated as the object database does.  Immutable once open.
 */
struct fgit_pack_idx;
int fgit_pack_idx_open(struct fgit_pack_idx **out, const char *idx_path, int algo);
void fgit_pack_idx_free(struct fgit_pack_idx *p);
uint32_t fgit_pack_idx_count(const struct fgit_pack_idx *p);
uint32_t fgit_pack_idx_fanout(const struct fgit_pack_idx *p, unsigned b);
/* Raw name at pos (rawsz bytes inside the mapping, borrowed). */
const unsigned char *fgit_pack_idx_name(const struct fgit_pack_idx *p, uint32_t pos);
int fgit_pack_idx_offset(uint64_t *out, const struct fgit_pack_idx *p, uint32_t pos);
/* 1 and *pos if the pack has oid, else 0. */
int fgit_pack_idx_find(uint32_t *pos, const struct fgit_pack_idx *p,
		       const struct fgit_oid *oid);

/* ---- writing, verifying, expiring (lib/pack/midx_write.c) ---- */

struct fgit_midx_options {
	unsigned int version;		/* FGIT_MIDX_OPTIONS_VERSION */
	int algo;			/* FGIT_HASH_SHA1 */
	/* The object directory as git would name it in messages (e.g.
	 * ".git/objects"); NULL: the path given. */
	const char *display_dir;
	const char *preferred_pack;	/* write: pack-X.pack or pack-X.idx */
	/* write --stdin-packs: only these .idx names (sorted or not). */
	const char *const *only_packs;
	size_t nr_only_packs;
	int progress_fd;		/* -1: no meters */
	/* warnings and errors, worded as git's ("unknown preferred pack: 'x'");
	 * level 0 warning:, 1 error:, 2 a bare verify line.  May be NULL. */
	void (*report)(int level, const char *msg, void *payload);
	void *payload;
	/* write: also multi-pack-index-<checksum>.bitmap and the RIDX chunk
	 * (git's --bitmap).  odb reads the objects (it must hold every one the
	 * midx names); refdb (may be NULL) gives the ref tips preferred when
	 * selecting commits; nthreads (< 1: every core) build it. */
	int write_bitmap;
	int bitmap_hash_cache;		/* pack.writeBitmapHashCache */
	struct fgit_odb *odb;
	struct fgit_refdb *refdb;
	int nthreads;
	/* write with a bitmap: git's --refs-snapshot, a file of lines
	 * "[+]<hex id>" whose commits are preferred instead of refdb's tips
	 * (NULL: none).  Read once the midx is decided on, as git reads it;
	 * an unreadable file, a bad line or a missing object is an error
	 * worded as git's fatal line. */
	const char *refs_snapshot;
};
#define FGIT_MIDX_OPTIONS_VERSION 1
#define FGIT_MIDX_OPTIONS_INIT { FGIT_MIDX_OPTIONS_VERSION, 1, NULL, NULL, NULL, 0, -1, NULL, \
				 NULL, 0, 1, NULL, NULL, 0, NULL }

/*
 * `git multi-pack-index write` over objects_dir/pack: the same bytes git
 * 2.39 writes (chunks PNAM, OIDF, OIDL, OOFF, LOFF when an offset needs 64
 * bits; RIDX, the pseudo-pack order, with a bitmap; never a .rev), through
 * multi-pack-index.lock.  With write_bitmap and no preferred_pack, the pack
 * with the oldest .pack mtime is preferred, as git does.  Nothing is
 * written when the existing midx already covers every pack (and has a
 * bitmap whose checksum matches, when one is asked for).
 * Returns 0, 1 where git exits 1 after an error (reported), or negative.
 */
int fgit_midx_write(const char *objects_dir, const struct fgit_midx_options *opts);
/* `git multi-pack-index verify`: 0 if sound, 1 if problems were reported. */
int fgit_midx_verify(const char *objects_dir, const struct fgit_midx_options *opts);
/* `git multi-pack-index expire`: delete packs no midx object refers to
 * (unless .keep) and rewrite the midx without them.  0, 1 or negative. */
int fgit_midx_expire(const char *objects_dir, const struct fgit_midx_options *opts);

/*
 * git's remove_redundant_pack: before pack_path (pack-X.pack, a path or a
 * name) is deleted, the multi-pack-index of objects_dir goes (with its
 * bitmaps and .rev files) if it names that pack.  1 if it went, 0 if there
 * is none or it does not name the pack, negative on error.
 */
int fgit_midx_drop_if_names(const char *objects_dir, int algo, const char *pack_path);

struct fgit_pack_objects_options;
struct fgit_pack_objects_stats;
/*
 * `git multi-pack-index repack --batch-size=<n>`: pack the midx objects of
 * its packs (all usable ones when batch_size is 0; otherwise the oldest
 * packs whose expected referenced size stays under batch_size, until the
 * batch reaches it) into one new pack with the in-process packer (odb is
 * the database of objects_dir, po its options, write_rev for a .rev), then
 * rewrite the midx.  Fewer than two packs chosen: nothing is done.  Packs
 * with .keep are left out unless pack_kept_objects.  stats (may be NULL)
 * receive the packer's counts (zero when nothing was packed).
 */
int fgit_midx_repack(const char *objects_dir, struct fgit_odb *odb, uint64_t batch_size,
		     int pack_kept_objects, const struct fgit_pack_objects_options *po,
		     int write_rev, const struct fgit_midx_options *opts,
		     struct fgit_pack_objects_stats *stats);

#endif
