/*
 * git rm's decisions, for the CLI and library users: which index entries a
 * pathspec removes, and which of them git refuses to remove without -f
 * because information would be lost (the file differs from the index, the
 * index from HEAD, or both).  Applying the plan edits the index in memory
 * and deletes the files (and the directories they leave empty); writing
 * the index is the caller's, through index.lock.
 *
 * Not thread-safe for one index (it is modified).
 */
#ifndef FGIT_RM_H
#define FGIT_RM_H

#include <stddef.h>

struct fgit_repo;
struct fgit_index;
struct fgit_pathspec;
struct fgit_wt_stat_options;

enum fgit_rm_flags {
	FGIT_RM_CACHED = 1 << 0,	/* --cached: index only */
	FGIT_RM_FORCE = 1 << 1,		/* -f: no safety checks */
	FGIT_RM_RECURSIVE = 1 << 2,	/* -r */
	FGIT_RM_IGNORE_UNMATCH = 1 << 3,	/* --ignore-unmatch */
};

struct fgit_rm_plan {
	char **paths;		/* the entries to remove, in index order */
	size_t nr;
	/* refusals (empty with FGIT_RM_FORCE), each in index order: */
	char **staged;		/* staged content differs from both file and HEAD */
	size_t nstaged;
	char **cached;		/* changes staged in the index (not with --cached) */
	size_t ncached;
	char **local;		/* local modifications (not with --cached) */
	size_t nlocal;
	int matched_any;	/* some pathspec element matched */
};

/*
 * Plan `git rm` of the paths ps matches in idx.  FGIT_ENOTFOUND for an
 * element that matches nothing ("pathspec '<p>' did not match any files")
 * unless FGIT_RM_IGNORE_UNMATCH; FGIT_EINVALID for a directory matched
 * without FGIT_RM_RECURSIVE ("not removing '<p>' recursively without -r");
 * FGIT_ENOTSUPP for a submodule.  *out is filled on success and released
 * with fgit_rm_plan_release().
 */
int fgit_rm_plan(struct fgit_rm_plan *out, struct fgit_repo *repo, struct fgit_index *idx,
		 const struct fgit_pathspec *ps, unsigned int flags,
		 const struct fgit_wt_stat_options *so);
void fgit_rm_plan_release(struct fgit_rm_plan *plan);

/*
 * Remove the planned entries from idx and (without FGIT_RM_CACHED) their
 * files from the work tree, with the directories left empty, never the
 * directory named by keep_dir (the caller's cwd, relative to the top; may
 * be NULL).  A file that cannot be removed fails the call
 * ("git rm: '<path>': <strerror>") only if it is the first: once one file
 * is gone git goes on.
 */
int fgit_rm_apply(struct fgit_repo *repo, struct fgit_index *idx,
		  const struct fgit_rm_plan *plan, unsigned int flags, const char *keep_dir);

#endif
