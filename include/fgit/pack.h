/*
 * Packs: indexing a pack stream (what `git index-pack` does), writing the
 * .idx (v1/v2) and .rev files git would write for it, and reading .idx
 * files back (show-index).
 *
 * Indexing runs in two passes over the pack:
 *   1. one sequential pass over the stream finds every entry's offset, type
 *      and size, CRC-32s the raw entry bytes and checksums the whole pack
 *      (the stream is copied to `copy_fd` as it is read, for --stdin);
 *   2. several threads name the non-delta objects and resolve deltas from
 *      each base outward, reading entries back with pread().  A base's
 *      inflated data lives only while its children are being resolved.
 *
 * Object names go through the collision-detecting fgit_objname_* entry
 * point; the pack trailer through fgit_checksum_*.
 *
 * Thread safety: an fgit_indexer is used by one thread at a time (it uses
 * threads internally).  Errors follow include/fgit/common.h, with git's
 * messages ("pack has bad object at offset 12: inflate returned -3",
 * "pack has 2 unresolved deltas", ...).
 */
#ifndef FGIT_PACK_H
#define FGIT_PACK_H

#include <stddef.h>
#include <stdint.h>
#include "buf.h"
#include "object.h"
#include "oid.h"

struct fgit_indexer;
struct fgit_odb;

enum fgit_index_pack_flags {
	/* The input is a stream received from elsewhere: the progress meter
	 * says "Receiving objects" and shows throughput. */
	FGIT_INDEX_PACK_RECEIVING = 1 << 0,
	/* Keep per-object delta depth and base for fgit_indexer_entry(). */
	FGIT_INDEX_PACK_STATS = 1 << 1,
	/* Show the "Resolving deltas" meter even without a progress title. */
	FGIT_INDEX_PACK_RESOLVING_PROGRESS = 1 << 2,
	/* Only the first meter (unpack-objects' "Unpacking objects"). */
	FGIT_INDEX_PACK_ONE_METER = 1 << 3,
	/* Read in_fd as a stream even when it is a file: bytes after the
	 * trailer are leftover (fgit_indexer_leftover), not "junk".  If the
	 * first pass fails, copy_fd still receives every byte read from
	 * in_fd, so the stream can be read again from copy_fd then in_fd. */
	FGIT_INDEX_PACK_STREAM = 1 << 4,
};

struct fgit_index_pack_options {
	unsigned int version;		/* FGIT_INDEX_PACK_OPTIONS_VERSION */
	int algo;			/* FGIT_HASH_SHA1 */
	int nthreads;			/* 0: default (see fgit_index_pack_default_threads) */
	int progress_fd;		/* -1: no meters */
	const char *progress_title;	/* first meter's title; NULL: git's */
	unsigned int flags;		/* enum fgit_index_pack_flags */
	/*
	 * Called (on the calling thread) with the secondary messages git
	 * prints as "error:" before its fatal one, e.g. "inflate: data stream
	 * error (invalid code lengths set)" or "delta replay has gone wild".
	 * May be NULL.
	 */
	void (*warn)(const char *msg, void *payload);
	void *warn_payload;
	/*
	 * --fix-thin: bases of REF deltas the pack lacks are read from this
	 * database and appended to the pack (which must then be copy_fd),
	 * compressed at fix_thin_compression (git's core.looseCompression,
	 * default 1); the object count and trailer are rewritten.
	 */
	struct fgit_odb *fix_thin_odb;
	int fix_thin_compression;
	/*
	 * Objects this database already has are read and compared with the
	 * pack's: a difference is FGIT_ECOLLISION, "SHA1 COLLISION FOUND WITH
	 * <id> !" (git checks this whenever it runs in a repository).  NULL:
	 * no check.  Objects above 64 MiB are not compared yet.
	 */
	struct fgit_odb *collision_odb;
	/*
	 * Called for every object of the pack (not for bases --fix-thin
	 * appends) with its name, type and whole content, once known: from
	 * the worker threads, concurrently, in no particular order.  A
	 * negative return (message set) stops indexing with that error.
	 * unpack-objects writes loose objects here; --strict checks them.
	 * Every entry is then inflated in pass 2, leaves included.
	 */
	int (*object_cb)(const struct fgit_oid *oid, enum fgit_object_type type,
			 const void *data, size_t size, void *payload);
	void *object_payload;
};
#define FGIT_INDEX_PACK_OPTIONS_VERSION 1
#define FGIT_INDEX_PACK_OPTIONS_INIT \
	{ FGIT_INDEX_PACK_OPTIONS_VERSION, FGIT_HASH_SHA1, 0, -1, NULL, 0, NULL, NULL, NULL, 1, NULL, NULL, NULL }

/* The default thread count: online CPUs, at most 3 (as git's). */
int fgit_index_pack_default_threads(void);

/*
 * Read a whole pack from in_fd (a file or a pipe; reading stops at the pack
 * trailer) and index it.  If copy_fd >= 0 (opened read-write, empty), the
 * pack bytes are written there as they are read and entries are read back
 * from it; otherwise in_fd must be a regular file and is read back with
 * pread().  On success *out is a new indexer owned by the caller
 * (fgit_indexer_free).  Errors: FGIT_EINVALID for a corrupt pack (git's
 * message), FGIT_ECOLLISION, FGIT_ENOMEM, FGIT_ERROR for I/O.
 */
int fgit_indexer_run(struct fgit_indexer **out, int in_fd, int copy_fd,
		     const struct fgit_index_pack_options *opts);
void fgit_indexer_free(struct fgit_indexer *ix);

/* Number of objects, and the pack's trailing checksum (rawsz bytes). */
uint32_t fgit_indexer_count(const struct fgit_indexer *ix);
/* How many bases --fix-thin appended (they are counted in count too). */
uint32_t fgit_indexer_local_objects(const struct fgit_indexer *ix);
const unsigned char *fgit_indexer_pack_hash(const struct fgit_indexer *ix);

/*
 * Bytes read from a non-file input after the pack trailer (git echoes them
 * to stdout after "pack\t<hash>").  Borrowed from the indexer.
 */
const unsigned char *fgit_indexer_leftover(const struct fgit_indexer *ix, size_t *len);

struct fgit_pack_entry_info {
	struct fgit_oid oid;
	enum fgit_object_type type;		/* the object's type */
	enum fgit_object_type pack_type;	/* as stored: may be OFS/REF_DELTA */
	uint64_t size;				/* from the entry header: a delta's own size for
						 * deltas, as verify-pack -v shows it */
	uint64_t offset;			/* of the entry in the pack */
	uint64_t packed_size;			/* bytes of the entry in the pack */
	uint32_t crc32;
	uint32_t depth;				/* delta chain length (STATS), 0 for non-deltas */
	uint32_t base;				/* entry number of the base (STATS) */
};

/* Entry i (0 <= i < count) in pack order. */
void fgit_indexer_entry(struct fgit_pack_entry_info *out, const struct fgit_indexer *ix,
			uint32_t i);

struct fgit_idx_options {
	unsigned int version;		/* FGIT_IDX_OPTIONS_VERSION */
	unsigned int idx_version;	/* 1 or 2 (a v1 request becomes v2 when offsets need it) */
	uint32_t off32_limit;		/* offsets above this go to the 64-bit table */
	/* Offsets below 2^31 that the 64-bit table holds all the same (to
	 * re-create an existing .idx exactly); sorted ascending. */
	const uint32_t *anomalies;
	size_t nr_anomalies;
};
#define FGIT_IDX_OPTIONS_VERSION 1
#define FGIT_IDX_OPTIONS_INIT { FGIT_IDX_OPTIONS_VERSION, 2, 0x7fffffff, NULL, 0 }

/*
 * The .idx bytes git writes for this pack, appended to out (objects sorted
 * by name, then by offset).  With `strict`, two entries of one name are an
 * error ("The same object <id> appears twice in the pack").
 */
int fgit_indexer_idx(struct fgit_buf *out, const struct fgit_indexer *ix,
		     const struct fgit_idx_options *opts, int strict);
/* The .rev bytes (reverse index v1) for this pack, appended to out. */
int fgit_indexer_rev(struct fgit_buf *out, const struct fgit_indexer *ix);

/*
 * Write data to path through a temporary file in the same directory,
 * renamed into place with the given mode: readers see the old file or the
 * new one, never half of one; the temporary is removed on failure.
 */
int fgit_pack_write_file(const char *path, const void *data, size_t len, unsigned int mode);

/*
 * Store `size` bytes read from fd as one object of `type` in a pack of its
 * own in odb's pack directory (pack-<trailer>.pack and its v2 .idx), as
 * git 2.39 stores a file above core.bigFileThreshold: read, named and
 * deflated (zlib `level`, -1 for its default) in one pass through
 * fixed-size buffers, so memory stays bounded.  An object the database
 * has already leaves nothing new.  `path` names the file in messages.
 * Returns 0 and the name in *out; FGIT_ECOLLISION or -1 otherwise (no
 * file left behind).  Reentrant.
 */
int fgit_pack_write_fd(struct fgit_oid *out, struct fgit_odb *odb, enum fgit_object_type type,
		       int fd, uint64_t size, int level, const char *path);

/*
 * Parse an .idx file held in memory (v1 or v2), calling cb for each entry
 * in file order (sorted by name); has_crc is 0 for v1.  Stops when cb
 * returns non-zero and returns that.  FGIT_EINVALID (git's show-index
 * wording) for a malformed file.
 */
struct fgit_idx_entry {
	struct fgit_oid oid;
	uint64_t offset;
	uint32_t crc32;
};
int fgit_idx_parse(const unsigned char *data, size_t len, int algo,
		   int (*cb)(const struct fgit_idx_entry *e, int has_crc, void *payload),
		   void *payload);
/* Version of an .idx in memory: 1, 2, or FGIT_EINVALID. */
int fgit_idx_version(const unsigned char *data, size_t len);

/*
 * What `--strict` adds to index-pack and unpack-objects: every object
 * checked by fsck's rules, and every object the pack's objects point to
 * present in the pack or in the repository.
 *
 * fgit_pack_checker_object() is thread-safe (call it from object_cb).  An
 * fsck error returns FGIT_EINVALID with "object <id>: <msgId>: <message>"
 * set (git's --strict fails fsck's warnings too); an fsck info (what git
 * reports but accepts, e.g. badFilemode) goes to warn (may be NULL) in the
 * same words, and the object passes.
 */
struct fgit_pack_checker;
int fgit_pack_checker_new(struct fgit_pack_checker **out, int algo,
			  void (*warn)(const char *msg, void *payload), void *payload);
void fgit_pack_checker_free(struct fgit_pack_checker *c);
int fgit_pack_checker_object(struct fgit_pack_checker *c, const struct fgit_oid *oid,
			     enum fgit_object_type type, const void *data, size_t size);
/*
 * After indexing: 1 and *out set to a linked object found neither among
 * ix's objects (ix may be NULL) nor in odb (may be NULL); 0 if there is
 * none; negative on error.
 */
int fgit_pack_checker_missing(struct fgit_oid *out, struct fgit_pack_checker *c,
			      const struct fgit_indexer *ix, struct fgit_odb *odb);

/* ---- unpack-objects' sequential path ------------------------------------ */

/*
 * Unpack a pack stream into loose objects one entry at a time, in git's
 * order and with git's reading of a damaged stream (unpack-objects -r).
 * The fast path of unpack-objects is the indexer above with an object_cb;
 * this one exists for packs that do not verify: with FGIT_UNPACK_RECOVER a
 * bad entry is reported through error_cb and reading goes on with the
 * bytes after it, as git does, so every object git would keep is kept.
 */
enum fgit_unpack_flags {
	/* -r: report a bad entry (error_cb) and go on with the next bytes */
	FGIT_UNPACK_RECOVER = 1 << 0,
	/* -n: inflate and check only; nothing written, deltas not resolved */
	FGIT_UNPACK_DRY_RUN = 1 << 1,
	/*
	 * --strict: blobs are written as they come, other objects held;
	 * after the last entry (before the trailer is checked) each held
	 * object is checked by fsck's rules (git's warnings are errors,
	 * its infos go to warn_cb) and the objects it points to must be
	 * in the pack or the database with the type it names; each is
	 * written once what it points to is.  The first failure ends the
	 * run with git's fatal message set ("fsck error in packed object",
	 * "object of unexpected type", ...) after its error lines.
	 */
	FGIT_UNPACK_STRICT = 1 << 2,
};

struct fgit_unpack_options {
	unsigned int version;		/* FGIT_UNPACK_OPTIONS_VERSION */
	unsigned int flags;		/* enum fgit_unpack_flags */
	/* where objects are written, and REF delta bases outside the pack
	 * are read from (required) */
	struct fgit_odb *odb;
	/* blobs above this are inflated to a temporary file, not memory
	 * (core.bigFileThreshold; 0: 512 MiB) */
	uint64_t big_file_threshold;
	int progress_fd;		/* -1: no "Unpacking objects" meter */
	/* git's "error:" lines (without the prefix), in order; may be NULL */
	void (*error_cb)(const char *msg, void *payload);
	void *payload;
	/* read this to its end before fd (the start of a stream another
	 * reader has already consumed); -1: none */
	int prefix_fd;
	/* --strict: git's "warning:" lines (without the prefix); may be NULL */
	void (*warn_cb)(const char *msg, void *payload);
};
#define FGIT_UNPACK_OPTIONS_VERSION 1
#define FGIT_UNPACK_OPTIONS_INIT \
	{ FGIT_UNPACK_OPTIONS_VERSION, 0, NULL, 0, -1, NULL, NULL, -1, NULL }

struct fgit_unpack_result {
	/* error lines reported: git then exits 1 */
	unsigned int errors;
	/* without FGIT_UNPACK_RECOVER: the run stopped at a bad entry after
	 * reporting it (git exits 1 there, not 128) */
	int stopped;
	/* bytes read after the trailer (git copies them to stdout);
	 * malloc'd, owned by the caller */
	unsigned char *leftover;
	size_t leftover_len;
};

/*
 * Read a pack from fd (a pipe or file, read up to and including its
 * trailer) and write its objects.  0 when the stream was read to its
 * verified trailer (out->errors may still be non-zero with
 * FGIT_UNPACK_RECOVER); negative with git's fatal message set
 * ("unresolved deltas left after unpacking", "final sha1 did not match",
 * "early EOF", ...) or with out->stopped set.  Objects written before a
 * failure stay written, as git's do.  Single-threaded.
 */
int fgit_unpack_stream(struct fgit_unpack_result *out, int fd,
		       const struct fgit_unpack_options *opts);

/* ---- writing packs: pack-objects ---------------------------------------- */

/*
 * A packer collects objects (in recency order, as the object walk lists
 * them), decides for each how to store it (reusing entries and deltas of
 * existing packs, searching new deltas in a sliding window over git's
 * delta-list order on several threads) and writes a pack in git's write
 * order, then its .idx and .rev.  See lib/pack/objects.c.
 *
 * A packer is used by one thread at a time (it uses threads internally).
 * The odb must outlive it.
 */
struct fgit_packer;

struct fgit_pack_objects_options {
	unsigned int version;		/* FGIT_PACK_OBJECTS_OPTIONS_VERSION */
	int window;			/* --window (10) */
	int depth;			/* --depth (50, at most 4095) */
	uint64_t window_memory;		/* --window-memory; 0: no limit */
	int nthreads;			/* --threads; 0: online CPUs */
	int reuse_delta;		/* 0: --no-reuse-delta */
	int reuse_object;		/* 0: --no-reuse-object */
	int delta_base_offset;		/* OFS_DELTA (1) or REF_DELTA (0) */
	int compression;		/* pack.compression; -1: zlib's default (6) */
	int thin;			/* --thin: deltas against added bases */
	uint64_t big_file_threshold;	/* no delta search above; 0: none */
	unsigned int skip;		/* enum fgit_pack_skip_flags */
	const char *const *keep_packs;	/* --keep-pack=<pack name> (basenames) */
	size_t nkeep_packs;
	int progress;			/* meters on progress_fd: 1 counting and
					 * compressing, 2 also "Delta compression
					 * using up to N threads" and writing */
	int progress_fd;
};
#define FGIT_PACK_OBJECTS_OPTIONS_VERSION 1
#define FGIT_PACK_OBJECTS_OPTIONS_INIT \
	{ FGIT_PACK_OBJECTS_OPTIONS_VERSION, 10, 50, 0, 0, 1, 1, 1, -1, 0, 512u << 20, \
	  0, NULL, 0, 0, 2 }

/* Objects fgit_packer_add leaves out (git's want_object_in_pack). */
enum fgit_pack_skip_flags {
	FGIT_PACK_SKIP_PACKED = 1 << 0,		/* --incremental, --unpacked: in any pack */
	FGIT_PACK_SKIP_KEPT = 1 << 1,		/* --honor-pack-keep: in a pack with a .keep */
	FGIT_PACK_SKIP_NONLOCAL = 1 << 2,	/* --local: only in an alternate */
};

struct fgit_pack_objects_stats {
	uint32_t written, written_delta, reused, reused_delta;
	uint32_t delta_candidates;	/* "Compressing objects" total */
	uint64_t pack_size;
};

int fgit_packer_new(struct fgit_packer **out, struct fgit_odb *odb,
		    const struct fgit_pack_objects_options *opts);
void fgit_packer_free(struct fgit_packer *pk);
/*
 * Add an object to pack (an id added again is ignored; so is one that
 * opts.skip or opts.keep_packs leave out: then 1 is returned).  type may be
 * FGIT_OBJ_NONE (looked up later); name is its path, for the name hash
 * that groups delta candidates (NULL for commits and tags).
 */
int fgit_packer_add(struct fgit_packer *pk, const struct fgit_oid *oid,
		    enum fgit_object_type type, const char *name, size_t name_len);
/* With opts.thin: an object the receiver has, usable as a delta base but
 * not written (a no-op otherwise). */
int fgit_packer_add_base(struct fgit_packer *pk, const struct fgit_oid *oid,
			 enum fgit_object_type type, const char *name, size_t name_len);
int fgit_packer_contains(const struct fgit_packer *pk, const struct fgit_oid *oid);
/*
 * With opts.thin: the entries of these trees (the edges' root trees of a
 * walk with exclusions) that sit at the path of an object being packed
 * become delta bases that are not written (git's preferred bases).
 * Call after every object is added.
 */
int fgit_packer_add_base_trees(struct fgit_packer *pk, const struct fgit_oid *trees, size_t n);
/* An object a tag points to (for git's write order); ignored if absent. */
void fgit_packer_mark_tagged(struct fgit_packer *pk, const struct fgit_oid *oid);
struct fgit_objwalk;
struct fgit_refdb;
/* Run the walk, adding what it lists ("Enumerating objects" meter). */
int fgit_packer_add_walk(struct fgit_packer *pk, struct fgit_objwalk *w);
/* Mark what refs/tags/ point to, and their peeled objects, as tagged. */
int fgit_packer_mark_tags(struct fgit_packer *pk, struct fgit_refdb *db);
uint32_t fgit_packer_count(const struct fgit_packer *pk);
/* Decide reuse and deltas ("Counting objects", "Compressing objects");
 * done by fgit_packer_write if not called before. */
int fgit_packer_prepare(struct fgit_packer *pk);
/* Objects the pack will hold (after prepare). */
uint32_t fgit_packer_written(const struct fgit_packer *pk);
/* Write the pack to fd ("Writing objects"); the trailer checksum is then
 * fgit_packer_hash(). */
int fgit_packer_write(struct fgit_packer *pk, int fd);
const unsigned char *fgit_packer_hash(const struct fgit_packer *pk);
void fgit_packer_stats(struct fgit_pack_objects_stats *out, const struct fgit_packer *pk);
/* The .idx and .rev of the written pack, appended to out. */
int fgit_packer_idx(struct fgit_buf *out, const struct fgit_packer *pk,
		    const struct fgit_idx_options *opts);
int fgit_packer_rev(struct fgit_buf *out, const struct fgit_packer *pk);
/*
 * `pack-objects --all --stdout` from a reachability bitmap: when the
 * database has a single pack with a .bitmap, every tip of --all (refs
 * and HEAD, annotated tags peeled; commits the bitmap lacks are walked
 * back to ones it has) is in the pack, and together they reach the whole
 * pack, the pack is sent to fd as it is (git's pack-reused; without
 * ofs_delta, OFS_DELTA entries become REF_DELTA, as git sends them); *count_out gets its object count and the "Enumerating
 * objects" meter is shown on progress_fd (-1: none).  Returns 1 (nothing
 * written) when that does not hold, for the caller to walk instead.
 */
int fgit_pack_bitmap_send_all(uint32_t *count_out, struct fgit_odb *odb,
			      struct fgit_refdb *refdb, int fd, int ofs_delta, int progress_fd);

/*
 * repack -a's counting from a reachability bitmap instead of a walk: when
 * the database (no kept pack, no alternates) has a multi-pack-index with
 * a multi-pack bitmap (preferred, as git 2.39 does; the bitmap must name
 * the current midx, and the midx have its RIDX chunk), or else a single
 * pack with a .bitmap, the bitmap has a name-hash cache, and everything
 * tips (commits and annotated tags: refs, HEAD, reflog ids) reach is
 * among its objects, those objects are added in bitmap order (pack or
 * pseudo-pack order), with their types and name hashes from the bitmap
 * ("Enumerating objects" meter).  Returns 1, nothing added, when that does
 * not hold (or the packer is not empty, or thin): the caller walks.
 */
int fgit_packer_add_bitmap(struct fgit_packer *pk, const struct fgit_oid *tips, size_t ntips);
/* The same for the tips of --all: every ref (broken ones skipped) and HEAD. */
int fgit_packer_add_bitmap_all(struct fgit_packer *pk, struct fgit_refdb *refdb);

/*
 * Write <base_name>-<hash>.pack (through a temporary file in the same
 * directory), then .rev (if write_rev) and .idx, each renamed into place,
 * as git does; hex_out (FGIT_MAX_HEXSZ + 1 bytes) receives <hash>.
 */
int fgit_packer_write_files(char *hex_out, struct fgit_packer *pk, const char *base_name,
			    int write_rev, const struct fgit_idx_options *idx_opts);

/*
 * After fgit_packer_write_files: write <base_name>-<hex>.bitmap, the
 * reachability bitmaps of the pack just written (git's
 * --write-bitmap-index), through a temporary file renamed into place.
 * Every object a packed commit reaches must be in the pack (FGIT_EINVALID
 * otherwise, as git's "doesn't have full closure"); SHA-1 repositories
 * only.  Commits refdb's refs point to are preferred (NULL: none).
 */
enum fgit_packer_bitmap_flags {
	FGIT_PACKER_BITMAP_HASH_CACHE = 1 << 0,	/* pack.writeBitmapHashCache */
};
int fgit_packer_write_bitmap(struct fgit_packer *pk, const char *base_name, const char *hex,
			     struct fgit_refdb *refdb, unsigned int flags);

#endif
