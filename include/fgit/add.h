/*
 * Staging work-tree files into the index: the engine behind `add`,
 * `commit -a` and `commit <paths>`.
 *
 * The caller names the paths (tracked entries to refresh, untracked files
 * found by a directory walk); fgit_add_paths() lstat()s, reads, converts
 * (clean filter, eol, ident), hashes and writes each file as a blob on
 * several threads at once, then applies the results to the index on the
 * calling thread in the order the paths were given, so output and errors
 * come out as git's sequential loop produces them.
 *
 * Objects go through the object database, hashed with collision
 * detection from one private copy of the content (DESIGN.md).
 */
#ifndef FGIT_ADD_H
#define FGIT_ADD_H

#include <stddef.h>
#include "convert.h"
#include "index.h"
#include "worktree.h"

struct fgit_index;
struct fgit_odb;
struct fgit_attrs;
struct fgit_config;
struct fgit_pathspec;

enum fgit_add_flags {
	/* Write nothing to the index or the object database (add -n). */
	FGIT_ADD_DRY_RUN = 1 << 0,
	/* Untracked files become intent-to-add entries (add -N). */
	FGIT_ADD_INTENT_TO_ADD = 1 << 1,
	/* Keep entries whose file is gone (add --no-all). */
	FGIT_ADD_IGNORE_REMOVAL = 1 << 2,
	/* Hash only, never write objects (update-index --info-only). */
	FGIT_ADD_HASH_ONLY = 1 << 3,
	/*
	 * Refresh stat data only (git's refresh_index): an entry whose file
	 * has the same content gets the new stat data; a changed or missing
	 * file is left as it is; nothing is written to the object database.
	 */
	FGIT_ADD_REFRESH_ONLY = 1 << 4,
};

/* What happened to one path, reported in order. */
enum fgit_add_event {
	FGIT_ADD_ADDED = 1,	/* new or changed content staged: "add '%s'" */
	FGIT_ADD_REMOVED,	/* file gone, entry removed: "remove '%s'" */
	FGIT_ADD_FAILED,	/* could not be read or hashed: msg says why */
	FGIT_ADD_WARNING,	/* msg is a warning about path (safecrlf) */
	FGIT_ADD_ERROR,		/* msg is a non-fatal error (a failed filter) */
	FGIT_ADD_EMBEDDED,	/* path is a repository, added as a gitlink */
	FGIT_ADD_FATAL,		/* a failure git dies of (a required clean
				 * filter failed): msg says why; the run
				 * stops after the callback */
};

/* The in-memory entry bit fgit_add_paths() sets on entries it wrote:
 * their stat data was taken just now (git's CE_UPTODATE). */
#define FGIT_ADD_UPTODATE (1u << FGIT_INDEX_USER_SHIFT)

struct fgit_add_options {
	unsigned int version;		/* FGIT_ADD_OPTIONS_VERSION */
	unsigned int flags;		/* enum fgit_add_flags */
	const char *workdir;		/* the top of the work tree */
	struct fgit_odb *odb;
	struct fgit_attrs *attrs;	/* NULL: no attributes */
	const struct fgit_config *config;	/* filter drivers; may be NULL */
	struct fgit_conv_config conv;
	struct fgit_wt_stat_options stat;
	/*
	 * Threads hashing and writing files; 0: online CPUs.  Measured on
	 * the 100,000-file corpus (bench/cases/add__A-small-*): on this
	 * 2-core machine 2 threads beat 1 by ~1.7x when objects are written.
	 */
	int threads;
	/*
	 * Called on the calling thread, in path order.  For FGIT_ADD_FAILED
	 * a zero return goes on with the next path (--ignore-errors), a
	 * non-zero one stops and is returned.  msg is NULL for ADDED,
	 * REMOVED and EMBEDDED.  May be NULL.
	 */
	int (*report)(enum fgit_add_event ev, const char *path, const char *msg,
		      void *payload);
	void *payload;
};
#define FGIT_ADD_OPTIONS_VERSION 1
#define FGIT_ADD_OPTIONS_INIT { FGIT_ADD_OPTIONS_VERSION, 0, NULL, NULL, NULL, NULL, \
	FGIT_CONV_CONFIG_INIT, FGIT_WT_STAT_OPTIONS_INIT, 0, NULL, NULL }

/*
 * Stage paths[0..n) (relative to the top, no trailing slash): a tracked
 * path whose file is unchanged (stat data, and content when racy) is left
 * alone; a changed one is re-hashed (its stat data refreshed silently when
 * the content is the same); one whose file is gone is removed unless
 * FGIT_ADD_IGNORE_REMOVAL; an untracked file is added; an untracked
 * directory holding a repository is added as a gitlink to its HEAD.
 * Entries written get FGIT_ADD_UPTODATE.  Returns 0, the report callback's
 * non-zero value, or a negative error (FGIT_ENOMEM, FGIT_ENOTSUPP for a
 * long-running filter driver).  *changed_out (may be NULL) is set when the
 * index was modified.
 */
int fgit_add_paths(struct fgit_index *idx, const char *const *paths, size_t n,
		   const struct fgit_add_options *opts, int *changed_out);

/*
 * The stage-0 and unmerged paths of idx matching ps (NULL: all), each once,
 * in index order: what `add -u` and `commit -a` refresh.  *out is a
 * malloc'd array of pointers into one malloc'd block: free(*out) frees
 * both.  Intent-to-add entries are included.
 */
int fgit_add_tracked_paths(const char ***out, size_t *n, const struct fgit_index *idx,
			   const struct fgit_pathspec *ps, unsigned char *seen);

/*
 * add -u, commit -a: fgit_add_paths() on the paths fgit_add_tracked_paths()
 * lists, without copying them (a job's path is its entry's while the
 * entry is in idx).  seen as there; the return value and *changed_out as
 * fgit_add_paths()'s.
 */
int fgit_add_update(struct fgit_index *idx, const struct fgit_pathspec *ps,
		    unsigned char *seen, const struct fgit_add_options *opts, int *changed_out);

/*
 * Before writing an index: git's racy-git smudging.  Every entry that is
 * not FGIT_ADD_UPTODATE and whose mtime is not older than the index file
 * it was read from, whose stat data still matches its file but whose
 * content does not, gets size 0, so the next stat check reads the content
 * again.  Returns the number of entries smudged.
 */
size_t fgit_add_smudge_racy(struct fgit_index *idx, const char *workdir,
			    const struct fgit_wt_stat_options *so);

#endif
