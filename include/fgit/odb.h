/*
 * The object database: loose objects, packs (.idx v1/v2, .pack v2/v3,
 * OFS_DELTA and REF_DELTA), alternates (objects/info/alternates, nested up
 * to 5 deep).  A multi-pack-index (objects/pack/multi-pack-index), when
 * present and valid, is searched first, as git does, then the packs it
 * does not cover; a corrupt one is ignored (git warns and does the same).
 * NEEDSWORK: a pack the midx covers is still opened through its .idx.
 *
 * Thread safety: one fgit_odb may be used by any number of threads at once
 * for reading and writing; there is no global lock around inflation.
 * .idx and .pack files are mapped read-only and shared; the pack list is
 * refreshed under a read-write lock; the delta-base cache is sharded with a
 * lock per shard.  Returned buffers belong to the caller (free()).
 *
 * Errors: FGIT_ENOTFOUND (no such object; message "object <hex> not
 * found"), FGIT_EINVALID for corrupt data with git's wording, in the form
 * "<loose|packed> object <hex> (stored in <path>) is corrupt (<detail>)"
 * where the CLI prints <detail> as an error: line, the rest as fatal:.
 */
#ifndef FGIT_ODB_H
#define FGIT_ODB_H

#include <stddef.h>
#include <stdint.h>
#include "oid.h"
#include "object.h"

struct fgit_odb;

struct fgit_odb_options {
	unsigned int version;		/* FGIT_ODB_OPTIONS_VERSION */
	int algo;			/* FGIT_HASH_SHA1 default */
	int compression;		/* core.compression; -1 = default */
	int loose_compression;		/* core.looseCompression; -1 = default */
	size_t delta_base_cache_limit;	/* core.deltaBaseCacheLimit; 0 = default (96 MiB) */
	uint64_t big_file_threshold;	/* core.bigFileThreshold; 0 = default (512 MiB) */
	int fsync;			/* fsync written objects */
};
#define FGIT_ODB_OPTIONS_VERSION 1
#define FGIT_ODB_OPTIONS_INIT { FGIT_ODB_OPTIONS_VERSION, FGIT_HASH_SHA1, -1, -1, 0, 0, 0 }

/* Open the database at `objects_dir` (e.g. ".git/objects"). opts may be NULL. */
int fgit_odb_open(struct fgit_odb **out, const char *objects_dir,
		  const struct fgit_odb_options *opts);
void fgit_odb_free(struct fgit_odb *odb);
/* How the database is going to be read, to fit the delta-base cache to it. */
enum fgit_odb_access {
	/* Objects close together in a pack are read close together in time
	 * (pack order, history walks): every base of a delta chain is cached. */
	FGIT_ODB_ACCESS_NORMAL = 0,
	/* Reads jump around the packs (every object by id): only some levels
	 * of each chain are cached, so the cache holds many more chains. */
	FGIT_ODB_ACCESS_RANDOM,
	/* Every object in pack order (cat-file --batch-all-objects
	 * --unordered): a base is read again soon after it was built, so a
	 * smaller cache (48 MiB, or core.deltaBaseCacheLimit if lower) keeps
	 * nearly all the hits of the full one.  An object read whole that is
	 * a delta base in its pack is kept too, as with ONCE_EACH (read it
	 * with fgit_odb_read_located_view to share it rather than copy). */
	FGIT_ODB_ACCESS_PACK_ORDER,
	/* Many objects, each read once (grep of a tree or the index): an
	 * object read whole that is the base of a delta in its pack is kept
	 * in the cache for that delta too, not inflated a second time (if
	 * the cache keeps it); the cache is small (8 MiB, or
	 * core.deltaBaseCacheLimit if lower), as its page faults cost more
	 * than inflating the bigger bases again. */
	FGIT_ODB_ACCESS_ONCE_EACH,
	/* Every packed object read once, in an order unrelated to the packs
	 * (cat-file --batch-all-objects, sorted by id): each pack's delta
	 * chains are mapped up front, and the cache keeps the bases with the
	 * most reads still to come resting on them (reads counted down as
	 * they are done; a base nobody will need again is dropped at once).
	 * Reading an object twice, or only some, is allowed: the cache just
	 * chooses less well. */
	FGIT_ODB_ACCESS_ALL_BY_ID,
};
/* Set before reading (not safe against reads running at the same time);
 * applies to the alternates too. */
void fgit_odb_set_access(struct fgit_odb *odb, enum fgit_odb_access how);

/* Build now what FGIT_ODB_ACCESS_ONCE_EACH reads look up in every pack
 * (and the alternates'), which of its entries are delta bases: one pass
 * over the pack, for a thread to run while the caller lists what it is
 * going to read.  Thread-safe; errors are left for the reads to report. */
void fgit_odb_warm_bases(struct fgit_odb *odb);

/* Cap the delta-base cache (and the alternates') at `limit` bytes, or at
 * core.deltaBaseCacheLimit if lower; 0: back to core.deltaBaseCacheLimit.
 * For a phase whose bases are read again soon after they were built.  Set
 * before reading (not safe against reads running at the same time). */
void fgit_odb_set_cache_limit(struct fgit_odb *odb, size_t limit);

/* Empty the delta-base cache (and the alternates'), e.g. between a walk
 * that filled it and a phase that will not use it.  Thread-safe. */
void fgit_odb_drop_cache(struct fgit_odb *odb);

/* Re-scan the pack directory for new packs (after another process wrote one). */
int fgit_odb_refresh(struct fgit_odb *odb);

/*
 * Read a whole object.  *out is malloc'd with one extra NUL byte after
 * *size_out, owned by the caller.  FGIT_ENOTFOUND if absent; FGIT_EINVALID
 * (message set, git's wording) if corrupt.
 */
int fgit_odb_read(void **out, size_t *size_out, enum fgit_object_type *type_out,
		  struct fgit_odb *odb, const struct fgit_oid *oid);

/*
 * Like fgit_odb_read, but into the caller's buffer, whose content is
 * replaced (buf->len is the object's size; NUL-terminated as always) and
 * whose memory is reused: a caller reading many objects in turn (grep
 * --cached, grep <tree>) saves an allocation per object and the page
 * faults of touching fresh memory (kernel corpus, grep --cached
 * --threads=1: about a tenth of the time went to page faults on freshly
 * allocated object buffers).  buf is empty after a failure.  One buffer
 * per thread; the database itself may be shared.
 */
struct fgit_buf;
int fgit_odb_read_into(struct fgit_buf *buf, enum fgit_object_type *type_out,
		       struct fgit_odb *odb, const struct fgit_oid *oid);

/*
 * Like fgit_odb_read, but an object bigger than cap bytes is not read:
 * returns 1 with *size_out and *type_out set and *out untouched (stream it
 * instead).  Saves a separate fgit_odb_read_info before each read.
 */
int fgit_odb_read_capped(void **out, size_t *size_out, enum fgit_object_type *type_out,
			 struct fgit_odb *odb, const struct fgit_oid *oid, uint64_t cap);

enum fgit_object_where {
	FGIT_WHERE_LOOSE = 1,
	FGIT_WHERE_PACKED = 2,
};

struct fgit_object_info {
	enum fgit_object_type type;
	uint64_t size;			/* inflated size */
	uint64_t disk_size;		/* bytes on disk (FGIT_INFO_DISK_SIZE) */
	struct fgit_oid delta_base;	/* zero unless stored as a delta (FGIT_INFO_DELTA_BASE) */
	enum fgit_object_where where;
};

enum fgit_odb_info_flags {
	FGIT_INFO_TYPE = 1 << 0,
	FGIT_INFO_SIZE = 1 << 1,
	FGIT_INFO_DISK_SIZE = 1 << 2,
	FGIT_INFO_DELTA_BASE = 1 << 3,
};

/* Type and size etc. without inflating the body where possible. */
int fgit_odb_read_info(struct fgit_object_info *out, struct fgit_odb *odb,
		       const struct fgit_oid *oid, unsigned int flags);

/* 1 if present, 0 if not. */
int fgit_odb_exists(struct fgit_odb *odb, const struct fgit_oid *oid);
/*
 * fgit_odb_exists() of oids[0..n): found[i] = 1 or 0.  Faster for many
 * ids than one call each: the packs are locked once, not searched for an
 * object's offset, and each lookup starts loading the index lines the
 * next ones need (commit -a checks every blob of the index).
 * Thread-safe.
 */
void fgit_odb_exists_many(struct fgit_odb *odb, const struct fgit_oid *const *oids, size_t n,
			  unsigned char *found);
/*
 * The same without looking again (git's OBJECT_INFO_QUICK): the packs
 * known now and each loose fan-out directory as listed the first time it
 * is asked about, so no system call after the first; an object written by
 * another process meanwhile may be missed.  For checks over many objects
 * that are mostly absent (index-pack's collision check).  Thread-safe.
 */
int fgit_odb_exists_quick(struct fgit_odb *odb, const struct fgit_oid *oid);

/*
 * 1 if present, 0 if not; when present, the file holding it (loose object
 * or pack) gets a new mtime, as git does before skipping a write, so that
 * a concurrent gc/prune sees it as recent.  Thread-safe.
 */
int fgit_odb_freshen(struct fgit_odb *odb, const struct fgit_oid *oid);

/*
 * Write a loose object (no-op if it exists).  Named with collision
 * detection; written to a temporary file and renamed into place.
 */
int fgit_odb_write(struct fgit_oid *out, struct fgit_odb *odb,
		   enum fgit_object_type type, const void *data, size_t len);

/* Write a loose object even if a pack holds it (repack -A loosening
 * objects of a pack about to be deleted); no-op if it is loose already. */
int fgit_odb_write_loose(struct fgit_oid *out, struct fgit_odb *odb,
			 enum fgit_object_type type, const void *data, size_t len);

/*
 * Resolve a hex prefix of `hexlen` digits (in prefix) to the unique object.
 * FGIT_ENOTFOUND if none, FGIT_EAMBIGUOUS if several.
 */
int fgit_odb_resolve_prefix(struct fgit_oid *out, struct fgit_odb *odb,
			    const struct fgit_oid *prefix, size_t hexlen);

/* Call cb for each object (loose and packed, deduplicated not guaranteed)
 * whose id starts with the prefix; stop early if cb returns non-zero. */
int fgit_odb_foreach_prefix(struct fgit_odb *odb, const struct fgit_oid *prefix,
			    size_t hexlen,
			    int (*cb)(const struct fgit_oid *oid, void *payload),
			    void *payload);

/* Length of the shortest unique abbreviation of oid, at least min_len. */
int fgit_odb_abbrev_len(struct fgit_odb *odb, const struct fgit_oid *oid, int min_len);

enum fgit_odb_foreach_flags {
	FGIT_FOREACH_LOOSE = 1 << 0,
	FGIT_FOREACH_PACKED = 1 << 1,
	FGIT_FOREACH_LOCAL_ONLY = 1 << 2,	/* skip alternates */
	FGIT_FOREACH_PACK_ORDER = 1 << 3,	/* packed objects in pack offset order */
};

/* Iterate objects; may visit an id more than once (loose + packed, or two
 * packs).  Stops when cb returns non-zero and returns that value. */
int fgit_odb_foreach(struct fgit_odb *odb, unsigned int flags,
		     int (*cb)(const struct fgit_oid *oid, void *payload),
		     void *payload);

/* Counts for count-objects -v. */
struct fgit_odb_counts {
	uint64_t loose_count, loose_size;	/* bytes of disk blocks, as git */
	uint64_t packed_count, pack_count, pack_size;	/* .pack + .idx bytes */
	uint64_t prune_packable;		/* loose objects also in a pack */
	uint64_t garbage_count, garbage_size;
};
/* garbage_cb, if not NULL, is called with the path of each garbage file,
 * in the order git reports them. */
int fgit_odb_count(struct fgit_odb_counts *out, struct fgit_odb *odb,
		   void (*garbage_cb)(const char *path, const char *why, void *payload),
		   void *payload);

/*
 * Write an object whose content is read from fd (exactly size bytes), in
 * one pass: the bytes read are hashed and deflated together, so the stored
 * object always matches its name even if the file changes meanwhile (a
 * file that shrinks or grows is an error).  For content too big to hold.
 */
int fgit_odb_write_fd(struct fgit_oid *out, struct fgit_odb *odb,
		      enum fgit_object_type type, int fd, uint64_t size);

/*
 * Streaming read, for objects too big to hold in memory (loose objects and
 * undeltified packed objects are inflated as read; deltas are resolved in
 * memory first).  A stream belongs to one thread at a time.
 */
struct fgit_odb_stream;
int fgit_odb_stream_open(struct fgit_odb_stream **out, enum fgit_object_type *type_out,
			 uint64_t *size_out, struct fgit_odb *odb,
			 const struct fgit_oid *oid);
/* Bytes read into buf (0 at the end), or a negative error. */
long fgit_odb_stream_read(struct fgit_odb_stream *s, void *buf, size_t len);
void fgit_odb_stream_free(struct fgit_odb_stream *s);

/*
 * Where an object lives, for callers that walk pack order (e.g. cat-file
 * --batch-all-objects --unordered): like fgit_odb_foreach with
 * FGIT_FOREACH_PACK_ORDER, but also passing the object's pack number
 * (0-based, in this database's pack list; -1 for loose or alternates) and
 * its offset, in pack order.
 */
int fgit_odb_foreach_located(struct fgit_odb *odb, unsigned int flags,
			     int (*cb)(const struct fgit_oid *oid, int pack,
				       uint64_t offset, void *payload),
			     void *payload);

/*
 * Like fgit_odb_read_capped, for an object whose place fgit_odb_foreach_located
 * gave (pack number and offset in this database): reads the entry there
 * without looking the id up in the pack indexes (cat-file
 * --batch-all-objects --unordered on the history corpus spent about a tenth
 * of its CPU time in that lookup).  pack < 0 (loose objects, alternates) or
 * a pack no longer there: read by id.  oid names the object in messages.
 */
int fgit_odb_read_located(void **out, size_t *size_out, enum fgit_object_type *type_out,
			  struct fgit_odb *odb, const struct fgit_oid *oid, int pack,
			  uint64_t offset, uint64_t cap);

/*
 * An object lent by the database (fgit_odb_read_located_view): data holds
 * size bytes and a NUL after them, valid until fgit_odb_view_release.
 * priv is the library's.
 */
struct fgit_odb_view {
	const unsigned char *data;
	size_t size;
	enum fgit_object_type type;
	void *priv;
};

/*
 * Like fgit_odb_read_located, but the object is lent, not copied: when it
 * is kept in the delta-base cache (FGIT_ODB_ACCESS_PACK_ORDER keeps an
 * object that is the base of a delta in its pack, which is then read
 * next), the caller shares the cached bytes.  0 with *out filled; 1 if the
 * object is bigger than cap (out->size and out->type set, nothing lent);
 * negative on error.  Release each view once, from any thread; the views
 * may outlive the cache's use of the bytes but not the database.
 */
int fgit_odb_read_located_view(struct fgit_odb_view *out, struct fgit_odb *odb,
			       const struct fgit_oid *oid, int pack, uint64_t offset,
			       uint64_t cap);
void fgit_odb_view_release(struct fgit_odb_view *view);

/* Paths of the alternate object directories, in order (borrowed). */
size_t fgit_odb_alternates(const struct fgit_odb *odb, const char **out, size_t max);

/*
 * Pack writers (pack-objects, repack) copy entries from existing packs.
 * fgit_odb_packed_entry finds oid in this database's packs (not loose, not
 * alternates: FGIT_ENOTFOUND) and describes its entry as stored.  data
 * points into the read-only mapping of the pack and stays valid while the
 * database is open (fgit_odb_refresh keeps existing packs mapped).
 */
struct fgit_packed_entry {
	unsigned int pack;		/* number in this database's pack list */
	const char *pack_path;		/* borrowed */
	uint64_t pack_mtime;
	uint64_t offset;		/* of the entry */
	uint64_t length;		/* bytes of the entry: header, base, zlib data */
	enum fgit_object_type stored_type;	/* may be OFS_DELTA / REF_DELTA */
	uint64_t size;			/* from the header (a delta's own size) */
	size_t hdr_len;			/* bytes before the zlib data */
	uint64_t base_offset;		/* OFS_DELTA: the base's entry offset */
	struct fgit_oid base;		/* deltas: the base's id */
	uint32_t crc32;			/* from the .idx (v2 only: has_crc) */
	int has_crc;
	const unsigned char *data;	/* length bytes */
};
int fgit_odb_packed_entry(struct fgit_packed_entry *out, struct fgit_odb *odb,
			  const struct fgit_oid *oid);
/* The packs of this database (not alternates), by number. */
size_t fgit_odb_pack_count(struct fgit_odb *odb);
const char *fgit_odb_pack_path(struct fgit_odb *odb, size_t i);
/* 1 if pack i holds oid. */
int fgit_odb_pack_has(struct fgit_odb *odb, size_t i, const struct fgit_oid *oid);

/* Hash algorithm of this database. */
int fgit_odb_algo(const struct fgit_odb *odb);
/* Path of the objects directory (borrowed). */
const char *fgit_odb_path(const struct fgit_odb *odb);

#endif
