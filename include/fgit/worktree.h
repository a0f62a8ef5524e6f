/*
 * fgit_dirwalk — find the untracked (or ignored) paths of a work tree, as
 * git's fill_directory() does for ls-files -o and status; and
 * fgit_worktree_entry_changed — git's ie_modified(): has the file of an
 * index entry changed since its stat data was recorded?
 *
 * The walk reads each directory once (readdir, d_type; lstat only when the
 * file system gives no type), sorts its entries with directories keyed as
 * "name/" so the callback sees paths in git's byte order without a global
 * sort, skips ".git", and prunes before entering: ignored directories (unless
 * ignored paths are wanted), directories no pathspec element can reach, and
 * directories the index tracks as gitlinks.  The ignore stack is pushed on
 * entering and popped on leaving each directory.
 *
 * Not thread-safe per walk (the ignore stack is mutable); separate walks
 * with separate fgit_ignore objects may run in parallel.
 */
#ifndef FGIT_WORKTREE_H
#define FGIT_WORKTREE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "fgit/buf.h"

struct fgit_oid;
struct fgit_index;
struct fgit_index_entry;
struct fgit_ignore;
struct fgit_pathspec;
struct fgit_untr;
struct fgit_untr_dir;

enum fgit_dirwalk_flags {
	/* Report only ignored untracked paths (ls-files -o -i). */
	FGIT_DIRWALK_SHOW_IGNORED = 1 << 0,
	/* Report a wholly untracked directory as one entry (--directory). */
	FGIT_DIRWALK_DIRECTORY = 1 << 1,
	/* With DIRECTORY: leave out directories without untracked files. */
	FGIT_DIRWALK_NO_EMPTY_DIRECTORY = 1 << 2,
	/* With SHOW_IGNORED: a directory that an ignore pattern matches is
	 * reported as one entry and not entered; the files of other
	 * directories one by one (status --ignored=matching). */
	FGIT_DIRWALK_IGNORED_MATCHING = 1 << 3,
	/* With SHOW_IGNORED|DIRECTORY|NO_EMPTY_DIRECTORY, status --ignored's
	 * rule (git's DIR_SHOW_IGNORED_TOO): an untracked directory that also
	 * holds untracked files is walked for the ignored paths inside it,
	 * which ls-files -o -i --no-empty-directory leaves out. */
	FGIT_DIRWALK_IGNORED_TOO = 1 << 4,
};

/*
 * Called for each path found, in git's order: `path` (len bytes, relative
 * to the top, no trailing slash) is a directory when is_dir is set.  A
 * nonzero return stops the walk and is returned by fgit_dirwalk().
 */
typedef int (*fgit_dirwalk_cb)(const char *path, size_t len, int is_dir, void *payload);

struct fgit_dirwalk_options {
	unsigned version;		/* FGIT_DIRWALK_OPTIONS_VERSION */
	unsigned flags;			/* enum fgit_dirwalk_flags */
	const struct fgit_index *index;	/* tracked paths; NULL: none */
	/* Ignore rules, with an empty stack (the walk pushes from the top and
	 * leaves it empty); NULL: nothing is ignored. */
	struct fgit_ignore *ignore;
	const struct fgit_pathspec *pathspec;	/* NULL: everything */
	/* Start below this directory ("" or NULL: the top; "a/b" or "a/b/"):
	 * git starts at the pathspec's common leading directory. */
	const char *start;
	fgit_dirwalk_cb cb;
	void *payload;
	/*
	 * The index's untracked cache, already checked by the caller against
	 * this run (ident, flags, exclude files: see git's
	 * validate_untracked_cache); NULL: none.  Used only for a whole-tree
	 * DIRECTORY|NO_EMPTY_DIRECTORY walk (a cache with dir_flags 6) or a
	 * walk with no flags (-uall, dir_flags 0), without pathspec,
	 * as git's read_directory uses it: a directory whose stat data and
	 * per-directory ignore file still match is not read, its cached
	 * untracked names are reported instead; any other directory is read
	 * and its node refreshed (the cache's counters say what changed).
	 * Paths then come unsorted and perhaps twice: sort the results.
	 */
	struct fgit_untr *untracked_cache;
};
#define FGIT_DIRWALK_OPTIONS_VERSION 1
#define FGIT_DIRWALK_OPTIONS_INIT { FGIT_DIRWALK_OPTIONS_VERSION, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL }

/*
 * Walk the work tree at `workdir` (absolute or relative filesystem path of
 * the top).  Returns 0, the callback's nonzero value, or a negative error
 * (FGIT_ENOMEM; an unreadable directory is skipped as git does).
 */
int fgit_dirwalk(const char *workdir, const struct fgit_dirwalk_options *opts);

/* ---- stat comparison ---- */

/* What fgit_worktree_entry_changed() found (git's *_CHANGED bits). */
enum fgit_wt_changed {
	FGIT_WT_MTIME = 1 << 0,
	FGIT_WT_CTIME = 1 << 1,
	FGIT_WT_OWNER = 1 << 2,
	FGIT_WT_MODE = 1 << 3,
	FGIT_WT_INODE = 1 << 4,
	FGIT_WT_DATA = 1 << 5,
	FGIT_WT_TYPE = 1 << 6,
};

struct fgit_wt_stat_options {
	unsigned version;	/* FGIT_WT_STAT_OPTIONS_VERSION */
	int trust_exec_bit;	/* core.filemode (default 1) */
	int trust_ctime;	/* core.trustctime (default 1) */
	int check_stat;		/* core.checkStat: 1 default, 0 minimal */
	int has_symlinks;	/* core.symlinks (default 1) */
	/* Compare stat data only: never read file contents (git's
	 * --really-refresh-less paths use content; this is for callers that
	 * only want the stat verdict). */
	int stat_only;
	/* Ignore the assume-unchanged bit (git's CE_MATCH_IGNORE_VALID). */
	int ignore_valid;
	int algo;		/* FGIT_HASH_SHA1 */
	/*
	 * Content checks (racy or smudged entries): hash the file at fspath
	 * (index path `path`, lstat'ed as st) as git would store it, through
	 * the to-git conversion (eol, ident, filters).  NULL: the bytes as
	 * they are.  Called from the threads that compare entries.
	 */
	int (*hash_file)(struct fgit_oid *out, const char *fspath, const char *path,
			 const struct stat *st, void *payload);
	void *hash_payload;
};
#define FGIT_WT_STAT_OPTIONS_VERSION 1
#define FGIT_WT_STAT_OPTIONS_INIT { FGIT_WT_STAT_OPTIONS_VERSION, 1, 1, 1, 1, 0, 0, 1, NULL, NULL }

/*
 * Compare entry e of idx with st, the lstat() of its file at `fspath`
 * (git's ie_match_stat + ie_modified): stat fields first; when they agree
 * but the entry is racy (its mtime not older than the index file), or when
 * only the size-less "smudged" data disagrees, the file is hashed and its
 * id compared with the entry's.  Returns 0 when unchanged, a positive
 * enum fgit_wt_changed mask when changed, negative on a read error.
 * Content is hashed through opts->hash_file when set (the to-git
 * conversion), as is otherwise; gitlinks are compared by type only.
 */
int fgit_worktree_entry_changed(const struct fgit_index *idx,
				const struct fgit_index_entry *e,
				const struct stat *st, const char *fspath,
				const struct fgit_wt_stat_options *opts);

/*
 * The first half of fgit_worktree_entry_changed(), git's ie_match_stat():
 * the stat fields, and the content only when they agree but the entry is
 * racy; a stat difference alone is a change, however equal the content.
 * git decides with this alone for an entry its refresh did not reach (rm's
 * safety check of a path below a symlinked directory).  Same returns.
 */
int fgit_worktree_entry_match_stat(const struct fgit_index *idx,
				   const struct fgit_index_entry *e,
				   const struct stat *st, const char *fspath,
				   const struct fgit_wt_stat_options *opts);

/*
 * Does `oid` name this ignore file's content as the untracked cache records
 * it?  git hashes a tracked, clean file's blob, and otherwise the content
 * with a newline appended (an empty file: the empty blob); either is taken.
 */
int fgit_untr_exclude_oid_matches(const struct fgit_oid *oid, const char *buf, size_t len);
/*
 * The id git records for an ignore file (fspath on disk, `path` in the
 * index or NULL): the index's id when it is tracked and its content
 * matches, the empty blob for an empty file, otherwise the content with a
 * newline appended hashed as a blob; a null id when there is no file.
 * 0 or a negative error.
 */
int fgit_untr_exclude_oid(struct fgit_oid *out, const char *fspath, const char *path,
			  const struct fgit_index *idx, int algo);

/*
 * update-index --test-untracked-cache: does the stat data of a directory
 * change when a file or directory is added to it or removed from it, and
 * stay when a file in it is written or one is added in a subdirectory?
 * The untracked cache trusts exactly that.  Works in a new directory
 * "mtime-test-XXXXXX" made in `dir` and removed afterwards, waiting one
 * second before each change (as git does, so that whole-second times
 * differ).  `step(n, payload)` is called with n = 0 once the directory is
 * made, then with 1..6 after each check that passed.  Returns 1 when every
 * check passed, 0 when one failed (*why: git's message for it, static), or
 * a negative error (the directory could not be made or stat'ed).
 */
int fgit_untr_test_mtime(const char **why, const char *dir,
			 void (*step)(int n, void *payload), void *payload);

/*
 * git's has_symlink_leading_path with its cache, for walks over index
 * entries in index order (status, add -u, commit -a): an entry below a
 * directory that is a symbolic link is gone, even when lstat through the
 * link finds a file.  The caller lstats the directories of each entry
 * from fgit_linkcheck_unseen() on (each '/' ends one), reports each
 * symlink with fgit_linkcheck_found(), marks the entry's directories
 * checked with fgit_linkcheck_seen(), and asks fgit_linkcheck_below().
 * One per thread; zero-initialised, fgit_linkcheck_release() after.
 */
struct fgit_linkcheck {
	struct fgit_buf seen;	/* "a/b/": its directories are checked */
	struct fgit_buf link;	/* "a/": a symlink; empty: none found */
};

/* Length of the directories of path ("a/b/" of "a/b/c", 0 for "c"). */
size_t fgit_path_dir_len(const char *path, size_t len);
/* Where the directories in dir[0, dlen) not checked yet begin. */
size_t fgit_linkcheck_unseen(const struct fgit_linkcheck *lc, const char *dir, size_t dlen);
void fgit_linkcheck_seen(struct fgit_linkcheck *lc, const char *dir, size_t dlen);
/* The directory dir[0, len) (no trailing slash) is a symbolic link. */
void fgit_linkcheck_found(struct fgit_linkcheck *lc, const char *dir, size_t len);
int fgit_linkcheck_below(const struct fgit_linkcheck *lc, const char *path);
/*
 * All of the above for one path (len bytes) without batching: lstat each
 * of its directories not checked yet, as fs[0, base) (the work tree's top
 * and a '/') followed by the directory; fs is scratch.  Returns
 * fgit_linkcheck_below(lc, path).
 */
int fgit_linkcheck_path(struct fgit_linkcheck *lc, struct fgit_buf *fs, size_t base,
			const char *path, size_t len);
void fgit_linkcheck_release(struct fgit_linkcheck *lc);

/* Only the stat comparison (git's ce_match_stat_basic): a changed mask. */
int fgit_worktree_stat_differs(const struct fgit_index_entry *e, const struct stat *st,
			       const struct fgit_wt_stat_options *opts);

/* Hash the file at fspath (lstat'ed as st) as a blob: content or link target. */
int fgit_worktree_hash_file(struct fgit_oid *out, const char *fspath,
			    const struct stat *st, int algo);

/* Fill e's stat fields from st, and nothing else (not the mode). */
void fgit_worktree_fill_stat_data(struct fgit_index_entry *e, const struct stat *st);

/* Fill e's stat fields from st (and mode from st with git's rules,
 * keeping e's mode when !trust_exec_bit or !has_symlinks). */
void fgit_worktree_fill_stat(struct fgit_index_entry *e, const struct stat *st,
			     const struct fgit_wt_stat_options *opts);

/*
 * git worktree prune: drop the administrative files
 * (<common_dir>/worktrees/<id>) of linked worktrees that are gone, by
 * git's rules: an entry that is not a directory, has no or an unreadable
 * or empty gitdir file, or whose gitdir points to a missing location
 * while its index is older than expire (or missing) is removed, unless a
 * "locked" file is there; of the entries kept, one whose gitdir names the
 * same path as the main worktree's git dir or as another entry's with a
 * smaller id goes too ("duplicate entry"); then worktrees/ itself if
 * empty.  cb (may be
 * NULL) gets each id with git's reason ("gitdir file points to
 * non-existent location", ...) before it goes; dry_run (-n) only reports.
 * 0, or a negative error (message set) when a directory cannot be read
 * or removed.
 */
int fgit_worktree_prune(const char *common_dir, int64_t expire, int dry_run,
			void (*cb)(const char *id, const char *reason, void *payload),
			void *payload);

#endif
