/*
 * Internals of lib/pack shared by its .c files.  Not installed.
 */
#ifndef FGIT_PACK_INTERNAL_H
#define FGIT_PACK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "fgit/hash.h"

/* ---- delta encoding (delta_create.c) ---- */
struct delta_index;
/* Index src (borrowed: must outlive the index); NULL if too small (< 16
 * bytes) or out of memory. */
struct delta_index *delta_index_new(const void *src, size_t len);
void delta_index_free(struct delta_index *ix);
size_t delta_index_size(const struct delta_index *ix);
/*
 * A delta turning the indexed source into trg: 0 and *out (malloc'd),
 * or -1 if it would exceed max_size bytes (0: no limit) or memory ran out.
 */
int delta_create(unsigned char **out, size_t *out_len, const struct delta_index *ix,
		 const void *trg, size_t trg_len, size_t max_size);
/*
 * The sketch of buf: its content-defined fingerprints (about one per 64
 * bytes), sorted and unique, in *out (malloc'd, *out_n of them); -1 if
 * out of memory.  Thread-safe.
 */
int delta_sketch(uint32_t **out, uint32_t *out_n, const void *buf, size_t len);
/* 1 if two sketches share a fingerprint. */
int delta_sketch_overlap(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb);

/* ---- shared by the indexer and the sequential unpacker (indexer.c) ---- */
/* git's words for a zlib status ("data stream error"). */
const char *pack_zerr_name(int status);
/*
 * Apply a delta as git's patch_delta: 0 and *out (*out_size bytes and a
 * NUL, malloc'd); or FGIT_EINVALID "failed to apply delta" with git's own
 * error line for it, if it prints one, in why ("" otherwise); FGIT_ENOMEM.
 */
int pack_delta_patch(unsigned char **out, size_t *out_size, const void *base, size_t base_size,
		     const unsigned char *delta, size_t delta_size, char *why, size_t whysz);

/* ---- .idx / .rev writing from a list of entries (idx.c) ---- */
struct idx_src {
	uint32_t nr;
	const unsigned char *pack_hash;
	/* entry i in pack order */
	const unsigned char *(*oid)(const void *ctx, uint32_t i);
	uint64_t (*offset)(const void *ctx, uint32_t i);
	uint32_t (*crc)(const void *ctx, uint32_t i);
	const void *ctx;
};

struct fgit_buf;
struct fgit_idx_options;
/* The .idx (strict: duplicates are an error) and .rev bytes, appended. */
int pack_idx_write(struct fgit_buf *out, const struct idx_src *src,
		   const struct fgit_idx_options *opts);
int pack_rev_write(struct fgit_buf *out, const struct idx_src *src);

/* ---- buffered pack output with its trailer checksum (writer.c) ---- */
struct pack_writer {
	int fd;
	unsigned char *p;
	size_t len, cap;
	uint64_t total;			/* bytes written so far, trailer included */
	struct fgit_hash_ctx sha;
};
int pw_init(struct pack_writer *w, int fd, int algo);
/* Append data; *crc (if not NULL) is updated over it. */
int pw_put(struct pack_writer *w, const void *data, size_t len, uint32_t *crc);
/* Append len bytes of the file fd from offset off (read with pread). */
int pw_copy_fd(struct pack_writer *w, int fd, uint64_t off, uint64_t len);
/* Flush, then write the checksum of everything (also into hash_out). */
int pw_finish(struct pack_writer *w, unsigned char *hash_out, size_t rawsz);
void pw_release(struct pack_writer *w);
/* The 12-byte pack header (version 2, nr objects), through pw_put. */
int pw_put_pack_header(struct pack_writer *w, uint32_t nr);
/* An object's type-and-size header in h (at most 10 bytes); its length. */
int pack_obj_header(unsigned char *h, int type, uint64_t size);

/* ---- reachability bitmaps (bitmap_write.c) ---- */
struct fgit_odb;
struct fgit_refdb;
struct bitmap_src {
	uint32_t nr;			/* objects, in bit order: pack order, or
					 * a midx's pseudo-pack order */
	const unsigned char *pack_hash;	/* SHA-1 of the pack (or of the midx) */
	const struct fgit_oid *oid;	/* nr of each, in bit order */
	const uint8_t *type;
	const uint32_t *name_hash;	/* NULL: no name-hash cache */
	int select_meter;		/* "Selecting bitmap commits" too (git
					 * shows it for packs, not for a midx) */
	/* the commits preferred when selecting, instead of the refs' (NULL:
	 * the refs of refdb); objects not among the nr are passed over */
	const struct fgit_oid *tips;
	size_t ntips;
};
/*
 * The .bitmap for these objects, appended to out: every object a commit
 * reaches must be among them (else an error naming the missing one).
 * Commits refs point to (refdb; NULL: none), or s->tips, are preferred
 * when selecting.
 * Meters "Selecting bitmap commits" and "Building bitmaps" on progress_fd
 * (-1: none).
 */
int pack_bitmap_write(struct fgit_buf *out, const struct bitmap_src *s, struct fgit_odb *odb,
		      struct fgit_refdb *refdb, int nthreads, int progress_fd);
/*
 * The same, reusing old (NULL: none), the bitmap of a pack these objects
 * came from: a commit it has a set for gets that set with its bits moved
 * to the new positions, instead of a walk of its trees.
 */
struct pack_old_bitmap;
int pack_bitmap_write_reusing(struct fgit_buf *out, const struct bitmap_src *s,
			      struct pack_old_bitmap *old, struct fgit_odb *odb,
			      struct fgit_refdb *refdb, int nthreads, int progress_fd);

/* ---- an existing .bitmap, for the writer to reuse (bitmap.c) ---- */
struct pack_old_bitmap;
/* The .bitmap beside pack_path: 0 and *out, or 1 if there is none to use. */
int pack_old_bitmap_open(struct pack_old_bitmap **out, const char *pack_path);
void pack_old_bitmap_free(struct pack_old_bitmap *ob);
/* Objects of that pack; the raw id at a pack-order position. */
uint32_t pack_old_bitmap_count(const struct pack_old_bitmap *ob);
const unsigned char *pack_old_bitmap_id(const struct pack_old_bitmap *ob, uint32_t pos);
/* The entry of a commit with a bitmap, or -1. */
long pack_old_bitmap_find(const struct pack_old_bitmap *ob, const struct fgit_oid *commit);
/* Its set (pack-order bits of the old pack; decoded on first use, owned
 * by ob), or NULL if it cannot be decoded.  One thread at a time. */
const uint64_t *pack_old_bitmap_bits(struct pack_old_bitmap *ob, long entry);

/* ---- counting from a .bitmap (bitmap.c) ---- */
enum fgit_object_type;
typedef int (*pack_bitmap_obj_cb)(const struct fgit_oid *oid, enum fgit_object_type type,
				  uint32_t name_hash, uint64_t offset, void *payload);
/*
 * What tips (commits or annotated tags) reach, from the multi-pack bitmap
 * of the database's midx or else the .bitmap of its only pack (commits it
 * lacks are walked back to ones it has):
 * cb for each object, in pack order, with its type, name hash (from the
 * bitmap's name-hash cache) and offset in that pack; a negative return
 * from cb stops and is returned.  1 before any cb call when the bitmap
 * cannot answer (no usable bitmap, no name-hash cache, a tip or an object
 * outside its pack or midx): the caller walks instead.
 */
int pack_bitmap_reachable(struct fgit_odb *odb, const struct fgit_oid *tips, size_t ntips,
			  pack_bitmap_obj_cb cb, void *payload);

/*
 * fsck's rules on one object as --strict applies them: 0, or FGIT_EINVALID
 * with "object <id>: <msgId>: <message>" set for what git fails (fsck's
 * errors and warnings); what git only reports (fsck's infos) goes to warn
 * in the same words.  Thread-safe.  lib/pack/check.c.
 */
int pack_fsck_object(const struct fgit_oid *oid, enum fgit_object_type type, const void *data,
		     size_t size, int algo, void (*warn)(const char *msg, void *payload),
		     void *payload);

/*
 * fsck_finish's check of a blob a tree names .gitmodules or .gitattributes
 * (which): data NULL when it cannot be read.  git's error lines go to
 * error, its infos to warn (both "object <id>: <msgId>: <message>",
 * either may be NULL); 1 if an error was reported, 0 if none.
 */
int pack_fsck_dotfile(const struct fgit_oid *oid, enum fgit_dotfile which,
		      enum fgit_object_type type, const void *data, size_t size,
		      void (*error)(const char *msg, void *payload),
		      void (*warn)(const char *msg, void *payload), void *payload);

#endif
