/*
 * The index (git's "dircache", $GIT_DIR/index): the sorted list of tracked
 * paths with their stat data and object ids, plus extensions.
 *
 * Formats: versions 2, 3 (extended flags) and 4 (path prefix compression),
 * the trailing checksum, and the extensions
 *   TREE  cache tree: read, kept, invalidated by path, written back;
 *   REUC  resolve undo: read, kept (and recorded when a conflicted path is
 *         resolved through this API), written back;
 *   UNTR  untracked cache: kept as raw bytes and written back unchanged as
 *         long as no entry was added or removed (then it is dropped, which git
 *         treats as "rebuild it");
 *   link  split index: read, resolved against <git-dir>/sharedindex.<hash>;
 *         written unsplit, or split with FGIT_INDEX_WRITE_SPLIT (always a
 *         new shared index: see there);
 *   EOIE, IEOT  end of entries / entry offset table: read (IEOT blocks are
 *         loaded by several threads) and written when the options ask for
 *         them, with git's rules;
 * any other extension git marks optional (first letter 'A'..'Z', e.g. FSMN)
 * is dropped as git drops it; an unknown required one is an error.
 *
 * Ownership: an index owns its entries; pointers returned by
 * fgit_index_get()/fgit_index_lookup() are borrowed and stay valid until the
 * index is next modified or freed.  An index is not locked: one thread may
 * modify it, or many may read it, at a time.
 */
#ifndef FGIT_INDEX_H
#define FGIT_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "common.h"
#include "oid.h"
struct fgit_buf;

struct fgit_index;

/* Flags of an entry (in-memory values, not the on-disk bits). */
enum fgit_index_entry_flags {
	FGIT_INDEX_ASSUME_VALID = 1 << 0,	/* "assume unchanged" (v2 bit) */
	FGIT_INDEX_SKIP_WORKTREE = 1 << 1,	/* extended (v3+) */
	FGIT_INDEX_INTENT_TO_ADD = 1 << 2,	/* extended (v3+): `add -N` */
	/*
	 * Bits from here up are the caller's, kept in memory only, never
	 * written (like git's CE_UPTODATE).
	 */
	FGIT_INDEX_USER_SHIFT = 8,
};
#define FGIT_INDEX_ONDISK_FLAGS \
	(FGIT_INDEX_ASSUME_VALID | FGIT_INDEX_SKIP_WORKTREE | FGIT_INDEX_INTENT_TO_ADD)

/*
 * One entry.  Allocate with fgit_index_entry_new(); once added to an index,
 * the index owns it.  The stat fields are stored truncated to 32 bits, as in
 * the file.
 */
struct fgit_index_entry {
	uint32_t ctime_sec, ctime_nsec;
	uint32_t mtime_sec, mtime_nsec;
	uint32_t dev, ino;
	uint32_t mode;		/* 0100644, 0100755, 0120000, 0160000 */
	uint32_t uid, gid;
	uint32_t size;
	struct fgit_oid oid;
	uint32_t flags;		/* enum fgit_index_entry_flags */
	uint16_t stage;		/* 0..3 */
	uint16_t internal;	/* private to lib/index */
	uint32_t path_len;
	char path[];		/* NUL-terminated, path_len bytes */
};

/*
 * Allocate a zeroed entry for path[0..len) (no NUL in it), owned by the
 * caller until passed to fgit_index_add().  FGIT_EINVALID for a path that
 * is empty or has a NUL; FGIT_ENOMEM.
 */
int fgit_index_entry_new(struct fgit_index_entry **out, const char *path, size_t len);
/* Free an entry the caller owns (never one an index owns). */
void fgit_index_entry_free(struct fgit_index_entry *e);

/* An empty index (nothing loaded; version 0 = "choose when writing"). */
int fgit_index_new(struct fgit_index **out, int algo);

enum fgit_index_load_flags {
	/* A missing file gives an empty index instead of FGIT_ENOTFOUND. */
	FGIT_INDEX_LOAD_MISSING_OK = 1 << 0,
	/*
	 * Verify the trailing checksum ("bad index file sha1 signature") and
	 * the entry order ("unordered stage entries in index", "multiple
	 * stage entries for merged file '%s'", "unordered stage entries for
	 * '%s'").  git 2.39 does both only in fsck (verify_index_checksum,
	 * verify_ce_order); its other commands read such files as they are,
	 * so fgit's default matches that.  Bounds and names are always
	 * checked (git would read past them; we cannot).
	 */
	FGIT_INDEX_LOAD_VERIFY = 1 << 1,
};

struct fgit_index_load_opts {
	unsigned int version;		/* FGIT_INDEX_LOAD_OPTS_VERSION */
	int algo;			/* FGIT_HASH_SHA1 */
	/*
	 * index.threads: 1 = one thread; 0 = choose (one thread per 10,000
	 * entries up to the number of CPUs, as git); n = at most n.
	 */
	int threads;
	/* Where sharedindex.<hash> lives (the git dir); NULL: the index's dir. */
	const char *shared_index_dir;
	unsigned int flags;		/* enum fgit_index_load_flags */
};
#define FGIT_INDEX_LOAD_OPTS_VERSION 1
#define FGIT_INDEX_LOAD_OPTS_INIT { FGIT_INDEX_LOAD_OPTS_VERSION, FGIT_HASH_SHA1, 0, NULL, 0 }

/*
 * Read and validate an index file: header, every entry's bounds and name,
 * extensions; with FGIT_INDEX_LOAD_VERIFY also the sort order and checksum.
 * A split index is resolved against opts->shared_index_dir.  Errors, in
 * git's words where git has them:
 *   FGIT_ENOTFOUND  the file (or the shared index) does not exist (unless
 *                   MISSING_OK): "<path>: index file open failed: <errno>";
 *   FGIT_EINVALID   "bad signature 0x%08x", "bad index version %d",
 *                   "bad index file sha1 signature", "index uses %.4s
 *                   extension, which we do not understand" (for these four
 *                   git prints "error: <message>" then "fatal: index file
 *                   corrupt": see fgit_index_error_is_hdr()); "<path>: index
 *                   file smaller than expected", "index file corrupt" (an
 *                   entry or extension running past the end, where git
 *                   would read out of bounds), "unknown index entry format
 *                   0x%08x", "unordered stage entries in index", "multiple
 *                   stage entries for merged file '%s'", "unordered stage
 *                   entries for '%s'", "broken index, expect %s in %s, got
 *                   %s", "corrupt link extension ...";
 *   FGIT_ERROR      other I/O errors; FGIT_ENOMEM.
 * opts may be NULL (defaults).  Thread-safe; uses up to opts->threads
 * threads of its own.
 */
int fgit_index_load(struct fgit_index **out, const char *path,
		    const struct fgit_index_load_opts *opts);

/*
 * After fgit_index_load() failed on this thread: nonzero when git reports
 * the failure as "error: <message>" followed by "fatal: index file corrupt"
 * (bad signature, bad version, bad checksum, unknown required extension),
 * zero when git says only "fatal: <message>".
 */
int fgit_index_error_is_hdr(void);

void fgit_index_free(struct fgit_index *idx);

/*
 * How many threads parsed the entries when this index was loaded (1 when
 * not loaded or loaded by one thread).  For tests and benchmarks.
 */
unsigned int fgit_index_load_threads(const struct fgit_index *idx);

/* Version read from the file (2, 3, 4), or the one last written; 0 if new. */
unsigned int fgit_index_version(const struct fgit_index *idx);
int fgit_index_algo(const struct fgit_index *idx);

/*
 * Modification time of the file this index was loaded from or last written
 * to (seconds, nanoseconds); 0, 0 if none.  An entry whose mtime is not
 * older than this is "racy": its stat data cannot prove it clean.
 */
void fgit_index_file_mtime(const struct fgit_index *idx, uint32_t *sec, uint32_t *nsec);
/* Is e racily clean with respect to the index file's mtime? (git's rule) */
int fgit_index_entry_is_racy(const struct fgit_index *idx, const struct fgit_index_entry *e);

/* The trailing checksum of the file loaded or last written (rawsz bytes). */
const unsigned char *fgit_index_checksum(const struct fgit_index *idx);

/* Number of entries. */
size_t fgit_index_entrycount(const struct fgit_index *idx);
/* Entry at pos (borrowed), NULL when out of range. */
const struct fgit_index_entry *fgit_index_get(const struct fgit_index *idx, size_t pos);
/*
 * Writable access for refreshing stat data and caller flags in place.  The
 * path and stage must not change; after changing mode or oid call
 * fgit_index_invalidate_path().
 */
struct fgit_index_entry *fgit_index_get_mut(struct fgit_index *idx, size_t pos);

/*
 * Binary search for (path, stage).  0 and *out = its position; or
 * FGIT_ENOTFOUND and *out = where it would be inserted (no error message is
 * set: not finding is an answer).
 */
int fgit_index_find(size_t *out, const struct fgit_index *idx,
		    const char *path, size_t len, unsigned int stage);
/* The entry (path, stage), borrowed, or NULL. */
const struct fgit_index_entry *fgit_index_lookup(const struct fgit_index *idx,
						 const char *path, unsigned int stage);
/*
 * In [lo, hi), where the entries starting with `prefix` (plen bytes, e.g.
 * "a/b/") begin at lo: the position of the first entry that does not
 * start with it.  Binary search; for walks that skip whole directories.
 */
size_t fgit_index_prefix_end(const struct fgit_index *idx, size_t lo, size_t hi,
			     const char *prefix, size_t plen);
/* Position of the first entry of path at any stage (or insertion point); found? */
int fgit_index_find_any_stage(size_t *out, const struct fgit_index *idx,
			      const char *path, size_t len);

/*
 * Add e (the index takes ownership, also on failure), keeping the order:
 * replaces the entry with the same path and stage; adding a stage-0 entry
 * removes stages 1-3 of that path (recording them in resolve-undo, as git
 * does).  The cache tree is invalidated along the path and the untracked
 * cache dropped.  A path that would be both a file and a directory is
 * refused (see fgit_index_add_ex()).  FGIT_EINVALID ("invalid path '%s'") for a path git's
 * verify_path() refuses (empty, ".", ".." or ".git" component, leading or
 * trailing slash) or stage > 3; FGIT_ENOMEM.
 */
int fgit_index_add(struct fgit_index *idx, struct fgit_index_entry *e);

/* May path be an index entry (git's verify_path for a non-directory)? */
int fgit_index_path_valid(const char *path);

enum fgit_index_add_flags {
	/* Remove the entries that make e's path both a file and a directory. */
	FGIT_INDEX_ADD_OK_TO_REPLACE = 1 << 0,
	/* Do not look for such entries at all (git's ADD_CACHE_SKIP_DFCHECK). */
	FGIT_INDEX_ADD_SKIP_DFCHECK = 1 << 1,
};
/*
 * fgit_index_add() with flags.  Without OK_TO_REPLACE or SKIP_DFCHECK, a
 * path that would be both a file and a directory at its stage ("a" next to
 * "a/b") is refused: FGIT_EEXISTS, "'%s' appears as both a file and as a
 * directory" (git's words).
 */
int fgit_index_add_ex(struct fgit_index *idx, struct fgit_index_entry *e, unsigned int flags);

/*
 * Bulk building (read-tree, add of a whole tree): append e without keeping
 * the order (the index takes ownership; FGIT_ENOMEM frees e), then call
 * fgit_index_sort() once.  Until then lookups are undefined; writing sorts
 * first.  No cache-tree or resolve-undo bookkeeping is done: callers
 * building an index from scratch set the cache tree themselves.
 */
int fgit_index_append(struct fgit_index *idx, struct fgit_index_entry *e);
/*
 * Sort appended entries by path and stage; of several entries with the same
 * path and stage the one appended last stays.  O(n log n).  FGIT_ENOMEM.
 */
int fgit_index_sort(struct fgit_index *idx);

/*
 * Remove the entry at pos (stage>0 entries are recorded in resolve-undo);
 * invalidates the cache tree along its path.  FGIT_ENOTFOUND if out of range.
 */
int fgit_index_remove_at(struct fgit_index *idx, size_t pos);
/* Remove every stage of path; FGIT_ENOTFOUND if it had none. */
int fgit_index_remove_path(struct fgit_index *idx, const char *path);

/* Remove all entries and extensions. */
void fgit_index_clear(struct fgit_index *idx);

/* ---- cache tree (TREE) ---- */

/* Is there a cache tree at all? */
int fgit_index_has_cache_tree(const struct fgit_index *idx);
/*
 * Look up the cache tree node of directory dir ("" for the root, "a/b"
 * without trailing slash).  0 and its entry count (-1 when invalid) and, when
 * valid, its tree id; FGIT_ENOTFOUND when there is no such node.
 */
int fgit_index_cache_tree_get(int *entry_count, int *subtree_count,
			      struct fgit_oid *oid, const struct fgit_index *idx,
			      const char *dir);
/*
 * Invalidate the cache tree nodes on the way to path (git's
 * cache_tree_invalidate_path): every directory above it is marked invalid,
 * and a subtree named exactly path is removed.
 */
void fgit_index_invalidate_path(struct fgit_index *idx, const char *path);
/*
 * Record (or replace) the node of directory dir as valid with the given
 * counts and tree id, creating missing parents as invalid nodes.  For
 * write-tree, which computes the trees.  FGIT_ENOMEM.
 */
int fgit_index_cache_tree_set(struct fgit_index *idx, const char *dir,
			      int entry_count, int subtree_count,
			      const struct fgit_oid *oid);
/*
 * Remove the node of directory dir (not "") and everything under it, as
 * git's cache_tree_update drops subtrees of directories that are gone.
 * FGIT_ENOTFOUND when there is no such node.
 */
int fgit_index_cache_tree_remove(struct fgit_index *idx, const char *dir);
/*
 * Call cb for every cache tree node, parents before children, children in
 * the order git keeps them: dir is "" for the root, "a/b" below it;
 * entry_count is -1 for an invalid node (oid then meaningless).  Stops when
 * cb returns non-zero and returns that.
 */
int fgit_index_cache_tree_foreach(const struct fgit_index *idx,
				  int (*cb)(const char *dir, int entry_count,
					    const struct fgit_oid *oid, void *payload),
				  void *payload);
/* Drop the whole cache tree. */
void fgit_index_cache_tree_clear(struct fgit_index *idx);

enum fgit_write_tree_flags {
	/* Entries whose object is missing are fine (write-tree --missing-ok). */
	FGIT_WRITE_TREE_MISSING_OK = 1 << 0,
	/* Rebuild every tree, valid cache-tree nodes or not. */
	FGIT_WRITE_TREE_IGNORE_CACHE_TREE = 1 << 1,
};
/*
 * Write the index's trees to odb (git's cache_tree_update): directories
 * whose cache-tree node is valid (and whose tree exists) are reused, the
 * others serialized, written and recorded in the cache tree.  Intent-to-add
 * entries are left out.  *out is the root tree; *changed_out (may be NULL)
 * says whether the cache tree changed (the index should then be written
 * back).  FGIT_EINVALID for an unmerged entry ("<path>: unmerged (<hex>)")
 * or a missing object ("invalid object <mode> <hex> for '<path>'").
 */
struct fgit_odb;
int fgit_index_write_tree(struct fgit_oid *out, int *changed_out, struct fgit_index *idx,
			  struct fgit_odb *odb, unsigned int flags);

/*
 * Add every entry of tree (recursively) to idx, which should be empty
 * (git's read-tree of one tree): stage-0 entries without stat data, and
 * the cache tree primed from the tree's own subtrees, so later writes
 * rebuild only what changes.  FGIT_ENOTFOUND for a missing object,
 * FGIT_EINVALID for a corrupt or non-tree one.
 */
int fgit_index_read_tree(struct fgit_index *idx, struct fgit_odb *odb,
			 const struct fgit_oid *tree);

/* ---- resolve undo (REUC) ---- */

struct fgit_index_reuc {
	uint32_t mode[3];		/* stages 1..3; 0 = absent */
	struct fgit_oid oid[3];
	char path[];
};
size_t fgit_index_reuc_count(const struct fgit_index *idx);
/* Sorted by path; borrowed. */
const struct fgit_index_reuc *fgit_index_reuc_get(const struct fgit_index *idx, size_t i);
const struct fgit_index_reuc *fgit_index_reuc_lookup(const struct fgit_index *idx,
						     const char *path);
void fgit_index_reuc_clear(struct fgit_index *idx);

/* ---- other extensions ---- */

/*
 * The untracked cache (UNTR), git's record of what each directory held
 * when it was last read: its stat data, the id of its per-directory ignore
 * file and the untracked names found in it.  The index owns it (parsed on
 * load, written back on fgit_index_write); status reads and refreshes it
 * through lib/worktree's walk.  Index changes invalidate the directories of
 * the paths they touch, as git's add_index_entry/remove_index_entry do.
 * Not thread-safe: one walk at a time.
 */
struct fgit_untr_dir {
	char *name;			/* "" for the top, else one component */
	char **untracked;		/* names found, in readdir order; dirs end in '/' */
	size_t nr_untracked, alloc_untracked;
	struct fgit_untr_dir **dirs;	/* sorted by name (strcmp) */
	size_t nr_dirs, alloc_dirs;
	unsigned valid : 1, check_only : 1, recurse : 1;
	uint32_t stat[9];		/* ctime s/ns, mtime s/ns, dev, ino, uid, gid, size */
	struct fgit_oid exclude_oid;	/* of its per-directory ignore file; zero: none */
};
struct fgit_untr {
	char *ident;			/* NUL-terminated strings, ident_len bytes */
	size_t ident_len;
	uint32_t info_exclude_stat[9], excludes_file_stat[9];
	uint32_t dir_flags;		/* git's dir_struct flags it was built with */
	struct fgit_oid info_exclude_oid, excludes_file_oid;	/* zero: no file */
	char *per_dir;			/* ".gitignore" */
	struct fgit_untr_dir *root;	/* NULL: created, never filled */
	int algo;
	/* what the last walk did (git's counters): any of them means the
	 * index should be written back */
	unsigned dir_opened, dir_invalidated, gitignore_invalidated, dir_created;
};

/* The index's untracked cache (borrowed, mutable), or NULL. */
struct fgit_untr *fgit_index_untracked_cache(const struct fgit_index *idx);
static inline int fgit_index_has_untracked_cache(const struct fgit_index *idx)
{
	return fgit_index_untracked_cache(idx) != NULL;
}
/* Drop it (core.untrackedCache=false, update-index --no-untracked-cache). */
void fgit_index_untracked_cache_drop(struct fgit_index *idx);
/*
 * Give the index a new, empty cache (git's new_untracked_cache): `ident`
 * is the first identity string ("Location <worktree>, system <sysname>"),
 * `dir_flags` git's flags (6: DIR_SHOW_OTHER_DIRECTORIES |
 * DIR_HIDE_EMPTY_DIRECTORIES).  Replaces any cache.  0 or FGIT_ENOMEM.
 */
int fgit_index_untracked_cache_create(struct fgit_index *idx, const char *ident, uint32_t dir_flags);
/* Give a cache without directories its top node; 0 or FGIT_ENOMEM. */
int fgit_untr_create_root(struct fgit_untr *uc);
/* Serialise the cache as git writes UNTR (appended to out). */
int fgit_untr_write(struct fgit_buf *out, const struct fgit_untr *uc);
/* Does the first identity string equal `ident`? */
int fgit_untr_ident_matches(const struct fgit_untr *uc, const char *ident);

/* The child `name` (len bytes, a trailing '/' ignored) of d, created
 * (invalid, not recursed) when missing; NULL on allocation failure. */
struct fgit_untr_dir *fgit_untr_lookup(struct fgit_untr *uc, struct fgit_untr_dir *d,
				       const char *name, size_t len);
/* Forget what d held (git's invalidate_directory): its children are no
 * longer written unless walked again. */
void fgit_untr_invalidate_dir(struct fgit_untr *uc, struct fgit_untr_dir *d);
/* d and everything below it are invalid (an ignore file changed). */
void fgit_untr_invalidate_gitignore(struct fgit_untr *uc, struct fgit_untr_dir *d);
/* A tracked path appeared or went: invalidate its directory (and, with
 * DIR_SHOW_OTHER_DIRECTORIES, the directories above it). */
void fgit_untr_invalidate_path(struct fgit_untr *uc, const char *path, size_t len);
/* Record an untracked name (a directory with its trailing '/'); 0 or -1. */
int fgit_untr_add_untracked(struct fgit_untr_dir *d, const char *name, size_t len);
void fgit_untr_free(struct fgit_untr *u);

/*
 * Optional extensions git itself does not know either, dropped on load:
 * git prints "ignoring %.4s extension" for each; their signatures (4 bytes
 * + NUL), in file order, borrowed; NULL past the end.
 */
const char *fgit_index_ignored_extension(const struct fgit_index *idx, size_t i);
/* Was the index loaded from a split index (link extension)? */
int fgit_index_was_split(const struct fgit_index *idx);

/*
 * Has the index been modified through this API since it was loaded or last
 * written (git's cache_changed, for SKIP_IF_UNCHANGED writes)?  Changes
 * made through fgit_index_get_mut() are not seen: call
 * fgit_index_mark_changed() after them.
 */
int fgit_index_is_changed(const struct fgit_index *idx);
void fgit_index_mark_changed(struct fgit_index *idx);

/* ---- writing ---- */

struct fgit_index_write_opts {
	unsigned int version;		/* FGIT_INDEX_WRITE_OPTS_VERSION */
	/*
	 * index.version: 2, 3 or 4; 0 = keep the version read (2 for a new
	 * index).  As in git, 2 and 3 are interchangeable: 3 is written when
	 * some entry has extended flags, 2 otherwise.
	 */
	unsigned int index_version;
	/* index.threads: -1 unset, 0 true/auto, 1 false, n. */
	int threads;
	/* index.recordEndOfIndexEntries, index.recordOffsetTable: -1 unset, 0, 1. */
	int record_eoie;
	int record_ieot;
	/* CPUs for "auto" threads (0: ask the system). */
	int cpus;
	unsigned int flags;		/* enum fgit_index_write_flags */
	/* With FGIT_INDEX_WRITE_SPLIT: the git dir; NULL: the index's dir. */
	const char *shared_index_dir;
	/*
	 * splitIndex.sharedIndexExpire: after writing a new shared index, the
	 * other sharedindex.* files last modified at or before this time (Unix
	 * seconds) are deleted, as git does; 0 = never; -1 = git's default,
	 * two weeks ago.
	 */
	int64_t shared_index_expire;
	/*
	 * splitIndex.maxPercentChange: a new shared index is written when
	 * more than this percentage of the entries are not in the current
	 * one; -1 = git's default, 20; 0 = always; 100 = never.
	 */
	int split_max_percent;
};
enum fgit_index_write_flags {
	/* Do not write the TREE extension (git's drop_cache_tree). */
	FGIT_INDEX_WRITE_NO_CACHE_TREE = 1 << 0,
	/*
	 * core.splitIndex.  When the index was loaded from a split index and
	 * its shared index is still there, only what changed goes into the
	 * index file (entries that differ from the shared ones or are racy,
	 * nameless, then new entries; delete and replace bitmaps), as git
	 * does; otherwise, or past split_max_percent, all entries go to a new
	 * "sharedindex.<checksum>" (no TREE/REUC/UNTR) and the index file has
	 * none, byte for byte what `git update-index --split-index` writes.
	 * NEEDSWORK: the incremental front is valid for git but not always
	 * the same bytes (git's EWAH encoding, its racy bookkeeping), and git
	 * freshens the shared index's mtime, which we do not.
	 */
	FGIT_INDEX_WRITE_SPLIT = 1 << 1,
	/*
	 * Opportunistic writes (status's refresh): once the lock is held,
	 * write only if the file still has the checksum it was loaded with
	 * (nobody wrote it meanwhile); otherwise FGIT_ELOCKED, nothing
	 * written.  For an index loaded from a file.
	 */
	FGIT_INDEX_WRITE_IF_UNCHANGED = 1 << 2,
};
#define FGIT_INDEX_WRITE_OPTS_VERSION 1
#define FGIT_INDEX_WRITE_OPTS_INIT { FGIT_INDEX_WRITE_OPTS_VERSION, 0, -1, -1, -1, 0, 0, NULL, -1, -1 }

/*
 * Serialise the index into buf-like memory: *out (malloc'd, caller frees)
 * of *len bytes, trailing checksum included.  FGIT_EINVALID for an entry
 * with a null id (git: "cache entry has null sha1: %s"); FGIT_ENOMEM.
 */
int fgit_index_serialize(unsigned char **out, size_t *len, struct fgit_index *idx,
			 const struct fgit_index_write_opts *opts);

/*
 * Serialise the index straight into fd (a lock file's), hashing as it
 * goes: the file is never held whole in memory.  Errors as
 * fgit_index_serialize, and FGIT_ERROR if a write fails (the caller rolls
 * its lock back: the target is never half-written).
 */
int fgit_index_write_fd(struct fgit_index *idx, int fd,
			const struct fgit_index_write_opts *opts);

/*
 * Racily clean entries: before writing, git smudges (sets size to 0) each
 * entry that fgit_index_entry_is_racy() and whose file no longer matches
 * its id, so a later stat cannot pass it as clean.  The library does not
 * look at files: the caller (lib/worktree) does that before writing.
 *
 * Write the index to path through "<path>.lock" (fgit_lockfile: created
 * O_EXCL, written, renamed into place; not fsync'd, as git with core.fsync
 * unset).  FGIT_ELOCKED when the lock is held, message in git's words:
 * "Unable to create '<abs path>.lock': File exists." followed by git's
 * advice paragraph.  On any failure the old file is left untouched and the
 * lock removed.  Updates the index's file mtime and checksum.
 */
int fgit_index_write(struct fgit_index *idx, const char *path,
		     const struct fgit_index_write_opts *opts);

struct fgit_lockfile;
/*
 * The same into a lock the caller took earlier with fgit_lockfile_acquire()
 * on the index path (git's commands hold index.lock from reading the index
 * to writing it).  Takes ownership of lk: committed on success, rolled back
 * on failure.
 */
int fgit_index_write_locked(struct fgit_index *idx, struct fgit_lockfile *lk,
			    const struct fgit_index_write_opts *opts);

#endif
