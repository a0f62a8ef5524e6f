/*
 * Internals of the object database, shared by the .c files of lib/odb.  Not installed.
 */
#ifndef FGIT_ODB_INTERNAL_H
#define FGIT_ODB_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <zlib.h>
#include "fgit/common.h"
#include "fgit/odb.h"

struct libdeflate_decompressor;

/* Longest delta chain we follow; git writes at most --depth=4095. */
#define ODB_MAX_DELTA_DEPTH 10000
/* Alternates nest at most this deep (as git). */
#define ODB_MAX_ALT_DEPTH 5

struct pack {
	char *pack_path;		/* ".../pack-<hash>.pack" */
	char *idx_path;
	int algo;
	size_t rawsz;
	/* .idx, mapped read-only at scan time */
	const unsigned char *idx_map;
	size_t idx_size;
	int idx_version;		/* 1 or 2 */
	uint32_t nr;
	const unsigned char *fanout;	/* 256 big-endian uint32 */
	const unsigned char *names;	/* first name; stride name_stride */
	size_t name_stride;		/* v1: 4 + rawsz (offset first); v2: rawsz */
	const unsigned char *off32;	/* v2 */
	const unsigned char *off64;	/* v2 */
	size_t n_off64;
	/* freshened (utime) once per process, as git's p->freshened */
	atomic_int freshened;
	/* .pack, mapped on first use */
	pthread_mutex_t lock;
	atomic_int state;		/* 0 unopened, 1 open, -1 failed */
	const unsigned char *data;
	uint64_t data_size;
	uint64_t pack_file_size;
	/* offsets sorted: idx positions in pack order, built on demand */
	uint32_t *_Atomic rev;
	/* offsets of the entries other entries are deltas on, sorted; built
	 * on demand (FGIT_ODB_ACCESS_ONCE_EACH) */
	struct pack_bases *_Atomic bases;
	atomic_int bases_busy;		/* a thread is building bases */
	/* the delta chains and reads to come (FGIT_ODB_ACCESS_ALL_BY_ID) */
	struct pack_plan *_Atomic plan;
	atomic_int plan_busy;		/* a thread is building plan */
	/* resolved type by entry offset: open addressing, (off << 3) | type */
	_Atomic uint64_t *_Atomic type_memo;
	size_t type_memo_mask;
	uint64_t mtime;
	int in_midx;			/* covered by the odb's multi-pack-index */
	int gone;			/* deleted since (seen by a refresh): not searched */
};

/* An open multi-pack-index (include/fgit/midx.h); validated at open. */
struct fgit_midx {
	char *path;
	const unsigned char *map;
	size_t size;
	int algo;
	size_t rawsz;
	uint64_t ino, mtime_ns;		/* to notice a rewrite on refresh */
	uint32_t npacks, nr;
	const unsigned char *pnam;
	uint64_t pnam_size;
	const char **names;		/* into pnam */
	const unsigned char *fanout, *oids, *ooff, *loff, *ridx;
	uint64_t nloff;
	struct pack **packs;		/* by pack-int-id; NULL: not in the odb */
};

struct odb_cache;
struct odb_loose_cache;
struct odb_fanout;

struct fgit_odb {
	char *path;
	struct fgit_odb_options opts;
	int algo;
	int depth;			/* alternate nesting level */
	pthread_rwlock_t packs_lock;
	struct pack **packs;
	size_t npacks, packs_alloc;
	atomic_uint last_pack;		/* index of the pack that hit last */
	struct fgit_odb **alts;
	size_t nalts;
	struct odb_cache *cache;
	struct fgit_midx *midx;		/* objects/pack/multi-pack-index, or NULL */
	struct fgit_midx **old_midx;	/* replaced ones, freed with the handle */
	size_t nold_midx;
	int cache_every;		/* pack_read caches every Nth chain level */
	/* listed loose directories (fgit_odb_exists_quick), made on first use */
	struct odb_loose_cache *_Atomic loose_cache;
	/* fan-out directories opened for writing, made on first write */
	struct odb_fanout *_Atomic fanout;
	int keep_bases;			/* objects read whole that are delta bases are cached */
	int pack_order;			/* FGIT_ODB_ACCESS_PACK_ORDER */
	int plan_all;			/* FGIT_ODB_ACCESS_ALL_BY_ID */
};

/* core.deltaBaseCacheLimit, or the default */
size_t odb_cache_limit(const struct fgit_odb *odb);

/* ---- zlib helpers (thread-local inflaters) ---- */
struct libdeflate_decompressor *odb_libdeflate(void);
z_stream *odb_zstream(void);		/* inflateInit'd, reset, per thread */
/*
 * Per-thread scratch buffer i (0 .. ODB_SCRATCH_BUFS-1) of at least `need`
 * bytes, kept for the thread's life (freed at its exit); its contents do
 * not survive a call asking for more.  NULL when need > ODB_SCRATCH_MAX
 * (the caller mallocs) or out of memory.
 */
#define ODB_SCRATCH_BUFS 3
#define ODB_SCRATCH_MAX (1u << 20)
unsigned char *odb_scratch(int i, size_t need);
/*
 * Room for an object of `size` bytes and its NUL in the caller's buffer
 * (fgit_odb_read_into), emptied first; NULL (error set) if out of memory.
 */
struct fgit_buf;
unsigned char *odb_into_buf(struct fgit_buf *into, uint64_t size);

/* ---- loose objects (loose.c) ---- */
void odb_loose_path(char *out, size_t outsz, const struct fgit_odb *odb,
		    const struct fgit_oid *oid);
/*
 * cap: objects bigger than this are not read; returns 1, *size and *type
 * set.  into non-NULL: the object goes there (fgit_odb_read_into), not *out.
 */
int odb_loose_read(void **out, size_t *size, enum fgit_object_type *type,
		   struct fgit_buf *into, struct fgit_odb *odb, const struct fgit_oid *oid,
		   uint64_t cap);
int odb_loose_info(struct fgit_object_info *out, struct fgit_odb *odb,
		   const struct fgit_oid *oid, unsigned int flags);
int odb_loose_exists(struct fgit_odb *odb, const struct fgit_oid *oid);
/* The same from a listing of the fan-out directory made once (may miss
 * objects written since); thread-safe. */
int odb_loose_exists_cached(struct fgit_odb *odb, const struct fgit_oid *oid);
void odb_loose_cache_free(struct odb_loose_cache *c);
void odb_fanout_free(struct odb_fanout *f);
/*
 * 1 if this handle created the object's fan-out directory (so it holds
 * only objects written since, by us or a concurrent writer): a write need
 * not look for the object there first, the final rename never replaces
 * one.  Thread-safe, no system call.
 */
int odb_loose_dir_is_ours(struct fgit_odb *odb, const struct fgit_oid *oid);
int odb_loose_write_buf(struct fgit_odb *odb, const struct fgit_oid *oid,
			enum fgit_object_type type, const void *data, size_t len);
int odb_loose_write_fd(struct fgit_oid *out, struct fgit_odb *odb,
		       enum fgit_object_type type, int in_fd, uint64_t size);
/* Touch an existing object's file; 1 if it exists (anywhere), else 0. */
int odb_freshen(struct fgit_odb *odb, const struct fgit_oid *oid);
/* Parse "<type> <size>\0" in [p, p+n); returns header length incl. NUL or -1. */
int odb_parse_loose_header(const unsigned char *p, size_t n,
			   enum fgit_object_type *type, uint64_t *size);

/*
 * Walk loose object files in fan-out order (readdir order inside each);
 * only_dir >= 0 restricts to one fan-out directory.  garbage_cb (optional)
 * receives files that are not objects.  Stops when cb returns non-zero.
 */
int odb_walk_loose(struct fgit_odb *odb, int only_dir,
		   int (*cb)(const struct fgit_oid *oid, const char *path, void *payload),
		   void (*garbage_cb)(const char *path, void *payload),
		   void *payload);

/* ---- packs (pack.c) ---- */
int pack_open_idx(struct pack **out, const char *idx_path, int algo);
void pack_free(struct pack *p);
/* 1 and *pos if the pack has oid, 0 if not. */
int pack_find(const struct pack *p, const struct fgit_oid *oid, uint32_t *pos);
void pack_name_at(struct fgit_oid *out, const struct pack *p, uint32_t pos);
int pack_offset_at(uint64_t *out, struct pack *p, uint32_t pos);
int pack_ensure_open(struct pack *p);
int pack_ensure_rev(struct pack *p);
/* Read and resolve the object at offset; into as for odb_loose_read. */
struct odb_cache_entry;
int pack_read(void **out, size_t *size, enum fgit_object_type *type,
	      struct fgit_buf *into, struct odb_cache_entry **view, struct fgit_odb *odb,
	      struct pack *p, uint64_t off, uint64_t cap);
int pack_info(struct fgit_object_info *out, struct fgit_odb *odb,
	      struct pack *p, uint64_t off, unsigned int flags);
/* Entry header at off: type (possibly a delta type), size, zlib data. */
int pack_entry_raw(struct pack *p, uint64_t off, enum fgit_object_type *type,
		   uint64_t *size, const unsigned char **zdata, size_t *zavail);
/* First position >= prefix (for prefix scans). */
uint32_t pack_lower_bound(const struct pack *p, const struct fgit_oid *oid);
/* Start loading the index line pack_lower_bound() reads first for oid. */
void pack_prefetch(const struct pack *p, const struct fgit_oid *oid);

/*
 * Lookup of an id in this odb's packs (not alternates): through the
 * multi-pack-index first, then the packs it does not cover, as git.
 * 1 with *pack and *off set, 0 if absent, negative on a corrupt index.
 */
int odb_find_packed(struct pack **pack, uint64_t *off, struct fgit_odb *odb,
		    const struct fgit_oid *oid);

/* 1 if a pack of odb or of one of its alternates holds oid. */
int odb_packed_anywhere(struct fgit_odb *odb, const struct fgit_oid *oid);

/* ---- multi-pack-index (midx.c); called with packs_lock held ---- */
/* (Re)load objects/pack/multi-pack-index if it changed; a bad one is ignored. */
int odb_midx_load(struct fgit_odb *odb);
/* Point the midx's pack slots at the odb's packs and mark them in_midx. */
void odb_midx_map_packs(struct fgit_odb *odb);
/* 1 with *pack, *off if the midx has oid in a pack this odb has open. */
int odb_midx_lookup(struct pack **pack, uint64_t *off, struct fgit_odb *odb,
		    const struct fgit_oid *oid);

/* ---- delta-base cache (cache.c) ---- */
struct odb_cache_entry {
	struct pack *pack;
	uint64_t off;
	enum fgit_object_type type;
	size_t size;
	unsigned char *data;
	int depth;			/* deltas between it and its chain's base */
	/* reads to come that rest on it (FGIT_ODB_ACCESS_ALL_BY_ID), or NULL */
	const _Atomic uint32_t *pending;
	int rank;			/* which of its shard's lists it is on */
	atomic_int refs;
	struct odb_cache_entry *hnext, *lprev, *lnext;
};
struct odb_cache *odb_cache_new(size_t limit);
void odb_cache_free(struct odb_cache *c);
/* Drop every entry (readers still holding one keep it); thread-safe. */
void odb_cache_clear(struct odb_cache *c);
/* Not safe against readers running at the same time. */
void odb_cache_set_limit(struct odb_cache *c, size_t limit);
/* Whether an entry of `size` bytes would be kept (not over half the limit). */
int odb_cache_keeps(const struct odb_cache *c, size_t size);
/* A referenced entry or NULL; release with odb_cache_put. */
struct odb_cache_entry *odb_cache_get(struct odb_cache *c, struct pack *p, uint64_t off);
/*
 * Add data (ownership moves to the entry); returns a referenced entry.
 * pending (or NULL): the count of reads to come that need the entry; when
 * the cache is full, an entry with pending is evicted by its worth (reads
 * to come times chain depth, cache.c's ranks) rather than least recently
 * used.
 */
struct odb_cache_entry *odb_cache_add(struct odb_cache *c, struct pack *p, uint64_t off,
				      enum fgit_object_type type, unsigned char *data,
				      size_t size, int depth, const _Atomic uint32_t *pending);
/* Drop the entry of (p, off) if cached (readers holding it keep it). */
void odb_cache_drop(struct odb_cache *c, struct pack *p, uint64_t off);
void odb_cache_put(struct odb_cache_entry *e);
/* An entry outside the cache holding data (ownership moves to it, freed on
 * failure), referenced once: a read result handed out as a view. */
struct odb_cache_entry *odb_cache_wrap(enum fgit_object_type type, unsigned char *data,
				       size_t size);

/* ---- deltas (delta.c) ---- */
#include "odb/delta.h"

#endif
